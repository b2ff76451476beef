"""The `mpimeter` command: one module per sub-command (see COMMANDS). A sub-command module
imports no other: what they share is in `common`, `group`, `output` and the `*_view` modules."""

import importlib

import click

from mpimeter import __version__
from mpimeter.cli.group import MpimeterGroup, OneLineUsageError, repeated_options

__all__ = ["COMMANDS", "MpimeterGroup", "OneLineUsageError", "main", "repeated_options"]

# Each entry is a module of this package that defines a click command named `command`.
COMMANDS = [
    "run", "reproducibility",
    "analyze", "compare", "gate",
    "fingerprint", "report", "imports", "schemes",
    "sync_check",
    "model", "store", "site",
]


@click.group(cls=MpimeterGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="mpimeter")
def main() -> None:
    """MPI micro-benchmarks you can trust: run campaigns, analyze, compare, report."""


for _name in COMMANDS:
    main.add_command(importlib.import_module(f"mpimeter.cli.{_name}").command)
