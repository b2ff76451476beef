# SPDX-License-Identifier: BSD-3-Clause
"""mpimeter: MPI micro-benchmarks that are accurate, reproducible and statistically sound.

The C half (``mpimeter-bench``) measures; this package runs campaigns, reads launch folders
(docs/FORMAT.md), computes the statistics and draws the reports.
"""

# The version's one home: python/pyproject.toml (setuptools' dynamic version) and CMakeLists.txt
# (mpimeter-bench --version, meta.json) read this line; keep it a plain "X.Y.Z" literal.
__version__ = "0.2.0"
SCHEMA_VERSION = 1
