#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""One status convention in c/src (mm_error.h): a failure is a named mm_status, never a bare number.

A function of c/src that returns int fails the check when it returns a bare -1 (`return -1;`,
`return ok ? 0 : -1;`) or, outside app/, the exit code 2: a failure is MM_E_FAILED, bad input
MM_E_INPUT, and only app/ turns a status into an exit code (mm_exit_code). Where the int is a
value (an index, a rank, a count, a comparator's sign), -1 is that value: VALUES names each such
function with the reason. Functions returning another type (int64_t, double, long: a quantity
with -1 for "unknown") are values by their type and not checked. No file outside app/ may end
the process (exit, _exit, abort, MPI_Abort), but for the forked children named in ENDS.
A listed function that no longer returns -1 is reported so that its entry goes.

    c/tests/tools/status_returns.py [SRC_DIR]   (default: the repository's c/src)

Exits 1 on a finding. Only the standard library.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from function_length import functions  # noqa: E402  (the one reader of a C file's functions)

# (file under c/src, function) -> why its -1 is a value, not a failure
VALUES: dict[tuple[str, str], str] = {
    ("app/main.c", "mm__without_mpi"): "no exit code yet: the launch goes on to MPI",
    ("app/main.c", "mm__run_listing"): "no exit code yet: not a listing mode",
    ("app/main.c", "mm__check_ranks_offer"): "no exit code yet: every rank offers what is asked",
    ("app/parse_options.c", "mm_option_choice_index"): "an index into the choices; -1 none",
    ("bench/loop.c", "mm_invalid_reason_index"): "an index into the reasons (2 is one); -1 none",
    ("bench/adaptive.c", "mm_refine_pick"): "a segment index; -1 when every segment is precise",
    ("clocksync/tree.c", "mm__bottomup_parent"): "a rank; -1 for the root",
    ("clocksync/tree.c", "mm__topdown_parent"): "a rank; -1 for the root",
    ("counters/pvar_list.c", "mm__index_of"): "an index into the catalog; -1 none",
    ("ops/algorithms.c", "mm_algorithms_probe"): "the probe's answer printed for its parent: -1 refused, -2 MPI_T failed",
    ("ops/ops_p2p.c", "mm__peer"): "a rank; -1 when this rank is not in the pair",
    ("output/outdir.c", "mm__dir_not_empty"): "1 not empty, 0 empty, -1 unreadable (errno says why)",
    ("output/environment.c", "mm__env_entry_cmp"): "a qsort comparator's sign",
    ("bench/plan.c", "mm__order_compare"): "a qsort comparator's sign",
    ("pgmpi/pgmpi.c", "mm__route_of"): "an index into the routes; -1 when none covers the call",
    ("pgmpi/pgmpi_config.c", "mm__known_index"): "an index into the known replacements; -1 none",
}
# (file under c/src, function) -> why it may end the process
ENDS: dict[tuple[str, str], str] = {
    ("counters/pvar.c", "mm__probe_child"): "a forked child that reports through a pipe and ends",
    ("pgmpi/pgmpi.c", "mm__configure"): "an interposed MPI_Init whose caller is the application: "
                                         "a bad configuration ends every rank with 2",
}

_MINUS_ONE = re.compile(r"\breturn\b[^;]*(?<![\w.\]])-1\b(?!\.)[^;]*;")
_EXIT_CODE = re.compile(r"\breturn\s+2\s*;")
_ENDS = re.compile(r"(?<![\w.])(exit|_exit|_Exit|abort|MPI_Abort)\s*\(")
_INT = re.compile(r"^(static\s+)?(inline\s+)?int\s")


def check(src: Path) -> tuple[list[str], list[str]]:
    """(findings, entries of VALUES/ENDS that no longer apply) for the C files under src."""
    findings, used = [], set()
    for path in sorted([*src.rglob("*.c"), *src.rglob("*.h")]):
        rel = path.relative_to(src).as_posix()
        lines = path.read_text(encoding="utf-8").split("\n")
        for name, first, count in functions("\n".join(lines)):
            body = lines[first - 1 : first - 1 + count]
            returns_int = bool(_INT.match(body[0]))
            for k, line in enumerate(body):
                code = line.split("//")[0]
                where = f"{rel}:{first + k} {name}"
                bare = returns_int and _MINUS_ONE.search(code)
                exit_code = returns_int and not rel.startswith("app/") and _EXIT_CODE.search(code)
                if (bare or exit_code) and (rel, name) in VALUES:
                    used.add((rel, name))
                elif bare:
                    findings.append(f"{where}: a bare -1; return MM_E_FAILED or MM_E_INPUT")
                elif exit_code:
                    findings.append(f"{where}: the exit code 2 outside app/; return MM_E_INPUT")
                if not rel.startswith("app/") and _ENDS.search(code):
                    if (rel, name) in ENDS:
                        used.add((rel, name))
                    else:
                        findings.append(f"{where}: ends the process outside app/; return a status")
    stale = [f"{f} {n}: listed but no longer found: remove it" for f, n in {*VALUES, *ENDS} - used]
    return findings, sorted(stale)


def run(check_src, argv: list[str]) -> int:
    """A checker's command line: SRC_DIR (default the repository's c/src) through check_src,
    which gives (findings, stale allow-list entries); prints both, exits 1 on any."""
    src = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parents[2] / "src"
    findings, stale = check_src(src)
    for message in stale + findings:
        print(message)
    return 1 if findings or stale else 0


def main(argv: list[str]) -> int:
    return run(check, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
