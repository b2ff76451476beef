# SPDX-License-Identifier: BSD-3-Clause
"""The package's records are built by keyword: a swap of two fields of one type would pass
silently if they were built by position. Every dataclass of six fields or more is keyword-only
(the interpreter refuses it by position), and no call in python/src gives a record of the
package eight positional arguments or more, or, when it has that many fields, an unpacked sequence
(`Rec(*values)`: as many as the sequence holds)."""

from __future__ import annotations

import ast
import dataclasses
import functools
import importlib
from pathlib import Path

import mpimeter
from data.package_sources import package_trees

SRC = Path(mpimeter.__file__).resolve().parent
MIN_FIELDS_KEYWORD_ONLY = 6
MAX_POSITIONAL = 7


def _is_record(node: ast.ClassDef) -> bool:
    decorated = any("dataclass" in ast.unparse(d) for d in node.decorator_list)
    return decorated or any(ast.unparse(b).endswith("NamedTuple") for b in node.bases)


def _record_fields(trees: dict[Path, ast.Module]) -> dict[str, int]:
    """The package's records by name: how many fields (the most, when two records share a name)."""
    out: dict[str, int] = {}
    for tree in trees.values():
        for n in ast.walk(tree):
            if isinstance(n, ast.ClassDef) and _is_record(n):
                fields = sum(isinstance(s, ast.AnnAssign) and "ClassVar" not in ast.unparse(s.annotation)
                             for s in n.body)
                out[n.name] = max(out.get(n.name, 0), fields)
    return out


def _positional_constructions(trees: dict[Path, ast.Module], records: dict[str, int]) -> list[str]:
    """'file:line Name n' for each call of a record (by its name, or module.Name) with more than
    MAX_POSITIONAL positional arguments, or an unpacked one when the record has more fields."""
    found = []
    for path, tree in trees.items():
        for call in ast.walk(tree):
            if not isinstance(call, ast.Call):
                continue
            func = call.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
            if name not in records:
                continue
            starred = any(isinstance(a, ast.Starred) for a in call.args)
            if (starred and records[name] > MAX_POSITIONAL) or len(call.args) > MAX_POSITIONAL:
                found.append(f"{path}:{call.lineno} {name} {len(call.args)}{' (unpacked)' if starred else ''}")
    return sorted(found)


@functools.cache
def _trees() -> dict[Path, ast.Module]:
    """The package's sources, parsed on first use: at import, every test process that collects
    this module parsed them (a second of each xdist worker's start), used or not."""
    return {Path("mpimeter") / rel: tree for rel, tree in package_trees().items()}


@functools.cache
def _records() -> dict[str, int]:
    return _record_fields(_trees())


def test_the_walk_finds_positional_and_unpacked_constructions():
    sample = {Path("x.py"): ast.parse(
        "from dataclasses import dataclass\n"
        "@dataclass(frozen=True)\nclass Rec:\n" + "".join(f"    f{i}: int\n" for i in range(9)) +
        "@dataclass\nclass Pair:\n    a: int\n    b: int\n"
        "Rec(1, 2, 3, 4, 5, 6, 7, 8)\n"          # too many by position
        "Rec(1, 2, 3, 4, 5, 6, 7)\n"             # within the bound
        "Rec(0, *values)\n"                      # as many as values holds
        "m.Rec(1, 2, 3, 4, 5, 6, 7, 8, 9)\n"     # through a module
        "Rec(a=1, b=2, c=3, d=4, e=5, f=6, g=7, h=8)\n"
        "Pair(*two)\n"                          # two fields: unpacking cannot reach the bound
        "Other(1, 2, 3, 4, 5, 6, 7, 8)\n")}     # not a record of the package
    records = _record_fields(sample)
    assert records == {"Rec": 9, "Pair": 2}
    assert _positional_constructions(sample, records) == ["x.py:17 Rec 8", "x.py:19 Rec 2 (unpacked)",
                                                          "x.py:20 Rec 9"]


def test_the_walk_sees_the_package_records():
    assert {"Row", "NbcRow", "LaunchSummary", "LineFit", "Summary"} <= set(_records())


def test_no_record_is_built_with_many_positional_arguments():
    assert _positional_constructions(_trees(), _records()) == []


def _dataclasses_of_the_package():
    for path in _trees():
        if path.name == "__main__.py":  # importing it runs the command
            continue
        module = importlib.import_module(".".join(path.with_suffix("").parts).removesuffix(".__init__"))
        for value in vars(module).values():
            if (isinstance(value, type) and dataclasses.is_dataclass(value)
                    and value.__module__ == module.__name__):
                yield value


def test_every_wide_dataclass_is_keyword_only():
    wide = [cls for cls in _dataclasses_of_the_package()
            if len([f for f in dataclasses.fields(cls) if f.init]) >= MIN_FIELDS_KEYWORD_ONLY]
    assert len(wide) > 50
    positional = sorted(f"{cls.__module__}.{cls.__qualname__}" for cls in wide
                        if not all(f.kw_only for f in dataclasses.fields(cls) if f.init))
    assert positional == []
