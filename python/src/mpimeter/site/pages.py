# SPDX-License-Identifier: BSD-3-Clause
"""The pages of the static site (``mpimeter site``), as HTML text. Layout of the folder:

```
index.html                          machines × libraries × operations, campaigns, machines
ops/<op>.html                       one operation on every machine and library (latest campaign of each)
campaigns/<id>.html                 one campaign: provenance, results
history/<series>/<op>.html          one series' operation: every size, latest median, link to its history
history/<series>/<op>-<size>.html   the median over time, campaigns the gate would have failed marked
history/<series>/<op>-<size>-w<N>.html   the same for mw-workpieces at N work pieces (one line per number)
```

Every page is rendered here from the store's data, never copied (a stored report could redirect
its reader with a ``<meta http-equiv=refresh>``, or hold anything else); each is the report's
page shell (``report.html.page``: a Content-Security-Policy that forbids scripts, every network
load, forms and a ``<base>``); every link is relative and points at a page this module names;
every text from the store is escaped.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import pandas as pd

from mpimeter import __version__
from mpimeter.report import html as h
from mpimeter.report.charts import Series as ChartSeries
from mpimeter.report.charts import history_chart, size_chart
from mpimeter.report.figures import ALTERNATIVE_COLORS
from mpimeter.site.data import (Series, SiteData, campaign_file, has_pieces, page_name, pieces_of, pieces_order,
                                pieces_text)
from mpimeter.site.history import Step
from mpimeter.units import format_bytes, format_interval, format_ns, format_rate

NAV = (("index.html", "Overview"),)


def op_page(op: str) -> str:
    return f"ops/{page_name('op', op)}.html"


def campaign_page(cid: str) -> str:
    return f"campaigns/{campaign_file(cid)}.html"


def history_op_page(series: Series, op: str) -> str:
    return f"history/{series.key}/{page_name('op', op)}.html"


def history_page(series: Series, op: str, size: int, workpieces: int | None = None) -> str:
    pieces = "" if workpieces is None else f"-w{int(workpieces)}"  # mw-workpieces: a history per number
    return f"history/{series.key}/{page_name('op', op)}-{int(size)}{pieces}.html"


def pieces_vary(data: SiteData, op: str) -> bool:
    """Does the store hold ``op`` at more than one number of work pieces (mw-workpieces)? Then its
    lines, rows and titles name theirs, as analyze's table shows the column only when it varies."""
    return len({pieces_of(w) for w in data.results.loc[data.results["op"] == op, "workpieces"]}) > 1


def _depth(path: str) -> str:
    return "../" * path.count("/")


def link(here: str, target: str, text: str, *, raw: bool = False) -> str:
    """A relative link from page ``here`` to page ``target`` (both site paths)."""
    return h.tag("a", text if raw else h.esc(text), href=_depth(here) + target)


def shell(here: str, title: str, body: str, generated: str) -> str:
    nav = h.tag("nav", link(here, "index.html", "Overview") + h.esc(f" · mpimeter {__version__} · {generated}"),
                class_="toc")
    return h.page(title, nav + h.tag("h1", h.esc(title)) + body)


def _num(x) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)


def _date(text) -> str:
    return str(text)[:16].replace("T", " ") if isinstance(text, str) and text else "–"


def colors(data: SiteData, shown: Sequence) -> dict:
    """The colours of the series one chart shows: each the colour its latest campaign's report
    gives it (the report colours an alternative by its position in the campaign), so that a
    library keeps its colour from report to site; a series whose colour an earlier one on the
    chart already took gets the first colour still free. ``shown``: Series, or (Series, work
    pieces) lines — a series' second line (mw-workpieces) gets the next free colour."""
    position = data.report_positions
    taken: dict = {}
    for s in shown:
        series = s if isinstance(s, Series) else s[0]
        wanted = ALTERNATIVE_COLORS[position.get(series, 0) % len(ALTERNATIVE_COLORS)]
        free = [c for c in ALTERNATIVE_COLORS if c not in taken.values()] or list(ALTERNATIVE_COLORS)
        taken[s] = wanted if wanted not in taken.values() else free[0]
    return taken


# ---------------------------------------------------------------------------------------------
# index


def index_html(data: SiteData, steps: dict[Series, list[Step]], generated: str) -> str:
    here = "index.html"
    r = data.results
    ops = sorted(set(r["op"]))
    body = [h.tag("p", h.esc(f"{len(data.campaigns)} campaign(s) on {data.campaigns['machine'].nunique()} "
                             f"machine(s) from the results store {data.store}."), class_="lead")]
    rows = []
    for s in data.series():
        mine = r[r["series"] == s]
        cells = []
        for op in ops:
            if (mine["op"] == op).any():
                cells.append(link(here, history_op_page(s, op), "history") + " · " + link(here, op_page(op), "compare"))
            else:
                cells.append("")
        rows.append([h.esc(s.where), h.esc(s.label)] + cells)
    body.append(h.section("matrix", "Machines × libraries × operations", h.tag("p", h.esc(
        "One row per machine (and Slurm partition, where the launches ran in one), MPI library (with its "
        "variant settings) and number of ranks; per operation, its history across campaigns and its "
        "comparison with every other machine and library.")) +
        h.table(["machine", "library, ranks"] + ops, rows, raw=True) if ops else h.tag("p", "No results.")))
    body.append(h.section("campaigns", "Campaigns", _campaign_table(here, data, steps)))
    body.append(h.section("machines", "Machines", _machine_table(data)))
    return shell(here, "mpimeter results", "".join(body), generated)


def _campaign_table(here: str, data: SiteData, steps: dict[Series, list[Step]]) -> str:
    failed = {st.campaign_id for ss in steps.values() for st in ss if st.failed}
    alts = data.alternatives
    rows = []
    for c in data.campaigns.itertuples():
        mine = alts[alts["campaign_id"] == c.campaign_id]
        libs = ", ".join(sorted({s.label for s in mine["series"]}))
        gate = "failed against the campaign before" if c.campaign_id in failed else ""
        rows.append([h.esc(_date(c.first_start)), link(here, campaign_page(c.campaign_id), str(c.name)),
                     h.esc(c.machine), h.esc(libs), h.esc(str(c.launches)), h.esc(gate)])
    return h.table(("date", "campaign", "machine", "libraries", "launches", "gate"), rows, raw=True)


def _machine_table(data: SiteData) -> str:
    alts = data.alternatives.merge(data.campaigns[["campaign_id", "first_start"]], on="campaign_id",
                                   suffixes=("", "_c"))
    rows = []
    # a cluster's partitions (Slurm) are listed per machine when its launches ran in any
    slurm = any(s.partition for s in alts["series"])
    for machine, g in alts.groupby(alts["series"].map(lambda s: s.machine), sort=True):
        # an undated campaign (an import: the tools print no start time) is not the latest
        last = g.sort_values("first_start_c", na_position="first").iloc[-1]
        partitions = sorted({p for s in g["series"] for p in s.partition.split(",") if p})
        rows.append((machine, *((", ".join(partitions) or "–",) if slurm else ()),
                     str(last.get("cpu_model") or "–"), str(last.get("kernel") or "–"),
                     str(int(last["ncpus"])) if pd.notna(last.get("ncpus")) else "–",
                     format_ns(_num(last.get("latency_floor_ns"))),
                     format_rate(_num(last.get("copy_bandwidth_Bps")))))
    return h.table(("machine", *(("Slurm partitions",) if slurm else ()), "CPU", "kernel", "CPUs",
                    "latency floor (latest)", "copy bandwidth (latest)"), rows)


# ---------------------------------------------------------------------------------------------
# one operation, every machine and library


def op_html(data: SiteData, op: str, generated: str) -> str:
    here = op_page(op)
    r = data.results[data.results["op"] == op]
    all_series = data.series()
    chart, table_rows, parts = [], {}, []
    latest = {}  # per (series, work pieces): a line (mw-workpieces has one per number of pieces)
    show_pieces = pieces_vary(data, op)
    for s in all_series:
        mine = r[r["series"] == s]
        if mine.empty:
            continue
        cid = mine.sort_values("first_start").iloc[-1]["campaign_id"]
        last = mine[mine["campaign_id"] == cid]
        for pieces in sorted({pieces_of(w) for w in last["workpieces"]}, key=pieces_order):
            latest[(s, pieces)] = last[has_pieces(last, pieces)].sort_values("size")
    color_of = colors(data, list(latest))
    for (s, pieces), rows in latest.items():
        label = f"{s.where}: {s.label}" + (pieces_text(pieces) if show_pieces else "")
        chart.append(ChartSeries(name=label, color=color_of[(s, pieces)], x=list(rows["size"].clip(lower=1)),
                                 y=list(rows["median_ns"]), low=[_num(x) for x in rows["median_ci_low_ns"]],
                                 high=[_num(x) for x in rows["median_ci_high_ns"]]))
        for row in rows.itertuples():
            table_rows.setdefault(int(row.size), {})[(s, pieces)] = row
    quantity = "one-way latency" if r["one_way"].any() else "run time"
    parts.append(h.tag("p", h.esc(f"{op} on every machine and library in the store: the latest campaign of each, "
                                  "the median of per-launch medians with its confidence interval.")))
    parts.append(h.tag("div", size_chart(chart, title=f"{op}: every machine and library", quantity=quantity),
                       class_="chart"))
    header = ["size"] + [f"{s.where}: {s.label}" + (pieces_text(w) if show_pieces else "") for s, w in latest]
    rows = []
    for size in sorted(table_rows):
        cells = [h.esc(format_bytes(size))]
        for line in latest:
            row = table_rows[size].get(line)
            cells.append("" if row is None else link(
                here, history_page(line[0], op, size, line[1]), format_ns(row.median_ns)) + " " + h.esc(
                format_interval(_num(row.median_ci_low_ns), _num(row.median_ci_high_ns))) + " " + link(
                here, campaign_page(row.campaign_id), "campaign"))
        rows.append(cells)
    parts.append(h.table(header, rows, raw=True))
    return shell(here, f"{op}: every machine and library", "".join(parts), generated)


# ---------------------------------------------------------------------------------------------
# one campaign


def campaign_html(data: SiteData, cid: str, has_report: bool, steps: dict[Series, list[Step]],
                  generated: str) -> str:
    here = campaign_page(cid)
    c = data.campaigns[data.campaigns["campaign_id"] == cid].iloc[0]
    alts = data.alternatives[data.alternatives["campaign_id"] == cid]
    parts = [h.key_values([("campaign id", cid), ("id from", c["id_source"]), ("machine", c["machine"]),
                           ("folder when added", c["path"]), ("started", _date(c["first_start"])),
                           ("ended", _date(c["last_end"])), ("launches", c["launches"]),
                           ("command", c["command"] or "–"), ("added to the store", _date(c["added"]))])]
    parts.append(h.tag("p", h.esc(
        "The store holds this campaign's HTML report; the site does not copy it (every page here is rendered "
        "from the store's data): write it again with mpimeter report on the campaign's folder." if has_report else
        "No report in the store for this campaign (added with --no-report).")))
    for a in alts.itertuples():
        facts = [("library", a.library_version or a.library), ("variant", a.variant or "none"),
                 ("ranks", a.nprocs), ("hosts", a.hosts), ("CPU", a.cpu_model or "–"), ("kernel", a.kernel or "–"),
                 ("compiler", a.compiler or "–"), ("launches", a.launches),
                 ("latency floor", format_ns(_num(a.latency_floor_ns))),
                 ("copy bandwidth", format_rate(_num(a.copy_bandwidth_Bps))), ("settings", a.bench_config)]
        parts.append(h.tag("h2", h.esc(f"Alternative {a.alternative}")) + h.key_values(facts))
        step = next((st for st in steps.get(a.series, []) if st.campaign_id == cid and st.alternative == a.alternative),
                    None)
        parts.append(_results_table(here, data, cid, a.alternative, a.series, step))
    return shell(here, f"Campaign {c['name']}", "".join(parts), generated)


def _gate_cell(step: Step | None, op: str, size: int, workpieces: int | None = None) -> str:
    if step is None or step.previous is None:
        return "first of its series"
    differs = f" — measured differently: {step.differs}" if step.differs else ""
    if step.problem:
        return step.problem + differs
    row = step.row(op, size, workpieces)
    if row is None:
        return "not in the campaign before" + differs
    return ("REGRESSION " if row.regression else "") + f"ratio {row.ratio:.3f}, p (Holm) {row.p_adjusted:.2g}" + differs


def _results_table(here: str, data: SiteData, cid: str, alternative: str, series: Series, step: Step | None) -> str:
    r = data.results
    mine = r[(r["campaign_id"] == cid) & (r["alternative"] == alternative) & (r["series"] == series)]
    mine = mine.assign(_pieces=[pieces_order(w) for w in mine["workpieces"]])
    mine = mine.sort_values(["op", "size", "_pieces"])
    show_pieces = len(set(mine["_pieces"])) > 1  # as analyze's table: the column only when it varies
    rows = []
    for row in mine.itertuples():
        frac, pieces = _num(row.bound_fraction), pieces_of(row.workpieces)
        rows.append([h.esc(row.op), h.esc(format_bytes(int(row.size))),
                     *([h.esc("–" if pieces is None else str(pieces))] if show_pieces else []),
                     h.esc(str(row.launches)),
                     link(here, history_page(series, row.op, int(row.size), pieces), format_ns(row.median_ns)),
                     h.esc(format_interval(_num(row.median_ci_low_ns), _num(row.median_ci_high_ns))),
                     h.esc("–" if frac is None else f"{100 * frac:.0f} %"),
                     h.esc(_gate_cell(step, row.op, int(row.size), pieces))])
    return h.table(("op", "size", *(("workpieces",) if show_pieces else ()), "launches", "median (history)",
                    "interval", "bound / median", "gate against the campaign before"), rows, raw=True)


# ---------------------------------------------------------------------------------------------
# history


def history_op_html(data: SiteData, series: Series, op: str, generated: str) -> str:
    here = history_op_page(series, op)
    r = data.results[(data.results["series"] == series) & (data.results["op"] == op)]
    show_pieces = pieces_vary(data, op)
    rows = []
    for (size, order), g in r.groupby(["size", r["workpieces"].map(pieces_order)], sort=True):
        pieces = None if order < 0 else int(order)
        last = g.sort_values("first_start").iloc[-1]
        rows.append([link(here, history_page(series, op, int(size), pieces), format_bytes(int(size))),
                     *([h.esc("–" if pieces is None else str(pieces))] if show_pieces else []),
                     h.esc(str(len(g))), h.esc(format_ns(last["median_ns"])),
                     h.esc(format_interval(_num(last["median_ci_low_ns"]), _num(last["median_ci_high_ns"])))])
    body = h.tag("p", h.esc(f"{op} on {series.where}, {series.label}: every size measured"
                            + (" at every number of work pieces" if show_pieces else "") + "; each links to its "
                            "history.")) + h.table(("size", *(("workpieces",) if show_pieces else ()), "campaigns",
                                                    "latest median", "interval"), rows, raw=True)
    body += h.tag("p", link(here, op_page(op), f"{op} on every machine and library"))
    return shell(here, f"{op} — {series.where}, {series.label}", body, generated)


def history_html(data: SiteData, series: Series, op: str, size: int, steps: list[Step], generated: str,
                 *, max_slowdown: float, alpha: float, workpieces: int | None = None) -> str:
    """The history of (op, size) — at ``workpieces`` work pieces for mw-workpieces — in ``series``."""
    here = history_page(series, op, size, workpieces)
    r = data.results
    r = r[(r["op"] == op) & (r["size"] == size)]
    r = r[has_pieces(r, workpieces)]
    shown = pieces_text(workpieces) if pieces_vary(data, op) else ""
    points, table = [], []
    by_campaign = {(st.campaign_id, st.alternative): st for st in steps}
    for st in steps:
        row = r[(r["campaign_id"] == st.campaign_id) & (r["alternative"] == st.alternative)]
        if row.empty:
            continue
        points.append((st, row.iloc[0]))
    names = {c.campaign_id: c for c in data.campaigns.itertuples()}
    labels = [_date(names[st.campaign_id].first_start)[:10] if st.campaign_id in names else "?" for st, _ in points]
    chart = ChartSeries(name=series.label + shown, color=colors(data, [series])[series], x=list(range(len(points))),
                        y=[float(p["median_ns"]) for _, p in points],
                        low=[_num(p["median_ci_low_ns"]) for _, p in points],
                        high=[_num(p["median_ci_high_ns"]) for _, p in points],
                        flagged=[by_campaign[(st.campaign_id, st.alternative)].regression(op, size, workpieces)
                         for st, _ in points],
                        joined=True)
    for st, p in points:
        c = names.get(st.campaign_id)
        version = data.alternatives[(data.alternatives["campaign_id"] == st.campaign_id)
                                    & (data.alternatives["alternative"] == st.alternative)]["library_version"]
        table.append([h.esc(_date(c.first_start) if c else "?"),
                      link(here, campaign_page(st.campaign_id), str(c.name) if c else st.campaign_id),
                      h.esc(str(version.iloc[0] or "–") if len(version) else "–"), h.esc(str(p["launches"])),
                      h.esc(format_ns(p["median_ns"])), h.esc(format_interval(_num(p["median_ci_low_ns"]),
                                                                 _num(p["median_ci_high_ns"]))),
                      h.esc(_gate_cell(st, op, size, workpieces) + ("; the gate failed at other sizes" if st.failed
                                                                    and not st.regression(op, size, workpieces)
                                                                    else ""))])
    body = (h.tag("p", h.esc(
        f"{op} at {format_bytes(size)}{shown} on {series.where}, {series.label}: the median of per-launch medians of "
        f"every campaign, oldest first, with its confidence interval. Ringed: `mpimeter gate` of the campaign "
        f"against the one before would have failed here (one-sided rank-sum of per-launch medians against the "
        f"earlier ones × {1 + max_slowdown:g}, Holm over the sizes and operations both have, α = {alpha:g}).")) +
        h.tag("div", history_chart([chart], title=f"{op}, {format_bytes(size)}{shown}: median over time",
                                   labels=labels),
              class_="chart") +
        h.table(("date", "campaign", "library version", "launches", "median", "interval",
                 "gate against the campaign before"), table, raw=True) +
        h.tag("p", link(here, history_op_page(series, op), f"every size of {op}") + " · " +
              link(here, op_page(op), f"{op} on every machine and library", )))
    return shell(here, f"{op} {format_bytes(size)}{shown} — {series.where}, {series.label}", body, generated)
