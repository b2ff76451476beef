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


@pytest.mark.parametrize("objects, rc, said", [
    ({"app/main.c": "int mm_t_low(void); int mm_t_top(void) { return mm_t_low(); }\n",
      "timer/timer.c": "int mm_t_low(void) { return 1; }\n"},
     0, ["calls up the folder order: 0 file pairs", "circles of files: 0"]),
    ({"app/main.c": "int mm_t_top(void) { return 1; }\n",
      "timer/timer.c": "int mm_t_top(void); int mm_t_low(void) { return mm_t_top(); }\n"},
     1, ["calls up the folder order: 1 file pairs", "timer/timer.c -> app/main.c"]),
    ({"bench/loop.c": "int mm_t_b(void); int mm_t_a(void) { return mm_t_b(); }\n",
      "bench/launch.c": "int mm_t_a(void); int mm_t_b(void) { return mm_t_a(); }\n"},
     1, ["circles of files: 1", "bench/launch.c <-> bench/loop.c"]),
], ids=["a call down passes", "a call up fails", "a circle fails"])
def test_the_check_reads_each_objects_calls(tmp_path, capsys, objects, rc, said):
    for source, code in objects.items():
        _object(tmp_path, source, code)
    got = layers.main(["layers.py", str(tmp_path), "--check"])
    out = capsys.readouterr().out
    assert got == rc, out
    for line in said:
        assert line in out, out
