# SPDX-License-Identifier: BSD-3-Clause
"""`mpimeter run --mpi smpi` without SimGrid: the platform checks, the smpirun template, the
record in campaign.json and what reaches a launch, with a stand-in for smpirun and the bench
(data/fakebench.py). The real simulation: c/tests/simgrid/test_run_smpi.py."""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import sys
from pathlib import Path

import pytest

from data.fakebench import FAKE_BENCH, REAL_BENCH, cli, one_line_error
from mpimeter.campaign import launcher, oversub, simulation
from mpimeter.campaign.plan import PlanError
from mpimeter.campaign.state import CampaignFileError
from mpimeter.io import bench_binaries

REPO = Path(__file__).resolve().parents[2]

# smpirun's options as the template gives them, then the program: run it as it is
FAKE_SMPIRUN = r'''#!/bin/sh
if [ "$1" = -version ]; then echo "SimGrid version 3.32"; exit 0; fi
echo "$@" >> "$FAKE_SMPIRUN_LOG"
[ "$1" = -np ] || exit 9
shift 2
[ "$1" = -platform ] || exit 9
shift 2
while [ "${1#--cfg=}" != "$1" ]; do shift; done
exec "$@"
'''


def platform_file(path: Path, hosts: int) -> Path:
    path.write_text("<?xml version='1.0'?>\n<platform version=\"4.1\">\n <zone id=\"z\" routing=\"Full\">\n"
                    + "".join(f'  <host id="h{i}" speed="1Gf"/>\n' for i in range(hosts))
                    + " </zone>\n</platform>\n")
    return path


@pytest.fixture
def smpi_env(tmp_path, monkeypatch):
    """A bench dir with stand-ins for the SimGrid and the Open MPI build, a stand-in smpirun first
    on PATH."""
    for lib in ("smpi", "openmpi"):  # openmpi: a campaign that names it beside, or instead
        binary = tmp_path / "bench" / lib / "bin" / "mpimeter-bench"
        binary.parent.mkdir(parents=True)
        binary.write_text(FAKE_BENCH.replace("{python}", sys.executable).replace("{real}", str(REAL_BENCH)))
        binary.chmod(0o755)
    tools = tmp_path / "tools"
    tools.mkdir()
    (tools / "smpirun").write_text(FAKE_SMPIRUN)
    (tools / "smpirun").chmod(0o755)
    monkeypatch.setenv("PATH", f"{tools}:{os.environ['PATH']}")
    monkeypatch.setenv("MPIMETER_BENCH_DIR", str(tmp_path / "bench"))
    monkeypatch.setenv("FAKE_SMPIRUN_LOG", str(tmp_path / "smpirun.log"))
    simulation.simgrid_version.cache_clear()
    yield tmp_path
    simulation.simgrid_version.cache_clear()


def launched(tmp: Path) -> list[str]:
    """The launches the stand-in smpirun started (not the questions --describe, --validate)."""
    log = tmp / "smpirun.log"
    return [line for line in (log.read_text().splitlines() if log.exists() else []) if "--out" in line]


SMALL = ["--mpi", "smpi", "--np", "2", "--ops", "bcast", "--sizes", "8", "--nrep", "5", "--no-analyze"]


def test_the_shipped_platform_is_the_study_cluster_of_128_hosts():
    sys.path.insert(0, str(REPO / "bench"))
    import sim_platform

    text = simulation.DEFAULT_PLATFORM.read_text()
    assert text == sim_platform.platform_xml(128, 1)
    hosts, digest = simulation.platform_hosts(simulation.DEFAULT_PLATFORM)
    assert hosts == [f"node-{i}" for i in range(128)]
    assert digest == hashlib.sha256(text.encode()).hexdigest()


def test_a_campaign_records_the_platform_and_every_launch_runs_smpirun_on_it(smpi_env):
    tmp = smpi_env
    platform = platform_file(tmp / "four.xml", 4)
    out = tmp / "c"
    result = cli([*SMALL, "--launches", "2", "--seed", "7", "--platform", str(platform), "--out", str(out)],
                 env={"FAKE_BENCH_ECHO": simulation.PLATFORM_SHA256_ENV})
    assert result.exit_code == 0, result.output
    doc = json.loads((out / "campaign.json").read_text())
    sha = hashlib.sha256(platform.read_bytes()).hexdigest()
    assert doc["simulation"] == {"platform": str(platform), "sha256": sha, "hosts": 4,
                                 "simgrid_version": "SimGrid version 3.32", "smpi_cfg": list(simulation.SMPI_CFG)}
    (alt,) = doc["alternatives"]
    assert alt["launch_template"] == (f"smpirun -np {{np}} -platform {platform} "
                                      "--cfg=smpi/simulate-computation:no --cfg=smpi/gather:ompi_binomial {cmd}")
    for rec in doc["launches"]:
        assert rec["status"] == "complete"
        assert rec["argv"][:4] == ["smpirun", "-np", "2", "-platform"]
        assert rec["oversubscription"] is None  # simulated ranks share no core
        meta = json.loads((out / rec["folder"] / "meta.json").read_text())
        assert meta["env_echo"] == sha  # the launch's environment carries the digest into meta.json
    assert len(launched(tmp)) == 2


def test_the_default_platform_is_the_shipped_one(smpi_env):
    out = smpi_env / "c"
    result = cli([*SMALL, "--launches", "1", "--out", str(out)])
    assert result.exit_code == 0, result.output
    doc = json.loads((out / "campaign.json").read_text())
    assert doc["simulation"]["platform"] == str(simulation.DEFAULT_PLATFORM)
    assert doc["simulation"]["hosts"] == 128


def test_simulated_ranks_are_not_held_to_the_cores(smpi_env):
    """--launcher local allows 64 ranks per core of this machine; simulated ranks are contexts of
    one simulator process, bounded by the platform's hosts instead."""
    platform = platform_file(smpi_env / "many.xml", 4096)
    np = 64 * len(os.sched_getaffinity(0)) + 1
    out = smpi_env / "c"
    result = cli([*SMALL, "--np", str(np), "--launches", "1", "--platform", str(platform), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert json.loads((out / "campaign.json").read_text())["np"] == np
    line = one_line_error(cli([*SMALL, "--mpi", "openmpi", "--np", str(np), "--out", str(smpi_env / "d")]))
    assert "per core" in line


@pytest.mark.parametrize("args, message", [
    (["--mpi", "openmpi", "--platform", "PLATFORM4"], "a SimGrid platform is for --mpi smpi only"),
    (["--mpi", "smpi,openmpi"], "the SimGrid build runs alone"),
    (["--mpi", "smpi", "--launcher", "srun"], "runs under smpirun on its platform (--platform) only"),
    (["--mpi", "smpi", "--platform", "MISSING"], "no such file"),
    (["--mpi", "smpi", "--platform", "FOLDER"], "is a directory"),
    (["--mpi", "smpi", "--platform", "NOTXML"], "not a SimGrid platform (no <platform> element)"),
    (["--mpi", "smpi", "--platform", "NOHOSTS"], "no <host id=...> in it"),
    (["--mpi", "smpi", "--platform", "PLATFORM4", "--np", "5"], "--np 5: the platform"),
    (["--mpi", "smpi", "--platform", "SPACED"], "smpirun passes the program's arguments through its shell"),
    (["--mpi", "smpi", "--algorithms", "bcast=all"], "--algorithms: not with --mpi smpi"),
])
def test_what_cannot_be_simulated_is_refused_in_one_line(smpi_env, args, message):
    tmp = smpi_env
    (tmp / "dir.xml").mkdir()
    (tmp / "notxml.xml").write_text("hello\n")
    (tmp / "nohosts.xml").write_text("<platform version='4.1'><zone id='z' routing='Full'/></platform>\n")
    (tmp / "with space").mkdir()
    paths = {"PLATFORM4": platform_file(tmp / "four.xml", 4), "MISSING": tmp / "missing.xml",
             "FOLDER": tmp / "dir.xml", "NOTXML": tmp / "notxml.xml", "NOHOSTS": tmp / "nohosts.xml",
             "SPACED": platform_file(tmp / "with space" / "p.xml", 4)}
    args = [str(paths.get(a, a)) for a in args]
    base = ["--np", "2", "--ops", "bcast", "--sizes", "8", "--nrep", "5", "--no-analyze", "--out", str(tmp / "c")]
    line = one_line_error(cli([*base, *args]))  # the later of an option given twice wins
    assert message in line
    assert launched(tmp) == []  # nothing ran (questions to the binary aside)


def test_a_platform_too_large_is_refused(smpi_env, monkeypatch):
    monkeypatch.setattr(simulation, "MAX_PLATFORM_BYTES", 100)
    with pytest.raises(PlanError, match="more than"):
        simulation.record(platform_file(smpi_env / "p.xml", 4), [2])


def test_an_out_folder_smpirun_would_split_is_refused(smpi_env):
    line = one_line_error(cli([*SMALL, "--launches", "1", "--out", str(smpi_env / "a b")]))
    assert "--out" in line and "smpirun passes" in line
    assert not (smpi_env / "a b").exists()


@pytest.mark.parametrize("word", ["a b", "a\tb", "ops*", "size?", "[ab]", "new\nline"])
def test_words_smpirun_would_change_are_refused(word):
    with pytest.raises(PlanError, match="smpirun passes"):
        simulation.check_words(["fine", word], "--x")
    simulation.check_words(["/a/b-c_d.e", "--sizes", "8,1024", "x=1"], "--x")


def test_resume_refuses_a_platform_that_changed(smpi_env):
    tmp = smpi_env
    platform = platform_file(tmp / "four.xml", 4)
    out = tmp / "c"
    result = cli([*SMALL, "--launches", "2", "--platform", str(platform), "--out", str(out)])
    assert result.exit_code == 0, result.output
    doc = json.loads((out / "campaign.json").read_text())
    doc["launches"][1].update(status="pending")
    (out / "campaign.json").write_text(json.dumps(doc))
    platform_file(platform, 5)
    line = one_line_error(cli(["--resume", str(out)]))
    assert "the platform" in line and "changed since the campaign started" in line
    platform_file(platform, 4)  # as it was: the campaign goes on
    result = cli(["--resume", str(out)])
    assert result.exit_code == 0, result.output


def test_the_record_read_back_is_checked(smpi_env):
    good = simulation.record(platform_file(smpi_env / "p.xml", 4), [2])

    def fail(where, what):
        raise CampaignFileError(f"{where}: {what}")

    assert simulation.read(json.loads(json.dumps(good)), fail) == good
    assert simulation.read(None, fail) is None
    for change, where in [({"sha256": "x" * 64}, "simulation.sha256"), ({"platform": "p.xml"}, "simulation.platform"),
                          ({"platform": "/a b.xml"}, "simulation.platform"), ({"hosts": 0}, "simulation.hosts"),
                          ({"smpi_cfg": ["--cfg=smpi/simulate-computation:yes"]}, "simulation.smpi_cfg"),
                          ({"extra": 1}, "unknown key")]:
        with pytest.raises(CampaignFileError, match=where.replace(".", r"\.")):
            simulation.read({**good, **change}, fail)


def test_the_template_reaches_the_binary_word_by_word():
    record = {"platform": "/p/cluster.xml", "smpi_cfg": list(simulation.SMPI_CFG)}
    template = launcher.resolve_template("local", "smpi", [], simulation=record)
    argv = launcher.build_argv(template, 4, ["/b/mpimeter-bench", "--out", "/c/launches/000"])
    assert argv == ["smpirun", "-np", "4", "-platform", "/p/cluster.xml", *simulation.SMPI_CFG,
                    "/b/mpimeter-bench", "--out", "/c/launches/000"]
    assert shlex.split(template)[0] == "smpirun"


def test_the_simulated_build_answers_questions_under_smpirun():
    """smpicc links the binary as a plugin of the simulator: it runs under smpirun only."""
    argv = bench_binaries.question_argv("/b/smpi/bin/mpimeter-bench", ["--describe"])
    assert argv == ["smpirun", "-np", "1", "-platform", str(simulation.DEFAULT_PLATFORM),
                    "/b/smpi/bin/mpimeter-bench", "--describe"]
    assert bench_binaries.question_argv("/b/openmpi/bin/mpimeter-bench", ["--describe"]) == [
        "/b/openmpi/bin/mpimeter-bench", "--describe"]


def test_simulated_ranks_are_not_oversubscribed():
    assert oversub.settings(128, 2, "smpi", {}) is None
    assert oversub.settings(128, 2, "openmpi", {}) is not None


def test_a_missing_simgrid_build_names_its_own_make_target(tmp_path):
    # the SimGrid build is not among `make build`'s: the message names the target that makes it
    from mpimeter.campaign.launcher import check_binary

    with pytest.raises(PlanError, match=r"build it with `make build-smpi`"):
        check_binary(tmp_path, "smpi")
    with pytest.raises(PlanError, match=r"build it with `make build`,"):
        check_binary(tmp_path, "openmpi")
