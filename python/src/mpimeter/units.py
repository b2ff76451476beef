# SPDX-License-Identifier: BSD-3-Clause
"""The one formatter of times, sizes and rates, for the CLI tables and the HTML report alike:
one time unit per figure or table where asked, IEC byte sizes and rates (Hoefler & Belli 2015
§2.1.2: B for bytes, binary prefixes KiB/MiB), and :data:`DIGITS` = 3 significant digits
everywhere (a median of a few hundred repetitions is not known to more; its interval is shown
next to it). Whole nanoseconds print as integers ("842 ns"). Formatting only; no statistics."""

from __future__ import annotations

import math
from collections.abc import Callable

TIME_UNITS = (("ns", 1.0), ("µs", 1e3), ("ms", 1e6), ("s", 1e9))
RATE_UNITS = (("B/s", 1.0), ("KiB/s", 2.0**10), ("MiB/s", 2.0**20), ("GiB/s", 2.0**30), ("TiB/s", 2.0**40))
DIGITS = 3


def time_unit(typical_ns: float) -> tuple[str, float]:
    """The unit (name, nanoseconds per unit) in which `typical_ns` reads as 1 … 999."""
    if not math.isfinite(typical_ns) or typical_ns <= 0:
        return TIME_UNITS[1]
    name, scale = TIME_UNITS[0]
    for candidate, candidate_scale in TIME_UNITS:
        if typical_ns >= candidate_scale:
            name, scale = candidate, candidate_scale
    return name, scale


def format_ns(value_ns: float | None, unit: tuple[str, float] | None = None, *,
              digits: int = DIGITS) -> str:
    """A duration with `digits` significant digits and its unit ("12.3 µs"); "–" when missing."""
    if value_ns is None or (isinstance(value_ns, float) and math.isnan(value_ns)):
        return "–"
    if math.isinf(value_ns):
        return "∞"
    if unit is None and value_ns == 0:
        return "0 ns"
    name, scale = unit or time_unit(abs(value_ns))
    if scale == 1.0 and float(value_ns).is_integer():
        return f"{int(value_ns)} ns"  # whole nanoseconds: no invented decimals
    return f"{_significant(value_ns / scale, digits)} {name}"


def format_number(value: float | None, digits: int = DIGITS) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if isinstance(value, int):
        return str(value)
    return _significant(value, digits)


NO_INTERVAL = "[no interval]"  # in the place of "[low, high]": too few data for the confidence asked


def format_interval(low: float | None, high: float | None, fmt: Callable[[float], str] = format_ns) -> str:
    """An interval as "[low, high]", each bound through ``fmt``; :data:`NO_INTERVAL` when a bound
    is missing (None or NaN) — the one spelling of it in every table, report and message."""
    if any(b is None or (isinstance(b, float) and math.isnan(b)) for b in (low, high)):
        return NO_INTERVAL
    return f"[{fmt(low)}, {fmt(high)}]"


def format_rate(bytes_per_s: float | None, *, digits: int = DIGITS) -> str:
    """A rate with binary prefixes: 1.5 · 2^20 → "1.50 MiB/s"; "–" when missing."""
    if bytes_per_s is None or not math.isfinite(bytes_per_s):
        return "–"
    name, scale = RATE_UNITS[0]
    for candidate, candidate_scale in RATE_UNITS:
        if abs(bytes_per_s) >= candidate_scale:
            name, scale = candidate, candidate_scale
    return f"{_significant(bytes_per_s / scale, digits)} {name}"


def _significant(x: float, digits: int) -> str:
    if x == 0 or not math.isfinite(x):
        return f"{x:g}"
    magnitude = int(math.floor(math.log10(abs(x))))
    decimals = max(0, digits - 1 - magnitude)
    return f"{x:.{decimals}f}"


def format_bytes(size: int) -> str:
    """8 → "8 B", 1024 → "1 KiB", 65536 → "64 KiB", 1000 → "1000 B" (exact values only)."""
    for prefix, factor in (("Gi", 1 << 30), ("Mi", 1 << 20), ("Ki", 1 << 10)):
        if size >= factor and size % factor == 0:
            return f"{size // factor} {prefix}B"
    return f"{size} B"


def format_size(size: int, unit: str = "bytes") -> str:
    """The size of a test as the user thinks of it, in its unit (meta.json ``operations[op].size_unit``):
    bytes, or a duration for operations sized in ns."""
    if unit == "ns":
        return f"{format_ns(float(size))} delay"
    return format_bytes(size)


def size_axis_label(units: list[str] | tuple[str, ...]) -> str:
    return "delay (ns)" if set(units) == {"ns"} else "message size (bytes)"
