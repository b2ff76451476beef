# SPDX-License-Identifier: BSD-3-Clause
"""The default's number beside a back-to-back one (meta.json ``tests[].back_to_back``):

- per row whose launches recorded the companion, ``analyze`` (table and JSON) and the HTML
  report show "each call timed alone: M; back-to-back (OSU/IMB-style): B
  (M/B = r)", M the row's median and B the median over the launches of the companion's time per
  call, halved for a round trip as the row's repetitions are;
- launches without the field show no such line; a bad value is refused naming the key.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from data.synth import write_launch

from mpimeter import analysis
from mpimeter.cli.analyze import command as analyze_command
from mpimeter.report.html_report import build_report


def _launch(folder: Path, *, mean_ns: dict[int, float] | None, seed: int = 5, calls: int = 100) -> Path:
    """A ping-pong launch (round trip) at 8 B and 4 KiB whose tests carry a back-to-back
    companion of ``mean_ns[size]`` per call (None: the field is absent, as with --back-to-back 0)."""
    write_launch(folder, seed=seed, ops=("pingpong",), sizes=(8, 4096), nrep=60, schema=2)
    meta_path = folder / "meta.json"
    meta = json.loads(meta_path.read_text())
    meta["operations"]["pingpong"]["round_trip"] = True
    for t in meta["tests"]:
        if mean_ns is not None and t["size"] in mean_ns:
            t["back_to_back"] = {"calls": calls, "mean_ns": mean_ns[t["size"]]}
    meta_path.write_text(json.dumps(meta))
    return folder


def _analyze(folder: Path, **kw) -> analysis.AnalysisResult:
    return analysis.analyze(analysis.load_campaign(folder, cache=False, store=False), **kw)


def test_back_to_back_is_the_launches_median_in_the_rows_quantity(tmp_path):
    camp = tmp_path / "camp" / "launches"
    # round trips of 1000, 3000, 2000 ns at 8 B: one-way 500, 1500, 1000 -> median 1000 ns
    for i, rt in enumerate((1000.0, 3000.0, 2000.0)):
        _launch(camp / f"{i:03d}", mean_ns={8: rt}, seed=i, calls=100 - i)
    res = _analyze(tmp_path / "camp", outlier="none")
    (b,) = res.back_to_back  # 4096 B recorded none: no line for it
    row = res.row("pingpong", 8)
    assert (b.op, b.size, b.launches, b.calls, b.one_way) == ("pingpong", 8, 3, 98, True)
    assert b.back_to_back_ns == pytest.approx(1000.0)
    assert b.single_ns == pytest.approx(row.median_ns)
    assert b.ratio == pytest.approx(row.median_ns / 1000.0)
    assert b.text() == (f"each call timed alone: {analysis.results.format_ns(row.median_ns)}; "
                        f"back-to-back (OSU/IMB-style): 1.00 µs (M/B = {row.median_ns / 1000.0:.3g})")


def test_analyze_and_the_report_show_the_line(tmp_path):
    folder = _launch(tmp_path / "l", mean_ns={8: 800.0, 4096: 6000.0})
    res = _analyze(folder)  # as analyze's defaults
    lines = {b.size: b.text() for b in res.back_to_back}
    assert set(lines) == {8, 4096}
    out = " ".join(CliRunner().invoke(analyze_command, [str(folder)], terminal_width=240).output.split())
    for size, text in (("8 B", lines[8]), ("4 KiB", lines[4096])):
        assert f"pingpong {size} (one-way): {text}" in out
    assert "OSU's and IMB's figure" in out
    doc = json.loads(CliRunner().invoke(analyze_command, [str(folder), "--format", "json"]).output)
    by_size = {d["size"]: d for d in doc["back_to_back"]}
    assert by_size[8]["back_to_back_ns"] == pytest.approx(400.0)  # half the 800 ns round trip
    assert by_size[4096]["ratio"] == pytest.approx(by_size[4096]["single_ns"] / 3000.0)
    html, _ = build_report(res)
    assert "Single call and back-to-back" in html and "back-to-back (OSU/IMB-style)" in html


def test_without_the_field_nothing_is_shown(tmp_path):
    folder = _launch(tmp_path / "off", mean_ns=None)
    assert _analyze(folder).back_to_back == ()
    out = CliRunner().invoke(analyze_command, [str(folder)], terminal_width=240).output
    assert "back-to-back" not in out


@pytest.mark.parametrize("record, key", [({"calls": 0, "mean_ns": 5.0}, "calls"),
                                         ({"calls": 10, "mean_ns": -1.0}, "mean_ns"),
                                         ({"calls": 10}, "mean_ns")])
def test_a_bad_record_is_refused_naming_the_key(tmp_path, record, key):
    folder = _launch(tmp_path / "bad", mean_ns=None)
    meta = json.loads((folder / "meta.json").read_text())
    meta["tests"][0]["back_to_back"] = record
    (folder / "meta.json").write_text(json.dumps(meta))
    with pytest.raises(analysis.InputError, match=key):
        _analyze(folder)
