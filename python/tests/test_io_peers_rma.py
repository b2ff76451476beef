# SPDX-License-Identifier: BSD-3-Clause
"""Imports of OSU's and IMB-RMA's one-sided outputs, taken on this project's machine (2 ranks,
Open MPI 4.1.4; commands in tests/data/peers/README.md): the mapping onto mpimeter's rma-* rows
and --rma-sync modes, the conversions, and the refusals of what has no mpimeter equivalent."""

import json

import pytest
from click.testing import CliRunner

from mpimeter.cli import main
from mpimeter.io.errors import InputError
from mpimeter.io.peers import read_peer

from test_io_peers import PEERS, by_key

OSU = {name: PEERS / f"osu-5.3-{name}.txt" for name in (
    "put-latency-flush", "put-latency-fence", "put-latency-pscw", "put-latency-lock", "put-latency-flush_local",
    "put-latency-lock_all", "get-latency-flush", "get-latency-lock", "acc-latency", "fop-latency",
    "get-acc-latency", "put-bw", "get-bw", "put-bibw", "cas-latency-mpich", "put-latency-flush-mpich",
    "put-bw-fence-mpich")}
IMB_NONAGG = PEERS / "imb-2021.11-rma-nonaggregate.txt"
IMB_DEFAULT = PEERS / "imb-2021.11-rma-default.txt"
IMB_PUT_LOCAL = PEERS / "imb-2021.11-rma-put-local.txt"


@pytest.mark.parametrize("name, op, sync", [
    ("put-latency-flush", "rma-put", "lock-all-flush"), ("put-latency-fence", "rma-put", "fence"),
    ("put-latency-pscw", "rma-put", "pscw"), ("put-latency-lock", "rma-put", "lock-shared"),
    ("put-latency-flush_local", "rma-put", "lock-all-flush-local"), ("get-latency-flush", "rma-get", "lock-all-flush"),
    ("get-latency-lock", "rma-get", "lock-shared"), ("acc-latency", "rma-acc", "lock-all-flush"),
    ("get-acc-latency", "rma-get-acc", "lock-all-flush"), ("put-bw", "rma-put-bw", "lock-all-flush"),
    ("get-bw", "rma-get-bw", "lock-all-flush"), ("cas-latency-mpich", "rma-cas", "lock-all-flush"),
    ("put-latency-flush-mpich", "rma-put", "lock-all-flush"), ("put-bw-fence-mpich", "rma-put-bw", "fence")])
def test_osu_one_sided_tables_map_to_rma_rows_and_modes(name, op, sync):
    run = read_peer("osu", OSU[name])
    assert run.nprocs == 2 and run.tool_version == "5.3" and run.data == "aggregates"
    assert {t.op for t in run.tests} == {op}
    assert run.rma == {"sync": sync, "window": "allocate", "burst": 32 if op.endswith("-bw") else 1,
                       "window_bytes": None}
    assert not any(t.round_trip for t in run.tests)


def test_osu_latency_values_are_the_printed_microseconds():
    t = by_key(read_peer("osu", OSU["put-latency-flush"]))
    assert t[("rma-put", 128)].run_times_ns == (8190,) and t[("rma-put", 8)].aggregates_ns == {"avg": 60}
    fence = by_key(read_peer("osu", OSU["put-latency-fence"]))
    assert fence[("rma-put", 32)].run_times_ns == (394870,)  # half of OSU's exchange: one epoch, as printed
    lock = by_key(read_peer("osu", OSU["get-latency-lock"]))
    assert lock[("rma-get", 16)].run_times_ns == (170,) and lock[("rma-get", 16)].line == 10


def test_osu_bandwidth_becomes_the_epoch_time_of_its_32_operations():
    t = by_key(read_peer("osu", OSU["put-bw"]))
    # "32  1294.79" MB/s: 32 puts of 32 B per epoch = 1024 B / 1294.79 B/us = 0.79086 us
    assert t[("rma-put-bw", 32)].run_times_ns == (791,) and t[("rma-put-bw", 32)].headline == "epoch"
    assert t[("rma-put-bw", 256)].run_times_ns == (860,)  # 8192 / 9523.44 = 0.86019 us
    g = by_key(read_peer("osu", OSU["get-bw"]))
    assert g[("rma-get-bw", 16)].run_times_ns == (12460,)  # 512 / 41.09 = 12.46045 us
    f = by_key(read_peer("osu", OSU["put-bw-fence-mpich"]))
    assert f[("rma-put-bw", 1)].run_times_ns == (139130,)  # 32 / 0.23 = 139.1304 us


def test_osu_fetch_and_op_and_compare_and_swap_are_one_element_at_size_0():
    run = read_peer("osu", OSU["fop-latency"])
    assert [(t.op, t.size, t.run_times_ns) for t in run.tests] == [("rma-fop", 0, (130,))]
    assert run.datatype is None and run.settings["Datatype (from the source)"] == "MPI_LONG_LONG"
    cas = read_peer("osu", OSU["cas-latency-mpich"])
    assert [(t.op, t.size, t.run_times_ns) for t in cas.tests] == [("rma-cas", 0, (11812400,))]
    assert read_peer("osu", OSU["acc-latency"]).datatype == "char"


def test_osu_lock_all_and_other_ranks_are_refused():
    with pytest.raises(InputError, match=r":3: OSU's lock_all synchronization .* no mpimeter --rma-sync mode"):
        read_peer("osu", OSU["put-latency-lock_all"])
    with pytest.raises(InputError, match=r":1: .*MPI_Put bi-directional bandwidth test .* no such row"):
        read_peer("osu", OSU["put-bibw"])
    with pytest.raises(InputError, match="exactly 2 ranks; --np 4"):
        read_peer("osu", OSU["put-latency-flush"], nprocs=4)


def test_osu_one_sided_bad_headers(tmp_path):
    text = OSU["put-latency-flush"].read_text()
    cases = {"v8.0": (text.replace("v5.3", "v8.0"), r":1: .*OSU 8.0's one-sided test"),
             "bibw": (text.replace("MPI_Put Latency", "MPI_Put Bi-directional Bandwidth"), r":1: .*bi-directional"),
             "sync": (text.replace("MPI_Win_flush", "MPI_Win_sync"), r":3: synchronization 'MPI_Win_sync'"),
             "unit": (text.replace("Latency (us)", "Bandwidth (MB/s)"), r":4: the column header does not parse"),
             "rows": (text.replace("0.06", "0.06 7", 1), r"a row has 3 fields")}
    for name, (body, match) in cases.items():
        path = tmp_path / f"{name}.txt"
        path.write_text(body)
        with pytest.raises(InputError, match=match):
            read_peer("osu", path)


def test_imb_rma_non_aggregate_maps_to_lock_all_flush():
    run = read_peer("imb", IMB_NONAGG)
    assert run.tool_name == "Intel(R) MPI Benchmarks (IMB-RMA)" and run.nprocs == 2
    assert run.rma == {"sync": "lock-all-flush", "window": "create", "burst": 1, "window_bytes": None}
    t = by_key(run)
    assert {op for op, _ in t} == {"rma-put", "rma-get", "rma-acc", "rma-get-acc", "rma-fop", "rma-cas"}
    assert t[("rma-put", 64)].aggregates_ns == {"t": 405490} and t[("rma-put", 64)].repetitions == 100
    assert t[("rma-get", 1024)].run_times_ns == (922690,) and not t[("rma-get", 1024)].round_trip
    assert t[("rma-fop", 0)].run_times_ns == (3570,) and t[("rma-cas", 0)].run_times_ns == (3020,)
    assert read_peer("imb", IMB_PUT_LOCAL).rma["sync"] == "lock-all-flush-local"


def test_imb_rma_without_equivalent_is_refused(tmp_path):
    with pytest.raises(InputError, match=r":77: IMB-RMA's Unidir_put in mode AGGREGATE"):
        read_peer("imb", IMB_DEFAULT)
    lines = IMB_DEFAULT.read_text().split("\n")
    start = lines.index("# Benchmarking Bidir_put ")  # the first NON-AGGREGATE table without a row
    body = "\n".join(lines[:lines.index("# Benchmarking Unidir_put ")] + lines[start:])
    (tmp_path / "bidir.txt").write_text(body)
    with pytest.raises(InputError, match=r"Bidir_put \(both ranks put at once\) has no mpimeter equivalent"):
        read_peer("imb", tmp_path / "bidir.txt")
    mixed = IMB_NONAGG.read_text().replace("# All processes entering MPI_Finalize", "") + \
        "\n".join(IMB_PUT_LOCAL.read_text().split("\n")[29:])
    (tmp_path / "mixed.txt").write_text(mixed)
    with pytest.raises(InputError, match="timed with lock-all-flush-local, an earlier one with lock-all-flush"):
        read_peer("imb", tmp_path / "mixed.txt")


def test_cli_import_writes_config_rma_and_one_sided_operations(tmp_path):
    out = tmp_path / "c"
    r = CliRunner().invoke(main, ["import", "osu", str(OSU["put-bw"]), "--out", str(out)])
    assert r.exit_code == 0, r.output
    meta = json.loads((out / "launches" / "000" / "meta.json").read_text())
    assert meta["config"]["rma"] == {"sync": "lock-all-flush", "window": "allocate", "burst": 32, "window_bytes": None}
    assert meta["operations"]["rma-put-bw"]["kind"] == "one-sided"
    assert meta["operations"]["rma-put-bw"]["uses_pair"] is True  # OSU's origin and target
    assert meta["operations"]["rma-put-bw"]["bound_volume"]["bytes_per_size"] == 32
    r = CliRunner().invoke(main, ["analyze", str(out), "--format", "json"])
    assert r.exit_code == 0, r.output
    bad = tmp_path / "bad"
    r = CliRunner().invoke(main, ["import", "osu", str(OSU["put-latency-lock_all"]), "--out", str(bad)])
    assert r.exit_code == 2 and r.output.count("\n") == 1 and not bad.exists(), r.output


def _imb_tables(tmp_path, names: tuple[str, ...], edit=None) -> "Path":
    """IMB_DEFAULT's header and the tables of ``names`` (as IMB-RMA printed them on this machine)."""
    lines = IMB_DEFAULT.read_text().split("\n")
    starts = [i for i, line in enumerate(lines) if line.startswith("# Benchmarking ")]
    header = lines[:starts[0] - 1]
    body = []
    for s, e in zip(starts, starts[1:] + [len(lines)]):
        if lines[s].split()[2] in names:
            body += lines[s - 1:e - 1]
    path = tmp_path / "imb.txt"
    text = "\n".join(header + body + ["# All processes entering MPI_Finalize", ""])
    path.write_text(edit(text) if edit else text)
    return path


def test_imb_rma_contention_patterns_map_to_their_rows_at_burst_repetitions(tmp_path):
    run = read_peer("imb", _imb_tables(tmp_path, ("One_put_all", "All_put_all", "One_get_all", "All_get_all")))
    # IMB: 200 rounds and one flush_all, divided by 200 -> mpimeter's timed call at --rma-burst 200
    assert run.rma == {"sync": "lock-all-flush", "window": "create", "burst": 200, "window_bytes": None}
    t = by_key(run)
    assert {op for op, _ in t} == {"rma-one-put-all", "rma-all-put-all", "rma-one-get-all", "rma-all-get-all"}
    assert t[("rma-one-put-all", 8)].aggregates_ns == {"t": 1460}  # as printed
    assert t[("rma-one-put-all", 8)].run_times_ns == (292000,)  # 1.46 us x 200 rounds
    assert t[("rma-all-put-all", 16)].run_times_ns == (382000,)  # the headline t_max, 1.91 us x 200
    local = read_peer("imb", _imb_tables(tmp_path, ("Put_all_local",)))
    assert local.rma["sync"] == "lock-all-flush-local" and {x.op for x in local.tests} == {"rma-one-put-all"}


def test_imb_rma_contention_refusals(tmp_path):
    mixed = _imb_tables(tmp_path, ("Put_all_local", "One_put_all"))
    with pytest.raises(InputError, match="timed with lock-all-flush, an earlier one with lock-all-flush-local"):
        read_peer("imb", mixed)
    # a row with another #repetitions: IMB's default iteration policy; one burst a launch
    uneven = _imb_tables(tmp_path, ("One_put_all",),
                         edit=lambda s: s.replace("         4096          200         2.12",
                                                  "         4096          100         2.12"))
    with pytest.raises(InputError, match="ran 100 repetitions, an earlier one 200.*-iter_policy off"):
        read_peer("imb", uneven)


def test_cli_import_of_a_contention_pattern_states_no_bound(tmp_path):
    out = tmp_path / "c"
    r = CliRunner().invoke(main, ["import", "imb", str(_imb_tables(tmp_path, ("All_get_all",))), "--out", str(out)])
    assert r.exit_code == 0, r.output
    meta = json.loads((out / "launches" / "000" / "meta.json").read_text())
    assert meta["config"]["rma"]["burst"] == 200
    assert meta["operations"]["rma-all-get-all"]["kind"] == "one-sided"
    assert meta["operations"]["rma-all-get-all"]["uses_pair"] is False  # every rank, as the binary records it
    assert meta["operations"]["rma-all-get-all"].get("bound_volume") is None


# OSU 6.x/7.x one-sided tables: not taken on this machine (no OSU 6/7 one-sided build here), but
# written in the exact format their sources print (print_header_one_sided, print_latency,
# print_bw of 6.1 and 7.4; tests/data/peers/README.md), with invented values
OSU7 = {name: PEERS / f"osu-{name}.txt" for name in (
    "7.4-put-latency-flush", "7.4-get-latency-pscw", "7.4-put-bw-lock", "6.1-get-bw-fence",
    "7.4-put-latency-lock_all", "7.4-put-latency-tail", "7.4-fop-latency")}


@pytest.mark.parametrize("name, op, sync, window, burst", [
    ("7.4-put-latency-flush", "rma-put", "lock-all-flush", "allocate", 1),
    ("7.4-get-latency-pscw", "rma-get", "pscw", "create", 1),
    ("7.4-put-bw-lock", "rma-put-bw", "lock-shared", "allocate", 64),
    ("6.1-get-bw-fence", "rma-get-bw", "fence", "create", 16)])
def test_osu_6_and_7_one_sided_tables_map_as_their_sources_time_them(name, op, sync, window, burst):
    run = read_peer("osu", OSU7[name], osu_window=burst if op.endswith("-bw") else None)
    assert run.nprocs == 2 and run.tool_version == name.split("-")[0]
    assert {t.op for t in run.tests} == {op} and len(run.tests) == 11
    assert run.rma == {"sync": sync, "window": window, "burst": burst, "window_bytes": None}
    assert run.datatype == "char" and not any(t.round_trip for t in run.tests)
    if name.startswith("7."):
        assert run.settings["Datatype"] == "MPI_CHAR"  # the line 7.x prints


def test_osu_7_values_as_printed():
    t = by_key(read_peer("osu", OSU7["7.4-put-latency-flush"]))
    assert t[("rma-put", 1)].run_times_ns == (110,) and t[("rma-put", 1024)].line == 16
    p = by_key(read_peer("osu", OSU7["7.4-get-latency-pscw"]))
    assert p[("rma-get", 8)].run_times_ns == (2400,)  # half of OSU's exchange: one epoch, as printed
    # "1024  5310.77" MB/s with -W 64: 64 puts of 1 KiB per epoch = 65536 B / 5310.77 B/us = 12.34 us
    bw = by_key(read_peer("osu", OSU7["7.4-put-bw-lock"], osu_window=64))
    assert bw[("rma-put-bw", 1024)].run_times_ns == (12340,)
    # the same table read with -W 8: an eighth of the epoch
    assert by_key(read_peer("osu", OSU7["7.4-put-bw-lock"], osu_window=8))[("rma-put-bw", 1024)].run_times_ns == \
        (1543,)  # 8192 / 5310.77 = 1.54253 us


@pytest.mark.parametrize("name, window, message", [
    ("7.4-put-bw-lock", None, r"does not print; give --osu-window N \(64 unless the run was given -W\)"),
    ("7.4-put-latency-flush", 64, "--osu-window 64: OSU's latency tests time one operation per epoch"),
    ("7.4-put-latency-lock_all", None, "lock_all synchronization times an MPI_Win_lock_all/unlock_all epoch"),
    ("7.4-put-latency-tail", None, "extra columns such as tail latencies"),
    ("7.4-fop-latency", None, "only the MPI_Put and MPI_Get tables are mapped"),
])
def test_osu_6_and_7_refusals(name, window, message):
    with pytest.raises(InputError, match=message):
        read_peer("osu", OSU7[name], osu_window=window)


def test_osu_5_windows_by_version(tmp_path):
    """5.0-5.3 put 32 operations per epoch, 5.4-5.6 64 (no option), 5.7+ -W (not printed)."""
    text = OSU["put-bw"].read_text()
    for version, burst in (("5.3", 32), ("5.6.1", 64)):
        path = tmp_path / f"{version}.txt"
        path.write_text(text.replace("v5.3", f"v{version}"))
        assert read_peer("osu", path).rma["burst"] == burst
        with pytest.raises(InputError, match=f"put {burst} operations per epoch, which no option changes"):
            read_peer("osu", path, osu_window=burst + 1)
    path = tmp_path / "5.9.txt"
    path.write_text(text.replace("v5.3", "v5.9"))
    with pytest.raises(InputError, match="give --osu-window N"):
        read_peer("osu", path)
    assert read_peer("osu", path, osu_window=64).rma["burst"] == 64


def test_cli_import_of_osu_7_bandwidth_takes_the_window(tmp_path):
    out = tmp_path / "c"
    r = CliRunner().invoke(main, ["import", "osu", str(OSU7["7.4-put-bw-lock"]), "--osu-window", "64", "--out", str(out)])
    assert r.exit_code == 0, r.output
    meta = json.loads((out / "launches" / "000" / "meta.json").read_text())
    assert meta["config"]["rma"]["burst"] == 64 and meta["operations"]["rma-put-bw"]["uses_pair"] is True
    assert meta["operations"]["rma-put-bw"]["bound_volume"]["bytes_per_size"] == 64
    bad = tmp_path / "bad"
    r = CliRunner().invoke(main, ["import", "osu", str(OSU7["7.4-put-bw-lock"]), "--out", str(bad)])
    assert r.exit_code == 2 and r.output.count("\n") == 1 and not bad.exists(), r.output
    r = CliRunner().invoke(main, ["import", "imb", str(IMB_NONAGG), "--osu-window", "64", "--out", str(bad)])
    assert r.exit_code == 2 and "--osu-window 64: only OSU's one-sided bandwidth tables" in r.output
    assert not bad.exists()
