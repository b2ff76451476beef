# SPDX-License-Identifier: BSD-3-Clause
"""The lazy command group: `mpimeter --version`, `--help`, completion of command names and every
sub-command's `--help` load no statistics library, and say what the imported commands say."""

import importlib
import json
import re
import subprocess
import sys

import click
import pytest
from click.testing import CliRunner
from data.fakebench import cli, make_fake_env

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
    complete = ("import os\nos.environ.update(_MPIMETER_COMPLETE='bash_complete', "
                "COMP_WORDS='mpimeter s', COMP_CWORD='1')\n" + run.format(""))
    # the three in turn in one interpreter: a module once imported stays, so none loaded after
    # the last means none loaded by any
    assert _loaded_after("\n".join([run.format("'--version'"), run.format("'--help'"), complete])) == set()
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


def _probe_commands(argvs: list[list[str]]) -> dict[str, tuple[int, set[str]]]:
    """`mpimeter ARGV` for each ARGV in turn, in one fresh interpreter: by each command line, its
    exit code and the heavy modules it loaded (those there after it and not before). A module
    once imported stays: whichever line loads one first shows it, so that none showing any is
    the same answer as each line run in an interpreter of its own, at one start instead of one
    per line."""
    probe = ("import json, sys\nfrom mpimeter.cli import main\nseen = set()\n"
             f"for argv in {argvs!r}:\n"
             "    code = 0\n"
             "    try:\n        main(argv, prog_name='mpimeter')\n"
             "    except SystemExit as exc:\n        code = exc.code\n"
             f"    now = {{m for m in {HEAVY!r} if m in sys.modules}}\n"
             "    print('loaded:', json.dumps([' '.join(argv), code, sorted(now - seen)]), file=sys.stderr)\n"
             "    seen |= now\n"
             # the control: what a command runs is seen (the probe can fail)
             f"import pandas\nprint('loaded:', json.dumps(['import pandas', 0, sorted({{m for m in {HEAVY!r} "
             "if m in sys.modules})]), file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=300)
    found = [json.loads(line.split(" ", 1)[1]) for line in done.stderr.splitlines() if line.startswith("loaded: ")]
    assert done.returncode == 0 and len(found) == len(argvs) + 1, done.stderr
    *answers, (_, _, control) = found
    assert {"pandas", "numpy"} <= set(control), control
    return {name: (code, set(mods)) for name, code, mods in answers}


def test_every_subcommand_help_and_bad_option_import_no_heavy_library():
    """`mpimeter SUB --help` and a command line click refuses are answered before any
    statistics, table or plotting library is imported: those load when the command runs."""
    lines = _command_lines()
    assert ["store", "add"] in lines and len(lines) > len(COMMANDS)
    answers = _probe_commands([[*line, last] for last in ("--help", "--no-such-option") for line in lines])
    assert len(answers) == 2 * len(lines)
    expected = {"--help": 0, "--no-such-option": 2}
    assert {name: (code, mods) for name, (code, mods) in answers.items()
            if code != expected[name.split()[-1]] or mods} == {}


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


@pytest.fixture(scope="module")
def campaign_reading(tmp_path_factory) -> dict[str, set[str]]:
    """In one fresh interpreter, in turn: a campaign.json without the adaptive rule read back
    (as `run --resume`, the lock's check and `reproducibility` read it), the reproducibility
    module imported and asked about its folders (as the command does before its trials run),
    then the control: the stopping rule's module (the probe can see what it loads). By each
    step, the heavy modules loaded so far (a module once imported stays)."""
    root = tmp_path_factory.mktemp("reading")
    with pytest.MonkeyPatch.context() as monkeypatch:
        opts = make_fake_env(root, monkeypatch)
        out = root / "c"
        assert cli([*opts, "--launches", "1", "--mpi", "openmpi", "--out", str(out)]).exit_code == 0
    seen = f"[m for m in {HEAVY!r} if m in sys.modules]"
    probe = ("import sys\nfrom pathlib import Path\nfrom mpimeter.campaign import state\n"
             f"assert state.load(Path({str(out)!r})).adaptive is None\n"
             f"print('loaded: read', *{seen}, file=sys.stderr)\n"
             "import mpimeter.campaign.reproducibility as rp\nrp.same_folders([])\n"
             f"print('loaded: reproducibility', *{seen}, file=sys.stderr)\n"
             "from mpimeter.stats import stopping\n"
             f"print('loaded: control', *{seen}, file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    steps = [line.split()[1:] for line in done.stderr.splitlines() if line.startswith("loaded: ")]
    return {step: set(mods) for step, *mods in steps}


def test_reading_a_campaign_without_the_adaptive_rule_loads_no_statistics_library(campaign_reading):
    """campaign.json read back loads numpy and scipy only when the campaign has the adaptive
    rule (its stopping rule is theirs): a resume that runs launches and analyzes nothing starts
    in a fraction of their import."""
    assert campaign_reading["read"] == set()
    assert {"numpy", "scipy"} <= campaign_reading["control"]


def test_the_reproducibility_module_loads_no_statistics_library_until_the_trials_are_read(campaign_reading):
    """`mpimeter reproducibility` imports its module when it starts, then checks its folders and
    runs its trials: pandas and the analysis are imported where the trials are read, so that
    one interrupted while a trial runs ends without them (their import takes seconds)."""
    assert campaign_reading["reproducibility"] == set()
    assert {"numpy", "scipy"} <= campaign_reading["control"]
