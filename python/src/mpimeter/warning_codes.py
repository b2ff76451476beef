# SPDX-License-Identifier: BSD-3-Clause
"""Every warning code, in one table: who produces it, how serious it is, its message and its hint
(CONTRIBUTING.md, principle 8: every instability is a typed warning with a next step; docs/FORMAT.md,
"Warning codes").

A warning is made only through :func:`warning` (a code of the analysis or the file readers:
its message and hint are the templates below, filled with the producer's facts) or
:func:`condition_warning` (a condition the binary wrote into meta.json: its message and hint are
the binary's). :class:`AnalysisWarning` refuses a code this table lacks, and
``python/tests/test_warning_codes.py`` checks both directions: every code used in the sources is
here, and every code here is produced — the analysis's by a call in ``python/src``, the binary's
by its literal in ``c/src``.

This module imports nothing of mpimeter: io, stats, analysis and report all sit above it.
"""

from __future__ import annotations

import enum
import string
from dataclasses import dataclass, field
from typing import Any


class Severity(enum.Enum):
    """How much of the result a warning puts in doubt."""

    NOTE = "note"  # how something was done or what was skipped; the results stand as shown
    CAUTION = "caution"  # the results stand, but rest on less than asked or on weaker statistics
    SERIOUS = "serious"  # some results are missing, or the measured times may be wrong


class Producer(enum.Enum):
    ANALYSIS = "analysis"  # mpimeter (its readers and its analysis) makes it from the facts
    BINARY = "binary"  # mpimeter-bench writes it as a condition into meta.json (schema ≥ 2)
    READER = "reader"  # mpimeter's meta.json reader, for a version-1 warning string


@dataclass(frozen=True)
class Code:
    """One warning code. ``message`` and ``hint`` are ``str.format`` templates whose fields the
    producer fills (:func:`warning`); a binary condition's are the binary's own texts."""

    name: str
    severity: Severity
    producers: frozenset[Producer]
    message: str
    hint: str


A, B, R = Producer.ANALYSIS, Producer.BINARY, Producer.READER
NOTE, CAUTION, SERIOUS = Severity.NOTE, Severity.CAUTION, Severity.SERIOUS
CONDITION_MESSAGE = "launch {launch}: {message}"  # a binary condition, named by its launch
CONDITION_HINT = "{hint}"
CONDITION_HINT_MISSING = "see the conditions in the launch's meta.json"


def _binary(name: str, severity: Severity) -> Code:
    return Code(name, severity, frozenset({B}), CONDITION_MESSAGE, CONDITION_HINT)


_TABLE = (
    # --- the file readers (mpimeter.io) ---
    Code("truncated-line", NOTE, frozenset({A}),
         "the last line ({line}) of {file} is incomplete and was dropped",
         "the launch was probably killed {when}"),
    Code("unfinished-test-rows", NOTE, frozenset({A}),
         "{rows} rows of {file} belong to tests that meta.json does not list as complete; they were not used",
         "the launch stopped between writing a test's rows and updating meta.json"),
    Code("incomplete-launch", SERIOUS, frozenset({A}),
         "launch {state}: {finished} of {tests} tests finished and are used{note}",
         "re-run the launch (mpimeter run resumes campaigns) to get all tests"),
    Code("failed-launch", SERIOUS, frozenset({A}),
         "launch {state}: {finished} of {tests} tests finished and are used{note}",
         "re-run the launch (mpimeter run resumes campaigns) to get all tests"),
    Code("test-failed-every-attempt", SERIOUS, frozenset({A}),
         "{alternative} {op} {size}: crashed or hung its launch in every attempt ({attempts}: {hows}); "
         "planned launch {launch} has no measurement of it (its other tests were kept)",
         "run the test alone (mpimeter-bench --ops {op} --sizes {size}) to see why it fails; a test that "
         "hung may need a larger --test-timeout (campaign.json failed_tests)"),
    Code("launches-without-folder", SERIOUS, frozenset({A}),
         "{alternative}: {count} of its {planned} launch(es) in campaign.json left no launch folder to read "
         "({statuses}; first: {folder}: {reason}){none}",
         "their logs say why (campaign.json launches[].stderr_log); fix the cause and resume the campaign "
         "(mpimeter run --resume DIR)"),
    Code("launch-not-started", SERIOUS, frozenset({A}),
         "launch folder has no meta.json and was skipped",
         "a pending or crashed-at-start launch; re-run it"),
    Code("folder-skipped", NOTE, frozenset({A}),
         "{name} was not read: {why}",
         "analyze it on its own: mpimeter analyze {folder}"),
    Code("mixed-launches", CAUTION, frozenset({A}),
         "launch {launch} of {alternative}: {what}",
         "the launches of this alternative are not repetitions of one experiment: their spread includes the "
         "differences"),
    Code("store-not-written", NOTE, frozenset({A}),
         "{db} could not be {action}: {error}",
         "{advice}"),
    Code("imported-aggregates", CAUTION, frozenset({A}),
         "imported from {label} ({file}): each test is one aggregate ({headlines} as the tool printed it), not a "
         "distribution: no per-repetition or per-rank data, so the launch's median is that one value and its "
         "quartiles, outlier filter, warm-up, rank tests and fingerprint cannot be computed",
         "import one file per run of the tool to get a distribution across launches; for per-repetition data "
         "import ReproMPI output or measure with mpimeter run"),
    Code("imported-repetitions", NOTE, frozenset({A}),
         "imported from {label} ({file}): per repetition the tool's run time ({run_time}); it lacks {lacks}, so "
         "rank tests, the start-spread check and the processing schemes that need per-rank times cannot be computed",
         "measure with mpimeter run to keep every rank's times"),
    # --- the analysis of one campaign (mpimeter.analysis) ---
    Code("one-launch", CAUTION, frozenset({A}),
         "{alternative}: one launch only — the between-launch variance is unknown, and the launch is a factor "
         "(Hunold & Carpen-Amarie 2016 §4.2): these numbers may not repeat in the next mpirun",
         "run the campaign with 10 or more launches (mpimeter run --launches 10)"),
    Code("too-few-launches", CAUTION, frozenset({A}),
         "{alternative}: {launches} launches — too few for a 95 % interval of the median (needs ≥ 6) and for a "
         "comparison with any power",
         "run 10 or more launches"),
    Code("fewer-launches", CAUTION, frozenset({A}),
         "{rows} row(s) rest on fewer launches than the rest of their operation: {names}{more} — their interval and "
         "any comparison of them use only those launches",
         "measure every size in every launch (with --sizes auto a campaign's pilot launch decides the sizes; "
         "rerun the launches that failed)"),
    Code("timer-inadequate", NOTE, frozenset({A}),
         "the timed interval of {rows} row(s) is short for the timer (shortest {shortest}; timer resolution "
         "{resolution}, overhead {overhead}): {names}{more} — below {steps} timer steps the medians fall on the "
         "timer's grid, and above {share} % overhead they include a visible share of the timer's own cost "
         "(Hoefler & Belli 2015 §4.2.1)",
         "time several calls per interval (--batch N, with --procsync barrier or none: a batch has no planned "
         "start){finer} for these rows, and "
         "read their differences against the timer's resolution"),
    Code("normality-failed", CAUTION, frozenset({A}),
         "the per-launch means of {rows} row(s) fail Shapiro–Wilk (p ≤ 0.05): {names}{more}; their t intervals of "
         "the mean are not to be trusted",
         "use the median and its interval for these rows"),
    Code("invalid-repetitions", CAUTION, frozenset({A}),
         "{tests} launch test(s) have more than 5 % invalid repetitions (worst: {launch} {op} {size}: {invalid} of "
         "{total})",
         "use a larger window (--window-us) or a process sync that redoes late rounds (roundtime, harmonize)"),
    Code("long-warmup", CAUTION, frozenset({A}),
         "{tests} launch test(s) have a significant warm-up (rank and level tests, Roth 2021 §4.5 categories; Holm "
         "over the {tested} launch tests tested, family-wise {family}) longer than a tenth of their repetitions "
         "(worst: {launch} {op} {size}: {warmup} of {total})",
         "raise --warmup, or analyze with --drop-warmup"),
    Code("budget-ended-tests", CAUTION, frozenset({A, B}),
         "{tests} launch test(s) were ended by a time budget (the test's share of --launch-budget-s, or the "
         "roundtime/harmonize budget{budget}) before --nrep "
         "repetitions (worst: {launch} {op} {size}: {nrep} of {asked}); their statistics rest on fewer repetitions "
         "than asked",
         "raise --launch-budget-s or --roundtime-budget-s, or lower --nrep"),
    Code("empty-complete-tests", SERIOUS, frozenset({A}),
         "{tests} launch test(s) are marked complete but recorded no repetition (first: {launch} {op} {size}{by}, "
         "process sync {procsync}); they are treated as failed: their start method got no repetition in the time it had",
         "use a start method that holds on a busy machine (--procsync roundtime, or barrier), raise "
         "--roundtime-budget-s, or run on a quieter machine"),
    Code("mixed-start-methods", CAUTION, frozenset({A}),
         "{rows} row(s) were measured with different start methods in different launches ({why}); e.g. "
         "{alternative} {op} {size}: {which}; their per-launch medians are pooled as they are",
         "{advice}"),
    Code("precision-not-reached", CAUTION, frozenset({A}),
         "{tests} launch test(s) reached --nrep-max or the --nrep-budget-s time budget before --nrep auto's "
         "precision{asked} (worst: {launch} {op} {size}: {reached} after {nrep} repetitions); their launch medians "
         "are less precise than asked",
         "raise --nrep-max or --nrep-budget-s, or ask for a coarser --precision"),
    Code("sync-residual", CAUTION, frozenset({A}),
         "launch {launch}: the clock-sync residual ({measured}; {method}, model {model}) is more than a tenth of its "
         "shortest median run time ({shortest}) and above the timer's noise ({noise}): global run times of its "
         "shortest tests are uncertain",
         "{advice}"),  # fits the clock sync in use: mpimeter.analysis.launch_warnings.residual_advice
    Code("machine-load", CAUTION, frozenset({A}),
         "launch {launch}: other processes used {percent:.0f} % of the machine's CPU time while it ran",
         "re-run on a quiet machine, or compare only campaigns run under the same load"),
    Code("busy-blocks-slower", CAUTION, frozenset({A}),
         "{alternative} {op} {size}, launch {launch}: its repetitions while other processes used more than "
         "{threshold:.0f} % of the machine ({busy_share:.0f} % on average, {nbusy} repetitions) took a median {busy} "
         "against {quiet} in the quieter rest ({nquiet} repetitions; rotation test of the load along the test: "
         "p = {p:.2g})",
         "other processes slowed part of the test; its repetitions are kept (the launch's meta.json tests[].other_cpu "
         "has the share per block): re-run on a quiet machine, or compare only campaigns run under the same load"),
    Code("ranks-differ", CAUTION, frozenset({A}),
         "{alternative} {op} {size}: some ranks take longer launch after launch (Friedman's test on per-launch rank "
         "medians, Holm-adjusted p = {p:.2g}; effect size Kendall's W = {kendall_w:.2f} of 1); slowest ranks {slowest}, "
         "median rank {median}",
         "check pinning and the rank → host map in meta.json"),
    Code("late-start-spread", CAUTION, frozenset({A}),
         "{dropped} repetition(s) were dropped because their ranks did not start together: the spread of their "
         "start times on the global clock exceeded the test's start tolerance (worst: {test}: {late} of {valid} "
         "valid repetitions, spread up to {spread} against a tolerance of {tolerance})",
         "some rank was not running when the repetition was to start (preempted, oversubscribed or a busy "
         "machine): run at most one rank per core on a quiet machine; a larger --window-us leaves more time to "
         "wake up"),
    Code("launch-clusters", CAUTION, frozenset({A}),
         "{alternative}: the per-launch medians of {rows} row(s) fall into two groups ({which}); {launches} ran them "
         "{ratio:.2f}× {how} than the other {others} ({sharing} of the {rows} rows split exactly so){separation}",
         "the launch is a factor (Hunold & Carpen-Amarie 2016 §4.2): keep 10 or more launches, compare medians "
         "across launches, and see docs/ALGORITHMS.md, \"Launch effects\""),
    Code("allocation-effect", CAUTION, frozenset({A}),
         "{alternative}: the Slurm allocation is a factor: in {rows} of its {total} row(s) the per-launch medians "
         "differ more between the allocations ({allocations}) than between the launches of one ({detail}; F test, "
         "Holm over the rows, at {alpha:g})",
         "the nodes a job gets change the numbers (Hunold & Carpen-Amarie 2016 §7): spread every alternative's "
         "launches over several allocations so that none is confounded with one (docs/SLURM.md), and compare "
         "alternatives only over the same allocations"),
    Code("states", NOTE, frozenset({A}),
         "{alternative}: the launches ran in two states ({mix}) that {property} explains ({test}); {shown}",
         "the pooled median depends on the mix of states: compare per-state medians, and `compare`/`gate` "
         "match states when both sides show them (docs/ALGORITHMS.md, \"Results per state\")"),
    Code("states-unexplained", CAUTION, frozenset({A}),
         "{alternative}: the launches form two groups that no recorded property explains; the pooled result "
         "stays the headline and no per-state result is given",
         "the properties every launch records (`launch-clusters` names those examined: the cache-line probe, "
         "the CPUs, the load, the start time) do not explain them: look for a cause they do not record (CPU "
         "frequency where cpufreq is not readable, other jobs) and run more launches; groups with a recorded "
         "cause become states"),
    Code("state-mix", NOTE, frozenset({A}),
         "{groups}: both sides ran in the same states ({property}), in different mixes ({mixes}); compared state "
         "by state (van Elteren's stratified rank-sum test){only}",
         "a pooled comparison would mix the states: each state's medians are in the table \"per state\" (JSON "
         "rows[].per_state); the mix is the machine's, "
         "not the library's"),
    Code("states-unmatched", CAUTION, frozenset({A}),
         "{groups}: {which}; compared pooled over states, so a difference may be only the mix of states",
         "run both sides on the same machine with the probe that tells the states apart, enough launches "
         "for each state to show (`run --launches auto`)"),
    Code("states-assigned", NOTE, frozenset({A}),
         "{groups}: {other} shows no states of its own; its launches were put in {shown}'s states by "
         "{property} ({mix}) and the sides compared state by state",
         "the states are {shown}'s: a launch of {other} is in the state whose values of the property it "
         "is nearest (docs/ALGORITHMS.md, \"Results per state\")"),
    Code("states-differ", CAUTION, frozenset({A}),
         "{groups}: {property} puts every launch of one side apart from every launch of the other ({a}; {b}): "
         "the sides ran in different states of the machine, so a difference between them may be the "
         "machine's, not theirs",
         "run the sides interleaved in one campaign (`mpimeter run --mpi A,B` or `--variant`) so that both "
         "meet the same states, or run again until both show a state in common"),
    Code("state-rare", CAUTION, frozenset({A}),
         "{alternative}: the {state} state {how}: {launches} of {total} launches ({share:.0%}), too few for "
         "its interval at {confidence:.0%}; its median is shown without one",
         "a rare state is reported with its share; `run --launches auto` launches until each state has its "
         "interval or reports the state as rare"),
    Code("state-too-few", CAUTION, frozenset({A}),
         "{alternative}: {property} puts {launches} apart from the other {others}, too few for a state of their "
         "own (a state needs {minimum} launches); no states are reported and they stay in the pooled result",
         "run more launches (`run --launches auto`): a group that keeps its share becomes a state with its own "
         "median"),
    Code("state-unplaced", CAUTION, frozenset({A}),
         "{alternative}: {launches} did not record {property}, which defines the states; they are in no state "
         "and count in the pooled result only",
         "keep the probe on (it is recorded by default) so that every launch can be put in its state"),
    Code("launches-set-aside", CAUTION, frozenset({A}),
         "{groups}: compared state by state, {launches} {were} set aside ({why}); the rows' tests do not include "
         "them",
         "run both sides interleaved in one campaign so that every launch meets a state the other side ran in, "
         "and keep the probe on"),
    Code("resync-clock", NOTE, frozenset({A}),
         "the global clock could not be recomputed: {error}",
         "check sync.csv; the online global times are used"),
    Code("clock-unavailable", NOTE, frozenset({A}),
         "launch {launch} has no global times; its local run times are used",
         "run with a clock sync (--clocksync) to get global run times"),
    Code("imported-clock", NOTE, frozenset({A}),
         "--clock {clock} does not apply to launches imported from {label}: their run times are the tool's "
         "({run_time}) and are used as they are",
         "leave --clock at auto for imported campaigns"),
    Code("scheme-not-computable", NOTE, frozenset({A}),
         "{scheme} on {alternative} {op} {size}: {why}",
         "see mpimeter schemes --help for what each scheme needs"),
    Code("counter-correlation", NOTE, frozenset({A}),
         "{op} {size} ({alternative}): run time {direction} with {metric} (Spearman ρ = {rho:.2f} within launches, "
         "Holm p = {p:.2g}, {repetitions} repetitions); its median per category: {categories}",
         "the slow repetitions come with a change of this counter: see the counters of this test's fingerprint in "
         "the report; what the counter counts (meta.json counters.metrics) says where the time went"),
    Code("counter-perturbation", CAUTION, frozenset({A}),
         "{op} {size}: {b} (counters read) vs {a}: run time ratio {ratio:.3g} {interval} (Hodges–Lehmann, Wilcoxon "
         "rank-sum on per-launch medians, Holm p = {p:.2g})",
         "looking changed what was measured: read fewer counters, and take run times from a campaign without "
         "counters and explanations from one with them"),
    # --- comparisons and gates of campaigns (compare, gate) ---
    Code("per-repetition", CAUTION, frozenset({A}),
         "{doing} repetitions pooled over launches: the launch effect is ignored{consequence}",
         "run ≥ 3 (better ≥ 10) launches per {per}"),
    Code("separate-campaigns", CAUTION, frozenset({A}),
         "{rows} significant row(s) of {pairs} compare campaigns that ran one after the other: a machine that "
         "changed between them reads as a difference of what was measured, and this design cannot tell the two "
         "apart (two campaigns of one build run back to back are called different far more often than α on a "
         "machine that drifts: docs/ALGORITHMS.md, \"Two campaigns of one build\")",
         "measure both as alternatives of one campaign (--mpi A,B, --variant, --algorithms), so that compare pairs "
         "them round by round and the machine's drift cancels"),
    Code("low-power", CAUTION, frozenset({A}),
         "with {n_a} and {n_b} launches ({row}) the smallest possible p-value is {p_min:.3g}; after Holm "
         "correction over {rows} rows such a row cannot be significant at {alpha}",
         "run more launches per {per} (10 or more)"),
    Code("state-untested", CAUTION, frozenset({A}),
         "{groups}: the {state} state has too few launches ({launches}) in {rows} to be tested on its own in "
         "a family of {family} tests: a regression of that state alone cannot fail the gate",
         "run more launches, so that each state has enough of them on both sides"),
    Code("missing-rows", CAUTION, frozenset({A}),
         "{count} (op, size) of the {side} are not in the {other} and were not gated: {keys}",
         "run baseline and candidate with the same --ops and --sizes"),
    Code("guideline-untestable", NOTE, frozenset({A}),
         "{alternative}: the {kind} guideline cannot be checked for {ops}: {why}",
         "measure more sizes (monotony: two or more; split: a size and its half, as powers of two give)"),
    Code("tune-left-out", NOTE, frozenset({A}),
         "{alternative} is left out of the tuning: {why}",
         "tune a campaign whose alternatives set only the library's algorithm variables (mpimeter run --algorithms)"),
    Code("untested-rows", CAUTION, frozenset({A}),
         "{count} row(s) could not be tested (a side without data)",
         "check the launches of these (op, size)"),
    Code("different-settings", CAUTION, frozenset({A}),
         "the compared campaigns were run with different settings: they differ in {settings}",
         "compare campaigns run with the same np, procsync, clocksync and raw mode unless that difference is what "
         "you study"),
    # --- the binary's conditions (meta.json "conditions", c/src) ---
    _binary("oversubscribed", SERIOUS),
    _binary("clocksync-none-global", SERIOUS),
    _binary("cold-cache-beyond-window", SERIOUS),
    _binary("test-failed", SERIOUS),
    _binary("resync-failed", SERIOUS),
    _binary("no-counters", NOTE),
    _binary("procsync-switched", CAUTION),
    _binary("clocksync-drift-worse", CAUTION),
    _binary("conditions-dropped", CAUTION),
    # a version-1 meta.json's warning strings (its reader gives them this code)
    Code("bench-warning", CAUTION, frozenset({R}), CONDITION_MESSAGE, CONDITION_HINT),
)

CODES: dict[str, Code] = {c.name: c for c in _TABLE}
# the codes a meta.json condition (schema ≥ 2) may carry: what mpimeter-bench writes
CONDITION_CODES: tuple[str, ...] = tuple(c.name for c in _TABLE if B in c.producers)


def lookup(code: str) -> Code:
    try:
        return CODES[code]
    except KeyError:
        raise ValueError(f"unknown warning code {code!r}: add it to mpimeter.warning_codes") from None


@dataclass(frozen=True, kw_only=True)
class AnalysisWarning:
    """An instability or caveat, with what to do about it (CONTRIBUTING.md, principle 8).

    ``code`` is one of :data:`CODES` (stable and machine-readable); ``where`` names the file,
    launch or row concerned. ``count`` is how many warnings of this code it stands for
    (mpimeter.analysis.warning_groups merges repeats); ``badness`` ranks warnings of one code (the
    largest is the worst case shown for the group; 0 when the producer does not rank them).
    Made by :func:`warning` or :func:`condition_warning`."""

    code: str
    message: str
    hint: str
    where: str | None = None
    count: int = 1
    badness: float = field(default=0.0, compare=False)

    def __post_init__(self) -> None:
        lookup(self.code)

    @property
    def severity(self) -> Severity:
        return CODES[self.code].severity

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, "hint": self.hint, "where": self.where,
                "count": self.count}


def _fields(template: str) -> set[str]:
    return {name.split(".")[0].split("[")[0] for _, name, _, _ in string.Formatter().parse(template) if name}


def warning(code: str, /, *, where: str | None = None, badness: float = 0.0, **facts: Any) -> AnalysisWarning:
    """The warning ``code`` with its message and hint filled from ``facts`` — exactly the fields
    its templates name (a missing or unknown one is a bug of the producer: ValueError)."""
    entry = lookup(code)
    if A not in entry.producers:
        raise ValueError(f"warning code {code!r} is written by {', '.join(p.value for p in entry.producers)}: "
                         "make it with condition_warning")
    wanted = _fields(entry.message) | _fields(entry.hint)
    if set(facts) != wanted:
        raise ValueError(f"warning {code!r} takes the facts {sorted(wanted)}, not {sorted(facts)}")
    return AnalysisWarning(code=code, message=entry.message.format(**facts), hint=entry.hint.format(**facts),
                           where=where, badness=badness)


def condition_warning(code: str, *, launch: str, message: str, hint: str, where: str | None) -> AnalysisWarning:
    """A condition of a launch's meta.json (the binary's, or a version-1 warning string) as the
    warning of its code, with the binary's message and hint."""
    entry = lookup(code)
    if not entry.producers & {B, R}:
        raise ValueError(f"{code!r} is not a code of the binary's conditions")
    return AnalysisWarning(code=code, message=CONDITION_MESSAGE.format(launch=launch, message=message),
                           hint=CONDITION_HINT.format(hint=hint or CONDITION_HINT_MISSING), where=where)
