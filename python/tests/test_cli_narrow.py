# SPDX-License-Identifier: BSD-3-Clause
"""Tables in a narrow terminal: with COLUMNS=80 every line of `mpimeter analyze` fits 80 columns
and no name or number loses a character (short columns stay whole, long ones wrap); without
COLUMNS a pipe or a log keeps 160 columns, rows whole."""

from __future__ import annotations

import io

from click.testing import CliRunner
from data.report.synth_campaign import LaunchSpec, write_campaign
from rich.table import Table

from mpimeter.cli import main
from mpimeter.cli.output import SafeConsole


def _analyze(path, env):
    r = CliRunner().invoke(main, ["analyze", str(path), "--no-cache"], env=env)
    assert r.exit_code == 0, r.output
    return r.stdout.splitlines()


def test_analyze_fits_80_columns_when_columns_says_so(tmp_path):
    # the report's one_library campaign (2 ops x 3 sizes, 6 launches: each row has its interval,
    # the widest cell) with 40 repetitions a launch instead of 200 (and a warm-up of 2, not 12,
    # so that none is long): the same table at a fifth of the analysis
    campaign = write_campaign(tmp_path / "one_library", LaunchSpec(nrep=40, warmup_reps=2), launches=6, seed=1)
    lines = _analyze(campaign, {"COLUMNS": "80"})
    assert max(len(line.rstrip()) for line in lines) <= 80, "\n".join(lines)
    rows = [line for line in lines if line.startswith(("allreduce ", "bcast "))]
    assert len(rows) == 6, "\n".join(lines)  # a row per (op, size), the op name whole
    assert all("…" not in line for line in lines)
    wide = _analyze(campaign, {"COLUMNS": None})
    assert max(len(line.rstrip()) for line in wide) > 80  # a pipe without COLUMNS: 160


def test_a_wide_table_folds_long_cells_and_keeps_short_ones_whole():
    t = Table(title="t")
    for name in ("operation", "size", "interval", "note"):
        t.add_column(name)
    t.add_row("allreduce", "64 KiB", "27.9 µs [26.4 µs, 28.8 µs]", "x" * 120)
    out = io.StringIO()
    SafeConsole(file=out, width=80, highlight=False, markup=False).print(t)
    text = out.getvalue()
    assert max(len(line.rstrip()) for line in text.splitlines()) <= 80, text
    assert "allreduce" in text and "64 KiB" in text and "[26.4 µs," in text
    assert text.count("x") == 120  # folded onto more lines, none lost
