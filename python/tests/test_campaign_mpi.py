"""A real campaign: 3 launches × 2 ranks with both MPI libraries, through the real launchers
and the real mpimeter-bench (built by `make build`, which `make test` runs first). Skipped with a
reason when a binary is missing (running pytest by hand before building)."""

import json
import shutil
import subprocess
import sys

import pytest

from mpimeter.campaign import launcher

BENCH_DIR = launcher.default_bench_dir()
LIBS = ("openmpi", "mpich")
missing = [lib for lib in LIBS
           if not launcher.bench_binary(BENCH_DIR, lib).is_file()
           or not shutil.which(launcher.local_template(lib).split()[0])]

pytestmark = pytest.mark.skipif(bool(missing), reason=f"no mpimeter-bench or mpirun for "
                                f"{', '.join(missing)} under {BENCH_DIR} (run `make build`)")


def test_three_launches_of_two_ranks_with_both_libraries(tmp_path):
    out = tmp_path / "libs"
    ops, sizes, nrep = ["allreduce", "bcast"], [8, 1024], 20
    done = subprocess.run(
        [sys.executable, "-m", "mpimeter", "run", "--np", "2", "--launches", "3",
         "--mpi", "openmpi,mpich", "--ops", ",".join(ops), "--sizes", ",".join(map(str, sizes)),
         "--nrep", str(nrep), "--seed", "2026", "--out", str(out), "--no-analyze"],
        capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    disk = json.loads((out / "campaign.json").read_text())
    launches = disk["launches"]
    assert len(launches) == 6 and all(x["status"] == "complete" for x in launches), launches
    for r in range(3):  # interleaved: every round runs each library once
        assert sorted(x["alternative"] for x in launches[2 * r: 2 * r + 2]) == sorted(LIBS)
    assert len({x["seed"] for x in launches}) == 6
    for x in launches:
        folder = out / x["folder"]
        assert x["folder"] == f"{x['alternative']}/launches/{x['index']:03d}"
        assert x["exit_code"] == 0 and x["duration_s"] > 0
        meta = json.loads((folder / "meta.json").read_text())
        assert meta["status"] == "complete"
        assert meta["nprocs"] == 2
        assert meta["config"]["seed"] == x["seed"]
        assert meta["mpi"]["library"] == x["alternative"]
        lines = (folder / "raw.csv").read_text().strip().splitlines()
        assert lines[0] == "test,op,size,rank,rep,start_ns,end_ns,valid,gstart_ns,gend_ns,init_ns,test_ns,wait_ns,compute_ns,blocking_ns"
        assert len(lines) - 1 == 2 * len(ops) * len(sizes) * nrep
        assert {line.split(",")[1] for line in lines[1:]} == set(ops)
    expected = "mpirun.openmpi" if disk["alternatives"][0]["name"] == "openmpi" else "mpiexec.mpich"
    assert disk["alternatives"][0]["launch_template"].startswith(expected)
