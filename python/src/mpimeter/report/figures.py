# SPDX-License-Identifier: BSD-3-Clause
"""Matplotlib plumbing shared by the fingerprint and the report: the Agg backend, one style,
the category colors of Roth 2021 §4.5, saving by file extension, PNG as base64 for the HTML,
and the thinning of per-repetition points for display (never for statistics).

Both ways out of a figure (`save_figure`, `png_base64`) first make its texts inert
(`inert_texts`): names from files reach titles, legends and tick labels, and matplotlib would
draw a control character as a missing glyph (with a warning) and read ``$…$`` as mathtext (a
malformed formula stops the drawing with a traceback)."""

from __future__ import annotations

import base64
import functools
import hashlib
import io
import pickle
import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # before pyplot: no display, no GUI toolkit

import numpy as np  # noqa: E402
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.text import Text  # noqa: E402
from matplotlib.ticker import FixedFormatter, FixedLocator, FuncFormatter  # noqa: E402

from mpimeter.atomic import write_atomic  # noqa: E402
from mpimeter.controlchars import escape_control_chars  # noqa: E402

CATEGORIES = ("first", "warmup", "outlier", "good")
CATEGORY_COLORS = {"first": "#8250df", "warmup": "#e16f24", "outlier": "#cf222e",
                   "good": "#0969da"}
CATEGORY_LABELS = {"first": "first", "warmup": "warm-up", "outlier": "outlier", "good": "good"}
# Alternatives side by side: a colorblind-safe cycle (Okabe–Ito).
ALTERNATIVE_COLORS = ("#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00",
                      "#f0e442", "#000000")

STYLE = {
    "font.size": 9.5,
    "axes.titlesize": 10.5,
    "axes.titleweight": "bold",
    "axes.labelsize": 9.5,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "grid.linewidth": 0.6,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "legend.fontsize": 8.5,
    "legend.framealpha": 0.85,
    "xtick.labelsize": 8.5,
    "ytick.labelsize": 8.5,
    "savefig.facecolor": "white",
    "figure.facecolor": "white",
    "svg.fonttype": "none",
    "pdf.fonttype": 42,
}

SAVE_FORMATS = ("png", "svg", "pdf")


def new_figure(width_in: float, height_in: float, dpi: int = 100) -> Figure:
    """A figure not registered with pyplot: nothing to close, nothing leaks when many are drawn."""
    with matplotlib.rc_context(STYLE):
        return Figure(figsize=(width_in, height_in), dpi=dpi)


def styled():
    """Context manager applying STYLE while axes and artists are created."""
    return matplotlib.rc_context(STYLE)


def save_figure(fig: Figure, path: str | Path, *, dpi: int = 110) -> Path:
    """Writes `fig` in the format its extension names (.png, .svg, .pdf)."""
    path = Path(path)
    fmt = path.suffix.lower().lstrip(".")
    if fmt not in SAVE_FORMATS:
        raise ValueError(f"{path}: unknown figure format {fmt!r}; use .png, .svg or .pdf")
    inert_texts(fig)
    buf = io.BytesIO()
    with styled():
        fig.savefig(buf, format=fmt, dpi=dpi, metadata=_metadata(fmt))
    write_atomic(path, buf.getvalue())  # a full disk leaves no empty or partial figure
    return path


def inert_text(text: str) -> str:
    """``text`` as a figure shows it literally: control characters escaped (as in the terminal
    and the HTML, ``mpimeter.controlchars``; a tab too, which has no glyph; newlines stay: the
    labels use them) and every ``$`` escaped, so that no mathtext is parsed (the report draws
    no formula)."""
    return escape_control_chars(text).replace("\t", r"\x09").replace("$", r"\$")


def inert_texts(fig: Figure) -> None:
    """Makes every text of ``fig`` inert (`inert_text`): the texts drawn so far, and the tick
    labels the code gave as text at fixed positions (``set_xticks(ticks, labels)``), which
    matplotlib sets again from their formatter at each drawing. Once per figure: a second pass
    would escape the escapes of ``$``."""
    if getattr(fig, "_mpimeter_inert", False):
        return
    for text in fig.findobj(Text):
        text.set_text(inert_text(text.get_text()))
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            for minor in (False, True):
                _inert_tick_labels(axis, minor=minor)
    fig._mpimeter_inert = True


def _inert_tick_labels(axis, *, minor: bool) -> None:
    """Labels given as text (a FixedFormatter, or the FuncFormatter that ``set_ticklabels``
    makes) at fixed positions become their inert texts, looked up by the tick's value as
    ``set_ticklabels`` does; numeric formatters (whose log labels are mathtext on purpose) are
    left alone."""
    locator = axis.get_minor_locator() if minor else axis.get_major_locator()
    formatter = axis.get_minor_formatter() if minor else axis.get_major_formatter()
    if not (isinstance(locator, FixedLocator) and isinstance(formatter, (FixedFormatter, FuncFormatter))):
        return
    texts = {loc: inert_text(str(formatter(loc, pos))) for pos, loc in enumerate(locator.locs)}
    labels = FuncFormatter(functools.partial(_label_at, texts))
    if minor:
        axis.set_minor_formatter(labels)
    else:
        axis.set_major_formatter(labels)


def _label_at(texts: dict, x: float, pos=None) -> str:
    return texts.get(x, "")


def _metadata(fmt: str) -> dict:
    # Reproducible files: no creation date in SVG/PDF, no software stamp that changes.
    if fmt == "svg":
        return {"Date": None}
    if fmt == "pdf":
        return {"CreationDate": None}
    return {}


def png_base64(fig: Figure, *, dpi: int = 80) -> str:
    """The figure as a PNG, base64-encoded for a data: URI. Images are reduced to a 256-color
    palette when Pillow is available (they are plots: flat colors), which makes them 2–3 ×
    smaller without visible change."""
    inert_texts(fig)
    # drawn on an Agg canvas of its own, which keeps the pixels it wrote the PNG from: the
    # palette is made from them, not from the PNG decoded again (the same pixels: PNG is lossless)
    canvas = FigureCanvasAgg(fig)
    buf = io.BytesIO()
    with styled():
        fig.savefig(buf, format="png", dpi=dpi)
    data = buf.getvalue()
    try:
        from PIL import Image
    except ImportError:  # pragma: no cover - Pillow comes with matplotlib
        return base64.b64encode(data).decode("ascii")
    image = Image.fromarray(np.asarray(canvas.buffer_rgba()), "RGBA").convert("RGB")
    quantized = image.quantize(colors=96, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    out = io.BytesIO()
    quantized.save(out, format="PNG", compress_level=7)
    smaller = out.getvalue() if out.tell() < len(data) else data
    return base64.b64encode(smaller).decode("ascii")


# The PNGs of `png_of`, by the digest of what they show; a bounded few (a report's figures are
# some 100 kB each), the most recently used kept.
_DRAWN: OrderedDict[bytes, str] = OrderedDict()
_DRAWN_KEPT = 32
_DRAWN_LOCK = threading.Lock()


def png_of(what, draw: Callable[[], Figure], *, dpi: int = 80) -> str:
    """``png_base64(draw(), dpi=dpi)``, drawn once per distinct content in a process. ``what`` is
    everything the figure shows: a name for the drawing and every argument ``draw`` passes it
    (rows, names, options). The key is the digest of ``what`` pickled, with ``dpi`` and the
    matplotlib settings in force, so a figure is reused only where drawing it again would give
    the same pixels; a process that draws the same figure again (a report rewritten with other
    options, a report kept in the store and written to a file) draws it once. Drawing is
    deterministic (seeded jitter, `thin_for_display`): a reused PNG is the one a new drawing
    would make. Whatever cannot be pickled is drawn each time."""
    try:
        key = hashlib.sha256(pickle.dumps((what, dpi, repr(sorted(matplotlib.rcParams.items()))),
                                          protocol=pickle.HIGHEST_PROTOCOL)).digest()
    except (pickle.PicklingError, TypeError, AttributeError):
        return png_base64(draw(), dpi=dpi)
    with _DRAWN_LOCK:
        if key in _DRAWN:
            _DRAWN.move_to_end(key)
            return _DRAWN[key]
    text = png_base64(draw(), dpi=dpi)
    with _DRAWN_LOCK:
        _DRAWN[key] = text
        while len(_DRAWN) > _DRAWN_KEPT:
            _DRAWN.popitem(last=False)
    return text


def empty_panel(ax, text: str) -> None:
    """A panel with nothing to draw: ``text`` in its middle, no ticks."""
    ax.text(0.5, 0.5, text, transform=ax.transAxes, ha="center", va="center", color="#57606a")
    ax.set_xticks([])
    ax.set_yticks([])


def thin_for_display(categories: np.ndarray, max_points: int, *, seed: int = 0) -> np.ndarray:
    """Indices of the repetitions to draw in a per-repetition scatter: every non-`good`
    repetition (first, warm-up, outliers are what the eye looks for) up to `max_points`, and an
    even random subset of the `good` ones for the rest. Sorted; deterministic for a seed.
    Display only: statistics always use every repetition."""
    categories = np.asarray(categories)
    n = categories.size
    if n <= max_points:
        return np.arange(n)
    rng = np.random.default_rng(seed)
    special = np.flatnonzero(categories != "good")
    if special.size >= max_points:
        return np.sort(rng.choice(special, max_points, replace=False))
    good = np.flatnonzero(categories == "good")
    chosen = rng.choice(good, max_points - special.size, replace=False)
    return np.sort(np.concatenate([special, chosen]))

