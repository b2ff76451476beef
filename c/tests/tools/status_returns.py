#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""One status convention in c/src (mm_error.h): a failure is a named mm_status, never a bare number.

A function of c/src that returns int fails the check when it returns a bare -1 (`return -1;`,
`return ok ? 0 : -1;`) or, outside app/, the exit code 2: a failure is MM_E_FAILED, bad input
MM_E_INPUT, and only app/ turns a status into an exit code (mm_exit_code). Where the int is a
value (an index, a rank, a count, a comparator's sign), -1 is that value: VALUES names each such
function with the reason. Functions returning another type (int64_t, double, long: a quantity
with -1 for "unknown") are values by their type and not checked. No file outside app/ may end
the process (exit, _exit, abort, MPI_Abort), but for the forked children named in ENDS, nor
call mm_exit_code.

A function that returns a status is declared `mm_status`, not `int`: one that returns MM_OK or
an MM_E_* code, or passes on (`return f(...);`, or a variable it assigned from f) what a
function declared mm_status returned. An int function that does is a finding unless ANSWERS
names it (an answer that carries a status beside its values, e.g. 1 for "the test failed"). An
int that holds an MPI error code (mm_mpi.h) is not a status here: MPI's calls return int.
And no variable that holds a status is set to -1 (`rc = -1;`, `int rc = -1;`, `rc = x ? 0 : -1;`):
a variable declared mm_status, returned by a function declared mm_status, or assigned from a
call of one. A folder LATER names is left out of these two rules, with the reason.
A listed function that no longer returns -1 (or a status) is reported so that its entry goes.

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
# (file under c/src, function) -> why an int function returns a status among other answers
ANSWERS: dict[tuple[str, str], str] = {
    ("bench/launch_tests.c", "mm__agree_on_failure"):
        "1 the test failed (t says why), 0 it held, MM_E_FAILED the ranks cannot agree",
    ("bench/launch_tests.c", "mm__measure_one"): "as mm__agree_on_failure",
    ("bench/launch_tests.c", "mm__verify_one"): "as mm__agree_on_failure",
    ("bench/refine.c", "mm__refine_round"): "how many tests were added, or MM_E_FAILED",
}
# (folder under c/src) -> why its int functions that return a status are not yet mm_status (nor
# its variables that hold one checked for -1)
LATER: dict[str, str] = {}
# (file under c/src, function) -> why it may end the process
ENDS: dict[tuple[str, str], str] = {
    ("counters/pvar.c", "mm__probe_child"): "a forked child that reports through a pipe and ends",
    ("pgmpi/pgmpi.c", "mm__configure"): "an interposed MPI_Init whose caller is the application: "
                                         "a bad configuration ends every rank with 2",
}

_MINUS_ONE = re.compile(r"\breturn\b[^;]*(?<![\w.\]])-1\b(?!\.)[^;]*;")
_EXIT_CODE = re.compile(r"\breturn\s+2\s*;")
_ENDS = re.compile(r"(?<![\w.])(exit|_exit|_Exit|abort|MPI_Abort)\s*\(")
_MAPS = re.compile(r"(?<![\w.])mm_exit_code\s*\(")
_INT = re.compile(r"^(static\s+)?(inline\s+)?int\s")
_DECLARED_STATUS = re.compile(r"^(static\s+)?(inline\s+)?mm_status\s")
# a status code returned, not compared (`return s == MM_E_INPUT ? 2 : 1;` returns an exit code)
_COMPARED = re.compile(r"\b(MM_OK|MM_E_\w+)\s*[=!]=|[=!]=\s*(MM_OK|MM_E_\w+)\b")
_RETURNS_CODE = re.compile(r"\breturn\b[^;]*\b(MM_OK|MM_E_(FAILED|INPUT|NOMEM))\b[^;]*;")
_RETURNED = re.compile(r"\breturn\s+(\w+)\s*(\(|;)")
# -1 as the value set, or one branch of a choice: `rc = -1;`, `rc = ok ? 0 : -1;`
_MINUS_ONE_SET = re.compile(r"(?<![\w.>])(\w+)\s*=(?!=)\s*(-1\s*;|[^;]*\?\s*-1\s*:|[^;]*:\s*-1\s*;)")
_CALL = re.compile(r"\b(\w+)\s*\(")


def _code(line: str) -> str:
    return line.split("//")[0]


def _read(src: Path) -> list[tuple[str, list[str], list[tuple[str, int, int]]]]:
    """(file under src, its lines, its functions) for every C file under src."""
    out = []
    for path in sorted([*src.rglob("*.c"), *src.rglob("*.h")]):
        lines = path.read_text(encoding="utf-8").split("\n")
        out.append((path.relative_to(src).as_posix(), lines, functions("\n".join(lines))))
    return out


def _assigned_from(body: list[str], var: str, names: set[str]) -> bool:
    """Whether var is assigned (or declared with) what a call of one of names returned, the
    whole value (`rc = f(x);`, not `rc = f(x) == 0;` nor `code = g(f(x));`)."""
    assign = re.compile(r"(?<![\w.>])" + re.escape(var) + r"\s*=(?!=)\s*(\w+)\s*\(")
    for line in body:
        code = _code(line)
        for m in assign.finditer(code):
            if m.group(1) in names and _whole_call(code, m.end() - 1):
                return True
    return False


def _returns_status(body: list[str], names: set[str]) -> bool:
    """Whether a function body returns a status code, or passes one on from a call of names."""
    for line in body:
        code = _COMPARED.sub("", _code(line))
        if _RETURNS_CODE.search(code):
            return True
        for m in _RETURNED.finditer(code):
            word, call = m.group(1), m.group(2) == "("
            if call and word in names and _whole_call(code, m.end() - 1):
                return True
            if not call and _assigned_from(body, word, names):
                return True
    return False


def _whole_call(code: str, paren: int) -> bool:
    """Whether the call whose '(' is at paren is all its return returns (`return f(x);`, not
    `return f(x) == 0;`); a call that goes on to the next line counts as whole."""
    depth = 0
    for i in range(paren, len(code)):
        depth += {"(": 1, ")": -1}.get(code[i], 0)
        if depth == 0:
            return code[i + 1 :].lstrip().startswith(";")
    return True


# macros that return a status: ops/ops_internal.h's message into an op's record
STATUS_MACROS = {"mm__setup_failed"}


def status_functions(files) -> tuple[set[str], set[str]]:
    """(names declared mm_status, or STATUS_MACROS; names of int functions that return a
    status), over files."""
    declared, found = set(STATUS_MACROS), set()
    bodies = []
    for _rel, lines, fns in files:
        for name, first, count in fns:
            body = lines[first - 1 : first - 1 + count]
            if _DECLARED_STATUS.match(body[0]):
                declared.add(name)
            elif _INT.match(body[0]):
                bodies.append((name, body))
    grew = True
    while grew:  # a function that passes on a status is one: to the fixed point
        grew = False
        for name, body in bodies:
            if name not in found and _returns_status(body, declared | found):
                found.add(name)
                grew = True
    return declared, found


def status_declarations(src: Path) -> tuple[list[str], set[tuple[str, str]]]:
    """(findings, ANSWERS entries used): int functions of src that return a status, and
    variables that hold a status set to -1."""
    files = _read(src)
    declared, found = status_functions(files)
    status = declared | found
    findings, used = [], set()
    for rel, lines, fns in files:
        for name, first, count in fns:
            body = lines[first - 1 : first - 1 + count]
            where = f"{rel}:{first} {name}"
            is_int = bool(_INT.match(body[0]))
            if is_int and _returns_status(body, status):
                folder = rel.split("/")[0]
                if (rel, name) in ANSWERS:
                    used.add((rel, name))
                elif folder in LATER:
                    used.add((folder, "*"))
                else:
                    findings.append(f"{where}: returns a status; declare it mm_status")
            declares = re.compile(r"\bmm_status\s+(\w+)")
            held = {v for line in body[1:] for v in declares.findall(_code(line))}
            if _DECLARED_STATUS.match(body[0]) or (is_int and name in found):
                held |= {m.group(1) for line in body for m in _RETURNED.finditer(_code(line))
                         if m.group(2) == ";"}
            if rel.split("/")[0] in LATER:
                continue
            for k, line in enumerate(body):
                for m in _MINUS_ONE_SET.finditer(_code(line)):
                    var = m.group(1)
                    if var in held or _assigned_from(body, var, status):
                        findings.append(f"{rel}:{first + k} {name}: {var} holds a status: set it to "
                                        "MM_E_FAILED or MM_E_INPUT, not -1")
    return findings, used


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
                if not rel.startswith("app/") and name != "mm_exit_code" and _MAPS.search(code):
                    findings.append(f"{where}: maps a status to an exit code outside app/; return the status")
                if not rel.startswith("app/") and _ENDS.search(code):
                    if (rel, name) in ENDS:
                        used.add((rel, name))
                    else:
                        findings.append(f"{where}: ends the process outside app/; return a status")
    declarations, answers = status_declarations(src)
    findings += declarations
    used |= answers
    stale = [f"{f} {n}: listed but no longer found: remove it"
             for f, n in {*VALUES, *ENDS, *ANSWERS, *((folder, "*") for folder in LATER)} - used]
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
