# SPDX-License-Identifier: BSD-3-Clause
"""raw.csv's columns (docs/FORMAT.md, "raw.csv"): the one Python definition of what
mpimeter-bench writes, used by the reader (mpimeter.io.launch), the writers of imported and fake
launches (mpimeter.io.peers.write, mpimeter.campaign.fake) and the checks (mpimeter.io.rowcheck).
c/tests/mpi/test_raw_format.py pins it to the header a real binary writes.

Raw format 2 (meta.json schema 3) is format 1 followed by the components of a nonblocking
collective; a format-1 file ends after ``gend_ns`` (its components read as empty).
"""

from __future__ import annotations

import pyarrow as pa

from mpimeter.io.csvread import Column

# raw format 1: one row per rank per repetition (rank -1: one row per repetition, --raw reduced)
FORMAT1_FIELDS = ("test", "op", "size", "rank", "rep", "start_ns", "end_ns", "valid", "gstart_ns", "gend_ns")
# raw format 2 adds a nonblocking collective's components (empty for every other operation)
COMPONENTS = ("init_ns", "test_ns", "wait_ns", "compute_ns", "blocking_ns")
FIELDS = FORMAT1_FIELDS + COMPONENTS
HEADER = ",".join(FIELDS)  # what mpimeter-bench writes
FORMAT1_HEADER = ",".join(FORMAT1_FIELDS)

_TYPES = {"test": pa.int32(), "op": pa.dictionary(pa.int32(), pa.string()), "size": pa.int64(), "rank": pa.int32(),
          "rep": pa.int32(), "start_ns": pa.int64(), "end_ns": pa.int64(), "valid": pa.int8(),
          "gstart_ns": pa.int64(), "gend_ns": pa.int64()}
# the typed columns the reader checks (mpimeter.io.csvread): global times empty without a clock
# sync; the components are `added` (a format-1 header stops before them)
COLUMNS = (
    *(Column(name, _TYPES[name], nullable=name in ("gstart_ns", "gend_ns")) for name in FORMAT1_FIELDS),
    *(Column(name, pa.int64(), nullable=True, added=True) for name in COMPONENTS),
)
