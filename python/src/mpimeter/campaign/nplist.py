# SPDX-License-Identifier: BSD-3-Clause
"""`--np LIST`: the process counts of a campaign, each one a factor of the plan (campaign.plan).

SKaMPI varies collectives "over the number of nodes"; Hoefler & Belli 2015 §5.1 ask for the
scaling of a result with p. A campaign runs every alternative at every p, interleaved in its
seeded random order, so that a drift of the machine hits every p alike.

Syntax: a comma list of items; an item is a number, or a range `A:B:xK` (A, A·K, A·K², ... up
to B, K ≥ 2) or `A:B:+K` (A, A+K, ... up to B, K ≥ 1); `A:B` is `A:B:+1`. The values keep the
order given; a value given twice, a descending range or a range with no value is refused.
"""

from __future__ import annotations

import re

from mpimeter.campaign.plan import PlanError

MAX_NP_VALUES = 64  # process counts per campaign: each multiplies the launches
_RANGE = re.compile(r"^(\d+):(\d+)(?::([x+])(\d+))?$")


def parse(text: str | int | list[int], *, flag: str = "--np") -> list[int]:
    """The process counts `text` gives, in its order. PlanError (one line) when it is not a
    list this module reads; the bounds of each value are the caller's (campaign.limits)."""
    if isinstance(text, bool):
        raise PlanError(f"{flag} {text!r}: must be a number of ranks or a list of them")
    if isinstance(text, int):
        return [text]
    if isinstance(text, list):
        values = list(text)
    else:
        values = []
        items = str(text).split(",")
        for item in (i.strip() for i in items):
            values += _item(item, text, flag)
    if not values:
        raise PlanError(f"{flag} {text!r}: no process count given")
    seen: set[int] = set()
    for v in values:
        if v in seen:
            raise PlanError(f"{flag} {text}: {v} is given twice; each process count once")
        seen.add(v)
    if len(values) > MAX_NP_VALUES:
        raise PlanError(f"{flag} {text}: {len(values)} process counts, at most {MAX_NP_VALUES}")
    return values


_ALLOWED = ("allowed: numbers and ranges, comma-separated, e.g. 2,4,8 or 2:64:x2 (geometric) or "
            "2:8:+2 (arithmetic)")


def _item(item: str, text: str, flag: str) -> list[int]:
    if re.fullmatch(r"-?\d+", item):
        return [int(item)]  # its bounds: campaign.limits.check_np
    m = _RANGE.match(item)
    if not m:
        raise PlanError(f"{flag} {text}: {item!r} is not a process count or a range; {_ALLOWED}")
    low, high = int(m.group(1)), int(m.group(2))
    kind, step = m.group(3) or "+", int(m.group(4) or 1)
    if low < 1:
        raise PlanError(f"{flag} {text}: range {item} starts at {low}; a process count is at least 1")
    if high < low:
        raise PlanError(f"{flag} {text}: range {item} descends ({low} > {high}); give it as {high}:{low}"
                        f"{':' + kind + str(step) if m.group(3) else ''}")
    if kind == "x" and step < 2:
        raise PlanError(f"{flag} {text}: range {item}: the factor after 'x' must be at least 2")
    if kind == "+" and step < 1:
        raise PlanError(f"{flag} {text}: range {item}: the step after '+' must be at least 1")
    values, v = [], low
    while v <= high:
        values.append(v)
        if len(values) > MAX_NP_VALUES:
            raise PlanError(f"{flag} {text}: range {item} gives more than {MAX_NP_VALUES} process counts")
        v = v * step if kind == "x" else v + step
    return values
