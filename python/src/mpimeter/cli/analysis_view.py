# SPDX-License-Identifier: BSD-3-Clause
"""The `analyze` table of one analysis result on the terminal (shared by `mpimeter analyze` and
what `mpimeter run` shows after a campaign): one row per (op, size) — every estimate followed by
its interval — the nonblocking table, the notes and the warnings."""

from __future__ import annotations

import math

from rich.table import Table

from mpimeter import analysis
from mpimeter.analysis.choices import WARMUP_RULE_TEXT
from mpimeter.cli.common import fmt_est, fmt_p, fmt_ratio, fmt_time, print_warnings
from mpimeter.cli.counters_view import print_counters
from mpimeter.cli.output import console, terminal_text
from mpimeter.units import format_rate, format_size


def overhead_subtracted(res: analysis.AnalysisResult) -> tuple[str, ...]:
    """Which tables had the empty-region time subtracted (--subtract-overhead, SKaMPI §3.1):
    ``alternative: op, op (k of n launches)`` per alternative with such launches."""
    from mpimeter.io.overhead import subtracts  # numpy: not before the command line is parsed

    out = []
    for alt in res.alternatives:
        launches = res.campaign.launches_of(alt)
        used = [li for li in launches if li.meta is not None and subtracts(li.meta.tests)]
        if used:
            ops = sorted({t.op for li in used for t in li.meta.tests if t.overhead_ns is not None})
            out.append(f"{alt}: {', '.join(ops)} ({len(used)} of {len(launches)} launches)")
    return tuple(out)


def overhead_kept(res: analysis.AnalysisResult) -> str | None:
    """The tests whose overhead was not subtracted because the result would have been below the
    timer's resolution (io.overhead): ``alternative/op/size (k launches)``, or None."""
    kept = res.campaign.reductions.overhead_kept
    if not kept:
        return None
    from mpimeter.io.overhead import MIN_TIMER_STEPS

    tests = {(li.alternative, li.index): {t.test: t for t in li.meta.tests} for li in res.campaign.launches}
    counts: dict[str, int] = {}
    for alt, launch, test in kept:
        t = tests[(alt, launch)][test]
        counts[f"{alt}/{t.op}/{t.size}"] = counts.get(f"{alt}/{t.op}/{t.size}", 0) + 1
    return (f"overhead not subtracted where the result would be below {MIN_TIMER_STEPS} timer steps (Hoefler & "
            "Belli §4.2.1; kept as measured): "
            + ", ".join(f"{k} ({n} launch{'es' if n > 1 else ''})" for k, n in sorted(counts.items())))


def print_analysis(res: analysis.AnalysisResult, *, per_launch: bool, title: str | None = None) -> None:
    from mpimeter.analysis.results import MEAN_NOTE  # loaded with the result it prints

    con = console()
    several = len(res.alternatives) > 1
    pct = f"{100 * res.settings.confidence:g} %"
    t = Table(title=f"mpimeter analyze {title or res.campaign.path}", title_justify="left")
    if several:
        t.add_column("alternative")
    show_p, show_root = analysis.scaling.varies(res.rows), analysis.scaling.varies(res.rows, "root")
    show_pieces = analysis.scaling.varies(res.rows, "workpieces")
    for name, just in (("op", "left"), ("size", "right"), *((("p", "right"),) if show_p else ()),
                       *((("root", "right"),) if show_root else ()),
                       *((("workpieces", "right"),) if show_pieces else ()), ("launches", "right"),
                       (f"median [{pct} CI]", "right"), ("mean", "right"), ("spread", "right"),
                       ("removed", "right"), ("invalid", "right"), ("warm-up", "right")):
        t.add_column(name, justify=just)
    has_bw = any(r.bandwidth_Bps is not None for r in res.rows)
    if has_bw:
        t.add_column("bandwidth (harmonic)", justify="right")
    has_one_way = any(r.one_way for r in res.rows)
    if has_one_way:
        t.add_column("time", justify="left")
    for r in res.rows:
        mean = fmt_time(r.mean_ns)  # a point value: no interval (analysis.results.MEAN_NOTE)
        if r.normal is False:
            mean += " †"
        cells = [r.op, format_size(r.size, res.size_unit(r.op)), *([str(r.nprocs)] if show_p else []),
                 *([_root(r.root)] if show_root else []), *([_root(r.workpieces)] if show_pieces else []),
                 str(r.launches), fmt_est(r.median_ns, r.median_ci_low_ns, r.median_ci_high_ns),
                 mean, f"{r.spread:.3f}" if math.isfinite(r.spread) else "–",
                 f"{r.outliers_removed}/{r.repetitions}", str(r.invalid), str(r.warmup_max)]
        if has_bw:
            cells.append(format_rate(r.bandwidth_Bps))
        if has_one_way:
            cells.append(time_kind(r.one_way))
        t.add_row(*([r.alternative] if several else []), *cells)
    con.print(t)
    print_scaling(con, res, pct)
    print_states(con, res, pct)
    print_allocations(con, res, pct)
    if res.nbc_rows:
        con.print(nbc_table(res, several))
    con.print(f"clock: {res.clock_note}")
    if has_one_way:
        con.print(f"time one-way: {analysis.ONE_WAY_NOTE}")
    overhead = res.measurement_overhead
    if overhead:
        con.print(f"{analysis.OVERHEAD_LABEL}: "
                  + "; ".join(terminal_text(o.text(name_alternative=several)) for o in overhead)
                  + f" — {analysis.OVERHEAD_NOTE}")
    for b in res.back_to_back:
        dims = _dims_label(b, p=show_p, root=show_root, pieces=show_pieces)
        con.print(f"{b.alternative + ' ' if several else ''}{b.op} {format_size(b.size, res.size_unit(b.op))}"
                  f"{dims}{' (one-way)' if b.one_way else ''}: {terminal_text(b.text())}")
    if res.back_to_back:
        from mpimeter.analysis.back_to_back import BACK_TO_BACK_NOTE

        con.print(f"back-to-back: {BACK_TO_BACK_NOTE}")
    subtracted = overhead_subtracted(res)
    if subtracted:
        from mpimeter.io.overhead import SUBTRACTED_NOTE

        con.print(f"overhead subtracted: {'; '.join(subtracted)} — {SUBTRACTED_NOTE}")
    if (kept := overhead_kept(res)) is not None:
        con.print(kept)
    con.print(f"outlier filter: {res.settings.outlier}; median interval: Le Boudec order statistics over "
              f"per-launch medians; mean: {MEAN_NOTE} "
              f"(† = Shapiro–Wilk rejects normality of the per-launch means); "
              f"spread = max/min of per-launch medians; warm-up rule: {WARMUP_RULE_TEXT[res.settings.warmup_rule]}"
              + ("; warm-up dropped" if res.settings.drop_warmup else ""))
    print_counters(con, res)
    if per_launch:
        lt = Table(title="per launch", title_justify="left")
        one_way_ops = {r.op for r in res.rows if r.one_way}
        for name in ("alternative", "launch", "op", "size", "clock", "n", "removed", "invalid", "median", "mean",
                     "p99", "CoV", "warm-up") + (("time",) if one_way_ops else ()):
            lt.add_column(name, justify="left" if name in ("alternative", "op", "clock", "time") else "right")
        for s in res.launch_summaries:
            lt.add_row(s.alternative, f"{s.launch:03d}", s.op, format_size(s.size, res.size_unit(s.op)), s.clock, str(s.n), str(s.removed),
                       str(s.n_invalid), fmt_time(s.median_ns), fmt_time(s.mean_ns), fmt_time(s.p99_ns),
                       f"{s.cov:.3f}" if math.isfinite(s.cov) else "–", str(s.warmup_length),
                       *((time_kind(s.op in one_way_ops),) if one_way_ops else ()))
        con.print(lt)
    print_warnings(con, res.warnings)


def _root(root: int | None) -> str:
    return "–" if root is None else str(root)


def _dims_label(key, *, p: bool = False, root: bool = False, pieces: bool = False) -> str:
    """What tells a line's row from the others of its (op, size) when the rows vary in it:
    `` (p=4, root 1, 16 workpieces)``; "" when nothing does."""
    parts = [*([f"p={key.nprocs}"] if p else []),
             *([f"root {key.root}"] if root and key.root is not None else []),
             *([f"{key.workpieces} workpieces"] if pieces and key.workpieces is not None else [])]
    return f" ({', '.join(parts)})" if parts else ""


def print_scaling(con, res: analysis.AnalysisResult, pct: str) -> None:
    """Time against p (Hoefler & Belli 2015 §5.1) per (alternative, op, size[, root]):
    one column per p, the median of per-launch medians with its interval; and the root's effect
    per (op, size, p) where the tests ran at several roots."""
    series = list(res.scaling)
    if series:
        counts = sorted({p.nprocs for s in series for p in s.points})
        several = len({s.alternative for s in series}) > 1
        rooted = any(s.root is not None for s in series)
        # as the main table: mw-workpieces' series of one root differ in their pieces
        pieces = analysis.scaling.varies(series, "workpieces")
        t = Table(title=f"scaling: median [{pct} CI] against p (processes)", title_justify="left")
        for name in ((["alternative"] if several else []) + ["op", "size"] + (["root"] if rooted else [])
                     + (["workpieces"] if pieces else [])):
            t.add_column(name, justify="left" if name in ("alternative", "op") else "right")
        for p in counts:
            t.add_column(f"p={p}", justify="right")
        t.add_column(f"p={counts[-1]}/p={counts[0]}", justify="right")
        for s in series:
            at = {p.nprocs: p for p in s.points}
            first, last = at.get(counts[0]), at.get(counts[-1])
            ratio = (last.median_ns / first.median_ns if first and last and first.median_ns > 0 else math.nan)
            t.add_row(*([s.alternative] if several else []), s.op, format_size(s.size, res.size_unit(s.op)),
                      *([_root(s.root)] if rooted else []), *([_root(s.workpieces)] if pieces else []),
                      *[fmt_est(at[p].median_ns, at[p].low_ns, at[p].high_ns) if p in at else "" for p in counts],
                      fmt_ratio(ratio))
        con.print(t)
        print_scaling_bounds(con, res, series, counts, several, rooted, pieces)
    effects = analysis.scaling.root_effects(res.rows)
    if effects:
        t = Table(title="root effect: per (op, size, p), the roots' medians", title_justify="left")
        pieces = analysis.scaling.varies(effects, "workpieces")
        for name in ("alternative", "op", "size", "p", *(("workpieces",) if pieces else ()), "roots", "fastest",
                     "slowest", "max/min", "p-value", "ε²"):
            t.add_column(name, justify="left" if name in ("alternative", "op", "roots") else "right")
        for e in effects:
            t.add_row(e.alternative, e.op, format_size(e.size, res.size_unit(e.op)), str(e.nprocs),
                      *([_root(e.workpieces)] if pieces else []),
                      ",".join(map(str, e.roots)), f"{e.fastest_root} ({fmt_time(e.min_ns)})",
                      f"{e.slowest_root} ({fmt_time(e.max_ns)})", fmt_ratio(e.ratio),
                      "–" if e.p_value is None else f"{e.p_value:.3g}",
                      "–" if e.epsilon_squared is None or not math.isfinite(e.epsilon_squared)
                      else f"{e.epsilon_squared:.2f}")
        con.print(t)
        con.print(f"root effect: {effects[0].test}, 0 none … 1 the roots' launches do not overlap (Hoefler & Belli "
                  f"2015 §3.2.2) (– : fewer than 2 launches at a root)")


def print_scaling_bounds(con, res: analysis.AnalysisResult, series, counts: list[int], several: bool,
                         rooted: bool, pieces: bool = False) -> None:
    """Hoefler & Belli's lines per p (§5.1, rule 11): each p's lower bound with bound / median,
    where the bound model has one, and what lies below the ideal line or the bound."""
    if any(pt.bound_ns is not None for s in series for pt in s.points):
        t = Table(title="scaling: lower bound at each p (bound / median)", title_justify="left")
        for name in ((["alternative"] if several else []) + ["op", "size"] + (["root"] if rooted else [])
                     + (["workpieces"] if pieces else [])):
            t.add_column(name, justify="left" if name in ("alternative", "op") else "right")
        for p in counts:
            t.add_column(f"p={p}", justify="right")
        for s in series:
            at = {pt.nprocs: pt for pt in s.points}
            cells = [f"{fmt_time(at[p].bound_ns)} ({100 * at[p].bound_fraction:.0f} %)"
                     if p in at and at[p].bound_ns is not None and at[p].bound_fraction is not None else
                     ("–" if p in at else "") for p in counts]
            t.add_row(*([s.alternative] if several else []), s.op, format_size(s.size, res.size_unit(s.op)),
                      *([_root(s.root)] if rooted else []), *([_root(s.workpieces)] if pieces else []), *cells)
        con.print(t)
        con.print(analysis.scaling.LOWER_BOUND)
    con.print(analysis.scaling.IDEAL)
    for s in series:
        name = (f"{s.alternative + ' ' if several else ''}{s.op} {format_size(s.size, res.size_unit(s.op))}"
                f"{_dims_label(s, root=rooted, pieces=pieces)}")
        if s.beyond():
            con.print(f"{name}: below the ideal line (faster than at p={s.points[0].nprocs}) at p = "
                      + ", ".join(map(str, s.beyond())))
        if s.beats():
            con.print(f"{name}: median below its lower bound at p = " + ", ".join(map(str, s.beats()))
                      + " (data in cache, or the bound's premise does not hold)")
    reasons = sorted({s.no_bound for s in series if s.no_bound})
    for why in reasons[:4]:
        con.print(f"no lower bound: {why}")


def print_states(con, res: analysis.AnalysisResult, pct: str) -> None:
    """Per explained state (analysis.strata): each row's median and interval of the state's
    launches, with the state's share, beside the pooled median."""
    rows = [r for r in res.rows if r.per_state]
    if not rows:
        return
    t = Table(title="per state (launches in groups a recorded property explains)", title_justify="left")
    show_p = analysis.scaling.varies(res.rows)
    for name in ("alternative", "op", "size", *(("p",) if show_p else ()), "state", "launches (share)",
                 f"median [{pct} CI]", "spread", "pooled median"):
        t.add_column(name, justify="left" if name in ("alternative", "op", "state") else "right")
    for r in rows:
        for sr in r.per_state:
            t.add_row(r.alternative, r.op, format_size(r.size, res.size_unit(r.op)),
                      *([str(r.nprocs)] if show_p else []), sr.stratum,
                      f"{sr.launches} ({100 * sr.share:.0f} %)",
                      fmt_est(sr.median_ns, sr.median_ci_low_ns, sr.median_ci_high_ns),
                      f"{sr.spread:.3f}" if math.isfinite(sr.spread) else "–", fmt_time(r.median_ns))
    con.print(t)
    for s in res.states:
        if s.explained:
            con.print(f"states of {s.label}: " + "; ".join(
                f"{st.name}: {len(st.launches)} launches, {', '.join(st.values[:3])}" for st in s.states)
                + f" — {s.property}; {s.test}" + (f"; in no state: {', '.join(f'{i:03d}' for i in s.unplaced)}"
                                                    if s.unplaced else ""))


def print_allocations(con, res: analysis.AnalysisResult, pct: str) -> None:
    """Per row whose launches ran in several Slurm allocations (analysis.allocations): the spread
    of the per-launch medians between allocations beside the one between launches of one."""
    if not res.allocations:
        return
    t = Table(title="variance components: between Slurm allocations and between launches "
                    "(standard deviations of the per-launch medians)", title_justify="left")
    for name in ("alternative", "op", "size", "p", "allocations (launches)", "between allocations",
                 f"between launches [{pct} CI]", f"allocation share [{pct} CI]", "p (no allocation effect)",
                 "p (Holm)"):
        t.add_column(name, justify="left" if name in ("alternative", "op", "allocations (launches)") else "right")
    for c in res.allocations:
        share = "–" if c.allocation_share is None else \
            f"{100 * c.allocation_share:.0f} % [{100 * c.allocation_share_low:.0f}, {100 * c.allocation_share_high:.0f}]"
        t.add_row(c.alternative, c.op, format_size(c.size, res.size_unit(c.op)), str(c.nprocs),
                  ", ".join(f"{a} ({n})" for a, n in zip(c.allocations, c.launches)),
                  fmt_time(math.sqrt(c.between_allocations_ns2)),
                  fmt_est(math.sqrt(c.between_launches_ns2), math.sqrt(c.between_launches_low_ns2),
                          math.sqrt(c.between_launches_high_ns2)), share, fmt_p(c.p_value), fmt_p(c.p_adjusted))
    con.print(t)


def state_table(rows, a: str, b: str, *, pairs: bool = False) -> Table:
    """Per matched state of each stratified row: the launches and medians of both sides; with
    ``pairs`` (compare of more than two groups: several pairs per row) the pair, and the
    row's p and root where the rows hold several, so that no two lines read alike."""
    t = Table(title="per state", title_justify="left")
    show_p, show_root = (len({getattr(r, k) for r in rows}) > 1 for k in ("nprocs", "root"))
    for name in (*(("pair",) if pairs else ()), "op", "size", *(("p",) if show_p else ()),
                 *(("root",) if show_root else ()), "state", f"launches {a}/{b}", a, b, f"{b}/{a} (medians)"):
        t.add_column(name, justify="left" if name in ("pair", "op", "state") else "right")
    for r in rows:
        for s in r.per_state:
            t.add_row(*((f"{r.a} vs {r.b}",) if pairs else ()), r.op, str(r.size), *([str(r.nprocs)] if show_p else []),
                      *([("–" if r.root is None else str(r.root))] if show_root else []), s.stratum,
                      f"{s.launches_a}/{s.launches_b}", fmt_time(s.median_a_ns), fmt_time(s.median_b_ns),
                      fmt_ratio(s.ratio_of_medians))
    return t


def time_kind(one_way: bool) -> str:
    """The "time" column: what a row's times are."""
    return "one-way" if one_way else "run time"


def nbc_table(res: analysis.AnalysisResult, several: bool) -> Table:
    """Nonblocking collectives: overhead against the blocking time, and the overlap figures
    (analysis.nbc; medians over launches of per-launch medians)."""
    pct = f"{100 * res.settings.confidence:g} %"
    t = Table(title="nonblocking collectives: overhead and overlap (NBCBench; IMB and OSU definitions beside)",
              title_justify="left")
    if several:
        t.add_column("alternative")
    # a launch of several roots (--root LIST) has one row per root: without its column the rows of
    # one size read alike with different numbers (as the main table, which shows it)
    show_p, show_root = (analysis.scaling.varies(res.nbc_rows, k) for k in ("nprocs", "root"))
    for name in ("op", "size", *(("p",) if show_p else ()), *(("root",) if show_root else ()), "scheme", "tests",
                 f"overhead [{pct} CI]", "init", "test", "wait", "blocking", "compute", "total", "overlap", "IMB",
                 "OSU"):
        t.add_column(name, justify="left" if name in ("op", "scheme") else "right")
    for r in res.nbc_rows:
        t.add_row(*([r.alternative] if several else []), r.op, format_size(r.size, res.size_unit(r.op)),
                  *([str(r.nprocs)] if show_p else []), *([_root(r.root)] if show_root else []), r.scheme,
                  str(r.tests_per_rep), fmt_est(r.overhead_ns, r.overhead_ci_low_ns, r.overhead_ci_high_ns),
                  fmt_time(r.init_ns), fmt_time(r.test_ns), fmt_time(r.wait_ns), fmt_time(r.blocking_ns),
                  fmt_time(r.compute_ns), fmt_time(r.total_ns), f"{100 * r.overlap:.0f} %",
                  f"{100 * r.overlap_imb:.0f} %", f"{100 * r.overlap_osu:.0f} %")
    return t
