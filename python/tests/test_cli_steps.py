# SPDX-License-Identifier: BSD-3-Clause
"""The steps `store add`, `report` and `site` show while they work: on a terminal, a spinner on
stderr naming the step (its number of all, the seconds so far); not on a pipe or a log, where
what the commands print stays as it was. The terminal is a rich Console on a buffer here."""

from __future__ import annotations

import io

import pytest
from click.testing import CliRunner
from data.report.synth_campaign import LaunchSpec, write_campaign
from data.store_campaigns import alpha_two_libraries
from rich.console import Console

from mpimeter.cli import main, steps


@pytest.fixture
def terminal(monkeypatch) -> io.StringIO:
    screen = io.StringIO()
    monkeypatch.setattr(steps, "_terminal_console",
                        lambda: Console(file=screen, force_terminal=True, width=400, highlight=False))
    return screen


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_report_shows_its_steps_on_a_terminal_and_prints_what_it_did(terminal, tmp_path):
    out = tmp_path / "r.html"
    # a small campaign: the steps are the point, not the report
    campaign = write_campaign(tmp_path / "c", LaunchSpec(nrep=40, warmup_reps=0), launches=3, seed=1)
    r = invoke("report", campaign, "-o", out, "--no-cache")
    assert r.exit_code == 0, r.output
    shown = terminal.getvalue()
    for n, what in enumerate(["loading ", "analysing", "drawing the figures", f"writing {out}"], 1):
        assert f"report: {what}" in shown and f"(step {n} of 4, " in shown, shown
    assert r.stdout.startswith(f"wrote {out} (") and "(step " not in r.stdout


def test_store_add_and_site_show_their_steps(terminal, tmp_path):
    campaign = alpha_two_libraries(tmp_path)
    store = tmp_path / "s.duckdb"
    r = invoke("store", "add", campaign, "--store", store, "--no-report")
    assert r.exit_code == 0, r.output
    shown = terminal.getvalue()
    assert f"store add: analysing {campaign} (step 1 of 2, " in shown, shown
    assert f"store add: writing {store} (step 2 of 2, " in shown
    r = invoke("site", "--store", store, "-o", tmp_path / "www")
    assert r.exit_code == 0, r.output
    shown = terminal.getvalue()
    assert f"site: reading {store} (step 1 of 2, " in shown
    assert f"site: writing the pages into {tmp_path / 'www'} (step 2 of 2, " in shown


def test_names_from_files_reach_the_terminal_escaped(terminal):
    with steps.Steps("report", 1) as shown:
        shown.step("loading evil\x1b[2J")
    assert "\x1b[2J" not in terminal.getvalue() and "evil\\x1b[2J" in terminal.getvalue()


def test_nothing_is_shown_when_stderr_is_not_a_terminal(capsys):
    # under pytest stderr is captured, not a terminal: the default shows nothing
    assert steps._terminal_console() is None
    with steps.Steps("report", 2) as shown:
        shown.step("loading")
    assert capsys.readouterr().err == ""
