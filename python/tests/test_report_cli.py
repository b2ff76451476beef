# SPDX-License-Identifier: BSD-3-Clause
"""`mpimeter report`: writes one HTML file; compares alternatives when it can; exit 2 on bad input."""

from __future__ import annotations

import re
import warnings

import pytest
from click.testing import CliRunner
from data.report.synth_campaign import LaunchSpec
from data.report.synth_campaign import write_campaign as write_alternatives
from data.synth import write_campaign, write_launch

from mpimeter.cli import main
from mpimeter.cli.report import command


def run(*args):
    return CliRunner().invoke(command, [str(a) for a in args])


# What these tests check is the command (its options, outputs and refusals), not the report's
# content (test_report_html): small campaigns, 2 operations × 3 sizes, no warm-up to look for.
SMALL = LaunchSpec(nrep=40, warmup_reps=0)


def small_campaign(folder, *, launches: int = 3, seed: int = 1):
    return write_alternatives(folder, SMALL, launches=launches, seed=seed)


@pytest.fixture(scope="module")
def one_report(tmp_path_factory):
    """One report of a small campaign, to an .HTM name, read by the tests that check what any
    report of it holds and that refuse before reading it: (the campaign, the report, the
    command's result)."""
    root = tmp_path_factory.mktemp("one-report")
    folder, out = small_campaign(root / "c"), root / "R.HTM"
    return folder, out, run(folder, "-o", out, "--no-cache")


def test_writes_the_report_and_says_where(one_report):
    _, out, r = one_report
    assert r.exit_code == 0, r.output
    assert r.output.startswith(f"wrote {out} (")
    assert "6 fingerprints" in r.output
    text = out.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>")
    assert "Tukey&#x27;s fences, k = 1.5" in text


def test_options_reach_the_analysis(one_report, tmp_path):
    out = tmp_path / "r.html"
    r = run(one_report[0], "-o", out, "--outlier", "trim25", "--confidence", "0.9",
            "--title", "My <campaign>")
    assert r.exit_code == 0, r.output
    text = out.read_text(encoding="utf-8")
    assert "<title>My &lt;campaign&gt;</title>" in text
    assert "SKaMPI: the 25 % fastest and 25 % slowest removed" in text
    assert "90% CI" in text


def test_alternatives_are_compared_with_the_hypothesis_asked(tmp_path):
    folder = write_alternatives(tmp_path / "c", {"openmpi": SMALL, "mpich": LaunchSpec(
        nrep=40, warmup_reps=0, library="mpich", slowdown=1.3)}, launches=3, seed=2)
    out = tmp_path / "r.html"
    r = run(folder, "-o", out, "--alternative", "less")
    assert r.exit_code == 0, r.output
    text = out.read_text(encoding="utf-8")
    assert "hypothesis less" in text
    assert "openmpi vs mpich" in text


def test_two_folders_are_two_alternatives(tmp_path):
    a = small_campaign(tmp_path / "a" / "one_library")
    b = small_campaign(tmp_path / "b" / "one_launch", launches=1, seed=3)
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


def test_an_output_folder_that_does_not_exist_exits_2(one_report, tmp_path):
    r = run(one_report[0], "-o", tmp_path / "no" / "r.html")
    assert r.exit_code == 2
    assert "does not exist" in r.output


def test_registered_in_the_main_command():
    assert {"report", "fingerprint"} <= set(main.list_commands(None))


@pytest.mark.parametrize("name", ["r.pdf", "r", "r.html.txt", "r.png"])
def test_an_output_that_is_not_html_exits_2(one_report, tmp_path, name):
    r = run(one_report[0], "-o", tmp_path / name)
    assert r.exit_code == 2
    assert "mpimeter report: error:" in r.output and ".html or .htm" in r.output
    assert not (tmp_path / name).exists()


def test_an_htm_output_is_fine(one_report):
    _, out, r = one_report
    assert out.suffix == ".HTM"
    assert r.exit_code == 0, r.output
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_two_folders_are_both_named_in_the_title(tmp_path):
    base = write_campaign(tmp_path / "base", 3, seed=1, ops=("bcast",), sizes=(8,), nrep=30)
    cand = write_campaign(tmp_path / "cand", 3, seed=2, ops=("bcast",), sizes=(8,), nrep=30)
    out = tmp_path / "r.html"
    r = run(base, cand, "-o", out)
    assert r.exit_code == 0, r.output
    text = out.read_text(encoding="utf-8")
    assert f"<title>mpimeter report — {base} vs {cand}</title>" in text
    assert f"<h1>mpimeter report — {base} vs {cand}</h1>" in text
    assert f"from {base}, {cand}." in text


def test_one_folder_is_the_title(one_report):
    folder, out, r = one_report
    assert r.exit_code == 0, r.output
    assert f"<title>mpimeter report — {folder}</title>" in out.read_text(encoding="utf-8")


def test_the_mean_is_shown_as_a_point_value_without_an_interval(tmp_path):
    # two launches 5 × apart: a t interval of their means would be [0 ns, …]; the report shows the
    # mean alone and says why
    for i, factor in enumerate((1.0, 5.0)):
        write_launch(tmp_path / "c" / "launches" / f"{i:03d}", seed=i, launch_factor=factor,
                     ops=("bcast",), sizes=(8,), nrep=30)
    out = tmp_path / "r.html"
    r = run(tmp_path / "c", "-o", out)
    assert r.exit_code == 0, r.output
    text = out.read_text(encoding="utf-8")
    assert not re.search(r"\[0 ns, ", text) and "mean (t interval)" not in text
    assert "mean of the per-launch means, a point value (no interval" in text


def test_all_repetitions_invalid_draws_without_warnings(tmp_path):
    folder = write_campaign(tmp_path / "c", 3, seed=4, ops=("bcast",), sizes=(8, 1024), nrep=20,
                            invalid_fraction=1.0)
    out = tmp_path / "r.html"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # matplotlib's "No artists with labels" would fail here
        r = run(folder, "-o", out)
    assert r.exit_code == 0, r.output
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_one_folder_given_twice_is_refused_naming_both(one_report, tmp_path):
    """The same campaign twice (another spelling of its path) would be two alternatives of the
    same launches; the refusal advised renaming one of the two folders, which cannot help."""
    folder = one_report[0]
    for args in ([folder, f"{folder}/"], [folder, folder.parent / ".." / folder.parent.name / folder.name]):
        r = run(*args, "-o", tmp_path / "r.html")
        assert r.exit_code == 2 and r.output.count("\n") == 1, r.output
        assert f"{args[0]} and {args[1]} are the same folder; allowed: each campaign once" in r.output
        assert "rename" not in r.output and not (tmp_path / "r.html").exists()
    for verb in ("analyze", "compare"):
        r = CliRunner().invoke(main, [verb, str(folder), f"{folder}/"])
        assert r.exit_code == 2 and "are the same folder" in r.output, r.output
