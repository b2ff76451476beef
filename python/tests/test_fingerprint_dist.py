# SPDX-License-Identifier: BSD-3-Clause
"""The fingerprint's normal Q-Q plot of log run times and violin per launch (Hoefler & Belli
2015 §3.1.2, §5.2) in both of its formats: the matplotlib figure of `mpimeter fingerprint` has
the two panels, and it draws the very points, outlines and ticks that the report's SVG draws,
from one computation (``report.fingerprint_dist``)."""

import re

import numpy as np
import pytest
from matplotlib.collections import PathCollection, PolyCollection

from mpimeter import analysis
from mpimeter.report import fingerprint_dist as dist
from mpimeter.report.fingerprint import draw_fingerprint, fingerprint_data, qq_of, violins_of
from mpimeter.report.fingerprint_dist_svg import qq_panel, violin_panel
from mpimeter.report.svgplot import Axes
from mpimeter.units import time_unit
from data.synth import write_launch


def lognormal(op, size, rng, n):
    return 10_000 * rng.lognormal(0, 0.1, n)


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    root = tmp_path_factory.mktemp("fpdist")
    for i, factor in enumerate((1.0, 1.3, 1.0)):  # launch 2 is 30 % slower
        write_launch(root / "c" / "launches" / f"{i:03d}", seed=i, ops=("bcast",), sizes=(8,), nrep=150,
                     time_fn=lognormal, launch_factor=factor)
    return fingerprint_data(analysis.analyze(analysis.load_campaign(root / "c", cache=False)), "bcast", 8)


def _axes(fig, title):
    found = [ax for ax in fig.axes if ax.get_title(loc="left") == title]
    assert len(found) == 1, [ax.get_title(loc="left") for ax in fig.axes]
    return found[0]


@pytest.mark.parametrize("layout", ["full", "panels"])
def test_the_png_fingerprint_draws_the_shared_qq_points_and_violins(data, layout):
    fig = draw_fingerprint(data, layout=layout)
    unit = time_unit(data.summary.median)
    qq, violins = qq_of(data, unit), violins_of(data, unit)
    assert qq is not None and violins is not None
    ax = _axes(fig, dist.QQ_TITLE)
    dots = [c for c in ax.collections if isinstance(c, PathCollection)]
    assert len(dots) == 1
    assert np.array_equal(dots[0].get_offsets(), np.column_stack([qq.z, qq.y]))
    assert qq.z.size > 50 and np.all(np.diff(qq.z) > 0) and np.all(np.diff(qq.y) >= 0)
    assert ax.get_yscale() == ("log" if qq.ylog else "linear")
    assert ax.get_yticks().tolist() == list(qq.yticks)  # the SVG's ticks, not matplotlib's own
    ax = _axes(fig, dist.VIOLIN_TITLE)
    outlines = [c for c in ax.collections if isinstance(c, PolyCollection)]
    assert len(outlines) == len(violins.violins) == 3
    for outline, violin in zip(outlines, violins.violins):
        xy = outline.get_paths()[0].vertices
        assert xy[:, 1].min() == pytest.approx(violin.values[0]) and xy[:, 1].max() == pytest.approx(violin.values[-1])
        assert xy[:, 0].mean() == pytest.approx(violin.slot, abs=0.05)  # the launch's slot, in order
    assert [t.get_text() for t in ax.get_xticklabels()] == list(violins.xticklabels) == ["1", "2", "3"]
    assert violins.violins[1].median > violins.violins[0].median  # the 1.3× launch sits higher


def test_the_svg_draws_the_same_shapes(data):
    unit = time_unit(data.summary.median)
    qq, violins = qq_of(data, unit), violins_of(data, unit)
    ax = Axes(left=0, top=0, width=300, height=146)
    svg = qq_panel(ax, data, unit)
    # the dots of the SVG are the shape's points at the panel's pixels, each pixel once
    d = re.search(r'<path d="(M[^"]*h0[^"]*)" stroke="#0969da"', svg).group(1)
    x, y = (int(v) for v in re.match(r"M(-?\d+) (-?\d+)h0", d).groups())
    drawn = [(x, y)]
    for a, b in re.findall(r"m(-?\d+) (-?\d+)h0", d):
        drawn.append((drawn[-1][0] + int(a), drawn[-1][1] + int(b)))
    expected = np.unique(np.column_stack([np.rint(ax.px(qq.z)), np.rint(ax.py(qq.y))]).astype(int), axis=0)
    assert drawn == [tuple(p) for p in expected.tolist()]
    assert dist.QQ_TITLE in svg and 'stroke-dasharray="4 3"' in svg
    svg = violin_panel(Axes(left=0, top=0, width=560, height=146), data, unit)
    assert len(re.findall(r'<path d="M[^"]*Z" fill="#8250df"', svg)) == len(violins.violins)
    assert dist.VIOLIN_TITLE in svg


def test_qq_shape_axis_and_edge_cases():
    assert dist.qq_shape(np.array([5.0])) is None
    assert dist.qq_shape(np.array([0.0, -1.0, np.nan, 3.0])) is None  # one positive value left
    narrow = dist.qq_shape(np.linspace(10.0, 14.0, 50))  # × 1.4: a linear axis
    wide = dist.qq_shape(np.linspace(10.0, 16.0, 50))  # × 1.6: a log axis
    assert not narrow.ylog and wide.ylog
    assert dist.qq_ylabel(wide, "run time", "µs") == "run time (µs, log)"
    assert dist.qq_ylabel(narrow, "run time", "µs") == "run time (µs)"
    many = dist.qq_shape(np.arange(1.0, 5001.0))
    assert many.z.size == dist.QQ_POINTS  # both ends kept:
    assert many.y[0] == pytest.approx(1.0) and many.y[-1] == pytest.approx(5000.0)


def test_violin_shapes_skip_empty_launches_draw_bars_and_say_what_is_left_out():
    rng = np.random.default_rng(3)
    shapes = dist.violin_shapes([np.array([]), np.full(4, 2.0), rng.normal(5.0, 0.3, 80)], log_span=30.0)
    assert [v.launch for v in shapes.violins] == [2, 3] and [v.slot for v in shapes.violins] == [0, 1]
    assert shapes.violins[0].values.tolist() == [2.0]  # all equal: a bar
    assert not shapes.ylog and "more not drawn" not in shapes.xlabel
    assert dist.violin_shapes([np.array([]), np.array([])], log_span=30.0) is None
    groups = [rng.lognormal(0, 0.1, 20) * (1000.0 if i % 2 else 1.0) for i in range(dist.MAX_VIOLINS + 5)]
    shapes = dist.violin_shapes(groups, log_span=30.0)
    assert len(shapes.violins) == dist.MAX_VIOLINS and shapes.ylog
    assert f"the first {dist.MAX_VIOLINS} launches; 5 more not drawn" in shapes.xlabel
    assert shapes.xticklabels[0] == "1" and len(shapes.xticks) <= 13
