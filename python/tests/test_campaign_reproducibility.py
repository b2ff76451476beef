# SPDX-License-Identifier: BSD-3-Clause
"""Reproducibility of the outcome (Hunold & Carpen-Amarie 2016 §5.3): the normalized spread of
trial means, per-launch medians from raw.csv, and the command on campaign folders."""

import json

import pandas as pd
import pytest
from click.testing import CliRunner

from mpimeter.campaign import plan
from mpimeter.campaign import reproducibility as rp
from mpimeter.campaign.benchargs import BenchArgs
from mpimeter.campaign.fake import FakeExecutor
from mpimeter.campaign.runner import CampaignRunner, new_state
from mpimeter.cli import main


def medians(rows):
    return pd.DataFrame(rows, columns=rp.MEDIAN_COLUMNS)


def test_spread_by_hand():
    # trial means of per-launch medians: 100, 110, 105 (bcast 8) and 50, 50, 60 (bcast 64)
    trials = [medians([("a", 0, "bcast", 8, 90.0), ("a", 1, "bcast", 8, 110.0),
                       ("a", 0, "bcast", 64, 50.0)]),
              medians([("a", 0, "bcast", 8, 110.0), ("a", 0, "bcast", 64, 50.0)]),
              medians([("a", 0, "bcast", 8, 100.0), ("a", 1, "bcast", 8, 110.0),
                       ("a", 0, "bcast", 64, 60.0), ("a", 0, "allreduce", 8, 1.0)])]
    rows = rp.spread_table(trials)
    assert [(r.op, r.size) for r in rows] == [("bcast", 8), ("bcast", 64)]  # allreduce: 1 trial
    r8, r64 = rows
    assert r8.means_ns == (100.0, 110.0, 105.0)
    assert r8.normalized == pytest.approx((1.0, 1.1, 1.05))
    assert r8.spread == pytest.approx(1.1)
    assert r64.normalized == pytest.approx((1.0, 1.0, 1.2)) and r64.trials == 3
    with pytest.raises(ValueError, match="at least 2 trials"):
        rp.spread_table(trials[:1])


def run_trial(folder, seed, nrep=50):
    alts = [plan.Alternative("openmpi", "openmpi")]
    order = plan.interleave(["openmpi"], 4, seed)
    state = new_state(command="t", bench_args=BenchArgs.parse(["--ops", "bcast,allreduce", "--sizes", "8,4096",
                      "--nrep", str(nrep)]), launcher="local", np=2, launches=4, seed=seed,
                      alternatives=alts, templates={"openmpi": "x -np {np} {cmd}"},
                      binaries={"openmpi": "/b"}, timeout_s=9, order=order)
    CampaignRunner(state, folder, FakeExecutor(), base_env={}).run()


def test_reproducibility_command_on_existing_campaigns(tmp_path):
    for t in range(3):
        run_trial(tmp_path / f"trial-{t}", seed=100 + t)
    result = CliRunner().invoke(main, ["reproducibility", *(str(tmp_path / f"trial-{t}")
                                                            for t in range(3)), "--format", "json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert [(r["op"], r["size"]) for r in out["rows"]] == [("allreduce", 8), ("allreduce", 4096),
                                                           ("bcast", 8), ("bcast", 4096)]
    for r in out["rows"]:
        assert r["alternative"] == "openmpi" and r["trials"] == 3
        assert min(r["normalized"]) == 1.0 and r["spread"] == max(r["normalized"])
        assert r["spread"] > 1.0  # the fake's launch effect makes trials differ
    table = CliRunner().invoke(main, ["reproducibility", str(tmp_path / "trial-0"),
                                      str(tmp_path / "trial-1")])
    assert table.exit_code == 0 and "allreduce" in table.output


@pytest.mark.parametrize("args, message", [
    ([], "give two or more campaign folders"),
    (["ONE"], "at least 2 campaigns"),
    (["ONE", "NOPE"], "NOPE: no such folder"),
    (["ONE", "ONE", "--trials", "3"], "not both"),
    (["--trials", "1"], "--trials 1: must be at least 2"),
    (["ONE", "EMPTY"], "EMPTY: is not a campaign or launch folder"),
    (["ONE", "ONE", "--np", "4", "--out", "x"], "--np, --out: only with --trials"),
])
def test_reproducibility_bad_input_exits_2(tmp_path, args, message):
    run_trial(tmp_path / "one", seed=1)
    (tmp_path / "EMPTY").mkdir()
    args = [str(tmp_path / "one") if a == "ONE" else str(tmp_path / a) if a in ("NOPE", "EMPTY")
            else a for a in args]
    message = message.replace("NOPE", str(tmp_path / "NOPE"))
    message = message.replace("EMPTY", str(tmp_path / "EMPTY"))
    result = CliRunner().invoke(main, ["reproducibility", *args])
    assert result.exit_code == 2, result.output
    # one line, in the form of every mpimeter command's errors
    assert result.output.startswith("mpimeter reproducibility: error: ")
    assert message in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_reproducibility_trials_refuse_a_bad_campaign_with_the_command_prefix(tmp_path):
    result = CliRunner().invoke(main, ["reproducibility", "--trials", "2", "--out",
                                       str(tmp_path / "r"), "--mpi", "openmpi",
                                       "--variant", "mix=OMPI_MCA_x=1 MPICH_Y=2"])
    assert result.exit_code == 2, result.output
    assert result.output.startswith("mpimeter reproducibility: error: --variant mix: mixes "
                                    "settings of several MPI libraries")
    assert not (tmp_path / "r").exists()


def test_reproducibility_refuses_the_same_folder_twice(tmp_path):
    run_trial(tmp_path / "trial-0", seed=100)
    run_trial(tmp_path / "trial-1", seed=101)
    result = CliRunner().invoke(main, ["reproducibility", str(tmp_path / "trial-0"), str(tmp_path / "trial-1"),
                                       str(tmp_path / "trial-1") + "/"])
    assert result.exit_code == 2
    assert "trial-1: given more than once" in result.stderr and result.stdout == ""


def test_reproducibility_warns_when_the_trials_settings_differ(tmp_path):
    run_trial(tmp_path / "trial-0", seed=100)
    run_trial(tmp_path / "trial-1", seed=101)
    run_trial(tmp_path / "trial-2", seed=102, nrep=80)
    same = CliRunner().invoke(main, ["reproducibility", str(tmp_path / "trial-0"), str(tmp_path / "trial-1")])
    assert same.exit_code == 0 and "different settings" not in same.stderr
    result = CliRunner().invoke(main, ["reproducibility", *(str(tmp_path / f"trial-{t}") for t in range(3)),
                                       "--format", "json"])
    assert result.exit_code == 0, result.output
    assert "warning: the trials were run with different settings" in result.stderr
    assert "nrep (" in result.stderr and "trial-2: 80" in result.stderr and "procsync" not in result.stderr
    out = json.loads(result.stdout)
    assert len(out["settings_differ"]) == 1 and out["settings_differ"][0].startswith("nrep (")


def test_trials_of_two_libraries_are_said_to_differ(tmp_path):
    # `reproducibility C/openmpi C/mpich` (two alternatives of one campaign) called the libraries'
    # difference the spread of one method's trials, without a word: the library is a setting
    from data.synth import write_campaign

    for name, library in (("openmpi", "Open MPI v4.1.4 (synthetic)"), ("mpich", "MPICH Version: 4.0.2")):
        root = write_campaign(tmp_path / "c" / name, 3, seed=len(name), nrep=20)
        for meta_path in root.glob("launches/*/meta.json"):
            meta = json.loads(meta_path.read_text())
            meta["mpi"]["library"], meta["mpi"]["library_version"] = name, library
            meta_path.write_text(json.dumps(meta))
    sides = [str(tmp_path / "c" / name) for name in ("openmpi", "mpich")]
    result = CliRunner().invoke(main, ["reproducibility", *sides, "--format", "json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert [d.split(" (")[0] for d in out["settings_differ"]] == ["mpi"]
    (said,) = out["settings_differ"]
    assert "Open MPI v4.1.4 (synthetic)" in said and "MPICH Version: 4.0.2" in said


def test_trials_of_several_process_counts_get_a_row_per_p(tmp_path):
    # `reproducibility` of two `run --np 2,4` trials pooled p = 2 and p = 4 into one mean per
    # (op, size): a trial with fewer p = 4 launches read as 1.7× faster than one with more,
    # though every test took the same time in both; `analyze` has a row per p
    from test_analysis_multip import _lognormal, np_campaign

    def time_of(p, index):
        return _lognormal(lambda op, size: 100.0 if p == 2 else 1000.0)

    np_campaign(tmp_path / "t0", {2: 3, 4: 3}, time_of, seed=1)
    np_campaign(tmp_path / "t1", {2: 3, 4: 1}, time_of, seed=2)
    result = CliRunner().invoke(main, ["reproducibility", str(tmp_path / "t0"), str(tmp_path / "t1"),
                                       "--format", "json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["rows"]
    assert [(r["size"], r["nprocs"]) for r in rows] == [(8, 2), (8, 4), (1024, 2), (1024, 4)]
    for r in rows:
        assert r["spread"] < 1.1, r  # the same times at each p in both trials
        assert 0.9 < min(r["means_ns"]) / (100.0 if r["nprocs"] == 2 else 1000.0) < 1.1
    table = CliRunner().invoke(main, ["reproducibility", str(tmp_path / "t0"), str(tmp_path / "t1")],
                               env={"COLUMNS": "160"})
    assert table.exit_code == 0, table.output
    assert any(" size " in line and " p " in line for line in table.output.splitlines()), table.output
