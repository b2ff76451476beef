# SPDX-License-Identifier: BSD-3-Clause
"""The `mpimeter` group: every bad command line is one line naming the command, exit 2, and an
option that takes one value may not be given twice (click would keep the last one silently)."""

import pytest
from click.testing import CliRunner

from mpimeter.cli import main


def invoke(*args):
    return CliRunner().invoke(main, list(args))


@pytest.mark.parametrize("args, command, message", [
    (["run", "--np", "abc"], "run", "--np abc: 'abc' is not a process count or a range; allowed: numbers and ranges"),
    (["run", "--raw", "bogus", "--out", "/nonexistent/x"], "run", "--raw: unknown mode 'bogus'; allowed: full, reduced"),
    (["analyze", "--outlier", "bogus", "x"], "analyze", "Invalid value for '--outlier'"),
    (["sync-check", "--timeout", "soon"], "sync-check", "Invalid value for '--timeout'"),
    (["run", "--np", "2", "--np", "3"], "run", "--np given more than once"),
    (["run", "--sizes=8", "--sizes", "16"], "run", "--sizes given more than once"),
    (["gate", "a", "b", "--alpha", "0.1", "--alpha", "0.05"], "gate", "--alpha given more than once"),
])
def test_a_bad_command_line_is_one_line_and_exit_2(args, command, message):
    result = invoke(*args)
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    assert lines[0].startswith(f"mpimeter {command}: error: ") and message in lines[0], lines[0]


def test_repeatable_options_and_arguments_after_the_double_dash_may_repeat(tmp_path):
    # --variant is repeatable; after `--` the words belong to mpimeter-bench, not to run
    from mpimeter.cli import repeated_options
    from mpimeter.cli.run import command as run
    assert repeated_options(run, ["--variant", "a=X=1", "--variant", "b=X=2"]) == []
    assert repeated_options(run, ["--np", "2", "--", "--np", "3"]) == []
    assert repeated_options(run, ["--np", "2", "--launches", "3", "--np", "4"]) == ["--np"]
