# SPDX-License-Identifier: BSD-3-Clause
"""The lazy command group: `mpimeter --version`, `--help`, completion of command names and every
sub-command's `--help` load no statistics library, and say what the imported commands say."""

import importlib
import re
import subprocess
import sys

import click
import pytest
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
    # and what a command runs does load them (the probe sees them)
    assert "pandas" in _loaded_after("from mpimeter import analysis\nanalysis.analyze")


def _command_lines() -> list[list[str]]:
    """Every sub-command as typed, the sub-commands of a group (`store add`) included."""
    lines = []
    for module in COMMANDS:
        command = importlib.import_module(f"mpimeter.cli.{module}").command
        lines.append([command.name])
        if isinstance(command, click.Group):
            lines += [[command.name, sub] for sub in command.list_commands(None)]
    return lines


def _probe_command(argv: list[str]) -> tuple[int, set[str]]:
    """`mpimeter ARGV` in a fresh interpreter: its exit code and the heavy modules it loaded."""
    probe = ("import sys\nfrom mpimeter.cli import main\ncode = 0\n"
             f"try:\n    main({argv!r}, prog_name='mpimeter')\n"
             "except SystemExit as exc:\n    code = exc.code\n"
             f"print('loaded:', code, *[m for m in {HEAVY!r} if m in sys.modules], file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    last = done.stderr.splitlines()[-1].split() if done.stderr else []
    assert last[:1] == ["loaded:"], done.stderr
    return int(last[1]), set(last[2:])


def test_every_subcommand_help_and_bad_option_import_no_heavy_library():
    """`mpimeter SUB --help` and a command line click refuses are answered before any
    statistics, table or plotting library is imported: those load when the command runs."""
    lines = _command_lines()
    assert ["store", "add"] in lines and len(lines) > len(COMMANDS)
    loaded = {" ".join(line): _probe_command([*line, "--help"]) for line in lines}
    assert {name: mods for name, (code, mods) in loaded.items() if code != 0 or mods} == {}
    refused = {" ".join(line): _probe_command([*line, "--no-such-option"]) for line in lines}
    assert {name: mods for name, (code, mods) in refused.items() if code != 2 or mods} == {}


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


def test_the_packages_that_import_on_demand_still_give_every_public_name():
    """mpimeter.analysis and mpimeter.campaign import their modules when a name is first asked
    for: every name they export still comes, and is the defining module's own object."""
    probe = ("import sys\nimport mpimeter.analysis as a, mpimeter.campaign as c\n"
             f"print('loaded:', *[m for m in {HEAVY!r} if m in sys.modules], file=sys.stderr)\n"
             "names = {p.__name__: {n: getattr(p, n) for n in p.__all__} for p in (a, c)}\n"
             "from mpimeter.analysis import pipeline, comparison, scaling\n"
             "from mpimeter.campaign import runner, fake\n"
             "assert names['mpimeter.analysis']['analyze'] is pipeline.analyze\n"
             "assert names['mpimeter.analysis']['OUTLIERS'] is pipeline.OUTLIERS\n"
             "assert names['mpimeter.analysis']['RATIO_CIS'] is comparison.RATIO_CIS\n"
             "assert names['mpimeter.analysis']['scaling'] is scaling\n"
             "assert names['mpimeter.campaign']['CampaignRunner'] is runner.CampaignRunner\n"
             "assert names['mpimeter.campaign']['FakeExecutor'] is fake.FakeExecutor\n"
             "print('all:', len(names['mpimeter.analysis']), len(names['mpimeter.campaign']))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stderr.split() == ["loaded:"]  # importing the packages loads none of them
    from mpimeter import analysis, campaign
    assert done.stdout.split() == ["all:", str(len(analysis.__all__)), str(len(campaign.__all__))]
    for package in (analysis, campaign):
        try:
            getattr(package, "no_such_name")
        except AttributeError as exc:
            assert "no_such_name" in str(exc)
        else:
            raise AssertionError(f"{package.__name__}.no_such_name did not raise AttributeError")


RUNNING_ONLY = ("mpimeter.campaign.spec", "mpimeter.campaign.runner", "mpimeter.campaign.state",
                "mpimeter.cli.after_run", "mpimeter.io.meta", "rich.table")


@pytest.mark.parametrize("name", ["run", "reproducibility"])
def test_campaign_commands_help_loads_nothing_only_running_needs(name):
    """`mpimeter run --help` (through click's CliRunner, in a fresh interpreter) loads neither a
    heavy library nor what only running a campaign needs (planning, campaign.json, the runner,
    the analysis after it): they import where the command runs."""
    probe = ("import sys\nfrom click.testing import CliRunner\nfrom mpimeter.cli import main\n"
             f"result = CliRunner().invoke(main, [{name!r}, '--help'], prog_name='mpimeter')\n"
             "assert result.exit_code == 0 and 'Usage: mpimeter' in result.output, result.output\n"
             f"print('loaded:', *[m for m in {HEAVY + RUNNING_ONLY!r} if m in sys.modules], file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stderr.split() == ["loaded:"], done.stderr
