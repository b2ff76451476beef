# SPDX-License-Identifier: BSD-3-Clause
"""The parsers of IMB, OSU and ReproMPI output against real outputs of those tools (tests/data/peers,
with the command lines that produced them in its README), and their refusals: another tool's file,
an unknown format, a header that does not parse, a truncated table — each named by file and line.
The bad inputs are the real files cut or altered at one place."""

from pathlib import Path

import pytest

from mpimeter.io.errors import InputError
from mpimeter.io.peers import read_peer

PEERS = Path(__file__).resolve().parent / "data" / "peers"
IMB = PEERS / "imb-pingpong-allreduce-bcast.txt"
OSU_FULL = PEERS / "osu-allreduce-full.txt"
OSU_LAT = PEERS / "osu-latency.txt"
REP_BARRIER = PEERS / "reprompi-bcast-allreduce-barrier.txt"
REP_WINDOW = PEERS / "reprompi-allreduce-window-global.txt"


def by_key(run):
    return {(t.op, t.size): t for t in run.tests}


def test_imb_file_with_three_benchmarks():
    run = read_peer("imb", IMB)
    assert (run.tool, run.tool_version, run.nprocs, run.data) == ("imb", "2021.11", 2, "aggregates")
    assert run.command == "IMB-MPI1 PingPong Allreduce Bcast -msglog 3:12"
    assert run.mpi_version == "MPI 3.1" and run.procsync == "none"  # back-to-back calls (MS2)
    assert [t.name for t in run.tests].count("Allreduce") == 11 and len(run.tests) == 33
    t = by_key(run)
    ar = t[("allreduce", 1024)]  # "1024 1000 0.71 0.72 0.71"
    assert ar.aggregates_ns == {"t_min": 710, "t_max": 720, "t_avg": 710} and ar.repetitions == 1000
    assert ar.headline == "t_max" and ar.run_times_ns == (720,) and not ar.round_trip
    assert t[("bcast", 4096)].aggregates_ns == {"t_min": 3500, "t_max": 3530, "t_avg": 3510}
    pp = t[("pingpong-send-recv", 8)]  # "8 1000 0.18 43.82": IMB's t is half the round trip
    assert pp.aggregates_ns == {"t": 180} and pp.round_trip and pp.run_times_ns == (360,)
    assert pp.line == 38


def test_osu_full_table_has_min_max_iterations():
    run = read_peer("osu", OSU_FULL, nprocs=2)
    assert (run.tool_version, run.nprocs, len(run.tests), run.procsync) == ("7.4", 2, 14, "barrier")
    t = by_key(run)
    assert t[("allreduce", 8192)].aggregates_ns == {"avg": 14500, "min": 12370, "max": 16630}
    assert t[("allreduce", 8192)].repetitions == 1000 and t[("allreduce", 16384)].repetitions == 100
    assert t[("allreduce", 8)].run_times_ns == (580,)
    assert run.settings["Datatype"] == "MPI_CHAR"


def test_osu_collectives_need_the_number_of_ranks():
    with pytest.raises(InputError, match="--np N") as exc:
        read_peer("osu", OSU_FULL)
    assert str(OSU_FULL) in str(exc.value)


def test_osu_latency_is_a_round_trip_on_two_ranks():
    run = read_peer("osu", OSU_LAT)
    assert run.nprocs == 2 and len(run.tests) == 23 and run.procsync == "none"
    last = run.tests[-1]  # "4194304 387.71"
    assert (last.op, last.size, last.aggregates_ns, last.run_times_ns) == ("pingpong-send-recv", 4194304,
                                                                            {"avg": 387710}, (775420,))
    assert last.repetitions is None  # osu_latency does not print its iterations
    with pytest.raises(InputError, match="exactly 2 ranks"):
        read_peer("osu", OSU_LAT, nprocs=4)



def test_osu_latency_tail_percentiles_are_aggregates_beside_the_average():
    # osu_latency -z: P50/P90/P99 of rank 0's per-round-trip one-way times, beside the average that
    # stays the value (taken under load: the average holds the preempted round trips)
    run = read_peer("osu", PEERS / "osu-7.4-latency-tail.txt")
    t = by_key(run)
    assert len(run.tests) == 8
    assert t[("pingpong-send-recv", 8)].aggregates_ns == {"avg": 3660, "p50": 380, "p90": 450, "p99": 500}
    assert t[("pingpong-send-recv", 8)].run_times_ns == (7320,)
    assert t[("pingpong-send-recv", 1024)].aggregates_ns == {"avg": 92730, "p50": 700, "p90": 880, "p99": 1850}

def test_reprompi_barrier_run_per_repetition():
    run = read_peer("reprompi", REP_BARRIER)
    assert (run.data, run.nprocs, run.procsync, run.clocksync, run.timer) == ("repetitions", 2, "barrier", "hca3o",
                                                                              "wtime")
    assert not run.global_times and run.tool_version is None  # reproMPIcommitSHA1=unknown
    assert [(t.op, t.size) for t in run.tests] == [("bcast", 8), ("allreduce", 8), ("bcast", 1024),
                                                    ("allreduce", 1024)]
    first = run.tests[0]
    assert len(first.run_times_ns) == 200 and all(first.valid)
    assert first.run_times_ns[:3] == (2253, 471, 771)  # 0.0000022530, 0.0000004710, 0.0000007710 s
    assert run.tests[-1].run_times_ns[-1] == 1433  # MPI_Allreduce 199 1024 0.0000014330
    assert run.date == "Mon Nov 23 12:22:14 2026"


def test_reprompi_window_run_marks_rows_with_an_errorcode_invalid():
    run = read_peer("reprompi", REP_WINDOW)
    assert run.global_times and run.procsync == "window"
    small, large = run.tests
    assert all(small.valid) and small.valid_repetitions == 200
    assert large.valid.count(False) == 2 and large.valid_repetitions == 198
    assert small.run_times_ns[1] == 1828  # 0.0000018275 s: 1827.5 ns, half away from zero


def test_reprompi_summary_rows(tmp_path):
    """No real --summary output was available: this file is the real per-measurement run's header
    and trailer around summary rows computed from its own rows, printed in ReproMPI's layout
    (results_output.c: "%50s %12ld %10ld %10ld " then "  %.10f " per statistic)."""
    lines = REP_WINDOW.read_text().splitlines()
    head = [ln for ln in lines if ln.startswith("#") and not ln.startswith("# ")]
    tail = [ln for ln in lines if ln.startswith("# ")]
    per_rep = read_peer("reprompi", REP_WINDOW)
    rows = ["%50s %12s %10s %10s %14s %14s " % ("test", "count", "total_nrep", "valid_nrep", "mean_sec", "median_sec")]
    for t in per_rep.tests:
        ok = sorted(x for x, v in zip(t.run_times_ns, t.valid) if v)
        median = (ok[len(ok) // 2 - 1] + ok[len(ok) // 2]) / 2
        rows.append("%50s %12d %10d %10d   %.10f   %.10f " % ("MPI_Allreduce", t.size, 200, len(ok),
                                                                sum(ok) / len(ok) / 1e9, median / 1e9))
    path = tmp_path / "summary.txt"
    path.write_text("\n".join(head + rows + tail) + "\n")
    run = read_peer("reprompi", path)
    assert run.data == "aggregates" and [t.headline for t in run.tests] == ["median", "median"]
    large = run.tests[1]
    assert large.repetitions == 200 and large.valid_repetitions == 198
    ok = sorted(x for x, v in zip(per_rep.tests[1].run_times_ns, per_rep.tests[1].valid) if v)
    assert abs(large.aggregates_ns["median"] - (ok[98] + ok[99]) / 2) <= 1


def cut(path: Path, tmp_path: Path, *, before: str | None = None, at_byte: int | None = None) -> Path:
    data = path.read_bytes()
    end = data.index(before.encode()) if before is not None else at_byte
    out = tmp_path / path.name
    out.write_bytes(data[:end])
    return out


def replace(path: Path, tmp_path: Path, old: str, new: str) -> Path:
    out = tmp_path / path.name
    text = path.read_text()
    assert old in text
    out.write_text(text.replace(old, new, 1))
    return out


@pytest.mark.parametrize("tool,path,match,line", [
    ("imb", OSU_FULL, "is OSU output, not IMB's", 2),  # OSU's title follows an empty line
    ("osu", IMB, "is IMB output, not OSU's", 1),
    ("reprompi", OSU_LAT, "is OSU output, not ReproMPI's", 2),
    ("imb", PEERS / "README.md", "an unknown format", 1),
])
def test_another_tools_file_or_an_unknown_format_is_refused(tool, path, match, line):
    with pytest.raises(InputError, match=match) as exc:
        read_peer(tool, path)
    assert exc.value.line == line and exc.value.path == path


def test_truncated_imb_table(tmp_path):
    # cut in the middle of the Bcast table's 512 B row: no newline, and no MPI_Finalize line
    data = IMB.read_bytes()
    at = data.index(b"          512         1000         0.26") + 20
    with pytest.raises(InputError, match="no newline: the IMB output was cut short") as exc:
        read_peer("imb", cut(IMB, tmp_path, at_byte=at))
    assert exc.value.line == data[:at].count(b"\n") + 1 == 78
    # cut at a line end: the run did not get to MPI_Finalize
    with pytest.raises(InputError, match="MPI_Finalize"):
        read_peer("imb", cut(IMB, tmp_path, before="# All processes entering"))


def test_imb_header_that_does_not_parse(tmp_path):
    with pytest.raises(InputError, match="#processes 'two'") as exc:
        read_peer("imb", replace(IMB, tmp_path, "# Benchmarking Bcast \n# #processes = 2 ",
                                 "# Benchmarking Bcast \n# #processes = two "))
    assert exc.value.line == 68
    with pytest.raises(InputError, match="column header of Allreduce does not parse"):
        read_peer("imb", replace(IMB, tmp_path, "t_min[usec]  t_max[usec]  t_avg[usec]", "t_min[usec]  t_max[ms]  "
                                                                                         "t_avg[usec]"))


def test_truncated_osu_table(tmp_path):
    data = OSU_LAT.read_bytes()
    at = data.index(b"2097152") + 12  # mid-row, no newline
    with pytest.raises(InputError, match="no newline: the OSU output was cut short") as exc:
        read_peer("osu", cut(OSU_LAT, tmp_path, at_byte=at))
    assert exc.value.line == 26  # OSU prints an empty first line


def test_osu_header_that_does_not_parse(tmp_path):
    with pytest.raises(InputError, match="column header does not parse") as exc:
        read_peer("osu", replace(OSU_FULL, tmp_path, "Min Latency(us)", "P50 Latency(us)"), nprocs=2)
    assert exc.value.line == 4


def test_truncated_reprompi_table(tmp_path):
    # the file ends inside the 1024 B table: the trailer is missing
    data = REP_BARRIER.read_bytes()
    at = data.index(b"MPI_Allreduce        150         1024")
    at = data.rindex(b"\n", 0, at) + 1  # at a line end: every line is whole, the table is not
    with pytest.raises(InputError, match="has 150 repetitions, the header says #@nrep=200") as exc:
        read_peer("reprompi", cut(REP_BARRIER, tmp_path, at_byte=at))
    assert exc.value.line == data[:at].count(b"\n") + 1


def test_reprompi_header_that_does_not_parse(tmp_path):
    with pytest.raises(InputError, match="#@nrep 'two hundred'") as exc:
        read_peer("reprompi", replace(REP_WINDOW, tmp_path, "#@nrep=200", "#@nrep=two hundred"))
    assert exc.value.line == 21
    with pytest.raises(InputError, match="lacks #@runtime_type"):
        read_peer("reprompi", replace(REP_WINDOW, tmp_path, "#@runtime_type=global\n", ""))


@pytest.mark.parametrize("tool,path,old,new,match,line", [
    # str.isdigit() holds for "²", which int() refuses: it was a traceback, not one line
    ("osu", OSU_LAT, "\n1                       0.40", "\n²                       0.40", r"Size '²' is not a whole number", 5),
    # Decimal and int read other scripts' digits and "1_0": a value no tool prints was imported
    ("osu", OSU_LAT, "\n1                       0.40", "\n١                       0.40", r"Size '١' is not a whole number", 5),
    ("osu", OSU_LAT, "\n1                       0.40", "\n1                       1_0.40", r"latency '1_0.40' is not a number", 5),
    ("imb", IMB, "            8         1000         0.18", "            8         1000         ٠.18",
     r"'٠.18' is not a number", 38),
    ("reprompi", REP_BARRIER, "MPI_Bcast          1            8   0.0000004710",
     "MPI_Bcast          1            8   0.000_0004710", r"'0.000_0004710' is not a number", 23),
])
def test_a_number_the_tools_do_not_print_is_refused_with_its_line(tmp_path, tool, path, old, new, match, line):
    with pytest.raises(InputError, match=match) as exc:
        read_peer(tool, replace(path, tmp_path, old, new))
    assert exc.value.line == line


def test_imb_two_process_tables_beside_collectives_on_more_get_advice_that_can_help(tmp_path):
    """`mpirun -np 4 IMB-MPI1 PingPong Allreduce -npmin 4`: PingPong runs on 2 processes whatever
    -np, the other 2 "waiting in MPI_Barrier" (IMB User Guide). A launch has one process count, so
    the file is refused, but the advice was "-npmin", which this run already used."""
    text = IMB.read_text().replace("# Benchmarking PingPong \n# #processes = 2 \n",
                                   "# Benchmarking PingPong \n# #processes = 2 \n"
                                   "# ( 2 additional processes waiting in MPI_Barrier)\n")
    for bench in ("Allreduce", "Bcast"):
        text = text.replace(f"# Benchmarking {bench} \n# #processes = 2", f"# Benchmarking {bench} \n# #processes = 4")
    path = tmp_path / "imb-np4.txt"
    path.write_text(text)
    with pytest.raises(InputError, match=r"Allreduce ran with 4 processes, an earlier table with 2; .*two-process "
                                         r"benchmarks on 2 processes whatever -np .* from a 2-process run") as exc:
        read_peer("imb", path)
    assert exc.value.line == text[:text.index("# #processes = 4")].count("\n") + 1
    # collectives at 2 and 4 processes alone (IMB's default from 2 up): -npmin is the advice
    collectives = IMB.read_text().replace("# Benchmarking Bcast \n# #processes = 2", "# Benchmarking Bcast \n# #processes = 4")
    path.write_text(collectives)
    with pytest.raises(InputError, match=r"Bcast ran with 4 processes, an earlier table with 2; .*one process count "
                                         r"\(IMB -npmin\)$"):
        read_peer("imb", path)
