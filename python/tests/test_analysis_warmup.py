# SPDX-License-Identifier: BSD-3-Clause
"""The `long-warmup` warning of analyze comes only from a significant warm-up (stats/warmup.py)."""

import numpy as np
from data.synth import write_launch

from mpimeter import analysis


def flat_with_one_fast_repetition(op, size, rng, n):
    x = 2000.0 * rng.lognormal(0, 0.005, n)
    x[251] *= 0.8  # Roth's cumulative-minimum rule: a warm-up of 251 repetitions
    return x


def decaying_warmup(op, size, rng, n):
    x = 2000.0 * rng.lognormal(0, 0.05, n)
    x[:60] *= 2.0 ** (1 - np.arange(60) / 60)
    return x


def launch_summary(tmp_path, time_fn):
    write_launch(tmp_path / "c" / "launches" / "000", seed=1, nrep=300, ops=("allreduce",), sizes=(8,),
                 time_fn=time_fn)
    res = analysis.analyze(analysis.load_campaign(tmp_path / "c"))
    (s,) = res.launch_summaries
    return s, [w for w in res.warnings if w.code == "long-warmup"]


def test_one_fast_repetition_is_no_warmup_and_no_warning(tmp_path):
    s, warned = launch_summary(tmp_path, flat_with_one_fast_repetition)
    assert s.warmup_length == 0 and s.n_warmup == 0 and not warned
    assert s.warmup_p_value > 0.01  # the test itself, not only the length, says "no trend"


def test_a_significant_long_warmup_is_warned_about(tmp_path):
    s, warned = launch_summary(tmp_path, decaying_warmup)
    assert 48 <= s.warmup_length + 1 <= 72  # w within ±20 % of 60
    assert s.warmup_p_value <= 0.01
    (w,) = warned
    assert "significant warm-up" in w.message and "--drop-warmup" in w.hint
