# SPDX-License-Identifier: BSD-3-Clause
"""The per-operation figure: (a) medians with intervals on log axes, (b) per-launch medians
side by side, (c) the launch-to-launch spread."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from data import synth
from data.report.synth_campaign import LaunchSpec, write_campaign, write_launch

from mpimeter import analysis
from mpimeter.report.overview import draw_operation


def _result(tmp_path, *, bad_launch: bool):
    spec = LaunchSpec(ops=("bcast",), sizes=(8, 1024, 65536), nrep=60)  # the figure shows per-launch medians
    folder = write_campaign(tmp_path / "c", spec, launches=6, seed=7)
    if bad_launch:  # one mpirun 200 × slower: the kind of launch a real campaign can have
        write_launch(folder / "launches" / "005", replace(spec, slowdown=200.0), seed=7005, index=5)  # its own seed
    return analysis.analyze(analysis.load_campaign(folder, cache=False, store=False))


@pytest.mark.parametrize("bad_launch, scale", [(False, "linear"), (True, "log")])
def test_launch_medians_use_a_log_axis_only_when_a_launch_is_far_off(tmp_path, bad_launch, scale):
    result = _result(tmp_path, bad_launch=bad_launch)
    fig = draw_operation("bcast", result.rows, result.alternatives)
    panels = {ax.get_title(loc="left")[:3]: ax for ax in fig.axes}
    sizes_panel, launch_panel, spread_panel = panels["(a)"], panels["(b)"], panels["(c)"]
    assert sizes_panel.get_xscale() == "log" and sizes_panel.get_yscale() == "log"
    assert launch_panel.get_yscale() == scale
    # one dot per launch and size, all of them drawn
    dots = sum(len(c.get_offsets()) for c in launch_panel.collections if c.get_label() == result.alternatives[0])
    assert dots == 6 * 3
    # the spread map: sizes × launches, colors on log2(ratio), symmetric around ratio 1
    image = spread_panel.images[0]
    assert image.get_array().shape == (3, 6)
    low, high = image.get_clim()
    assert low == pytest.approx(-high)
    if bad_launch:
        assert high == pytest.approx(np.nanmax(np.abs(image.get_array())))
        assert high > np.log2(100)


def test_alternatives_are_side_by_side_with_stars(tmp_path):
    # one operation (the figure's) of 60 repetitions: the per-launch medians are what is compared
    spec = LaunchSpec(ops=("bcast",), sizes=(8, 1024), nrep=60)
    folder = write_campaign(tmp_path / "c", {"a": spec, "b": replace(spec, slowdown=1.5)}, launches=8, seed=3)
    result = analysis.analyze(analysis.load_campaign(folder, cache=False, store=False))
    comparison = analysis.compare(result)
    fig = draw_operation("bcast", result.rows, result.alternatives,
                         [c for c in comparison.rows if c.op == "bcast"])
    launch_panel = next(ax for ax in fig.axes if ax.get_title(loc="left").startswith("(b)"))
    stars = [t.get_text() for t in launch_panel.texts]
    # a and b ran in the same 8 rounds: compared paired by round, whose smallest p at 8 pairs is
    # 2/256 (one star after Holm over the rows; the rank-sum test of separate campaigns reaches ***)
    assert {c.design for c in comparison.rows if c.op == "bcast"} == {"paired by round"}
    assert stars == ["*", "*"]
    labels = [t.get_text() for t in launch_panel.get_legend().get_texts()]
    assert labels == ["a", "b"]


@pytest.mark.filterwarnings("error")  # matplotlib warns when a legend has nothing to show
def test_all_repetitions_invalid_draws_no_legend_and_says_why(tmp_path):
    folder = synth.write_campaign(tmp_path / "c", 3, seed=5, ops=("bcast",), sizes=(8, 1024),
                                  nrep=20, invalid_fraction=1.0)
    result = analysis.analyze(analysis.load_campaign(folder, cache=False, store=False))
    assert all(r.invalid == r.repetitions for r in result.rows)
    fig = draw_operation("bcast", result.rows, result.alternatives)
    for ax in fig.axes:
        if ax.get_title(loc="left")[:3] in ("(a)", "(b)", "(c)"):
            assert ax.get_legend() is None
            assert "no valid repetition: nothing to plot" in [t.get_text() for t in ax.texts]
