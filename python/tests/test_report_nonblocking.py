# SPDX-License-Identifier: BSD-3-Clause
"""The report's nonblocking part: a figure (overhead with its interval beside the blocking time;
the three overlaps) and a table per nonblocking op, only for ops that have nbc rows."""

from __future__ import annotations

from dataclasses import replace

from data.synth import write_campaign

from mpimeter import analysis
from mpimeter.analysis.nbc import NbcRow
from mpimeter.report.html_report import build_report
from mpimeter.report.nonblocking import draw_nonblocking


def _result(tmp_path):
    res = analysis.analyze(analysis.load_campaign(write_campaign(tmp_path / "c", 3, ops=("iallreduce", "bcast"),
                                                                 sizes=(8, 1024), nrep=20),
                                                  cache=False, store=False))
    alt = res.alternatives[0]
    rows = tuple(NbcRow(alternative=alt, op="iallreduce", size=size, launches=3, repetitions=60,
                        overhead_ns=overhead, overhead_ci_low_ns=overhead * 0.9,
                        overhead_ci_high_ns=overhead * 1.1, blocking_ns=blocking, compute_ns=blocking,
                        total_ns=2 * blocking, init_ns=overhead / 2, test_ns=0.0, wait_ns=overhead / 2,
                        overlap=1 - overhead / blocking, overlap_imb=0.8, overlap_osu=0.7, tests_per_rep=0,
                        scheme="work")
                 for size, overhead, blocking in ((8, 1500.0, 3000.0), (1024, 7777.0, 9000.0)))
    return replace(res, nbc_rows=rows)


def test_report_has_the_nonblocking_figure_and_table(tmp_path):
    res = _result(tmp_path)
    text, _ = build_report(res, None)
    section = text[text.index('id="op-iallreduce"'):text.index('id="fingerprints"')]
    assert "overhead = init + test + wait" in section
    assert "7.78 µs" in section and "9 µs" in section  # overhead and blocking at 1 KiB
    assert "50 %" in section  # NBCBench overlap at 8 B: 1 − 1500/3000
    assert "work" in section
    assert section.count("data:image/png;base64,") == 2  # run time figure + nonblocking figure
    bcast = text[text.index('id="op-bcast"'):text.index('id="op-iallreduce"')]
    assert "overhead = init + test + wait" not in bcast and bcast.count("data:image/png;base64,") == 1


def test_figure_plots_overhead_blocking_and_three_overlaps(tmp_path):
    res = _result(tmp_path)
    fig = draw_nonblocking("iallreduce", res.nbc_rows, res.alternatives)
    times, overlaps = fig.axes[:2]
    labels = times.get_legend_handles_labels()[1]
    assert any(label.endswith("overhead") for label in labels) and any(label.endswith("blocking") for label in labels)
    assert len(overlaps.get_lines()) >= 3
    nbcbench = overlaps.get_lines()[0].get_ydata()
    assert list(nbcbench) == [50.0, 100 * (1 - 7777.0 / 9000.0)]


def test_the_table_names_the_root_of_each_row(tmp_path):
    # --root 0,1: two rows of iallreduce at each size (as ibcast's would be); the table says which
    # root each is, as the main table of analyze does, instead of two rows that read alike
    res = _result(tmp_path)
    rows = tuple(replace(r, root=root, overhead_ns=r.overhead_ns + 1000.0 * root) for r in res.nbc_rows
                 for root in (0, 1))
    from mpimeter.report.nonblocking import nonblocking_html
    html = nonblocking_html("iallreduce", rows, replace(res, nbc_rows=rows), "")
    assert "<th>root</th>" in html.replace(' class="num"', ""), html[:2000]
    cells = [[c.split(">", 1)[1] for c in row.split("</td>")[:-1]] for row in html.split("<tr>")[2:]]
    assert [(c[1], c[2], c[6]) for c in cells] == [("8 B", "0", "1.50 µs"), ("8 B", "1", "2.50 µs"),
                                                   ("1 KiB", "0", "7.78 µs"), ("1 KiB", "1", "8.78 µs")]


def test_rows_of_several_roots_are_lines_of_their_own():
    # ibcast at roots 0 and 1, two sizes: one line per root, each named (one line through the
    # four points zigzagged between the roots at every size)
    def row(size, root, overhead):
        return NbcRow(alternative="openmpi", op="ibcast", size=size, launches=3, repetitions=60, overhead_ns=overhead,
                      overhead_ci_low_ns=None, overhead_ci_high_ns=None, blocking_ns=2 * overhead, compute_ns=5000.0,
                      total_ns=6000.0, init_ns=100.0, test_ns=10.0, wait_ns=100.0, overlap=0.5, overlap_imb=0.5,
                      overlap_osu=0.5, tests_per_rep=1, scheme="time", nprocs=2, root=root)

    rows = [row(8, 0, 500.0), row(8, 1, 900.0), row(1024, 0, 600.0), row(1024, 1, 1000.0)]
    fig = draw_nonblocking("ibcast", rows, ["openmpi"])
    times, overlaps = fig.axes[:2]
    labels = [line.get_label() for line in times.get_lines() if not line.get_label().startswith("_")]
    assert "openmpi · root 0: blocking" in labels and "openmpi · root 1: blocking" in labels
    for line in times.get_lines():
        if line.get_label() == "openmpi · root 1: blocking":
            assert list(line.get_ydata()) == [1.8, 2.0]  # its own two sizes, in µs
    assert sum("root 1" in line.get_label() for line in overlaps.get_lines()) == 3
