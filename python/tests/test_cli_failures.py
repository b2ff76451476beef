# SPDX-License-Identifier: BSD-3-Clause
"""Every failure of the analysis commands is one line `mpimeter <cmd>: error: …` and exit 2, never a
traceback; nothing partial is left behind; names read from files never steer the terminal; CSV
cells never start a formula."""

import json
import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from click.testing import CliRunner
from data.synth import write_campaign, write_launch
from data.testkit import golden_copy

from mpimeter.cli import main
from mpimeter.cli.output import csv_cell, terminal_text

LONG = "x" * 300  # longer than any file name may be (255 bytes)


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def one_line_error(r, command):
    assert r.exit_code == 2, r.output
    assert r.stderr.startswith(f"mpimeter {command}: error: ") and r.stderr.count("\n") == 1, r.stderr
    assert "Traceback" not in r.output
    return r.stderr


def _mount(folder: Path, options: str) -> None:
    if os.geteuid() != 0:
        pytest.skip("mounting a small file system for this test needs root")
    folder.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(folder)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")


@pytest.fixture
def tiny_disk(tmp_path):
    """A 16 KiB file system: a report or a figure does not fit."""
    folder = tmp_path / f"tiny-{uuid.uuid4().hex[:6]}"
    _mount(folder, "size=16k")
    yield folder
    subprocess.run(["umount", str(folder)], check=False)


@pytest.fixture
def read_only(tmp_path):
    """A folder nobody may write into (a read-only mount as root, where permissions do not stop
    root; a folder without write permission otherwise)."""
    folder = tmp_path / f"ro-{uuid.uuid4().hex[:6]}"
    if os.geteuid() == 0:
        _mount(folder, "ro,size=16k")
        yield folder
        subprocess.run(["umount", str(folder)], check=False)
    else:
        folder.mkdir()
        folder.chmod(0o555)
        yield folder
        folder.chmod(0o755)


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    return write_campaign(tmp_path_factory.mktemp("c") / "camp", 3, seed=1, nrep=20)


def test_file_names_too_long(tmp_path, campaign):
    err = one_line_error(run("analyze", tmp_path / LONG), "analyze")
    assert err.endswith(f"{tmp_path / LONG}: File name too long\n")
    err = one_line_error(run("report", campaign, "-o", tmp_path / f"{LONG}.html"), "report")
    assert "File name too long" in err
    err = one_line_error(run("fingerprint", campaign, "--op", "bcast", "--size", "8", "-o", tmp_path / f"{LONG}.png"),
                         "fingerprint")
    assert "File name too long" in err
    assert list(tmp_path.iterdir()) == []  # nothing written


def test_read_only_output_folders(read_only, campaign):
    err = one_line_error(run("report", campaign, "-o", read_only / "report.html"), "report")
    assert f"{read_only / 'report.html'}: " in err and ("Read-only file system" in err or "Permission denied" in err)
    err = one_line_error(run("fingerprint", campaign, "--op", "bcast", "--size", "8", "-o", read_only / "fp.png"),
                         "fingerprint")
    assert f"{read_only / 'fp.png'}: " in err
    assert list(read_only.iterdir()) == []


def test_a_full_disk_leaves_no_partial_file(tiny_disk, campaign):
    (tiny_disk / "report.html").write_text("the previous report")
    err = one_line_error(run("report", campaign, "-o", tiny_disk / "report.html"), "report")
    assert f"{tiny_disk / 'report.html'}: No space left on device" in err
    assert (tiny_disk / "report.html").read_text() == "the previous report"  # kept whole, not overwritten
    err = one_line_error(run("fingerprint", campaign, "--op", "bcast", "--size", "8", "-o", tiny_disk / "fp.png"),
                         "fingerprint")
    assert "No space left on device" in err
    assert sorted(p.name for p in tiny_disk.iterdir()) == ["report.html"]  # no .tmp, no empty PNG


def test_stdout_on_a_full_disk(campaign):
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full here")
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "mpimeter", "analyze", "--no-cache", str(campaign)], stdout=full,
                              stderr=subprocess.PIPE, text=True)
    assert done.returncode == 2
    assert done.stderr == "mpimeter analyze: error: cannot write the output: No space left on device\n"


def test_deeply_nested_json(tmp_path):
    camp = write_campaign(tmp_path / "c", 2, seed=2, nrep=10)
    (camp / "campaign.json").write_text("[" * 200_000 + "]" * 200_000)
    err = one_line_error(run("analyze", camp), "analyze")
    assert "campaign.json: nests arrays or objects too deeply" in err
    (camp / "campaign.json").unlink()
    meta = camp / "launches" / "000" / "meta.json"
    meta.write_text('{"schema_version": 1, "x": ' + "{\"a\": " * 100_000 + "1" + "}" * 100_001)
    err = one_line_error(run("report", camp, "-o", tmp_path / "r.html"), "report")
    assert "meta.json: nests arrays or objects too deeply" in err


def test_names_from_files_never_steer_the_terminal(tmp_path):
    evil_op = "bc\x1b[2Jast"
    evil_alt = tmp_path / "alt\x1b]0;pwned\x07"
    write_launch(evil_alt / "launches" / "000", seed=3, nrep=10, ops=(evil_op,), sizes=(8,))
    write_launch(tmp_path / "plain" / "launches" / "000", seed=4, nrep=10, ops=(evil_op,), sizes=(8,))
    r = run("analyze", "--no-cache", evil_alt, tmp_path / "plain")
    assert r.exit_code == 0, r.output
    assert "\x1b" not in r.stdout and "\x07" not in r.stdout
    assert "bc\\x1b[2Jast" in r.stdout and "alt\\x1b]0;pwned\\x07" in r.stdout
    # a host name in a warning, and a folder name in an error message
    meta = tmp_path / "plain" / "launches" / "000" / "meta.json"
    m = json.loads(meta.read_text())
    for rank in m["ranks"]:
        rank["host"] = "node\x1b[31m"
    meta.write_text(json.dumps(m))
    write_launch(tmp_path / "plain" / "launches" / "001", seed=5, nrep=10, ops=(evil_op,), sizes=(8,))
    r = run("analyze", "--no-cache", "--allow-mixed", tmp_path / "plain")
    assert r.exit_code == 0 and "\x1b" not in r.stdout and "node\\x1b[31m" in r.stdout
    err = one_line_error(run("analyze", tmp_path / "gone\x1b[31m"), "analyze")
    assert "\x1b" not in err and "gone\\x1b[31m" in err


def test_csv_cells_never_start_a_formula(tmp_path):
    for op in ("=HYPERLINK(1)", "@SUM(1)", "-cmd", "+x"):
        shutil.rmtree(tmp_path / "c", ignore_errors=True)
        write_launch(tmp_path / "c" / "launches" / "000", seed=6, nrep=10, ops=(op,), sizes=(8,))
        r = run("analyze", "--no-cache", "--format", "csv", tmp_path / "c")
        assert r.exit_code == 0, r.output
        row = r.stdout.splitlines()[1]
        assert f",'{op}," in row
    assert csv_cell("-12.5") == "-12.5" and csv_cell("+1e3") == "+1e3" and csv_cell(-3) == -3
    assert csv_cell("a\x1bb") == "a\\x1bb" and csv_cell(None) == "" and csv_cell([1, 2]) == "1;2"


def test_terminal_text_escapes_controls_and_bidi_but_not_text():
    assert terminal_text("µs → 2 ranks") == "µs → 2 ranks"
    assert terminal_text("a\x1b[2Jb\x9b\u202e") == "a\\x1b[2Jb\\x9b\\u202e"
    assert terminal_text("a\nb\tc") == "a\nb\tc" and terminal_text("a\nb", one_line=True) == "a\\x0ab"


def test_golden_bad_input_stays_one_line(tmp_path):
    for case in ("bad_meta_json", "unknown_schema", "malformed_raw"):
        one_line_error(run("report", golden_copy(tmp_path, case), "-o", tmp_path / f"{case}.html"), "report")
        assert not (tmp_path / f"{case}.html").exists()
