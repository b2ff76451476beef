# SPDX-License-Identifier: BSD-3-Clause
"""The provenance (Hoefler & Belli 2015, rule 9) and method (rule 10) sections of the report.

Provenance: per alternative, the meta.json values common to all launches, those that vary
between launches (a varying factor is worth seeing), a table of the launches, and every
launch's full meta.json. Method: how the numbers were measured and summarized, in words, from
meta.json and the analysis settings. All user-given text is escaped by `html.esc`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import PurePath
from typing import Any

from mpimeter.io import slurm
from mpimeter.analysis.results import MEAN_NOTE
from mpimeter.analysis.settings import PER_LAUNCH_KEYS
from mpimeter.io.campaign_record import CampaignRecord
from mpimeter.report import html as h
from mpimeter.report.adaptive import launches_text, nrep_text
from mpimeter.report.metadata import joined, ns_or_none, rank_layout, residual_text, window_text

# Per-test detail: shown in the full meta.json only, not in the common/varying tables.
BULKY_KEYS = ("tests", "proc_sync.window_ns_by_test", "clock_sync.models", "clock_sync.parents",
              "ranks", "mpi.library_version_full", "timer.virtual", "pid", "launch_epoch_local_ns_rank0",
              "status", "wall_start", "wall_end", "config.out", "config.seed", "load")


def flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    """{"a.b": leaf}; lists are leaves (compared and shown as JSON)."""
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for key, sub in value.items():
            out.update(flatten(sub, f"{prefix}.{key}" if prefix else str(key)))
        return out
    return {prefix: value}


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


def _bulky(key: str) -> bool:
    return (any(key == b or key.startswith(b + ".") for b in BULKY_KEYS)
            or key.removeprefix("config.") in PER_LAUNCH_KEYS)


# config key naming the launch that measured a part for this one -> (section, key) of that part
# (docs/FORMAT.md: `mpit_from`, `copy_probe_from`)
_TAKEN_FROM = {"mpit_from": ("mpi", "mpi_t"), "copy_probe_from": ("probes", "copy_bandwidth")}


def compared_documents(launches) -> list[Mapping[str, Any]]:
    """Each launch's meta.json as the common/varying tables compare it. A launch run with
    --mpit-from (--copy-probe-from) read no MPI_T variables (ran no copy probe): ``mpi.mpi_t``
    (``probes.copy_bandwidth``) is null because the launch it names did, with the same binary,
    environment and launch command (docs/FORMAT.md), so it shows that launch's values; else every
    MPI_T variable would be listed as varying, a factor of the experiment it was not (rule 9).
    The launch is found by its folder's name among ``launches`` (the path is as given, the
    campaign may have moved since); a part of one not among them stays null."""
    by_name = {PurePath(li.folder).name: li.meta.document for li in launches}
    out = []
    for li in launches:
        doc = dict(li.meta.document)
        config = doc.get("config") if isinstance(doc.get("config"), Mapping) else {}
        for key, (section, part) in _TAKEN_FROM.items():
            here, source = doc.get(section), config.get(key)
            if not (isinstance(source, str) and isinstance(here, Mapping) and here.get(part) is None):
                continue
            named = (by_name.get(PurePath(source).name) or {}).get(section)
            if isinstance(named, Mapping) and named.get(part) is not None:
                doc[section] = {**here, part: named[part]}
        out.append(doc)
    return out


def common_and_varying(metas: Sequence[Mapping[str, Any]]) -> tuple[dict[str, str], dict[str, list[str]]]:
    """Keys whose value is the same in every launch, and keys whose values differ (with the
    value of each launch, in launch order)."""
    flat = [flatten(m) for m in metas]
    keys: list[str] = []
    for f in flat:
        keys.extend(k for k in f if k not in keys)
    common, varying = {}, {}
    for key in keys:
        if _bulky(key):
            continue
        values = [_text(f.get(key)) for f in flat]
        if len(set(values)) == 1:
            common[key] = values[0]
        else:
            varying[key] = values
    return common, varying


def provenance_section(result, record: CampaignRecord | None) -> str:
    parts = [tag_p("Everything the launches recorded about the experiment (meta.json, "
                   "docs/FORMAT.md). Values that differ between launches are listed first: "
                   "a factor that varied is a factor of the experiment (Hoefler & Belli, rule 9).")]
    for alt in result.alternatives:
        launches = result.campaign.launches_of(alt)
        common, varying = common_and_varying(compared_documents(launches))
        body = []
        if varying:
            rows = [(k, " | ".join(f"{li.index:03d}: {v}" for li, v in zip(launches, vals)))
                    for k, vals in varying.items()]
            body.append(h.tag("h4", "Varies between launches") + h.table(("key", "value per launch"), rows))
        else:
            body.append(h.tag("p", h.esc("No recorded value varies between launches "
                                         "(apart from times, seeds and process ids).")))
        body.append(h.tag("h4", "Common to all launches") +
                    h.table(("key", "value"), list(common.items())))
        body.append(h.tag("h4", "Launches") + _launch_table(launches))
        full = "".join(h.details(h.esc(f"meta.json of launch {li.index:03d} ({li.folder})"),
                                 h.json_block(li.meta.document)) for li in launches)
        body.append(h.tag("h4", "Full meta.json of every launch") + full)
        parts.append(h.tag("h3", h.esc(f"Alternative {alt}"), id=f"prov-{slug(alt)}") + "".join(body))
    parts.append(slurm_part(result, record))
    if record is not None and record.document:
        parts.append(h.tag("h3", "campaign.json") + h.details("campaign.json", h.json_block(record.document)))
    return "".join(parts)


def slurm_part(result, record: CampaignRecord | None) -> str:
    """The Slurm jobs the campaign ran in (campaign.json `sessions[].slurm`) and each launch's
    job, step, nodes and binding (rank 0's environment in meta.json); empty outside Slurm.
    Launches of different jobs may have run on other nodes with another binding (§7 of Hunold &
    Carpen-Amarie 2016): this is where a reader sees it."""
    jobs = [(i, job) for i, value in (record.session_slurm if record is not None else ())
            if (job := slurm.from_mapping(value))]
    launches = []
    for alt in result.alternatives:
        for li in result.campaign.launches_of(alt):
            facts = slurm.launch_facts(li.meta.environment)
            if facts is not None:
                launches.append((alt, f"{li.index:03d}", facts))
    if not jobs and not launches:
        return ""
    body = []
    if jobs:
        keys = [k for k in slurm.ALLOCATION_VARS if any(k in job for _, job in jobs)]
        body.append(h.tag("h4", "Jobs of the campaign (one per mpimeter run session)") +
                    h.table(("session", *keys), [(str(i), *(job.get(k, "–") for k in keys))
                                                  for i, job in jobs]))
    if launches:
        keys = [k for k in slurm.LAUNCH_VARS if any(k in f for _, _, f in launches)]
        body.append(h.tag("h4", "Job step and binding of each launch (rank 0's environment)") +
                    h.table(("alternative", "launch", *keys),
                            [(alt, index, *(f.get(k, "–") for k in keys))
                             for alt, index, f in launches]))
    return h.tag("h3", "Slurm", id="prov-slurm") + "".join(body)


def _launch_table(launches) -> str:
    rows = []
    for li in launches:
        m = li.meta
        rows.append((f"{li.index:03d}", str(li.folder), li.status, joined(list(m.hosts)), rank_layout(m)[1],
                     m.wall_start or "–", m.wall_end or "–", "–" if m.config.seed is None else str(m.config.seed),
                     _num(m.load.other_cpu_s), _num(m.load.wall_s), li.clock))
    return h.table(("launch", "folder", "status", "hosts", "ranks", "start", "end", "seed",
                    "other CPU (s)", "wall (s)", "clock used"), rows,
                   numeric=(False,) * 8 + (True, True, False))


def _num(value: Any) -> str:
    return f"{value:.3g}" if isinstance(value, (int, float)) else "–"


def method_section(result, comparison) -> str:
    s = result.settings
    filt = {"tukey": f"Tukey's fences, k = {s.tukey_k:g} (Q1 − k·IQR … Q3 + k·IQR), per launch and test",
            "none": "none", "mpibench": f"MPIBench: values above {s.mpibench_a:g} × p99 removed, per launch and test",
            "trim25": "SKaMPI: the 25 % fastest and 25 % slowest removed, per launch and test"}[s.outlier]
    parts = []
    for alt in result.alternatives:
        metas = [li.meta for li in result.campaign.launches_of(alt)]
        cfg = lambda name: joined([getattr(m.config, name) for m in metas])  # noqa: E731
        pairs = [
            ("scheme", f"{len(metas)} launches (separate mpiruns, the unit of replication) × "
                       f"{nrep_text(metas)} measured repetitions per test after {cfg('warmup')} warm-up "
                       f"repetitions; tests in a seeded shuffled order (seed {cfg('seed')})"),
            ("ranks", joined([rank_layout(m)[1] for m in metas])),
            ("timer", cfg("timer") + "; resolution " +
             joined([ns_or_none(m.timer.resolution_ns) for m in metas]) + ", overhead " +
             joined([ns_or_none(m.timer.overhead_ns) for m in metas])),
            ("process sync", window_text(metas)),
            ("clock sync", joined([m.clock_sync.described for m in metas]) + " (model " +
             joined([m.clock_sync.model for m in metas]) + "); " + residual_text(metas)),
        ]
        parts.append(h.tag("h3", h.esc(f"Alternative {alt}")) + h.key_values(pairs))
    if (adaptive_launches := launches_text(result.campaign.campaign_record)) is not None:
        parts.append(h.key_values([("launches", adaptive_launches)]))
    summary = [
        ("run time of a repetition", result.clock_note + ". With a global clock: max end − min "
         "start over ranks; without: the largest local duration over ranks."),
        ("invalid repetitions", "dropped (window missed or overrun) and counted"),
        ("categories", "per launch and test (Roth 2021 §4.5): first; warm-up, only where the "
         "first repetitions are significantly slower than the rest (one-sided rank test over a "
         "grid of lengths, Bonferroni); outlier ≥ 2 × median; good" +
         ("; warm-up dropped before the statistics" if s.drop_warmup else "")),
        ("outlier filter", filt),
        ("per launch", "median and mean of the kept repetitions"),
        ("across launches", f"median of the per-launch medians with a {s.confidence:.0%} "
         "order-statistic interval (Le Boudec); " + MEAN_NOTE + " (Shapiro–Wilk "
         "checks the per-launch means' normality); spread = max / min of the per-launch medians"),
        ("across ranks", "Friedman's test on each rank's per-launch median local duration, "
         "launches as blocks (the sign test for 2 ranks), Holm-corrected; operations whose ranks "
         "finish apart by design are not tested"),
    ]
    if comparison is not None:
        ratios = {"hodges-lehmann": "the Hodges–Lehmann estimate of b/a (the median of all pairwise ratios)",
                  "paired-hodges-lehmann": "the paired Hodges–Lehmann estimate of b/a (rows paired by round: the "
                                           "median of the Walsh averages of the per-round log ratios)"}
        methods = dict.fromkeys(ratios.get(r.ratio_ci_method.split(" (")[0], "median b / median a")
                                for r in comparison.rows)
        summary.append(("comparison", f"{comparison.test}; hypothesis {comparison.alternative}; "
                        f"{comparison.correction} correction; stars on the corrected p (* ≤ .05, "
                        f"** ≤ .01, *** ≤ .001), shown only on rows significant at "
                        f"α = {comparison.alpha:g}; ratio: " + ("; ".join(methods) or "median b / median a")
                        + " with its interval, the plain ratio of the medians beside it"))
    return h.tag("h3", "Summarization (all alternatives)") + h.key_values(summary) + "".join(parts)


def tag_p(text: str) -> str:
    return h.tag("p", h.esc(text))


def slug(text: str) -> str:
    """An id-safe form of a name (letters, digits, - and _ kept)."""
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in str(text))
