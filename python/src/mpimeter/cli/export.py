# SPDX-License-Identifier: BSD-3-Clause
"""`mpimeter export CAMP OUT`: a campaign folder copied to share, with every text redacted
(mpimeter.io.redact, the rule the readers apply).

What is copied: every JSON file parsed and written back redacted (campaign.json and meta.json by
the rule for their keys — commands, environments, stderr tails — and then every string of any
JSON file as text); every other file that is UTF-8 text (raw.csv, sync.csv, …), redacted line by
line. What is left out, and counted in the one line printed: the launch logs (``*.stdout``,
``*.stderr``: what the launcher and the bench printed, whole — campaign.json keeps each launch's
stderr tail, redacted), a report (``*.html``: `mpimeter report OUT` rebuilds it from the data),
``.mpimeter.lock``, a file that is not UTF-8 or a JSON file that does not parse, and whatever is
neither a regular file nor a folder. A symbolic link inside CAMP is never followed (left out):
every path copied is inside CAMP. OUT must not exist; it is made by this command and removed
again if the export fails. The export is for reading (analyze, compare, report, store add), not
for `run --resume`.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import stat
from collections import Counter
from pathlib import Path

import click

from mpimeter.atomic import write_atomic
from mpimeter.cli.common import EXIT_OK, guarded
from mpimeter.cli.output import fail, terminal_text
from mpimeter.io import redact
from mpimeter.io.errors import InputError
from mpimeter.io.jsonread import MAX_BYTES, MAX_DEPTH

LOGS = (".stdout", ".stderr")
REPORTS = (".html", ".htm")
LOCK_FILE = ".mpimeter.lock"


def _unfinished(camp: Path) -> str:
    """'; campaign.json says running: …' for a campaign not done, whose copy holds what is done."""
    from mpimeter.io.campaign_record import read_campaign_record

    try:
        record = read_campaign_record(camp)
    except (InputError, OSError):
        return ""  # what cannot be read was said, or is not a campaign's
    unfinished = record.unfinished() if record is not None else None
    return f"; campaign.json says {unfinished}: the copy holds what is done so far" if unfinished else ""


@click.command("export")
@click.argument("campaign", type=click.Path())
@click.argument("out", type=click.Path())
def command(campaign: str, out: str) -> None:
    """Copy the campaign folder CAMPAIGN to a new folder OUT to share it: every text redacted
    (secret variables, flags and headers, URL passwords, tokens, keys) in campaign.json, each
    meta.json and the data files; the launch logs (logs/*.stdout, *.stderr) and reports left
    out; symbolic links never followed. OUT must not exist. Exit 2 on bad input, with nothing
    written."""

    def body() -> int:
        camp, dest = Path(campaign), Path(out)
        _check(camp, dest)
        counts = export_campaign(camp, dest)
        left = ", ".join(f"{n} {what}" for what, n in sorted(counts.items()) if what != "copied" and n)
        click.echo(terminal_text(f"exported {counts['copied']} files of {camp} to {dest}, redacted"
                                 + (f"; left out: {left}" if left else "") + _unfinished(camp), one_line=True))
        return EXIT_OK

    guarded("export", body)


def _check(camp: Path, dest: Path) -> None:
    """CAMP a campaign folder, OUT new, beside an existing folder and not inside CAMP."""
    if not camp.is_dir():
        fail("export", f"{camp} is not a folder; give a campaign folder (one that holds campaign.json or launches/)")
    if not ((camp / "campaign.json").is_file() or (camp / "launches").is_dir()
            or any((d / "launches").is_dir() for d in camp.iterdir() if d.is_dir() and not d.is_symlink())):
        fail("export", f"{camp} is not a campaign folder (no campaign.json, no launches/)")
    if os.path.lexists(dest):
        fail("export", f"{dest} already exists; give a new folder (export never writes into or over one)")
    parent = dest.parent
    if not parent.is_dir():
        fail("export", f"{parent} is not a folder; the folder OUT is made in must exist")
    if parent.resolve().is_relative_to(camp.resolve()):
        fail("export", f"{dest} is inside {camp}; give a folder outside the campaign")


def export_campaign(camp: Path, dest: Path) -> Counter:
    """Copies ``camp`` to the new folder ``dest`` as the module docstring says; the counts of
    what was copied and of what was left out, by reason. ``dest`` is removed on any failure."""
    try:
        os.mkdir(dest)
    except FileExistsError:
        fail("export", f"{dest} already exists; give a new folder (export never writes into or over one)")
    counts: Counter = Counter()
    root = camp.resolve()  # CAMP itself may be given through a link; nothing inside it is followed
    try:
        for dirpath, dirnames, filenames, dirfd in os.fwalk(root, follow_symlinks=False):
            rel = Path(dirpath).relative_to(root)
            for name in list(dirnames):  # fwalk lists a link to a folder here, and does not enter it
                if stat.S_ISLNK(os.stat(name, dir_fd=dirfd, follow_symlinks=False).st_mode):
                    dirnames.remove(name)
                    counts["symbolic links"] += 1
                else:
                    (dest / rel / name).mkdir()
            for name in filenames:
                data = _read(name, dirfd, Path(dirpath) / name, counts)
                if data is not None:
                    shown = _redacted(rel / name, data, counts)
                    if shown is not None:
                        write_atomic(dest / rel / name, shown)
                        counts["copied"] += 1
    except BaseException:
        shutil.rmtree(dest, ignore_errors=True)
        raise
    return counts


def _read(name: str, dirfd: int, path: Path, counts: Counter) -> bytes | None:
    """The bytes of a regular file of the campaign, read without following a link and with the
    readers' bound; None (counted) for what is left out."""
    if name.endswith(LOGS):
        counts["launch logs"] += 1
        return None
    if name.endswith(REPORTS):
        counts["reports"] += 1
        return None
    if name == LOCK_FILE:
        return None
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=dirfd)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            counts["symbolic links"] += 1
            return None
        raise OSError(exc.errno, exc.strerror, str(path)) from None
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            counts["special files"] += 1
            return None
        data = f.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise InputError(path, f"is larger than {MAX_BYTES // 2**20} MiB; at most {MAX_BYTES // 2**20} MiB are read")
    return data


def _redacted(rel: Path, data: bytes, counts: Counter) -> bytes | None:
    """A file's bytes redacted: JSON parsed and written back, text line by line; None (counted)
    for what is neither."""
    rule = redact.reading_rule()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        counts["files not UTF-8 text"] += 1
        return None
    if rel.suffix != ".json":
        return "".join(rule.text(line) for line in text.splitlines(keepends=True)).encode("utf-8")
    try:
        doc = json.loads(text)
        _depth(doc)
    except (ValueError, RecursionError):
        counts["JSON files that do not parse"] += 1
        return None
    if isinstance(doc, dict) and rel.name == "campaign.json":
        doc = redact.campaign_record(doc)
    elif isinstance(doc, dict) and rel.name == "meta.json":
        doc = redact.meta_document(doc)
    return (json.dumps(rule.any_json(doc), indent=1, ensure_ascii=False) + "\n").encode("utf-8")


def _depth(value: object, level: int = 0) -> None:
    """ValueError for a document nested deeper than the readers read (io.jsonread)."""
    if level > MAX_DEPTH:
        raise ValueError("nested too deeply")
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):
        for item in value:
            _depth(item, level + 1)
