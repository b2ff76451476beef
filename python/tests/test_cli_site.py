# SPDX-License-Identifier: BSD-3-Clause
"""`mpimeter site -o DIR`: the static site of a results store.

- the pages: index (machine × library × operation), one per operation, one per campaign (saying
  whether the store holds its report, never copying it: issue 26), one history per (machine, library, op, size) with the campaign where
  `mpimeter gate` against the one before would have failed marked;
- every link is relative, stays inside the folder and resolves; names from the store are
  escaped (a machine called <script>…</script> shows as text);
- no report in the store is copied (test_security_site has the tampered ones);
- DIR: new, empty or a site written before (its pages replaced); a folder of other files or a
  file is refused with one line, exit 2, nothing changed;
- in headless Chromium: no console error, no network request, every link resolves."""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import unquote, urlparse

import duckdb
import pytest
from click.testing import CliRunner
from data.report import chromium
from data.store_campaigns import alpha_later, alpha_two_libraries, beta_one_library

from mpimeter.cli import main
from mpimeter.site.build import MARKER

EVIL = "<script>alert('machine')</script>"


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    root = tmp_path_factory.mktemp("site-campaigns")
    path = root / "results.duckdb"
    first = invoke("store", "add", alpha_two_libraries(root), "--store", path)  # with its report
    assert first.exit_code == 0, first.output
    later = invoke("store", "add", alpha_later(root), "--store", path, "--no-report")
    assert later.exit_code == 0, later.output
    beta = invoke("store", "add", beta_one_library(root), "--store", path, "--no-report", "--machine", EVIL)
    assert beta.exit_code == 0, beta.output
    return path


@pytest.fixture(scope="module")
def site(store, tmp_path_factory):
    out = tmp_path_factory.mktemp("site") / "www"
    r = invoke("site", "--store", store, "-o", out)
    assert r.exit_code == 0, r.output
    assert "30 pages" in r.stdout
    return out


def pages(site: Path) -> list[Path]:
    return sorted(site.rglob("*.html"))


def test_the_pages_are_there(site):
    assert (site / "index.html").is_file() and json.loads((site / MARKER).read_text())["format"] == "mpimeter-site"
    names = {p.relative_to(site).parts[0] for p in pages(site)}
    assert names == {"index.html", "ops", "campaigns", "history"}
    assert len(list((site / "ops").glob("*.html"))) == 2  # allreduce, bcast
    assert len(list((site / "campaigns").glob("*.html"))) == 3
    assert "The store holds this campaign" in (site / "campaigns" / ("a1" * 16 + ".html")).read_text()
    # one history per series (alpha openmpi, alpha mpich, beta openmpi) × op × size, plus one per series × op
    assert len(list((site / "history").rglob("*.html"))) == 3 * 2 * 3 + 3 * 2
    index = (site / "index.html").read_text()
    for text in ("Machines × libraries × operations", "alpha-node", "openmpi, 2 ranks", "mpich, 2 ranks",
                 "failed against the campaign before"):
        assert text in index


def test_history_marks_the_campaign_the_gate_would_have_failed(site):
    page = next(p for p in (site / "history").rglob("allreduce-*-65536.html")
                if "alpha-node" in p.read_text() and "openmpi" in p.read_text() and "alpha2" in p.read_text())
    text = page.read_text()
    assert "first of its series" in text and "REGRESSION ratio 1.5" in text
    assert 'stroke="#cf222e"' in text  # the ring around the failed campaign's point
    assert "gate would have failed against the campaign before" in text


def test_links_stay_inside_and_resolve(site):
    for page in pages(site):
        text = page.read_text()
        assert "http://" not in text and "https://" not in text and "<script" not in text.lower()
        for href in re.findall(r'href="([^"]*)"', text):
            assert not href.startswith(("/", "file:")) and "://" not in href, (page, href)
            if href.startswith("#"):  # within the page
                assert f'id="{href[1:]}"' in text, (page, href)
                continue
            target = (page.parent / href.split("#")[0]).resolve()
            assert target.is_file() and site.resolve() in target.parents, (page, href)


def test_store_text_is_escaped(site):
    index = (site / "index.html").read_text()
    assert "&lt;script&gt;alert(&#x27;machine&#x27;)&lt;/script&gt;" in index and EVIL not in index


def test_a_report_that_is_not_an_mpimeter_page_is_not_copied(store, tmp_path):
    copy = tmp_path / "tampered.duckdb"
    copy.write_bytes(store.read_bytes())
    con = duckdb.connect(str(copy))
    con.execute("update campaigns set report = '<html><script>alert(1)</script>'::BLOB where report is not null")
    con.close()
    out = tmp_path / "www"
    r = invoke("site", "--store", copy, "-o", out)
    assert r.exit_code == 0, r.output
    assert not (out / "reports").exists()
    assert all("alert(1)" not in p.read_text() for p in out.rglob("*.html"))


def test_output_folder_rules(store, tmp_path):
    other = tmp_path / "docs"
    other.mkdir()
    (other / "mine.txt").write_text("keep me")
    r = invoke("site", "--store", store, "-o", other)
    assert r.exit_code == 2 and r.stderr.count("\n") == 1 and "is not an mpimeter site" in r.stderr
    assert [p.name for p in other.iterdir()] == ["mine.txt"]
    afile = tmp_path / "file.html"
    afile.write_text("x")
    assert invoke("site", "--store", store, "-o", afile).exit_code == 2 and afile.read_text() == "x"
    # a site written before has its pages replaced; a file it did not write is refused and kept
    # (issue 26); an empty folder is fine
    out = tmp_path / "www"
    out.mkdir()
    assert invoke("site", "--store", store, "-o", out).exit_code == 0
    (out / "stale.html").write_text("old")
    r = invoke("site", "--store", store, "-o", out)
    assert r.exit_code == 2 and "stale.html, which this site did not write" in r.stderr
    assert (out / "stale.html").read_text() == "old"
    (out / "stale.html").unlink()
    assert invoke("site", "--store", store, "-o", out).exit_code == 0 and (out / "index.html").is_file()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".www.")]  # no temporary folder left
    # a store that is not one: nothing written
    r = invoke("site", "--store", afile, "-o", tmp_path / "new")
    assert r.exit_code == 2 and "not a results store" in r.stderr and not (tmp_path / "new").exists()


# --------------------------------------------------------------------------------------------
# in a browser

LINKS = """(() => ({links: Array.from(document.links).map(a => a.href), scripts: document.scripts.length,
                    svgs: document.querySelectorAll('svg.plot').length, title: document.title}))()"""


@pytest.fixture(scope="module")
def browser() -> str:
    return chromium.require_chromium()


def visit_checked(site: Path, page: Path) -> dict:
    visit = chromium.visit(page, expression=LINKS)
    assert visit.console_errors == [], (page, visit.console_errors)
    assert visit.requests == [page.resolve().as_uri()], visit.requests  # the page itself, nothing else
    info = visit.evaluated
    assert info["scripts"] == 0
    for href in info["links"]:
        parsed = urlparse(href)
        assert parsed.scheme == "file", href
        target = Path(unquote(parsed.path))
        assert target.is_file() and site.resolve() in target.parents, href
    return info


def test_site_in_chromium(browser, site):
    index = visit_checked(site, site / "index.html")
    assert len(index["links"]) > 10
    op = visit_checked(site, next((site / "ops").glob("*.html")))
    assert op["svgs"] == 1
    campaign = visit_checked(site, site / "campaigns" / ("a1" * 16 + ".html"))
    assert not any("/reports/" in link for link in campaign["links"])
    history = visit_checked(site, next((site / "history").rglob("*-65536.html")))
    assert history["svgs"] == 1
