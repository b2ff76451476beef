# SPDX-License-Identifier: BSD-3-Clause
"""counters.csv read and checked against meta.json (mpimeter.io.counters): a launch's counters
load; every corruption that would still parse is refused naming the file and line; launches
without counters (every older launch folder) load as before, with none."""

from __future__ import annotations

import json
import shutil

import pytest
from data.synth import write_launch
from data.synth_counters import add_counters, follows, independent
from data.testkit import golden_copy

from mpimeter import analysis
from mpimeter.io import counters
from mpimeter.io.counters import read_counters
from mpimeter.io.errors import InputError
from mpimeter.io.meta import read_meta

NREP = 30


def _launch(tmp_path, **kw):
    folder = write_launch(tmp_path / "launches" / "000", seed=3, nrep=NREP, schema=2, **kw)
    return add_counters(folder, {"bytes_sent": follows, "queue": independent})


def _read(folder):
    return read_counters(folder, read_meta(folder / "meta.json"), cache=False)


def test_counters_load_with_every_row_of_raw(tmp_path):
    folder = _launch(tmp_path)
    lc = _read(folder)
    meta = read_meta(folder / "meta.json")
    assert lc.meta.names == ("bytes_sent", "queue")
    assert lc.table.num_rows == len(meta.finished_tests) * meta.nprocs * NREP * 2
    assert dict(lc.meta.read_ns_by_test) == {t: 150.0 for t in meta.finished_tests}
    assert lc.warnings == ()


def test_reduced_launch_has_rank_minus_one(tmp_path):
    lc = _read(_launch(tmp_path, raw_mode="reduced"))
    assert set(lc.table["rank"].to_pylist()) == {-1}


def test_launches_without_counters_still_load(tmp_path):
    """Every launch folder written before counters existed: no counters, the analysis as before."""
    for name in ("campaign_a",):
        root = golden_copy(tmp_path, name)
        for folder in sorted((root / "launches").iterdir()):
            assert read_counters(folder, read_meta(folder / "meta.json")) is None
        result = analysis.analyze(analysis.load_campaign(root))
        assert result.counters is None and result.to_dict()["counters"] is None


def _edit_csv(folder, fn):
    path = folder / "counters.csv"
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(fn(lines)))


@pytest.mark.parametrize("edit, needle, line", [
    (lambda ls: ls[:1] + [ls[1].replace("bytes_sent", "nonsense")] + ls[2:], "metric is not one of", 2),
    (lambda ls: ls[:2] + [ls[1]] + ls[2:], "appears twice", 3),
    (lambda ls: ls[:1] + ls[2:], "counter rows", None),
    (lambda ls: ls[:1] + [ls[1].replace("0,0,0,", "0,5,0,", 1)] + ls[2:], "rank is not in 0 … 1", 2),
    (lambda ls: ls[:1] + [ls[1].rsplit(",", 1)[0] + ",1.5\n"] + ls[2:], "not a whole number", 2),
    (lambda ls: ls[:1] + [ls[1].replace("0,0,0,", "0,0,999,", 1)] + ls[2:], "has repetition 999", 2),
    (lambda ls: ["test,rank,rep,counter,value\n"] + ls[1:], "header is", 1),
])
def test_corrupt_rows_are_refused(tmp_path, edit, needle, line):
    folder = _launch(tmp_path)
    _edit_csv(folder, edit)
    with pytest.raises(InputError) as exc:
        _read(folder)
    assert needle in str(exc.value)
    assert exc.value.path.name == "counters.csv" and exc.value.line == line


def test_meta_counters_are_checked(tmp_path):
    folder = _launch(tmp_path)
    meta = json.loads((folder / "meta.json").read_text())
    meta["counters"]["file"] = "../elsewhere.csv"
    (folder / "meta.json").write_text(json.dumps(meta))
    with pytest.raises(InputError, match="counters.file is '../elsewhere.csv'"):
        _read(folder)
    meta["counters"]["file"] = "counters.csv"
    meta["counters"]["metrics"].append(dict(meta["counters"]["metrics"][0]))
    (folder / "meta.json").write_text(json.dumps(meta))
    with pytest.raises(InputError, match="names 'bytes_sent' twice"):
        _read(folder)
    meta["counters"]["metrics"].pop()
    meta["counters"]["read_ns_by_test"] = {"99": 1.0}
    (folder / "meta.json").write_text(json.dumps(meta))
    with pytest.raises(InputError, match="read_ns_by_test.99 is not a test"):
        _read(folder)


def test_missing_file_and_cut_lines(tmp_path):
    folder = _launch(tmp_path)
    shutil.copy(folder / "counters.csv", tmp_path / "keep.csv")
    (folder / "counters.csv").unlink()
    with pytest.raises(InputError, match="is missing, but meta.json lists counters"):
        _read(folder)
    # a complete launch whose file was cut afterwards: an error
    text = (tmp_path / "keep.csv").read_text()
    (folder / "counters.csv").write_text(text[:-5])
    with pytest.raises(InputError, match="cut short"):
        _read(folder)
    # a launch killed while writing: its finished tests count, the cut line is dropped with a warning
    meta = json.loads((folder / "meta.json").read_text())
    meta["status"] = "incomplete"
    meta["tests"][-1]["status"] = "running"
    (folder / "meta.json").write_text(json.dumps(meta))
    last = meta["tests"][-1]["test"]
    kept = "".join(ln for ln in text.splitlines(keepends=True) if not ln.startswith(f"{last},"))
    (folder / "counters.csv").write_text(kept + f"{last},0,0,bytes_s")
    lc = _read(folder)
    assert [w.code for w in lc.warnings] == ["truncated-line"]
    assert last not in set(lc.table["test"].to_pylist())


def test_likwid_counters_load(tmp_path):
    """A launch counted in a LIKWID marker region: its metrics (EVENT:COUNTER, doubles), the group
    and LIKWID's version as meta.json records them; an empty value (a start or stop LIKWID
    refused) is no value, not 0."""
    folder = write_launch(tmp_path / "launches" / "000", seed=3, nrep=NREP, schema=2)
    add_counters(folder, {"INSTR_RETIRED_ANY:FIXC0": follows})
    meta = json.loads((folder / "meta.json").read_text())
    meta["counters"].update(mpit_pvars=None, likwid="CLOCK", likwid_version="5.2.2")
    meta["counters"]["metrics"][0].update({"source": "likwid", "class": "hardware", "datatype": "double",
                                           "value": "double"})
    (folder / "meta.json").write_text(json.dumps(meta))
    _edit_csv(folder, lambda ls: ls[:1] + [ls[1].rsplit(",", 1)[0] + ",\n"] + ls[2:])
    lc = _read(folder)
    assert (lc.meta.likwid, lc.meta.likwid_version, lc.meta.papi) == ("CLOCK", "5.2.2", None)
    assert [m.source for m in lc.meta.metrics] == ["likwid"]
    values = lc.table["value"].to_pylist()
    assert values[0] is None or values[0] != values[0]  # NaN: no value
    assert all(v == v for v in values[1:])


def _with_source(tmp_path, source):
    folder = _launch(tmp_path / f"launch{len(list(tmp_path.glob('launch*')))}")
    meta = json.loads((folder / "meta.json").read_text())
    meta["counters"]["metrics"][0]["source"] = source
    (folder / "meta.json").write_text(json.dumps(meta))
    return folder


def test_a_counters_source_is_one_the_binaries_list(tmp_path, monkeypatch):
    """The sources a metric may come from are the binary's own list (--describe counter_sources,
    read by io.bench_binaries), not a copy: the built binary's refuse another; a binary that
    lists one more makes it readable; with no binary built, the list of the binaries' recorded
    --describe (the repository's byte-identity documents); where nothing can say, a name."""
    from mpimeter.io import bench_binaries
    listed = bench_binaries.built_counter_sources()
    described = [s["name"] for s in bench_binaries.document(
        bench_binaries.bench_binary(bench_binaries.default_bench_dir(), "openmpi"))["counter_sources"]]
    assert set(listed) == set(described) == {"mpi_t", "papi", "likwid"}
    with pytest.raises(InputError, match=r"metrics\[0\].source is 'perf'; it must be one of likwid, mpi_t, papi"):
        _read(_with_source(tmp_path, "perf"))

    other = tmp_path / "bench"
    stand_in = bench_binaries.bench_binary(other, "openmpi")
    stand_in.parent.mkdir(parents=True)
    doc = {"describe_version": 1, "counter_sources": [{"name": "mpi_t"}, {"name": "perf"}]}
    stand_in.write_text(f"#!/bin/sh\necho '{json.dumps(doc)}'\n")
    stand_in.chmod(0o755)
    monkeypatch.setenv("MPIMETER_BENCH_DIR", str(other))
    assert [m.source for m in _read(_with_source(tmp_path, "perf")).meta.metrics][0] == "perf"
    with pytest.raises(InputError, match="it must be one of mpi_t, perf"):
        _read(_with_source(tmp_path, "papi"))

    monkeypatch.setenv("MPIMETER_BENCH_DIR", str(tmp_path / "no-binaries"))
    assert counters.recorded_counter_sources() == ("likwid", "mpi_t", "papi")
    assert _read(_with_source(tmp_path, "likwid")).meta.metrics[0].source == "likwid"
    with pytest.raises(InputError, match=r"metrics\[0\].source is 'perf'; it must be one of likwid, mpi_t, papi"):
        _read(_with_source(tmp_path, "perf"))
    with pytest.raises(InputError, match="source is 'Perf Counter'; it must be one of likwid, mpi_t, papi"):
        _read(_with_source(tmp_path, "Perf Counter"))

    monkeypatch.setattr(counters, "recorded_counter_sources", lambda: ())  # outside the repository
    assert _read(_with_source(tmp_path, "perf")).meta.metrics[0].source == "perf"
    with pytest.raises(InputError, match="source is 'Perf Counter'; it must be the name of a counter source"):
        _read(_with_source(tmp_path, "Perf Counter"))
