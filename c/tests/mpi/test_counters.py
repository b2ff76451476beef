# SPDX-License-Identifier: BSD-3-Clause
"""Per-repetition counters on real ranks (docs/FORMAT.md, "counters.csv"):

- `--list-pvars` lists what each library offers (Open MPI 4.1.4: ~18 variables, a few readable;
  MPICH 4.0.2 as Debian builds it: none), each row saying whether mpimeter can read it and why not;
- a counter that must change does: Open MPI's coll_monitoring_messages_size (with its monitoring
  on) grows with the message size, rank 0 sending `size` bytes per broadcast;
- counters.csv has one row per metric for exactly the (test, rank, rep) rows of raw.csv, full and
  reduced, and meta.json says what was read and what reading cost;
- `--mpit-pvars all` on a library without variables records none (a condition says so);
- bad input — an unknown variable, one bound to an object mpimeter does not bind, one that crashes
  the library, `--papi` on a machine without counters (as PAPI's own papi_avail says) or in a build
  without PAPI — is one line, exit 2 on every rank, nothing written.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest
from conftest import REPO, assert_refused, bench_path, described, launcher, run_bench

# Open MPI's monitoring components count collective traffic per communicator; its OSC part breaks
# MPI_Win_allocate_shared (MPI_ERR_RMA_FLAVOR, which the launch's cache-line probe uses), so it
# stays off.
OMPI_MONITORING = ["--mca", "pml_monitoring_enable", "1", "--mca", "osc", "^monitoring"]


def _list(lib: str, extra: list[str] = ()) -> tuple[int, int, dict[str, str]]:
    """(variables, readable, name -> readable column) of --list-pvars under 2 ranks."""
    cmd = launcher(lib, 2) + list(extra) + [str(bench_path(lib)), "--list-pvars"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert sum(ln.startswith("MPI library:") for ln in lines) == 1, "printed by one rank only"
    m = re.search(r"performance variables \(MPI_T\): (\d+), (\d+) of them readable", proc.stdout)
    assert m, proc.stdout
    rows = {}
    for ln in lines:  # columns are two or more spaces apart
        cells = re.split(r" {2,}", ln, maxsplit=5)
        if len(cells) == 6 and cells[0] != "name" and "—" in cells[5]:
            rows[cells[0]] = cells[5]
    return int(m.group(1)), int(m.group(2)), rows


def test_list_pvars(lib):
    n, readable, rows = _list(lib)
    assert len(rows) == n
    assert sum(r.startswith("yes") for r in rows.values()) == readable
    if lib == "openmpi":
        assert readable >= 1
        assert rows["mpool_hugepage_bytes_allocated"].startswith("yes")
        window = [r for name, r in rows.items() if name.startswith("osc_rdma_")]
        assert window and all("bound to an MPI window" in r for r in window)
        # monitoring on: its collective counters appear and can be read
        _, readable_on, on = _list(lib, OMPI_MONITORING)
        assert on["coll_monitoring_messages_size"].startswith("yes")
        assert readable_on > readable
    else:
        print(f"MPICH here offers {n} performance variables")


def _counters(folder: Path) -> tuple[dict, pd.DataFrame, pd.DataFrame]:
    meta = json.loads((folder / "meta.json").read_text())
    return meta, pd.read_csv(folder / "raw.csv"), pd.read_csv(folder / "counters.csv")


def test_counter_grows_with_message_size(tmp_path):
    out = tmp_path / "grow"
    sizes = [8, 1024, 65536]
    cmd = (launcher("openmpi", 2) + OMPI_MONITORING +
           [str(bench_path("openmpi")), "--ops", "bcast", "--sizes", ",".join(map(str, sizes)), "--nrep", "20",
            # barrier starts: every repetition is recorded whatever the load (a window's may all
            # start late on a busy machine, and a test without a valid one writes no rows)
            "--procsync", "barrier", "--copy-probe-bytes", "0",
            "--mpit-pvars", "coll_monitoring_messages_size,coll_monitoring_messages_count", "--out", str(out)])
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    meta, raw, ctr = _counters(out)
    size_of = {t["test"]: t["size"] for t in meta["tests"]}
    ctr["size"] = ctr["test"].map(size_of)
    sent = ctr[(ctr.metric == "coll_monitoring_messages_size") & (ctr["rank"] == 0)]
    # the root sends size bytes per broadcast: every repetition counts at least that
    for size in sizes:
        values = sent[sent["size"] == size]["value"]
        assert len(values) == 20 and (values >= size).all(), values.describe()
    medians = [sent[sent["size"] == s]["value"].median() for s in sizes]
    assert medians == sorted(medians) and medians[0] < medians[-1]
    assert (ctr[ctr.metric == "coll_monitoring_messages_count"]["value"] >= 0).all()
    # the cost of looking, per test
    assert set(meta["counters"]["read_ns_by_test"]) == {str(t["test"]) for t in meta["tests"]}
    assert all(v > 0 for v in meta["counters"]["read_ns_by_test"].values())


@pytest.mark.parametrize("raw_mode", ["full", "reduced"])
def test_rows_match_raw(tmp_path, raw_mode):
    out = tmp_path / raw_mode
    run_bench("openmpi", 2, ["--ops", "allreduce,iallreduce", "--sizes", "8,64", "--nrep", "12",
                             "--raw", raw_mode, "--mpit-pvars", "all", "--out", out])
    meta, raw, ctr = _counters(out)
    names = [m["name"] for m in meta["counters"]["metrics"]]
    assert names and meta["config"]["mpit_pvars"] == "all" and meta["counters"]["mpit_pvars"] == "all"
    assert all(m["source"] == "mpi_t" and m["elements"] >= 1 for m in meta["counters"]["metrics"])
    assert list(ctr.columns) == ["test", "rank", "rep", "metric", "value"]
    keys = ["test", "rank", "rep"]
    raw_rows = set(map(tuple, raw[keys].to_numpy().tolist()))
    for name in names:
        mine = ctr[ctr.metric == name][keys]
        assert len(mine) == len(raw) and set(map(tuple, mine.to_numpy().tolist())) == raw_rows
    assert set(ctr.metric) == set(names)
    assert (raw["rank"] == -1).all() == (raw_mode == "reduced")
    # variables left out by `all` are named with a reason
    assert all(e["why"] for e in meta["counters"]["left_out"])


def test_all_records_none_on_a_library_without_variables(tmp_path):
    n, readable, _ = _list("mpich")
    if readable:
        pytest.skip(f"MPICH here offers {readable} readable variables; test_rows_match_raw covers that case")
    out = tmp_path / "none"
    # barrier starts: every repetition is recorded valid, so 5 rows per rank whatever the load
    # (a window's 5 repetitions may all start late on a busy machine, and a test without a valid
    # one writes no rows)
    run_bench("mpich", 2, ["--ops", "allreduce", "--sizes", "8", "--nrep", "5", "--mpit-pvars", "all",
                           "--procsync", "barrier", "--out", out])
    meta, raw, ctr = _counters(out)
    assert meta["counters"]["metrics"] == [] and len(ctr) == 0 and len(raw) == 10
    assert "no-counters" in [c["code"] for c in meta["conditions"]]


def test_bad_pvars_are_refused(lib, tmp_path):
    base = ["--ops", "bcast", "--sizes", "8", "--nrep", "5"]
    assert_refused(lib, base + ["--mpit-pvars", "no_such_pvar"], "unknown performance variable 'no_such_pvar'",
                   tmp_path)
    assert_refused(lib, base + ["--mpit-pvars", "all,x"], "'all' stands alone", tmp_path)
    if lib == "openmpi":
        _, _, rows = _list(lib)
        assert_refused(lib, base + ["--mpit-pvars", "osc_rdma_put_retry_count"], "bound to an MPI window",
                       tmp_path)
        crashing = [name for name, r in rows.items() if "crashed the library" in r]
        if crashing:  # Open MPI 4.1.4 without PSM2: mtl_psm2_*
            assert_refused(lib, base + ["--mpit-pvars", crashing[0]], "a trial read crashed the library",
                           tmp_path)


def _papi_avail_counters() -> int | None:
    """'Number Hardware Counters' as PAPI's own papi_avail reports it (None: no papi_avail)."""
    if shutil.which("papi_avail") is None:
        return None
    out = subprocess.run(["papi_avail"], capture_output=True, text=True, timeout=60).stdout
    m = re.search(r"Number Hardware Counters\s*:\s*(\d+)", out)
    return int(m.group(1)) if m else None


def _papi_can_add(event: str) -> bool | None:
    """Whether PAPI's own papi_command_line can add and count ``event`` here (None: no such
    tool). papi_avail's counter count is not enough: on a VM it can list counters and presets
    as available while adding any of them fails ("Event does not exist")."""
    if shutil.which("papi_command_line") is None:
        return None
    proc = subprocess.run(["papi_command_line", event], capture_output=True, text=True, timeout=60)
    return "Failed adding" not in proc.stdout + proc.stderr and proc.returncode == 0


def test_papi_follows_papis_own_availability_check(lib, tmp_path):
    base = ["--ops", "bcast", "--sizes", "8", "--nrep", "5"]
    if not described(lib)["tool"]["papi"]:
        assert_refused(lib, base + ["--papi", "PAPI_TOT_CYC"], "built without PAPI", tmp_path)
        return
    counters = _papi_avail_counters()
    if counters is None:
        pytest.skip("papi_avail (papi-tools) is not installed: nothing to compare with (scripts/setup.sh installs it)")
    assert_refused(lib, base + ["--papi", "NOT_AN_EVENT"], "unknown event 'NOT_AN_EVENT'", tmp_path)
    if counters == 0:
        # this machine: no counters, a clear message, exit 2, no fake zeros
        assert_refused(lib, base + ["--papi", "PAPI_TOT_CYC"], "no hardware counters on this machine", tmp_path)
        proc = run_bench(lib, 1, base + ["--papi", "PAPI_TOT_CYC", "--out", tmp_path / "x"], check=False)
        assert "PAPI's perf_event component is disabled" in proc.stderr
        return
    can_add = _papi_can_add("PAPI_TOT_CYC")
    if can_add is None:
        pytest.skip("papi_command_line (papi-tools) is not installed: nothing to compare with")
    if not can_add:
        # counters listed, but PAPI itself cannot add the event: refused the way PAPI says it
        assert_refused(lib, base + ["--papi", "PAPI_TOT_CYC"], "cannot be counted", tmp_path)
        return
    out = tmp_path / "papi"
    run_bench(lib, 2, base + ["--papi", "PAPI_TOT_CYC", "--out", out])
    meta, raw, ctr = _counters(out)
    assert meta["counters"]["metrics"][0]["source"] == "papi"
    assert len(ctr) == len(raw) and (ctr["value"] > 0).all()


def test_papi_refused_in_a_build_without_it(lib, tmp_path):
    nopapi = REPO / "build" / lib / "tests" / "mpimeter-bench-nopapi"
    if not nopapi.exists():
        pytest.skip(f"{nopapi} is built only when PAPI is found; the main binary then is the build without it "
                    "(test_papi_follows_papis_own_availability_check covers it)")
    nopapi_doc = json.loads(subprocess.run([str(nopapi), "--describe"], capture_output=True, text=True,
                                           timeout=30, check=True).stdout)
    assert nopapi_doc["tool"]["papi"] is False
    out = tmp_path / "never"
    proc = subprocess.run(launcher(lib, 2) + [str(nopapi), "--ops", "bcast", "--sizes", "8", "--papi",
                                              "PAPI_TOT_CYC", "--out", str(out)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "built without PAPI" in proc.stderr and not out.exists()
    assert sum(ln.startswith("mpimeter-bench:") for ln in proc.stderr.splitlines()) == 1
