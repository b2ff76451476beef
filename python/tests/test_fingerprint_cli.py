# SPDX-License-Identifier: BSD-3-Clause
"""`mpimeter fingerprint`: one figure per test, in the format of the extension; exit 2 on bad input."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from data.report.synth_campaign import golden
from test_fingerprint_select import warmup_rules  # noqa: F401 (a fixture)

from mpimeter.cli.fingerprint import command


def run(*args):
    return CliRunner().invoke(command, [str(a) for a in args])


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return tmp_path_factory.mktemp("fp-cli")


@pytest.mark.parametrize("suffix, magic", [(".png", b"\x89PNG\r\n\x1a\n"), (".svg", b"<?xml"),
                                           (".pdf", b"%PDF")])
def test_writes_the_figure(root, tmp_path, suffix, magic):
    out = tmp_path / f"fp{suffix}"
    r = run(golden("one_library", root), "--op", "allreduce", "--size", 1024, "-o", out, "--no-cache")
    assert r.exit_code == 0, r.output
    assert f"wrote {out}" in r.output
    data = out.read_bytes()
    assert data.startswith(magic)
    if suffix == ".svg":
        assert "MPI-MiBFi" in data.decode()


def test_png_is_large_enough_to_read(root, tmp_path):
    from PIL import Image

    out = tmp_path / "fp.png"
    assert run(golden("one_launch", root), "--op", "bcast", "--size", 8, "-o", out).exit_code == 0
    with Image.open(out) as image:
        assert image.size == (1430, 1474)  # 13 × 13.4 in at 110 dpi


def test_an_alternative_is_chosen_by_name(root, tmp_path, warmup_rules):
    campaign = golden("two_alternatives", root)
    r = run(campaign, "--op", "bcast", "--size", 8, "-o", tmp_path / "a.png")
    assert r.exit_code == 2
    assert "openmpi, mpich" in r.output
    assert warmup_rules == []  # refused before anything was analysed
    r = run(campaign, "--op", "bcast", "--size", 8, "--alt", "mpich", "-o", tmp_path / "a.png")
    assert r.exit_code == 0, r.output
    # the warm-up test (most of an analysis's time) ran on the 8 launches of mpich's bcast 8 alone
    assert warmup_rules.count("rank") == 8 and len(warmup_rules) == 2 * 8 * 6


@pytest.mark.parametrize("args, message", [
    (("--op", "alltoall", "--size", 8), "no operation 'alltoall' in one_library; it has: allreduce, bcast\n"),
    (("--op", "bcast", "--size", 7), "no size 7 for bcast in one_library; it has: 8, 1024, 65536\n"),
    # it has bcast 8, at another p: where it was measured, not "no size 8 …; it has: 8"
    (("--op", "bcast", "--size", 8, "--np", 4), "bcast 8 of one_library was measured at p = 2 only, not at p = 4\n"),
    (("--op", "bcast", "--size", 8, "--alt", "mpich"), "no alternative 'mpich'; the campaign has one_library\n"),
    (("--op", "bcast", "--size", 8, "-o", "fp.jpg"), "unknown figure format '.jpg'"),
])
def test_bad_requests_exit_2_with_a_message(root, tmp_path, monkeypatch, warmup_rules, args, message):
    monkeypatch.chdir(tmp_path)
    r = run(golden("one_library", root), *args)
    assert r.exit_code == 2
    assert message in r.output
    assert warmup_rules == []  # refused before anything was analysed


def test_a_folder_that_is_no_campaign_exits_2(tmp_path):
    (tmp_path / "empty").mkdir()
    r = run(tmp_path / "empty", "--op", "bcast", "--size", 8, "-o", tmp_path / "x.png")
    assert r.exit_code == 2
    assert "mpimeter fingerprint: error:" in r.output


def test_one_number_of_work_pieces_is_drawn_when_named(tmp_path):
    # mw-workpieces at --workpieces 1,4,16: --workpieces names one (the others would pool three
    # results), and without it the refusal says to
    from click.testing import CliRunner
    from test_analysis_workpieces import pieces_campaign

    from mpimeter.cli import main

    camp = pieces_campaign(tmp_path / "c")
    out = tmp_path / "fp.svg"
    r = CliRunner().invoke(main, ["fingerprint", str(camp), "--op", "mw-workpieces", "--size", "8",
                                  "--workpieces", "16", "-o", str(out)])
    assert r.exit_code == 0, r.output
    assert "16 workpieces" in out.read_text()
    r = CliRunner().invoke(main, ["fingerprint", str(camp), "--op", "mw-workpieces", "--size", "8", "-o", str(out)])
    assert r.exit_code == 2 and "name one with --workpieces" in r.output, r.output
    r = CliRunner().invoke(main, ["fingerprint", str(camp), "--op", "mw-workpieces", "--size", "8",
                                  "--workpieces", "5", "-o", str(out)])
    assert r.exit_code == 2 and "not at 5 workpieces" in r.output, r.output
