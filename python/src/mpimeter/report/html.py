# SPDX-License-Identifier: BSD-3-Clause
"""Small HTML building blocks for the report: every text goes through `esc`
(whatever a user gave — host names, environment values, argv — is escaped), and the page carries
a Content-Security-Policy that forbids every network load, so a report cannot fetch anything
even if a value slipped through.

Strings, not Jinja2 templates (bench/report_templates.py): rendering the page
shell through a template costs nothing that matters (tens of ms beside a report's figures, which
take a minute under load), but the pages are assembled from data-driven fragments (tables of
linked cells, SVG charts) that a template would receive as Markup anyway: one escaping rule
(`esc` on every value, pinned by the security tests) stays simpler and safer than two, and the
default install needs no template engine."""

from __future__ import annotations

import html
import json
from collections.abc import Iterable, Sequence

from mpimeter.controlchars import escape_control_chars

# No network: images only from data: URIs, styles only inline, no scripts at all.
CSP = ("default-src 'none'; img-src data:; style-src 'unsafe-inline'; "
       "base-uri 'none'; form-action 'none'")

CSS = """
:root { --fg:#1b1f24; --muted:#57606a; --line:#d0d7de; --bg:#ffffff; --soft:#f6f8fa;
        --met:#1a7f37; --notmet:#cf222e; --na:#6e7781; --warn:#9a6700; }
* { box-sizing: border-box; }
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif;
       color: var(--fg); background: var(--bg); margin: 0; }
main { max-width: 1200px; margin: 0 auto; padding: 1.5rem 2rem 4rem; }
h1 { font-size: 1.7rem; margin: .2rem 0 .4rem; }
h2 { font-size: 1.35rem; border-bottom: 1px solid var(--line); padding-bottom: .25rem;
     margin-top: 2.4rem; }
h3 { font-size: 1.12rem; margin-top: 1.6rem; }
p.lead { color: var(--muted); margin-top: 0; }
nav.toc { background: var(--soft); border: 1px solid var(--line); border-radius: 6px;
          padding: .6rem 1rem; }
nav.toc a { margin-right: 1.1rem; white-space: nowrap; }
a { color: #0969da; text-decoration: none; } a:hover { text-decoration: underline; }
table { border-collapse: collapse; margin: .6rem 0 1rem; font-size: .88rem; }
th, td { border: 1px solid var(--line); padding: .22rem .5rem; text-align: left;
         vertical-align: top; }
th { background: var(--soft); }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
code, pre { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, monospace; font-size: .84rem; }
pre { background: var(--soft); border: 1px solid var(--line); padding: .6rem; overflow: auto;
      max-height: 28rem; white-space: pre-wrap; word-break: break-word; }
img.figure { max-width: 100%; height: auto; display: block; margin: .4rem 0 .2rem;
             border: 1px solid var(--line); }
figcaption, .caption { color: var(--muted); font-size: .86rem; margin-bottom: 1rem; }
details { border: 1px solid var(--line); border-radius: 6px; margin: .35rem 0; }
details > summary { cursor: pointer; padding: .35rem .7rem; background: var(--soft); }
details[open] > summary { border-bottom: 1px solid var(--line); }
details > .body { padding: .4rem .8rem; }
.badge { display: inline-block; border-radius: 1rem; padding: 0 .55rem; font-size: .8rem;
         font-weight: 600; color: #fff; }
.met { background: var(--met); } .notmet { background: var(--notmet); } .na { background: var(--na); }
.warning { border-left: 4px solid var(--warn); background: #fff8c5; padding: .4rem .8rem;
           margin: .45rem 0; }
.warning .code { font-family: ui-monospace, monospace; font-size: .8rem; color: var(--muted); }
.ok { border-left: 4px solid var(--met); background: #dafbe1; padding: .4rem .8rem; }
.stars { font-weight: 700; color: #8250df; }
dl.kv { display: grid; grid-template-columns: max-content 1fr; gap: .15rem 1rem; margin: .5rem 0; }
dl.kv dt { color: var(--muted); } dl.kv dd { margin: 0; }
.legend { font-size: .84rem; color: var(--muted); margin: .1rem 0 .8rem; }
.legend-item { margin-right: 1.1rem; white-space: nowrap; } .legend-item svg { vertical-align: middle; }
div.chart { max-width: 820px; }
"""


def esc(value: object) -> str:
    """Text for HTML and its inline SVG: any value, converted with str(), with & < > " ' escaped
    and control characters shown as ``\\xNN`` (``mpimeter.controlchars``, as in the terminal and the
    figures: a BEL in a name would be an invisible character in the page)."""
    return html.escape(escape_control_chars("" if value is None else str(value)), quote=True)


def tag(name: str, body: str = "", **attrs: object) -> str:
    """<name attrs>body</name>; `body` must already be HTML. `class_` gives class."""
    parts = [name]
    for key, value in attrs.items():
        if value is None or value is False:
            continue
        key = key.rstrip("_").replace("_", "-")
        parts.append(key if value is True else f'{key}="{esc(value)}"')
    return f"<{' '.join(parts)}>{body}</{name}>"


def table(header: Sequence[str], rows: Iterable[Sequence[str]], *,
          numeric: Sequence[bool] | None = None, raw: bool = False) -> str:
    """A table; cells are escaped unless `raw` (then they must be HTML already)."""
    numeric = numeric or [False] * len(header)
    head = "".join(tag("th", esc(h)) for h in header)
    body = []
    for row in rows:
        cells = []
        for cell, is_num in zip(row, numeric):
            text = cell if raw else esc(cell)
            cells.append(tag("td", text, class_="num" if is_num else None))
        body.append(tag("tr", "".join(cells)))
    return tag("table", tag("thead", tag("tr", head)) + tag("tbody", "".join(body)))


def key_values(pairs: Iterable[tuple[str, object]]) -> str:
    return tag("dl", "".join(tag("dt", esc(k)) + tag("dd", esc(v)) for k, v in pairs),
               class_="kv")


def details(summary_html: str, body_html: str, *, open_: bool = False, id_: str | None = None) -> str:
    return tag("details", tag("summary", summary_html) + tag("div", body_html, class_="body"),
               open=open_, id=id_)


def image(png_base64: str, alt: str, *, width: int | None = None) -> str:
    # The base64 alphabet needs no escaping; alt is escaped.
    size = f' width="{width}"' if width else ""
    return (f'<img class="figure" alt="{esc(alt)}"{size} loading="lazy" '
            f'src="data:image/png;base64,{png_base64}">')


def json_block(value: object) -> str:
    """A JSON value shown as escaped, pretty-printed text."""
    return tag("pre", esc(json.dumps(value, indent=1, ensure_ascii=False, default=str)))


def section(id_: str, title: str, body: str) -> str:
    return tag("section", tag("h2", esc(title)) + body, id=id_)


# How every page mpimeter writes begins: the first thing in its head is the policy that forbids
# scripts and every network load, so a browser enforces it whatever comes after.
PAGE_HEAD = ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
             f"<meta http-equiv=\"Content-Security-Policy\" content=\"{esc(CSP)}\">")


def page(title: str, body: str) -> str:
    return (PAGE_HEAD + "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{esc(title)}</title><style>{CSS}</style></head>"
            f"<body><main>{body}</main></body></html>\n")


def is_mpimeter_page(data: bytes) -> bool:
    """Does ``data`` begin as every page mpimeter writes does (PAGE_HEAD)? Then a browser
    applies the no-script, no-network policy to it, whatever else it holds."""
    return data.startswith(PAGE_HEAD.encode("utf-8"))
