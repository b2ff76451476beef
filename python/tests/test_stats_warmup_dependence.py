# SPDX-License-Identifier: BSD-3-Clause
"""Warm-ups under dependence (mpimeter.stats.warmup, analysis.diagnostics.long_warmups): AR(1)
run times with φ = 0.9 wander far from their start by chance and must not make warm-ups (≤ 5 %);
a campaign of 20 rows × 10 launches of i.i.d. series must not print `long-warmup` in more than
5 % of campaigns (Holm over its 200 launch tests); real warm-ups — on AR(1) φ = 0.5 noise, and
one among 200 series — are still found. Counts chosen so that each threshold is tested with
margin (the binomial chance of passing at a true rate of 5 % is under 5 %);
bench/stats_dependence.py runs the bigger versions."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from mpimeter.analysis.diagnostics import long_warmups
from mpimeter.stats.warmup import detect_warmup
from data.synth import ar1_runtimes


@pytest.mark.parametrize("n,sd", [(100, 0.1), (100, 0.2), (300, 0.1)])
def test_ar1_phi_09_series_rarely_make_a_warmup(n, sd):
    rng = np.random.default_rng(n + int(100 * sd))
    false = sum(detect_warmup(ar1_runtimes(rng, n, 0.9, sd)).end > 0 for _ in range(400))
    assert false <= 12, false  # 3 %: the rank test alone warmed up 21–38 % of these


def test_a_warmup_on_autocorrelated_noise_is_found():
    rng = np.random.default_rng(7)
    found = 0
    for _ in range(100):
        x = ar1_runtimes(rng, 200, 0.5, 0.05)
        x[:30] *= np.exp(np.linspace(np.log(1.6), 0, 30))  # 1.6× at the start, steady from 30
        w = detect_warmup(x)
        found += 20 <= w.end <= 40
    assert found >= 90, found


def _summary(x: np.ndarray) -> SimpleNamespace:
    w = detect_warmup(x)
    return SimpleNamespace(n_total=x.size, warmup_p_value=w.p_value, warmup_length=max(w.end - 1, 0))


def _campaign(rng, warm: bool) -> list[SimpleNamespace]:
    out = []
    for i in range(200):  # 20 rows × 10 launches
        x = 1000 * np.exp(rng.normal(0, 0.15, 100))
        if warm and i == 0:
            x[:30] *= np.exp(np.linspace(np.log(2.0), 0, 30))
        out.append(_summary(x))
    return out


def test_iid_campaigns_rarely_warn_of_a_long_warmup():
    rng = np.random.default_rng(21)
    warned = sum(bool(long_warmups(_campaign(rng, False))[0]) for _ in range(100))
    assert warned <= 1, warned  # one test per series warned in 27–42 % of such campaigns


def test_one_real_warmup_among_200_series_is_still_warned_of():
    rng = np.random.default_rng(22)
    hits = 0
    for _ in range(20):
        flagged, tested = long_warmups(_campaign(rng, True))
        assert tested == 200
        hits += len(flagged) == 1 and flagged[0].warmup_length >= 20
    assert hits >= 18, hits
