"""Reading launch and campaign folders (docs/FORMAT.md) into Arrow tables.

- :mod:`mpimeter.io.launch`: one launch folder: meta.json, raw.csv (Parquet-cached), sync.csv
- :mod:`mpimeter.io.campaign`: deciding what a folder is and reading all its launches
- :mod:`mpimeter.io.clock`: the after-the-fact global clock from sync.csv model rows
- :mod:`mpimeter.io.store`: campaign.duckdb, the queryable store
"""

from mpimeter.io.errors import InputError

__all__ = ["InputError"]
