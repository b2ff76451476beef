# SPDX-License-Identifier: BSD-3-Clause
"""One warning per code: the same caution repeated for every launch or test is one caution.

A code that occurs once is kept as it is. Several warnings of one code become one with
``count`` = how many there were, the message of the worst case (the largest ``badness``; the
first on ties) introduced by the count, the worst case's hint, and ``where`` listing the places
(the first :data:`MAX_PLACES`, then how many more). Exact repeats are dropped first. Order: where
each code first appeared.
"""

from __future__ import annotations

import dataclasses

from mpimeter.io.errors import AnalysisWarning

MAX_PLACES = 6


def group_warnings(warnings: list[AnalysisWarning] | tuple[AnalysisWarning, ...]) -> tuple[AnalysisWarning, ...]:
    by_code: dict[str, list[AnalysisWarning]] = {}
    for w in dict.fromkeys(warnings):
        by_code.setdefault(w.code, []).append(w)
    return tuple(_merge(items) for items in by_code.values())


def _merge(items: list[AnalysisWarning]) -> AnalysisWarning:
    if len(items) == 1:
        return items[0]
    worst = max(items, key=lambda w: w.badness)  # max keeps the first of equals
    count = sum(w.count for w in items)
    places = list(dict.fromkeys(w.where for w in items if w.where))
    where = ", ".join(places[:MAX_PLACES]) + (f" (+{len(places) - MAX_PLACES} more)" if len(places) > MAX_PLACES else "")
    label = "worst" if any(w.badness for w in items) else "first"
    return dataclasses.replace(worst, message=f"{count} cases; {label}: {worst.message}", where=where or None,
                               count=count)
