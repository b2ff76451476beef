"""Reproducibility of the outcome (Hunold & Carpen-Amarie 2016, §5.3, Fig. 12).

Run the same benchmarking method n_trial times. Each trial gives, per (op, size), a distribution
of per-launch medians; collapse it to its mean t_i. Normalize by the smallest trial:
t_i^norm = t_i / min_j t_j. The distribution of t^norm over trials is the paper's measure of how
reproducible the method is; its maximum (the largest trial over the smallest) is the spread
reported here ("less than 5 % for 2^14 bytes" in the paper).

Per-launch medians come from `mpimeter.analysis` (outlier filter, valid repetitions, the clock the
launch's sync calls for): this module computes no statistic of its own but the spread.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

MEDIAN_COLUMNS = ["alternative", "launch", "op", "size", "median_ns"]


@dataclass(frozen=True)
class SpreadRow:
    alternative: str
    op: str
    size: int
    trials: int
    means_ns: tuple[float, ...]  # per trial: mean of per-launch medians
    normalized: tuple[float, ...]  # per trial: mean / smallest mean
    spread: float  # max normalized = largest / smallest trial

    def to_dict(self) -> dict:
        return {"alternative": self.alternative, "op": self.op, "size": self.size,
                "trials": self.trials, "means_ns": list(self.means_ns),
                "normalized": list(self.normalized), "spread": self.spread}


def per_launch_medians(campaign_dir: Path) -> tuple[pd.DataFrame, str]:
    """One row per (alternative, launch, op, size) with the launch's median run time, and which
    implementation computed it."""
    campaign_dir = Path(campaign_dir)
    name = single_alternative_name(campaign_dir)
    return _medians_from_analysis(campaign_dir, name), "mpimeter.analysis"


def single_alternative_name(campaign_dir: Path) -> str:
    """The alternative of a one-alternative campaign: as campaign.json names it, else "-" (not
    the folder name, so that trials in different folders line up)."""
    try:
        alternatives = json.loads((campaign_dir / "campaign.json").read_text())["alternatives"]
        if len(alternatives) == 1:
            return str(alternatives[0]["name"])
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        pass
    return "-"


def _medians_from_analysis(campaign_dir: Path, name: str) -> pd.DataFrame:
    from mpimeter import analysis

    result = analysis.analyze(analysis.load_campaign(campaign_dir, name=name, store=False))
    rows = [(s.alternative, s.launch, s.op, s.size, s.median_ns)
            for row in result.rows for s in row.per_launch]
    return pd.DataFrame(rows, columns=MEDIAN_COLUMNS)


def spread_table(trial_medians: list[pd.DataFrame]) -> list[SpreadRow]:
    """Per (alternative, op, size) present in every trial: each trial's mean of per-launch
    medians, normalized by the smallest; spread = the largest normalized value."""
    if len(trial_medians) < 2:
        raise ValueError("reproducibility needs at least 2 trials")
    means = []
    for trial, medians in enumerate(trial_medians):
        m = medians.groupby(["alternative", "op", "size"])["median_ns"].mean().rename(trial)
        means.append(m)
    table = pd.concat(means, axis=1).dropna()
    rows = []
    for (alternative, op, size), values in table.iterrows():
        v = [float(x) for x in values]
        low = min(v)
        norm = tuple(x / low for x in v) if low > 0 else tuple(float("nan") for _ in v)
        rows.append(SpreadRow(str(alternative), str(op), int(size), len(v), tuple(v), norm,
                              max(norm)))
    rows.sort(key=lambda r: (r.alternative, r.op, r.size))
    return rows
