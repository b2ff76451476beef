# SPDX-License-Identifier: BSD-3-Clause
"""Bounded numbers: every campaign-level number has documented limits (campaign.limits), a
non-finite one is refused, the derived launch timeout is capped, and campaign.json never holds
NaN or Infinity."""

import math

import pytest
from data.fakebench import cli, fake_env, one_line_error, template  # noqa: F401

from mpimeter.campaign import limits, spec
from mpimeter.campaign import state as st
from test_campaign_runner import make_state


@pytest.mark.parametrize("args, fragment", [
    (["--launches", "1000000000000"],
     f"--launches 1000000000000: must be at most {limits.MAX_LAUNCHES}"),
    (["--launches", "6000", "--variant", "x="],
     f"× 4 alternatives: at most {limits.MAX_TOTAL_LAUNCHES} launches in all"),
    (["--np", "100000"], f"--np 100000: must be at most {limits.MAX_NP}"),
    (["--launch-timeout", "nan"], "--launch-timeout nan: must be a number of seconds"),
    (["--launch-timeout", "inf"], "--launch-timeout inf: must be a number of seconds"),
    (["--launch-timeout", "-inf"], "--launch-timeout -inf"),
    (["--launch-timeout", "1e12"], f"at most {limits.MAX_LAUNCH_TIMEOUT_S:g}"),
    (["--retries", "1000"], f"--retries 1000: must be at most {limits.MAX_RETRIES}"),
    (["--seed", "-1"], "--seed -1: must be"),
    (["--seed", str(2**64)], f"--seed {2**64}: must be"),
])
def test_numbers_out_of_bounds_are_refused_in_one_line(fake_env, args, fragment):
    tmp, opts = fake_env
    line = one_line_error(cli([*opts, "--out", str(tmp / "c"), *args]))
    assert fragment in line, line
    assert not (tmp / "c").exists()


def test_a_local_launch_has_at_most_so_many_ranks_per_core(fake_env):
    tmp, opts = fake_env
    i = opts.index("--launcher")  # local: every rank on this machine
    np = limits.max_local_np() + 1
    line = one_line_error(cli([*opts[:i], *opts[i + 2:], "--np", str(np), "--out", str(tmp / "c")]))
    assert f"--np {np}: with --launcher local" in line, line


def test_trials_are_bounded(fake_env):
    tmp, opts = fake_env
    opts = [o for o in opts if o != "--no-analyze"]
    result = cli([*opts, "--trials", "100000", "--out", str(tmp / "r")], command="reproducibility")
    assert f"at most {limits.MAX_TRIALS}" in one_line_error(result, "reproducibility")


def test_resume_bounds_its_launch_timeout(fake_env):
    tmp, opts = fake_env
    assert cli([*opts, "--launches", "1", "--out", str(tmp / "c")]).exit_code == 0
    for value in ("nan", "inf", "1e+300", "0"):
        result = cli(["--resume", str(tmp / "c"), "--launch-timeout", value,
                      "--launcher", template(tmp)])
        assert f"--launch-timeout {value}" in one_line_error(result)


def test_the_derived_launch_timeout_is_capped(fake_env):
    tmp, _ = fake_env
    request = spec.CampaignRequest(np=2, launches=1, mpis=["openmpi"], seed=1,
                                   launcher=f"{tmp}/fakerun -np {{np}} {{cmd}}",
                                   bench_values={"nrep": 100000000, "sizes": "1048576",
                                                 "ops": "bcast"})
    state = spec.prepare(request)
    assert state.launch_timeout_s == limits.MAX_DERIVED_LAUNCH_TIMEOUT_S
    assert any("capped" in note for note in state.notes)


def test_campaign_json_never_holds_nan_or_infinity(tmp_path):
    state = make_state()
    state.launches[0].duration_s = math.nan
    with pytest.raises(st.CampaignWriteError, match="not a finite number"):
        st.save(state, tmp_path)
    assert list(tmp_path.iterdir()) == []
