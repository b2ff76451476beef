"""Roth 2021 §4.5 categories: first, warm-up (cumulative-minimum cliff), outlier, good."""

import numpy as np
import pytest

from mpimeter.stats import warmup
from mpimeter.stats.repetitions import INVALID, reduce_launch_test


def series(warm: int, n: int = 200) -> np.ndarray:
    x = np.full(n, 10.0) + np.linspace(0, 0.5, n) % 0.3
    x[:warm] = 14.0 - np.arange(warm) * 0.01  # elevated, slowly falling: no cliff inside
    x[0] = 30.0
    return x


def test_cliff_after_warmup_is_found():
    x = series(40)
    cats = warmup.categorize(x)
    assert cats.warmup_end == 40
    assert cats.warmup_length == 39
    names = [warmup.NAMES[c] for c in cats.codes]
    assert names[0] == "first"
    assert set(names[1:40]) == {"warmup"}
    assert set(names[40:]) == {"good"}


def test_outliers_are_at_least_twice_the_median():
    x = series(0)
    x[[50, 120]] = [25.0, 19.0]  # median ≈ 10.2: 25 is an outlier, 19 is not
    cats = warmup.categorize(x)
    assert cats.codes[50] == warmup.OUTLIER
    assert cats.codes[120] == warmup.GOOD
    assert cats.warmup_end == 0  # no cliff: no warm-up


def test_a_cliff_before_repetition_10_is_not_a_warmup():
    x = series(5)
    assert warmup.warmup_end(x) == 0


def test_small_drops_are_not_a_cliff():
    x = np.full(100, 10.0)
    x[:30] = 10.5  # a 5 % step is below the 10 % threshold
    assert warmup.warmup_end(x) == 0


def test_reduce_drops_invalid_and_optionally_warmup():
    x = series(40, 200)
    valid = np.ones(200, dtype=bool)
    valid[[100, 101]] = False
    keep_all = reduce_launch_test(x, valid, outlier="none")
    assert keep_all.n_invalid == 2 and keep_all.summary.n == 198
    assert keep_all.codes[100] == INVALID
    assert keep_all.warmup_length == 39
    dropped = reduce_launch_test(x, valid, outlier="none", drop_warmup=True)
    assert dropped.n_warmup_dropped == 40 and dropped.summary.n == 158
    assert dropped.summary.max < 11
    assert not dropped.kept[:40].any() and dropped.kept[40:100].all()


def test_reduce_counts_outliers_removed_and_bandwidth_is_harmonic():
    x = np.concatenate([np.full(99, 1000.0), [50_000.0]])  # ns
    st = reduce_launch_test(x, np.ones(100, bool), outlier="tukey", rate_bytes=1000)
    assert st.removed == 1
    assert st.bandwidth_Bps == pytest.approx(1e9)  # 1000 B / 1 µs
