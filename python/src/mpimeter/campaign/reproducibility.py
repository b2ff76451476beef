"""Reproducibility of the outcome (Hunold & Carpen-Amarie 2016, §5.3, Fig. 12).

Run the same benchmarking method n_trial times. Each trial gives, per (op, size), a distribution
of per-launch medians; collapse it to its mean t_i. Normalize by the smallest trial:
t_i^norm = t_i / min_j t_j. The distribution of t^norm over trials is the paper's measure of how
reproducible the method is; its maximum (the largest trial over the smallest) is the spread
reported here ("less than 5 % for 2^14 bytes" in the paper).

Per-launch medians come from `mpimeter.analysis` (outlier filter, valid repetitions, the clock the
launch's sync calls for) when it is available; otherwise from raw.csv with pandas in
`_medians_from_raw_csv`, which follows the same rules in their simplest form (Tukey 1.5 IQR).
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
    try:
        return _medians_from_analysis(campaign_dir, name), "mpimeter.analysis"
    except (ImportError, NotImplementedError, AttributeError):
        return _medians_from_raw_csv(campaign_dir, name), "raw.csv (pandas fallback)"


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


def _medians_from_raw_csv(campaign_dir: Path, name: str) -> pd.DataFrame:
    """The swappable fallback: valid repetitions; run time = max gend - min gstart over ranks
    when the launch has a global clock (docs/FORMAT.md), else the max local duration; Tukey
    1.5 IQR outlier filter per test; median."""
    frames = []
    for alternative, index, folder in _launch_folders(campaign_dir, name):
        meta = json.loads((folder / "meta.json").read_text())
        raw = pd.read_csv(folder / "raw.csv", on_bad_lines="skip")
        raw = raw[raw["valid"] == 1]
        if raw.empty:
            continue
        method = (meta.get("clock_sync") or {}).get("method", "none")
        procsync = (meta.get("proc_sync") or {}).get("method", "")
        use_global = (method != "none" or procsync in ("window", "roundtime", "harmonize")) \
            and raw["gstart_ns"].notna().all()
        keys = ["test", "op", "size", "rep"]
        if use_global:
            per_rep = raw.groupby(keys).agg(s=("gstart_ns", "min"), e=("gend_ns", "max"))
            run_time = per_rep["e"] - per_rep["s"]
        else:
            run_time = (raw["end_ns"] - raw["start_ns"]).groupby([raw[k] for k in keys]).max()
        run_time = run_time.rename("t").reset_index()
        for (op, size), group in run_time.groupby(["op", "size"]):
            t = group["t"].astype(float)
            q1, q3 = t.quantile(0.25), t.quantile(0.75)
            kept = t[(t >= q1 - 1.5 * (q3 - q1)) & (t <= q3 + 1.5 * (q3 - q1))]
            frames.append((alternative, index, op, int(size), float(kept.median())))
    return pd.DataFrame(frames, columns=MEDIAN_COLUMNS)


def _launch_folders(campaign_dir: Path, name: str) -> list[tuple[str, int, Path]]:
    """Complete launch folders of a campaign of one alternative (called `name`) or of several
    (docs/FORMAT.md)."""
    if (campaign_dir / "launches").is_dir():
        groups = [(name, campaign_dir / "launches")]
    else:
        groups = [(sub.name, sub / "launches") for sub in sorted(campaign_dir.iterdir())
                  if (sub / "launches").is_dir()]
    found = []
    for alternative, launches in groups:
        for folder in sorted(launches.iterdir()):
            meta = folder / "meta.json"
            if folder.name.isdigit() and meta.is_file():
                if json.loads(meta.read_text()).get("status") == "complete":
                    found.append((alternative, int(folder.name), folder))
    return found


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
