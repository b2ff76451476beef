# SPDX-License-Identifier: BSD-3-Clause
"""libmpimeter-pgmpi.so in real launches (2 ranks, both libraries): a campaign without and one
with `mpimeter run --preload-pgmpi`. With it, meta.json records the library active with the
configuration's path and hash, and the calls it routed: the intercepted allreduce calls of the
covered sizes ran the mock-up, the others the original (counted by the library itself, not
timed). A bad configuration stops the launch at MPI_Init with one line. The build (`make build`)
makes the library beside each mpimeter-bench; skipped with a reason when a binary is missing."""

import json
import os
import shlex
import shutil
import subprocess
import sys

import pytest

from mpimeter.io import pgmpi_format
from mpimeter.campaign import launcher

BENCH_DIR = launcher.default_bench_dir()
LIBS = ("openmpi", "mpich")
ROUTED = (1024, 4096)  # the sizes the configuration covers (bytes)
SIZES = (8, 1024, 4096, 65536)
NREP = 20


def _usable(lib):
    return launcher.bench_binary(BENCH_DIR, lib).is_file() and shutil.which(launcher.local_template(lib).split()[0])


def _library(lib):
    path = launcher.bench_binary(BENCH_DIR, lib).parent.parent / "lib" / pgmpi_format.LIBRARY
    assert path.is_file(), f"{path} missing beside mpimeter-bench: rebuild with `make build`"
    return path


def fnv1a64(data: bytes) -> str:
    h = 14695981039346656037
    for byte in data:
        h = ((h ^ byte) * 1099511628211) % 2**64
    return f"{h:016x}"


def _campaign(lib, out, *extra):
    done = subprocess.run(
        [sys.executable, "-m", "mpimeter", "run", "--np", "2", "--launches", "1", "--mpi", lib, "--ops", "allreduce",
         "--sizes", ",".join(map(str, SIZES)), "--nrep", str(NREP), "--seed", "7", "--out", str(out), "--no-analyze",
         *extra], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    (meta,) = out.glob("**/launches/*/meta.json")
    return json.loads(meta.read_text())


@pytest.mark.parametrize("lib", LIBS)
def test_a_campaign_with_the_library_runs_the_mockup_at_the_covered_sizes_only(lib, tmp_path):
    if not _usable(lib):
        pytest.skip(f"no mpimeter-bench or launcher for {lib} under {BENCH_DIR} (run `make build`)")
    library = _library(lib)
    config = tmp_path / "pgmpi.conf"
    config.write_text(f"{pgmpi_format.HEADER}\nroute allreduce allreduce-as-rs-allgatherv 2 {ROUTED[0]} {ROUTED[1]}\n")
    without = _campaign(lib, tmp_path / "without")
    assert without["pgmpi"] is None
    meta = _campaign(lib, tmp_path / "with", "--preload-pgmpi", str(config))
    record = meta["pgmpi"]
    assert record["active"] is True and record["config"] == str(config.resolve())
    assert record["config_fnv1a64"] == fnv1a64(config.read_bytes())
    (route,) = record["routes"]
    assert (route["op"], route["mockup"], route["nprocs"], route["min_bytes"], route["max_bytes"]) == \
        ("allreduce", "allreduce-as-rs-allgatherv", 2, *ROUTED)
    # every recorded repetition of allreduce at 1024 and 4096 bytes ran the mock-up; those at 8 and
    # 65536 bytes (and the tool's own small allreduces) the original; warm-ups add to both
    assert route["calls"] >= NREP * len(ROUTED)
    assert record["original_calls"] >= NREP * (len(SIZES) - len(ROUTED))
    assert all(t["status"] == "complete" for t in meta["tests"])
    campaign = json.loads((tmp_path / "with" / "campaign.json").read_text())
    assert campaign["alternatives"][0]["env"]["LD_PRELOAD"] == str(library.resolve())


BAD = {  # configuration text after the header -> the message's words after the path
    "unknown": ("route allreduce allreduce-as-nothing 2 8 8\n",
                "line 2: 'allreduce allreduce-as-nothing': not a replacement this library makes (it makes: "
                "allreduce allreduce-as-reduce-bcast, allreduce allreduce-as-rs-allgatherv)"),
    "overlap": ("route allreduce allreduce-as-reduce-bcast 2 8 64\n# x\n"
                "route allreduce allreduce-as-rs-allgatherv 2 64 128\n",
                "line 4: its sizes overlap an earlier route of the same operation and NPROCS"),
    "range": ("route allreduce allreduce-as-reduce-bcast 2 64 8\n",
              "line 2: NPROCS must be an integer >= 1 and MIN_BYTES <= MAX_BYTES integers >= 0 "
              "(route OP MOCKUP NPROCS MIN_BYTES MAX_BYTES)"),
    "header": (None, "the first line must be '# mpimeter-pgmpi-config 1' (write the file with mpimeter "
                     "guidelines --replace)"),
}


@pytest.mark.parametrize("case", sorted(BAD))
@pytest.mark.parametrize("lib", LIBS)
def test_a_bad_configuration_stops_the_launch_at_mpi_init_with_one_line(lib, case, tmp_path):
    if not _usable(lib):
        pytest.skip(f"no mpimeter-bench or launcher for {lib} under {BENCH_DIR} (run `make build`)")
    text, message = BAD[case]
    config = tmp_path / "pgmpi.conf"
    config.write_text("route allreduce allreduce-as-reduce-bcast 2 8 8\n" if text is None
                      else f"{pgmpi_format.HEADER}\n{text}")
    env = {**os.environ, "LD_PRELOAD": str(_library(lib)), pgmpi_format.CONFIG_ENV: str(config)}
    template = launcher.local_template(lib, ["LD_PRELOAD", pgmpi_format.CONFIG_ENV])
    bench = launcher.bench_binary(BENCH_DIR, lib)
    argv = shlex.split(template.replace("{np}", "2").replace("{cmd}", shlex.quote(str(bench))))
    done = subprocess.run(argv + ["--ops", "allreduce", "--sizes", "8", "--nrep", "5", "--out", str(tmp_path / "l")],
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    said = [line for line in (done.stdout + done.stderr).splitlines() if line.startswith("libmpimeter-pgmpi:")]
    assert said == [f"libmpimeter-pgmpi: {pgmpi_format.CONFIG_ENV}={config}: {message}"]
    assert not (tmp_path / "l" / "raw.csv").exists()
