# SPDX-License-Identifier: BSD-3-Clause
"""issue 26, the site: `mpimeter site` writes only what it owns and renders every page itself.

- `site --store www/results.duckdb -o www` is refused (exit 2, one line) and the store is kept;
- a file the site did not write in its folder is refused, and kept; a rewrite removes only the
  files of the old manifest that the new site lacks;
- a stored report.html (here one with a `<meta http-equiv=refresh>`) is never copied: no page of
  the site comes from the store's HTML, and every page's policy forbids forms and `<base>`;
- a store whose results table was dropped, or holding a NaN median or a bound fraction of −3, is
  refused with one line naming the table, the row and the allowed range."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner
from data.store_campaigns import alpha_two_libraries

from mpimeter.cli import main
from mpimeter.site.build import MARKER

REFRESH = b'<meta http-equiv="refresh" content="0; url=https://example.invalid/">'


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def one_line(result) -> str:
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.output, result.output
    return lines[0]


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    root = tmp_path_factory.mktemp("sec-site")
    path = root / "results.duckdb"
    added = invoke("store", "add", alpha_two_libraries(root), "--store", path)
    assert added.exit_code == 0, added.output
    return path


def copy_of(store: Path, tmp_path: Path, sql: str | None = None) -> Path:
    path = tmp_path / "copy.duckdb"
    shutil.copy(store, path)
    if sql:
        con = duckdb.connect(str(path))
        con.execute(sql)
        con.close()
    return path


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_site_folder_holding_the_store_is_refused_and_the_store_kept(store, tmp_path):
    www = tmp_path / "www"
    www.mkdir()
    inside = www / "results.duckdb"
    shutil.copy(store, inside)
    before = inside.read_bytes()
    line = one_line(invoke("site", "--store", inside, "-o", www))
    assert "holds the results store" in line
    assert inside.read_bytes() == before and sorted(p.name for p in www.iterdir()) == ["results.duckdb"]


def test_foreign_files_are_refused_and_a_rewrite_removes_only_its_own(store, tmp_path):
    www = tmp_path / "www"
    assert invoke("site", "--store", store, "-o", www).exit_code == 0
    manifest = json.loads((www / MARKER).read_text())["files"]
    assert "index.html" in manifest and all((www / f).is_file() for f in manifest)
    on_disk = {p.relative_to(www).as_posix() for p in www.rglob("*") if p.is_file()}
    assert on_disk == set(manifest) | {MARKER}
    # a user's file anywhere in the folder: refused, nothing changed
    (www / "ops" / "notes.txt").write_text("mine")
    before = snapshot(www)
    line = one_line(invoke("site", "--store", store, "-o", www))
    assert "ops/notes.txt" in line and "did not write" in line
    assert snapshot(www) == before
    (www / "ops" / "notes.txt").unlink()
    # a page of the old manifest that the new site lacks goes; nothing else does
    stale = "ops/gone-0123456789.html"
    (www / stale).write_text("old page")
    doc = json.loads((www / MARKER).read_text())
    (www / MARKER).write_text(json.dumps({**doc, "files": sorted([*doc["files"], stale])}))
    result = invoke("site", "--store", store, "-o", www)
    assert result.exit_code == 0, result.output
    assert not (www / stale).exists() and (www / "index.html").is_file()
    # a manifest that names a path outside the folder is no manifest: refused
    doc = json.loads((www / MARKER).read_text())
    (www / MARKER).write_text(json.dumps({**doc, "files": [*doc["files"], "../victim"]}))
    (tmp_path / "victim").write_text("keep")
    assert "not an mpimeter site" in one_line(invoke("site", "--store", store, "-o", www))
    assert (tmp_path / "victim").read_text() == "keep"


def test_a_stored_report_is_never_copied_and_pages_forbid_navigation(store, tmp_path):
    # a tampered (or merely shared) report: what the site used to copy into reports/
    from mpimeter.report.html import PAGE_HEAD

    evil = PAGE_HEAD.encode() + REFRESH + b"</head><body>hi</body></html>"
    path = copy_of(store, tmp_path)
    con = duckdb.connect(str(path))
    con.execute("update campaigns set report = ?", [evil])
    con.close()
    www = tmp_path / "www"
    result = invoke("site", "--store", path, "-o", www)
    assert result.exit_code == 0, result.output
    assert not (www / "reports").exists()
    for page in www.rglob("*.html"):
        text = page.read_text()
        assert "http-equiv=\"refresh\"" not in text and "example.invalid" not in text, page
        head = text.split("</head>")[0]
        assert "form-action &#x27;none&#x27;" in head and "base-uri &#x27;none&#x27;" in head
        assert "default-src &#x27;none&#x27;" in head and "<script" not in text


@pytest.mark.parametrize("sql, words", [
    ("drop view results_by_machine; drop table results", "without its table results"),
    ("update results set median_ns = 'nan'::DOUBLE", "median_ns is nan"),
    ("update results set bound_fraction = -3", "bound_fraction is -3.0"),
    ("update launch_summaries set median_ns = 0", "median_ns is 0.0"),
    ("update results set median_ns = 9.5e14", "median_ns is 950000000000000.0"),
])
def test_a_store_with_impossible_content_is_one_line(store, tmp_path, sql, words):
    path = copy_of(store, tmp_path, sql)
    www = tmp_path / "www"
    line = one_line(invoke("site", "--store", path, "-o", www))
    assert words in line, line
    assert not www.exists()
    if "nan" in words or "-3" in words:
        assert "allowed:" in line and "table results, row (campaign_id" in line
