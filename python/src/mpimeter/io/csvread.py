# SPDX-License-Identifier: BSD-3-Clause
"""Reading the launch folder's CSV files into Arrow, fast, with errors that name the line.

The fast path is pyarrow's multi-threaded CSV reader over a memory map. A launch killed while
writing leaves a last line without its newline: everything after the last newline is dropped
and reported (docs/FORMAT.md, raw.csv). When pyarrow refuses the file, a slow line-by-line scan
finds the first bad line and says what is wrong with it, so the message names file and line.

A Parquet copy (``<name>.parquet`` next to the CSV) is reused while the CSV's mtime and size
are those recorded in the copy's metadata; writing it is best effort (read-only folders are
fine). Nothing else in the input folder is ever written. The copy is not fsync'd: it can be
derived again, and one a power cut left empty or torn is refused (its pages carry checksums, its
schema must be the columns') and written anew from the CSV (test_io_csv.py, the torn copies).
"""

from __future__ import annotations

import json
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from mpimeter.atomic import kind_of, write_atomic_with
from mpimeter.io.errors import InputError

READER_VERSION = 3  # bump when the table a CSV turns into changes: old caches are ignored
_META_KEY = b"mpimeter.source"
_BLOCK = 1 << 24  # bytes pyarrow parses at once; a file no larger is read whole, in one read (read_csv)


@dataclass(frozen=True)
class Column:
    """A column of a CSV file. A string column with few values (an operation's name) can be
    read as ``pa.dictionary(pa.int32(), pa.string())``: the values are then held once and the
    rows as integer codes (:func:`dictionary_codes`), which makes reading and comparing them
    several times faster at 10^7 rows."""

    name: str
    type: pa.DataType
    nullable: bool = False  # empty field allowed (→ null)
    choices: tuple[str, ...] | None = None  # for strings: allowed values
    # A column a later format added at the end: a header that stops before the first such column
    # (an older file) is read too, with these columns all null.
    added: bool = False


@dataclass(frozen=True)
class CsvRead:
    table: pa.Table
    dropped_line: int | None  # 1-based number of a truncated last line that was dropped
    from_cache: bool


def _small_file(path: Path, size: int) -> bytes | None:
    """The file's first ``size`` bytes when ``size`` ≤ one block, else None (then memory-mapped):
    for a launch's small files one read costs less than an open per step and a memory map, whose
    unmapping in a process with threads was a third of the time to parse sync.csv."""
    if size > _BLOCK:
        return None
    with open(path, "rb") as f:
        return f.read(size)


def _tail_end(path: Path, size: int) -> tuple[int, int]:
    """(length of the file up to and including its last newline, the file's ``size``)."""
    if size == 0:
        return 0, 0
    with open(path, "rb") as f:
        pos = size
        chunk = 1 << 16
        while pos > 0:
            start = max(0, pos - chunk)
            f.seek(start)
            data = f.read(pos - start)
            i = data.rfind(b"\n")
            if i >= 0:
                return start + i + 1, size
            pos = start
    return 0, size


def _count_lines(path: Path, end: int) -> int:
    n = 0
    with open(path, "rb") as f:
        left = end
        while left > 0:
            data = f.read(min(left, 1 << 24))
            if not data:
                break
            n += data.count(b"\n")
            left -= len(data)
    return n


def _check_field(col: Column, text: str) -> str | None:
    """Why ``text`` is not a valid value of ``col``, or None."""
    if text == "":
        return None if col.nullable else f"column {col.name} is empty"
    if pa.types.is_integer(col.type):
        try:
            value = int(text)
        except ValueError:
            return f"column {col.name}: {text!r} is not an integer"
        bits = col.type.bit_width
        if not -(2 ** (bits - 1)) <= value < 2 ** (bits - 1):
            return f"column {col.name}: {text} does not fit a {bits}-bit integer"
        return None
    if col.choices is not None and text not in col.choices:
        return f"column {col.name}: {text!r} is not one of {', '.join(col.choices)}"
    return None


def _find_bad_line(path: Path, columns: tuple[Column, ...], end: int) -> tuple[int, str] | None:
    """Slow scan for the first line that does not fit ``columns``: (line number, why)."""
    with open(path, "rb") as f:
        data = f.read(end)
    lines = data.split(b"\n")[1:-1]  # no header; data ends with a newline
    for lineno, raw in enumerate(lines, start=2):
        try:
            line = raw.decode("utf-8").rstrip("\r")
        except UnicodeDecodeError:
            return lineno, "is not valid UTF-8"
        if line == "":
            return lineno, "is empty"
        fields = line.split(",")
        if len(fields) != len(columns):
            return lineno, f"has {len(fields)} fields, expected {len(columns)} ({','.join(c.name for c in columns)})"
        for col, text in zip(columns, fields):
            why = _check_field(col, text)
            if why:
                return lineno, why
    return None


def _check_header(path: Path, columns: tuple[Column, ...], data: bytes | None) -> tuple[Column, ...]:
    """The columns the file has: all of them, or (an older format) those before the first
    ``added`` one. ``data``: the file's bytes if read whole (they then hold a newline)."""
    if data is None:
        with open(path, "rb") as f:
            first = f.readline()
    else:
        first = data[: data.index(b"\n")]
    got = first.decode("utf-8", errors="replace").rstrip("\r\n")
    older = tuple(c for c in columns if not c.added)
    if older != columns and older == columns[: len(older)] and got == ",".join(c.name for c in older):
        return older
    expected = ",".join(c.name for c in columns)
    if got != expected:
        also = f" (or, an older format, {','.join(c.name for c in older)!r})" if older != columns else ""
        raise InputError(path, f"header is {got!r}, expected {expected!r}{also}", line=1)
    return columns


def _parse(path: Path, columns: tuple[Column, ...], end: int, data: bytes | None) -> pa.Table:
    schema_types = {c.name: c.type for c in columns}
    mm = pa.memory_map(str(path), "r") if data is None else None
    try:
        buf = mm.read_buffer(end) if mm is not None else pa.py_buffer(data).slice(0, end)
        try:
            table = pacsv.read_csv(
                pa.BufferReader(buf),
                read_options=pacsv.ReadOptions(use_threads=True, block_size=_BLOCK),
                parse_options=pacsv.ParseOptions(newlines_in_values=False, ignore_empty_lines=False),
                convert_options=pacsv.ConvertOptions(
                    column_types=schema_types,
                    strings_can_be_null=False,
                    null_values=[""],
                    quoted_strings_can_be_null=False,
                ),
            )
        except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
            bad = _find_bad_line(path, columns, end)
            if bad is not None:
                raise InputError(path, bad[1], line=bad[0]) from None
            raise InputError(path, f"does not parse as CSV: {exc}") from None
    finally:
        if mm is not None:
            mm.close()
    table = table.select([c.name for c in columns])
    # each block of the file got its own dictionary: one for the whole table
    if any(pa.types.is_dictionary(c.type) for c in columns):
        table = table.unify_dictionaries()
    # one chunk per column: the checks and reductions then read numpy views, not copies
    return table.combine_chunks()


def dictionary_codes(col: pa.ChunkedArray | pa.Array) -> tuple[np.ndarray, list[str]]:
    """(int32 code per row, the values the codes index) of a string or dictionary column."""
    enc = pc.dictionary_encode(col)
    if isinstance(enc, pa.ChunkedArray):
        if enc.num_chunks > 1:
            enc = pa.table({"c": enc}).unify_dictionaries()["c"]
        enc = enc.combine_chunks() if enc.num_chunks else pa.array([], enc.type)
    return enc.indices.to_numpy(zero_copy_only=False).astype(np.int32), enc.dictionary.to_pylist()


def _first_true_line(mask: pa.ChunkedArray | pa.Array) -> int | None:
    idx = pc.index(mask, True).as_py()
    return None if idx is None or idx < 0 else idx + 2  # header is line 1


def _validate(path: Path, table: pa.Table, columns: tuple[Column, ...]) -> None:
    for col in columns:
        arr = table[col.name]
        if not col.nullable and arr.null_count:
            line = _first_true_line(pc.is_null(arr))
            raise InputError(path, f"column {col.name} is empty", line=line)
        if col.choices is not None:
            bad = pc.invert(pc.is_in(arr, value_set=pa.array(col.choices)))
            if pc.any(bad).as_py():
                line = _first_true_line(bad)
                raise InputError(path, f"column {col.name}: {table[col.name][line - 2]} is not one of {', '.join(col.choices)}", line=line)


def _cache_path(path: Path) -> Path:
    return path.with_suffix(".parquet")


def _cache_key(path: Path) -> dict:
    st = path.stat()
    return {"mtime_ns": st.st_mtime_ns, "size": st.st_size, "reader": READER_VERSION}


def _read_cache(path: Path, key: dict, columns: tuple[Column, ...]) -> tuple[pa.Table, int | None] | None:
    cache = _cache_path(path)
    try:
        if kind_of(cache) != "a regular file":  # a FIFO would block the read; a link is not ours
            return None
        # one open file for the key and the table, read as written (pq.read_table goes through
        # the dataset layer: three times the CPU of the read itself for a launch's small file)
        with pq.ParquetFile(cache, page_checksum_verification=True) as copy:
            meta = copy.schema_arrow.metadata or {}
            stored = json.loads(meta.get(_META_KEY, b"{}"))
            if not isinstance(stored, dict) or {k: stored.get(k) for k in key} != key:
                return None
            # threads pay for a large copy only: with them a launch's small one took a quarter more CPU
            table = copy.read(use_threads=copy.metadata.num_rows >= 1 << 16)
    except (OSError, ValueError, pa.ArrowException):
        return None
    # the data pages are checked by their checksums, the footer's schema here: a torn copy
    # (written without fsync) is then never read as a table of other columns
    if not table.schema.equals(pa.schema([(c.name, c.type) for c in columns])):
        return None
    table = table.replace_schema_metadata(None).combine_chunks()
    return table, stored.get("dropped_line")


def _write_cache(path: Path, table: pa.Table, key: dict, dropped_line: int | None) -> None:
    cache = _cache_path(path)
    meta = dict(key, dropped_line=dropped_line)
    # dictionary pages only where they pay (the dictionary columns): trying them on the
    # timestamp columns doubled the time to write
    dictionary = [f.name for f in table.schema if pa.types.is_dictionary(f.type)]
    try:
        # one row group (up to 2^26 rows): read back as one chunk per column, nothing to combine;
        # not fsync'd (a copy: _read_cache refuses a torn one): the fsync was a third of the time to write
        write_atomic_with(cache, lambda f: pq.write_table(
            table.replace_schema_metadata({_META_KEY: json.dumps(meta).encode()}), f,
            use_dictionary=dictionary or False, row_group_size=min(max(table.num_rows, 1), 1 << 26),
            write_page_checksum=True), fsync=False)
    except (OSError, pa.ArrowException):
        pass  # a copy only: the launch is read from raw.csv next time (a link or FIFO there is left alone)


class CacheWriter:
    """Writes Parquet copies in one background thread while the caller reads on, with at most
    one copy pending: a second waits for the first, so memory holds two tables, not a queue."""

    def __init__(self) -> None:
        self._pool = ThreadPoolExecutor(max_workers=1)
        self._pending: Future | None = None

    def submit(self, fn, *args) -> None:
        if self._pending is not None:
            self._pending.result()
        self._pending = self._pool.submit(fn, *args)

    def __enter__(self) -> CacheWriter:
        return self

    def __exit__(self, *exc) -> None:
        self._pool.shutdown(wait=True)


def read_csv(path: Path, columns: tuple[Column, ...], *, cache: bool = True,
             writer: CacheWriter | None = None) -> CsvRead:
    """Reads ``path`` (whose header must be exactly the column names) into an Arrow table of
    the given types. Raises :class:`InputError` naming the file and line. ``writer``: where the
    Parquet copy is written (a thread, while the caller goes on reading); by default here."""
    path = Path(path)
    if not path.is_file():
        raise InputError(path, "is missing")
    key = _cache_key(path)
    if cache:
        hit = _read_cache(path, key, columns)
        if hit is not None:
            return CsvRead(hit[0], hit[1], True)
    data = _small_file(path, key["size"])
    end, size = _tail_end(path, key["size"]) if data is None else (data.rfind(b"\n") + 1, len(data))
    if end == 0:
        raise InputError(path, "has no header line (empty or truncated file)", line=1)
    present = _check_header(path, columns, data)
    if end < size:  # a last line without its newline: dropped (module docstring)
        dropped = (_count_lines(path, end) if data is None else data.count(b"\n", 0, end)) + 1
    else:
        dropped = None
    table = _parse(path, present, end, data)
    _validate(path, table, present)
    for c in columns[len(present):]:
        table = table.append_column(c.name, pa.nulls(table.num_rows, c.type))
    if cache:
        if writer is None:
            _write_cache(path, table, key, dropped)
        else:
            writer.submit(_write_cache, path, table, key, dropped)
    return CsvRead(table, dropped, False)
