# SPDX-License-Identifier: BSD-3-Clause
"""``compare --quantile q``: the q-quantiles of two alternatives' run times compared row by row
with quantile regression (Hoefler & Belli 2015 §3.2.3; the method and why it regresses the
per-launch quantiles: ``mpimeter.stats.quantreg``). Reads the kept repetitions of an
:class:`AnalysisResult` (after the outlier filter the user chose: ``--outlier none`` keeps the
tail a tail comparison is usually about) and returns a frozen result the CLI prints."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np

from mpimeter import SCHEMA_VERSION
from mpimeter.analysis.loading import AnalysisError
from mpimeter.analysis.results import AnalysisResult
from mpimeter.stats import hypothesis as _hyp
from mpimeter.stats import quantreg as _qr

ROW_KEYS = ("op", "size", "nprocs", "root", "workpieces")
METHOD = ("QuantReg (statsmodels) at the median over launches of each launch's q-quantile of log run times, "
          "on the alternative; interval and p: its sandwich standard error, t with launches − 2 df")


@dataclass(frozen=True, kw_only=True)
class QuantileRow:
    op: str
    size: int
    nprocs: int
    root: int | None
    workpieces: int | None
    quantile_a_ns: float  # the median over a's launches of their q-quantile
    quantile_b_ns: float
    ratio: float  # b / a
    ratio_ci_low: float
    ratio_ci_high: float
    p_value: float
    p_adjusted: float  # Holm over the rows
    significant: bool
    launches_a: int
    launches_b: int
    # the interval (at ``confidence`` for its row alone) excludes 1 exactly when the row is
    # significant (Holm over the rows); False where the two disagree
    interval_agrees: bool = True


@dataclass(frozen=True, kw_only=True)
class QuantileComparison:
    a: str
    b: str
    quantile: float
    confidence: float
    alpha: float
    rows: tuple[QuantileRow, ...]
    method: str = METHOD

    def to_dict(self) -> dict:
        return {"schema_version": SCHEMA_VERSION, "command": "compare", "a": self.a, "b": self.b,
                "quantile": self.quantile, "confidence": self.confidence, "alpha": self.alpha,
                "method": self.method, "correction": "holm", "rows": [asdict(r) for r in self.rows]}


def _by_launch(res: AnalysisResult, alternative: str) -> dict[tuple, list[np.ndarray]]:
    """Per row key, each launch's kept run times (ns)."""
    df = res.repetitions
    df = df[(df["alternative"] == alternative) & df["kept"]]
    out: dict[tuple, list[np.ndarray]] = {}
    for key, g in df.groupby(["op", "size", "nprocs", "root", "workpieces", "launch"], observed=True, sort=True):
        out.setdefault(tuple(key[:5]), []).append(g["run_time_ns"].to_numpy(dtype=float))
    return out


def compare_quantile(res: AnalysisResult, q: float, *, confidence: float = 0.95,
                     alpha: float = 0.05) -> QuantileComparison:
    """The two alternatives of ``res`` (exactly two), every row both measured."""
    if not (0 < q < 1):  # NaN fails too
        raise AnalysisError(f"the quantile must be between 0 and 1 (exclusive), got {q}")
    alts = res.campaign.alternatives
    if len(alts) != 2:
        raise AnalysisError(f"--quantile compares two alternatives, found {len(alts)}: {', '.join(alts)}")
    a, b = alts
    ga, gb = _by_launch(res, a), _by_launch(res, b)
    rows = []
    for key in sorted(set(ga) & set(gb), key=lambda k: (str(k[0]), int(k[1]), int(k[2]), int(k[3]), int(k[4]))):
        qa, qb = _qr.launch_log_quantiles(ga[key], q), _qr.launch_log_quantiles(gb[key], q)
        fit = _qr.quantile_ratio(qa, qb, confidence=confidence)
        op, size, nprocs, root, pieces = key
        rows.append(QuantileRow(op=str(op), size=int(size), nprocs=int(nprocs), root=None if root < 0 else int(root),
                                workpieces=None if pieces < 0 else int(pieces),
                                quantile_a_ns=math.exp(float(np.median(qa))) if qa.size else math.nan,
                                quantile_b_ns=math.exp(float(np.median(qb))) if qb.size else math.nan,
                                ratio=fit.ratio, ratio_ci_low=fit.low, ratio_ci_high=fit.high, p_value=fit.p_value,
                                p_adjusted=math.nan, significant=False, launches_a=fit.launches_a,
                                launches_b=fit.launches_b))
    if not rows:
        raise AnalysisError(f"{a} and {b} have no (op, size) in common")
    tested = [i for i, r in enumerate(rows) if math.isfinite(r.p_value)]
    adj = _hyp.holm(np.array([rows[i].p_value for i in tested]))
    for i, p in zip(tested, adj):
        r = rows[i]
        excludes = r.ratio_ci_low > 1 or r.ratio_ci_high < 1
        rows[i] = QuantileRow(**{**asdict(r), "p_adjusted": float(p), "significant": bool(p <= alpha),
                                 "interval_agrees": excludes == bool(p <= alpha)})
    return QuantileComparison(a=a, b=b, quantile=q, confidence=confidence, alpha=alpha, rows=tuple(rows))
