# SPDX-License-Identifier: BSD-3-Clause
"""What adaptive measurement did, as the report says it: how many repetitions `--nrep
auto` gave the tests and why they stopped, which sizes `--sizes auto` added (marked in the
tables and figures), and where `--launches auto` stopped each (op, size). Facts read from
meta.json and campaign.json; nothing statistical is computed here."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from mpimeter.io.campaign_record import CampaignRecord

ADDED_MARK = "added"
ADDED_NOTE = ("sizes marked “added” were chosen while the launches ran by --sizes auto: the "
              "geometric middle of the segment whose linear interpolation was worst (SKaMPI, "
              "Reussner et al. 1998 §3.2), on top of the geometric grid")


def added_sizes(launches: Sequence[Any]) -> set[tuple[str, str, int]]:
    """(alternative, op, size) that some launch measured as an added size (`--sizes auto`);
    `launches`: `mpimeter.analysis.LaunchInfo`s."""
    return {(li.alternative, t.op, t.size) for li in launches for t in li.meta.tests if t.size_added}


def nrep_text(metas: Sequence[Any]) -> str:
    """`300`, or for `--nrep auto` the rule and what it gave: repetitions per test (range and
    median) and why the tests stopped."""
    rules = [m.config.nrep_auto for m in metas if m.config.nrep_auto is not None]
    if not rules:
        fixed = sorted({m.config.nrep for m in metas if m.config.nrep is not None})
        return ", ".join(map(str, fixed)) or "?"
    r = rules[0]
    level = f" at {r.confidence:.0%}" if r.confidence is not None else ""
    head = (f"auto:{r.rule} (precision {r.precision:g}{level}, {r.min}–{r.max} repetitions, "
            f"decided every {r.every}, budget {r.budget_s:g} s per test)")
    counts = sorted(t.nrep for m in metas for t in m.tests if t.adaptive is not None and t.nrep is not None)
    if not counts:
        return head
    why = Counter(t.adaptive.stopped_by for m in metas for t in m.tests if t.adaptive is not None)
    stops = ", ".join(f"{reason} {why[reason]}" for reason in ("precision", "max", "budget") if why[reason])
    return (f"{head}: {counts[0]}–{counts[-1]} per test (median {counts[len(counts) // 2]}); "
            f"stopped by {stops}")


def launches_text(record: CampaignRecord | None) -> str | None:
    """Where `--launches auto` stopped the pairs, from campaign.json (None: not adaptive)."""
    rule = record.adaptive_launches if record is not None else None
    if not isinstance(rule, dict):
        return None
    pairs = [p for p in rule.get("pairs") or [] if isinstance(p, dict)]
    why = Counter(p.get("status") for p in pairs)
    counts = sorted(p.get("launches") for p in pairs if isinstance(p.get("launches"), int))
    spread = f", {counts[0]}–{counts[-1]} launches per pair" if counts else ""
    return (f"--launches auto: until the interval of each (op, size)'s median across launches "
            f"(interpolated, at {rule.get('interval_level', '?'):.3g} for a nominal "
            f"{rule.get('confidence', 0):.0%}) lay within ±{rule.get('precision', 0):g} of it, "
            f"{rule.get('min')}–{rule.get('max')} launches: {len(pairs)} pairs, "
            f"{why['precision']} stopped for precision, {why['max']} at the maximum, "
            f"{why['more']} still open{spread}")
