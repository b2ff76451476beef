"""Units for display: one time unit per figure or table, IEC byte sizes (Hoefler & Belli 2015
§2.1.2: B for bytes, binary prefixes KiB/MiB). Formatting only; no statistics."""

from __future__ import annotations

import math

TIME_UNITS = (("ns", 1.0), ("µs", 1e3), ("ms", 1e6), ("s", 1e9))


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
              digits: int = 3) -> str:
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


def format_number(value: float | None, digits: int = 3) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if isinstance(value, int):
        return str(value)
    return _significant(value, digits)


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


def format_size(op: str, size: int) -> str:
    """The size of a test as the user thinks of it: bytes, or a duration for the `delay` op."""
    if op == "delay":
        return f"{format_ns(float(size))} delay"
    return format_bytes(size)


def size_axis_label(ops: list[str] | tuple[str, ...]) -> str:
    return "delay (ns)" if set(ops) == {"delay"} else "message size (bytes)"
