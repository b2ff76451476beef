# SPDX-License-Identifier: BSD-3-Clause
"""issue 26, secrets: redaction by name and by value shape (mpimeter.io.redact), everywhere a value
is shown or stored. Planted secrets — in the environment (SLURM_JWT, HYDRA_BEARER, an AKIA… key
under an ordinary name), in a launcher word (--export=ALL,HF_TOKEN=hf_…), in a variant, in an
imported file's command line (AWS_SECRET_ACCESS_KEY=…, --token=…, --password …) — appear in no
output file of a campaign (fake executor, and one real 2-rank launch with its report, store and
site) or of an import, nor on stdout."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from data.fakebench import cli, fake_env  # noqa: F401
from data.testkit import imported_everywhere, leaks

from mpimeter.campaign import launcher
from mpimeter.io import redact


# what no output may hold (each ≥ 8 characters, so that a match is not chance)
HF = "hf_Zq8XwL2mN4pR7tV1yB3cD5fG"
AKIA = "AKIAIOSFODNN7EXAMPL3"
JWT_VALUE = "slurmjwtvalue-0123456789"
BEARER = "bearer-value-9876543210"
AWS_SECRET = "wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY0"
TOKEN = "tok-value-5551234567"
PASSWORD = "hunter2-passw0rd"
GHP = "ghp_aB3dE6gH9jK2mN5pQ8sT1vW4yZ7cF0hJ3kL"
PLANTED = (HF, AKIA, JWT_VALUE, BEARER, AWS_SECRET, TOKEN, PASSWORD, GHP)
PLANTED_ENV = {"SLURM_JWT": JWT_VALUE, "HYDRA_BEARER": BEARER, "MPI_INNOCENT_SETTING": AKIA}


def store_dump(store: Path) -> str:
    """Every table of a store as JSON text (its file may hold text compressed)."""
    import duckdb

    con = duckdb.connect(str(store), read_only=True)
    try:
        tables = [t for (t,) in con.execute("select table_name from information_schema.tables").fetchall()]
        return "\n".join(json.dumps(con.execute(f"select * from {t}").fetchall(), default=str) for t in tables)
    finally:
        con.close()




# --- the rule ------------------------------------------------------------------------------------

RULE = redact.Rule(("PASS", "TOK", "KEY", "SECRET", "AUTH", "CRED"))


@pytest.mark.parametrize("value", [AKIA, HF, GHP, "xoxb-1234567890-abcdefghij", "glpat-abcdefghij0123456789",
                                   "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N",
                                   "Kq8Zr2Lw9XbN4TfY7pHs3VmC6dGj1RaE0uQi"])
def test_a_secret_shape_is_redacted_under_any_name(value):
    assert RULE.env({"MPI_INNOCENT_SETTING": value}) == {"MPI_INNOCENT_SETTING": redact.REDACTED}
    assert value not in RULE.text(f"mpirun -x X={value} -np 2 ./a.out")


@pytest.mark.parametrize("value", [
    "3a7bd3e2360a3d29eea436fcfb7e44c735d117c42d1c1835420b6b9942dd4f1b",  # a sha256: kept
    "a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1", "/home/user/build/openmpi/bin/mpimeter-bench",
    "MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM", "Intel(R) Xeon(R) Gold 6130 CPU @ 2.10GHz", "ob1", "1024"])
def test_ordinary_values_are_kept(value):
    assert RULE.env({"MPI_SETTING": value}) == {"MPI_SETTING": value}
    assert RULE.text(value) == value


def test_names_the_binary_lacks_and_command_line_forms():
    assert RULE.env({"SLURM_JWT": "x", "HYDRA_BEARER": "y", "OMPI_MCA_btl": "self"}) == \
        {"SLURM_JWT": redact.REDACTED, "HYDRA_BEARER": redact.REDACTED, "OMPI_MCA_btl": "self"}
    line = RULE.text(f"srun --export=ALL,HF_TOKEN=abc -np 2 x AWS_SECRET_ACCESS_KEY={AWS_SECRET} "
                     f"--token={TOKEN} --password {PASSWORD} --msglog 3")
    assert all(s not in line for s in ("abc ", AWS_SECRET, TOKEN, PASSWORD)), line
    assert "--msglog 3" in line and "--export=ALL,HF_TOKEN=<redacted>" in line
    assert RULE.argv(["IMB-MPI1", "--password", PASSWORD, "-msglog", "3"]) == \
        ["IMB-MPI1", "--password", redact.REDACTED, "-msglog", "3"]


# --- a campaign (fake executor) ----------------------------------------------------------------

def test_no_planted_secret_in_any_output_of_a_campaign(fake_env, tmp_path):
    tmp, opts = fake_env
    wrapper = tmp / "exportrun"  # a launcher that takes words before -np, as srun --export does
    wrapper.write_text('#!/bin/sh\nwhile [ "$1" != -np ]; do shift; done\nshift 2\nexec "$@"\n')
    wrapper.chmod(0o755)
    template = f"{wrapper} --export=ALL,HF_TOKEN={HF} -np {{np}} {{cmd}}"
    out = tmp / "c"
    args = [*opts, "--launches", "1", "--mpi", "openmpi", "--launcher", template,
            "--variant", f"v=MPI_PLAIN=1 MPI_OTHER={AKIA}", "--out", str(out)]
    env = {**PLANTED_ENV, "FAKE_BENCH_ENVIRONMENT": "1", "FAKE_BENCH_MODE": "ok", "FAKE_BENCH_ECHO": "-"}
    result = cli(args, env=env)
    assert result.exit_code == 0, result.output
    assert [s for s in PLANTED if s in result.output] == []
    assert leaks(out, PLANTED) == []
    metas = [json.loads(p.read_text()) for p in out.rglob("meta.json")]
    assert len(metas) == 2
    for meta in metas:  # the launch folder's meta.json itself was rewritten redacted by the runner
        env_written = meta["environment"]
        assert env_written["SLURM_JWT"] == env_written["HYDRA_BEARER"] == redact.REDACTED
        assert env_written["MPI_INNOCENT_SETTING"] == redact.REDACTED
    disk = json.loads((out / "campaign.json").read_text())
    assert "HF_TOKEN=<redacted>" in disk["launcher"]
    assert {a["name"]: a["env"] for a in disk["alternatives"]}["v"] == {"MPI_PLAIN": "1", "MPI_OTHER": redact.REDACTED}


# --- an import ---------------------------------------------------------------------------------

def test_no_planted_secret_in_any_output_of_an_import(tmp_path):
    out, store, printed, _ = imported_everywhere(
        tmp_path, f"AWS_SECRET_ACCESS_KEY={AWS_SECRET} --token={TOKEN} --password {PASSWORD} MPI_X={GHP}")
    assert [s for s in PLANTED if s in store_dump(store) + printed] == []
    for folder in (out, tmp_path / "www", tmp_path / "store"):
        assert leaks(folder, PLANTED) == [], folder
    assert leaks(tmp_path / "in", PLANTED) != []  # the planted file itself: the walk does see secrets
    assert not [s for s in PLANTED if s.encode() in (tmp_path / "report.html").read_bytes()]


# --- one real launch of 2 ranks ----------------------------------------------------------------

BENCH_DIR = launcher.default_bench_dir()
REAL = launcher.bench_binary(BENCH_DIR, "openmpi").is_file() and shutil.which(launcher.local_template("openmpi").split()[0])


@pytest.mark.skipif(not REAL, reason=f"no mpimeter-bench for openmpi under {BENCH_DIR} (run `make build`)")
def test_no_planted_secret_in_a_real_launch_its_report_store_and_site(tmp_path):
    out = tmp_path / "real"
    env = {**os.environ, **PLANTED_ENV}
    mpimeter = [sys.executable, "-m", "mpimeter"]
    done = subprocess.run([*mpimeter, "run", "--np", "2", "--launches", "1", "--mpi", "openmpi", "--ops", "bcast",
                           "--sizes", "8", "--nrep", "20", "--variant", f"v=MPI_OTHER={AKIA}", "--out", str(out)],
                          capture_output=True, text=True, timeout=600, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    store = tmp_path / "store" / "results.duckdb"
    store.parent.mkdir()
    for argv in (["store", "add", str(out), "--store", str(store)],
                 ["site", "--store", str(store), "-o", str(tmp_path / "www")]):
        step = subprocess.run([*mpimeter, *argv], capture_output=True, text=True, timeout=600, env=env)
        assert step.returncode == 0, step.stdout + step.stderr
        assert [s for s in PLANTED if s in step.stdout + step.stderr] == []
    assert [s for s in PLANTED if s in done.stdout + done.stderr] == []
    for folder in (out, tmp_path / "www", tmp_path / "store"):
        assert leaks(folder, PLANTED) == [], folder
    assert [s for s in PLANTED if s in store_dump(store)] == []
    meta = json.loads(next(out.rglob("meta.json")).read_text())
    assert meta["environment"]["SLURM_JWT"] == redact.REDACTED
    assert meta["environment"]["MPI_INNOCENT_SETTING"] == redact.REDACTED
