# SPDX-License-Identifier: BSD-3-Clause
"""The lazy command group: `mpimeter --version`, `--help` and completion of command names load
no statistics library, and say what the imported commands say."""

import importlib
import re
import subprocess
import sys

import click
from click.testing import CliRunner

from mpimeter.cli import COMMANDS, main

HEAVY = ("pandas", "scipy", "matplotlib", "duckdb", "pyarrow", "statsmodels", "numpy")


def _loaded_after(code: str) -> set[str]:
    probe = (f"import sys\n{code}\n"
             f"print('loaded:', *[m for m in {HEAVY!r} if m in sys.modules], file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    last = done.stderr.splitlines()[-1].split()
    assert last[0] == "loaded:", done.stderr
    return set(last[1:])


def test_version_help_and_completion_import_no_heavy_library():
    run = ("from mpimeter.cli import main\ntry:\n    main([{}], prog_name='mpimeter')\n"
           "except SystemExit:\n    pass")
    assert _loaded_after(run.format("'--version'")) == set()
    assert _loaded_after(run.format("'--help'")) == set()
    complete = ("import os\nos.environ.update(_MPIMETER_COMPLETE='bash_complete', "
                "COMP_WORDS='mpimeter s', COMP_CWORD='1')\n" + run.format(""))
    assert _loaded_after(complete) == set()
    # and a command that needs them does load them
    assert "pandas" in _loaded_after("import mpimeter.cli.analyze")


def test_help_lists_every_command_as_the_imported_commands_describe_themselves():
    lazy = CliRunner().invoke(main, ["--help"], prog_name="mpimeter")
    assert lazy.exit_code == 0
    eager = click.Group("mpimeter", help=main.help, params=main.params,
                        context_settings=main.context_settings)
    for module in COMMANDS:
        eager.add_command(importlib.import_module(f"mpimeter.cli.{module}").command)
    assert lazy.output == CliRunner().invoke(eager, ["--help"], prog_name="mpimeter").output
    assert len(main.list_commands(None)) == len(COMMANDS) == 16


def test_completion_of_command_names():
    r = CliRunner().invoke(main, [], env={"_MPIMETER_COMPLETE": "bash_complete",
                                          "COMP_WORDS": "mpimeter s", "COMP_CWORD": "1"},
                           prog_name="mpimeter")
    assert r.output.split() == ["plain,schemes", "plain,site", "plain,store", "plain,sync-check"]


def test_an_unknown_command_is_still_refused():
    r = CliRunner().invoke(main, ["nope"])
    assert r.exit_code == 2 and "No such command 'nope'" in r.output


def test_run_help_groups_its_own_options_apart_from_the_binarys():
    r = CliRunner().invoke(main, ["run", "--help"], prog_name="mpimeter")
    assert r.exit_code == 0
    own, _, bench = r.output.partition("Options of mpimeter-bench [bench]:")
    assert bench, "no group of the binary's options (is build/ built?)"

    def rows(text):  # the options listed (a row starts with its flag)
        return set(re.findall(r"^  (?:-\w, )?(--[a-z-]+)", text, re.M))

    assert {"--launches", "--launcher", "--mpi"} <= rows(own)
    assert {"--ops", "--sizes", "--nrep"} <= rows(bench)
    assert not rows(own) & rows(bench)
