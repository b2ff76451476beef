# SPDX-License-Identifier: BSD-3-Clause
"""Secrets: a variant value whose variable name looks secret (campaign.secrets) reaches the
launch but is never stored or shown - not in campaign.json (so not in the report), not in the
lines `mpimeter run` prints; `--resume` takes it from its own environment. The words are those of
the bench dir the campaign runs from, recorded in campaign.json for `--resume`."""

import json
import shlex

import pytest
from data.fakebench import cli, fake_env, on_disk, one_line_error, template  # noqa: F401

from mpimeter.campaign import plan, secrets
from mpimeter.campaign import state as st
from mpimeter.cli.campaign_run import resume_command
from mpimeter.io import bench_binaries

SECRET = "s3cr3t-value-4711"


@pytest.mark.parametrize("name", ["SLURM_DB_PASS", "MPI_AUTH", "UCX_PASSPHRASE", "I_MPI_PWD",
                                  "HYDRA_CRED", "FI_AUTH_TOK", "UCX_API_TOKEN", "aws_secret",
                                  "MY_PRIVATE_THING", "OMPI_MCA_ssh_key", "X509_CERT_DIR"])
def test_secret_names(name):
    assert secrets.is_secret_name(name)


@pytest.mark.parametrize("name", ["OMPI_MCA_btl", "UCX_TLS", "MPIR_CVAR_CH4_NETMOD",
                                  "OMP_NUM_THREADS", "I_MPI_FABRICS", "HYDRA_TOPO_DEBUG"])
def test_names_that_are_not_secret(name):
    assert not secrets.is_secret_name(name)


def test_the_word_list_is_the_binarys_own():
    # the rule is the binary's own: the words its --describe lists, nothing kept here
    from mpimeter.campaign import describe, launcher
    binary = launcher.bench_binary(launcher.default_bench_dir(), launcher.found_libraries(launcher.default_bench_dir())[0])
    assert set(secrets.secret_words()) == set(describe.describe(binary).environment["secret_words"])
    assert "TOK" in secrets.secret_words()


def test_redact_argv():
    argv = ["mpimeter", "run", "--variant", f"tok=UCX_API_TOKEN={SECRET} UCX_TLS=rc",
            f"--variant=pw=SLURM_DB_PASS='{SECRET} x'", "--", f"I_MPI_PWD={SECRET}"]
    shown = secrets.redact_argv(argv)
    assert SECRET not in " ".join(shown)
    assert shown[3] == "tok=UCX_API_TOKEN=<redacted> UCX_TLS=rc"
    assert shown[4] == "--variant=pw=SLURM_DB_PASS=<redacted>"
    assert shown[-1] == "I_MPI_PWD=<redacted>"
    assert secrets.redact_env({"UCX_API_TOKEN": SECRET, "UCX_TLS": "rc"}) == \
        {"UCX_API_TOKEN": secrets.REDACTED, "UCX_TLS": "rc"}


def test_redact_text():
    assert secrets.redact_text(f"a UCX_API_TOKEN={SECRET} b=1 'MPI_AUTH={SECRET}'") == \
        "a UCX_API_TOKEN=<redacted> b=1 'MPI_AUTH=<redacted>'"
    assert secrets.redact_text(f"tok=UCX_API_TOKEN={SECRET}") == "tok=<redacted>"
    assert secrets.redact_text("x=UCX_API_TOKEN=<redacted>") == "x=UCX_API_TOKEN=<redacted>"


def test_a_variant_that_cannot_be_split_is_refused_without_its_value():
    with pytest.raises(plan.PlanError) as err:
        plan.parse_variant(f"tok=UCX_API_TOKEN='{SECRET}")
    assert SECRET not in str(err.value)


def test_a_secret_variant_value_is_used_but_never_stored_or_shown(fake_env):
    tmp, opts = fake_env
    out = tmp / "c"
    result = cli([*opts, "--mpi", "openmpi", "--launches", "1", "--out", str(out),
                  "--variant", f"tok=UCX_API_TOKEN={SECRET} UCX_TLS=rc"],
                 env={"FAKE_BENCH_ECHO": "UCX_API_TOKEN"})
    assert result.exit_code == 0, result.output
    assert SECRET not in result.output
    assert "UCX_API_TOKEN=<redacted>" in result.output and "UCX_TLS=rc" in result.output
    text = (out / "campaign.json").read_text()
    assert SECRET not in text
    assert on_disk(out)["alternatives"][1]["env"] == {"UCX_API_TOKEN": secrets.REDACTED,
                                                      "UCX_TLS": "rc"}
    launch = next(x for x in on_disk(out)["launches"] if x["alternative"] == "tok")
    assert json.loads((out / launch["folder"] / "meta.json").read_text())["env_echo"] == SECRET


def test_resume_takes_a_secret_from_its_environment_or_refuses_naming_it(fake_env):
    tmp, opts = fake_env
    out = tmp / "c"
    result = cli([*opts, "--mpi", "openmpi", "--launches", "1", "--retries", "0",
                  "--out", str(out), "--variant", f"tok=UCX_API_TOKEN={SECRET}"],
                 env={"FAKE_BENCH_MODE": "fail"})
    assert result.exit_code == 1, result.output
    args = ["--resume", str(out), "--launcher", template(tmp), "--no-analyze"]
    before = (out / "campaign.json").read_text()
    line = one_line_error(cli(args, env={"FAKE_BENCH_MODE": "ok", "UCX_API_TOKEN": None}))
    assert "UCX_API_TOKEN" in line and "tok" in line
    assert (out / "campaign.json").read_text() == before
    result = cli(args, env={"FAKE_BENCH_MODE": "ok", "UCX_API_TOKEN": "from-env",
                            "FAKE_BENCH_ECHO": "UCX_API_TOKEN"})
    assert result.exit_code == 0, result.output
    launch = next(x for x in on_disk(out)["launches"] if x["alternative"] == "tok")
    assert json.loads((out / launch["folder"] / "meta.json").read_text())["env_echo"] == "from-env"
    assert "from-env" not in (out / "campaign.json").read_text()


def interrupt_last_launch(out) -> None:
    """campaign.json as a Ctrl-C in its last launch leaves it."""
    disk = on_disk(out)
    disk["status"] = "interrupted"
    disk["launches"][-1].update(status="incomplete", reason="interrupted (Ctrl-C, SIGTERM or SIGHUP)")
    (out / "campaign.json").write_text(json.dumps(disk))


def test_an_installed_mpimeter_given_bench_dir_stores_real_arguments_and_resumes(fake_env, monkeypatch):
    """No repository around the package, no $MPIMETER_BENCH_DIR, no build/ here (a pip install):
    the words come from the binaries of --bench-dir, so bench arguments and -np are stored as
    they are, a secret still is not, and --resume runs them."""
    tmp, opts = fake_env
    monkeypatch.delenv("MPIMETER_BENCH_DIR")
    monkeypatch.setattr(bench_binaries, "repo_root", lambda: None)
    monkeypatch.chdir(tmp)
    assert bench_binaries.built_secret_words() == ()  # no binary found by default
    bench_dir, out = tmp / "bench", tmp / "c"
    result = cli([*opts, "--bench-dir", str(bench_dir), "--mpi", "openmpi", "--launches", "2",
                  "--out", str(out), "--variant", f"tok=UCX_API_TOKEN={SECRET}"])
    assert result.exit_code == 0, result.output
    disk = on_disk(out)
    assert disk["bench_args"] == ["--ops", "bcast", "--sizes", "8", "--nrep", "5",
                                  "--procsync", "window", "--clocksync", "auto"]
    assert disk["secret_words"] == sorted(bench_binaries.secret_words(bench_dir / "openmpi/bin/mpimeter-bench"))
    assert {a["launch_template"] for a in disk["alternatives"]} == {template(tmp)}
    assert disk["alternatives"][1]["env"] == {"UCX_API_TOKEN": secrets.REDACTED}
    interrupt_last_launch(out)
    # what `mpimeter run` prints to continue gives the bench dir again: none is found by default
    assert resume_command(st.load(out), out) == \
        f"mpimeter run --resume {out} --launcher {shlex.quote(template(tmp))} --bench-dir {bench_dir}"
    result = cli(["--resume", str(out), "--bench-dir", str(bench_dir), "--launcher", template(tmp),
                  "--no-analyze"], env={"UCX_API_TOKEN": SECRET})
    assert result.exit_code == 0, result.output
    disk = on_disk(out)
    assert [x["status"] for x in disk["launches"]] == ["complete"] * 4 and disk["launches"][-1]["attempts"] == 2
    assert disk["bench_args"][:2] == ["--ops", "bcast"]
    for rec in disk["launches"]:
        assert rec["argv"][1:3] == ["-np", "2"] and secrets.REDACTED not in rec["argv"]
    assert SECRET not in json.dumps(disk)


def test_resume_redacts_by_the_recorded_words_as_well(fake_env):
    # a word recorded in campaign.json (here one the binary does not have) stays in force
    tmp, opts = fake_env
    out = tmp / "c"
    result = cli([*opts, "--mpi", "openmpi", "--launches", "1", "--retries", "0", "--out", str(out),
                  "--variant", "x=UCX_TLS=rc"], env={"FAKE_BENCH_MODE": "fail"})
    assert result.exit_code == 1, result.output
    disk = on_disk(out)
    assert disk["alternatives"][1]["env"] == {"UCX_TLS": "rc"} and "TLS" not in disk["secret_words"]
    assert "--bench-dir" not in resume_command(st.load(out), out)  # the default bench dir's binaries
    disk["secret_words"].append("TLS")
    (out / "campaign.json").write_text(json.dumps(disk))
    result = cli(["--resume", str(out), "--launcher", template(tmp), "--no-analyze"],
                 env={"FAKE_BENCH_MODE": "ok", "UCX_TLS": "rc"})
    assert result.exit_code == 0, result.output
    disk = on_disk(out)
    assert "TLS" in disk["secret_words"]
    assert disk["alternatives"][1]["env"] == {"UCX_TLS": secrets.REDACTED}
