# SPDX-License-Identifier: BSD-3-Clause
"""ctest status_returns (c/tests/tools/status_returns.py) on small C files: a function that returns
a status is declared mm_status, a variable that holds one is never set to -1, only app/ maps a
status to an exit code, and a function after a macro used at file scope is read too."""

from __future__ import annotations

import sys
from pathlib import Path

TOOLS = Path(__file__).resolve().parents[2] / "c" / "tests" / "tools"
sys.path.insert(0, str(TOOLS))
import status_returns  # noqa: E402

SOURCE = """\
mm_status mm__declared(int x) {
    if (x < 0) return MM_E_INPUT;
    return MM_OK;
}

int mm__code(int x) {
    if (x < 0) return MM_E_FAILED;
    return 0;
}

int mm__passes_on(int x) { return mm__declared(x); }

int mm__through_a_variable(int x) {
    int rc = mm__declared(x);
    return rc;
}

int mm__an_answer(int x) { return mm__declared(x) == 0; }

int mm__an_exit_code(int status) { return status == MM_E_INPUT ? 2 : 1; }

mm_status mm__minus_one(int x) {
    mm_status rc = MM_OK;
    if (x < 0) rc = -1;
    return rc;
}

void mm__assigned_from_a_status(int x) {
    int rc = mm__declared(x);
    if (rc != 0) rc = -1;
    (void)rc;
}

int mm__minus_one_is_an_argument(int x) {
    int rows = mm__count(x, -1);
    return rows;
}

int mm__exits(int status) { return mm_exit_code(status); }

MM__DEFINE_SOMETHING(x)

int mm__behind_a_macro(int x) {
    if (x) return -1;
    return 0;
}
"""


def _check(tmp_path: Path, source: str, folder: str = "bench") -> tuple[list[str], list[str]]:
    (tmp_path / folder).mkdir(exist_ok=True)
    (tmp_path / folder / "x.c").write_text(source)
    return status_returns.check(tmp_path)


def _where(findings: list[str]) -> list[str]:
    return [f.split(": ", 1)[0] + ": " + f.split(": ", 1)[1].split(";")[0] for f in findings]


def test_status_functions_declared_int_and_minus_one_are_found(tmp_path, monkeypatch):
    for name in ("VALUES", "ENDS", "ANSWERS", "LATER"):
        monkeypatch.setattr(status_returns, name, {})
    findings, stale = _check(tmp_path, SOURCE)
    assert sorted(_where(findings)) == sorted([
        "bench/x.c:6 mm__code: returns a status",
        "bench/x.c:11 mm__passes_on: returns a status",
        "bench/x.c:13 mm__through_a_variable: returns a status",
        "bench/x.c:24 mm__minus_one: rc holds a status: set it to MM_E_FAILED or MM_E_INPUT, not -1",
        "bench/x.c:30 mm__assigned_from_a_status: rc holds a status: set it to MM_E_FAILED or "
        "MM_E_INPUT, not -1",
        "bench/x.c:39 mm__exits: maps a status to an exit code outside app/",
        "bench/x.c:44 mm__behind_a_macro: a bare -1",
    ]), findings
    assert stale == []


def test_app_maps_exit_codes_and_listed_functions_pass(tmp_path, monkeypatch):
    monkeypatch.setattr(status_returns, "VALUES", {("app/x.c", "mm__behind_a_macro"): "why"})
    monkeypatch.setattr(status_returns, "ENDS", {})
    monkeypatch.setattr(status_returns, "ANSWERS", {
        ("app/x.c", "mm__code"): "why", ("app/x.c", "mm__passes_on"): "why",
        ("app/x.c", "mm__through_a_variable"): "why", ("app/x.c", "mm__gone"): "why"})
    monkeypatch.setattr(status_returns, "LATER", {"counters": "why"})
    findings, stale = _check(tmp_path, SOURCE, folder="app")
    assert _where(findings) == [
        "app/x.c:24 mm__minus_one: rc holds a status: set it to MM_E_FAILED or MM_E_INPUT, not -1",
        "app/x.c:30 mm__assigned_from_a_status: rc holds a status: set it to MM_E_FAILED or "
        "MM_E_INPUT, not -1",
    ], findings
    assert stale == ["app/x.c mm__gone: listed but no longer found: remove it",
                     "counters *: listed but no longer found: remove it"]


def test_a_later_folder_is_left_out_of_the_declaration_rules(tmp_path, monkeypatch):
    for name in ("VALUES", "ENDS", "ANSWERS"):
        monkeypatch.setattr(status_returns, name, {})
    monkeypatch.setattr(status_returns, "LATER", {"counters": "why"})
    findings, stale = _check(tmp_path, SOURCE, folder="counters")
    assert _where(findings) == [
        "counters/x.c:39 mm__exits: maps a status to an exit code outside app/",
        "counters/x.c:44 mm__behind_a_macro: a bare -1",
    ], findings
    assert stale == []


def test_the_c_sources_pass():
    findings, stale = status_returns.check(TOOLS.parents[1] / "src")
    assert (findings, stale) == ([], [])
