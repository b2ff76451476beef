# SPDX-License-Identifier: BSD-3-Clause
"""A pip-installed `mpimeter` (no repository around it, no $MPIMETER_BENCH_DIR, no build/ where it
runs) given --bench-dir: a real Open MPI campaign, interrupted in its last launch and continued
with `--resume --bench-dir`, stores its bench arguments and -np as they are (the secret words come
from the binaries of --bench-dir and are recorded) and only a secret redacted."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from data.release import SKIP_REASON, build_dist, install_wheel, installed_env

from mpimeter.campaign import launcher, secrets

BENCH_DIR = launcher.default_bench_dir().resolve()
REAL = (launcher.bench_binary(BENCH_DIR, "openmpi").is_file()
        and shutil.which(launcher.local_template("openmpi").split()[0]))
SECRET = "s3cr3t-4711"
SECRET_VARIABLE = "MPIMETER_TEST_AUTH"  # secret by the binary's word AUTH alone
BENCH = ["--ops", "barrier", "--sizes", "0", "--nrep", "20"]

pytestmark = [pytest.mark.skipif(SKIP_REASON is not None, reason=SKIP_REASON or ""),
              pytest.mark.skipif(not REAL, reason=f"no mpimeter-bench for openmpi under {BENCH_DIR} "
                                                  "(run `make build`)")]


def redacted_strings(value, where="") -> list[str]:
    """Where in a parsed JSON document a string holds REDACTED."""
    if isinstance(value, dict):
        return [w for k, v in value.items() for w in redacted_strings(v, f"{where}.{k}")]
    if isinstance(value, list):
        return [w for i, v in enumerate(value) for w in redacted_strings(v, f"{where}[{i}]")]
    return [f"{where}={value}"] if isinstance(value, str) and secrets.REDACTED in value else []


def test_an_installed_mpimeter_resumes_a_bench_dir_campaign_with_its_real_arguments(tmp_path):
    env_dir = tmp_path / "venv"
    install_wheel(build_dist(tmp_path), env_dir)
    work = tmp_path / "work"  # no build/ here
    work.mkdir()
    env = {k: v for k, v in installed_env().items() if k != launcher.BENCH_DIR_ENV}

    def mpimeter(*args, extra_env=None) -> subprocess.CompletedProcess:
        return subprocess.run([str(env_dir / "bin" / "mpimeter"), *args], capture_output=True, text=True,
                              timeout=600, cwd=work, env={**env, **(extra_env or {})})

    found = subprocess.run([str(env_dir / "bin" / "python"), "-c", "from mpimeter.io import bench_binaries as b; "
                            "print(b.repo_root(), b.built_secret_words())"],
                           capture_output=True, text=True, timeout=60, cwd=work, env=env)
    assert found.stdout == "None ()\n", found.stderr  # as installed: no binary found by default
    out = work / "c"
    first = mpimeter("run", "--bench-dir", str(BENCH_DIR), "--mpi", "openmpi", "--np", "2", "--launches", "2",
                     "--variant", f"v={SECRET_VARIABLE}={SECRET}", *BENCH, "--out", str(out), "--no-analyze")
    assert first.returncode == 0, first.stdout + first.stderr
    disk = json.loads((out / "campaign.json").read_text())
    assert disk["bench_args"][:6] == BENCH
    # as a Ctrl-C in the last launch leaves it
    disk["status"] = "interrupted"
    disk["launches"][-1].update(status="incomplete", reason="interrupted (Ctrl-C, SIGTERM or SIGHUP)")
    (out / "campaign.json").write_text(json.dumps(disk))

    done = mpimeter("run", "--resume", str(out), "--bench-dir", str(BENCH_DIR), "--no-analyze",
                    extra_env={SECRET_VARIABLE: SECRET})
    assert done.returncode == 0, done.stdout + done.stderr
    text = (out / "campaign.json").read_text()
    disk = json.loads(text)
    assert disk["status"] == "complete" and disk["launches"][-1]["attempts"] == 2
    assert [x["status"] for x in disk["launches"]] == ["complete"] * 4
    assert disk["bench_args"][:6] == BENCH
    assert {a["launch_template"].split(" -np ")[1] for a in disk["alternatives"]} == {"{np} {cmd}"}
    for rec in disk["launches"]:
        assert rec["argv"][rec["argv"].index("-np") + 1] == "2"
    assert f"--bench-dir {BENCH_DIR} --mpi openmpi --np 2 --launches 2" in disk["command"]
    assert SECRET not in text + done.stdout + done.stderr
    assert "AUTH" in disk["secret_words"]
    # the secret and nothing else: the variant's value, in its environment and in the first
    # run's command line
    shown = dict(w.split("=", 1) for w in redacted_strings(disk))
    assert sorted(shown) == [".alternatives[1].env.MPIMETER_TEST_AUTH", ".command", ".sessions[0].argv[11]"]
    assert shown[".alternatives[1].env.MPIMETER_TEST_AUTH"] == secrets.REDACTED
    assert shown[".sessions[0].argv[11]"] == f"v={SECRET_VARIABLE}={secrets.REDACTED}"
    assert f"v={SECRET_VARIABLE}={secrets.REDACTED}" in disk["command"]
