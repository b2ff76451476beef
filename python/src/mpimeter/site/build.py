"""Writing the site folder: all pages built in a fresh folder next to the target, then swapped in
whole, so that a failure leaves the target as it was.

The target may be a new path, an empty folder, or a folder this module wrote before (it holds
:data:`MARKER`); anything else — a folder of other files, a file, a symbolic link — is refused
with :class:`SiteError` before anything is written. Reports are copied from the store only
when they begin as every mpimeter page does (``report.html.is_mpimeter_page``: the policy that
forbids scripts and network loads comes first), so a store cannot plant a page that runs code.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import shutil
import tempfile
from pathlib import Path

from mpimeter import __version__
from mpimeter.report.html import is_mpimeter_page
from mpimeter.site import pages
from mpimeter.site.data import SiteData
from mpimeter.site.history import series_steps

MARKER = ".mpimeter-site"
MARKER_FORMAT = "mpimeter-site"


class SiteError(Exception):
    """The output folder cannot be used: one line naming it; the CLI exits 2."""


def check_output(out: Path) -> None:
    """Refuses an output that is not new, empty, or a site written before (module docstring)."""
    if out.is_symlink():
        raise SiteError(f"{out}: a symbolic link; give a folder (new, empty, or a site mpimeter wrote)")
    if not out.exists():
        if not out.parent.is_dir():
            raise SiteError(f"{out}: the folder {out.parent} does not exist")
        return
    if not out.is_dir():
        raise SiteError(f"{out}: exists and is not a folder")
    if not any(out.iterdir()):
        return
    marker = out / MARKER
    try:
        ok = marker.is_file() and not marker.is_symlink() and \
            json.loads(marker.read_text(encoding="utf-8")).get("format") == MARKER_FORMAT
    except (OSError, ValueError, AttributeError):
        ok = False
    if not ok:
        raise SiteError(f"{out}: exists and is not an mpimeter site (no {MARKER}); give a new or empty folder, or "
                        "the folder of a site written before")


def _write(root: Path, rel: str, text: str | bytes) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)


def write_site(data: SiteData, out: Path, *, max_slowdown: float = 0.05, alpha: float = 0.05) -> dict[str, int]:
    """Writes the whole site to ``out``; returns counts of what was written."""
    out = Path(out)
    check_output(out)
    generated = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    steps = {s: series_steps(data, s, max_slowdown=max_slowdown, alpha=alpha) for s in data.series()}
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name[:60]}.", suffix=".tmp", dir=out.parent))
    counts = {"pages": 0, "reports": 0, "reports_refused": 0}
    try:
        def put(rel: str, text: str | bytes) -> None:
            _write(tmp, rel, text)
            counts["pages"] += 1

        put("index.html", pages.index_html(data, steps, generated))
        for op in sorted(set(data.results["op"])):
            put(pages.op_page(op), pages.op_html(data, op, generated))
        for cid in data.campaigns["campaign_id"]:
            report = data.reports.get(cid)
            usable = report is not None and is_mpimeter_page(report)
            if usable:
                _write(tmp, pages.report_page(cid), report)
                counts["reports"] += 1
            elif report is not None:
                counts["reports_refused"] += 1
            put(pages.campaign_page(cid), pages.campaign_html(data, cid, usable, steps, generated))
        r = data.results
        for s, ss in steps.items():
            mine = r[r["series"] == s]
            for op, g in mine.groupby("op", sort=True):
                put(pages.history_op_page(s, op), pages.history_op_html(data, s, op, generated))
                for size in sorted(set(g["size"])):
                    put(pages.history_page(s, op, int(size)),
                        pages.history_html(data, s, op, int(size), ss, generated, max_slowdown=max_slowdown,
                                           alpha=alpha))
        _write(tmp, MARKER, json.dumps({"format": MARKER_FORMAT, "version": 1, "tool": f"mpimeter {__version__}",
                                        "store": data.store, "generated": generated}, indent=1) + "\n")
        os.chmod(tmp, 0o755)
        _swap(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return counts


def _swap(new: Path, out: Path) -> None:
    """Puts ``new`` where ``out`` is: out renamed aside, new renamed in, the old one removed."""
    if out.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{out.name[:60]}.", suffix=".old", dir=out.parent))
        old.rmdir()
        out.rename(old)
        try:
            new.rename(out)
        except OSError:
            old.rename(out)
            raise
        shutil.rmtree(old, ignore_errors=True)
    else:
        new.rename(out)
