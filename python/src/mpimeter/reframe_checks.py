# SPDX-License-Identifier: BSD-3-Clause
"""ReFrame test library: an mpimeter campaign as a ReFrame performance check (needs ReFrame, the
``reframe-hpc`` package: ``pip install 'mpimeter[reframe]'``).

:class:`MpimeterCampaign` runs ``mpimeter run`` on the partition ReFrame puts it on (a whole
campaign, ``launches`` mpiruns in a random order, as one job), then ``mpimeter analyze --format
json``, and exposes per (op, size) the median of the per-launch medians in µs as a performance
variable named ``<op>_<size>`` (``<alternative>_<op>_<size>`` with several alternatives) — the
number a regression test should track (Hunold & Carpen-Amarie 2016, §4.2: the launch is the unit
of replication, so not the repetitions of one mpirun).

References are given in ``references_us`` (``{"allreduce_8": 2.1}``, each > 0) and the tolerance
in ``tolerance``, a fixed fraction of the reference (default 0.10, at most 1; above the reference
``upper_tolerance`` when it should differ), as ReFrame's convention has it: the reference tuple is
``(ref, -tolerance, +upper_tolerance, 'us')``, so the check passes when
``ref·(1 − tolerance) ≤ median ≤ ref·(1 + upper_tolerance)``. The tolerance is the user's,
the same in every run, never derived from the measurement; the measurement's own 95 % interval of
the median (Le Boudec's order statistics over the launch medians; with fewer launches than it
needs, < 6 at 95 %, the range of the launch medians) is logged beside each value, so a failure
can be read against the precision the campaign reached.

mpimeter starts the ranks itself (its ``launcher``: ``local`` = each library's mpirun, ``srun``
inside the job's allocation, or a template), so ReFrame's own launcher is set to ``local`` for
this job; ``num_tasks`` is ``np`` for the allocation. See examples/reframe/ for a configuration
and a check file.
"""

from __future__ import annotations

import json
import math
import os
import shlex
import sys

import reframe as rfm
import reframe.utility.sanity as sn
import reframe.utility.typecheck as typ
from reframe.core.backends import getlauncher
from reframe.core.builtins import run_after, run_before, sanity_function, variable
from reframe.core.logging import getlogger

ANALYZE_JSON = "analyze.json"
CAMPAIGN = "campaign"


def _rows(path: str) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return json.load(f)["rows"]


def perf_name(row: dict, several: bool) -> str:
    """The performance variable of one analyze row (ReFrame scopes names with ':', so '_')."""
    base = f"{row['op']}_{row['size']}"
    return f"{row['alternative']}_{base}" if several else base


def median_interval(row: dict) -> tuple[float, float, str]:
    """(low, high) in µs around the median, and what they are: the median's interval, else the
    range of the per-launch medians."""
    low, high = row.get("median_ci_low_ns"), row.get("median_ci_high_ns")
    if low is not None and high is not None:
        return low / 1e3, high / 1e3, f"{100 * row['confidence']:g} % interval of the median"
    medians = [m for m in row.get("per_launch_medians_ns", []) if m is not None and math.isfinite(m)]
    return min(medians) / 1e3, max(medians) / 1e3, f"range of {len(medians)} launch medians (too few for an interval)"


def reference_tuple(ref_us: float, tolerance: float,
                    upper_tolerance: float | None = None) -> tuple[float, float, float, str]:
    """ReFrame's (reference, lower, upper, unit) threshold tuple for a reference in µs and fixed
    relative tolerances (below it ``tolerance``; above it ``upper_tolerance``, else the same):
    valid for every reference ReFrame accepts (its lower threshold must lie in [−1, 0] for a
    positive reference, its upper one at or above 0)."""
    if not (isinstance(ref_us, (int, float)) and math.isfinite(ref_us) and ref_us > 0):
        raise ValueError(f"reference {ref_us!r} us: a reference is a run time, a finite number > 0")
    if not (isinstance(tolerance, (int, float)) and 0 <= tolerance <= 1):
        raise ValueError(f"tolerance {tolerance!r}: a fraction of the reference from 0 to 1 "
                         f"(ReFrame's lower threshold cannot go below -1)")
    upper = tolerance if upper_tolerance is None else upper_tolerance
    if not (isinstance(upper, (int, float)) and 0 <= upper < math.inf):
        raise ValueError(f"upper_tolerance {upper!r}: a fraction of the reference, finite and >= 0")
    return float(ref_us), -float(tolerance), float(upper), "us"


def _median_us(path: str, name: str, several: bool) -> float:
    for row in _rows(path):
        if perf_name(row, several) == name:
            return row["median_ns"] / 1e3
    raise ValueError(f"{path}: no row {name}")


class MpimeterCampaign(rfm.RunOnlyRegressionTest):
    """One mpimeter campaign as a performance check (see the module docstring)."""

    ops = variable(str, value="allreduce")
    sizes = variable(str, value="8,1024,65536")
    np = variable(int, value=2)
    launches = variable(int, value=10)
    nrep = variable(int, value=0)  # --nrep; 0: mpimeter-bench's own default (its --describe), not a copy
    mpi = variable(str, value="")  # --mpi; empty: every library mpimeter finds
    launcher = variable(str, value="local")  # mpimeter run --launcher
    bench_dir = variable(str, value="")  # --bench-dir; empty: mpimeter's default
    extra_args = variable(typ.List[str], value=[])  # more `mpimeter run` options
    mpimeter = variable(str, value="")  # the mpimeter command; empty: the one beside this Python
    references_us = variable(typ.Dict[str, float], value={})  # perf variable name → reference in µs
    tolerance = variable(float, value=0.10)  # ± this fraction of each reference, the same every run
    upper_tolerance = variable(float, type(None), value=None)  # above the reference, when not `tolerance`

    valid_systems = ["*"]
    valid_prog_environs = ["*"]
    keep_files = [ANALYZE_JSON, CAMPAIGN]  # the analysis and the raw data, also of checks that pass

    def _command(self) -> str:
        return self.mpimeter or os.path.join(os.path.dirname(sys.executable), "mpimeter")

    @run_before("setup")
    def _check_references(self) -> None:
        # a bad reference or tolerance fails the check in its set-up phase, before any campaign
        # runs (at "init", ReFrame would skip the check with a warning and exit 0)
        for name, ref in self.references_us.items():
            try:
                reference_tuple(ref, self.tolerance, self.upper_tolerance)
            except ValueError as exc:
                raise ValueError(f"references_us[{name!r}]: {exc}") from None

    @run_after("init")
    def _set_job(self) -> None:
        self.num_tasks = self.np
        self.executable = self._command()
        args = ["run", "--np", str(self.np), "--launches", str(self.launches), "--ops", self.ops,
                "--sizes", self.sizes, "--launcher", self.launcher, "--out", CAMPAIGN, "--no-analyze"]
        if self.nrep:
            args += ["--nrep", str(self.nrep)]
        if self.mpi:
            args += ["--mpi", self.mpi]
        if self.bench_dir:
            args += ["--bench-dir", self.bench_dir]
        self.executable_opts = [shlex.quote(a) for a in args + list(self.extra_args)]
        self.postrun_cmds = [f"{shlex.quote(self._command())} analyze {CAMPAIGN} --format json > {ANALYZE_JSON}"]

    @run_before("run")
    def _no_wrapping_launcher(self) -> None:
        # mpimeter run starts the ranks of every launch itself
        self.job.launcher = getlauncher("local")()

    @sanity_function
    def campaign_analyzed(self):
        return sn.assert_eq(sn.defer(self._problem()), "", msg="{0}")

    def _problem(self) -> str:
        """'' when every (op, size) of the campaign has a median; else what went wrong."""
        path = os.path.join(self.stagedir, ANALYZE_JSON)
        try:
            rows = _rows(path)
        except (OSError, ValueError, KeyError) as exc:
            return f"{path} cannot be read ({exc}): the campaign or its analysis failed (see {CAMPAIGN}/)"
        if not rows:
            return f"{path} has no rows: no launch finished a test"
        empty = [perf_name(r, False) for r in rows if r.get("median_ns") is None]
        return f"no valid repetition in {', '.join(empty)}" if empty else ""

    @run_before("performance")
    def _perf_variables(self) -> None:
        path = os.path.join(self.stagedir, ANALYZE_JSON)
        rows = _rows(path)
        several = len({r["alternative"] for r in rows}) > 1
        refs = {}
        for row in rows:
            name = perf_name(row, several)
            self.perf_variables[name] = sn.make_performance_function(_median_us, "us", path, name, several)
            if name in self.references_us:
                ref = self.references_us[name]
                refs[name] = reference_tuple(ref, self.tolerance, self.upper_tolerance)
                low, high, what = median_interval(row)
                _, below, above, _ = refs[name]
                getlogger().info(f"mpimeter: {name}: median {row['median_ns'] / 1e3:.4g} us [{low:.4g}, {high:.4g}] us "
                                 f"({what}), reference {ref:.4g} us -{100 * -below:g} % +{100 * above:g} %")
        unknown = sorted(set(self.references_us) - set(self.perf_variables))
        if unknown:
            raise ValueError(f"references_us names {', '.join(unknown)}, which the campaign did not measure "
                             f"(it has {', '.join(sorted(self.perf_variables))})")
        self.reference = {"*": refs}
