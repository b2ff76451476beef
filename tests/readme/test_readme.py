# SPDX-License-Identifier: BSD-3-Clause
"""README.md and the user guide as a test: every command block of DOCUMENTS runs, document after
document, in order, as written, so that a documented command cannot fail (`make test-readme`;
part of `make test`).

What the harness may change is in rewrites.txt beside this file: rewrites (`PATTERN =>
REPLACEMENT`, Python regular expressions over each command, continuation lines joined) that make
campaigns short (fewer launches and repetitions), applied the same way to every block. A command
block is a fenced block with no language or sh, bash, shell, console (```text and others are
listings, never run). A block preceded by `<!-- readme-test: not run (WHY) -->` is not run (it needs what a
test cannot have: a module system, Slurm, files of yours); `<!-- readme-test: exit 0,1 -->`
allows those exit codes (a gate that may fail). Each block runs under bash -e in one scratch folder
shared by all blocks (build/, c/, examples/, scripts/ and python/ linked from the repository; the results store
in it), with the package's `mpimeter` first on PATH.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
# in the order they run: a later document may use what an earlier one's commands made
DOCUMENTS = ("README.md", "docs/GUIDE.md", "docs/INSTALL.md", "docs/ARCHITECTURE.md", "docs/RELEASING.md")
# pages whose commands need what this test has not, run by a test that has it
RUN_ELSEWHERE = {"docs/SLURM.md": "tests/slurm/test_howto.py, against the Slurm test cluster"}
REWRITES = Path(__file__).resolve().parent / "rewrites.txt"
COMMAND_FENCES = ("", "sh", "bash", "shell", "console")
MARK = re.compile(r"<!--\s*readme-test:\s*(.*?)\s*-->")


@dataclass
class Block:
    document: str
    line: int
    text: str
    skip: str | None = None
    exit_codes: tuple[int, ...] = (0,)
    commands: list[str] = field(default_factory=list)


def _rules() -> list[tuple[re.Pattern, str]]:
    rules = []
    for line in REWRITES.read_text(encoding="utf-8").splitlines():
        if " => " in line:
            pattern, replacement = line.split(" => ", 1)
            rules.append((re.compile(pattern.strip()), replacement.strip().replace("\\s", " ")))
    return rules


def _commands(text: str) -> list[str]:
    """Logical command lines: continuation lines joined, comment lines and blank lines dropped;
    a line inside an open quote joins the next one (bash reads it so)."""
    commands, pending = [], ""
    for raw in text.splitlines():
        line = pending + raw
        if line.rstrip().endswith("\\"):
            pending = line.rstrip()[:-1] + " "
            continue
        try:
            shlex.split(line, comments=True)
        except ValueError:  # an open quote: the command goes on on the next line
            pending = line + "\n"
            continue
        pending = ""
        if line.strip() and not line.strip().startswith("#"):
            commands.append(line.strip())
    assert not pending, f"unterminated command: {pending!r}"
    return commands


def blocks(document: str) -> list[Block]:
    lines = (REPO / document).read_text(encoding="utf-8").splitlines()
    found, i = [], 0
    while i < len(lines):
        if lines[i].startswith("```"):
            start = i
            end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
            if lines[i][3:].strip() not in COMMAND_FENCES:  # a listing, not commands
                i = end + 1
                continue
            block = Block(document=document, line=start + 1, text="\n".join(lines[start + 1:end]))
            before = lines[start - 1] if start else ""
            mark = MARK.search(before)
            if mark:
                what = mark.group(1)
                if what.startswith("not run"):
                    block.skip = what
                elif what.startswith("exit "):
                    block.exit_codes = tuple(int(c) for c in what[5:].split(","))
            block.commands = _commands(block.text)
            found.append(block)
            i = end + 1
        else:
            i += 1
    return found


def rewrite(command: str, rules) -> str:
    for pattern, replacement in rules:
        command = pattern.sub(replacement, command)
    return command


BLOCKS = [block for document in DOCUMENTS for block in blocks(document)]


@pytest.fixture(scope="module")
def scratch(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("readme")
    for name in ("build", "c", "examples", "scripts", "python"):
        (folder / name).symlink_to(REPO / name)
    return folder


def test_the_documents_mark_every_block_they_do_not_run_with_a_reason():
    assert len(BLOCKS) >= 10
    for block in BLOCKS:
        assert block.skip is None or re.match(r"not run \(.+\)$", block.skip), (block.document, block.line)
    assert len(_rules()) >= 5, f"{REWRITES} holds no rewrites"
    for document in DOCUMENTS:
        mine = [b for b in BLOCKS if b.document == document]
        run = sum(len(b.commands) for b in mine if not b.skip)
        skipped = sum(len(b.commands) for b in mine if b.skip)
        print(f"{document}: {run} commands in {sum(not b.skip for b in mine)} blocks run, "
              f"{skipped} in {sum(bool(b.skip) for b in mine)} blocks marked not run")


def test_the_readme_is_a_five_minute_read():
    """At most 150 lines; the two commands first, then what the tool is on the first screen; the
    harness's rules not in it (they are in rewrites.txt)."""
    lines = (REPO / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 150, f"README.md has {len(lines)} lines: move the detail to docs/GUIDE.md"
    first_block = next(b for b in BLOCKS if b.document == "README.md")
    assert "make demo" in first_block.text and "make test" in first_block.text
    assert any(line.startswith("## What it is") for line in lines[:25])
    assert not any("=>" in line for line in lines[:25])


def test_the_readme_says_where_mpimeter_is_before_it_is_first_called():
    """`make demo` installs `mpimeter` into .venv, which is not on a new user's PATH (this harness
    puts it there): the README says so, and how, before its first block that calls `mpimeter`."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    first = next(b for b in BLOCKS if b.document == "README.md"
                 and any(c.split()[0] == "mpimeter" for c in b.commands))
    before = "\n".join(text.splitlines()[:first.line])
    assert ".venv/bin/mpimeter" in before and ". .venv/bin/activate" in before, \
        f"README.md line {first.line} calls mpimeter before saying where it is"


def test_every_command_block_of_the_docs_is_run_or_a_listing():
    """A page of docs/ with a command block (no language, sh, bash, shell, console) is one the
    harness runs: a guide page cannot slip out of it; listings say ```text."""
    pages = {f"docs/{p.name}" for p in (REPO / "docs").glob("*.md")}
    with_commands = {page for page in pages if blocks(page)}
    assert with_commands - set(DOCUMENTS) - set(RUN_ELSEWHERE) == set(), \
        "add them to DOCUMENTS or mark their listings ```text"
    for page, runner in RUN_ELSEWHERE.items():
        assert page in with_commands and (REPO / runner.split(",")[0]).is_file(), (page, runner)


@pytest.mark.parametrize("block", BLOCKS, ids=[f"{b.document}:{b.line}" for b in BLOCKS])
def test_block(block: Block, scratch: Path):
    where = f"{block.document} line {block.line}"
    if block.skip:
        pytest.skip(f"{where}: {block.skip}")
    rules = _rules()
    env = {**os.environ, "PATH": f"{REPO / '.venv' / 'bin'}:{os.environ['PATH']}",
           "MPIMETER_STORE": str(scratch / "results.duckdb"), "MPIMETER_BENCH_DIR": str(REPO / "build")}
    for command in block.commands:
        actual = rewrite(command, rules)
        done = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", actual], cwd=scratch, env=env,
                              capture_output=True, text=True, timeout=1800)
        assert done.returncode in block.exit_codes, (
            f"{where}: {command}\n(run as: {actual})\nexit code "
            f"{done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
