# SPDX-License-Identifier: BSD-3-Clause
"""The report's summary says what the report below shows of each median and repetition as it is:
every interval or how many, every repetition or whose (imported aggregates have no fingerprint)."""

from pathlib import Path

from click.testing import CliRunner
from data.synth import write_campaign

from mpimeter import analysis
from mpimeter.cli import main
from mpimeter.report.html_report import build_report

PEERS = Path(__file__).resolve().parents[2] / "python" / "tests" / "data" / "peers"


def summary(folder: Path) -> str:
    html, _ = build_report(analysis.analyze(analysis.load_campaign(folder, cache=False, store=False)))
    start = html.index('id="summary"')
    return " ".join(html[start:html.index("</section>", start)].split())


def test_enough_launches_every_median_has_its_interval_and_every_repetition_a_fingerprint(tmp_path):
    camp = write_campaign(tmp_path / "c", 8, seed=4, ops=("bcast",), sizes=(8, 64))
    text = summary(camp)
    assert "Every median below comes with its interval; the fingerprints show every repetition." in text


def test_too_few_launches_and_imported_aggregates_are_not_said_to_have_them(tmp_path):
    few = write_campaign(tmp_path / "few", 2, seed=4, ops=("bcast",), sizes=(8, 64))
    assert "No median below has an interval (see the warnings: too few launches)" in summary(few)
    assert "comes with its interval" not in summary(few)
    imb = PEERS / "imb-pingpong-allreduce-bcast.txt"
    r = CliRunner().invoke(main, ["import", "imb", str(imb), "--out", str(tmp_path / "imb")])
    assert r.exit_code == 0, r.output
    text = summary(tmp_path / "imb")
    assert "no fingerprint is drawn:" in text and "show every repetition" not in text
