# SPDX-License-Identifier: BSD-3-Clause
"""meta.json as one typed record (io/meta.py): schema versions 1 and 2, neutral values for what
version 1 lacks, and every wrong type, missing key or unknown version refused naming the file."""

import json
from pathlib import Path

import pytest
from data.synth import meta_template, write_launch
from data.testkit import golden_copy

from mpimeter.io.errors import InputError
from mpimeter.io.jsonread import MAX_DEPTH
from mpimeter.io.meta import LaunchMeta, parse_meta, read_meta

TESTS = [{"test": 0, "op": "bcast", "size": 8, "status": "complete", "nrep": 10},
         {"test": 1, "op": "allreduce", "size": 64, "status": "failed", "nrep": 0}]


def meta(schema, **kw):
    return meta_template(2, clocksync="hca3", procsync="window", tests=[dict(t) for t in TESTS], status="complete",
                         schema=schema, **kw)


def parse(doc):
    return parse_meta(doc, Path("/x/meta.json"))


def test_version_2_reads_every_fact_the_analysis_uses(tmp_path):
    m = read_meta(golden_copy(tmp_path, "schema2") / "launches" / "000" / "meta.json")
    assert isinstance(m, LaunchMeta) and m.schema_version == 2 and m.status == "complete" and m.nprocs == 2
    assert m.operation("bcast").ranks_finish_apart and not m.operation("allreduce").ranks_finish_apart
    assert m.operation("bcast").kind == "rooted-collective" and m.operation("bcast").size_unit == "bytes"
    assert m.mpi.library == "openmpi" and m.mpi.mpi_t.cvars == 3 and m.mpi.mpi_t.selected == {"coll_tuned_priority": "30"}
    assert m.ranks[1].host == "synthetic-host" and m.ranks[1].cpus_seen == (1,) and m.ranks[1].cpu_khz is None
    assert m.timer.overhead_ns == 20.0 and m.clock_sync.residual_start.max_abs_ns == 40
    assert m.conditions[0].code == "oversubscribed" and m.conditions[0].where == "synthetic-host"
    assert all(t.start_tolerance_ns == 1000 and t.error is None for t in m.tests)
    assert m.hosts == ("synthetic-host",) and m.finished_tests == (0, 1, 2, 3)
    assert m.document["schema_version"] == 2  # the whole document, for showing it


def test_version_1_gets_neutral_values_for_what_it_lacks():
    m = parse(meta(1))
    assert m.operations == {} and m.operation("bcast") is None
    assert m.mpi.mpi_t is None and m.cacheline_probes == () and m.clock_sync.failed_syncs == 0
    assert all(t.invalid_late_wakeup == 0 and t.start_tolerance_ns is None and t.error is None for t in m.tests)
    assert m.ranks[0].cpus_seen == () and m.ranks[0].cpu_changes == 0 and m.ranks[0].cpu_khz is None
    assert m.config.start_tolerance_ns is None and m.proc_sync.invalid.late_wakeup == 0


def test_version_1_warnings_become_bench_warning_conditions_but_not_the_residual_verdict():
    doc = meta(1)
    verdict = "clock-sync residual up to 56 ns exceeds a tenth of the fastest test's median run time"
    doc["clock_sync"]["warning"] = verdict
    doc["warnings"] = [verdict, "the --cold-cache overwrite takes longer than --window-us 5"]
    (c,) = parse(doc).conditions
    assert c.code == "bench-warning" and c.message.startswith("the --cold-cache overwrite") and c.where is None


@pytest.mark.parametrize("method, chosen, described", [
    ("none", "auto, one clock", "none (auto, one clock)"), ("hca3", "auto", "hca3"), ("hca3", "given", "hca3"),
    ("hca3", None, "hca3")])
def test_how_the_clock_sync_was_chosen_is_read_and_named_when_auto_skipped_it(method, chosen, described):
    doc = meta(4)
    doc["clock_sync"]["method"] = method
    if chosen is not None:
        doc["clock_sync"]["chosen"] = chosen
    cs = parse(doc).clock_sync
    assert (cs.method, cs.chosen, cs.described) == (method, chosen, described)


def test_test_status_failed_and_its_error_are_read():
    doc = meta(2)
    doc["tests"][1]["error"] = {"code": "mpi-error", "message": "MPI_Allreduce: MPI_ERR_OP"}
    t = parse(doc).tests[1]
    assert t.status == "failed" and t.error.code == "mpi-error" and t.label == "test 1 (allreduce 64)"


def test_unknown_keys_are_ignored():
    doc = meta(2)
    doc["from_the_future"] = {"x": [1, 2]}
    doc["tests"][0]["new_counter"] = 3
    assert parse(doc).tests[0].nrep == 10


@pytest.mark.parametrize("edit,what", [
    (lambda d: d.pop("nprocs"), "has no key nprocs"),
    (lambda d: d.update(nprocs=0), "nprocs is 0; it must be at least 1"),
    (lambda d: d["tests"][0].pop("op"), "has no key tests[0].op"),
    (lambda d: d["tests"][1].update(test=5), "tests[1].test is 5; tests are listed in plan order, so it must be 1"),
    (lambda d: d["tests"][0].update(status="done"), "tests[0].status is 'done'; it must be one of complete, incomplete, failed, pending, running"),
    (lambda d: d["tests"][0].update(nrep=-1), "tests[0].nrep is an integer (-1); it must be an integer ≥ 0"),
    (lambda d: d["timer"].update(overhead_ns="fast"), "timer.overhead_ns is a string ('fast'); it must be a number"),
    (lambda d: d["clock_sync"].update(resyncs=1.5), "clock_sync.resyncs is a number (1.5); it must be an integer ≥ 0"),
    (lambda d: d["config"].update(raw="half"), "config.raw is 'half'; it must be one of full, reduced"),
    (lambda d: d["operations"].update(bcast={"ranks_finish_apart": "yes"}),
     "operations.bcast.ranks_finish_apart is a string ('yes'); it must be a boolean"),
    (lambda d: d["environment"].update(OMPI_X=3), "environment.OMPI_X is an integer (3); it must be a string"),
    (lambda d: d.update(conditions=["plain text"]), "conditions[0] is a string, not an object"),
    (lambda d: d["ranks"].pop(), "ranks lists 1 ranks, but nprocs is 2"),
    (lambda d: d["proc_sync"].update(window_ns_by_test={"a": 5}), "proc_sync.window_ns_by_test has the key 'a'"),
    (lambda d: d.update(schema_version=5), "has schema_version 5; this mpimeter reads versions 1, 2, 3, 4"),
    (lambda d: d.update(schema_version=True), "has schema_version True"),
])
def test_what_is_wrong_is_said_naming_file_and_key(edit, what):
    doc = meta(2)
    edit(doc)
    with pytest.raises(InputError) as exc:
        parse(doc)
    assert str(exc.value).startswith("/x/meta.json: ") and what in str(exc.value)


def test_deeply_nested_json_is_refused_not_a_recursion_error(tmp_path):
    f = write_launch(tmp_path / "l", seed=1, nrep=5)
    text = (f / "meta.json").read_text()
    deep = "[" * 100_000 + "]" * 100_000  # beyond Python's recursion limit
    (f / "meta.json").write_text(text[:-2] + f', "extra": {deep}}}')
    with pytest.raises(InputError, match="nests arrays or objects too deeply"):
        read_meta(f / "meta.json")
    moderate = "[" * (MAX_DEPTH + 5) + "]" * (MAX_DEPTH + 5)  # parses, but would strain every later walk
    (f / "meta.json").write_text(text[:-2] + f', "extra": {moderate}}}')
    with pytest.raises(InputError, match=f"nests arrays or objects more than {MAX_DEPTH} levels deep"):
        read_meta(f / "meta.json")


def test_not_utf8_and_not_an_object(tmp_path):
    p = tmp_path / "meta.json"
    p.write_bytes(b'{"a": "\xff"}')
    with pytest.raises(InputError, match="is not UTF-8 text"):
        read_meta(p)
    p.write_text(json.dumps([1, 2]))
    with pytest.raises(InputError, match="the document is an array, not an object"):
        read_meta(p)
