# SPDX-License-Identifier: BSD-3-Clause
"""The site's series (issue 30, item 6): imported tools are kept apart - one series per origin,
so IMB's and OSU's numbers of one machine are never one "unknown" history line - and a library
keeps the colour its campaign's report gives it; a machine's history is grouped by the Slurm partition
its launches ran in (one line per partition)."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
from click.testing import CliRunner
from data.store_campaigns import alpha_later, alpha_two_libraries, beta_one_library

from mpimeter.cli import main
from mpimeter.report.figures import ALTERNATIVE_COLORS
from mpimeter.site.data import load, page_name
from mpimeter.site.pages import colors

PEERS = Path(__file__).parent / "data" / "peers"


def invoke(*args):
    r = CliRunner().invoke(main, [str(a) for a in args])
    assert r.exit_code == 0, r.output
    return r


def test_imports_are_series_of_their_own_and_colours_follow_the_report(tmp_path):
    store = tmp_path / "results.duckdb"
    invoke("store", "add", alpha_two_libraries(tmp_path), "--store", store, "--no-report")
    invoke("import", "imb", PEERS / "imb-pingpong-allreduce-bcast.txt", "--out", tmp_path / "imb")
    invoke("import", "osu", PEERS / "osu-allreduce-full.txt", "--np", 2, "--out", tmp_path / "osu")
    for name in ("imb", "osu"):
        invoke("store", "add", tmp_path / name, "--store", store, "--no-report", "--machine", "alpha-node")
    con = duckdb.connect(str(store), read_only=True)
    data = load(con, str(store))
    con.close()
    by_origin = {}
    for s in data.series():
        by_origin.setdefault(s.origin, []).append(s)
    assert set(by_origin) == {"", "imb", "osu"}, data.series()
    assert len(by_origin["imb"]) == len(by_origin["osu"]) == 1
    imb, osu = by_origin["imb"][0], by_origin["osu"][0]
    assert imb.machine == osu.machine and imb.key != osu.key  # one machine, two lines
    assert "(IMB import)" in imb.label and "(OSU import)" in osu.label
    # both import allreduce: two histories of allreduce, not one
    allreduce = {s for s in data.results[data.results["op"] == "allreduce"]["series"]}
    assert {imb, osu} <= allreduce

    own = {s.library: s for s in by_origin[""]}
    alternatives = data.alternatives[data.alternatives["campaign_id"] == "a1" * 16]["alternative"].tolist()
    shown = colors(data, data.series())
    for library in ("openmpi", "mpich"):  # the report's colour: the alternative's position
        assert shown[own[library]] == ALTERNATIVE_COLORS[alternatives.index(library)]
    assert len(set(shown.values())) == len(shown)  # no two lines of one chart share a colour


def _in_partition(folder: Path, partition: str) -> Path:
    """The campaign's launches as srun starts them in a job of that Slurm partition."""
    for meta_path in folder.rglob("meta.json"):
        meta = json.loads(meta_path.read_text())
        meta["environment"] = {**meta.get("environment", {}), "SLURM_JOB_ID": "4242",
                               "SLURM_JOB_PARTITION": partition}
        meta_path.write_text(json.dumps(meta))
    return folder


def test_a_machines_history_is_grouped_by_slurm_partition(tmp_path):
    store = tmp_path / "results.duckdb"
    invoke("store", "add", _in_partition(alpha_two_libraries(tmp_path), "short"), "--store", store, "--no-report")
    invoke("store", "add", _in_partition(alpha_later(tmp_path), "long"), "--store", store, "--no-report")
    invoke("store", "add", beta_one_library(tmp_path), "--store", store, "--no-report")  # outside Slurm
    con = duckdb.connect(str(store), read_only=True)
    data = load(con, str(store))
    con.close()
    shown = [(s.where, s.library) for s in data.series()]
    assert shown == [("alpha-node · partition long", "openmpi"), ("alpha-node · partition short", "mpich"),
                     ("alpha-node · partition short", "openmpi"), ("beta-node", "openmpi")], shown
    (beta,) = [s for s in data.series() if s.machine == "beta-node"]
    assert beta.partition == "" and beta.key == page_name("series", "beta-node", "openmpi", "", str(beta.nprocs))
    openmpi = [s for s in data.series() if s.library == "openmpi" and s.machine == "alpha-node"]
    assert len({s.key for s in openmpi}) == 2  # one history line per partition
    invoke("site", "--store", store, "-o", tmp_path / "site")
    index = (tmp_path / "site" / "index.html").read_text()
    assert "<td>alpha-node · partition long</td>" in index and "<td>beta-node</td>" in index
    assert "<th>Slurm partitions</th>" in index and "<td>long, short</td>" in index


def test_an_imported_campaign_shows_no_nan_and_is_not_the_machines_latest(tmp_path):
    """An import has no start time, CPU, compiler or library version (NULL in the store): pandas
    read them as NaN, which the pages printed as "nan", and the machine table's "latest" campaign
    sorted the undated import last, showing its kernel and no CPU beside measured campaigns."""
    store = tmp_path / "results.duckdb"
    invoke("store", "add", alpha_two_libraries(tmp_path), "--store", store, "--no-report")
    invoke("import", "imb", PEERS / "imb-pingpong-allreduce-bcast.txt", "--out", tmp_path / "imb")
    invoke("store", "add", tmp_path / "imb", "--store", store, "--no-report", "--machine", "alpha-node")
    con = duckdb.connect(str(store), read_only=True)
    data = load(con, str(store))
    con.close()
    measured = data.alternatives[data.alternatives["series"].map(lambda s: s.origin == "")].iloc[0]
    assert measured["cpu_model"] and measured["kernel"] and measured["first_start"]
    invoke("site", "--store", store, "-o", tmp_path / "www")
    pages = list((tmp_path / "www").rglob("*.html"))
    assert len(pages) > 10
    for page in pages:
        text = page.read_text()
        assert ">nan<" not in text and ">nan " not in text, page
    index = (tmp_path / "www" / "index.html").read_text()
    machines = index.split('id="machines"')[1].split("</table>")[0]
    assert measured["kernel"] in machines and measured["cpu_model"] in machines
    assert "6.18.44-fc-v595" not in machines  # the IMB file's kernel: an undated import is not the latest
