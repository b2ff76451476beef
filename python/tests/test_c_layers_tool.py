# SPDX-License-Identifier: BSD-3-Clause
"""c/tests/tools/layers.py (ctest `layers`) on two objects compiled here: a call down the C
folders' order passes, a call up fails naming the pair, and a circle of files fails. The objects
take the names of real sources (the tool skips objects whose source is gone)."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("mm_layers_tool", REPO / "c" / "tests" / "tools" / "layers.py")
layers = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(layers)

pytestmark = pytest.mark.skipif(not (shutil.which("cc") and shutil.which("nm")), reason="needs cc and nm")


def _object(build: Path, source: str, code: str) -> None:
    """build/CMakeFiles/t.dir/c/src/SOURCE.o compiled from CODE (as CMake names its objects)."""
    obj = build / "CMakeFiles" / "t.dir" / "c" / "src" / f"{source}.o"
    obj.parent.mkdir(parents=True, exist_ok=True)
    c = obj.with_suffix(".tmp.c")
    c.write_text(code)
    subprocess.run(["cc", "-c", "-o", str(obj), str(c)], check=True, timeout=60)
    c.unlink()


def _check(build: Path, capsys) -> tuple[int, str]:
    rc = layers.main(["layers.py", str(build), "--check"])
    return rc, capsys.readouterr().out


def test_a_call_down_the_order_passes(tmp_path, capsys):
    _object(tmp_path, "app/main.c", "int mm_t_low(void); int mm_t_top(void) { return mm_t_low(); }\n")
    _object(tmp_path, "timer/timer.c", "int mm_t_low(void) { return 1; }\n")
    rc, out = _check(tmp_path, capsys)
    assert rc == 0, out
    assert "calls up the folder order: 0 file pairs" in out and "circles of files: 0" in out


def test_a_call_up_the_order_fails_and_names_the_files(tmp_path, capsys):
    _object(tmp_path, "app/main.c", "int mm_t_top(void) { return 1; }\n")
    _object(tmp_path, "timer/timer.c", "int mm_t_top(void); int mm_t_low(void) { return mm_t_top(); }\n")
    rc, out = _check(tmp_path, capsys)
    assert rc == 1
    assert "calls up the folder order: 1 file pairs" in out and "timer/timer.c -> app/main.c" in out


def test_a_circle_of_files_in_one_folder_fails(tmp_path, capsys):
    _object(tmp_path, "bench/loop.c", "int mm_t_b(void); int mm_t_a(void) { return mm_t_b(); }\n")
    _object(tmp_path, "bench/launch.c", "int mm_t_a(void); int mm_t_b(void) { return mm_t_a(); }\n")
    rc, out = _check(tmp_path, capsys)
    assert rc == 1
    assert "circles of files: 1" in out and "bench/launch.c <-> bench/loop.c" in out
