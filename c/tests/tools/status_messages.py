#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A failure in c/src says why (mm_error.h): every `return MM_E_FAILED;` follows what fills a record.

A function that fails writes its one-line message into the caller's record, so that a user sees
what failed and why, not a bare failure. The check reads each `return MM_E_FAILED;` of c/src with
what leads to it on its path:

  - the guard: the condition of the `if` it ends (on its line, or the lines before it when the
    condition is long), and the statement that last assigned a name the guard reads
    (`int rc = MM_MPI(...); if (rc != MPI_SUCCESS) return MM_E_FAILED;`);
  - when it sits in a block of its own (`if (...) { ...; return MM_E_FAILED; }`), that block's
    statements before it and the condition that opens the block.

It passes when that text holds one of:

  1. a call that writes a message: one of FILLERS (mm_fail, mm_error_set, MM_MPI, ...);
  2. a call handed a record: an argument `err` or `why`, or `...->err` / `...->error` (the callee
     writes into it, as mm__open_with_header(..., err, err_len) does);
  3. a call to a function of c/src that returns a status (it is declared mm_status, names
     MM_E_FAILED, MM_E_INPUT, MM_E_NOMEM or MM_E_MPI, or returns a FILLERS call): the failure is
     passed on, and the callee's own failures are checked where they are written.

Anything else is a finding, unless QUIET names the function with the reason its caller says why
(a flag or errno it reads, a check made before). A listed function that no longer has such a
return is reported so that its entry goes.

    c/tests/tools/status_messages.py [SRC_DIR]   (default: the repository's c/src)

Exits 1 on a finding. Only the standard library.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from function_length import functions  # noqa: E402  (the one reader of a C file's functions)
from status_returns import run  # noqa: E402  (the checkers' one command line)

# The calls that write a message into a record (mm_error.h, mm_mpi.h, ops/ops_internal.h).
FILLERS = ("mm_fail", "mm_error_set", "MM_MPI", "mm_mpi_check", "mm__setup_failed",
           "mm__setup_no_memory", "MM__SETUP_MPI", "mm__setup_mpi_check", "mm__launch_say")

# (file under c/src, function) -> why a caller can say what failed without a record
QUIET: dict[tuple[str, str], str] = {
    ("clocksync/clocksync.c", "mm_clocksync_open"):
        "an unknown name or no timer: the option parser checks the names first, and both callers "
        "name the sync that could not be opened (app/sync_check.c, bench/launch.c)",
    ("clocksync/clocksync.c", "mm_clocksync_run"):
        "a sync that failed on some rank: that rank's MPI failure is in cs->err (MM_MPI), or its "
        "records lost out of memory in cs->log.lost; the launch says either (bench/launch_state.c "
        "mm__say_sync_failed), and so does --sync-check (app/sync_check.c mm__step_failed)",
    ("clocksync/model.c", "mm_model_fit"):
        "pure math (CONTRIBUTING.md principle 6): no data or no arrays; its one caller, "
        "mm_model_fit_robust, passes it on",
    ("clocksync/model.c", "mm_model_fit_robust"):
        "pure math: its one caller (clocksync/tree.c mm__edge_model) falls back to the last "
        "point, so no failure reaches a user",
    ("common/json.c", "mm__buf_reserve"):
        "sets b->failed, the buffer's record: whoever writes the text refuses it "
        "(mm_outdir_write_meta: ENOMEM)",
    ("counters/counters_write.c", "mm_counters_sync"):
        "fflush's or fsync's errno: its one caller says it cannot write counters.csv with "
        "strerror(errno) (bench/launch_state.c mm__write_meta)",
    ("counters/counters_write.c", "mm__write_rows"):
        "fprintf's errno: mm_counters_write_test fails, and the launch says it cannot write to "
        "--out (bench/launch_tests.c)",
    ("counters/pvar.c", "mm_pvar_describe"):
        "a lookup: a variable the library does not describe is skipped (pvar_list.c)",
    ("counters/pvar.c", "mm_pvar_find"):
        "a lookup: its callers name the variable that does not exist (counters.c, src_mpit.c)",
    ("counters/pvar.c", "mm_pvar_init"):
        "SimGrid's build has no MPI_T: its callers say MPI_T cannot be initialized (counters.c, "
        "src_mpit.c)",
    ("ops/algorithms.c", "mm_algorithms_read"):
        "MPI_T could not start: its one caller's command says the control variables could not "
        "be read (MPI_T) (app/main.c)",
    ("ops/ops_mockups.c", "mm__begin"):
        "the original row's setup, called through a pointer, wrote args->error",
    ("ops/ops_persistent.c", "mm__setup"):
        "the blocking twin's setup, called through a pointer, wrote args->error",
    ("ops/ops_table_queries.c", "mm_op_inject_error"):
        "an answer, not a failure: the op has no error to inject; the option check says so "
        "(app/parse_validate.c) and --describe reports it",
    ("output/outdir.c", "mm__mkdir_p"): "errno says why: mm_outdir_open writes strerror(errno)",
    ("output/outdir.c", "mm__flush_durable"):
        "errno says why: its one caller, mm_outdir_write_meta, fails with it",
    ("output/outdir.c", "mm_outdir_write_meta"):
        "errno says why (ENOMEM for a text rendered out of memory): its one caller says it cannot "
        "write meta.json with strerror(errno) (bench/launch_state.c mm__write_meta)",
    ("output/raw_writer.c", "mm__finish"):
        "stdio's errno: the launch says it cannot write to --out (bench/launch_tests.c)",
    ("output/raw_writer.c", "mm__check_args"):
        "EINVAL for arguments the launch builds itself: the launch says it cannot write to --out",
    ("output/sync_writer.c", "mm_sync_write"):
        "EINVAL or stdio's errno: its one caller writes strerror(errno) into its record "
        "(bench/collect.c mm_collect_sync_log), which the launch says",
    # c/src/bench and c/src/procsync
    ("bench/adaptive.c", "mm_median_ci_ranks"):
        "pure math: n < 1 or a confidence outside (0, 1), which the option checks refuse",
    ("bench/loop.c", "mm_rep_buffers_alloc"):
        "the launch says out of memory for the repetitions (launch_tests.c mm__run_tests)",
    ("bench/subcomm.c", "mm__subcomms_open"):
        "the launch says it cannot create the sub-communicators of --nprocs (launch_tests.c)",
    ("bench/same_kernel.c", "mm__read_boot_id"):
        "a fact, not a failure: an unreadable boot id means the ranks cannot tell, as recorded",
    ("bench/probe.c", "mm__await"): "a probe that gave up: its caller reports no figure",
    ("procsync/procsync_registry.c", "mm_procsync_open"):
        "an unknown name: the option parser checks the names first",
}

_FAIL = "return MM_E_FAILED;"
_STATUS = re.compile(r"\bMM_E_(FAILED|INPUT|NOMEM|MPI)\b|\breturn\s+(" + "|".join(FILLERS) + r")\s*\(")
_DECLARED_STATUS = re.compile(r"^(static\s+)?(inline\s+)?mm_status\s")
_FILLS = re.compile(r"\b(" + "|".join(FILLERS) + r")\s*\(")
_HANDED = re.compile(r"\w+\s*\([^;]*?((?<![\w>.])(err|why)\b|(->|\.)(err|error)\b)")
_CALL = re.compile(r"\b([A-Za-z_]\w*)\s*\(")
_NAME = re.compile(r"\b([A-Za-z_]\w*)\b(?!\s*\()")
_KEYWORDS = {"if", "else", "return", "while", "for", "switch", "sizeof", "NULL", "int"}


def _code(line: str) -> str:
    return line.split("//")[0]


def _open_ended(line: str) -> bool:
    """A line that a statement goes on from (no ';', '{' or '}' at its end)."""
    text = _code(line).rstrip()
    return bool(text) and not text.endswith((";", "{", "}")) and not text.lstrip().startswith(("/*", "*"))


def _statement_before(body: list[str], k: int) -> str:
    """Line k with the lines before it that it continues (a condition over several lines)."""
    lines = [_code(body[k])]
    j = k - 1
    while j >= 0 and _open_ended(body[j]):
        lines.insert(0, _code(body[j]))
        j -= 1
    return "\n".join(lines)


def _statement_from(body: list[str], j: int) -> str:
    """The statement that starts on line j, to its ';'."""
    lines = []
    while j < len(body):
        lines.append(_code(body[j]))
        if _code(body[j]).rstrip().endswith((";", "{", "}")):
            break
        j += 1
    return "\n".join(lines)


def path_text(body: list[str], k: int) -> str:
    """What leads to the return on line k of a function's body (the module docstring says what)."""
    opens = next(i for i, x in enumerate(body) if "{" in _code(x))  # the line of the function's "{"
    line = _code(body[k])
    guard = line[: line.index(_FAIL)]
    if k == opens:  # a function on one line: its guard starts after its "{"
        guard = guard[guard.index("{") + 1 :]
    if not guard.strip():
        guard = _statement_before(body, k - 1) if k - 1 > opens and _open_ended(body[k - 1]) else ""
    parts = [guard]
    depth, j = 0, k - 1
    while j > opens:  # the function's own block is not one path: only the statement before counts
        text = _code(body[j])
        depth += text.count("}") - text.count("{")
        if depth < 0:
            parts += [_statement_before(body, j)] + [_code(x) for x in body[j + 1 : k]]
            break
        j -= 1
    if j == opens and not guard.strip() and k - 1 > opens:
        parts.append(_statement_before(body, k - 1))
    guard_text = "\n".join(parts)
    for name in set(_NAME.findall(guard_text)) - _KEYWORDS:
        assigned = re.compile(r"\b" + re.escape(name) + r"\s*=(?!=)")
        for j in range(k - 1, opens, -1):
            if assigned.search(_code(body[j])):
                parts.append(_statement_from(body, j))
                break
    return "\n".join(parts)


def check(src: Path) -> tuple[list[str], list[str]]:
    """(findings, entries of QUIET that no longer apply) for the C files under src."""
    files = []
    status_fns = set()
    for path in sorted([*src.rglob("*.c"), *src.rglob("*.h")]):
        lines = path.read_text(encoding="utf-8").split("\n")
        found = functions("\n".join(lines))
        files.append((path.relative_to(src).as_posix(), lines, found))
        for name, first, count in found:
            declared = _DECLARED_STATUS.match(lines[first - 1])
            if declared or _STATUS.search("\n".join(lines[first : first - 1 + count])):
                status_fns.add(name)
    findings, used = [], set()
    for rel, lines, found in files:
        for name, first, count in found:
            if name in FILLERS:
                continue
            body = lines[first - 1 : first - 1 + count]
            for k, line in enumerate(body):
                if _FAIL not in _code(line):
                    continue
                text = path_text(body, k)
                says = _FILLS.search(text) or _HANDED.search(text) or any(
                    call in status_fns for call in _CALL.findall(text))
                if says:
                    continue
                if (rel, name) in QUIET:
                    used.add((rel, name))
                else:
                    findings.append(f"{rel}:{first + k} {name}: a failure with no message; write "
                                    "what failed and why into the caller's record (mm_error_set)")
    stale = [f"{f} {n}: listed but no longer found: remove it" for f, n in set(QUIET) - used]
    return findings, sorted(stale)


def main(argv: list[str]) -> int:
    return run(check, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
