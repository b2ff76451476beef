# SPDX-License-Identifier: BSD-3-Clause
"""Launches whose recorded inputs differ are never pooled silently.

- a relative `--graph-file` is recorded by its absolute path with the digest of its content
  (campaign.json `input_files`): `--resume` from another folder, which holds another g.txt, runs
  the file the campaign planned; a file changed since is refused (one line, exit 2, nothing ran);
  a campaign.json naming the file by a relative path or without its digest is refused too;
- the analysis refuses launches of one alternative that ran on different graphs or with
  different builds of mpimeter-bench (meta.json's config.graph.fnv1a64, tool, build), or with
  --allow-mixed reads them with a mixed-launches warning naming the fact.
"""

from __future__ import annotations

import json

import pytest
from data.fakebench import cli, fake_env, on_disk, one_line_error, template  # noqa: F401
from data.synth import write_campaign

from mpimeter import analysis
from mpimeter.io.errors import InputError

RING = "0: 1\n1: 0\n"
PAIR_BOTH_WAYS = "0: 1\n1: 0 # the same graph, another text\n"
OTHER = "0:\n1: 0\n"  # rank 0 sends to nobody


@pytest.fixture
def planned(fake_env, tmp_path, monkeypatch):
    """A failed one-launch campaign of neighbor_allgather on ./g.txt, planned in folder `a`."""
    tmp, opts = fake_env
    (tmp / "a").mkdir()
    (tmp / "a" / "g.txt").write_text(RING)
    monkeypatch.chdir(tmp / "a")
    out = tmp / "c"
    result = cli([*opts, "--launches", "1", "--mpi", "openmpi", "--retries", "0", "--ops", "neighbor_allgather",
                  "--graph-file", "g.txt", "--out", str(out)], env={"FAKE_BENCH_MODE": "fail"})
    assert result.exit_code == 1, result.output
    return tmp, out


def resume(tmp, out):
    return cli(["--resume", str(out), "--launcher", template(tmp), "--no-analyze"],
               env={"FAKE_BENCH_MODE": "ok", "FAKE_BENCH_LOG": str(tmp / "calls")})


def argv_of_last_launch(out):
    return on_disk(out)["launches"][0]["argv"]


def test_a_relative_graph_file_is_recorded_by_its_absolute_path_and_digest(planned):
    tmp, out = planned
    disk = on_disk(out)
    path = str(tmp / "a" / "g.txt")
    args = disk["bench_args"]
    assert args[args.index("--graph-file") + 1] == path
    assert disk["input_files"]["--graph-file"]["path"] == path
    assert len(disk["input_files"]["--graph-file"]["fnv1a64"]) == 16
    assert any("recorded as " + path in note for note in disk["notes"])  # said, not silent


def test_resumed_from_another_folder_the_planned_file_is_read(planned, monkeypatch):
    tmp, out = planned
    (tmp / "b").mkdir()
    (tmp / "b" / "g.txt").write_text(OTHER)  # what a relative path would have read from here
    monkeypatch.chdir(tmp / "b")
    result = resume(tmp, out)
    assert result.exit_code == 0, result.output
    argv = argv_of_last_launch(out)
    assert argv[argv.index("--graph-file") + 1] == str(tmp / "a" / "g.txt")


def test_a_graph_file_changed_since_is_refused_and_nothing_runs(planned):
    tmp, out = planned
    (tmp / "a" / "g.txt").write_text(OTHER)
    before = (out / "campaign.json").read_text()
    line = one_line_error(resume(tmp, out))
    assert "--graph-file" in line and "is not the file the campaign's launches read" in line, line
    assert not (tmp / "calls").exists()
    assert (out / "campaign.json").read_text() == before
    # the same graph in another text is another file to the digest: refused alike, said alike
    (tmp / "a" / "g.txt").write_text(PAIR_BOTH_WAYS)
    assert "is not the file" in one_line_error(resume(tmp, out))


@pytest.mark.parametrize("change", ["relative", "no digest", "another path", "bad digest"])
def test_a_campaign_json_that_does_not_pin_the_graph_file_is_refused(planned, change):
    tmp, out = planned
    disk = on_disk(out)
    args = disk["bench_args"]
    at = args.index("--graph-file") + 1
    if change == "relative":
        args[at] = "g.txt"
        del disk["input_files"]
    elif change == "no digest":
        del disk["input_files"]
    elif change == "another path":
        disk["input_files"]["--graph-file"]["path"] = str(tmp / "b" / "g.txt")
    else:
        disk["input_files"]["--graph-file"]["fnv1a64"] = "not hex"
    (out / "campaign.json").write_text(json.dumps(disk))
    line = one_line_error(resume(tmp, out))
    assert ("input_files" in line) or ("without the digest" in line), line
    assert not (tmp / "calls").exists()


def _graph_campaign(root, digests, **kw):
    camp = write_campaign(root, len(digests), seed=3, nrep=10, sizes=(8,), ops=("neighbor_allgather",), **kw)
    for i, digest in enumerate(digests):
        path = camp / "launches" / f"{i:03d}" / "meta.json"
        meta = json.loads(path.read_text())
        if digest is not None:
            meta["config"]["graph"] = {"fnv1a64": digest, "nodes": 2, "edges": 2, "out_degree": [1, 1],
                                       "in_degree": [1, 1]}
        path.write_text(json.dumps(meta))
    return camp


def test_launches_of_two_graphs_are_not_pooled(tmp_path):
    camp = _graph_campaign(tmp_path / "c", ["5b1d946403cb9397"] * 2 + ["4c7fd1c51dc0ccc9"])
    with pytest.raises(InputError, match=r"launches/002/meta.json: this launch does not belong with the others: "
                                         r"its graph of --graph-file \(config.graph.fnv1a64\) is '4c7fd1c51dc0ccc9', "
                                         r"but '5b1d946403cb9397' in launches 000, 001"):
        analysis.load_campaign(camp, cache=False, store=False)
    # a deliberate mix is read with a warning that names the fact
    loaded = analysis.load_campaign(camp, cache=False, store=False, allow_mixed=True)
    mixed = [w for w in loaded.warnings if w.code == "mixed-launches"]
    assert len(mixed) == 1 and "graph of --graph-file" in mixed[0].message


def test_a_graph_beside_the_cartesian_topology_is_a_mix_and_no_neighbor_op_is_none(tmp_path):
    camp = _graph_campaign(tmp_path / "c", ["5b1d946403cb9397", None, "5b1d946403cb9397"])
    with pytest.raises(InputError, match=r"launches/001/meta.json: .*is 'none \(the Cartesian topology\)'"):
        analysis.load_campaign(camp, cache=False, store=False)
    plain = write_campaign(tmp_path / "plain", 3, seed=3, nrep=10, sizes=(8,))
    analysis.load_campaign(plain, cache=False, store=False)  # no neighborhood collective: nothing to compare


def test_launches_of_two_builds_are_not_pooled(tmp_path):
    camp = write_campaign(tmp_path / "c", 3, seed=3, nrep=10, sizes=(8,))
    path = camp / "launches" / "002" / "meta.json"
    meta = json.loads(path.read_text())
    meta["build"]["flags"] = "-O0 -g"
    path.write_text(json.dumps(meta))
    with pytest.raises(InputError, match=r"launches/002/meta.json: .*mpimeter-bench build .* is '0.1.0 / synthetic / "
                                         r"gcc 12.2.0 / -O0 -g'"):
        analysis.load_campaign(camp, cache=False, store=False)
