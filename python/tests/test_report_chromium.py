# SPDX-License-Identifier: BSD-3-Clause
"""The report in a real browser (headless Chromium): it loads without console errors and
without any network request, every section and fingerprint is there, every image decodes,
user values show as text (not markup), and a screenshot is taken.

The browser tests take the `browser` fixture: without Chromium they are skipped with the reason,
and in CI (CI=true, where scripts/setup.sh installs it) they fail instead. The last tests check
that rule itself with a Chromium that is made to go missing."""

from __future__ import annotations

import pytest
from data.report import chromium
from data.report.golden_results import analysed, report as golden_report
from data.report.synth_campaign import SCRIPT_VALUE

from mpimeter.report.html_report import SECTIONS


INSPECT = """(async () => {
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  await new Promise(r => setTimeout(r, 300));
  const images = Array.from(document.images);
  images.forEach(i => { i.loading = 'eager'; });  // decode() of a lazy image below the fold never settles
  await Promise.all(images.map(i => i.decode().catch(() => null)));
  return {
    sections: Array.from(document.querySelectorAll('section')).map(s => s.id),
    fingerprints: Array.from(document.querySelectorAll('div.fingerprint')).map(
      d => [d.dataset.alternative, d.dataset.op, Number(d.dataset.size)]),
    plots: document.querySelectorAll('div.fingerprint svg.plot').length,
    images: images.length,
    decoded: images.filter(i => i.complete && i.naturalWidth > 0).length,
    scripts: document.scripts.length,
    text: document.body.innerText,
    width: document.documentElement.scrollWidth,
  };
})()"""


def _write(name: str, root, tmp_path_factory):
    """The report of golden campaign `name` as write_report writes it (build_report's text,
    UTF-8), analysed and built once per process (`golden_results`: test_report_html reads the same)."""
    golden = analysed(name, tmp_path_factory)
    assert golden.problem is None, golden.problem
    path = root / f"{name}.html"
    path.write_bytes(golden_report(name, tmp_path_factory)[0].encode("utf-8"))
    return golden.result, path


@pytest.fixture(scope="module")
def browser() -> str:
    return chromium.require_chromium()


@pytest.fixture(scope="module", params=["two_alternatives", "warnings"])
def report(browser, request, tmp_path_factory):
    return _write(request.param, tmp_path_factory.mktemp("chromium"), tmp_path_factory)


def test_loads_without_errors_or_network(report):
    result, path = report
    visit = chromium.visit(path, expression=INSPECT)
    assert visit.console_errors == []
    others = [u for u in visit.requests if not (u.startswith("data:") or u == path.resolve().as_uri())]
    assert others == [], f"the page asked for {others}"
    page = visit.evaluated
    assert page["sections"] == [s for s, _ in SECTIONS]
    expected = sorted([r.alternative, r.op, r.size] for r in result.rows)
    assert sorted(page["fingerprints"]) == expected
    assert page["plots"] == len(expected)
    assert page["images"] == page["decoded"] == len({r.op for r in result.rows})
    assert page["scripts"] == 0
    assert page["width"] <= 1280 + 20  # nothing wider than the window (no horizontal scrolling)


def test_user_values_show_as_text(browser, tmp_path, tmp_path_factory):
    _, path = _write("warnings", tmp_path, tmp_path_factory)
    page = chromium.visit(path, expression=INSPECT).evaluated
    assert SCRIPT_VALUE in page["text"]
    assert page["scripts"] == 0


def test_screenshot(report, tmp_path):
    from PIL import Image

    _, path = report
    out = chromium.screenshot(path, tmp_path / "report.png", width=1280, height=2000)
    with Image.open(out) as image:
        assert image.size == (1280, 2000)
        colors = image.convert("RGB").getcolors(maxcolors=1 << 20)
        assert colors is not None and len(colors) > 200  # text and figures, not a blank page


# --------------------------------------------------------------------------------------------
# the rule for a missing Chromium (runs with or without one)


@pytest.fixture
def no_chromium(monkeypatch):
    monkeypatch.setattr(chromium, "find_chromium", lambda: None)
    return monkeypatch


@pytest.mark.parametrize("ci", [None, "", "false", "0"])
def test_missing_chromium_is_a_skip_outside_ci(no_chromium, ci):
    if ci is None:
        no_chromium.delenv("CI", raising=False)
    else:
        no_chromium.setenv("CI", ci)
    with pytest.raises(pytest.skip.Exception, match="chromium is not installed.*MM_WITH_CHROMIUM=1"):
        chromium.require_chromium()


@pytest.mark.parametrize("ci", ["true", "TRUE", "1", "yes"])
def test_missing_chromium_is_a_failure_in_ci(no_chromium, ci):
    no_chromium.setenv("CI", ci)
    with pytest.raises(pytest.fail.Exception, match="chromium is not installed.*CI must run the browser tests"):
        chromium.require_chromium()


def test_found_chromium_is_used_in_ci(monkeypatch):
    monkeypatch.setattr(chromium, "find_chromium", lambda: "/opt/chromium/chrome")
    monkeypatch.setenv("CI", "true")
    assert chromium.require_chromium() == "/opt/chromium/chrome"
