# SPDX-License-Identifier: BSD-3-Clause
"""A fake executor for tests: no MPI, no processes. It reads `--out`, `--seed`, `--ops`,
`--sizes`, `--nrep` and the rank count from the command, and acts out a scripted outcome per
launch folder and attempt:

  ok        writes a complete launch folder (meta.json status complete, raw.csv with synthetic
            run times that depend on the op, the size, the seed and a per-launch effect, whose
            spread may differ per op and size: `launch_sigma`), exit 0
  fail      writes a partial folder (status running), exit 1, an error on stderr
  crash     writes nothing, exit 1
  killed    writes a partial folder, killed by SIGKILL (exit -9)
  hang      writes a partial folder, then reports a timeout (as the real executor would after
            terminating the launch), without sleeping
  interrupt writes a partial folder, then raises KeyboardInterrupt (a Ctrl-C mid-launch)
  refuse    writes nothing, exit 2, a bad-input message (what mpimeter-bench does for bad options)
  empty     exit 0 but writes nothing
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from mpimeter.campaign.executor import ExecResult
from mpimeter.io import rawformat


def arg_value(argv: list[str], flag: str) -> str | None:
    """What the fake launcher and binary read of their command line: the value of `flag`,
    `FLAG X` or `FLAG=X` (the last one wins, as in the bench's parser)."""
    value = None
    for i, token in enumerate(argv):
        if token == flag and i + 1 < len(argv):
            value = argv[i + 1]
        elif token.startswith(flag + "="):
            value = token.split("=", 1)[1]
    return value


OUTCOMES = ("ok", "fail", "crash", "killed", "hang", "interrupt", "refuse", "empty")
# The fake's own plan when the command does not say (a campaign always writes them out).
FAKE_OPS, FAKE_SIZES, FAKE_NREP = "allreduce", "8", 10


def _sizes(text: str, seed: int = 0) -> list[int]:
    """The fake takes plain size lists ("8,1024"); a range is the real binary's business. For
    `auto:MIN:MAX` it acts out a refinement that differs per launch: the powers of 2 from MIN to
    MAX and one size added between two of them, chosen by the seed."""
    if text.startswith("auto:"):
        low, high = (int(x) for x in text.split(":")[1:3])
        grid = [low << k for k in range(64) if low << k <= high]
        k = seed % max(len(grid) - 1, 1)
        return sorted(set(grid) | ({(grid[k] + grid[k + 1]) // 2} if len(grid) > 1 else set()))
    try:
        return [int(s) for s in text.split(",")]
    except ValueError:
        raise ValueError(f"fake bench: --sizes {text!r}: give a plain list of sizes to the fake") from None


@dataclass(frozen=True, kw_only=True)
class FakeCall:
    argv: list[str]
    env: dict[str, str]
    timeout_s: float
    out: Path
    seed: int
    attempt: int  # 1 for the first call with this --out, 2 for the second, ...
    outcome: str


class FakeExecutor:
    """`script` maps a launch folder suffix (e.g. "mpich/launches/003") to the outcomes of its
    attempts in order (the last one repeats); or is a function (out, attempt) -> outcome.
    Everything not scripted is `ok`."""

    def __init__(self, script: dict[str, list[str]] | Callable[[Path, int], str] | None = None,
                 *, duration_s: float = 1.0, nranks: int | None = None,
                 base_ns: Callable[[str, int], float] | None = None,
                 launch_sigma: float | Callable[[str, int], float] = 0.03, rep_sigma: float = 0.1):
        self.script = script or {}
        self.duration_s = duration_s
        self.nranks = nranks
        self.base_ns = base_ns or (lambda op, size: 1000.0 + 0.5 * size)
        self.launch_sigma = launch_sigma
        self.rep_sigma = rep_sigma
        self.calls: list[FakeCall] = []
        self.leftover_checks: list[dict] = []  # stop_leftover's questions, in order
        self._attempts: dict[str, int] = {}

    def outcome_for(self, out: Path, attempt: int) -> str:
        if callable(self.script):
            return self.script(out, attempt)
        for suffix, outcomes in self.script.items():
            if out.as_posix().endswith(suffix):
                return outcomes[min(attempt, len(outcomes)) - 1]
        return "ok"

    def stop_leftover(self, process: dict, marker: str) -> str | None:
        """No process of a fake launch outlives it: records the question, answers None."""
        self.leftover_checks.append({**process, "marker": marker})
        return None

    def run(self, argv: list[str], *, env: dict[str, str], timeout_s: float,
            stdout_path: Path, stderr_path: Path,
            on_start: Callable[[dict], None] | None = None, secret_words=None,
            watch=None) -> ExecResult:  # watch: the real executor's (--test-timeout)
        out = Path(arg_value(argv, "--out") or "")
        seed = int(arg_value(argv, "--seed") or 0)
        key = out.as_posix()
        attempt = self._attempts[key] = self._attempts.get(key, 0) + 1
        outcome = self.outcome_for(out, attempt)
        if outcome not in OUTCOMES:
            raise ValueError(f"unknown fake outcome {outcome!r}")
        self.calls.append(FakeCall(argv=list(argv), env=dict(env), timeout_s=timeout_s, out=out, seed=seed,
                                   attempt=attempt, outcome=outcome))
        stdout_path.parent.mkdir(parents=True, exist_ok=True)
        stdout_path.write_text("")
        message = {"fail": "rank 1: segmentation fault\n", "killed": "mpirun: killed\n",
                   "refuse": "mpimeter-bench: --ops: unknown operation 'allredux'\n",
                   "hang": "", "interrupt": ""}.get(outcome, "")
        stderr_path.write_text(message)
        if outcome in ("fail", "killed", "hang", "interrupt"):
            self._write_launch(out, argv, seed, complete=False)
        if outcome == "interrupt":
            raise KeyboardInterrupt
        if outcome == "ok":
            self._write_launch(out, argv, seed, complete=True)
        exit_code = {"ok": 0, "empty": 0, "fail": 1, "crash": 1, "killed": -9,
                     "refuse": 2, "hang": None}[outcome]
        return ExecResult(exit_code, self.duration_s, outcome == "hang", message.strip())

    def _ranks(self, argv: list[str]) -> int:
        if self.nranks:
            return self.nranks
        for flag in ("-np", "-n"):
            value = arg_value(argv, flag)
            if value and value.isdigit():
                return int(value)
        return 2

    def _write_launch(self, out: Path, argv: list[str], seed: int, *, complete: bool) -> None:
        if out.exists() and any(out.iterdir()):
            raise AssertionError(f"fake bench: --out {out} exists and is not empty "
                                 "(the runner must never reuse a launch folder)")
        out.mkdir(parents=True, exist_ok=True)
        ops = (arg_value(argv, "--ops") or FAKE_OPS).split(",")
        sizes = _sizes(arg_value(argv, "--sizes") or FAKE_SIZES, seed)
        nrep = int(arg_value(argv, "--nrep") or FAKE_NREP)
        nranks = self._ranks(argv)
        rng = random.Random(seed)
        tests = [(op, size) for op in ops for size in sizes]
        rng.shuffle(tests)
        if not complete:
            tests = tests[: len(tests) // 2]
        lines = [rawformat.FORMAT1_HEADER]
        clock = 0
        for t, (op, size) in enumerate(tests):
            sigma = self.launch_sigma(op, size) if callable(self.launch_sigma) else self.launch_sigma
            launch_effect = rng.lognormvariate(0.0, sigma)
            for rep in range(nrep):
                duration = self.base_ns(op, size) * launch_effect * rng.lognormvariate(0.0, self.rep_sigma)
                clock += int(duration * 3)
                for rank in range(nranks):
                    end = clock + int(duration * (0.9 + 0.1 * rank / max(1, nranks - 1)))
                    lines.append(f"{t},{op},{size},{rank},{rep},{clock},{end},1,{clock},{end}")
        (out / "raw.csv").write_text("\n".join(lines) + "\n")
        meta = {"schema_version": 1, "status": "complete" if complete else "running",
                "nprocs": nranks, "config": {"ops": ops, "sizes": sizes, "nrep": nrep,
                                             "seed": seed, "procsync": "window",
                                             "clocksync": "skampi"},
                "clock_sync": {"method": "skampi"}, "proc_sync": {"method": "window"},
                "tests": [{"test": t, "op": op, "size": size, "status": "complete"}
                          for t, (op, size) in enumerate(tests)]}
        (out / "meta.json").write_text(json.dumps(meta))
