# SPDX-License-Identifier: BSD-3-Clause
"""The PGMPI pieces without MPI: the regular ⪯ irregular guidelines (analysis.guidelines),
`mpimeter guidelines --replace` (analysis.pgmpi_config), the checks of `mpimeter run
--preload-pgmpi` (campaign.launch_env.pgmpi_preload), and the Python facts of
libmpimeter-pgmpi.so against its C sources. The library in launches: test_pgmpi_mpi.py."""

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_guidelines import MOCKUP, SIZES, campaign, rows, run

from mpimeter.io import pgmpi_format
from mpimeter.analysis.pgmpi_config import Route, routes_of
from mpimeter.campaign import launch_env
from mpimeter.campaign.plan import Alternative, PlanError
from mpimeter.campaign.spec import _preload_pgmpi
from mpimeter.cli.guidelines import command

REPO = Path(__file__).resolve().parents[2]
RS = "allreduce-as-rs-allgatherv"
IRREGULAR_OPS = ("allgather", "allgatherv", "reduce_scatter_block", "reduce_scatter")


def test_the_python_facts_match_the_c_library():
    header = (REPO / "c/include/mpimeter/mm_pgmpi.h").read_text()
    defines = dict(re.findall(r"#define (MM_PGMPI_\w+) (.+)", header))
    assert defines["MM_PGMPI_CONFIG_HEADER"] == json.dumps(pgmpi_format.HEADER)
    assert defines["MM_PGMPI_CONFIG_ENV"] == json.dumps(pgmpi_format.CONFIG_ENV)
    assert int(defines["MM_PGMPI_MAX_ROUTES"]) == pgmpi_format.MAX_ROUTES
    assert int(defines["MM_PGMPI_MAX_CONFIG_BYTES"]) == pgmpi_format.MAX_CONFIG_BYTES
    assert int(defines["MM_PGMPI_MAX_LINE"]) == pgmpi_format.MAX_LINE_BYTES
    table = (REPO / "c/src/pgmpi/pgmpi_config.c").read_text().split("mm_pgmpi_known[] = {", 1)[1].split("};", 1)[0]
    assert tuple(re.findall(r'\{"([\w-]+)", "([\w-]+)"\}', table)) == pgmpi_format.KNOWN_ROUTES
    # each replacement is a mock-up row of the op table, of the operation it replaces
    mockups = (REPO / "c/src/ops/ops_mockups.c").read_text()
    for op, mockup in pgmpi_format.KNOWN_ROUTES:
        assert f'{{"{mockup}", "{op}",' in mockups


def test_a_regular_collective_slower_than_its_irregular_form_violates(tmp_path):
    root = campaign(tmp_path / "c", {"allgather": lambda s: 2.0}, ops=IRREGULAR_OPS)
    r = run(root, "--format", "json", "--kind", "irregular")
    assert r.exit_code == 0, r.output
    got = [(x["op"], x["size"], x["versus"], x["versus_size"], x["violated"]) for x in rows(r, "irregular")]
    # reduce_scatter_block's size is one of nprocs blocks: against reduce_scatter of the whole vector
    assert got == [("allgather", s, "allgatherv", s, True) for s in SIZES] + \
        [("reduce_scatter_block", s, "reduce_scatter", 2 * s, False) for s in SIZES[:-1]]
    assert all(x["statement"].startswith(f"{x['op']}({x['size']}) no slower than {x['versus']}(")
               for x in rows(r, "irregular"))


def test_a_regular_collective_without_its_irregular_form_is_noted(tmp_path):
    root = campaign(tmp_path / "c", ops=("allgather", "allreduce"), launches=4)
    out = json.loads(run(root, "--format", "json", "--kind", "monotony,irregular").stdout)
    notes = [w["message"] for w in out["warnings"] if w["code"] == "guideline-untestable"]
    assert any("irregular" in n and "allgather" in n for n in notes), notes
    assert not [x for x in out["rows"] if x["kind"] == "irregular"]


def _two_mockups(root):
    """allreduce twice as slow as at 16..64 bytes; reduce-bcast the faster mock-up at 16 and 32,
    rs-allgatherv at 64."""
    return campaign(root, {"allreduce": lambda s: 2.0 if s >= 16 else 1.0,
                           RS: lambda s: 0.7 if s == 64 else 1.3}, ops=("allreduce", MOCKUP, RS))


def test_replace_writes_a_route_per_run_of_violated_sizes_with_the_faster_mockup(tmp_path):
    out = tmp_path / "pgmpi.conf"
    r = run(_two_mockups(tmp_path / "c"), "--format", "json", "--replace", out)
    assert r.exit_code == 0, r.output
    lines = out.read_text().splitlines()
    assert lines[0] == pgmpi_format.HEADER
    assert [x for x in lines if not x.startswith("#")] == [
        f"route allreduce {MOCKUP} 2 16 32", f"route allreduce {RS} 2 64 64"]
    assert "wrote" in r.stderr and "2 route(s)" in r.stderr


def test_replace_lists_the_violations_the_library_cannot_replace(tmp_path):
    root = campaign(tmp_path / "c", {"allgather": lambda s: 2.0}, ops=("allreduce", MOCKUP, "allgather", "allgatherv"))
    out = tmp_path / "pgmpi.conf"
    r = run(root, "--format", "json", "--replace", out)
    assert r.exit_code == 0, r.output
    text = out.read_text()
    assert "\nroute " not in text  # allreduce was no slower than its mock-up
    assert text.count("# not replaced: allgather(") == len(SIZES) and "4 violation(s) it cannot replace" in r.stderr


def test_replace_never_replaces_a_file_it_did_not_write(tmp_path):
    root = _two_mockups(tmp_path / "c")
    foreign = tmp_path / "notes.txt"
    foreign.write_text("my notes\n")
    r = run(root, "--replace", foreign)
    assert r.exit_code == 2 and foreign.read_text() == "my notes\n"
    assert "is not a configuration mpimeter guidelines --replace wrote" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    own = tmp_path / "pgmpi.conf"
    own.write_text(pgmpi_format.HEADER + "\n# an older one\n")
    assert run(root, "--format", "json", "--replace", own).exit_code == 0
    assert "an older one" not in own.read_text() and "route allreduce" in own.read_text()


def test_replace_needs_the_mockup_kind(tmp_path):
    r = CliRunner().invoke(command, [str(tmp_path), "--kind", "monotony", "--replace", str(tmp_path / "x")])
    assert r.exit_code == 2 and "needs mock-up among --kind" in r.stderr


def _row(**kw):
    base = dict(kind="mock-up", alternative="openmpi", nprocs=2, op="allreduce", versus=MOCKUP, violated=True,
                median_rhs_ns=1.0)
    return type("Row", (), {**base, **kw})


def test_routes_of_breaks_a_run_at_a_size_that_was_not_violated():
    got, unreplaced = routes_of([_row(size=8), _row(size=16, violated=False), _row(size=32), _row(size=64),
                                 _row(size=8, nprocs=4)])
    assert got == [Route("allreduce", MOCKUP, 2, 8, 8), Route("allreduce", MOCKUP, 2, 32, 64),
                   Route("allreduce", MOCKUP, 4, 8, 8)] and unreplaced == []


def test_routes_of_refuses_several_alternatives():
    with pytest.raises(Exception, match="2 alternatives .mpich, openmpi.; a configuration serves one MPI library"):
        routes_of([_row(size=8), _row(size=8, alternative="mpich")])


def _library(tmp_path, lib="openmpi"):
    path = tmp_path / "bench" / lib / "lib" / pgmpi_format.LIBRARY
    path.parent.mkdir(parents=True)
    path.write_bytes(b"\x7fELF")
    return path


def test_preload_takes_the_built_library_and_a_configuration_only(tmp_path):
    library = _library(tmp_path)
    config = tmp_path / "pgmpi.conf"
    config.write_text(pgmpi_format.HEADER + "\nroute allreduce allreduce-as-reduce-bcast 2 8 8\n")
    env = launch_env.pgmpi_preload(library, config, "--preload-pgmpi")
    assert env == {"LD_PRELOAD": str(library.resolve()), pgmpi_format.CONFIG_ENV: str(config.resolve())}
    other = tmp_path / "other.txt"
    other.write_text("route allreduce allreduce-as-reduce-bcast 2 8 8\n")
    with pytest.raises(PlanError, match="not a configuration of libmpimeter-pgmpi.so .its first line is not"):
        launch_env.pgmpi_preload(library, other, "--preload-pgmpi")
    with pytest.raises(PlanError, match="is not built"):
        launch_env.pgmpi_preload(tmp_path / "none.so", config, "--preload-pgmpi")


def test_preload_is_added_to_every_alternative_and_refused_beside_a_variants_own(tmp_path):
    _library(tmp_path)
    config = tmp_path / "pgmpi.conf"
    config.write_text(pgmpi_format.HEADER + "\n")
    alts = _preload_pgmpi([Alternative("openmpi", "openmpi"), Alternative("tuned", "openmpi", {"X": "1"})],
                          tmp_path / "bench", config)
    assert all(a.env["LD_PRELOAD"].endswith("openmpi/lib/" + pgmpi_format.LIBRARY) for a in alts)
    assert alts[1].env["X"] == "1"
    with pytest.raises(PlanError, match="the alternative v sets LD_PRELOAD itself"):
        _preload_pgmpi([Alternative("v", "openmpi", {"LD_PRELOAD": "/x.so"})], tmp_path / "bench", config)


def test_run_guidelines_adds_the_irregular_form_of_a_regular_collective():
    from mpimeter.campaign.guideline_plan import ops_with_mockups

    described = [{"name": "allgather"}, {"name": "allgatherv"}, {"name": "alltoall"}, {"name": "alltoallv"},
                 {"name": "scatter"},  # no scatterv in this table: nothing to add
                 {"name": "allgather-as-alltoall", "mockup": {"of": "allgather", "calls": ["alltoall"]}}]
    assert ops_with_mockups(described, "allgather,alltoall,scatter") == \
        "allgather,allgather-as-alltoall,allgatherv,alltoall,alltoallv,scatter"
    with pytest.raises(PlanError, match="with an irregular form: allgather, alltoall"):
        ops_with_mockups(described, "scatter")
