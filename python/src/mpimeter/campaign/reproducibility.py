# SPDX-License-Identifier: BSD-3-Clause
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

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from mpimeter.io.campaign_record import read_campaign_record
from mpimeter.io.errors import InputError

if TYPE_CHECKING:
    import pandas as pd

# pandas and the analysis (numpy, scipy: seconds to import) are imported where the trials are
# read, after they ran: `mpimeter reproducibility` checks its folders and runs its trials
# without them, and one interrupted while a trial runs ends without importing them

MEDIAN_COLUMNS = ["alternative", "launch", "op", "size", "median_ns"]
# What else tells one row of `analyze` from another (its p, root, number of work pieces; -1: none):
# a trial of `run --np 2,4` has a row per p, and a mean over both p is the mean of no test.
WHERE_COLUMNS = ["nprocs", "root", "workpieces"]


@dataclass(frozen=True, kw_only=True)
class SpreadRow:
    alternative: str
    op: str
    size: int
    trials: int
    nprocs: int | None = None  # the row's p, root and work pieces, as `analyze` keys its rows
    root: int | None = None
    workpieces: int | None = None
    means_ns: tuple[float, ...]  # per trial: mean of per-launch medians
    normalized: tuple[float, ...]  # per trial: mean / smallest mean
    spread: float  # max normalized = largest / smallest trial

    def to_dict(self) -> dict:
        return {"alternative": self.alternative, "op": self.op, "size": self.size, "nprocs": self.nprocs,
                "root": self.root, "workpieces": self.workpieces, "trials": self.trials, "means_ns": list(self.means_ns),
                "normalized": list(self.normalized), "spread": self.spread}


@dataclass(frozen=True)
class Trial:
    folder: Path
    medians: pd.DataFrame  # MEDIAN_COLUMNS
    source: str  # which implementation computed the medians
    settings: dict[str, str]  # the launches' measurement settings (meta.json config, np)


def per_launch_medians(campaign_dir: Path) -> tuple[pd.DataFrame, str]:
    """One row per (alternative, launch, op, size) with the launch's median run time, and which
    implementation computed it."""
    trial = load_trial(campaign_dir)
    return trial.medians, trial.source


def load_trial(campaign_dir: Path) -> Trial:
    """A trial's per-launch medians and the settings its launches were run with."""
    import pandas as pd

    from mpimeter import analysis
    from mpimeter.analysis.settings import alternative_settings

    campaign_dir = Path(campaign_dir)
    campaign = analysis.load_campaign(campaign_dir, name=single_alternative_name(campaign_dir), store=False)
    result = analysis.analyze(campaign)
    rows = [(s.alternative, s.launch, s.op, s.size, s.median_ns, row.nprocs or -1,
             -1 if row.root is None else row.root, -1 if row.workpieces is None else row.workpieces)
            for row in result.rows for s in row.per_launch]
    return Trial(campaign_dir, pd.DataFrame(rows, columns=MEDIAN_COLUMNS + WHERE_COLUMNS), "mpimeter.analysis",
                 alternative_settings(campaign, every=True))


def same_folders(folders: list[Path]) -> list[Path]:
    """The folders given more than once (the same folder under any spelling)."""
    seen: dict[Path, Path] = {}
    twice = []
    for f in folders:
        key = Path(f).resolve()
        if key in seen and seen[key] not in twice:
            twice.append(seen[key])
        seen.setdefault(key, Path(f))
    return twice


def settings_differences(trials: list[Trial]) -> list[str]:
    """'nrep (trial-00: 50, trial-01: 100)' for every setting the trials were not run with alike."""
    from mpimeter.analysis.settings import differing_settings

    return differing_settings([(str(t.folder), t.settings) for t in trials])


def single_alternative_name(campaign_dir: Path) -> str:
    """The alternative of a one-alternative campaign: as campaign.json names it, else "-" (not
    the folder name, so that trials in different folders line up)."""
    try:
        record = read_campaign_record(campaign_dir)
    except (InputError, OSError):  # OSError: e.g. a path too long for the file system
        return "-"  # load_campaign says what is wrong with it
    names = record.alternative_names if record is not None else ()
    return names[0] if len(names) == 1 else "-"


def spread_table(trial_medians: list[pd.DataFrame]) -> list[SpreadRow]:
    """Per (alternative, op, size — and p, root, work pieces where the medians have them, as
    `analyze` keys its rows) present in every trial: each trial's mean of per-launch medians,
    normalized by the smallest; spread = the largest normalized value."""
    import pandas as pd

    if len(trial_medians) < 2:
        raise ValueError("reproducibility needs at least 2 trials")
    key = ["alternative", "op", "size"]
    where = [c for c in WHERE_COLUMNS if all(c in m.columns for m in trial_medians)]
    means = []
    for trial, medians in enumerate(trial_medians):
        m = medians.groupby(key + where)["median_ns"].mean().rename(trial)
        means.append(m)
    table = pd.concat(means, axis=1).dropna()
    rows = []
    for index, values in table.iterrows():
        named = dict(zip(key + where, index))
        at = {c: (None if int(named[c]) < 0 else int(named[c])) for c in where}
        v = [float(x) for x in values]
        low = min(v)
        norm = tuple(x / low for x in v) if low > 0 else tuple(float("nan") for _ in v)
        rows.append(SpreadRow(alternative=str(named["alternative"]), op=str(named["op"]), size=int(named["size"]),
                              trials=len(v), **at, means_ns=tuple(v), normalized=norm, spread=max(norm)))
    rows.sort(key=lambda r: (r.alternative, r.op, r.size, r.nprocs or 0, -1 if r.root is None else r.root,
                             r.workpieces or 0))
    return rows
