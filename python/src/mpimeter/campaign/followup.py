"""What `mpimeter run` shows after a campaign: the `analyze` table and the HTML report, through
the public commands `mpimeter analyze CAMPAIGN` and `mpimeter report CAMPAIGN -o FILE` (run in
this process). Each is skipped with a one-line note when its command is not there."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path

REPORT_FILE = "report.html"


def _command(name: str):
    try:
        module = importlib.import_module(f"mpimeter.cli.{name}")
    except ImportError:
        return None
    return getattr(module, "command", None)


def _invoke(cmd, args: list[str]) -> int:
    """Runs a click command in-process; returns its exit code."""
    try:
        cmd.main(args=args, prog_name=f"mpimeter {cmd.name}", standalone_mode=False)
    except SystemExit as exc:
        return int(exc.code or 0) if not isinstance(exc.code, str) else 1
    except Exception as exc:  # the campaign is done; a failing follow-up must not hide that
        return _report_error(exc)
    return 0


def _report_error(exc: Exception) -> int:
    import click

    if isinstance(exc, click.ClickException):
        exc.show()
        return exc.exit_code
    click.echo(f"  ({type(exc).__name__}: {exc})", err=True)
    return 1


def after_campaign(campaign_dir: Path, *, echo: Callable[[str], None] = print) -> None:
    analyze = _command("analyze")
    if analyze is None:
        echo("(no `mpimeter analyze` yet: analysis table skipped)")
    else:
        echo("")
        code = _invoke(analyze, [str(campaign_dir)])
        if code not in (0, None):
            echo(f"(`mpimeter analyze {campaign_dir}` exited with {code})")
    report = _command("report")
    if report is None:
        echo("(no `mpimeter report` yet: report skipped)")
        return
    path = Path(campaign_dir) / REPORT_FILE
    code = _invoke(report, [str(campaign_dir), "-o", str(path)])
    if code == 0 and path.exists():
        echo(f"report: {path}")
    else:
        echo(f"(`mpimeter report {campaign_dir} -o {path}` exited with {code}; no report)")
