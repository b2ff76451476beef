# SPDX-License-Identifier: BSD-3-Clause
"""The warnings a launch's record calls for: the binary's conditions reach the user with their own
code (CLI, JSON, HTML); a sync residual warns only above the timer's noise, with advice for the
method in use; repeats of one code are one warning with a count and the worst case."""

import json

import numpy as np
from click.testing import CliRunner
from data.synth import write_campaign
from data.testkit import golden_copy

from mpimeter import analysis
from mpimeter.analysis.warning_groups import group_warnings
from mpimeter.cli.analyze import command
from mpimeter.io.errors import AnalysisWarning
from mpimeter.warning_codes import CONDITION_CODES


def fast_op(op, size, rng, n):
    """~100 ns run times: a tenth of them is 10 ns, below any timer's noise."""
    return 100.0 * (1 + rng.lognormal(-3.0, 0.3, n))


def warnings_of(folder, **kw):
    return {w.code: w for w in analysis.analyze(analysis.load_campaign(folder, cache=False, store=False), **kw).warnings}


def edit_metas(folder, edit):
    for p in sorted(folder.glob("launches/*/meta.json")):
        m = json.loads(p.read_text())
        edit(m)
        p.write_text(json.dumps(m))


def test_a_residual_within_the_timer_noise_is_not_a_warning(tmp_path):
    # 20 ns residual, 20 ns timer overhead, 100 ns run times: a tenth of the run time, but noise
    quiet = write_campaign(tmp_path / "quiet", 3, seed=1, nrep=30, time_fn=fast_op, residual_ns=20)
    assert "sync-residual" not in warnings_of(quiet)
    loud = write_campaign(tmp_path / "loud", 3, seed=1, nrep=30, time_fn=fast_op, residual_ns=500)
    w = warnings_of(loud)["sync-residual"]
    assert "start 500 ns" in w.message and "above the timer's noise (63 ns)" in w.message


def test_residual_advice_fits_an_offset_only_sync(tmp_path):
    camp = write_campaign(tmp_path / "c", 3, seed=2, nrep=30, time_fn=fast_op, residual_ns=500)
    hint = warnings_of(camp)["sync-residual"].hint
    assert hint.startswith("skampi corrects offsets only, not drift: use a drift-aware clock sync (--clocksync hca3)")
    assert "--resync-s" in hint and "hca3o" not in hint


def test_residual_advice_fits_a_drift_aware_sync(tmp_path):
    camp = write_campaign(tmp_path / "c", 3, seed=3, nrep=30, time_fn=fast_op, residual_ns=500, clocksync="hca3")

    def linear(m):
        m["clock_sync"]["model"] = "linear"
        m["config"]["clocksync_params"] = {"fit_span_s": 0.2}

    edit_metas(camp, linear)
    hint = warnings_of(camp)["sync-residual"].hint
    assert hint == ("hca3 already models drift: give its fit more time with a longer --fit-span-s (now 0.2 s), or "
                    "analyze with --clock local")


def test_conditions_are_warnings_with_their_code_everywhere(tmp_path):
    camp = golden_copy(tmp_path, "schema2")
    r = CliRunner().invoke(command, [str(camp), "--no-cache"])
    assert r.exit_code == 0
    assert "[oversubscribed ×3] 3 cases; first: launch schema2/000: 2 ranks share 1 CPU on host synthetic-host" \
           in r.stdout.replace("\n", " ")
    assert "run at most one rank per core" in r.stdout
    out = json.loads(CliRunner().invoke(command, [str(camp), "--no-cache", "--format", "json"]).stdout)
    (w,) = [w for w in out["warnings"] if w["code"] == "oversubscribed"]
    assert w["count"] == 3 and w["where"] == "schema2/000: synthetic-host, schema2/001: synthetic-host, " \
                                             "schema2/002: synthetic-host"
    from mpimeter.report.html_report import build_report

    html, _ = build_report(analysis.analyze(analysis.load_campaign(camp, cache=False, store=False)))
    warnings_section = html[html.index('id="warnings"'):html.index('id="operations"')]
    assert "oversubscribed" in warnings_section and "2 ranks share 1 CPU" in warnings_section


def test_every_condition_the_binary_can_write_reaches_the_user(tmp_path):
    """Each code of mpimeter.warning_codes.CONDITION_CODES (the ones c/src writes, checked by
    test_warning_codes) planted in meta.json comes out of analyze as a warning of that code."""
    planted = [{"code": code, "message": f"what {code} says", "hint": "", "where": None} for code in CONDITION_CODES]
    camp = write_campaign(tmp_path / "c", 2, seed=8, nrep=20, schema=2, conditions=planted)
    found = warnings_of(camp)
    for code in CONDITION_CODES:
        assert found[code].message == f"2 cases; first: launch c/000: what {code} says"
        assert found[code].hint == "see the conditions in the launch's meta.json" and found[code].count == 2


def test_version_1_warnings_reach_the_user_as_bench_warning(tmp_path):
    camp = write_campaign(tmp_path / "c", 2, seed=4, nrep=20)
    edit_metas(camp, lambda m: m.update(warnings=["the --cold-cache overwrite takes longer than --window-us 5"]))
    w = warnings_of(camp)["bench-warning"]
    assert w.count == 2 and "the --cold-cache overwrite takes longer" in w.message


BUDGET_CONDITION = {"code": "budget-ended-tests", "where": None, "hint": "raise --roundtime-budget-s or lower --nrep",
                    "message": "1 test(s) ended by the time budget (--roundtime-budget-s 0.5 per test) before --nrep 20 "
                               "repetitions: bcast 8 (3 of 20); they rest on fewer repetitions than asked"}


def test_the_budget_condition_reaches_analyze_when_the_tests_do_not_say_it(tmp_path):
    """The binary's budget-ended-tests condition in a meta.json whose tests do not record why they
    ended (no ended_by, no nrep_asked): the analysis cannot derive its own warning, so the
    condition is the warning, as the binary wrote it — on the CLI and in its JSON."""
    camp = write_campaign(tmp_path / "c", 2, seed=5, nrep=20, schema=2, conditions=[BUDGET_CONDITION])
    r = CliRunner().invoke(command, [str(camp), "--no-cache"])
    assert r.exit_code == 0, r.output
    text = r.stdout.replace("\n", " ")
    assert "[budget-ended-tests ×2] 2 cases; first: launch c/000: 1 test(s) ended by the time budget" in text
    assert "bcast 8 (3 of 20)" in text and "raise --roundtime-budget-s or lower --nrep" in text
    out = json.loads(CliRunner().invoke(command, [str(camp), "--no-cache", "--format", "json"]).stdout)
    (w,) = [w for w in out["warnings"] if w["code"] == "budget-ended-tests"]
    assert w["count"] == 2 and w["where"] == "c/000, c/001"


def test_the_budget_condition_is_the_analysis_own_warning_once(tmp_path):
    """Where the tests say it too (ended_by budget), the analysis's own warning for the campaign
    covers every launch's condition: one warning, naming the worst test, not one per launch."""
    camp = write_campaign(tmp_path / "c", 2, seed=5, nrep=20, schema=2, conditions=[BUDGET_CONDITION])

    def short_first_test(m):
        for t in m["tests"]:
            t["nrep_asked"], t["ended_by"] = 20, "nrep"
        m["tests"][0]["ended_by"] = "budget"

    edit_metas(camp, short_first_test)
    w = warnings_of(camp)["budget-ended-tests"]
    assert w.count == 1 and w.message.startswith("2 launch test(s) were ended by a time budget")


def test_repeats_of_a_code_are_one_warning_with_the_worst_case():
    ws = [AnalysisWarning(code="machine-load", message=f"launch a/{i:03d}: {share} %", hint="quiet machine",
                          where=f"a/{i:03d}", badness=share)
          for i, share in enumerate((12, 40, 15))]
    ws += [AnalysisWarning(code="one-launch", message="x", hint="y", where="b"), ws[0]]  # an exact repeat is dropped
    grouped = group_warnings(ws)
    assert [w.code for w in grouped] == ["machine-load", "one-launch"]
    load = grouped[0]
    assert load.count == 3 and load.message == "3 cases; worst: launch a/001: 40 %"
    assert load.where == "a/000, a/001, a/002" and load.hint == "quiet machine"
    many = group_warnings([AnalysisWarning(code="test-failed", message=f"m{i}", hint="h", where=f"w{i}")
                           for i in range(9)])[0]
    assert many.message == "9 cases; first: m0" and many.where.endswith("w5 (+3 more)")


def test_machine_load_names_the_busiest_launch(tmp_path):
    camp = write_campaign(tmp_path / "c", 3, seed=6, nrep=20)
    loads = iter((4.0, 9.0, 5.0))
    edit_metas(camp, lambda m: m["load"].update(other_cpu_s=next(loads)))
    w = warnings_of(camp)["machine-load"]
    assert w.count == 3 and "worst: launch c/001: other processes used 90 %" in w.message


def test_the_cli_prints_one_entry_per_code(tmp_path):
    camp = write_campaign(tmp_path / "c", 4, seed=7, nrep=20, load_other_cpu_s=4.0, residual_ns=5000)
    r = CliRunner().invoke(command, [str(camp), "--no-cache"])
    lines = [ln for ln in r.stdout.splitlines() if ln.startswith("warning [")]
    codes = [ln.split("]")[0] for ln in lines]
    assert len(codes) == len(set(codes))
    assert any(ln.startswith("warning [machine-load ×4] 4 cases; worst: ") for ln in lines)
    assert np.unique([ln.split(" ")[1] for ln in lines]).size == len(lines)


def test_a_residual_between_ranks_reading_one_clock_is_not_a_warning(tmp_path):
    # ranks that read one kernel clock ran no sync (chosen "auto, one clock"): their offsets are
    # zero by construction, and a 500 ns residual is the check's own ping-pong asymmetry
    camp = write_campaign(tmp_path / "c", 3, seed=4, nrep=30, time_fn=fast_op, residual_ns=500)

    def one_clock(m):
        m["clock_sync"].update(method="none", model="identity", chosen="auto, one clock")

    assert "sync-residual" in warnings_of(camp)
    edit_metas(camp, one_clock)
    assert "sync-residual" not in warnings_of(camp)
