# SPDX-License-Identifier: BSD-3-Clause
"""The licence: LICENSE is BSD-3-Clause, every source file git tracks carries its SPDX line
(scripts/spdx --check), and scripts/spdx puts the line where each kind of file needs it, once,
leaving data files and file modes alone."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "spdx"
C_LINE = b"/* SPDX-License-Identifier: BSD-3-Clause */\n"
HASH_LINE = b"# SPDX-License-Identifier: BSD-3-Clause\n"


def _spdx():
    loader = importlib.machinery.SourceFileLoader("spdx_script", str(SCRIPT))
    spec = importlib.util.spec_from_loader("spdx_script", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def test_licence_file_is_bsd_3_clause():
    text = (REPO / "LICENSE").read_text()
    assert text.startswith("BSD 3-Clause License\n")
    assert "Copyright (c) 2026 The mpimeter developers" in text
    assert "3. Neither the name of the copyright holder" in text


@pytest.mark.skipif(not (REPO / ".git").exists(), reason="not a git checkout")
def test_every_tracked_source_file_has_the_line():
    proc = subprocess.run([sys.executable, str(SCRIPT), "--check"], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, f"source files without the SPDX line (run scripts/spdx):\n{proc.stdout}"
    assert proc.stdout == ""


@pytest.fixture
def tree(tmp_path):
    if shutil.which("git") is None:
        pytest.skip("git not installed")
    files = {
        "c/a.c": b"/* a.c \xe2\x80\x94 a file */\nint a;\n",
        "c/a.h": b"#ifndef A_H\n#define A_H\n#endif\n",
        "p/m.py": b'"""Docstring."""\nimport os\n',
        "p/tool.py": b"#!/usr/bin/env python3\n# -*- coding: utf-8 -*-\nprint(1)\n",
        "scripts/run": b"#!/bin/sh\necho hi\n",
        "scripts/noeol.sh": b"#!/bin/sh",
        "Makefile": b"all:\n\ttrue\n",
        "CMakeLists.txt": b"project(x C)\n",
        "data/x.csv": b"a,b\n1,2\n",
        "data/x.json": b"{}\n",
        "data/golden.txt": b"golden\n",
        "README.md": b"# x\n",
        "p/done.py": HASH_LINE + b"x = 1\n",
    }
    for name, data in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    (tmp_path / "scripts" / "run").chmod(0o755)
    (tmp_path / "untracked.py").write_bytes(b"x = 1\n")
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True, timeout=30)
    subprocess.run(["git", "add", *files], cwd=tmp_path, check=True, timeout=30)
    return tmp_path, files


def test_inserts_the_line_where_each_kind_needs_it(tree):
    root, files = tree
    spdx = _spdx()
    expected_missing = {"c/a.c", "c/a.h", "p/m.py", "p/tool.py", "scripts/run", "scripts/noeol.sh",
                        "Makefile", "CMakeLists.txt"}
    assert {str(p) for p in spdx.apply(root, check=True)} == expected_missing
    assert (root / "c/a.c").read_bytes() == files["c/a.c"], "--check changed a file"

    assert {str(p) for p in spdx.apply(root, check=False)} == expected_missing
    read = lambda name: (root / name).read_bytes()  # noqa: E731
    assert read("c/a.c") == C_LINE + files["c/a.c"]
    assert read("c/a.h") == C_LINE + files["c/a.h"]
    assert read("p/m.py") == HASH_LINE + files["p/m.py"]
    assert read("p/tool.py") == b"#!/usr/bin/env python3\n# -*- coding: utf-8 -*-\n" + HASH_LINE + b"print(1)\n"
    assert read("scripts/run") == b"#!/bin/sh\n" + HASH_LINE + b"echo hi\n"
    assert read("scripts/noeol.sh") == b"#!/bin/sh\n" + HASH_LINE
    assert read("Makefile") == HASH_LINE + files["Makefile"]
    assert read("CMakeLists.txt") == HASH_LINE + files["CMakeLists.txt"]
    for name in ("data/x.csv", "data/x.json", "data/golden.txt", "README.md", "p/done.py"):
        assert read(name) == files[name], f"{name} changed"
    assert read("untracked.py") == b"x = 1\n", "a file git does not track was changed"
    assert os.stat(root / "scripts/run").st_mode & stat.S_IXUSR, "the script lost its execute bit"

    # idempotent: nothing missing, nothing changed by a second run
    before = {name: read(name) for name in files}
    assert spdx.apply(root, check=False) == []
    assert {name: read(name) for name in files} == before


def test_check_exits_1_naming_the_files(tree, tmp_path):
    root, _ = tree
    copy = root / "scripts" / "spdx"
    shutil.copy(SCRIPT, copy)
    proc = subprocess.run([sys.executable, str(copy), "--check"], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 1
    assert "missing: c/a.c\n" in proc.stdout and "missing: Makefile\n" in proc.stdout
    assert "x.csv" not in proc.stdout
    bad = subprocess.run([sys.executable, str(copy), "--fix"], capture_output=True, text=True,
                         timeout=60)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1
