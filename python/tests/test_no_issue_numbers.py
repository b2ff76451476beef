# SPDX-License-Identifier: BSD-3-Clause
"""Signposts a user can follow: the docs and the code a user reads (README.md, CONTRIBUTING.md,
docs/, examples/, scripts/, c/, python/src, tests/, bench/; comments and strings alike) cite no issue of
the project's tracker ("issue 14", "issue-14", "#14", "the issue asks": nobody outside can look
them up), cite only Markdown files the repository has, and cite only sections of
docs/ARCHITECTURE.md that exist."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCANNED = ("README.md", "CONTRIBUTING.md", "docs", "examples", "scripts", "c", "python/src", "tests", "bench")
SUFFIXES = {".md", ".py", ".c", ".h", ".txt", ".sh", ".sbatch", ".cmake", ".toml", ".cfg", ".yaml", ""}

ISSUE = re.compile(r"\bissues?[ -]?#?\d+|(?:^|[\s(\[,;])#[1-9]\d{0,3}\b|\bthe issue\b", re.I | re.M)
MARKDOWN_FILE = re.compile(r"\b([A-Z][A-Z_]+\.md)\b")
ARCHITECTURE_SECTION = re.compile(r"ARCHITECTURE\.md[,;]?\s+(?:\"([^\"]+)\"|(\w[\w ]*?) section)")


def _files() -> list[Path]:
    out = []
    for name in SCANNED:
        path = REPO / name
        candidates = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
        for p in candidates:
            rel = p.relative_to(REPO).as_posix()
            if (p.suffix in SUFFIXES and "__pycache__" not in rel
                    and "/data/" not in rel):  # data files: other tools' outputs, kept as they were
                out.append(p)
    return out


FILES = _files()


def _text(path: Path) -> str:
    # a citation may run across a comment's line break: join the lines, drop comment leaders
    return re.sub(r"[ \t]*\n[ \t]*(?:#|\*|//)?[ \t]*", " ", path.read_text(encoding="utf-8", errors="replace"))


def _issue_references(text: str) -> list[str]:
    return [m.group(0).strip() for m in ISSUE.finditer(text)]


def _headings() -> list[str]:
    text = (REPO / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    return [line.lstrip("#").strip().lower() for line in text.splitlines() if line.startswith("#")]


@pytest.mark.parametrize("text, found", [
    ("the options of adaptive measurement (issue 14): --nrep", ["issue 14"]),
    ("Issue 31's acceptance", ["Issue 31"]), ("see issue-27 and issues 13", ["issue-27", "issues 13"]),
    ("fixed in #14.", ["#14"]), ("(#203)", ["(#203"]), ("the issue asks for even counts", ["the issue"]),
    ("launch openmpi #000, alternative 1 #003", []), ("&#8212; a dash", []), ('color="#ff0000"', []),
    ("#include <mpi.h>\n#define X 1", []), ("`issue` is a constant", []), ("tissue 3", []),
])
def test_the_finder_finds_issue_references_and_nothing_else(text, found):
    assert _issue_references(text) == found


def test_the_scan_covers_the_docs_and_the_code():
    names = {p.relative_to(REPO).as_posix() for p in FILES}
    assert {"README.md", "docs/FORMAT.md", "c/src/app/main.c", "python/src/mpimeter/cli/__init__.py",
            "examples/reframe/mpimeter_check.py", "scripts/spdx", "bench/peers.py"} <= names
    assert {"python/src/mpimeter/analysis/pipeline.py", "python/src/mpimeter/stats/warmup.py",
            "python/src/mpimeter/report/html_report.py"} <= names


def test_no_issue_numbers_in_docs_or_code():
    found = [f"{p.relative_to(REPO)}: {ref}" for p in FILES for ref in _issue_references(_text(p))]
    assert found == [], "cite what the reader can open (a paper, a doc section, a test), not an issue:\n" + \
        "\n".join(found)


def test_every_cited_markdown_file_exists():
    present = {p.name for p in REPO.rglob("*.md") if ".venv" not in p.parts and "build" not in p.parts}
    dead = sorted({f"{p.relative_to(REPO)}: {name}" for p in FILES
                   for name in MARKDOWN_FILE.findall(_text(p)) if name not in present})
    assert dead == []


def test_every_cited_architecture_section_exists():
    headings = _headings()
    dead = []
    for path in FILES + [REPO / "CMakeLists.txt"]:
        for quoted, named in ARCHITECTURE_SECTION.findall(_text(path)):
            section = (quoted or named).lower()
            if not any(section in heading for heading in headings):
                dead.append(f"{path.relative_to(REPO)}: {quoted or named}")
    assert dead == []
