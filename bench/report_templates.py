# SPDX-License-Identifier: BSD-3-Clause
"""Would Jinja2 templates cost the report's speed? Times, on one campaign
(e.g. a `make demo` campaign): the whole report (figures and HTML, report_text), the page shell
around the report's body as strings (report.html.page) and as a Jinja2 template with autoescape
rendering the same bytes, and importing Jinja2 with a first template in a fresh process. Prints
one JSON object; not a test (timings grow with the load, recorded beside them).

    .venv/bin/python bench/report_templates.py CAMPAIGN [--runs 3]

Needs jinja2 importable (the [reframe] extra installs it).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("campaign")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()

    import jinja2
    from markupsafe import Markup

    from mpimeter import analysis
    from mpimeter.cli.report_view import report_text
    from mpimeter.report import html as h

    load = os.getloadavg()[0]
    result = analysis.analyze(analysis.load_campaign(args.campaign))
    whole = []
    for _ in range(args.runs):
        t = time.perf_counter()
        text, _ = report_text(result, hypothesis="two-sided", title=None, max_points=1500,
                              sources=[args.campaign])
        whole.append(time.perf_counter() - t)
    body = text[text.index("<main>") + len("<main>"):text.rindex("</main>")]
    title = "mpimeter report"
    shell = jinja2.Environment(autoescape=True, keep_trailing_newline=True).from_string(
        '{{ head }}<meta name="viewport" content="width=device-width, initial-scale=1">'
        "<title>{{ title }}</title><style>{{ css }}</style></head><body><main>{{ body }}</main>"
        "</body></html>\n")
    n = 100
    t = time.perf_counter()
    for _ in range(n):
        by_strings = h.page(title, body)
    strings_s = (time.perf_counter() - t) / n
    t = time.perf_counter()
    for _ in range(n):
        by_template = shell.render(head=Markup(h.PAGE_HEAD), title=title, css=Markup(h.CSS),
                                   body=Markup(body))
    template_s = (time.perf_counter() - t) / n
    assert by_strings == by_template, "the template must render the same page"
    cold = []
    for _ in range(5):
        out = subprocess.run([sys.executable, "-c",
                              "import time; t = time.perf_counter(); import jinja2; "
                              "e = jinja2.Environment(autoescape=True); "
                              "e.from_string('<p>{{ x }}</p>' * 20).render(x='<a>'); "
                              "print(time.perf_counter() - t)"], capture_output=True, text=True,
                             check=True)
        cold.append(float(out.stdout))
    print(json.dumps({
        "campaign": args.campaign, "load_at_start": round(load, 1), "report_mib": round(len(text) / 2**20, 2),
        "report_s": {"median": round(statistics.median(whole), 2), "runs": [round(x, 2) for x in whole]},
        "page_shell_ms": {"strings": round(strings_s * 1e3, 2), "jinja2": round(template_s * 1e3, 2)},
        "jinja2_import_and_first_template_ms": {"median": round(statistics.median(cold) * 1e3),
                                                "runs": [round(x * 1e3) for x in cold]},
    }, indent=1))


if __name__ == "__main__":
    main()
