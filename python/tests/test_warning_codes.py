# SPDX-License-Identifier: BSD-3-Clause
"""One registry of warning codes (mpimeter.warning_codes): every code used is in it, every code in
it is produced by something — the analysis's by a call in python/src, the binary's by its literal
in c/src — and a warning cannot be made with a code it lacks or with facts its templates do not
name. The binary's condition codes are the only ones a meta.json may carry."""

import ast
import functools
import re
import string
from pathlib import Path

import pytest

from mpimeter.io.errors import InputError
from mpimeter.io.meta import parse_meta
from data.package_sources import package_trees
from mpimeter.warning_codes import (CODES, CONDITION_CODES, AnalysisWarning, Producer, Severity, condition_warning,
                                    warning)

REPO = Path(__file__).resolve().parents[2]
PYTHON_SRC = REPO / "python" / "src" / "mpimeter"
C_SRC = REPO / "c" / "src"
# how the binary names a condition: mm_conditions_entry(list, "code", where), or the one it
# renders itself (conditions-dropped)
C_CONDITION = re.compile(r'mm_conditions_entry\([^,()]+,\s*"([a-z0-9-]+)"|"code",\s*"([a-z0-9-]+)"')


def _literal_codes(node: ast.expr) -> list[str] | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.IfExp):
        body, orelse = _literal_codes(node.body), _literal_codes(node.orelse)
        return None if body is None or orelse is None else body + orelse
    return None


@functools.cache
def _every_call() -> tuple[tuple[str, str | None, ast.Call], ...]:
    """(module, name called, call) of every call in python/src: the sources are parsed once for
    the scans below, which only read the trees."""
    found = []
    for path, tree in package_trees().items():
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                f = node.func
                called = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
                found.append((str(path), called, node))
    return tuple(found)


def _calls(name: str) -> list[tuple[str, ast.Call]]:
    return [(module, node) for module, called, node in _every_call() if called == name]


def _python_codes() -> dict[str, list[str]]:
    """code → the modules whose warning(...) calls name it; a call whose code is not a literal
    fails (the scan could not see what it makes)."""
    codes: dict[str, list[str]] = {}
    for module, call in _calls("warning"):
        if module == "warning_codes.py":
            continue
        literal = _literal_codes(call.args[0]) if call.args else None
        assert literal is not None, f"{module}:{call.lineno}: warning() with a code that is not a literal"
        for code in literal:
            codes.setdefault(code, []).append(module)
    return codes


def _c_codes() -> set[str]:
    return {a or b for path in sorted(C_SRC.rglob("*.[ch]"))
            for a, b in C_CONDITION.findall(path.read_text(encoding="utf-8"))}


def test_every_code_used_in_python_is_in_the_registry():
    used = _python_codes()
    assert len(used) >= 30
    unknown = sorted(set(used) - set(CODES))
    assert unknown == [], f"codes the registry lacks: {unknown} (used in {[used[c] for c in unknown]})"
    not_ours = sorted(c for c in used if Producer.ANALYSIS not in CODES[c].producers)
    assert not_ours == []


def test_no_warning_is_made_outside_the_registry():
    direct = [f"{m}:{c.lineno}" for m, c in _calls("AnalysisWarning") if m != "warning_codes.py"]
    assert direct == [], "make warnings with mpimeter.warning_codes.warning / condition_warning"


def test_every_code_the_binary_writes_is_in_the_registry():
    written = _c_codes()
    # the scan still sees how c/src names conditions (it would find nothing after a rename)
    assert {"oversubscribed", "budget-ended-tests", "conditions-dropped"} <= written
    assert sorted(written - set(CONDITION_CODES)) == []


def test_every_registry_code_is_produced():
    python = set(_python_codes())
    c = "".join(path.read_text(encoding="utf-8") for path in sorted(C_SRC.rglob("*.[ch]")))
    meta_reader = (PYTHON_SRC / "io" / "meta.py").read_text(encoding="utf-8")
    for code in CODES.values():
        if Producer.ANALYSIS in code.producers:
            assert code.name in python, f"{code.name}: no warning() call makes it"
        if Producer.BINARY in code.producers:
            assert f'"{code.name}"' in c, f"{code.name}: c/src never writes it as a condition"
        if Producer.READER in code.producers:
            assert f'"{code.name}"' in meta_reader, f"{code.name}: the meta.json reader never gives it"


def test_every_code_is_documented_in_the_format():
    doc = (REPO / "docs" / "FORMAT.md").read_text(encoding="utf-8")
    assert [c for c in CODES if f"`{c}`" not in doc] == []


def test_the_registry_refuses_what_it_lacks():
    with pytest.raises(ValueError, match="unknown warning code 'made-up'"):
        warning("made-up")
    with pytest.raises(ValueError, match="unknown warning code"):
        AnalysisWarning(code="made-up", message="m", hint="h")
    with pytest.raises(ValueError, match=r"takes the facts \['alternative'\]"):
        warning("one-launch", alternative="a", launches=3)
    with pytest.raises(ValueError, match="condition_warning"):
        warning("oversubscribed", launch="a/000", message="m", hint="h")
    with pytest.raises(ValueError, match="not a code of the binary"):
        condition_warning("one-launch", launch="a/000", message="m", hint="h", where=None)


def test_every_template_parses_and_leaves_where_to_the_caller():
    for code in CODES.values():
        for template in (code.message, code.hint):
            fields = {f for _, f, _, _ in string.Formatter().parse(template) if f}
            assert not fields & {"where", "badness"}, code.name  # those are warning()'s own arguments


def test_a_warning_is_its_templates_filled():
    w = warning("too-few-launches", alternative="openmpi", launches=4, where="openmpi")
    assert w.message == ("openmpi: 4 launches — too few for a 95 % interval of the median (needs ≥ 6) and for a "
                         "comparison with any power")
    assert (w.hint, w.where, w.count, w.severity) == ("run 10 or more launches", "openmpi", 1, Severity.CAUTION)
    c = condition_warning("no-counters", launch="a/001", message="nothing readable", hint="", where="a/001")
    assert c.message == "launch a/001: nothing readable"
    assert c.hint == "see the conditions in the launch's meta.json" and c.severity is Severity.NOTE


def test_a_meta_json_condition_with_an_unknown_code_is_bad_input():
    doc = {"schema_version": 2, "status": "complete", "nprocs": 2,
           "tests": [{"test": 0, "op": "bcast", "size": 8, "status": "complete", "nrep": 1}],
           "conditions": [{"code": "oversubscribed", "message": "m", "hint": "h", "where": None}]}
    assert parse_meta(doc, Path("meta.json")).conditions[0].code == "oversubscribed"
    doc["conditions"][0]["code"] = "made-up"
    with pytest.raises(InputError, match="code is 'made-up'; it must be one of .*budget-ended-tests"):
        parse_meta(doc, Path("meta.json"))


def test_every_option_a_warning_names_exists():
    # advice must be runnable: each --option a message or hint template names is an option of
    # mpimeter-bench (its --describe, the one source of its options) or of an `mpimeter` command
    import click

    from mpimeter.campaign import describe, launcher
    from mpimeter.cli import main

    known = {"--" + o.name for o in describe.describe(launcher.bench_binary(launcher.default_bench_dir(),
                                                                              "openmpi")).options}
    ctx = click.Context(main)

    def walk(cmd):
        for p in cmd.params:
            known.update(getattr(p, "opts", ()), getattr(p, "secondary_opts", ()))
        if isinstance(cmd, click.Group):
            for name in cmd.list_commands(ctx):
                walk(cmd.get_command(ctx, name))

    walk(main)
    assert {"--window-us", "--drop-warmup", "--launches"} <= known  # both sources were read
    named = {(c.name, opt) for c in CODES.values() for text in (c.message, c.hint)
             for opt in re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", text)}
    assert named and not {(code, opt) for code, opt in named if opt not in known}
