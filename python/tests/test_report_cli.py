"""`mpimeter report`: writes one HTML file; compares alternatives when it can; exit 2 on bad input."""

from __future__ import annotations

from click.testing import CliRunner
from data.report.synth_campaign import golden

from mpimeter.cli import main
from mpimeter.cli.report import command


def run(*args):
    return CliRunner().invoke(command, [str(a) for a in args])


def test_writes_the_report_and_says_where(tmp_path):
    out = tmp_path / "r.html"
    r = run(golden("one_library", tmp_path), "-o", out, "--no-cache")
    assert r.exit_code == 0, r.output
    assert r.output.startswith(f"wrote {out} (")
    assert "6 fingerprints" in r.output
    text = out.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>")
    assert "Tukey&#x27;s fences, k = 1.5" in text


def test_options_reach_the_analysis(tmp_path):
    out = tmp_path / "r.html"
    r = run(golden("one_library", tmp_path), "-o", out, "--outlier", "trim25", "--confidence", "0.9",
            "--title", "My <campaign>")
    assert r.exit_code == 0, r.output
    text = out.read_text(encoding="utf-8")
    assert "<title>My &lt;campaign&gt;</title>" in text
    assert "SKaMPI: the 25 % fastest and 25 % slowest removed" in text
    assert "90% CI" in text


def test_alternatives_are_compared_with_the_hypothesis_asked(tmp_path):
    out = tmp_path / "r.html"
    r = run(golden("two_alternatives", tmp_path), "-o", out, "--alternative", "less")
    assert r.exit_code == 0, r.output
    text = out.read_text(encoding="utf-8")
    assert "hypothesis less" in text
    assert "openmpi vs mpich" in text


def test_two_folders_are_two_alternatives(tmp_path):
    a = golden("one_library", tmp_path / "a")
    b = golden("one_launch", tmp_path / "b")
    out = tmp_path / "r.html"
    r = run(a, b, "-o", out)
    assert r.exit_code == 0, r.output
    text = out.read_text(encoding="utf-8")
    assert 'data-alternative="one_library"' in text and 'data-alternative="one_launch"' in text
    # one launch is too few to compare: the report says so instead of failing
    assert "The alternatives were not compared" in text


def test_bad_input_exits_2(tmp_path):
    (tmp_path / "empty").mkdir()
    r = run(tmp_path / "empty", "-o", tmp_path / "r.html")
    assert r.exit_code == 2
    assert "mpimeter report: error:" in r.output
    assert not (tmp_path / "r.html").exists()


def test_an_output_folder_that_does_not_exist_exits_2(tmp_path):
    r = run(golden("one_library", tmp_path), "-o", tmp_path / "no" / "r.html")
    assert r.exit_code == 2
    assert "does not exist" in r.output


def test_registered_in_the_main_command():
    assert {"report", "fingerprint"} <= set(main.commands)
