# SPDX-License-Identifier: BSD-3-Clause
"""Pure statistics over arrays: no files, no plots (docs/ARCHITECTURE.md, "The Python package: its levels")."""
