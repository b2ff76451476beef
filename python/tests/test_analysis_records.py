# SPDX-License-Identifier: BSD-3-Clause
"""The records the analysis hands on: one interval record for every estimate (a ratio's too), and
a per-launch summary that cannot be built by position (some 30 fields, many of one type)."""

import dataclasses

import numpy as np
import pytest

from mpimeter.analysis.results import LaunchSummary
from mpimeter.stats import hypothesis
from mpimeter.stats.compare import compare_two
from mpimeter.stats.intervals import Interval, median_ci


def test_a_ratio_interval_is_the_interval_record():
    rng = np.random.default_rng(1)
    a, b = rng.lognormal(0, 0.1, 12), 1.2 * rng.lognormal(0, 0.1, 12)
    hl = hypothesis.hodges_lehmann_ratio(a, b, confidence=0.95)
    assert type(hl) is Interval and type(median_ci(a, confidence=0.95)) is Interval
    assert hl.low < hl.estimate < hl.high and 1.0 < hl.estimate < 1.5
    assert type(compare_two(a, b).ratio_ci) is Interval
    assert not hasattr(hypothesis, "RatioInterval")


def test_launch_summary_is_built_by_keyword_only():
    names = [f.name for f in dataclasses.fields(LaunchSummary)]
    with pytest.raises(TypeError):
        LaunchSummary(*range(len(names)))
    s = LaunchSummary(**{n: i for i, n in enumerate(names)})
    assert (s.alternative, s.warmup_p_value) == (0, names.index("warmup_p_value"))
