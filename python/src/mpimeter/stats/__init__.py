# SPDX-License-Identifier: BSD-3-Clause
"""Pure statistics over arrays: no files, no plots (ARCHITECTURE.md, statistics section)."""
