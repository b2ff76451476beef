# SPDX-License-Identifier: BSD-3-Clause
"""One source of truth: `mpimeter run` and `mpimeter sync-check` take the bench's options from its
`--describe` document and refuse a bad value with the bench's own words, before anything is
launched. The cases are generated from the description, so a new option is covered by itself."""

from __future__ import annotations

import math
import subprocess
import sys

import pytest
from click.testing import CliRunner

from mpimeter.campaign import describe, launcher
from mpimeter.io import bench_binaries
from mpimeter.cli import main

BENCH = launcher.bench_binary(launcher.default_bench_dir(), "openmpi")
DESC = describe.describe(BENCH)


def _bound_cases(mode: str):
    """(option, value) just outside each numeric option's range, in `mode`."""
    cases = []
    for o in DESC.options_for(mode):
        if o.type not in ("int", "float", "uint64") or o.min is None:
            continue
        low = o.min if o.min_exclusive else (o.min - 1 if o.type != "float" else o.min - 0.5)
        cases.append((o, low))
        if o.max is not None and o.type != "uint64":
            cases.append((o, o.max + 1 if o.type != "float" else o.max * 2))
    return cases


def _text(value) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def _bench_says(args: list[str]) -> str:
    done = subprocess.run([str(BENCH), "--validate", "2", *args], capture_output=True, text=True)
    assert done.returncode == 2, (args, done.stdout)
    (line,) = done.stderr.strip().splitlines()
    return line.removeprefix("mpimeter-bench: ")


@pytest.fixture
def recorder(tmp_path):
    """A launcher template that records that it ran."""
    marker = tmp_path / "launched"
    script = tmp_path / "launch.py"
    script.write_text(f"import pathlib; pathlib.Path({str(marker)!r}).write_text('ran')\n")
    return f"{sys.executable} {script} {{np}} {{cmd}}", marker


@pytest.mark.parametrize("option,value", _bound_cases("bench"),
                         ids=[f"{o.name}={v}" for o, v in _bound_cases("bench")])
def test_run_refuses_every_bound_with_the_binarys_words(option, value, recorder, tmp_path):
    template, marker = recorder
    text = _text(value)
    extra = ["--procsync", "roundtime"] if option.name in ("bcast_factor", "roundtime-budget-s") else []
    expected = _bench_says([option.flag, text, *extra])
    out = tmp_path / "c"
    r = CliRunner().invoke(main, ["run", "--mpi", "openmpi", "--np", "2", "--launcher", template,
                                  "--out", str(out), option.flag, text, *extra])
    assert r.exit_code == 2, r.output
    assert r.output.strip() == f"mpimeter run: error: {expected}"
    assert not marker.exists() and not out.exists()


@pytest.mark.parametrize("option,value", _bound_cases("sync-check"),
                         ids=[f"{o.name}={v}" for o, v in _bound_cases("sync-check")])
def test_sync_check_refuses_every_bound_with_the_binarys_words(option, value, recorder):
    template, marker = recorder
    text = _text(value)
    extra = ["--timer", "virtual"] if option.name in ("seed", "virtual-offset-s", "virtual-skew-ppm") else []
    expected = _bench_says(["--sync-check", option.flag, text, *extra])
    r = CliRunner().invoke(main, ["sync-check", "--mpi", "openmpi", "--launcher", template,
                                  option.flag, text, *extra])
    assert r.exit_code == 2, r.output
    assert r.output.strip() == f"mpimeter sync-check: error: {expected}"
    assert not marker.exists()


def test_every_bench_option_is_an_option_of_run_and_its_help_says_so():
    r = CliRunner().invoke(main, ["run", "--help"])
    assert r.exit_code == 0
    for o in DESC.options_for("bench"):
        assert o.flag in r.output, o.name
    # the ones a campaign sets per launch are not offered
    for name in ("out", "seed", "force"):
        assert DESC.option(name).per_launch and "--force" not in r.output
    assert "[bench]" in r.output


def test_the_description_is_read_once_per_binary(monkeypatch):
    describe._describe_cached.cache_clear()
    bench_binaries._printed.cache_clear()  # the document's one reader, below the typed records
    calls = []
    real = subprocess.run

    def counting(args, *a, **kw):
        calls.append(args)
        return real(args, *a, **kw)

    monkeypatch.setattr(describe.subprocess, "run", counting)
    for _ in range(3):
        describe.describe(BENCH)
    assert len([c for c in calls if "--describe" in c]) == 1


def test_a_rebuilt_binary_is_asked_again(tmp_path):
    copy = tmp_path / "mpimeter-bench"
    copy.write_bytes(BENCH.read_bytes())
    copy.chmod(0o755)
    first = describe.describe(copy)
    # a "rebuild": a binary of the same path with another size and mtime
    script = tmp_path / "mpimeter-bench"
    script.write_text(f"#!/bin/sh\nexec {BENCH} \"$@\"\n")
    script.chmod(0o755)
    assert describe.describe(script) is not first


def test_a_description_of_another_version_is_refused():
    with pytest.raises(describe.DescribeError, match="describe_version 99"):
        describe.parse({"describe_version": 99}, BENCH)


def test_check_value_covers_the_types():
    nrep = DESC.option("nrep")
    assert describe.check_value(DESC, nrep, "300") is None
    assert describe.check_value(DESC, nrep, "3x") == "--nrep: '3x' is not a whole number; allowed: " + nrep.allowed
    window = DESC.option("window-us")
    assert describe.check_value(DESC, window, "auto") is None
    assert "is not a number" in describe.check_value(DESC, window, "nan")
    assert math.isfinite(window.max)
    # below the clocks' nanosecond: refused from the bound --describe gives, as the binary refuses it
    assert describe.check_value(DESC, window, "1e-300") == ("--window-us: 1e-300 is out of range; allowed: "
                                                            + window.allowed)
    assert describe.check_value(DESC, window, f"{window.min:g}") is None and window.min == 0.001
    ops = DESC.option("ops")
    assert describe.check_value(DESC, ops, "bcast,allreduce") is None
    assert describe.check_value(DESC, ops, "bcast,nope").startswith("--ops: unknown operation 'nope'")


def test_the_secret_words_are_the_binarys_own_and_io_reads_them_below_the_campaign():
    """One reader of --describe (io.bench_binaries) for the typed description and for the words
    io.redact redacts by; the campaign's built binaries are among the ones it asks."""
    assert bench_binaries.secret_words(BENCH) == tuple(DESC.environment["secret_words"])
    assert "TOK" in bench_binaries.built_secret_words()
    bench_dir = launcher.default_bench_dir()
    assert set(launcher.found_libraries(bench_dir)) <= set(bench_binaries.built_libraries(bench_dir))
    from mpimeter.io import redact
    assert set(bench_binaries.built_secret_words()) <= set(redact.reading_rule().words)


def test_a_binary_that_cannot_describe_itself_is_refused_with_what_went_wrong(tmp_path):
    missing = tmp_path / "nothing"
    with pytest.raises(describe.DescribeError, match="nothing"):
        describe.describe(missing)
    failing = tmp_path / "mpimeter-bench"
    failing.write_text("#!/bin/sh\necho broken >&2\nexit 3\n")
    failing.chmod(0o755)
    with pytest.raises(describe.DescribeError, match="exited 3: broken"):
        bench_binaries.secret_words(failing)
    other = tmp_path / "other-version"
    other.write_text('#!/bin/sh\necho \'{"describe_version": 7, "environment": {"secret_words": ["X"]}}\'\n')
    other.chmod(0o755)
    with pytest.raises(describe.DescribeError, match="describe_version 7"):
        bench_binaries.secret_words(other)


def test_a_message_quotes_a_bounded_excerpt_of_the_value_as_the_binary_does():
    limit = DESC.limits["quoted_value"]
    window = DESC.option("window-us")
    value = "1" * 5000 + "x"
    python = describe.check_value(DESC, window, value)
    assert python == f"--window-us: '{'1' * limit}...' is not a number; allowed: {window.allowed}"
    binary = subprocess.run([str(BENCH), "--validate", "2", "--window-us", value], capture_output=True, text=True,
                            timeout=30, env=bench_binaries.singleton_env())
    assert binary.returncode == 2 and binary.stderr.strip() == "mpimeter-bench: " + python
    # a control character is quoted as '?', and no UTF-8 character is cut in half
    assert describe.check_value(DESC, window, "1\x1b[2J") == f"--window-us: '1?[2J' is not a number; allowed: {window.allowed}"
    assert describe.quoted_value("é" * 100, limit) == "é" * (limit // 2) + "..."


def test_an_option_whose_zero_means_off_takes_zero_or_at_least_its_minimum():
    resync = DESC.option("resync-s")
    assert resync.zero_allowed and resync.min == 1e-9
    assert describe.check_value(DESC, resync, "0") is None
    assert describe.check_value(DESC, resync, "1e-9") is None
    assert describe.check_value(DESC, resync, "1e-300") == ("--resync-s: 1e-300 is out of range; allowed: "
                                                            "0, or a number from 1e-09 to 1000000")
    assert not DESC.option("window-us").zero_allowed
    assert describe.check_value(DESC, DESC.option("window-us"), "0") is not None
