"""The options of mpimeter-bench that `mpimeter run` passes on, their campaign defaults, their
validation (done once, before anything runs), and what the binary itself says it supports.

Validation here covers what can be checked without MPI (numbers, size lists, operation names
from `mpimeter-bench --list-ops`); the binary validates everything again on rank 0, and the
runner stops the campaign when the first launch is refused as bad input (exit 2).
"""

from __future__ import annotations

import math
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from mpimeter.campaign.plan import PlanError

# The default campaign (issue 5): the four collectives most applications use, 8 B to 64 KiB.
DEFAULT_OPS = "allreduce,bcast,alltoall,barrier"
DEFAULT_SIZES = "8:65536:x8,65536"  # 8 B to 64 KiB by x8, and 64 KiB itself
DEFAULT_NREP = 300
DEFAULT_PROCSYNC = "window"
BEST_CLOCKSYNC = "hca3"       # drift-aware, O(log p): used when the binary has it
FALLBACK_CLOCKSYNC = "skampi"
# Process syncs that start repetitions on a global clock, hence want a clock sync.
GLOBAL_CLOCK_PROCSYNCS = frozenset({"window", "roundtime", "harmonize"})

DATATYPE_BYTES = {"byte": 1, "char": 1, "int": 4, "float": 4, "double": 8, "long": 8,
                  "int64": 8, "int32": 4}


@dataclass(frozen=True)
class BenchOption:
    """One option of mpimeter-bench that `mpimeter run` accepts and passes on verbatim."""

    flag: str  # as mpimeter-bench spells it
    kind: str  # "int" | "float" | "float-or-auto" | "str" | "choice"
    help: str
    choices: tuple[str, ...] = ()
    # the bounds of c/src/config/config.c, checked here first so that a bad value gets one line
    # before any mpirun starts (`mpimeter run`, `mpimeter sync-check`)
    minimum: float | None = None
    above: float | None = None  # exclusive lower bound
    maximum: float | None = None

    @property
    def dest(self) -> str:
        return self.flag.lstrip("-").replace("-", "_")


BENCH_OPTIONS: tuple[BenchOption, ...] = (
    BenchOption("--ops", "str", f"operations, comma-separated (default {DEFAULT_OPS})"),
    BenchOption("--sizes", "str", f"sizes in bytes: a list or a range a:b:xF (default {DEFAULT_SIZES})"),
    BenchOption("--nrep", "int", f"repetitions per test (default {DEFAULT_NREP})", minimum=1),
    BenchOption("--warmup", "int", "unrecorded repetitions before each test", minimum=0),
    BenchOption("--procsync", "str", "process sync: window, barrier, roundtime, harmonize, "
                "none, loop-barrier (default window)"),
    BenchOption("--clocksync", "str", "clock sync (default: hca3 when the binary has it, else skampi)"),
    BenchOption("--timer", "str", "timer: monotonic, monotonic-raw, realtime, wtime, tsc, virtual"),
    BenchOption("--window-us", "float-or-auto",
                "window size in µs, or auto (default: auto, from a pilot)", above=0.0),
    BenchOption("--cold-cache", "int", "bytes overwritten after each repetition", minimum=0),
    BenchOption("--root", "int", "root rank of rooted operations", minimum=0),
    BenchOption("--datatype", "str", "datatype: byte, int, float, double"),
    BenchOption("--reduce-op", "str", "reduction: sum, max, bor"),
    BenchOption("--raw", "choice", "raw.csv rows: one per rank (full) or per repetition (reduced)",
                choices=("full", "reduced")),
    BenchOption("--resync-s", "float", "clock re-sync period in seconds", minimum=0.0),
    BenchOption("--virtual-base", "str", "timer wrapped by --timer virtual"),
    BenchOption("--virtual-offset-s", "float", "virtual timer: offsets drawn in +-X s", minimum=0.0,
                maximum=1e6),
    BenchOption("--virtual-skew-ppm", "float", "virtual timer: skews of +-Y ppm", minimum=0.0,
                maximum=1e5),
    BenchOption("--nfit", "int", "clock sync: fit points per edge", minimum=1,
                maximum=1_000_000),
    BenchOption("--pingpongs", "int", "clock sync: max round trips per offset", minimum=1,
                maximum=10_000_000),
    BenchOption("--n-nonimproving", "int", "clock sync: stop after N non-improving round trips",
                minimum=1),
    BenchOption("--min-rounds", "int", "clock sync (skampi): rounds before the early stop",
                minimum=1),
    BenchOption("--fit-span-s", "float", "clock sync: spread the fit points over S seconds",
                above=0.0, maximum=3600.0),
    BenchOption("--roundtime-budget-s", "float", "roundtime/harmonize: time budget per test",
                minimum=0.0),
    BenchOption("--bcast-factor", "float", "roundtime: start = now + K x broadcast time",
                minimum=0.0),
)


def parse_sizes(text: str) -> list[int]:
    """`8,1024`, `8:65536:x8` or a mix (`8,64:4096:x4`), as mpimeter-bench reads them."""
    sizes: list[int] = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            raise PlanError(f"--sizes {text!r}: empty element")
        if ":" in part:
            m = re.fullmatch(r"(\d+):(\d+):x(\d+)", part)
            if not m:
                raise PlanError(f"--sizes {text!r}: {part!r} is not a range START:END:xFACTOR "
                                "(e.g. 8:65536:x8)")
            start, end, factor = (int(g) for g in m.groups())
            if start < 1 or factor < 2 or end < start:
                raise PlanError(f"--sizes {text!r}: {part!r} needs 1 <= START <= END and FACTOR >= 2")
            value = start
            while value <= end:
                sizes.append(value)
                value *= factor
        else:
            if not part.isdigit():
                raise PlanError(f"--sizes {text!r}: {part!r} is not a size in bytes")
            sizes.append(int(part))
    return sizes


def option(flag: str) -> BenchOption:
    return next(opt for opt in BENCH_OPTIONS if opt.flag == flag)


def _plain(x: float) -> str:
    """1000000 rather than 1e+06: bounds as a user would type them."""
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


def check_number(opt: BenchOption, value: float | int | str) -> None:
    """A numeric option against its bounds (finite, minimum or above, maximum). PlanError."""
    if opt.kind not in ("int", "float", "float-or-auto") or (opt.kind == "float-or-auto" and value == "auto"):
        return
    number = float(value)
    bounds = [f"≥ {_plain(opt.minimum)}"] if opt.minimum is not None else []
    bounds += [f"> {_plain(opt.above)}"] if opt.above is not None else []
    bounds += [f"≤ {_plain(opt.maximum)}"] if opt.maximum is not None else []
    allowed = " and ".join(bounds) + (" or auto" if opt.kind == "float-or-auto" else "")
    fine = (math.isfinite(number)
            and (opt.minimum is None or number >= opt.minimum)
            and (opt.above is None or number > opt.above)
            and (opt.maximum is None or number <= opt.maximum))
    if not fine:
        shown = format(value, "g") if isinstance(value, float) else value
        raise PlanError(f"{opt.flag} {shown}: must be {allowed or 'a finite number'}")


def check_bench_args(values: dict[str, object], np: int, known_ops: list[str] | None,
                     known_names: dict[str, set[str]] | None = None) -> None:
    """Validates the options we can check without MPI. Raises PlanError with a clear message.
    `known_names`: option dest -> accepted names (from the binary's --help)."""
    for dest, names in (known_names or {}).items():
        value = values.get(dest)
        if value is None or not names:
            continue
        accepted = names | ({"auto"} if dest == "clocksync" else set())
        if str(value) not in accepted:
            flag = "--" + dest.replace("_", "-")
            raise PlanError(f"{flag} {value}: unknown; mpimeter-bench accepts "
                            f"{', '.join(sorted(accepted))}")
    for opt in BENCH_OPTIONS:
        value = values.get(opt.dest)
        if value is not None:
            check_number(opt, value)  # type: ignore[arg-type]
    ops = [o.strip() for o in str(values.get("ops") or DEFAULT_OPS).split(",")]
    if any(not o for o in ops):
        raise PlanError(f"--ops {values.get('ops')!r}: empty operation name")
    if known_ops:
        unknown = [o for o in ops if o not in known_ops]
        if unknown:
            raise PlanError(f"--ops: unknown operation(s) {', '.join(unknown)}; "
                            f"mpimeter-bench --list-ops has: {', '.join(known_ops)}")
    sizes = parse_sizes(str(values.get("sizes") or DEFAULT_SIZES))
    datatype = values.get("datatype")
    width = DATATYPE_BYTES.get(str(datatype)) if datatype else None
    bad = [s for s in sizes if width and s % width]
    if bad and set(ops) != {"delay"}:  # delay's "size" is a duration in ns
        raise PlanError(f"--sizes: {bad} are not multiples of the {datatype} size ({width} B)")
    root = values.get("root")
    if root is not None and int(root) >= np:  # type: ignore[arg-type]
        raise PlanError(f"--root {root}: must be below --np {np}")


def resolve_bench_args(values: dict[str, object], clocksync_default: str) -> list[str]:
    """The bench argument list of every launch of the campaign (seed and --out are per launch):
    the user's options, with the campaign defaults filled in and written out explicitly."""
    values = dict(values)
    values.setdefault("ops", None)
    if values.get("ops") is None:
        values["ops"] = DEFAULT_OPS
    if values.get("sizes") is None:
        values["sizes"] = DEFAULT_SIZES
    if values.get("nrep") is None:
        values["nrep"] = DEFAULT_NREP
    if values.get("procsync") is None:
        values["procsync"] = DEFAULT_PROCSYNC
    if values.get("clocksync") is None and values["procsync"] in GLOBAL_CLOCK_PROCSYNCS:
        values["clocksync"] = clocksync_default
    args: list[str] = []
    for opt in BENCH_OPTIONS:
        value = values.get(opt.dest)
        if value is None:
            continue
        args += [opt.flag, format(value, "g") if isinstance(value, float) else str(value)]
    return args


def arg_value(args: list[str], flag: str) -> str | None:
    """The value of `flag` in an argument list (last one wins, as in the bench's parser)."""
    value = None
    for i, token in enumerate(args):
        if token == flag and i + 1 < len(args):
            value = args[i + 1]
        elif token.startswith(flag + "="):
            value = token.split("=", 1)[1]
    return value


def default_launch_timeout(bench_args: list[str], np: int, *, floor_s: float = 300.0,
                           ncpus: int | None = None) -> float:
    """A generous per-launch time limit derived from the plan: 60 s for start-up and clock sync,
    plus 10 × tests × (nrep + warm-up) × a pessimistic time per repetition (the window, at least
    2 ms, plus 10 ns per byte per rank, plus 2 ns per --cold-cache byte); never below `floor_s`. Oversubscribed runs (more ranks
    than cores) are slower by the oversubscription factor. Why so generous: the window adapts
    (it doubles while many repetitions miss it), and on a loaded 2-core machine it was seen to
    grow to 10 ms; a launch stopped by the limit is lost, a late one is not."""
    ops = (arg_value(bench_args, "--ops") or DEFAULT_OPS).split(",")
    sizes = parse_sizes(arg_value(bench_args, "--sizes") or DEFAULT_SIZES)
    nrep = int(arg_value(bench_args, "--nrep") or DEFAULT_NREP)
    warmup = max(10, int(arg_value(bench_args, "--warmup") or 0))
    window_us = arg_value(bench_args, "--window-us")
    window_s = float(window_us) * 1e-6 if window_us not in (None, "auto") else 0.0
    # the automatic window leaves room for the --cold-cache overwrite (twice, 1 ns per byte:
    # ranks overwriting at once share the memory bandwidth)
    cold_cache_s = 2 * int(arg_value(bench_args, "--cold-cache") or 0) * 1e-9
    total = 0.0
    for size in sizes:
        per_rep = max(window_s, 2e-3) + cold_cache_s + size * np * 1e-8
        total += len(ops) * (nrep + warmup) * per_rep
    ncpus = ncpus or len(os.sched_getaffinity(0))
    oversubscription = max(1.0, np / max(1, ncpus))
    return round(max(floor_s, 60.0 + 10.0 * total * oversubscription))


def bench_help(binary: Path) -> str | None:
    """`mpimeter-bench --help` (works without mpirun), or None when the binary cannot say."""
    return _ask(binary, "--help")


def bench_ops(binary: Path) -> list[str] | None:
    """Operation names from `mpimeter-bench --list-ops` (the first word of each line)."""
    text = _ask(binary, "--list-ops")
    if not text:
        return None
    names = []
    for line in text.splitlines():
        words = line.split()
        if words and re.fullmatch(r"[a-z][a-z0-9_]*", words[0]):
            names.append(words[0])
    return names or None


def best_clocksync(binary: Path | None) -> tuple[str, str]:
    """The most accurate clock sync the binary offers, and how that was decided."""
    text = bench_help(binary) if binary else None
    if text is None:
        return FALLBACK_CLOCKSYNC, "the binary did not answer --help; using skampi"
    if BEST_CLOCKSYNC in clocksync_names(text):
        return BEST_CLOCKSYNC, f"{BEST_CLOCKSYNC} is listed by --help"
    return FALLBACK_CLOCKSYNC, f"{BEST_CLOCKSYNC} is not listed by --help; using skampi"


def clocksync_names(help_text: str) -> set[str]:
    """The clock syncs `--help` lists on its line `clock syncs: none, skampi, ...` (the option
    descriptions may mention names the build does not have)."""
    return help_lists(help_text).get("clocksync", set())


# `--help` ends with lists of the names each option accepts: "timers: monotonic, tsc, ...".
_HELP_LISTS = {"timers": "timer", "clock syncs": "clocksync", "process syncs": "procsync",
               "datatypes": "datatype", "reduce ops": "reduce_op"}


def help_lists(help_text: str) -> dict[str, set[str]]:
    """Option dest -> the names `--help` lists for it."""
    found = {}
    for line in help_text.splitlines():
        head, sep, rest = line.strip().partition(":")
        if sep and head.lower() in _HELP_LISTS:
            found[_HELP_LISTS[head.lower()]] = {n for n in re.split(r"[,\s]+", rest.strip()) if n}
    return found


def _ask(binary: Path, flag: str) -> str | None:
    try:
        done = subprocess.run([str(binary), flag], capture_output=True, text=True, timeout=20,
                              stdin=subprocess.DEVNULL, env=_singleton_env())
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0 or not done.stdout.strip():
        return None
    return done.stdout


def _singleton_env() -> dict[str, str]:
    # Running the binary without mpirun as root: Open MPI would refuse a singleton otherwise.
    env = dict(os.environ)
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    return env
