"""The `mpimeter` command: one module per sub-command (see COMMANDS)."""

import importlib

import click

from mpimeter import __version__

# Each entry is a module of this package that defines a click command named `command`.
COMMANDS = [
    "run", "reproducibility",
    "analyze", "compare", "gate",
    "fingerprint", "report",
    "sync_check",
]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="mpimeter")
def main() -> None:
    """MPI micro-benchmarks you can trust: run campaigns, analyze, compare, report."""


for _name in COMMANDS:
    main.add_command(importlib.import_module(f"mpimeter.cli.{_name}").command)
