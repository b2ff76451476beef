# SPDX-License-Identifier: BSD-3-Clause
"""One pass per command: `mpimeter analyze` (counters included), `analyze --scheme` and `schemes`
read each launch's files once, and `mpimeter run`'s follow-up (the analyze table and the report)
reads and analyzes the campaign once. Counted at the one reader of the CSV files
(mpimeter.io.csvread.read_csv) and the one reader of meta.json (mpimeter.io.meta.read_meta)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner
from data.synth import write_campaign
from data.synth_counters import add_counters, follows, independent

from mpimeter import analysis
from mpimeter.cli import after_run
from mpimeter.cli import main as cli_main
from mpimeter.io import counters as io_counters
from mpimeter.io import launch as io_launch


def _campaign(root: Path) -> Path:
    write_campaign(root, 3, seed=4, nrep=40, schema=2)
    for i, folder in enumerate(sorted((root / "launches").iterdir())):
        add_counters(folder, {"bytes_sent": follows, "queue": independent}, seed=i, read_ns=150.0)
    return root


@pytest.fixture
def reads(monkeypatch):
    """Every file name read, counted (raw.csv, sync.csv, counters.csv, meta.json)."""
    seen: Counter = Counter()

    def counting(module, name):
        real = getattr(module, name)

        def wrapper(path, *args, **kw):
            seen[str(Path(path).resolve())] += 1
            return real(path, *args, **kw)

        monkeypatch.setattr(module, name, wrapper)

    counting(io_launch, "read_csv")
    counting(io_counters, "read_csv")
    counting(io_launch, "read_meta")
    return seen


def _files(root: Path, name: str) -> list[str]:
    return [str(p.resolve()) for p in sorted(root.glob(f"launches/*/{name}"))]


@pytest.mark.parametrize("args", [[], ["--scheme", "osu"], ["--format", "json"]])
def test_analyze_reads_each_launch_once(tmp_path, reads, args):
    root = _campaign(tmp_path / "c")
    result = CliRunner().invoke(cli_main, ["analyze", str(root), "--no-cache", *args])
    assert result.exit_code == 0, result.output
    for name in ("raw.csv", "counters.csv", "meta.json"):
        files = _files(root, name)
        assert len(files) == 3
        assert [reads[f] for f in files] == [1, 1, 1], (name, dict(reads))


def test_schemes_reads_each_launch_once(tmp_path, reads):
    root = _campaign(tmp_path / "c")
    result = CliRunner().invoke(cli_main, ["schemes", str(root), "--no-cache", "--format", "csv"])
    assert result.exit_code == 0, result.output
    assert [reads[f] for f in _files(root, "raw.csv")] == [1, 1, 1]


def test_schemes_read_with_the_launch_are_those_read_after(tmp_path):
    """The values computed during the reading equal those of reading each launch again."""
    from mpimeter.analysis import schemes

    root = _campaign(tmp_path / "c")
    once = analysis.load_campaigns([str(root)], cache=False, schemes=True)
    again = analysis.load_campaigns([str(root)], cache=False)
    assert all(li.scheme_values for li in once.launches)
    assert all(li.scheme_values is None for li in again.launches)
    a = schemes.scheme_rows(once, schemes.NAMES, analysis.analyze(once), cache=False)
    b = schemes.scheme_rows(again, schemes.NAMES, analysis.analyze(again), cache=False)
    assert [r.to_dict() for r in a[0]] == [r.to_dict() for r in b[0]]
    assert [w.to_dict() for w in a[1]] == [w.to_dict() for w in b[1]]


def test_counters_are_read_with_the_launch(tmp_path, reads):
    root = _campaign(tmp_path / "c")
    campaign = analysis.load_campaign(root, cache=False)
    assert all(li.counters_read and li.counters is not None for li in campaign.launches)
    before = dict(reads)
    result = analysis.analyze(campaign)
    assert result.counters is not None and result.counters.rows
    assert dict(reads) == before  # the analysis read no file


def test_run_follow_up_analyzes_once(tmp_path, reads, monkeypatch, capsys):
    root = _campaign(tmp_path / "c")
    calls = Counter()
    real = analysis.analyze

    def counting(*a, **kw):
        calls["analyze"] += 1
        return real(*a, **kw)

    monkeypatch.setattr(analysis, "analyze", counting)
    after_run.after_campaign(root, echo=lambda line: print(line))
    out = capsys.readouterr().out
    assert f"report: {root / 'report.html'}" in out and "mpimeter analyze" in out
    assert (root / "report.html").stat().st_size > 0
    assert calls["analyze"] == 1
    # the report's per-repetition figures take the raw rows again (Campaign.raw, from the Parquet
    # copy): the follow-up reads what `mpimeter report` alone reads, and the analysis nothing more
    follow_up = dict(reads)
    reads.clear()
    result = CliRunner().invoke(cli_main, ["report", str(root), "-o", str(tmp_path / "r.html")])
    assert result.exit_code == 0, result.output
    for name in ("raw.csv", "meta.json", "counters.csv"):
        files = _files(root, name)
        assert [follow_up[f] for f in files] == [reads[f] for f in files], name
