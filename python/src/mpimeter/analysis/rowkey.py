# SPDX-License-Identifier: BSD-3-Clause
"""The key of a row of an analysis: the test of a campaign it summarizes, (alternative, op, size,
p, root, work pieces). Its own module, below results and fingerprint, so that the records keyed
by a row (analysis.back_to_back.BackToBackRow) and the fingerprint's request
(analysis.fingerprint) share one definition (CONTRIBUTING.md, one source of truth)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, kw_only=True)
class RowKey:
    """One test of a campaign: the key of its row (:class:`mpimeter.analysis.Row` has the same
    fields)."""

    alternative: str
    op: str
    size: int
    nprocs: int
    root: int | None
    workpieces: int | None
