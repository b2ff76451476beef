# SPDX-License-Identifier: BSD-3-Clause
"""What the binary writes is byte-identical to what it wrote before the C core was restructured
(a refactor changes no byte of a document or a file).

For a fixed seed and the virtual timer, each of these is compared byte for byte with its golden
copy in data/identity/<lib>/, produced by the binary before the refactor:

- the `--describe` document and the configuration `--validate 2` prints;
- meta.json, raw.csv, sync.csv and counters.csv of a launch with full rows (a clock sync, a
  nonblocking collective, a ping-pong, an operation without size, MPI_T counters where the
  library offers a readable one), of a launch with `--raw reduced`, and of a one-sided launch.

What must vary from run to run is masked explicitly before comparing, and nothing else: in
meta.json the values under MASKED_META (clock readings and durations, host load, pids, the
machine's environment and probes, the git revision compiled in); in the CSV files the columns
of MASKED_COLUMNS (timestamps, offsets, round trips, counter values). A masked value keeps its
JSON type (or, in a CSV cell, whether it is empty), so the shape and every other byte count.

Regenerate (only when a format change is intended): MM_IDENTITY_REGEN=1 with the binaries of
the commit whose output is the reference in MM_IDENTITY_BUILD (default: this checkout's build/).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest
from conftest import REPO, launcher

HERE = Path(__file__).resolve().parent
GOLDEN = HERE / "data" / "identity"
BUILD = Path(os.environ.get("MM_IDENTITY_BUILD", REPO / "build"))
REGEN = os.environ.get("MM_IDENTITY_REGEN") == "1"

# meta.json paths (dot-separated, [] for any list item; a regular expression over the whole
# path) whose values depend on the clock, the host or the moment, never on the code's output
# logic. Each subtree below them is masked leaf by leaf.
MASKED_META = [
    r"\.tool\.git_revision",              # the commit compiled in
    r"\.pid", r"\.ranks\[\]\.(pid|cpu_changes|cpu_khz)",
    r"\.argv\[\]",                         # holds the binary's and the folder's paths
    r"\.config\.out",                      # the temporary folder
    r"\.build\.(compiler|flags)",
    r"\.system\..*", r"\.host_of_rank0", r"\.ranks\[\]\.host",
    r"\.load\..*",                         # host load and wall time
    r"\.wall_start", r"\.wall_end", r"\.launch_epoch_local_ns_rank0",
    r"\.timer\.(resolution_ns|overhead_ns|tsc_hz)",
    r"\.clock_sync\.(duration_s|total_duration_s)",
    r"\.clock_sync\.models\[\]\.(anchor_ns|slope|intercept_ns)",
    r"\.clock_sync\.residual_(start|end)\.(residual_ns\[\]|max_abs_ns)",
    r"\.tests\[\]\.(started_s|duration_s|median_ns|start_tolerance_ns|budget_s)",
    r"\.clock_sync\.self_check\.(drift_aware_residual_ns|offset_only_residual_ns)",
    r"\.tests\[\]\.nbc\.(compute_ns|calibrated_ns|work_units)",
    r"\.tests\[\]\.back_to_back\.(calls|mean_ns)",  # its time per call, and calls lowered by it
    r"\.tests\[\]\.other_cpu\.(tick_s|wall_s\[\]|other_cpu_s\[\]|share\[\])",  # the machine's load
    r"\.proc_sync\.window_ns_by_test\..*",
    r"\.counters\.read_ns_by_test\..*",  # the cost of one read, measured
    r"\.phases\..*",                      # wall times of the launch's phases
]
# CSV columns whose cells are clock readings or counter values (empty cells stay empty).
MASKED_COLUMNS = {
    "raw.csv": {"start_ns", "end_ns", "gstart_ns", "gend_ns", "init_ns", "test_ns", "wait_ns",
                "compute_ns", "blocking_ns"},
    "sync.csv": {"local_ns", "offset_ns", "rtt_ns"},
    "counters.csv": {"value"},
}
_MASK_RE = re.compile("^(?:" + "|".join(MASKED_META) + ")$")
# objects masked whole, keys included: which variables the launcher sets, which probes the
# machine allows, which control variables the library has, the CPUs a rank ran on
MASKED_WHOLE = [r"\.environment", r"\.mpi\.mpi_t", r"\.probes", r"\.ranks\[\]\.(cpus|cpus_seen)"]
_WHOLE_RE = re.compile("^(?:" + "|".join(MASKED_WHOLE) + ")$")

COMMON = ["--timer", "virtual", "--virtual-offset-s", "0.5", "--virtual-skew-ppm", "20",
          "--seed", "7", "--procsync", "barrier", "--nrep", "4", "--warmup", "2",
          "--copy-probe-bytes", "0", "--resync-s", "0"]
LAUNCHES = {
    "full": COMMON + ["--ops", "allreduce,bcast,ibcast,pingpong-send-recv,barrier",
                      "--sizes", "8,1024", "--clocksync", "hca3"],
    "reduced": COMMON + ["--ops", "allreduce,gather", "--sizes", "16", "--raw", "reduced",
                         "--clocksync", "skampi"],
    # one-sided: meta.json's "rma" block, the rows of a mode, a -bw row's volume
    "rma": COMMON + ["--ops", "rma-put,rma-acc,rma-put-bw", "--sizes", "8,64", "--rma-sync",
                     "lock-all-flush", "--rma-window", "allocate", "--rma-burst", "4", "--pair", "0,1",
                     "--clocksync", "none"],
}
# a readable performance variable, where the library offers one
PVARS = {"openmpi": ["--mpit-pvars", "pml_ob1_unexpected_msgq_length"], "mpich": []}


def _bench(lib: str) -> Path:
    path = BUILD / lib / "bin" / "mpimeter-bench"
    if not path.exists():
        pytest.fail(f"{path} is missing: run `make build` first")
    return path


_SCALAR = re.compile(r'"(?:[^"\\]|\\.)*"|true|false|null|[-+0-9.eEinfaINFA]+')


def _path(stack) -> str:
    return "".join(f".{f[1]}" if f[0] == "obj" else "[]" for f in stack)


def _skip_container(text: str, i: int) -> int:
    """The index after the object or array that starts at i (strings may hold brackets)."""
    depth = 0
    while True:
        m = _SCALAR.match(text, i) if text[i] == '"' else None
        if m:
            i = m.end()
            continue
        depth += {"{": 1, "[": 1, "}": -1, "]": -1}.get(text[i], 0)
        i += 1
        if depth == 0:
            return i


def _masked_meta(text: str) -> str:
    """meta.json with the values of masked paths replaced in place: every other byte (spacing,
    key order, number formatting) is kept as the binary wrote it. null stays null."""
    out, stack, i = [], [], 0  # stack: [kind, key, expecting_key]
    while i < len(text):
        c = text[i]
        if c in " \n\t,:":
            out.append(c)
            i += 1
            continue
        if c in "{[" and _WHOLE_RE.match(_path(stack)):
            i = _skip_container(text, i)
            out.append("<masked>")
            if stack and stack[-1][0] == "obj":
                stack[-1][2] = True
            continue
        if c in "{[":
            stack.append(["obj" if c == "{" else "arr", None, c == "{"])
            out.append(c)
            i += 1
            continue
        if c in "}]":
            stack.pop()
            if stack and stack[-1][0] == "obj":
                stack[-1][2] = True
            out.append(c)
            i += 1
            continue
        m = _SCALAR.match(text, i)
        assert m, f"meta.json: unexpected {text[i:i + 20]!r}"
        token = m.group(0)
        i = m.end()
        if stack and stack[-1][0] == "obj" and stack[-1][2]:
            stack[-1][1] = json.loads(token)
            stack[-1][2] = False
            out.append(token)
            continue
        out.append("<masked>" if _MASK_RE.match(_path(stack)) and token != "null" else token)
        if stack and stack[-1][0] == "obj":
            stack[-1][2] = True
    return "".join(out)


def _masked_csv(name: str, text: str) -> str:
    lines = text.split("\n")
    header = lines[0].split(",")
    masked = {i for i, col in enumerate(header) if col in MASKED_COLUMNS.get(name, set())}
    out = [lines[0]]
    for line in lines[1:]:
        cells = line.split(",")
        out.append(",".join("" if i in masked and c == "" else ("#" if i in masked else c)
                            for i, c in enumerate(cells)))
    return "\n".join(out)


def _check(lib: str, name: str, produced: str) -> None:
    golden = GOLDEN / lib / name
    if REGEN:
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(produced)
        return
    assert golden.exists(), f"{golden} is missing"
    expected = golden.read_text()
    assert produced == expected, f"{name} differs from {golden} (a refactor changes no byte)"


def test_describe_and_validate_are_byte_identical(lib):
    describe = subprocess.run([str(_bench(lib)), "--describe"], capture_output=True, text=True,
                              timeout=60, check=True).stdout
    json.loads(describe)  # one document
    # the commit compiled in is not the code's output logic, nor whether the machine that built
    # it had LIKWID (scripts/setup.sh does not install it)
    describe = re.sub(r'("git_revision": )"[^"]*"', r'\1"<masked>"', describe)
    _check(lib, "describe.json", re.sub(r'("likwid": )(?:true|false)', r'\1"<masked>"', describe))
    validated = subprocess.run([str(_bench(lib)), "--validate", "2"] + LAUNCHES["full"] +
                               ["--out", "/nonexistent-identity-out"],
                               capture_output=True, text=True, timeout=60)
    assert validated.returncode == 0, validated.stderr
    _check(lib, "validate.txt", validated.stdout)


@pytest.mark.parametrize("case", sorted(LAUNCHES))
def test_launch_files_are_byte_identical(lib, case, tmp_path):
    out = tmp_path / case
    args = LAUNCHES[case] + (PVARS[lib] if case == "full" else []) + ["--out", str(out)]
    cmd = launcher(lib, 2) + [str(_bench(lib))] + args
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    written = sorted(p.name for p in out.iterdir())
    expected = ["meta.json", "raw.csv", "sync.csv"] + (
        ["counters.csv"] if case == "full" and PVARS[lib] else [])
    assert written == sorted(expected)
    _check(lib, f"{case}.meta.json", _masked_meta((out / "meta.json").read_text()))
    for name in expected[1:]:
        _check(lib, f"{case}.{name}", _masked_csv(name, (out / name).read_text()))
