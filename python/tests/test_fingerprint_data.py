# SPDX-License-Identifier: BSD-3-Clause
"""The MPI-MiBFi fingerprint: what it selects from an analysis result, and its figures."""

from __future__ import annotations

import numpy as np
import pytest
from data.report.synth_campaign import LaunchSpec, golden, write_campaign

from mpimeter import analysis
from mpimeter.report import figures as fg
from mpimeter.report.fingerprint import (bulk_mask, draw_fingerprint, fingerprint_data,
                                         fingerprint_figure)


# The tests whose fingerprints the tests below draw, per golden campaign: each campaign is analysed
# for those alone, as `mpimeter fingerprint` analyses its one test (test_fingerprint_select: the
# same numbers as the whole analysis); two_alternatives keeps every op and bcast size of mpich, which
# the messages about an unknown test list.
SHOWN = {
    "one_library": {("one_library", "allreduce", 1024), ("one_library", "bcast", 8)},
    "two_alternatives": {("mpich", "allreduce", 8)} | {("mpich", "bcast", size) for size in (8, 1024, 65536)},
    "one_launch": {("one_launch", "bcast", 65536), ("one_launch", "allreduce", 8)},
    "warnings": {("warnings", "bcast", 8), ("warnings", "bcast", 4096)},
}


@pytest.fixture(scope="module")
def campaigns(tmp_path_factory):
    root = tmp_path_factory.mktemp("fingerprint")
    out = {}
    for name, tests in SHOWN.items():
        campaign = analysis.load_campaign(golden(name, root), cache=False, store=False)
        out[name] = analysis.analyze(campaign, tests=tests)
    return out


def test_data_holds_every_valid_repetition_of_every_launch(campaigns):
    result = campaigns["one_library"]
    data = fingerprint_data(result, "allreduce", 1024)
    row = result.row("allreduce", 1024)
    assert data.launches == row.launches == 6
    assert data.run_times_ns.size == row.repetitions - row.invalid == 6 * 200
    assert set(data.categories) <= {"first", "warmup", "outlier", "good"}
    assert (data.categories == "first").sum() == 6  # one per launch
    assert data.launch_starts.tolist() == [0, 200, 400, 600, 800, 1000]
    assert data.span == 1200
    # the statistics block is over the kept repetitions: n + removed = valid repetitions
    assert data.summary.n + data.removed == data.run_times_ns.size
    assert data.summary.min <= data.summary.q1 <= data.summary.median <= data.summary.q3 \
        <= data.summary.p95 <= data.summary.p99 <= data.summary.max


def test_positions_leave_gaps_where_invalid_repetitions_were(campaigns):
    data = fingerprint_data(campaigns["warnings"], "bcast", 8)
    assert data.invalid > 0
    assert data.run_times_ns.size == 2 * 200 - data.invalid
    assert data.span == 400  # both launches, invalid repetitions included
    assert np.all(np.diff(data.positions) >= 1)
    assert data.positions.max() <= 399


def test_ranks_come_from_the_rank_durations_and_name_the_slow_rank(campaigns, tmp_path):
    data = fingerprint_data(campaigns["one_launch"], "bcast", 65536)
    assert data.ranks is not None
    assert data.ranks.ranks.tolist() == [0, 1, 2, 3]
    medians = [s.median for s in data.ranks.summaries]
    assert int(np.argmax(medians)) == 3  # the synthetic slow rank
    assert data.ranks.slowest == () and "not tested" in data.ranks.note  # one launch: no rank test
    # slow in every one of 10 launches: the rank test names it
    folder = write_campaign(tmp_path / "slow", LaunchSpec(ops=("allreduce",), sizes=(8,), nprocs=4, slow_rank=3,
                                                          nrep=50), launches=10, seed=5)
    data = fingerprint_data(analysis.analyze(analysis.load_campaign(folder, cache=False, store=False)),
                            "allreduce", 8)
    assert data.ranks.slowest[0] == 3 and data.ranks.note.startswith("ranks differ\n(rank test over launches")


def test_reduced_raw_has_no_per_rank_panel(campaigns):
    assert fingerprint_data(campaigns["warnings"], "bcast", 4096).ranks is None


def test_several_alternatives_need_a_name_and_unknown_tests_are_named(campaigns):
    result = campaigns["two_alternatives"]
    with pytest.raises(ValueError, match="openmpi, mpich"):
        fingerprint_data(result, "bcast", 8)
    assert fingerprint_data(result, "bcast", 8, "mpich").alternative == "mpich"
    with pytest.raises(ValueError, match="no operation 'alltoall'.*allreduce, bcast"):
        fingerprint_data(result, "alltoall", 8, "mpich")
    with pytest.raises(ValueError, match="no size 9 for bcast.*8, 1024, 65536"):
        fingerprint_data(result, "bcast", 9, "mpich")


def test_one_launch_says_the_spread_is_unknown(campaigns):
    data = fingerprint_data(campaigns["one_launch"], "allreduce", 8)
    assert data.launches == 1
    assert "unknown" in data.spread
    assert "no interval" in data.across_median


def test_bulk_leaves_out_first_outliers_and_the_far_tail(campaigns):
    data = fingerprint_data(campaigns["one_library"], "bcast", 8)
    bulk = bulk_mask(data)
    assert not np.any(bulk & np.isin(data.categories, ["first", "outlier"]))
    assert np.all(data.run_times_ns[bulk] < 2 * data.summary.median)
    assert bulk.sum() > 0.8 * data.run_times_ns.size


def test_thinning_keeps_every_rare_category_and_is_deterministic():
    cats = np.array(["good"] * 10_000, dtype=object)
    cats[0], cats[5:40], cats[[500, 7000]] = "first", "warmup", "outlier"
    shown = fg.thin_for_display(cats.astype(str), 1000, seed=1)
    assert shown.size == 1000
    assert np.all(np.diff(shown) > 0)
    assert set(np.flatnonzero(cats != "good")) <= set(shown.tolist())
    assert np.array_equal(shown, fg.thin_for_display(cats.astype(str), 1000, seed=1))
    assert np.array_equal(fg.thin_for_display(cats[:500].astype(str), 1000), np.arange(500))


@pytest.mark.parametrize("layout, axes", [("full", 11), ("panels", 9)])
def test_figure_has_every_panel_with_units(campaigns, layout, axes):
    fig = fingerprint_figure(campaigns["one_library"], "allreduce", 1024, layout=layout)
    titles = [ax.get_title(loc="left") for ax in fig.axes]
    assert len(fig.axes) == axes
    for expected in ("Box plot", "Run time per repetition — all",
                     "Run time per repetition — without first and outliers", "Histogram — all",
                     "Histogram — bulk", "ECDF (all valid repetitions)", "Local duration per rank",
                     "Normal Q-Q of log run times", "Violin per launch — bulk"):
        assert expected in titles
    if layout == "full":
        assert {"Experiment", "Statistics (kept repetitions)"} <= set(titles)
    labels = [ax.get_ylabel() for ax in fig.axes] + [ax.get_xlabel() for ax in fig.axes]
    assert any("(µs)" in label for label in labels)


def test_no_label_is_clipped(campaigns, tmp_path):
    """Every text of the drawn figure lies inside the figure."""
    fig = draw_fingerprint(fingerprint_data(campaigns["one_launch"], "bcast", 65536))
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    width, height = fig.bbox.width, fig.bbox.height
    texts = [t for t in fig.findobj(lambda a: a.__class__.__name__ == "Text")
             if t.get_visible() and t.get_text().strip()]
    assert len(texts) > 60
    for text in texts:
        box = text.get_window_extent(renderer)
        assert box.x0 >= -1 and box.y0 >= -1, text.get_text()
        assert box.x1 <= width + 1 and box.y1 <= height + 1, text.get_text()


@pytest.mark.parametrize("suffix, magic", [(".png", b"\x89PNG"), (".svg", b"<?xml"), (".pdf", b"%PDF")])
def test_saved_in_the_format_of_the_extension(campaigns, tmp_path, suffix, magic):
    fig = fingerprint_figure(campaigns["one_library"], "bcast", 8)
    path = fg.save_figure(fig, tmp_path / f"fp{suffix}")
    assert path.read_bytes().startswith(magic)
    with pytest.raises(ValueError, match="unknown figure format"):
        fg.save_figure(fig, tmp_path / "fp.jpg")
