# SPDX-License-Identifier: BSD-3-Clause
"""`mpimeter run --suite FILE` with the fake bench (data/fakebench.py; the real binary answers
--describe): a suite becomes one campaign recorded in campaign.json, every key of the file is
checked as the command line's option is (one line, exit 2, nothing written), and an option given
both in the suite and on the command line is refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from data.fakebench import cli, fake_env, one_line_error, template  # noqa: F401 (fake_env: a fixture)

from mpimeter.campaign import state as st

GOOD = """
name = "mine"
[run]
sizes = [8, 64]
nrep = 5
[[measurement]]
name = "rooted"
ops = ["bcast", "reduce"]
[[measurement]]
name = "all"
ops = ["allreduce", "scan"]
nrep = 5
[[comparison]]
name = "reduce or scan"
ops = ["reduce", "scan"]
"""


def _opts(tmp: Path) -> list[str]:
    return ["--launcher", template(tmp), "--mpi", "openmpi", "--np", "2", "--no-analyze"]


def _suite(tmp: Path, text: str) -> Path:
    path = tmp / "suite.toml"
    path.write_text(text)
    return path


def test_a_suite_is_one_campaign_recorded_in_campaign_json(fake_env):
    tmp, _ = fake_env
    out = tmp / "c"
    result = cli([*_opts(tmp), "--suite", str(_suite(tmp, GOOD)), "--launches", "1", "--out", str(out)])
    assert result.exit_code == 0, result.output
    disk = json.loads((out / "campaign.json").read_text())
    # the measurements' operations joined, the options as the command line would have given them
    assert disk["bench_args"][:6] == ["--ops", "bcast,reduce,allreduce,scan", "--sizes", "8,64", "--nrep", "5"]
    suite = disk["suite"]
    assert suite["name"] == "mine" and suite["text"] == GOOD and suite["file"].endswith("suite.toml")
    assert suite["measurements"] == [{"name": "rooted", "ops": ["bcast", "reduce"]},
                                     {"name": "all", "ops": ["allreduce", "scan"]}]
    assert suite["comparisons"] == [{"name": "reduce or scan", "ops": ["reduce", "scan"]}]
    assert suite["options"] == {"sizes": "8,64", "nrep": "5", "ops": "bcast,reduce,allreduce,scan"}
    # --resume reads it back (and writes it again as it was)
    assert st.load(out).suite == suite
    result = cli(["--resume", str(out), "--no-analyze", "--launcher", template(tmp)])
    assert result.exit_code == 0, result.output
    assert json.loads((out / "campaign.json").read_text())["suite"] == suite


MEASURE = '[[measurement]]\nops = ["bcast"]\n'


@pytest.mark.parametrize("text, message", [
    ("x = = 1", "not TOML: "),
    ("colour = 1\n" + MEASURE, "top level: unknown key 'colour'; allowed: name, description, run"),
    ("[run]\nlauncher = 'sh -c x'\n" + MEASURE, "[run]: unknown key 'launcher'; allowed: the options of `mpimeter run`"),
    ("[run]\nbench-dir = '/tmp'\n" + MEASURE, "unknown key 'bench-dir'"),
    ("[run]\nout = '/tmp/x'\n" + MEASURE, "unknown key 'out'"),
    (MEASURE + "colour = 'red'\n", "[[measurement]] 1: unknown key 'colour'"),
    ("[run]\nnrep = 'abc'\n" + MEASURE, "[run] nrep: nrep = 'abc': --nrep: 'abc' is not a whole number"),
    ("[run]\nnrep = 0\n" + MEASURE, "nrep = '0'"),
    ("[run]\nprocsync = 'fastest'\n" + MEASURE, "procsync = 'fastest'"),
    ("[run]\nseed = 'x'\n" + MEASURE, "seed = 'x': Invalid value for '--seed'"),
    ("[run]\nlaunches = 'many'\n" + MEASURE, "launches = 'many'"),
    ("[run]\nsubtract-overhead = 1\n" + MEASURE, "subtract-overhead is a flag: expected true or false"),
    ("[run]\nnrep = true\n" + MEASURE, "nrep: expected text, a number or a list of them, found true/false"),
    ("[run]\nvariant = ['v=LD_PRELOAD=/x.so']\n" + MEASURE, "'LD_PRELOAD' is not on the allow-list"),
    ("[run]\nops = ['bcast']\n" + MEASURE, "[run]: ops belong to the measurements"),
    ('[[measurement]]\nops = ["bcastx"]\n', "[[measurement]] 1 ops: --ops: unknown operation 'bcastx'"),
    ('[[measurement]]\nname = "m"\nops = []\n', "[[measurement]] 1 (m) ops: expected a list of operation names"),
    ("name = 'x'\n", "no [[measurement]]"),
    ("[run]\nsizes = '8'\n" + MEASURE + "sizes = '16'\n",
     "[[measurement]] 1 sizes: '16', but [run] gives '8': one campaign runs one sizes for every operation"),
    (MEASURE + '[[comparison]]\nops = ["bcast", "reduce"]\n', "[[comparison]] 1 ops: 'reduce' is not measured"),
    (MEASURE + '[[comparison]]\nops = ["bcast", "bcast"]\n', "expected two different operation names"),
    (MEASURE + '[[comparison]]\nops = ["bcast"]\ncolour = 1\n', "[[comparison]] 1: unknown key 'colour'"),
    ("run = 3\n" + MEASURE, "run: expected a table [run], found a number"),
])
def test_a_bad_suite_exits_2_in_one_line_and_writes_nothing(fake_env, text, message):
    tmp, _ = fake_env
    path = _suite(tmp, text)
    line = one_line_error(cli([*_opts(tmp), "--suite", str(path), "--launches", "1", "--out", str(tmp / "c")]))
    assert f"--suite {path}: " in line and message in line, line
    assert not (tmp / "c").exists()


@pytest.mark.parametrize("path, message", [
    ("/dev/zero", "holds more than 1 MiB"),
    ("missing.toml", "cannot read it"),
])
def test_a_suite_that_is_no_readable_file_is_refused(fake_env, path, message):
    tmp, _ = fake_env
    target = path if path.startswith("/") else str(tmp / path)
    line = one_line_error(cli([*_opts(tmp), "--suite", target, "--out", str(tmp / "c")]))
    assert message in line, line


def test_a_suite_that_is_not_utf8_is_refused(fake_env):
    tmp, _ = fake_env
    path = tmp / "suite.toml"
    path.write_bytes(b"name = '\xff'\n")
    assert "not UTF-8 text" in one_line_error(cli([*_opts(tmp), "--suite", str(path), "--out", str(tmp / "c")]))


@pytest.mark.parametrize("given", [["--nrep", "7"], ["--ops", "bcast"], ["--sizes", "8,64"]])
def test_an_option_in_the_suite_and_on_the_command_line_is_refused(fake_env, given):
    """Even with the same value: neither silently wins."""
    tmp, _ = fake_env
    line = one_line_error(cli([*_opts(tmp), "--suite", str(_suite(tmp, GOOD)), *given, "--out", str(tmp / "c")]))
    assert f"{given[0]} is given on the command line and in --suite" in line, line
    assert not (tmp / "c").exists()


def test_resume_refuses_a_suite_and_a_tampered_record(fake_env):
    tmp, _ = fake_env
    out = tmp / "c"
    assert cli([*_opts(tmp), "--suite", str(_suite(tmp, GOOD)), "--launches", "1", "--out", str(out)]).exit_code == 0
    line = one_line_error(cli(["--resume", str(out), "--suite", str(tmp / "suite.toml")]))
    assert "do not also give --suite" in line
    disk = json.loads((out / "campaign.json").read_text())
    disk["suite"]["comparisons"] = [{"name": "x", "ops": "reduce"}]
    (out / "campaign.json").write_text(json.dumps(disk))
    line = one_line_error(cli(["--resume", str(out), "--no-analyze", "--launcher", template(tmp)]))
    assert "suite.comparisons[0]" in line, line


def test_the_sample_suite_parses_with_skampis_measurements(fake_env):
    """examples/suites/skampi.toml: every operation the binary knows, two comparisons of §6."""
    tmp, _ = fake_env
    sample = Path(__file__).resolve().parents[2] / "examples" / "suites" / "skampi.toml"
    out = tmp / "c"
    result = cli([*_opts(tmp), "--suite", str(sample), "--launches", "1", "--nrep", "2", "--out", str(out)])
    assert result.exit_code == 0, result.output
    suite = json.loads((out / "campaign.json").read_text())["suite"]
    assert [m["name"] for m in suite["measurements"]] == ["ping-pong", "master-worker", "collective", "simple"]
    assert {"pingpong-send-recv", "pingpong-ssend-recv", "reduce", "scan", "mw-waitsome"} <= set(
        suite["options"]["ops"].split(","))
    assert [c["ops"] for c in suite["comparisons"]] == [["mw-send", "mw-ssend"], ["reduce", "scan"]]


def test_without_a_toml_parser_a_suite_is_refused_in_one_line(fake_env, monkeypatch):
    """Python 3.10 without tomli installed: the one line says what to install."""
    from mpimeter.campaign import suite

    monkeypatch.setattr(suite, "tomllib", None)
    tmp, _ = fake_env
    line = one_line_error(cli([*_opts(tmp), "--suite", str(_suite(tmp, GOOD)), "--out", str(tmp / "c")]))
    assert "reading TOML needs Python 3.11 or the package tomli" in line


def test_without_a_binary_a_suite_is_refused_saying_so(fake_env):
    """The options a suite may set are the binary's: none found is said, not "unknown key"."""
    tmp, _ = fake_env
    (tmp / "empty").mkdir()
    line = one_line_error(cli(["--bench-dir", str(tmp / "empty"), "--suite", str(_suite(tmp, GOOD)),
                               "--out", str(tmp / "c")]))
    assert "no binary was found" in line, line
