# SPDX-License-Identifier: BSD-3-Clause
"""Writes adaptive_golden.h: reference values for the C stopping rules (c/src/bench/adaptive.c),
computed once by the Python side (mpimeter.stats.intervals, scipy), so that the C rules agree
with the intervals the analysis reports.

    .venv/bin/python c/tests/unit/golden/adaptive_golden.py   # rewrites the header

python/tests/test_adaptive_golden.py checks that the committed header is what this prints.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from scipy import stats
from scipy.stats import mstats

from mpimeter.stats import dependence
from mpimeter.stats.intervals import median_ci, median_ci_ranks

HEADER = Path(__file__).with_name("adaptive_golden.h")
CONFIDENCES = (0.90, 0.95, 0.99)
RANK_N = 200
QUANTILE_P = (1e-12, 1e-6, 0.001, 0.01, 0.025, 0.05, 0.1, 0.3, 0.5, 0.7, 0.9, 0.95, 0.975, 0.99,
              0.995, 0.999, 1 - 1e-6)
SEQ_LEN = 400
RESOLUTION_NS = 1.0
# (name, rule, nrep_min, nrep_max, precision, confidence, every)
STOP_CASES = (("ci", 30, 400, 0.02, 0.95, 10), ("ci", 20, 400, 0.05, 0.99, 7),
              ("rse", 30, 400, 0.01, 0.95, 10), ("rse", 10, 400, 0.002, 0.95, 5))


def sequences() -> list[np.ndarray]:
    """Run-time-like sequences (ns): tight lognormal, wide lognormal with outliers, a shift in the
    middle, one with ties (integer nanoseconds), and one whose log is AR(1) with φ = 0.5 (the
    decision widens its interval: mpimeter.stats.dependence)."""
    rng = np.random.default_rng(20261122)
    tight = 1000.0 * rng.lognormal(0.0, 0.03, SEQ_LEN)
    wide = 2000.0 * rng.lognormal(0.0, 0.4, SEQ_LEN)
    wide[rng.integers(0, SEQ_LEN, 20)] *= 10
    shift = np.concatenate([500.0 * rng.lognormal(0, 0.05, SEQ_LEN // 2),
                            550.0 * rng.lognormal(0, 0.05, SEQ_LEN // 2)])
    ties = np.round(300.0 * rng.lognormal(0.0, 0.02, SEQ_LEN))
    ar1 = np.empty(SEQ_LEN)
    ar1[0] = rng.normal(0, 0.05)
    for i in range(1, SEQ_LEN):
        ar1[i] = 0.5 * ar1[i - 1] + rng.normal(0, 0.05 * np.sqrt(0.75))
    return [tight, wide, shift, ties, 800.0 * np.exp(ar1)]


def precision_ci(x: np.ndarray, confidence: float) -> float:
    ci = median_ci(x, confidence)
    if ci.low is None or not ci.estimate > 0:
        return float("nan")
    return max(ci.estimate - ci.low, ci.high - ci.estimate) / ci.estimate


def precision_rse(x: np.ndarray) -> float:
    if x.size < 4:
        return float("nan")
    trimmed = stats.trim_mean(x, 0.25)
    se = float(mstats.trimmed_stde(x, limits=(0.25, 0.25)))
    return max(se / trimmed, RESOLUTION_NS / float(x.sum()))


def decision_precision(in_order: np.ndarray, rule: str, conf: float) -> float:
    """What mm_stop_decide decides on: the run times in repetition order, their dependence
    allowed for (mpimeter.stats.dependence)."""
    if rule == "ci":
        return dependence.precision_ci(in_order, conf)
    phi = dependence.sign_phi(in_order)
    return precision_rse(np.sort(in_order)) * float(np.sqrt(dependence.mean_variance_factor(phi)))


def stopping_point(x: np.ndarray, rule: str, nmin: int, nmax: int, eps: float, conf: float,
                   every: int) -> tuple[int, str, float]:
    """Where the loop stops: a decision after every `every` repetitions and at nmax."""
    for n in range(1, nmax + 1):
        if n % every and n != nmax:
            continue
        reached = decision_precision(x[:n], rule, conf)
        if n >= nmin and np.isfinite(reached) and reached <= eps:
            return n, "precision", reached
        if n >= nmax:
            return n, "max", reached
    raise AssertionError("unreachable")


def render() -> str:
    seqs = sequences()
    # the licence line first, where scripts/spdx puts it in every C file
    out = ["/* SPDX-License-Identifier: BSD-3-Clause */",
           "/* adaptive_golden.h — written by adaptive_golden.py from mpimeter.stats.intervals and",
           " * scipy; do not edit by hand. */", "#ifndef MM_ADAPTIVE_GOLDEN_H", "#define MM_ADAPTIVE_GOLDEN_H", ""]
    out.append(f"#define GOLDEN_RANK_N {RANK_N}")
    out.append(f"static const double golden_confidences[{len(CONFIDENCES)}] = {{"
               + ", ".join(repr(c) for c in CONFIDENCES) + "};")
    out.append("/* [confidence][n - 1] = {j, k}; {0, 0}: no interval */")
    out.append(f"static const long golden_ranks[{len(CONFIDENCES)}][{RANK_N}][2] = {{")
    for c in CONFIDENCES:
        pairs = [median_ci_ranks(n, c) or (0, 0) for n in range(1, RANK_N + 1)]
        out.append("    {" + ", ".join(f"{{{j}, {k}}}" for j, k in pairs) + "},")
    out.append("};")
    out.append(f"static const double golden_quantile_p[{len(QUANTILE_P)}] = {{"
               + ", ".join(f"{p:.17g}" for p in QUANTILE_P) + "};")
    out.append(f"static const double golden_quantile_z[{len(QUANTILE_P)}] = {{"
               + ", ".join(f"{stats.norm.ppf(p):.17g}" for p in QUANTILE_P) + "};")
    out.append(f"#define GOLDEN_NSEQ {len(seqs)}\n#define GOLDEN_SEQ_LEN {SEQ_LEN}")
    out.append(f"static const double golden_seq[{len(seqs)}][{SEQ_LEN}] = {{")
    for s in seqs:
        out.append("    {" + ", ".join(f"{v:.17g}" for v in s) + "},")
    out.append("};")
    lengths = (4, 5, 6, 10, 37, 70, 71, 100, 400)
    out.append(f"static const long golden_prefix[{len(lengths)}] = {{" + ", ".join(map(str, lengths)) + "};")
    out.append("/* [sequence][prefix] precision reached: ci at 0.95, rse with resolution "
               f"{RESOLUTION_NS:g} ns; NAN: none */")
    for name, fn in (("ci", lambda x: precision_ci(x, 0.95)), ("rse", precision_rse)):
        out.append(f"static const double golden_precision_{name}[{len(seqs)}][{len(lengths)}] = {{")
        for s in seqs:
            vals = [fn(np.sort(s[:n])) for n in lengths]
            out.append("    {" + ", ".join("NAN" if not np.isfinite(v) else f"{v:.17g}" for v in vals) + "},")
        out.append("};")
    out.append(f"#define GOLDEN_RESOLUTION_NS {RESOLUTION_NS!r}")
    out.append("typedef struct golden_stop { int rule; long nmin, nmax; double eps, conf; long every;"
               " long at[GOLDEN_NSEQ]; int reason[GOLDEN_NSEQ]; } golden_stop;")
    out.append("/* rule 1 = ci, 2 = rse; reason 1 = precision, 2 = max */")
    out.append(f"static const golden_stop golden_stops[{len(STOP_CASES)}] = {{")
    for rule, nmin, nmax, eps, conf, every in STOP_CASES:
        pts = [stopping_point(s, rule, nmin, nmax, eps, conf, every) for s in seqs]
        out.append(f"    {{{1 if rule == 'ci' else 2}, {nmin}, {nmax}, {eps!r}, {conf!r}, {every}, "
                   f"{{{', '.join(str(p[0]) for p in pts)}}}, "
                   f"{{{', '.join('1' if p[1] == 'precision' else '2' for p in pts)}}}}},")
    out.append("};")
    phis = (0.0, 0.1, 0.5, 0.9, 0.99)
    out.append(f"static const double golden_phi[{len(phis)}] = {{" + ", ".join(repr(p) for p in phis) + "};")
    out.append(f"static const double golden_median_factor[{len(phis)}] = {{"
               + ", ".join(f"{dependence.median_variance_factor(p):.17g}" for p in phis) + "};")
    out.append("/* [sequence] phi of the first 200 run times, in repetition order */")
    out.append(f"static const double golden_sign_phi[{len(seqs)}] = {{"
               + ", ".join(f"{dependence.sign_phi(x[:200]):.17g}" for x in seqs) + "};")
    out.append("#endif")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    text = render()
    if "--check" in sys.argv:
        sys.exit(0 if HEADER.read_text() == text else 1)
    HEADER.write_text(text)
