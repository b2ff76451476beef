# SPDX-License-Identifier: BSD-3-Clause
"""Writing the site folder: every page rendered here from the store's data (no stored HTML is
ever copied: a store's report blob, or a shared folder's report.html, could hold anything), built
in a fresh folder next to the target and then moved in file by file.

The target may be a new path, an empty folder, or a folder this module wrote before: it holds
:data:`MARKER`, whose manifest lists every file the site wrote, and nothing else. A folder with any
other file (a user's, the results store itself), a file, a symbolic link (even to a folder), a
device, FIFO or socket, or a folder that holds the store is refused with :class:`SiteError`
before anything is written. Rewriting a site replaces
its files and removes only the files of its old manifest that the new one does not have: nothing
this module did not write is ever deleted.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import shutil
import tempfile
from pathlib import Path

from mpimeter import __version__
from mpimeter.atomic import check_file_target, kind_of
from mpimeter.errors import MpimeterError
from mpimeter.io import bounded
from mpimeter.io.errors import InputError
from mpimeter.site import pages
from mpimeter.site.data import SiteData, pieces_of, pieces_order
from mpimeter.site.history import series_steps

MARKER = ".mpimeter-site"
MARKER_FORMAT = "mpimeter-site"


class SiteError(MpimeterError):
    """The output folder cannot be used: one line naming it; the CLI exits 2."""


def _manifest(out: Path) -> set[str] | None:
    """The files a site written before lists (None: no valid marker)."""
    marker = out / MARKER
    try:
        if not marker.is_file() or marker.is_symlink():
            return None
        doc = json.loads(bounded.read_bytes(marker, 64 * 2**20).decode("utf-8"))
    except (OSError, ValueError, InputError):
        return None
    if not isinstance(doc, dict) or doc.get("format") != MARKER_FORMAT or not isinstance(doc.get("files"), list):
        return None
    files = {f for f in doc["files"] if isinstance(f, str)}
    if any(_unsafe(f) for f in files) or len(files) != len(doc["files"]):
        return None
    return files


def _unsafe(rel: str) -> bool:
    parts = rel.split("/")
    return not rel or rel.startswith("/") or any(p in ("", ".", "..") for p in parts) or "\\" in rel or rel == MARKER


def check_output(out: Path, store: Path | None = None) -> None:
    """Refuses an output that is not new, empty, or a site written before holding only its own
    files, and one that holds the store (module docstring)."""
    kind = kind_of(out)
    if kind not in (None, "a folder"):  # a link, even to a folder: the pages would land elsewhere
        raise SiteError(f"{out}: not a folder ({kind}); give a folder (new, empty, or a site mpimeter wrote), "
                        "not a link to one")
    if store is not None:
        try:
            inside = Path(store).resolve().is_relative_to(out.resolve())
        except (OSError, RuntimeError):
            inside = False
        if inside:
            raise SiteError(f"{out}: holds the results store {store}; give an output folder outside the store's "
                            "folder (a site folder holds only the pages it wrote)")
    if not out.exists():
        if not out.parent.is_dir():
            raise SiteError(f"{out}: the folder {out.parent} does not exist")
        return
    if not any(out.iterdir()):
        return
    files = _manifest(out)
    if files is None:
        raise SiteError(f"{out}: exists and is not an mpimeter site (no valid {MARKER}); give a new or empty folder, "
                        "or the folder of a site written before")
    folders = {str(Path(f).parent) for f in files} | {str(p) for f in files for p in Path(f).parents}
    for root, dirs, names in os.walk(out):
        for name in dirs + names:
            path = Path(root) / name
            rel = path.relative_to(out).as_posix()
            ours = (rel in folders and path.is_dir() and not path.is_symlink()) if name in dirs else \
                ((rel in files or rel == MARKER) and path.is_file() and not path.is_symlink())
            if not ours:
                raise SiteError(f"{out}: holds {rel}, which this site did not write (not in its {MARKER}); "
                                "mpimeter site removes only what it wrote: move that file, or give another folder")


def _write(root: Path, rel: str, text: str | bytes) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)


def write_site(data: SiteData, out: Path, *, max_slowdown: float = 0.05, alpha: float = 0.05) -> dict[str, int]:
    """Writes the whole site to ``out``; returns counts of what was written."""
    out = Path(out)
    check_output(out, Path(data.store))
    generated = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    steps = {s: series_steps(data, s, max_slowdown=max_slowdown, alpha=alpha) for s in data.series()}
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name[:60]}.", suffix=".tmp", dir=out.parent))
    counts = {"pages": 0}
    written: list[str] = []
    try:
        def put(rel: str, text: str | bytes) -> None:
            _write(tmp, rel, text)
            written.append(rel)
            counts["pages"] += 1

        put("index.html", pages.index_html(data, steps, generated))
        for op in sorted(set(data.results["op"])):
            put(pages.op_page(op), pages.op_html(data, op, generated))
        for cid in data.campaigns["campaign_id"]:
            put(pages.campaign_page(cid), pages.campaign_html(data, cid, cid in data.reports, steps, generated))
        r = data.results
        for s, ss in steps.items():
            mine = r[r["series"] == s]
            for op, g in mine.groupby("op", sort=True):
                put(pages.history_op_page(s, op), pages.history_op_html(data, s, op, generated))
                # mw-workpieces: a history per (size, number of work pieces)
                lines = {(int(size), pieces_of(w)) for size, w in zip(g["size"], g["workpieces"])}
                for size, pieces in sorted(lines, key=lambda sw: (sw[0], pieces_order(sw[1]))):
                    put(pages.history_page(s, op, size, pieces),
                        pages.history_html(data, s, op, size, ss, generated, max_slowdown=max_slowdown,
                                           alpha=alpha, workpieces=pieces))
        _write(tmp, MARKER, json.dumps({"format": MARKER_FORMAT, "version": 2, "tool": f"mpimeter {__version__}",
                                        "store": data.store, "generated": generated, "files": sorted(written)},
                                       indent=1) + "\n")
        os.chmod(tmp, 0o755)
        _move_in(tmp, out, written)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return counts


def _move_in(new: Path, out: Path, written: list[str]) -> None:
    """Puts the site built in ``new`` where ``out`` is: a new folder renamed in whole; into a site
    written before, each file moved over its old one, then the old manifest's files the new one
    lacks removed (and their folders, when left empty), the marker last."""
    if not out.exists():
        new.rename(out)
        return
    old_files = _manifest(out) or set()
    check_output(out)  # again, right before: a file placed since is kept, and refused
    for rel in written:
        target = out / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        check_file_target(target)  # right before: what appeared since the check is kept, and refused
        os.replace(new / rel, target)
    for rel in sorted(old_files - set(written)):
        path = out / rel
        if path.is_file() and not path.is_symlink():
            path.unlink()
        for parent in path.relative_to(out).parents:
            if str(parent) != ".":
                try:
                    (out / parent).rmdir()  # only when empty: nothing else is removed
                except OSError:
                    pass
    check_file_target(out / MARKER)
    os.replace(new / MARKER, out / MARKER)
    shutil.rmtree(new, ignore_errors=True)
