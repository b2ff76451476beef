# SPDX-License-Identifier: BSD-3-Clause
"""`mpimeter run` end to end without MPI: a fake mpimeter-bench (a script that writes a launch
folder) behind a template launcher. Bad input exits 2; Ctrl-C exits 130 and leaves a resumable
campaign; failures exit 1."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from data.fakebench import PATIENCE_S, cli, fake_env, interruptible, template  # noqa: F401 (fake_env: a fixture)
from data.testkit import assert_refused


def test_a_campaign_end_to_end(fake_env):
    tmp, opts = fake_env
    out = tmp / "c"
    result = cli([*opts, "--launches", "2", "--seed", "5", "--out", str(out),
                  "--variant", "x=VARIANT_X=1", "--variant", "y="])
    assert result.exit_code == 0, result.output
    assert "[4/12]" in result.output and "campaign complete" in result.output
    disk = json.loads((out / "campaign.json").read_text())
    assert [a["name"] for a in disk["alternatives"]] == ["openmpi", "openmpi-x", "openmpi-y",
                                                         "mpich", "mpich-x", "mpich-y"]
    assert disk["seed"] == 5 and disk["np"] == 2 and disk["launches_per_alternative"] == 2
    assert disk["bench_args"] == ["--ops", "bcast", "--sizes", "8", "--nrep", "5",
                                  "--procsync", "window", "--clocksync", "auto"]
    assert all(x["status"] == "complete" for x in disk["launches"])
    for x in disk["launches"]:
        meta = json.loads((out / x["folder"] / "meta.json").read_text())
        assert meta["env_variant"] == ("1" if x["alternative"].endswith("-x") else None)
        assert meta["argv"][-4:] == ["--seed", str(x["seed"]), "--out", str(out / x["folder"])]
    assert "clock sync hca3: mpimeter-bench's choice for --procsync window" in " ".join(disk["notes"])


def test_the_default_clock_sync_is_asked_of_the_binary(fake_env):
    # the binary resolves --clocksync auto (its --validate): written out in campaign.json
    tmp, opts = fake_env
    result = cli([*opts, "--launches", "1", "--out", str(tmp / "c"), "--procsync", "barrier"])
    assert result.exit_code == 0, result.output
    disk = json.loads((tmp / "c" / "campaign.json").read_text())
    assert disk["bench_args"][-2:] == ["--clocksync", "none"]


@pytest.mark.parametrize("given, passed", [("auto", "auto"), ("250", "250"), ("2.5e3", "2.5e3")])
def test_window_us_takes_a_number_or_auto(fake_env, given, passed):
    tmp, opts = fake_env
    result = cli([*opts, "--launches", "1", "--out", str(tmp / "c"), "--window-us", given])
    assert result.exit_code == 0, result.output
    args = json.loads((tmp / "c" / "campaign.json").read_text())["bench_args"]
    assert args[args.index("--window-us") + 1] == passed


def test_extra_bench_arguments_after_the_double_dash(fake_env):
    tmp, opts = fake_env
    result = cli([*opts, "--launches", "1", "--out", str(tmp / "c"), "--", "--warmup", "3"])
    assert result.exit_code == 0, result.output
    disk = json.loads((tmp / "c" / "campaign.json").read_text())
    assert disk["bench_args"][-2:] == ["--warmup", "3"]  # as given, after the campaign's own


@pytest.mark.parametrize("args, message", [
    (["--launches", "0"], "--launches 0: must be at least 1"),
    (["--np", "0"], "--np 0: must be at least 1"),
    # the bench's options: refused in the bench's own words, before anything runs
    (["--nrep", "0"], "--nrep: 0 is out of range; allowed: a whole number from 1 to 100000000"),
    (["--sizes", "8:64"], "--sizes: '8:64' is not a range"),
    (["--ops", "allredux"], "--ops: unknown operation 'allredux'; allowed: allgather"),
    (["--variant", "bad"], "expected NAME="),
    (["--variant", "mix=OMPI_MCA_coll_tuned_use_dynamic_rules=1 MPIR_CVAR_CH3_NOLOCAL=1"],
     "--variant mix: mixes settings of several MPI libraries"),
    (["--mpi", "mpich", "--variant", "ring=OMPI_MCA_coll_tuned_use_dynamic_rules=1"],
     "which is not in this campaign (--mpi mpich)"),
    (["--mpi", "intelmpi"], "no mpimeter-bench at"),
    (["--mpi", ""], "empty library name"),
    (["--mpi", "openmpi,"], "empty library name"),
    (["--launcher", "srun {cmd}"], "needs both {np} and {cmd}"),
    (["--launcher", "nosuchlauncher -n {np} {cmd}"], "is not on PATH"),
    (["--launch-timeout", "0"], "--launch-timeout 0: must be a number of seconds, more than 0"),
    (["--retries", "-1"], "--retries -1"),
    (["--test-timeout", "0"], "--test-timeout 0: must be a number of seconds, more than 0"),
    (["--launch-timeout", "10", "--test-timeout", "20"],
     "--test-timeout 20: must be a number of seconds, more than 0 and at most the launch timeout (10 s)"),
    (["--", "--out", "elsewhere"], "the campaign sets --out, --seed, --force, --order itself"),
    (["--", "--order", "ascending"], "--order: the campaign sets --out, --seed, --force, --order itself"),
    (["--root", "5", "--ops", "bcast"], "--root: 5 is not a rank of this launch; allowed: 0 to 1"),
    (["--window-us", "-3"], "--window-us: -3 is out of range; allowed: a number from 0.001 to 1000000000, or auto"),
    (["--window-us", "0"], "--window-us: 0 is out of range"),
    (["--warmup", "-1"], "--warmup: -1 is out of range; allowed: a whole number from 0 to 100000000"),
    (["--fit-span-s", "0"], "--fit-span-s: 0 is out of range; allowed: a number from 1e-09 to 3600"),
    (["--pingpongs", "20000000"], "--pingpongs: 20000000 is out of range; allowed: a whole number from 1 to 10000000"),
    (["--window-us", "nan"], "--window-us: 'nan' is not a number"),
    (["--resync-s", "inf"], "--resync-s: 'inf' is not a number"),
    (["--timer", "sundial"], "--timer: unknown timer 'sundial'; allowed: monotonic"),
    (["--clocksync", "sundial"], "--clocksync: unknown clock sync 'sundial'; allowed: none, skampi"),
    (["--bcast-factor", "0.5"], "--bcast-factor: 0.5 is out of range; allowed: a number from 1 to 1000"),
    (["--roundtime-budget-s", "0"], "--roundtime-budget-s: 0 is out of range; allowed: a number from 1e-09"),
    (["--datatype", "int64"], "--datatype: unknown datatype 'int64'; allowed: byte, char, int, long, float, double"),
    (["--ops", "allreduce", "--datatype", "float", "--reduce-op", "band"],
     "--reduce-op band with --datatype float: 'band' is not defined for float"),
    # issue 14: adaptive repetitions, sizes and launches
    (["--nrep", "auto", "--", "--nrep", "300"], "--nrep: given more than once ('auto', then '300')"),
    (["--nrep", "auto:median"], "--nrep: 'auto:median' is not a whole number; allowed: a whole number "
                                "from 1 to 100000000, or auto, auto:ci, auto:rse"),
    (["--nrep", "auto", "--precision", "0"], "--precision: 0 is out of range; allowed: a number from 1e-06, below 1"),
    (["--nrep", "auto", "--precision", "1"], "--precision: 1 is out of range; allowed: a number from 1e-06, below 1"),
    (["--nrep", "300", "--nrep-max", "10"], "--nrep-max 10 applies only to --nrep auto[:RULE], but --nrep is 300"),
    (["--nrep", "auto", "--nrep-min", "50", "--nrep-max", "10"], "--nrep-min 50 is above --nrep-max 10"),
    (["--sizes", "auto:1024:8"], "--sizes auto:1024:8: the bounds must increase"),
    (["--sizes", "auto:8:17179869184"], "--sizes auto:8:17179869184: size 8589934592 is too large"),
    (["--sizes-budget", "3"], "--sizes-budget 3 applies only to --sizes auto:MIN:MAX"),
    (["--launches-min", "5"], "--launches-min 5 applies only to --launches auto (given: --launches 10)"),
    (["--launches", "auto", "--launches-min", "20", "--launches-max", "10"],
     "--launches-min 20 is above --launches-max 10"),
    (["--launches", "auto", "--launches-precision", "1.5"], "--launches-precision 1.5: allowed: a number above 0, below 1"),
    (["--launches", "auto", "--sizes", "auto:8:64"], "--launches auto with --sizes auto:8:64"),
])
def test_bad_input_exits_2_with_a_message_and_writes_nothing(fake_env, args, message):
    tmp, opts = fake_env
    out = tmp / "c"
    result = cli([*opts, "--out", str(out), *args])
    assert_refused(result, "mpimeter run: error: ", message, out)


def test_launches_takes_a_number_or_auto(fake_env):
    tmp, opts = fake_env
    result = cli([*opts, "--out", str(tmp / "c"), "--launches", "many"])
    assert result.exit_code == 2 and "'many' is neither a whole number nor auto" in result.output
    assert not (tmp / "c").exists()


def test_no_library_found_exits_2(tmp_path, monkeypatch):
    monkeypatch.setenv("MPIMETER_BENCH_DIR", str(tmp_path))
    result = cli(["--out", str(tmp_path / "c")])
    assert result.exit_code == 2 and "no MPI library found" in result.output
    # an option of the binary's, without a binary to describe it: the missing binary is said,
    # not a typo of the command's own options ("Did you mean --mpi?")
    result = cli(["--ops", "bcast", "--out", str(tmp_path / "c")])
    assert result.exit_code == 2 and "Did you mean" not in result.output
    assert "--ops is not an option of mpimeter run itself" in result.output
    assert f"no binary answered under {tmp_path}" in result.output


def test_an_existing_out_folder_is_refused(fake_env):
    tmp, opts = fake_env
    (tmp / "c").mkdir()
    (tmp / "c" / "x").write_text("")
    result = cli([*opts, "--out", str(tmp / "c")])
    assert result.exit_code == 2 and "exists and is not empty" in result.output
    # not a campaign: --resume there could only fail (no campaign.json), so it is not advised
    assert "--resume" not in result.output


def test_an_existing_campaign_as_out_is_refused_with_the_resume_that_continues_it(fake_env):
    tmp, opts = fake_env
    assert cli([*opts, "--launches", "1", "--no-analyze", "--out", str(tmp / "c")]).exit_code == 0
    result = cli([*opts, "--launches", "2", "--out", str(tmp / "c")])
    assert result.exit_code == 2 and "exists and is not empty" in result.output
    assert f"continue that campaign with --resume {tmp / 'c'}" in result.output


def test_resume_refuses_campaign_options_and_missing_folders(fake_env):
    tmp, opts = fake_env
    assert cli([*opts, "--launches", "1", "--out", str(tmp / "c")]).exit_code == 0
    result = cli(["--resume", str(tmp / "c"), "--ops", "bcast"])
    assert result.exit_code == 2 and "do not also give --ops" in result.output
    # named as the user gives them (--help), not by their parameters' names (variants, bench_extra)
    result = cli(["--resume", str(tmp / "c"), "--variant", "x=VARIANT_X=1", "--", "--warmup", "3"])
    assert result.exit_code == 2 and "do not also give --variant, -- BENCH_ARGS" in result.output
    result = cli(["--resume", str(tmp / "nothing")])
    assert result.exit_code == 2 and "no such folder" in result.output
    result = cli(["--resume", str(tmp / "c"), "--no-analyze", "--launcher", template(tmp)])
    assert result.exit_code == 0 and "0 launch(es) to run of 2" in result.output


@pytest.mark.parametrize("option", ["--out", "--resume"])
def test_an_empty_out_or_resume_is_refused_not_taken_for_the_current_folder(fake_env, monkeypatch, option):
    # `--resume "$DIR"` with DIR unset: Path("") is ".", which here is a campaign it would resume;
    # an empty --out in an empty folder would write a campaign into it
    tmp, opts = fake_env
    assert cli([*opts, "--launches", "1", "--out", str(tmp / "c")]).exit_code == 0
    empty = tmp / "empty"
    empty.mkdir()
    monkeypatch.chdir(tmp / "c" if option == "--resume" else empty)
    result = cli([option, ""] if option == "--resume" else [*opts, "--launches", "1", option, ""])
    assert result.exit_code == 2 and f"Invalid value for '{option}': an empty path" in result.output
    assert list(empty.iterdir()) == []


def test_resume_of_a_folder_that_is_no_campaign_writes_nothing_into_it(fake_env):
    tmp, opts = fake_env
    assert cli([*opts, "--launches", "1", "--no-analyze", "--out", str(tmp / "c")]).exit_code == 0
    launch = next((tmp / "c").glob("*/launches/000"))  # a launch folder: no campaign.json
    before = sorted(p.name for p in launch.iterdir())
    result = cli(["--resume", str(launch)])
    assert result.exit_code == 2 and "no campaign.json in it" in result.output
    assert sorted(p.name for p in launch.iterdir()) == before  # no lock file left in it


def test_resume_with_another_build_than_the_complete_launches_says_so_before_it_runs(fake_env):
    # the analysis refuses to pool launches of two builds (io.siblings): a rebuild between the runs
    # of a campaign is said when it is resumed, not found by `analyze` after the campaign
    tmp, opts = fake_env
    out = tmp / "c"
    assert cli([*opts, "--launches", "2", "--out", str(out)]).exit_code == 0
    disk = json.loads((out / "campaign.json").read_text())
    ran = {(x["alternative"], x["index"]): x for x in disk["launches"]}
    ran[("openmpi", 1)]["status"] = "failed"  # still to run: --resume runs it with the binary of now
    (out / "campaign.json").write_text(json.dumps(disk))
    meta = out / ran[("openmpi", 0)]["folder"] / "meta.json"
    meta.write_text(json.dumps({**json.loads(meta.read_text()),
                                "tool": {"name": "mpimeter-bench", "version": "0.0.1", "git_revision": "0123456789ab"}}))
    result = cli(["--resume", str(out), "--launcher", template(tmp)])
    assert result.exit_code == 0, result.output
    warned = [line for line in result.output.splitlines() if line.startswith("warning: ")]
    assert len(warned) == 1 and warned[0].startswith("warning: openmpi: its mpimeter-bench ")
    assert "its 1 complete launch(es) ran build 0.0.1 0123456789ab" in warned[0]
    assert result.output.index(warned[0]) < result.output.index("resuming ")


def test_the_bench_refusing_its_options_exits_2(fake_env):
    tmp, opts = fake_env
    result = cli([*opts, "--out", str(tmp / "c")], env={"FAKE_BENCH_MODE": "refuse"})
    assert result.exit_code == 2
    assert "refused the options" in result.output and "unknown timer 'sundial'" in result.output
    assert json.loads((tmp / "c" / "campaign.json").read_text())["status"] == "refused"
    # the bench's line follows on the error's one line, not after an escaped newline (`\x0a`)
    assert "refused the options: mpimeter-bench: --timer: unknown timer 'sundial'" in result.output


def test_failed_launches_exit_1_and_name_their_stderr(fake_env):
    tmp, opts = fake_env
    result = cli([*opts, "--launches", "1", "--out", str(tmp / "c")],
                 env={"FAKE_BENCH_MODE": "fail"})
    assert result.exit_code == 1
    assert "exit code 1" in result.output and "logs/000.2.stderr" in result.output
    disk = json.loads((tmp / "c" / "campaign.json").read_text())
    assert all(x["status"] == "failed" and x["retries"] == 1 for x in disk["launches"])
    assert "signal 11" in disk["launches"][0]["stderr_tail"]


def test_ctrl_c_then_resume(fake_env):
    """SIGINT to a real `mpimeter run` process while a launch sleeps: exit 130, the launch is
    stopped and incomplete, campaign.json parses; --resume finishes the campaign."""
    tmp, opts = fake_env
    out, pidfile = tmp / "c", tmp / "bench.pid"
    env = {**os.environ, "FAKE_BENCH_MODE": "sleep", "FAKE_BENCH_PIDFILE": str(pidfile)}
    proc = subprocess.Popen([sys.executable, "-m", "mpimeter", "run", *opts, "--launches", "2",
                             "--out", str(out)], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, preexec_fn=interruptible)
    deadline = time.monotonic() + PATIENCE_S
    while not (pidfile.exists() and pidfile.read_text()) and time.monotonic() < deadline:
        time.sleep(0.05)
    bench_pid = int(pidfile.read_text())
    proc.send_signal(signal.SIGINT)
    output, _ = proc.communicate(timeout=PATIENCE_S)
    assert proc.returncode == 130, output
    assert f"mpimeter run --resume {out}" in output
    assert not Path(f"/proc/{bench_pid}").exists() or \
        Path(f"/proc/{bench_pid}/stat").read_text().split(") ")[1][0] == "Z"
    disk = json.loads((out / "campaign.json").read_text())
    assert disk["status"] == "interrupted"
    assert [x["status"] for x in disk["launches"]] == ["incomplete", "pending", "pending", "pending"]
    first = disk["launches"][0]
    assert first["reason"] == "interrupted (Ctrl-C, SIGTERM or SIGHUP)"

    result = cli(["--resume", str(out), "--no-analyze", "--launcher", template(tmp)],
                 env={"FAKE_BENCH_MODE": "ok"})
    assert result.exit_code == 0, result.output
    disk = json.loads((out / "campaign.json").read_text())
    assert all(x["status"] == "complete" for x in disk["launches"])
    moved = disk["launches"][0]["previous_attempts"][0]["folder"]
    assert moved == first["folder"].replace("launches/000", "attempts/000.1")
    assert json.loads((out / moved / "meta.json").read_text())["status"] == "running"


def test_resume_analyzes_as_the_first_run_was_told(fake_env, monkeypatch):
    """--no-analyze is recorded (campaign.json analyze_after) and --resume keeps it unless given
    --analyze or --no-analyze again; a campaign started without it is analyzed when resumed."""
    from mpimeter.cli import after_run

    analyzed = []
    monkeypatch.setattr(after_run, "after_campaign", lambda folder, echo: analyzed.append(Path(folder).name))
    tmp, opts = fake_env  # opts hold --no-analyze
    quiet, told = tmp / "quiet", tmp / "told"
    assert cli([*opts, "--launches", "1", "--out", str(quiet)]).exit_code == 0
    assert json.loads((quiet / "campaign.json").read_text())["analyze_after"] is False
    resume = ["--launcher", template(tmp)]
    for again, expected in (([], []), (["--analyze"], ["quiet"]), (["--no-analyze"], []), ([], [])):
        analyzed.clear()
        result = cli(["--resume", str(quiet), *resume, *again])
        assert result.exit_code == 0 and analyzed == expected, (again, result.output)
    analyzed.clear()
    assert cli([*[o for o in opts if o != "--no-analyze"], "--launches", "1", "--out", str(told)]).exit_code == 0
    assert analyzed == ["told"]
    assert json.loads((told / "campaign.json").read_text())["analyze_after"] is True
    for again, expected in (([], ["told"]), (["--no-analyze"], [])):
        analyzed.clear()
        result = cli(["--resume", str(told), *resume, *again])
        assert result.exit_code == 0 and analyzed == expected, (again, result.output)


def test_sigterm_during_the_analysis_stops_it_and_exits_130(fake_env):
    """SIGTERM while the analysis after a complete campaign runs: the analysis stops, the exit
    code is the interrupted one (130), the message names the commands that redo it, and the
    campaign stays complete."""
    tmp, opts = fake_env
    out = tmp / "c"
    heavy = ("pandas", "scipy", "matplotlib", "duckdb")
    probe = ("import atexit, os, signal, sys, time\n"
             # what the process imported by its end: the read is interrupted before the analysis's
             # libraries are looked up, and the way out looks none up either
             f"atexit.register(lambda: print('loaded:', *[m for m in {heavy!r} if m in sys.modules], file=sys.stderr))\n"
             "from mpimeter import analysis\n"
             "def terminated(*args, **kwargs):\n"
             "    os.kill(os.getpid(), signal.SIGTERM)  # as a batch system ending the job\n"
             "    time.sleep(60)\n"
             "analysis.load_campaigns = terminated\n"
             "from mpimeter.cli import main\n"
             "main(sys.argv[1:], prog_name='mpimeter')\n")
    args = [*[o for o in opts if o != "--no-analyze"], "--launches", "1", "--out", str(out)]
    done = subprocess.run([sys.executable, "-c", probe, "run", *args], capture_output=True, text=True,
                          timeout=PATIENCE_S, env={**os.environ, "FAKE_BENCH_MODE": "ok"})
    assert done.returncode == 130, (done.returncode, done.stdout, done.stderr)
    assert "campaign complete" in done.stdout
    assert f"analysis interrupted (the launches are recorded); redo it with: mpimeter analyze {out} " \
           f"and mpimeter report {out} -o {out / 'report.html'}" in done.stderr
    assert json.loads((out / "campaign.json").read_text())["status"] == "complete"
    assert not (out / "report.html").exists()
    assert done.stderr.splitlines()[-1].split() == ["loaded:"], done.stderr


def test_without_a_binary_the_help_says_where_it_looked_and_both_ways_to_point_at_one(tmp_path, monkeypatch):
    # a package installed outside a checkout has no `make build` of its own: --help names the
    # folder it looked in and $MPIMETER_BENCH_DIR besides --bench-dir, as the errors do
    monkeypatch.setenv("MPIMETER_BENCH_DIR", str(tmp_path))
    result = cli(["--help"])
    text = "".join(result.output.split())  # as wrapped: a long path may break at a hyphen
    assert result.exit_code == 0
    assert f"Nompimeter-benchwasfoundunder{tmp_path}(" in text and "$MPIMETER_BENCH_DIR)" in text, text
