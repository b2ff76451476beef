# SPDX-License-Identifier: BSD-3-Clause
"""The fingerprint's normal Q-Q plot of log run times and its violin per launch (Hoefler & Belli
2015 §3.1.2, §5.2): the numbers (``stats.distplots``) and the SVG's structure — the panels are
there, the Q-Q points ascend in both coordinates, one violin per launch in launch order."""

import re

import numpy as np
import pytest
from scipy import stats

from mpimeter import analysis
from mpimeter.report.fingerprint import fingerprint_data
from mpimeter.report.fingerprint_dist_svg import qq_panel, violin_panel
from mpimeter.report.fingerprint_svg import fingerprint_svg
from mpimeter.report.svgplot import Axes
from mpimeter.stats.distplots import normal_qq, violin_density
from data.synth import write_launch


def test_normal_qq_by_hand_and_on_a_line_for_normal_data():
    qq = normal_qq(np.array([3.0, 1.0, 2.0]))
    assert qq.sample.tolist() == [1.0, 2.0, 3.0]
    assert qq.theoretical == pytest.approx(stats.norm.ppf([1 / 6, 3 / 6, 5 / 6]))  # (i − ½)/n
    x = np.random.default_rng(0).normal(5.0, 2.0, 4000)
    qq = normal_qq(x)
    assert qq.slope == pytest.approx(2.0, rel=0.05) and qq.intercept == pytest.approx(5.0, abs=0.1)
    assert normal_qq(np.array([7.0])).sample.tolist() == [7.0]


def test_violin_density_peaks_at_the_mode_and_handles_constants():
    x = np.random.default_rng(1).normal(10.0, 1.0, 3000)
    grid, dens = violin_density(x)
    assert grid[0] == x.min() and grid[-1] == x.max() and dens.max() == 1.0
    assert abs(grid[np.argmax(dens)] - 10.0) < 0.5
    assert violin_density(np.full(5, 3.0))[0].tolist() == [3.0]
    assert violin_density(np.array([]))[0].size == 0


def shifted(op, size, rng, n):
    return 10_000 * rng.lognormal(0, 0.1, n)


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    root = tmp_path_factory.mktemp("fp")
    for i, factor in enumerate((1.0, 1.3, 1.0)):  # launch 2 is 30 % slower: its violin sits higher
        write_launch(root / "c" / "launches" / f"{i:03d}", seed=i, ops=("bcast",), sizes=(8,), nrep=150,
                     time_fn=shifted, launch_factor=factor)
    return fingerprint_data(analysis.analyze(analysis.load_campaign(root / "c", cache=False)), "bcast", 8)


def _paths(svg: str) -> list[str]:
    return re.findall(r'<path d="([^"]*)"', svg)


def test_the_fingerprint_has_both_panels(data):
    svg = fingerprint_svg(data)
    assert "Normal Q-Q of log run times" in svg and "Violin per launch — bulk" in svg
    assert svg.count("<svg") == 1 and "812" in svg.split(">", 1)[0]


def test_qq_points_ascend_in_both_coordinates(data):
    ax = Axes(left=0, top=0, width=300, height=146)
    svg = qq_panel(ax, data, ("µs", 1000.0))
    dots = [p for p in re.findall(r'<path d="(M[^"]*h0[^"]*)" stroke="#0969da"', svg)]
    assert len(dots) == 1
    # the dots' pixels from the relative moves; sorted values against sorted quantiles rise to the
    # right: every dot of a pixel column lies on or above (smaller y) every dot of the columns before
    x0, y0 = (int(v) for v in re.match(r"M(-?\d+) (-?\d+)h0", dots[0]).groups())
    pts = [(x0, y0)]
    for a, b in re.findall(r"m(-?\d+) (-?\d+)h0", dots[0]):
        pts.append((pts[-1][0] + int(a), pts[-1][1] + int(b)))
    assert len(pts) > 50
    columns: dict[int, list[int]] = {}
    for x, y in pts:
        columns.setdefault(x, []).append(y)
    xs = sorted(columns)
    assert all(max(columns[b]) <= min(columns[a]) for a, b in zip(xs, xs[1:]))
    assert 'stroke-dasharray="4 3"' in svg  # the quartile reference line


def test_one_violin_per_launch_in_order_and_the_slow_launch_higher(data):
    ax = Axes(left=0, top=0, width=560, height=146)
    svg = violin_panel(ax, data, ("µs", 1000.0))
    shapes = re.findall(r'<path d="(M[^"]*Z)" fill="#8250df"', svg)
    assert len(shapes) == 3
    centers, mids = [], []
    for d in shapes:
        xy = np.array([[float(v) for v in pt.split()] for pt in d[1:-1].split("L")])
        centers.append(xy[:, 0].mean())
        mids.append(np.median(xy[:, 1]))
    assert centers == sorted(centers)  # launch order left to right
    assert mids[1] < mids[0] and mids[1] < mids[2]  # the 1.3× launch is drawn higher (smaller y)
    medians = re.findall(r'stroke="#cf222e" stroke-width="1.6"', svg)
    assert len(medians) == 3
