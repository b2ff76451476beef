# SPDX-License-Identifier: BSD-3-Clause
"""raw.csv / sync.csv reading: errors name file and line, truncated last lines, Parquet cache."""

import os

import pytest
from data.synth import RAW_HEADER, write_launch
from data.testkit import golden_copy

from mpimeter.io import csvread
from mpimeter.io.errors import InputError
from mpimeter.io.launch import RAW_COLUMNS, SYNC_COLUMNS, read_launch

ROW = "0,allreduce,8,0,{rep},100,200,1,100,200\n"


def write_raw(path, body, header=RAW_HEADER + "\n"):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(header + body)
    return path


def test_reads_types_and_empty_global_times(tmp_path):
    p = write_raw(tmp_path / "raw.csv", ROW.format(rep=0) + "0,allreduce,8,1,0,100,250,0,,\n")
    t = csvread.read_csv(p, RAW_COLUMNS, cache=False).table
    assert t.num_rows == 2
    assert t["gstart_ns"].null_count == 1
    assert str(t.schema.field("valid").type) == "int8"


def test_truncated_last_line_is_dropped_and_reported(tmp_path):
    p = write_raw(tmp_path / "raw.csv", ROW.format(rep=0) + ROW.format(rep=1) + "0,allreduce,8,0,2,10")
    r = csvread.read_csv(p, RAW_COLUMNS, cache=False)
    assert r.table.num_rows == 2 and r.dropped_line == 4


def test_truncated_golden_launch_warns_with_file_and_line(tmp_path):
    d = read_launch(golden_copy(tmp_path, "truncated_raw") / "launches" / "000")
    w = [w for w in d.warnings if w.code == "truncated-line"]
    assert w and w[0].where.endswith("raw.csv:122")
    assert d.finished_tests == (0, 1, 2)
    assert d.status == "incomplete"


@pytest.mark.parametrize("body,line,what", [
    (ROW.format(rep=0) + "0,allreduce,8,0,1,abc,200,1,,\n", 3, "start_ns: 'abc' is not an integer"),
    (ROW.format(rep=0) + "0,allreduce,8,0,1,100\n", 3, "has 6 fields, expected 10"),
    (ROW.format(rep=0) + "\n" + ROW.format(rep=1), 3, "is empty"),
    (ROW.format(rep=0) + "0,allreduce,8,0,1,100,200,,,\n", 3, "column valid is empty"),
])
def test_malformed_lines_are_named(tmp_path, body, line, what):
    p = write_raw(tmp_path / "raw.csv", body)
    with pytest.raises(InputError) as exc:
        csvread.read_csv(p, RAW_COLUMNS, cache=False)
    assert exc.value.line == line and what in exc.value.what
    assert str(exc.value).startswith(f"{p}:{line}: ")


def test_wrong_header_and_empty_file(tmp_path):
    p = write_raw(tmp_path / "raw.csv", ROW.format(rep=0), header="test,op,size\n")
    with pytest.raises(InputError, match="raw.csv:1: header is"):
        csvread.read_csv(p, RAW_COLUMNS, cache=False)
    p.write_text("")
    with pytest.raises(InputError, match="raw.csv:1: has no header line"):
        csvread.read_csv(p, RAW_COLUMNS, cache=False)


def test_sync_kind_must_be_known(tmp_path):
    p = tmp_path / "sync.csv"
    p.write_text("rank,phase,kind,peer,local_ns,offset_ns,rtt_ns\n1,0,model,-1,5,7,0\n1,0,guess,0,5,7,0\n")
    with pytest.raises(InputError) as exc:
        csvread.read_csv(p, SYNC_COLUMNS, cache=False)
    assert exc.value.line == 3 and "guess" in exc.value.what


def test_parquet_cache_is_reused_while_the_csv_is_unchanged(tmp_path):
    p = write_raw(tmp_path / "raw.csv", ROW.format(rep=0) + ROW.format(rep=1))
    first = csvread.read_csv(p, RAW_COLUMNS)
    assert not first.from_cache and (tmp_path / "raw.parquet").exists()
    again = csvread.read_csv(p, RAW_COLUMNS)
    assert again.from_cache and again.table.equals(first.table)
    # appended rows (size and mtime change): read again
    with open(p, "a") as f:
        f.write(ROW.format(rep=2))
    third = csvread.read_csv(p, RAW_COLUMNS)
    assert not third.from_cache and third.table.num_rows == 3
    # same size, new mtime: read again
    st = os.stat(p)
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    assert not csvread.read_csv(p, RAW_COLUMNS).from_cache
    assert csvread.read_csv(p, RAW_COLUMNS).from_cache


def test_cache_remembers_the_dropped_line(tmp_path):
    p = write_raw(tmp_path / "raw.csv", ROW.format(rep=0) + "0,allre")
    assert csvread.read_csv(p, RAW_COLUMNS).dropped_line == 3
    cached = csvread.read_csv(p, RAW_COLUMNS)
    assert cached.from_cache and cached.dropped_line == 3


def test_a_torn_parquet_copy_is_refused_and_written_anew(tmp_path):
    # the copy is not fsync'd (mpimeter.io.csvread): a power cut may leave it empty, cut short or
    # with zeroed bytes, and none of these may be read as a table other than raw.csv's
    p = write_raw(tmp_path / "raw.csv", ROW.format(rep=0) + ROW.format(rep=1) + "0,allreduce,8,1,0,100,250,0,,\n")
    first = csvread.read_csv(p, RAW_COLUMNS)
    copy = tmp_path / "raw.parquet"
    good = copy.read_bytes()
    for torn in (b"", good[: len(good) // 2], good[:-1]):
        copy.write_bytes(torn)
        again = csvread.read_csv(p, RAW_COLUMNS)
        assert not again.from_cache and again.table.equals(first.table)
        assert copy.read_bytes() == good  # written anew from raw.csv
    key = csvread._cache_key(p)
    for start in range(0, len(good), 32):  # every 32-byte stretch zeroed in turn: refused, or the same table
        copy.write_bytes(good[:start] + bytes(len(good[start:start + 32])) + good[start + 32:])
        hit = csvread._read_cache(p, key, RAW_COLUMNS)
        assert hit is None or (hit[0].equals(first.table) and hit[1] is None), start


def test_unwritable_cache_is_not_an_error(tmp_path):
    p = write_raw(tmp_path / "raw.csv", ROW.format(rep=0))
    (tmp_path / "raw.parquet").mkdir()  # something in the way
    r = csvread.read_csv(p, RAW_COLUMNS)
    assert r.table.num_rows == 1 and not r.from_cache
    assert not [f for f in os.listdir(tmp_path) if f.endswith(".tmp")]


def test_stale_cache_from_another_reader_version_is_ignored(tmp_path, monkeypatch):
    p = write_raw(tmp_path / "raw.csv", ROW.format(rep=0))
    csvread.read_csv(p, RAW_COLUMNS)
    monkeypatch.setattr(csvread, "READER_VERSION", csvread.READER_VERSION + 1)
    assert not csvread.read_csv(p, RAW_COLUMNS).from_cache


def test_launch_without_raw_but_nothing_finished_is_fine(tmp_path):
    f = write_launch(tmp_path / "l", seed=1, finished=0, status="running")
    assert not (f / "raw.csv").exists()
    d = read_launch(f)
    assert d.raw.num_rows == 0 and d.finished_tests == ()


V2_HEADER = RAW_HEADER + ",init_ns,test_ns,wait_ns,compute_ns,blocking_ns\n"


def test_raw_format_2_reads_the_nonblocking_components(tmp_path):
    p = write_raw(tmp_path / "raw.csv", "0,ibcast,8,0,0,100,300,1,100,300,10,5,20,160,50\n"
                                        "1,bcast,8,0,0,400,500,1,400,500,,,,,\n", header=V2_HEADER)
    t = csvread.read_csv(p, RAW_COLUMNS, cache=False).table
    assert t["init_ns"].to_pylist() == [10, None] and t["blocking_ns"].to_pylist() == [50, None]


def test_raw_format_1_reads_with_empty_components(tmp_path):
    p = write_raw(tmp_path / "raw.csv", ROW.format(rep=0))
    t = csvread.read_csv(p, RAW_COLUMNS, cache=False).table
    assert t.column_names == [c.name for c in RAW_COLUMNS]
    assert all(t[c].null_count == 1 for c in ("init_ns", "test_ns", "wait_ns", "compute_ns", "blocking_ns"))


def test_a_header_of_neither_format_names_both(tmp_path):
    p = write_raw(tmp_path / "raw.csv", ROW.format(rep=0), header=RAW_HEADER + ",init_ns\n")
    with pytest.raises(InputError, match="or, an older format"):
        csvread.read_csv(p, RAW_COLUMNS, cache=False)
