# SPDX-License-Identifier: BSD-3-Clause
"""The small SVG plotting kit of the report: ticks, labels, coordinates, escaping."""

from __future__ import annotations

import numpy as np
import pytest

from mpimeter.report.svgplot import Axes, limits, linear_ticks, log_ticks, nice_step, svg, tick_label


@pytest.mark.parametrize("span, target, step", [(10, 5, 2), (1, 5, 0.2), (7, 5, 2), (0.03, 4, 0.01),
                                                (250, 5, 50), (10, 4, 2.5), (11, 4, 5)])
def test_nice_step(span, target, step):
    assert nice_step(span, target) == pytest.approx(step)


def test_linear_ticks_are_inside_and_evenly_spaced():
    ticks = linear_ticks(2.37, 5.81)
    assert ticks[0] >= 2.37 and ticks[-1] <= 5.81
    assert np.allclose(np.diff(ticks), ticks[1] - ticks[0])
    assert 3 <= len(ticks) <= 8
    assert linear_ticks(-1e-12, 1.0)[0] == 0.0  # no "-0"


def test_log_ticks_use_decades_or_finer_for_short_ranges():
    assert log_ticks(0.9, 2000) == [1, 10, 100, 1000]
    assert log_ticks(2.5, 30) == [5, 10, 20]
    short = log_ticks(1.1, 1.9)
    assert short[0] >= 1.1 and short[-1] <= 1.9 and len(short) >= 1


def test_tick_labels_have_just_enough_decimals():
    assert [tick_label(t, [0, 0.5, 1.0]) for t in (0, 0.5, 1.0)] == ["0.0", "0.5", "1.0"]
    assert tick_label(2.5, [2.5, 5.0]) == "2.5"
    assert tick_label(1500, [1000, 1500, 2000]) == "1500"
    assert tick_label(0.25, [0, 0.25, 0.5]) == "0.25"


def test_coordinates_map_limits_to_the_box():
    ax = Axes(left=10, top=20, width=100, height=50, xlim=(0, 10), ylim=(1, 1000), ylog=True)
    assert ax.px([0, 10]).tolist() == [10, 110]
    assert ax.py([1, 1000]).tolist() == pytest.approx([70, 20])
    assert ax.py([10]).tolist() == pytest.approx([70 - 50 / 3])


def test_points_are_one_path_of_whole_pixels_each_drawn_once():
    ax = Axes(left=0, top=0, width=100, height=100, xlim=(0, 100), ylim=(0, 100))
    ax.points([1, 1.2, 50, 50], [1, 1.1, 50, 60], "#000")
    assert len(ax.parts) == 1
    d = ax.parts[0].split('d="')[1].split('"')[0]
    assert d == "M1 99h0m49 -59h0m0 10h0"  # (1, 99), (50, 40), (50, 50)


def test_limits_pad_and_handle_degenerate_data():
    assert limits([1, 3]) == pytest.approx((0.9, 3.1))
    assert limits([5, 5]) == pytest.approx((4.75, 5.25))
    lo, hi = limits([1, 100], log=True)
    assert lo < 1 and hi > 100 and lo * hi == pytest.approx(100)
    assert limits([]) == (0.0, 1.0)


def test_text_is_escaped():
    ax = Axes(left=50, top=30, width=100, height=100)
    frame = ax.frame(title="<b>t</b>", xlabel="x & y", ylabel='"q"')
    out = svg(200, 200, frame, label="<script>")
    assert "<b>" not in out and "&lt;b&gt;t&lt;/b&gt;" in out
    assert "x &amp; y" in out and "&quot;q&quot;" in out
    assert 'aria-label="&lt;script&gt;"' in out
