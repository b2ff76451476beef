# SPDX-License-Identifier: BSD-3-Clause
"""The files `mpimeter tune` writes, given to the real libraries: a launch of the real
mpimeter-bench with the file set runs (Open MPI 4.1: OMPI_MCA_coll_tuned_use_dynamic_rules=1
OMPI_MCA_coll_tuned_dynamic_rules_filename=FILE; MPICH 4.0: MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=FILE),
and the same file with one choice broken makes the launch fail — so the library did read and
apply the file (neither library shows it through MPI_T here: Open MPI's use_dynamic_rules reads
as a bool the binary cannot print, and neither file variable is among the ones meta.json
records). Then `tune --verify` end to end. Skipped with a reason when a binary is missing."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from data.synth_tuning import algorithm_campaign, mpich, ompi
from data.testkit import missing_bench

from mpimeter.campaign import launcher

BENCH_DIR, missing, pytestmark = missing_bench()

OPS = ("allreduce", "bcast", "allgather", "alltoall")


def tune(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mpimeter", "tune", *map(str, args)], capture_output=True,
                          text=True, timeout=600)


# The library applies the file's choice at every call of a collective: the launches start each
# repetition with a barrier (no window to size, no clock sync), warm up with one call and skip
# the copy probe, which only bounds what is measured (oversubscribed MPICH ranks take
# milliseconds a message: the defaults made a 4-rank launch about twice as long)
QUICK = ("--procsync", "barrier", "--clocksync", "none", "--warmup", "1")


def launch(lib: str, np: int, env: dict[str, str], out: Path) -> subprocess.CompletedProcess:
    """One launch of the real binary under the library's own launcher (which forwards env)."""
    template = launcher.local_template(lib, sorted(env))
    argv = launcher.build_argv(template, np, [str(launcher.bench_binary(BENCH_DIR, lib)), "--ops", ",".join(OPS),
                                              "--sizes", "8,64,1024", "--nrep", "5", *QUICK,
                                              "--copy-probe-bytes", "0", "--out", str(out)])
    return subprocess.run(argv, env={**os.environ, **env}, capture_output=True, text=True, timeout=300)


def _winners(alt, op, size, p):
    return 0.6 if alt != "default-named" and alt.split("-")[0] == op else 1.0


def test_open_mpi_runs_with_the_rules_file_and_applies_it(tmp_path):
    envs = {"openmpi": {}, "allreduce-ring": ompi("allreduce", 4), "bcast-chain": ompi("bcast", 2, chain_fanout="4"),
            "allgather-ring": ompi("allgather", 4), "alltoall-pairwise": ompi("alltoall", 2)}
    root = algorithm_campaign(tmp_path / "c", envs, lambda alt, op, size, p: 0.6 if alt.split("-")[0] == op and
                              size <= 64 else 1.0, ops=OPS, sizes=(8, 64, 1024), nprocs=(2, 4), launches=16)
    rules = tmp_path / "tuned.rules"
    done = tune(root, "--out", rules)
    assert done.returncode == 0, done.stdout + done.stderr
    text = rules.read_text()
    assert "# library: Open MPI v4.1.4 (synthetic)" in text
    chosen = [line for line in text.splitlines() if re.match(r"^\d+ [1-9]\d* \d+ \d+", line)]
    assert len(chosen) == 8, text  # 4 ops × 2 process counts: a choice each, for 8 and 64 B
    env = {"OMPI_MCA_coll_tuned_use_dynamic_rules": "1", "OMPI_MCA_coll_tuned_dynamic_rules_filename": str(rules)}
    for np in (2, 3, 4):  # 3: a communicator size the file keeps the library's decision for
        run = launch("openmpi", np, env, tmp_path / f"ok{np}")
        assert run.returncode == 0, run.stdout + run.stderr
        meta = json.loads((tmp_path / f"ok{np}" / "meta.json").read_text())
        assert meta["status"] == "complete" and meta["environment"]["OMPI_MCA_coll_tuned_dynamic_rules_filename"] == str(rules)
    # the control: the allreduce choice at 2 ranks made an algorithm Open MPI does not have
    broken = tmp_path / "broken.rules"
    lines = text.splitlines()
    i = next(k for k, line in enumerate(lines) if line.startswith("2  # allreduce"))
    j = next(k for k in range(i, len(lines)) if re.match(r"^8 [1-9]\d* 0 0", lines[k]))
    lines[j] = re.sub(r"^8 \d+", "8 99", lines[j])
    broken.write_text("\n".join(lines) + "\n")
    run = launch("openmpi", 2, {**env, "OMPI_MCA_coll_tuned_dynamic_rules_filename": str(broken)}, tmp_path / "bad")
    assert run.returncode != 0


def test_mpich_runs_with_the_json_file_and_applies_it(tmp_path):
    envs = {"mpich": {}, "allreduce-rd": mpich("allreduce", "recursive_doubling"),
            "bcast-ring": mpich("bcast", "scatter_ring_allgather"), "allgather-ring": mpich("allgather", "ring"),
            "alltoall-pairwise": mpich("alltoall", "pairwise")}
    root = algorithm_campaign(tmp_path / "c", envs, lambda alt, op, size, p: 0.6 if alt.split("-")[0] == op and
                              size <= 64 else 1.0, ops=OPS, sizes=(8, 64, 1024), nprocs=(2, 4), launches=16,
                              library="mpich")
    tree = tmp_path / "tuned.json"
    done = tune(root, "--out", tree)
    assert done.returncode == 0, done.stdout + done.stderr
    text = tree.read_text()
    assert text.startswith("// MPICH collective selection") and "// library: MPICH Version: 4.0.2 (synthetic)" in text
    assert text.count("algorithm=MPIR_Allgather_intra_ring") >= 2
    env = {"MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE": str(tree)}
    for np in (2, 3, 4):
        run = launch("mpich", np, env, tmp_path / f"ok{np}")
        assert run.returncode == 0, run.stdout + run.stderr
        assert json.loads((tmp_path / f"ok{np}" / "meta.json").read_text())["status"] == "complete"
    # the control: a choice MPICH does not know (MPICH stops on it)
    broken = tmp_path / "broken.json"
    broken.write_text(text.replace("algorithm=MPIR_Allgather_intra_ring", "algorithm=MPIR_Allgather_intra_nonesuch"))
    run = launch("mpich", 2, {"MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE": str(broken)}, tmp_path / "bad")
    assert run.returncode != 0 and "unrecognized key" in run.stdout + run.stderr


def test_verify_runs_default_against_tuned_and_gates(tmp_path):
    root = algorithm_campaign(tmp_path / "c", {"openmpi": {}, "ring": ompi("allreduce", 4)},
                              lambda alt, op, size, p: 0.6 if alt == "ring" else 1.0, sizes=(8, 1024))
    rules = tmp_path / "tuned.rules"
    assert tune(root, "--out", rules).returncode == 0
    out = tmp_path / "verify"
    done = tune("--verify", rules, out, "--launches", "4", "--json", "--", "--nrep", "20", "--seed", "5", *QUICK)
    assert done.returncode in (0, 1), done.stdout + done.stderr
    res = json.loads(done.stdout)  # mpimeter run's progress went to stderr
    assert res["library"] == "openmpi" and res["passed"] == (done.returncode == 0)
    assert {(p["op"], p["nprocs"], p["size"]) for p in res["predictions"]} == {("allreduce", 2, 8),
                                                                                ("allreduce", 2, 1024)}
    for p in res["predictions"]:
        assert p["launches_default"] == p["launches_tuned"] == 4 and 0.55 < p["predicted_ratio"] < 0.65
        # 4 launches a side: a 95 % Hodges–Lehmann interval exists (the smallest two-sided p is 2/70)
        assert p["measured_ci_low"] <= p["measured_ratio"] <= p["measured_ci_high"]
        assert p["within"] == (p["measured_ci_low"] <= p["predicted_ratio"] <= p["measured_ci_high"])
    camp = json.loads((out / "campaign.json").read_text())
    tuned = next(a for a in camp["alternatives"] if a["name"] == "tuned")
    assert tuned["env"] == {"OMPI_MCA_coll_tuned_use_dynamic_rules": "1",
                            "OMPI_MCA_coll_tuned_dynamic_rules_filename": str(rules.resolve())}
    assert {x["status"] for x in camp["launches"]} == {"complete"} and len(camp["launches"]) == 8
