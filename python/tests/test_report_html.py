# SPDX-License-Identifier: BSD-3-Clause
"""The HTML report: every section, every (alternative, op, size), every warning; escaped;
self-contained; the twelve rules."""

from __future__ import annotations

import errno

import html.parser
import re
from pathlib import Path

import pytest
from data.report.golden_results import analysed, report

from mpimeter import analysis
from mpimeter.report.html_report import SECTIONS, build_report, write_report

NAMES = ("one_library", "two_alternatives", "one_launch", "warnings")


class Page(html.parser.HTMLParser):
    """Collects what the checks need: ids, fingerprints, images, scripts, every URL."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.ids, self.fingerprints, self.images, self.urls, self.tags = set(), [], [], [], []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append(tag)
        if "id" in a:
            self.ids.add(a["id"])
        if a.get("class") == "fingerprint":
            self.fingerprints.append((a["data-alternative"], a["data-op"], int(a["data-size"])))
        if tag == "img":
            self.images.append(a.get("src", ""))
        for key in ("src", "href", "action", "data", "poster", "srcset"):
            if key in a:
                self.urls.append(a[key])


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    out = {}
    for name in NAMES:
        golden = analysed(name, tmp_path_factory)  # shared with the other report tests: they only read it
        text, count = report(name, tmp_path_factory)  # the report of that result, shared as well
        out[name] = (golden.result, golden.comparison, text, count)
    return out


@pytest.mark.parametrize("name", NAMES)
def test_every_section_and_every_test_is_present(reports, name):
    result, _, text, count = reports[name]
    page = Page(text)
    for section_id, title in SECTIONS:
        assert section_id in page.ids
        assert f">{title}</h2>" in text
    expected = {(r.alternative, r.op, r.size) for r in result.rows}
    assert set(page.fingerprints) == expected
    assert count == len(page.fingerprints) == len(expected)
    for op in {r.op for r in result.rows}:
        assert f"op-{op}" in page.ids
    # one operation figure per op, every fingerprint an inline SVG, all collapsed
    assert len(page.images) == len({r.op for r in result.rows})
    assert text.count('<svg viewBox="0 0 1040') == len(expected)
    assert "<details open" not in text


@pytest.mark.parametrize("name", NAMES)
def test_self_contained(reports, name):
    text = reports[name][2]
    page = Page(text)
    assert all(src.startswith("data:image/png;base64,") for src in page.images)
    assert all(url.startswith("#") or url.startswith("data:image/png;base64,") for url in page.urls)
    assert "script" not in page.tags and "link" not in page.tags and "iframe" not in page.tags
    assert not re.search(r"https?://|//[a-z0-9.-]+\.[a-z]{2,}/", text, re.I)
    assert 'http-equiv="Content-Security-Policy" content="default-src &#x27;none&#x27;' in text


def test_user_values_are_escaped(reports):
    text = reports["warnings"][2]
    assert "<script" not in text.lower()
    escaped = "&lt;script&gt;alert(&#x27;mpimeter&#x27;)&lt;/script&gt;"
    assert escaped in text
    # every occurrence is the escaped one: in the environment, host_of_rank0 and argv of both
    # launches (common values, the full meta.json of each launch)
    assert text.count("alert(") == text.count(escaped) >= 3
    assert f"<td>environment.OMPI_MCA_evil</td><td>{escaped}</td>" in text
    assert f"<td>host_of_rank0</td><td>{escaped}</td>" in text
    page = Page(text)
    assert "script" not in page.tags


def test_every_warning_is_listed_with_its_next_step(reports):
    result, _, text, _ = reports["warnings"]
    codes = {w.code for w in result.warnings}
    assert {"invalid-repetitions", "machine-load", "sync-residual", "too-few-launches"} <= codes
    for w in result.warnings:
        assert w.code in text
        assert _esc(w.hint) in text
    assert "No warnings" in reports["one_library"][2]


def test_alternatives_are_compared_with_stars(reports):
    result, comparison, text, _ = reports["two_alternatives"]
    assert comparison is not None
    assert len(comparison.rows) == 6
    # mpich is 30 % slower in every launch. The two ran in the same 8 rounds of one campaign, and the
    # signed-rank test's smallest two-sided p, 2/256, reaches 0.05 / 6: paired by round, every row at
    # p = 2/256 and Holm's 6 × 2/256 = 0.047, significant with one star (the design goes by the counts:
    # analysis.designs)
    assert {(c.design, c.pairs) for c in comparison.rows} == {("paired by round", 8)}
    assert all(c.significant and c.p_value == pytest.approx(2 / 256) and c.stars == "*" for c in comparison.rows)
    assert text.count('<span class="stars">*</span>') == 6
    assert "design: paired by round: the alternatives ran in the same 8 rounds of one campaign" in text
    assert "ratio: the paired Hodges–Lehmann estimate of b/a (rows paired by round" in text  # the summary's words
    assert "openmpi vs mpich" in text


@pytest.fixture(scope="module")
def two_launches_each(tmp_path_factory):
    """The analysis of two alternatives of two launches each: too few to compare (read only)."""
    from data.report.synth_campaign import LaunchSpec, write_campaign

    folder = write_campaign(tmp_path_factory.mktemp("two-launches") / "c",
                            {"a": LaunchSpec(sizes=(8,)), "b": LaunchSpec(sizes=(8,))}, launches=2)
    return analysis.analyze(analysis.load_campaign(folder, cache=False, store=False))


def test_a_comparison_that_cannot_be_made_is_said(two_launches_each):
    result = two_launches_each
    with pytest.raises(analysis.AnalysisError) as info:
        analysis.compare(result)
    text, _ = build_report(result, None, comparison_problem=str(info.value))
    assert "The alternatives were not compared" in text
    assert _rule(text, 7) == "not met"


def test_rules_checklist(reports):
    for name in NAMES:
        text = reports[name][2]
        statuses = [_rule(text, n) for n in range(1, 13)]
        assert all(s in ("met", "not met", "n/a") for s in statuses)
    assert _rule(reports["one_library"][2], 7) == "n/a"  # one alternative
    assert _rule(reports["two_alternatives"][2], 7) == "met"
    assert _rule(reports["one_launch"][2], 5) == "not met"  # no interval from one launch
    assert _rule(reports["one_library"][2], 5) == "met"  # 6 launches: a 95 % interval
    assert _rule(reports["one_library"][2], 11) == "not met"  # no bounds model


def test_provenance_lists_every_launch_and_what_varies(reports):
    result, _, text, _ = reports["two_alternatives"]
    for li in result.campaign.launches:
        assert _esc(f"meta.json of launch {li.index:03d} ({li.folder})") in text
    assert "Varies between launches" in text
    assert "config.seed" not in text.split("Varies between launches")[1].split("</table>")[0]
    assert "Common to all launches" in text


def test_write_report_is_atomic_and_reports_its_size(reports, tmp_path):
    result, comparison, _, _ = reports["one_library"]
    info = write_report(tmp_path / "r.html", result, comparison)
    assert info.path.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert info.bytes == info.path.stat().st_size
    assert info.fingerprints == 6
    assert not list(tmp_path.glob("*.tmp"))


def test_a_full_disk_leaves_the_old_report_and_no_partial_file(reports, tmp_path, monkeypatch):
    result, comparison, _, _ = reports["one_library"]
    (tmp_path / "r.html").write_text("old report")

    def no_space(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("mpimeter.atomic.os.fsync", no_space)
    with pytest.raises(OSError, match="r.html"):
        write_report(tmp_path / "r.html", result, comparison)
    assert (tmp_path / "r.html").read_text() == "old report"
    assert [p.name for p in tmp_path.iterdir()] == ["r.html"]


def _rule(text: str, number: int) -> str:
    match = re.search(rf"<tr><td>{number}</td><td>.*?</td><td><span class=\"badge [a-z]+\">([^<]+)</span>",
                      text)
    assert match, f"rule {number} missing"
    return match.group(1)


def _esc(text: str) -> str:
    import html as _html

    return _html.escape(text, quote=True)


@pytest.mark.parametrize("name", NAMES)
def test_summary_and_warnings_section_count_the_same_warnings(reports, name):
    result, comparison, text, _ = reports[name]
    summary = re.search(r"result rows; (\d+) warning\(s\)", text)
    listed = text.count('class="warning"')
    assert summary and int(summary.group(1)) == listed
    if comparison is not None and any(w not in result.warnings for w in comparison.warnings):
        assert listed > len(result.warnings)  # the comparison's own warnings are counted too
    if listed:
        assert f"{listed} warning(s), each with a next step." in text


def test_an_alternative_not_compared_counts_as_a_warning_in_the_summary(two_launches_each):
    result = two_launches_each
    text, _ = build_report(result, None, comparison_problem="too few launches")
    assert f"result rows; {len(result.warnings) + 1} warning(s)" in text
    assert text.count('class="warning"') == len(result.warnings) + 1


def test_the_comparisons_own_warnings_count_in_the_summary(reports):
    result = reports["two_alternatives"][0]
    comparison = analysis.compare(result, per_repetition=True)  # adds the per-repetition warning
    extra = [w for w in comparison.warnings if w not in result.warnings]
    assert extra
    text, _ = build_report(result, comparison)
    n = len(result.warnings) + len(extra)
    assert f"result rows; {n} warning(s)" in text and f"{n} warning(s), each with a next step." in text


def test_comparison_table_labels_the_hodges_lehmann_ratio_and_shows_the_ratio_of_medians(reports):
    from mpimeter.units import format_number

    _, comparison, text, _ = reports["two_alternatives"]
    captions = re.findall(r'<p class="caption">(Comparison.*?)</p>', text)
    assert captions and all("ratio = median b / median a" not in c for c in captions)  # the old, wrong label
    assert all("Hodges–Lehmann ratio b/a" in c and "median b / median a: the ratio of the medians" in c
               for c in captions)
    for c in comparison.rows:
        cells = f"<td>{format_number(c.ratio_of_medians, 4)}</td><td>{format_number(c.ratio, 4)} ["
        assert cells in text.replace(' class="num"', "")
    assert "significant" in text and "(exact" in text


def _record(doc):
    """campaign.json as the report gets it (mpimeter.io.campaign_record)."""
    from mpimeter import SCHEMA_VERSION
    from mpimeter.io.campaign_record import from_document

    return from_document(Path("campaign.json"), {"schema_version": SCHEMA_VERSION, **doc})


def test_provenance_shows_the_slurm_jobs_and_bindings_when_there_are_some(tmp_path, reports):
    from data.report.synth_campaign import LaunchSpec, write_campaign

    from mpimeter.report.provenance import slurm_part

    env = {"SLURM_JOB_ID": "4242", "SLURM_STEP_ID": "3", "SLURM_JOB_NODELIST": "node[01-02]",
           "SLURM_CPU_BIND_TYPE": "cores", "SLURM_CPU_BIND_LIST": "0x1,0x2"}
    folder = write_campaign(tmp_path / "c", LaunchSpec(sizes=(8,), environment=env), launches=2)
    result = analysis.analyze(analysis.load_campaign(folder, cache=False, store=False))
    campaign_json = {"sessions": [{"slurm": {"job_id": "4242", "nodelist": "node[01-02]",
                                             "cpu_bind": "cores", "evil": "<script>"}},
                                  {"slurm": "not an object"}, "junk"]}
    part = slurm_part(result, _record(campaign_json))
    assert 'id="prov-slurm"' in part
    jobs, steps = part.split("Job step and binding")
    assert jobs.count("<tr>") == 2 and "node[01-02]" in jobs and "evil" not in jobs
    assert steps.count("<tr>") == 3 and steps.count("0x1,0x2") == 2 and "cores" in steps
    # outside Slurm the report has no Slurm part
    plain = reports["one_library"]
    assert slurm_part(plain[0], _record({"sessions": [{"host": "x"}]})) == ""
    assert 'id="prov-slurm"' not in plain[2]


def test_provenance_does_not_list_as_varying_what_a_launch_took_from_an_earlier_one(tmp_path):
    """`mpimeter run` passes --mpit-from and --copy-probe-from to every launch after an
    alternative's first (docs/FORMAT.md): those launches record null MPI_T variables and copy
    probe, and the folder they took them from. Neither varied: the provenance shows them as
    common (rule 9: what it lists as varying is a factor of the experiment)."""
    import json

    from data.report.synth_campaign import LaunchSpec, write_campaign

    from mpimeter.report.provenance import provenance_section

    folder = write_campaign(tmp_path / "c", LaunchSpec(sizes=(8,)), launches=3)
    mpi_t = {"cvars": 1043, "digest": "46e57b78638cbceb", "selected": {"btl": "^uct,openib,ofi", "pml": "^ucx"}}
    probe = {"max_bytes": 4096, "ranks_at_once": 2, "batches": 5, "batch_bytes": 4096,
             "sizes": [{"bytes": 4096, "copies_per_batch": 1, "ranks": 2, "min_Bps": 8e9,
                        "median_Bps": 9e9, "max_Bps": 1e10}]}
    for index in range(3):
        path = folder / "launches" / f"{index:03d}" / "meta.json"
        meta = json.loads(path.read_text())
        first = index == 0
        source = None if first else "/where/it/ran/launches/000"  # as given: the campaign moved since
        meta["config"].update(mpit_from=source, copy_probe_from=source)
        meta["mpi"]["mpi_t"] = mpi_t if first else None
        meta.setdefault("probes", {})["copy_bandwidth"] = probe if first else None
        path.write_text(json.dumps(meta))
    result = analysis.analyze(analysis.load_campaign(folder, cache=False, store=False))
    text = provenance_section(result, None)
    varying = text.split("Varies between launches")[1].split("</table>")[0] if "Varies between" in text else ""
    common = text.split("Common to all launches")[1].split("</table>")[0]
    for key in ("mpi.mpi_t", "config.mpit_from", "config.copy_probe_from", "probes.copy_bandwidth"):
        assert key not in varying
    assert "mpi.mpi_t.selected.btl" in common and "probes.copy_bandwidth.max_bytes" in common
    # each launch's own meta.json is shown as it is
    assert text.count("/where/it/ran/launches/000") == 4
