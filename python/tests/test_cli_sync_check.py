"""`mpimeter sync-check` on real ranks (Open MPI, 2 ranks): the JSON shape of issue 3 and the
virtual timer's truth."""

import json

from click.testing import CliRunner

from mpimeter.cli import main


def test_sync_check_json_on_virtual_timer():
    result = CliRunner().invoke(main, [
        "sync-check", "--np", "2", "--mpi", "openmpi", "--clocksync", "skampi,hca3o",
        "--check-at", "0,0.5", "--timer", "virtual", "--virtual-offset-s", "1",
        "--virtual-skew-ppm", "100", "--seed", "11", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert [a["name"] for a in data["algorithms"]] == ["skampi", "hca3o"]
    for alg in data["algorithms"]:
        assert alg["sync_duration_s"] >= 0
        assert [c["t_s"] for c in alg["checks"]] == [0, 0.5]
        for check in alg["checks"]:
            assert len(check["residual_ns"]) == len(check["true_error_ns"]) >= 1
            assert check["max_abs_residual_ns"] == max(abs(r) for r in check["residual_ns"])
        # right after the sync the truth is within 10 us; offset-only models then drift
        # by ~100 ppm x 0.5 s = 50 us on the skewed rank
        assert alg["checks"][0]["max_abs_true_error_ns"] < 10_000
        assert alg["checks"][1]["max_abs_true_error_ns"] > 20_000


def test_sync_check_table_and_bad_algorithm():
    ok = CliRunner().invoke(main, ["sync-check", "--np", "2", "--mpi", "openmpi",
                                   "--clocksync", "skampi", "--check-at", "0"])
    assert ok.exit_code == 0, ok.output
    assert "skampi" in ok.output and "max |residual|" in ok.output
    bad = CliRunner().invoke(main, ["sync-check", "--np", "2", "--mpi", "openmpi",
                                    "--clocksync", "sundial", "--check-at", "0"])
    assert bad.exit_code == 2
