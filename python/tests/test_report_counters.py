# SPDX-License-Identifier: BSD-3-Clause
"""The counters in the HTML report: the cost of looking above the fingerprints (read cost, and
the perturbation against the same tests without counters), and in every fingerprint of a test that
read counters their table and a scatter plot per explaining counter; nothing of it without
counters; names from the files escaped."""

from __future__ import annotations

import re

from data.synth import write_campaign
from data.synth_counters import add_counters, follows, independent

from mpimeter import analysis
from mpimeter.report.html_report import build_report


def _campaigns(tmp_path, name="bytes_sent"):
    root = tmp_path / "cost"
    write_campaign(root / "plain", 6, seed=1, nrep=60, schema=2)
    write_campaign(root / "counters", 6, seed=2, nrep=60, schema=2)
    for i, folder in enumerate(sorted((root / "counters" / "launches").iterdir())):
        add_counters(folder, {name: follows, "queue": independent}, seed=i, left_out=(("mtl_x", "crashed"),))
    return root


def test_the_report_shows_the_counters_and_the_cost_of_looking(tmp_path):
    result = analysis.analyze(analysis.load_campaign(_campaigns(tmp_path)))
    text, fingerprints = build_report(result, analysis.compare(result))
    assert "Counters and the cost of looking" in text
    costs = text[text.index('id="counters-cost"'):text.index("One MPI-MiBFi")]
    assert "plain → counters" in costs and "150 ns" in costs
    assert "1 performance variable(s) not read" in costs and "mtl_x: crashed" in costs
    tests = {(r.op, r.size) for r in result.rows}
    assert text.count('class="counters"') == len(tests)  # the fingerprints of the alternative with counters
    assert len(re.findall(r'aria-label="bytes_sent against run time"', text)) == len(tests)
    assert 'aria-label="queue against run time"' not in text  # only counters that explain are drawn


def test_no_counters_no_section(tmp_path):
    root = tmp_path / "plain"
    write_campaign(root, 3, seed=1, nrep=40, schema=2)
    text, _ = build_report(analysis.analyze(analysis.load_campaign(root)))
    assert "cost of looking" not in text and 'class="counters"' not in text


def test_counter_names_are_escaped(tmp_path):
    result = analysis.analyze(analysis.load_campaign(_campaigns(tmp_path, name="b<script>x")))
    text, _ = build_report(result)
    assert "<script>" not in text and "b&lt;script&gt;x" in text
