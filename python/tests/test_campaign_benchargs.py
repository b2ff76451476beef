# SPDX-License-Identifier: BSD-3-Clause
"""The bench arguments of a campaign as typed values (mpimeter.campaign.benchargs): read once,
written back word for word (campaign.json says what was given), changed as values."""

from __future__ import annotations

import subprocess

import pytest

from mpimeter.campaign.benchargs import BenchArgs, BenchOption


@pytest.mark.parametrize("words", [
    [],
    ["--ops", "bcast,allreduce", "--sizes", "8,1024", "--nrep", "auto"],
    ["--ops=bcast", "--json", "--nrep", "5", "--force"],
    ["--sizes-precision", "-1", "stray", "--ops"],
    ["--papi=PAPI_TOT_INS,PAPI_L1_DCM", "--mpit-pvars", "all", "--x=a=b"],
])
def test_read_once_written_back_word_for_word(words):
    assert BenchArgs.parse(words).argv() == words


def test_the_values_the_campaign_reads():
    args = BenchArgs.parse(["--ops", "bcast", "--sizes=8", "--json", "--ops", "allreduce,barrier"])
    assert args.options[1] == BenchOption("--sizes", "8", joined=True)
    assert args.options[2] == BenchOption("--json")
    assert args.ops == ("allreduce", "barrier")  # the last one, as the binary's parser takes it
    assert args.sizes == "8" and args.value("--nrep") is None and BenchArgs().ops == ()
    assert args.without("--ops").argv() == ["--sizes=8", "--json"]
    assert (args.without("--ops") + BenchArgs.of([("--clocksync", "none")])).argv() == \
        ["--sizes=8", "--json", "--clocksync", "none"]


def test_a_launch_runs_its_subset_of_the_tests():
    args = BenchArgs.parse(["--ops", "bcast,allreduce", "--sizes=8,1024", "--nrep", "auto"])
    one = args.for_tests({"ops": ["bcast"], "sizes": [8, 64]})
    assert one.argv() == ["--ops", "bcast", "--sizes", "8,64", "--nrep", "auto"]
    assert args.argv() == ["--ops", "bcast,allreduce", "--sizes=8,1024", "--nrep", "auto"]  # unchanged
    assert args.for_tests(None) is args


def test_a_launch_of_a_subset_leaves_out_the_options_of_operations_it_does_not_run():
    # `--launches auto` may run delay alone once ibcast met its rule: --nbc-scheme shapes only
    # nonblocking collectives, and the binary refuses it without one (its --describe says which)
    from mpimeter.campaign import describe, launcher

    bench = launcher.bench_binary(launcher.default_bench_dir(), "openmpi")
    scopes = describe.describe(bench).op_scopes()
    assert "ibcast" in scopes["--nbc-scheme"] and "delay" not in scopes["--nbc-scheme"]
    assert "--nrep" not in scopes  # an option of every test is not scoped
    args = BenchArgs.parse(["--ops", "delay,ibcast", "--sizes", "1000", "--nbc-scheme", "work", "--nrep", "20"])
    alone = args.for_tests({"ops": ["delay"], "sizes": [1000]}, scopes)
    assert alone.argv() == ["--ops", "delay", "--sizes", "1000", "--nrep", "20"]
    both = args.for_tests({"ops": ["ibcast"], "sizes": [1000]}, scopes)
    assert both.value("--nbc-scheme") == "work"

    def validate(a):
        return subprocess.run([str(bench), "--validate", "2", *a.argv()], capture_output=True, text=True,
                              timeout=60).returncode

    assert validate(args.for_tests({"ops": ["delay"], "sizes": [1000]})) == 2  # as before: refused
    assert validate(alone) == 0 and validate(both) == 0
