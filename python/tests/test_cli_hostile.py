# SPDX-License-Identifier: BSD-3-Clause
"""Every sub-command of `mpimeter`, with hostile arguments: never a traceback.

The commands and their parameters are read from the click group itself (sub-sub-commands such
as `store add` included), and the values from each parameter's type, so that a new command or
option is walked without a word here. Each parameter gets, in turn, values of its kind that a
user (or a script) could give by mistake or on purpose: paths that do not exist, 5000
characters long, a FIFO, a character device (a private copy of /dev/zero: never a system
device, since a command may write where it is told), a folder, the empty string, control
characters; numbers negative, huge, NaN, infinite, 1e-300; unknown words; an unknown option and
an option without its value. Every answer must be exit 0, 1 or 2, no traceback (no exception
but SystemExit), and an error (exit 2) one line on stderr.

Nothing launches: $MPIMETER_BENCH_DIR is an empty folder (no mpimeter-bench, so `run`,
`reproducibility`, `sync-check` and `tune --verify` refuse before anything starts); the results
store, HOME and the data directory are temporary. A per-invocation alarm turns a command that
blocks (a FIFO opened for reading, a device read without a bound) into a failure that names it,
and an address-space limit a read of the device without a bound into one too.

The parameters not walked are good (a small campaign; a new name for an output), so that a
hostile value is looked at wherever the command looks at it: when the command line is read, or
against the data.
"""

from __future__ import annotations

import itertools
import math
import os
import resource
import signal
import stat
import traceback
from dataclasses import dataclass

import click
import pytest
from click.testing import CliRunner
from data.synth import write_campaign

from mpimeter.cli import main

# Stand-ins for a path that names nothing and a new output, made unique per invocation (a command
# told to write to a path creates it: the next one must not find it there)
MISSING, NEW_OUTPUT = "<missing>", "<new output>"
_serial = itertools.count()
# a command that waits this long on one hostile value is blocked (a FIFO, a device); far above
# what a command takes on a loaded machine (drawing a report's figures took over 20 s at load 28)
ALARM_S = 180
ADDRESS_SPACE_MARGIN = 3 << 30  # bytes a command may map beyond what the test process already has


class Blocked(Exception):
    """The command did not return within ALARM_S: it waits on a FIFO or reads a device."""


def _commands(group: click.Group, ctx: click.Context, prefix: tuple[str, ...] = ()):
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if isinstance(command, click.Group):
            yield from _commands(command, ctx, prefix + (name,))
        else:
            yield prefix + (name,), command


COMMANDS = dict(_commands(main, click.Context(main)))


@dataclass(frozen=True)
class Case:
    words: tuple[str, ...]  # the command: ("store", "add")
    param: str  # the parameter walked (an option's longest flag, an argument's name), or "unknown options"

    @property
    def id(self) -> str:
        return " ".join(self.words) + " " + self.param


def _param_name(p: click.Parameter) -> str:
    return max(p.opts, key=len) if isinstance(p, click.Option) else p.name


CASES = [Case(words, _param_name(p)) for words, command in COMMANDS.items() for p in command.params
         if not (isinstance(p, click.Option) and p.is_flag) and p.name != "help"]
CASES += [Case(words, "unknown options") for words in COMMANDS]

def _param(command: click.Command, name: str) -> click.Parameter | None:
    return next((p for p in command.params if _param_name(p) == name), None)


@pytest.fixture(scope="module")
def place(tmp_path_factory):
    """The temporary world the commands run in: hostile files, a good campaign, the environment."""
    root = tmp_path_factory.mktemp("hostile")
    fifo = root / "fifo"
    os.mkfifo(fifo)
    device = root / "zero"
    try:  # a private copy of /dev/zero: the real one is never named (a command may write there)
        os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 5))
    except OSError:
        device = None
    folder = root / "folder"
    folder.mkdir()
    (root / "bench").mkdir()
    good = write_campaign(root / "good", 3, seed=5, nrep=10, sizes=(8,), ops=("bcast",))
    env = {"MPIMETER_BENCH_DIR": str(root / "bench"), "MPIMETER_STORE": str(root / "store.duckdb"),
           "HOME": str(root / "home"), "XDG_DATA_HOME": str(root / "data"), "COLUMNS": "200"}
    paths = ["", MISSING, str(root / ("p" * 5000)), str(fifo), str(folder),
             str(root / "a\x1b[2J\x07b"), str(root / "a\nb")] + ([str(device)] if device else [])
    return {"root": root, "good": str(good), "env": env, "paths": paths}


NUMBERS = ["-1", "0", "nan", "inf", "-inf", "1e-300", "1e308", "99999999999999999999999", "-9223372036854775809"]
WORDS = ["", "x" * 5000, "\x1b[31mred\x07", ";", "a\nb", "nosuch"]


def _values(p: click.Parameter, place) -> list[str]:
    t = p.type
    if isinstance(t, click.Path):
        return place["paths"]
    if isinstance(t, (click.types.IntParamType, click.types.FloatParamType)) or t.name in ("integer", "float"):
        return NUMBERS
    if isinstance(t, click.Choice):
        return ["", "nosuch", "\x1b[31m", "x" * 5000]
    # text: some commands read numbers from it (--np, --launches, --max-slowdown)
    return ["-1", "nan", "1e-300", "99999999999999999999999"] + WORDS


def _filler(p: click.Parameter, place, *, good: bool) -> list[str]:
    """A value for a parameter that is not walked: good ones, or (good=False) paths that name
    nothing, so that the command stops at the walked value or at the missing file."""
    t = p.type
    if isinstance(t, click.Path):
        if p.name in ("out", "output", "verify"):  # where a command writes: a new name in the world
            return [NEW_OUTPUT]
        return [place["good"] if good else MISSING]
    if isinstance(t, click.Choice):
        return [t.choices[0]]
    if isinstance(t, click.IntRange):
        return [str(t.min if t.min is not None else 1)]
    if p.name == "sql":
        return ["select 1"]
    if p.name == "op":
        return ["bcast"]
    if p.name == "size":
        return ["8"]
    return ["1"]


def _argv(command: click.Command, walked: click.Parameter | None, value: list[str], place, *,
          good: bool) -> list[str]:
    """The walked option first (click converts the parameters in the order given: a missing file
    named before it would stop the command before its value is looked at), then the positional
    arguments in their order, then the required options."""
    words: list[str] = [_param_name(walked), *value] if isinstance(walked, click.Option) else []
    for p in command.params:
        if isinstance(p, click.Argument):
            if p is walked:
                words += value
            elif p.required:
                words += _filler(p, place, good=good)
    for p in command.params:
        if isinstance(p, click.Option) and p.required and p is not walked:
            words += [_param_name(p), *_filler(p, place, good=good)]
    return words


def _invocations(case: Case, place) -> list[list[str]]:
    command = COMMANDS[case.words]
    if case.param == "unknown options":
        base = _argv(command, None, [], place, good=False)
        last_option = next((_param_name(p) for p in reversed(command.params)
                            if isinstance(p, click.Option) and not p.is_flag), None)
        out = [["--no-such-option", *base], [*base, "--no-such-option=1"], [*base, "-Z"]]
        if last_option:  # an option without its value
            out.append([*base, last_option])
        return out
    p = _param(command, case.param)
    out = []
    # the others good, then (options) naming nothing: a command may take another way without its
    # data (e.g. to a file of its own), and that way is walked too
    return [_argv(command, p, [value], place, good=good) for good in (True, False)
            if good or isinstance(p, click.Option) for value in _values(p, place)]


def _on_alarm(signum, frame):
    raise Blocked(f"no answer within {ALARM_S} s")


def invoke(words: tuple[str, ...], args: list[str], env: dict[str, str], cwd) -> click.testing.Result:
    n = next(_serial)
    args = [str(cwd / f"missing-{n}") if a == MISSING else str(cwd / f"output-{n}") if a == NEW_OUTPUT else a
            for a in args]
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    with open("/proc/self/statm") as f:
        mapped = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    limit = mapped + ADDRESS_SPACE_MARGIN
    resource.setrlimit(resource.RLIMIT_AS, (limit if hard == resource.RLIM_INFINITY else min(limit, hard), hard))
    signal.alarm(ALARM_S)
    here = os.getcwd()
    try:
        os.chdir(cwd)
        return CliRunner().invoke(main, [*words, *args], env=env)
    finally:
        signal.alarm(0)
        os.chdir(here)
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
        signal.signal(signal.SIGALRM, previous)


def _shown(args: list[str]) -> str:
    return " ".join(repr(a[:60] + "…") if len(a) > 60 else repr(a) for a in args)


def _problem(result: click.testing.Result) -> str | None:
    """What is wrong with an answer, or None."""
    exc = result.exception
    if exc is not None and not isinstance(exc, SystemExit):
        frames = traceback.extract_tb(result.exc_info[2]) if result.exc_info else []
        ours = [f for f in frames if "mpimeter" in f.filename and "/tests/" not in f.filename]
        where = f" (at {ours[-1].filename.split('src/')[-1]}:{ours[-1].lineno})" if ours else ""
        return f"{type(exc).__name__}: {str(exc)[:200]}{where}"
    text = result.output + (result.stderr if result.stderr_bytes is not None else "")
    if "Traceback" in text:
        return "a traceback in the output: " + text[-300:]
    if result.exit_code not in (0, 1, 2):
        return f"exit code {result.exit_code}: {text[-300:]}"
    if result.exit_code == 2:
        lines = result.stderr.strip().splitlines()
        if len(lines) != 1:
            return f"{len(lines)} lines on stderr: {result.stderr[:300]!r}"
    return None


@pytest.mark.parametrize("case", [pytest.param(case, id=case.id) for case in CASES])
def test_hostile_arguments_get_exit_0_1_or_2_and_one_line_never_a_traceback(case, place):
    problems = []
    for args in _invocations(case, place):
        result = invoke(case.words, args, place["env"], place["root"])
        problem = _problem(result)
        if problem:
            problems.append(f"mpimeter {' '.join(case.words)} {_shown(args)}: {problem}")
    assert not problems, "\n".join(problems)


def test_the_walk_covers_every_command_and_the_kinds_of_parameters():
    """What could make the walk above cover nothing: no command found, a sub-group not entered,
    parameters of a kind left without hostile values."""
    names = {" ".join(w) for w in COMMANDS}
    assert {"analyze", "compare", "gate", "run", "tune", "store add", "store list", "store query", "site",
            "sync-check", "import"} <= names
    walked = {c.param for c in CASES if c.words == ("gate",)}
    assert {"baseline", "candidate", "--alpha", "--max-slowdown", "--confidence"} <= walked
    assert all(math.isnan(float(v)) for v in ["nan"]) and "1e-300" in NUMBERS


BENCH_VALUES = ["1e-300", "nan", "-1", "", "x" * 5000, "\x1b[31m"]


def test_the_options_passed_on_to_mpimeter_bench_too(place):
    """`run`'s options from the binary's --describe (absent above: the bench folder there is
    empty), with the built binary and a launcher that starts nothing (`true`): each hostile value
    is refused in one line (exit 2), or accepted and the launch fails without running (exit 1)."""
    from mpimeter.campaign import describe as _describe
    from mpimeter.cli.benchparams import binary_for

    binary = binary_for(["--mpi", "openmpi"])
    if binary is None:
        pytest.skip("no mpimeter-bench built")
    env = {k: v for k, v in place["env"].items() if k != "MPIMETER_BENCH_DIR"}
    base = ["--launcher", "true -n {np} {cmd}", "--mpi", "openmpi", "--np", "2", "--launches", "1",
            "--retries", "0", "--no-analyze", "--out", NEW_OUTPUT]
    problems, walked = [], 0
    for spec in _describe.describe(binary).options_for("bench"):
        if spec.type == "flag":
            continue
        walked += 1
        for value in BENCH_VALUES if spec.is_number else BENCH_VALUES[3:]:
            args = [spec.flag, value, *base]
            problem = _problem(invoke(("run",), args, {**env, "MPIMETER_BENCH_DIR": str(binary.parents[2])},
                                      place["root"]))
            if problem:
                problems.append(f"mpimeter run {_shown(args)}: {problem}")
    assert walked >= 40 and not problems, "\n".join(problems)
