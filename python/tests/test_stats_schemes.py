# SPDX-License-Identifier: BSD-3-Clause
"""The peers' processing schemes (Hunold & Carpen-Amarie 2016, Table 4) on data computed by hand."""

import math

import numpy as np
import pytest

from mpimeter.stats import schemes

# 2 ranks × 4 repetitions of local run times (ns); maxima over ranks: 2, 2, 10, 4
LOCAL = np.array([[1.0, 2.0, 3.0, 4.0],
                  [2.0, 2.0, 10.0, 1.0]])


def test_max_over_ranks():
    assert schemes.max_over_ranks(LOCAL).tolist() == [2.0, 2.0, 10.0, 4.0]


def test_skampi_mean_and_stdev_of_the_central_half():
    # sorted maxima 2, 2, 4, 10; the fastest and the slowest quarter (1 each) dropped: 2, 4
    v = schemes.skampi(schemes.max_over_ranks(LOCAL))
    assert v.headline == 3.0 and v.stats["mean"] == 3.0
    assert v.stats["stdev"] == pytest.approx(math.sqrt(2.0))  # sample sd of (2, 4)
    assert (v.used, v.removed) == (2, 2)


def test_mpiblib_mean_min_max_of_the_maxima():
    v = schemes.mpiblib(schemes.max_over_ranks(LOCAL))
    assert v.headline == 4.5 and v.stats == {"mean": 4.5, "min": 2.0, "max": 10.0}


def test_osu_and_imb_reduce_the_per_rank_means():
    # rank means: (1+2+3+4)/4 = 2.5, (2+2+10+1)/4 = 3.75
    osu = schemes.osu(LOCAL)
    assert osu.headline == 3.125 and osu.stats == {"avg": 3.125, "min": 2.5, "max": 3.75}
    imb = schemes.imb(LOCAL)
    assert imb.headline == 3.75 and imb.stats == {"t_min": 2.5, "t_max": 3.75, "t_avg": 3.125}


def test_mpibench_drops_values_above_twice_the_99th_percentile():
    # 100 values of 1 ns and one of 1000: t99 (linear) = sorted[99] = 1, threshold 2 → 1000 dropped
    x = np.array([[1.0] * 50 + [1000.0], [1.0] * 50 + [1.0]])
    v = schemes.mpibench(x)
    assert v.removed == 1 and v.used == 101
    assert v.headline == 1.0 and v.stats == {"avg": 1.0, "min": 1.0, "max": 1.0}
    # nothing above 2·t99 in LOCAL: pooled 1,1,2,2,2,3,4,10, t99 = 4 + 0.93·6 = 9.58
    assert schemes.mpibench(LOCAL).headline == pytest.approx(25 / 8) and schemes.mpibench(LOCAL).removed == 0
    assert schemes.mpibench(LOCAL, a=1.0).removed == 1  # 10 > 9.58


def test_one_repetition_and_all_equal():
    one = np.array([[5.0], [7.0]])
    assert schemes.skampi(schemes.max_over_ranks(one)).headline == 7.0
    assert math.isnan(schemes.skampi(np.array([7.0])).stats["stdev"])
    same = np.full((3, 8), 4.0)
    for f in (schemes.osu, schemes.imb, schemes.mpibench):
        assert f(same).headline == 4.0
    assert schemes.skampi(same.max(axis=0)).headline == 4.0


def test_empty_or_wrongly_shaped_input_is_refused():
    with pytest.raises(ValueError):
        schemes.osu(np.array([1.0, 2.0]))
    with pytest.raises(ValueError):
        schemes.skampi(np.array([]))


def test_mpiblib_global_takes_the_latest_end_minus_the_roots_start():
    # global starts: rank 1 5 ns after rank 0; ends = start + local time
    start = np.array([[0.0, 100.0, 200.0, 300.0], [5.0, 105.0, 205.0, 305.0]])
    end = start + LOCAL
    v = schemes.mpiblib_global(start, end)
    t = np.array([7.0, 7.0, 15.0, 6.0])  # max(1, 5 + 2), max(2, 5 + 2), max(3, 5 + 10), max(4, 5 + 1)
    assert v.headline == pytest.approx(8.75) and v.stats["min"] == 6.0 and v.stats["max"] == 15.0
    half = 3.182446305284263 * np.std(t, ddof=1) / 2  # t(0.975, 3 d.f.) x s / sqrt(4)
    assert v.stats["ci_low"] == pytest.approx(8.75 - half) and v.stats["ci_high"] == pytest.approx(8.75 + half)
    # another root: rank 1's start
    assert schemes.mpiblib_global(start, end, root=1).headline == pytest.approx(8.75 - 5.0 + 0.0 * 1)
    with pytest.raises(ValueError):
        schemes.mpiblib_global(start, end[:, :3])


def test_mpptest_is_the_roots_minimum():
    assert schemes.mpptest(LOCAL).headline == 1.0
    assert schemes.mpptest(LOCAL, root=1).stats == {"min": 1.0}
    with pytest.raises(ValueError):
        schemes.mpptest(LOCAL, root=2)
