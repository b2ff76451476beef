# SPDX-License-Identifier: BSD-3-Clause
"""`mpimeter tune` with hostile input: what campaign.json records never becomes a line of a
tuning file unless it is an allowed variable with a valid value (campaign.launch_env), what a
tuning file holds never reaches `--verify`'s launch unless it is, the tuning file and its
evidence are read with a bound and only when they are regular files, and every refusal is one
line, exit 2, with a bounded excerpt — never a traceback."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from data.synth_tuning import algorithm_campaign, mpich, ompi

from mpimeter.campaign import tuning_bench
from mpimeter.cli.tune import command
from mpimeter.io import tuning_files

EVIL = "3\nLD_PRELOAD=/x/evil.so"


def run(*args):
    return CliRunner().invoke(command, [str(a) for a in args])


def refused(r, *words) -> str:
    assert r.exit_code == 2, (r.exit_code, r.output, r.exception)
    assert "Traceback" not in r.output
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mpimeter tune: error:"), r.stderr
    for w in words:
        assert w in lines[0], lines[0]
    return lines[0]


def _campaign(tmp_path, env, library="openmpi"):
    default = "openmpi" if library == "openmpi" else "mpich"
    return algorithm_campaign(tmp_path / "c", {default: {}, "alg": env},
                              lambda alt, op, size, p: 0.6 if alt == "alg" else 1.0, library=library)


@pytest.mark.parametrize("library,env,words", [
    ("openmpi", ompi("allreduce", 4) | {"OMPI_MCA_coll_tuned_allreduce_algorithm": EVIL}, "control character"),
    ("mpich", {"MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM": "ring\nLD_PRELOAD=/x/evil.so"}, "control character"),
    ("mpich", {"MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM": "$(touch /tmp/x)"}, "a name of letters"),
])
def test_an_env_file_never_holds_a_recorded_value_that_is_not_valid(tmp_path, library, env, words):
    root = _campaign(tmp_path, env, library)
    out = tmp_path / "t.env"
    refused(run(root, "--format", "env", "--out", out, "--bench-dir", tmp_path / "nobin"), words)
    assert not out.exists() and not (tmp_path / "t.env.evidence.json").exists()


@pytest.mark.parametrize("value,words", [("3\n1 0 0 0", "decimal integer"), ("1e3", "decimal integer")])
def test_a_recorded_algorithm_that_is_no_integer_is_refused_in_one_line(tmp_path, value, words):
    root = _campaign(tmp_path, ompi("allreduce", 4) | {"OMPI_MCA_coll_tuned_allreduce_algorithm": value})
    out = tmp_path / "t.rules"
    refused(run(root, "--format", "openmpi-rules", "--out", out, "--bench-dir", tmp_path / "nobin"), words)
    assert not out.exists()


def test_an_out_path_of_5000_characters_is_refused_in_one_line(tmp_path):
    root = _campaign(tmp_path, ompi("allreduce", 4))
    line = refused(run(root, "--out", tmp_path / ("x" * 5000), "--bench-dir", tmp_path / "nobin"))
    assert len(line) < 400


# ---- --verify -----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def tuned(tmp_path_factory):
    """A good env file and its evidence (tune --out), made once: each test takes a copy
    (:func:`env_file`), since most of them change the file."""
    base = tmp_path_factory.mktemp("tuned")
    root = algorithm_campaign(base / "c", {"mpich": {}, "rd": mpich("allreduce", "recursive_doubling")},
                              lambda alt, op, size, p: 0.6 if alt == "rd" else 1.0, library="mpich")
    out = base / "t.env"
    r = run(root, "--out", out, "--format", "env", "--bench-dir", base / "nobin")
    assert r.exit_code == 0, r.output
    return out


@pytest.fixture
def env_file(tuned, tmp_path, monkeypatch):
    """A copy of the good env file and its evidence (:func:`tuned`) in the test's own folder, and
    run_verification replaced by a recorder: nothing launches."""
    out = tmp_path / tuned.name
    for made in tuned.parent.glob(tuned.name + "*"):  # the file and what tune wrote beside it
        shutil.copy(made, tmp_path / made.name)
    calls = []

    def recorder(library, env, **kw):
        calls.append(env)
        return 2

    monkeypatch.setattr(tuning_bench, "run_verification", recorder)
    return out, calls


@pytest.mark.parametrize("line", ["LD_PRELOAD=/x/evil.so", "OMPI_MCA_orte_fork_agent=/tmp/x.sh",
                                  "MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=a;id", "PYTHONSTARTUP=/tmp/x.py"])
def test_verify_launches_no_setting_off_the_allow_list(tmp_path, env_file, line):
    out, calls = env_file
    out.write_text(out.read_text() + line + "\n")
    refused(run(tmp_path / "v", "--verify", out), "settings line")
    assert calls == [] and not (tmp_path / "v").exists()


def test_verify_passes_a_good_env_file_to_its_campaign(tmp_path, env_file):
    out, calls = env_file
    line = refused(run(tmp_path / "v", "--verify", out))
    assert calls == [{"MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM": "recursive_doubling"}]
    assert "did not start" in line and "--resume" not in line  # run created no folder


@pytest.mark.parametrize("what,words", [("fifo", "is a FIFO"), ("dir", "is a directory"),
                                        ("zero", "is a character device")])
def test_verify_refuses_what_is_not_a_regular_file_by_name(tmp_path, env_file, what, words):
    out, calls = env_file
    target = tmp_path / "weird"
    if what == "fifo":
        os.mkfifo(target)
    elif what == "dir":
        target.mkdir()
    else:
        target = Path("/dev/zero")
    if what != "zero":
        (tmp_path / "weird.evidence.json").write_bytes(Path(str(out) + ".evidence.json").read_bytes())
    line = refused(run(tmp_path / "v", "--verify", target), words)
    assert "no such file" not in line and calls == []


def test_verify_reads_a_tuning_file_with_a_bound(tmp_path, env_file):
    out, calls = env_file
    with open(out, "ab") as f:
        f.truncate(tuning_files.MAX_FILE_BYTES + 10)  # a sparse file: its size costs no disk
    line = refused(run(tmp_path / "v", "--verify", out), "MiB")
    assert calls == [] and len(line) < 400


def test_verify_quotes_a_bounded_excerpt_of_a_bad_token(tmp_path, env_file):
    out, calls = env_file
    out.write_text("X" * 2**20 + "\n")
    assert len(refused(run(tmp_path / "v", "--verify", out))) < 400
    out.write_text("MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=" + "y" * 2**20 + "\n")
    assert len(refused(run(tmp_path / "v", "--verify", out))) < 400


def test_the_rules_and_json_readers_quote_a_bounded_excerpt():
    with pytest.raises(tuning_files.TuningFileError) as err:
        tuning_files.validate_openmpi_rules("1 2 1 " + "9x" * 2**19)
    assert len(str(err.value)) < 300
    with pytest.raises(tuning_files.TuningFileError) as err:
        tuning_files.validate_mpich_json(json.dumps({"collective=allreduce": {"k" * 2**20: {}}}))
    assert len(str(err.value)) < 300


def test_a_verification_run_that_stopped_half_way_is_told_to_resume(tmp_path, env_file, monkeypatch):
    out, _ = env_file

    def started(library, env, *, out, **kw):
        out.mkdir()
        (out / "campaign.json").write_text("{}")
        return 1

    monkeypatch.setattr(tuning_bench, "run_verification", started)
    assert "--resume" in refused(run(tmp_path / "v", "--verify", out))


def test_a_verify_file_or_folder_of_5000_characters_is_refused_in_one_line(tmp_path, env_file):
    out, calls = env_file
    assert len(refused(run(tmp_path / "v", "--verify", tmp_path / ("f" * 5000)))) < 400
    assert len(refused(run(tmp_path / ("v" * 5000), "--verify", out))) < 400
    assert calls == []


def test_a_rules_file_number_of_a_million_digits_is_refused_in_one_line(tmp_path):
    with pytest.raises(tuning_files.TuningFileError, match="outside"):
        tuning_files.validate_openmpi_rules("9" * 10**6)
