# SPDX-License-Identifier: BSD-3-Clause
"""One formatter of times, sizes and rates (mpimeter/units.py), 3 significant digits, used by the
CLI tables and the HTML report alike."""

import json
import re
from pathlib import Path

from click.testing import CliRunner
from data.testkit import golden_copy

from mpimeter import analysis
from mpimeter.cli.analyze import command, fmt_time
from mpimeter.report import html as h
from mpimeter.report.html_report import build_report
from mpimeter.units import DIGITS, NO_INTERVAL, format_bytes, format_interval, format_ns, format_number, format_rate, format_size


def test_three_significant_digits_and_exact_nanoseconds():
    assert DIGITS == 3
    assert format_ns(2623.4) == "2.62 µs" and format_ns(36_237.0) == "36.2 µs" and format_ns(842.0) == "842 ns"
    assert format_ns(1_234_567.0) == "1.23 ms" and format_ns(2.5e9) == "2.50 s" and format_ns(0.0) == "0 ns"
    assert format_ns(None) == "–" and format_ns(float("nan")) == "–" and format_ns(float("inf")) == "∞"
    assert fmt_time(2623.4) == format_ns(2623.4)  # the CLI's name for the same formatter


def test_sizes_and_rates_in_binary_units():
    assert format_bytes(65536) == "64 KiB" and format_bytes(1000) == "1000 B" and format_bytes(8) == "8 B"
    assert format_size(5000, "ns") == "5.00 µs delay" and format_size(65536, "bytes") == "64 KiB"
    assert format_rate(1.5 * 2**20) == "1.50 MiB/s" and format_rate(1.68 * 2**30) == "1.68 GiB/s"
    assert format_rate(512.0) == "512 B/s" and format_rate(None) == "–"


def test_the_cli_table_and_the_report_print_the_same_numbers(tmp_path):
    camp = golden_copy(tmp_path, "pingpong")
    table = CliRunner().invoke(command, [str(camp), "--no-cache"]).stdout
    result = analysis.analyze(analysis.load_campaign(camp, cache=False, store=False))
    html, _ = build_report(result)
    for r in result.rows:
        median, size, rate = format_ns(r.median_ns), format_bytes(r.size), format_rate(r.bandwidth_Bps)
        assert f"{median} [no interval]" in table and f" {size} " in table and rate in table
        assert f">{h.esc(median)}<" in html.replace("\n", "")
    out = json.loads(CliRunner().invoke(command, [str(camp), "--no-cache", "--format", "json"]).stdout)
    assert all(isinstance(row["median_ns"], float) for row in out["rows"])  # JSON keeps the full numbers


def test_one_spelling_of_a_missing_interval():
    assert format_interval(1200.0, 1500.0) == "[1.20 µs, 1.50 µs]"
    assert format_interval(0.98, 1.0512, lambda x: format_number(x, 4)) == "[0.9800, 1.051]"
    assert format_interval(None, 3.0) == format_interval(2.0, float("nan")) == NO_INTERVAL == "[no interval]"
    # nothing else in the package spells it: every table, report and message goes through units.py
    src = Path(__file__).resolve().parents[1] / "src" / "mpimeter"
    spelled = [str(p.relative_to(src)) for p in src.rglob("*.py")
               if re.search(r"[\"'][\[( ]*no interval", p.read_text(encoding="utf-8"))]
    assert spelled == ["units.py"]
