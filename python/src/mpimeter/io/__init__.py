# SPDX-License-Identifier: BSD-3-Clause
"""Reading launch and campaign folders (docs/FORMAT.md) into Arrow tables.

- :mod:`mpimeter.io.meta`: meta.json as one typed record, ``LaunchMeta`` (schema versions 1 and 2)
- :mod:`mpimeter.io.jsonread`: untrusted JSON: parsing, nesting depth, typed access to keys
- :mod:`mpimeter.io.launch`: one launch folder: meta.json, raw.csv (Parquet-cached), sync.csv
- :mod:`mpimeter.io.rowcheck`: raw.csv checked against meta.json (values, duplicates, whole tests)
- :mod:`mpimeter.io.csvread`: the CSV files, fast, with errors that name the line
- :mod:`mpimeter.io.campaign`: deciding what a folder is and reading all its launches
- :mod:`mpimeter.io.siblings`: launches of one alternative that do not belong together
- :mod:`mpimeter.io.clock`: the after-the-fact global clock from sync.csv model rows
- :mod:`mpimeter.io.runtimes`: run time (and start spread) per repetition from the raw rows
- :mod:`mpimeter.io.store`: campaign.duckdb, the queryable store
- :mod:`mpimeter.io.redact`: the one rule by which secrets are redacted, wherever shown or stored
- :mod:`mpimeter.io.bench_binaries`: the mpimeter-bench binaries built and their ``--describe``
  document (the binary's own facts, read once per binary; the secret words io.redact uses)

Facts only: which clock to use and which warnings to raise is decided by ``mpimeter.analysis``.
"""

from mpimeter.io.errors import InputError

__all__ = ["InputError"]
