# SPDX-License-Identifier: BSD-3-Clause
"""Names from files shown literally in every output: one escape of control characters
(``mpimeter.controlchars``) for the terminal, the HTML report with its SVG, and the matplotlib
figures, where a ``$`` would also start mathtext (a malformed formula stops the drawing) and a
control character is a missing glyph with a warning."""

import warnings

import pytest
from click.testing import CliRunner
from data.synth import write_launch

from mpimeter.cli import main
from mpimeter.cli.output import terminal_text
from mpimeter.controlchars import escape_control_chars
from mpimeter.report import figures as fg
from mpimeter.report.html import esc

HOSTILE_OP = "bc\x07$\\frac$"  # a BEL, and a formula that mathtext cannot parse
HOSTILE_ALT = "alt\x1b]0;x\x07$\\sqrt{$"


def test_one_escape_for_the_terminal_the_html_and_the_figures():
    assert escape_control_chars("a\x07b\x1b[2J\u202e\nc\td") == "a\\x07b\\x1b[2J\\u202e\nc\td"
    assert escape_control_chars("a\nb\tc", one_line=True) == "a\\x0ab\\x09c"
    once = escape_control_chars(HOSTILE_ALT)
    assert escape_control_chars(once) == once and "\x07" not in once
    assert terminal_text(HOSTILE_ALT) == once
    assert esc("<b>\x07</b>") == "&lt;b&gt;\\x07&lt;/b&gt;"
    assert fg.inert_text("a\x07\tb $x$\n") == "a\\x07\\x09b \\$x\\$\n"


def _hostile_figure():
    fig = fg.new_figure(4.0, 3.0)
    with fg.styled():
        ax = fig.add_subplot()
        ax.set_title(HOSTILE_OP, loc="left")
        ax.plot([0, 1], [0, 1], label=HOSTILE_ALT)
        ax.set_yticks([0, 1], [HOSTILE_ALT, "plain"])
        ax.legend()
    return fig


def test_figure_texts_and_tick_labels_are_drawn_literally(tmp_path):
    fig = _hostile_figure()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a missing glyph is a UserWarning
        assert fg.png_base64(fig)
        fg.save_figure(fig, tmp_path / "f.svg")  # a second way out: escaped once only
    ax = fig.axes[0]
    assert ax.get_title(loc="left") == "bc\\x07\\$\\frac\\$"
    assert ax.get_legend().get_texts()[0].get_text() == fg.inert_text(HOSTILE_ALT)
    assert ax.get_yticklabels()[0].get_text() == fg.inert_text(HOSTILE_ALT)
    # what the SVG shows: the escapes as text, the $ without its backslash (matplotlib's \$)
    text = (tmp_path / "f.svg").read_text()
    assert "bc\\x07$\\frac$" in text and "\x07" not in text and "\x1b" not in text


@pytest.fixture(scope="module")
def hostile_campaign(tmp_path_factory):
    root = tmp_path_factory.mktemp("hostile")
    for i in range(2):
        write_launch(root / HOSTILE_ALT / "launches" / f"{i:03d}", seed=i, nrep=10, ops=(HOSTILE_OP,), sizes=(8,))
    return root


def _quiet_run(*args):
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message="Glyph")
        return CliRunner().invoke(main, [str(a) for a in args])


def test_the_fingerprint_command_draws_hostile_names(hostile_campaign, tmp_path):
    r = _quiet_run("fingerprint", hostile_campaign / HOSTILE_ALT, "--op", HOSTILE_OP, "--size", "8",
                   "-o", tmp_path / "fp.png")
    assert r.exit_code == 0, (r.output, r.exception)
    assert (tmp_path / "fp.png").read_bytes().startswith(b"\x89PNG")


def test_the_report_shows_hostile_names_escaped(hostile_campaign, tmp_path):
    r = _quiet_run("report", hostile_campaign / HOSTILE_ALT, "-o", tmp_path / "r.html")
    assert r.exit_code == 0, (r.output, r.exception)
    page = (tmp_path / "r.html").read_text()
    assert "\x07" not in page and "\x1b" not in page
    assert "bc\\x07$\\frac$" in page  # the operation's name, in the tables and the SVG fingerprint
