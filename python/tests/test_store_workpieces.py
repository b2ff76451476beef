# SPDX-License-Identifier: BSD-3-Clause
"""Issue 27: master-worker work pieces are a dimension of the results store and the site, not only
of ``analyze``. mw-workpieces at 1, 4 and 16 pieces (one test per value of ``--workpieces LIST``)
take 1 µs per piece: pooled, they would be one row of a meaningless median, one history line and
one gate test. Here they are three rows, three history lines, three gate rows; the ops without
work pieces keep their rows (workpieces NULL) and their page names. A store made before the
column (or before nprocs and root) still opens — read-only for the site, and for ``store add``,
which gives it the column, keeping every row it held."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner
from data import synth
from test_analysis_workpieces import PIECES, pieces_launch

from mpimeter.cli import main
from mpimeter.resultstore import schema
from mpimeter.site.data import load, samples
from mpimeter.site.history import series_steps

LAUNCHES = 6  # a side: Holm over 8 rows can reach α = 0.05 with 6 (1/924 × 8), not with 3


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def pieces_store_campaign(folder: Path, *, day: int, slower_at: int | None = None) -> Path:
    """LAUNCHES launches of mw-workpieces (1, 4, 16 pieces; root 0, as the binary records a
    master-worker test) and allreduce on day ``day`` of November 2026; ``slower_at``: 30 % slower
    at that number of pieces only."""
    for i in range(LAUNCHES):
        launch = folder / "launches" / f"{i:03d}"
        pieces_launch(launch, seed=100 * day + i, factor=lambda w: 1.3 if w == slower_at else 1.0)
        meta = json.loads((launch / "meta.json").read_text())
        for t in meta["tests"]:
            t["nprocs"] = meta["nprocs"]
            if t["op"] == "mw-workpieces":
                t["root"] = 0
        meta["wall_start"] = f"2026-11-{day:02d}T05:{10 + i:02d}:00Z"
        meta["wall_end"] = f"2026-11-{day:02d}T05:{10 + i:02d}:30Z"
        (launch / "meta.json").write_text(json.dumps(meta))
    return folder


def read(store: Path, sql: str) -> list[tuple]:
    con = duckdb.connect(str(store), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("pieces-store")
    path = root / "results.duckdb"
    for name, day, slower in (("before", 10, None), ("after", 12, 16)):
        r = invoke("store", "add", pieces_store_campaign(root / name, day=day, slower_at=slower), "--store", path,
                   "--no-report", "--machine", "node")
        assert r.exit_code == 0, r.output
    return path


def test_each_number_of_work_pieces_is_its_own_row(store):
    rows = read(store, "SELECT c.name, r.size, r.workpieces, r.root, r.launches, r.median_ns FROM results r "
                       "JOIN campaigns c USING (campaign_id) WHERE op = 'mw-workpieces' ORDER BY 1, 2, 3")
    assert [(n, s, w, root, k) for n, s, w, root, k, _ in rows] == [
        (n, s, w, 0, LAUNCHES) for n in ("after", "before") for s in (8, 1024) for w in PIECES]
    for name, size, w, _, _, median in rows:  # 1 µs a piece (+ size ns), 30 % more at 16 pieces after
        factor = 1.3 if (name, w) == ("after", 16) else 1.0
        assert median == pytest.approx(factor * (1000.0 * w + size), rel=0.03)
    assert read(store, "SELECT DISTINCT workpieces FROM results WHERE op = 'allreduce'") == [(None,)]
    summaries = read(store, "SELECT workpieces, count(*) FROM launch_summaries WHERE op = 'mw-workpieces' "
                            "GROUP BY 1 ORDER BY 1")
    assert summaries == [(w, 2 * 2 * LAUNCHES) for w in PIECES]  # campaigns × sizes × launches
    # the view most questions start from carries the column, once
    columns = [c for (c,) in read(store, "SELECT column_name FROM information_schema.columns "
                                         "WHERE table_name = 'results_by_machine'")]
    assert columns.count("workpieces") == 1
    assert read(store, "SELECT count(DISTINCT (op, size, workpieces)) FROM results_by_machine") == [(8,)]


def test_the_site_keeps_the_work_pieces_apart(store):
    con = duckdb.connect(str(store), read_only=True)
    data = load(con, str(store))
    con.close()
    (series,) = data.series()
    cid = {n: c for n, c in zip(data.campaigns["name"], data.campaigns["campaign_id"])}
    got = samples(data, cid["after"], "after", series.nprocs)  # a lone campaign's alternative: its folder
    assert sorted(k for k in got if k[0] == "mw-workpieces") == [
        ("mw-workpieces", s, (2, None, w)) for s in (8, 1024) for w in PIECES]
    assert ("allreduce", 8) in got and all(len(v) == LAUNCHES for v in got.values())
    # the gate of the later campaign against the earlier: slower at 16 pieces only, found there
    first, second = series_steps(data, series, max_slowdown=0.05, alpha=0.05)
    assert first.previous is None and second.previous == cid["before"]
    flagged = {(op, size, w) for (op, size, w), row in second.rows.items() if row.regression}
    assert flagged == {("mw-workpieces", 8, 16), ("mw-workpieces", 1024, 16)}
    assert len(second.rows) == 2 * len(PIECES) + 2
    assert second.row("mw-workpieces", 8, 16).workpieces == 16 and not second.regression("mw-workpieces", 8, 4)


def test_the_pages_name_the_work_pieces_where_they_vary(store, tmp_path):
    out = tmp_path / "www"
    r = invoke("site", "--store", store, "-o", out)
    assert r.exit_code == 0, r.output
    history = sorted(p.name for p in (out / "history").rglob("*.html"))
    # per op: its page, and a history per size — mw-workpieces per (size, number of pieces)
    pieces_pages = [n for n in history if re.search(r"-\d+-w\d+\.html$", n)]
    assert sorted(re.search(r"-(\d+)-w(\d+)\.html$", n).groups() for n in pieces_pages) == sorted(
        (str(s), str(w)) for s in (8, 1024) for w in PIECES)
    assert all(n.startswith("mw-workpieces") for n in pieces_pages)  # ops without keep their names
    op_page = next(p for p in (out / "ops").glob("mw-workpieces*.html")).read_text()
    for w in PIECES:
        assert f"node: openmpi, 2 ranks · {w} workpieces" in op_page  # a line (and a column) per number
    assert "workpieces" not in next(p for p in (out / "ops").glob("allreduce*.html")).read_text()
    page16 = next(p for p in (out / "history").rglob("mw-workpieces*-8-w16.html")).read_text()
    assert "mw-workpieces 8 B · 16 workpieces" in page16 and "REGRESSION" in page16
    page4 = next(p for p in (out / "history").rglob("mw-workpieces*-8-w4.html")).read_text()
    assert "REGRESSION" not in page4 and "the gate failed at other sizes" in page4
    campaign = next(p.read_text() for p in (out / "campaigns").glob("*.html") if "after" in p.read_text())
    assert "<th>workpieces</th>" in campaign.replace(" ", "")
    assert campaign.count("REGRESSION") == 2


# A store made by an earlier mpimeter: before the work pieces, and before p and root (issue 27)
OLD_VIEW = """CREATE VIEW results_by_machine AS
SELECT c.machine, a.cpu_model, a.library, a.library_version, a.variant, a.nprocs, c.first_start AS date,
       TRY_CAST(c.first_start AS TIMESTAMP) AS started, c.name AS campaign, r.*
FROM results r JOIN alternatives a USING (campaign_id, alternative) JOIN campaigns c USING (campaign_id)"""
AGES = {"before-workpieces": (("workpieces",), schema.VIEW),
        "before-nprocs": (("nprocs", "root", "workpieces"), OLD_VIEW)}


def old_store(path: Path, campaign: Path, age: str) -> None:
    """A store holding ``campaign`` as a store of ``age`` holds it: the columns it lacked
    dropped, its view of then."""
    r = invoke("store", "add", campaign, "--store", path, "--no-report", "--machine", "node")
    assert r.exit_code == 0, r.output
    lacks, view = AGES[age]
    con = duckdb.connect(str(path))
    con.execute("DROP VIEW results_by_machine")
    for table in ("results", "launch_summaries"):
        for column in lacks:
            con.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
    con.execute(view)
    con.close()


@pytest.mark.parametrize("age", AGES)
def test_an_older_store_opens_and_gets_the_column(tmp_path, age):
    plain = synth.write_campaign(tmp_path / "plain", 3, seed=5, nrep=20, ops=("allreduce",), sizes=(8, 64))
    path = tmp_path / "old.duckdb"
    old_store(path, plain, age)
    before = read(path, "SELECT alternative, op, size, median_ns FROM results ORDER BY 1, 2, 3")
    n_summaries = read(path, "SELECT count(*) FROM launch_summaries")
    assert len(before) == 2 and "workpieces" not in [c for (c,) in read(
        path, "SELECT column_name FROM information_schema.columns WHERE table_name = 'results'")]
    # read-only users see it as it is: the site (the missing columns NULL), list and query
    stamp = digest(path)
    r = invoke("site", "--store", path, "-o", tmp_path / "www-old")
    assert r.exit_code == 0, r.output
    assert invoke("store", "list", "--store", path).exit_code == 0
    assert invoke("store", "query", "SELECT count(*) FROM results_by_machine", "--store", path).exit_code == 0
    assert digest(path) == stamp
    # the campaign it holds, added again: unchanged, compared with the rows the store has (without
    # the columns it lacks: no DuckDB error), and the store as it was
    machine = read(path, "SELECT machine FROM campaigns WHERE name = 'plain'")[0][0]
    r = invoke("store", "add", plain, "--store", path, "--no-report", "--machine", machine)
    assert r.exit_code == 0 and r.stdout.startswith("unchanged: "), r.output
    assert digest(path) == stamp
    # store add gives it the columns and adds the work pieces' rows apart; nothing it held is lost
    r = invoke("store", "add", pieces_store_campaign(tmp_path / "pieces", day=12), "--store", path, "--no-report",
               "--machine", "node")
    assert r.exit_code == 0, r.output
    old_id = read(path, "SELECT campaign_id FROM campaigns WHERE name = 'plain'")[0][0]
    assert read(path, "SELECT alternative, op, size, median_ns FROM results WHERE campaign_id = ? "
                      "ORDER BY 1, 2, 3".replace("?", f"'{old_id}'")) == before
    assert read(path, f"SELECT count(*) FROM launch_summaries WHERE campaign_id = '{old_id}'") == n_summaries
    assert read(path, f"SELECT DISTINCT workpieces FROM results WHERE campaign_id = '{old_id}'") == [(None,)]
    assert read(path, "SELECT size, workpieces FROM results WHERE op = 'mw-workpieces' ORDER BY 1, 2") == [
        (s, w) for s in (8, 1024) for w in PIECES]
    assert read(path, "SELECT count(*) FROM results_by_machine WHERE workpieces IS NOT NULL") == [(6,)]
    r = invoke("site", "--store", path, "-o", tmp_path / "www-new")
    assert r.exit_code == 0, r.output
    assert len(list((tmp_path / "www-new" / "history").rglob("mw-workpieces*-*-w*.html"))) == 2 * len(PIECES)
