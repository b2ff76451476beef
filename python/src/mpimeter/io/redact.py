# SPDX-License-Identifier: BSD-3-Clause
"""Secrets: the one rule by which mpimeter redacts, wherever a value is shown or stored (campaign.json,
meta.json as Python reads or rewrites it, imported command lines, reports, the results store and
the site).

A value is secret by its *name* or by its *shape*:
- by name: the name holds one of the secret words, in any case. The words are mpimeter-bench's
  (``environment.secret_words`` of its ``--describe``, the rule it applies to meta.json's
  environment: PASS, TOK, KEY, SECRET, ...), read by io.bench_binaries from the binaries built
  (campaign.secrets for what mpimeter writes, :func:`reading_rule` for what it reads back), plus
  :data:`NAME_WORDS_BEYOND_THE_BINARY`, which the binary does not hold yet
  (Slurm's own token variable is SLURM_JWT; Hydra's HYDRA_BEARER); Python re-redacts what the
  binary wrote with these.
- by shape, whatever its name: a cloud access key (``AKIA…``), a token with a known prefix
  (``hf_``, ``ghp_``, ``github_pat_``, ``xox?-``, ``glpat-``, ``sk-``, ``AIza``, ``npm_``,
  ``pypi-``), a JSON Web Token (``eyJ….eyJ….…``), or a long high-entropy word (at least
  :data:`ENTROPY_MIN_LENGTH` characters of a token alphabet mixing upper case, lower case and
  digits, at least :data:`ENTROPY_MIN_BITS` bits of entropy per character: random keys have
  about 5, hex digests (sha256, ids) at most 4 and are kept).
In a command line or a message, values follow their names: a secret name's value is redacted
whole, as the shell reads it (quotes and all: ``NAME='…'``, ``NAME="… x"``, ``NAME=a'b c'``), in
``NAME=VALUE`` (also inside a word: ``--export=ALL,HF_TOKEN=…``), ``--secret-flag=VALUE``,
``--secret-flag VALUE`` and ``Name: VALUE`` (a header or a log line: the rest of the line, or of
the quoted string the header began in; ``Authorization: Bearer …`` keeps the scheme word). A URL's
password (``scheme://user:PASSWORD@host``: user and host kept) and the token after ``Bearer`` are
redacted whatever surrounds them. An unclosed quote runs to the end of its line. Every pattern
starts at a word's boundary and never looks back over what it scanned, so that a hostile line
(megabytes of one character) costs time in proportion to its length.
The rule is broad on purpose (as the binary's): redacting a harmless value costs little, leaking a
credential a lot.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping

from mpimeter.io import bench_binaries as _bench_binaries

REDACTED = "<redacted>"
# also what an HTTP header or a shell line names in full, for a machine where no binary can say
NAME_WORDS_BEYOND_THE_BINARY = ("JWT", "BEARER", "SESSION_ID", "SESSIONID", "APIKEY", "AUTHORIZATION", "PASSWORD",
                                "PASSWD", "TOKEN", "SECRET")
ENTROPY_MIN_LENGTH = 32
ENTROPY_MIN_BITS = 4.0

_SHAPES = re.compile(
    r"(?<![A-Za-z0-9])(?:"
    r"(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA|A3T[A-Z0-9])[A-Z0-9]{16}"  # cloud access key ids
    r"|hf_[A-Za-z0-9]{16,}"  # Hugging Face
    r"|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}"  # GitHub
    r"|xox[abprse]-[A-Za-z0-9-]{10,}"  # Slack
    r"|glpat-[A-Za-z0-9_-]{16,}"  # GitLab
    r"|sk-[A-Za-z0-9_-]{20,}"  # API secret keys
    r"|AIza[0-9A-Za-z_-]{30,}"  # Google API keys
    r"|npm_[A-Za-z0-9]{30,}|pypi-[A-Za-z0-9_-]{16,}"  # package registries
    r")"
    # JSON Web Tokens: from the start of a run of their alphabet only (`eyJa_eyJa_…` would
    # otherwise be scanned again from every `eyJ`)
    r"|(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*")
# What every match of _SHAPES holds (the start of each alternative): a text without any is
# skipped by one search of their alternation of literals (the regular expression engine jumps
# to the characters they begin with; one pass, where a `in` per start made nineteen) instead of
# being tried by the pattern at each of its positions
_SHAPE_STARTS = ("AKIA", "ASIA", "AGPA", "AIDA", "AROA", "ANPA", "ANVA", "AIPA", "A3T", "hf_", "gh", "github_pat_",
                 "xox", "glpat-", "sk-", "AIza", "npm_", "pypi-", "eyJ")
_SHAPE_START = re.compile("|".join(re.escape(start) for start in _SHAPE_STARTS))
_WORD = re.compile(r"[A-Za-z0-9+/_=.-]{%d,}" % ENTROPY_MIN_LENGTH)
_FLAG = re.compile(r"--?([A-Za-z][A-Za-z0-9_-]*)")
# a word as the shell reads it: plain characters, backslash escapes, '…' and "…" (an unclosed
# quote runs to the end of its line); each alternative starts with its own character, so a word
# is read once, left to right
_SHELL_WORD = re.compile(r"""(?:[^\s'"\\]|\\.|'[^'\n]*'?|"(?:[^"\\\n]|\\.)*"?)+""")
# The forms whose value follows a name, each with {secret}: a lookahead that the whole name (the
# group, which always runs to the last character of its alphabet) holds a secret word (see
# Rule._secret_form), looked for once the name's first character is there. `NAME=` (the value
# follows); the name starts at a word boundary:
_ASSIGN = r"(?<![A-Za-z0-9_])(?=[A-Za-z0-9_])(?={secret})([A-Za-z0-9_]+)="
# `Name: ` or `"name": ` (a header, a log or JSON line; not a URL's `scheme://`)
_COLON = r"(?<![A-Za-z0-9_-])(?=[A-Za-z0-9_])(?={secret})([A-Za-z0-9_][A-Za-z0-9_-]*)(['\"]?)[ \t]*:(?!//)[ \t]*"
_AUTH_SCHEME = re.compile(r"(?:Bearer|Basic|Digest|Token|Negotiate|NTLM|ApiKey)[ \t]+", re.IGNORECASE)
# `--flag VALUE` (the flag possibly quoted, at the start of a word)
_FLAG_SPACE = r"(?<![^\s'\"])--?(?=[A-Za-z])(?={secret})([A-Za-z][A-Za-z0-9_-]*)['\"]?\s+"
# scheme://user:PASSWORD@host: the password runs to the authority's last `@`
_URL_PASSWORD = re.compile(r"(?<![A-Za-z0-9+.-])([A-Za-z][A-Za-z0-9+.-]*://[^\s/?#'\"@:]*:)([^\s/?#'\"]*)@")
_BEARER = re.compile(r"(?<![A-Za-z0-9_])(Bearer[ \t]+)[A-Za-z0-9._~+/-]+=*", re.IGNORECASE)


_UPPER, _LOWER, _DIGIT = re.compile("[A-Z]"), re.compile("[a-z]"), re.compile("[0-9]")


def _high_entropy(word: str) -> bool:
    """``word``: a part of a _WORD match (ASCII), whose upper case, lower case and digits these
    three classes are."""
    if len(word) < ENTROPY_MIN_LENGTH:
        return False
    if not (_UPPER.search(word) and _LOWER.search(word) and _DIGIT.search(word)):
        return False
    counts = Counter(word)
    bits = -sum(n / len(word) * math.log2(n / len(word)) for n in counts.values())
    return bits >= ENTROPY_MIN_BITS


def _entropy_spans(text: str) -> list[tuple[int, int]]:
    spans = []
    for m in _WORD.finditer(text):
        # a path's components are judged one by one (a folder of a long name is not a key)
        start = m.start()
        for part in re.split(r"(/)", m.group(0)):
            if part != "/" and _high_entropy(part):
                spans.append((start, start + len(part)))
            start += len(part)
    return spans


def _may_have_shape(text: str) -> bool:
    return _SHAPE_START.search(text) is not None


def has_secret_shape(value: str) -> bool:
    return (_may_have_shape(value) and bool(_SHAPES.search(value))) or bool(_entropy_spans(value))


def redact_shapes(text: str) -> str:
    """Every secret-shaped part of ``text`` replaced by REDACTED."""
    if _may_have_shape(text):
        text = _SHAPES.sub(REDACTED, text)
    for start, end in reversed(_entropy_spans(text)):
        text = text[:start] + REDACTED + text[end:]
    return text


_QUOTING = re.compile(r"['\"\\\n]")


class _LineEnds:
    """Where the line holding a position of ``text`` ends. Asked at increasing positions, as the
    scans here ask, each newline is searched for once: a line of a MiB with a secret name every
    few characters costs its length, not its length for every name."""

    def __init__(self, text: str) -> None:
        self.text, self.searched_from, self.end = text, 0, -1

    def at(self, start: int) -> int:
        """The index of the first newline at or after ``start``, or the text's length."""
        if not self.searched_from <= start <= self.end:
            found = self.text.find("\n", start)
            self.searched_from, self.end = start, len(self.text) if found < 0 else found
        return self.end

    def find(self, char: str, start: int) -> int:
        """The index of ``char`` from ``start`` on its line; the line's end when it is not there."""
        line_end = self.at(start)
        found = self.text.find(char, start, line_end)
        return found if found >= 0 else line_end


class _QuoteState:
    """Which quote is open at a position of ``text``, as the shell reads it (per line; an unclosed
    quote ends with its line). Asked at increasing positions, each character is read once."""

    def __init__(self, text: str) -> None:
        self.text, self.pos, self.open = text, 0, ""

    def at(self, target: int) -> str:
        """The quote character open at ``target`` ('' when none)."""
        text = self.text
        while self.pos < target:
            if self.open:
                close = text.find(self.open, self.pos, target)
                newline = text.find("\n", self.pos, target)
                if close < 0 and newline < 0:
                    self.pos = target
                    break
                ends = min(i for i in (close, newline) if i >= 0)
                self.pos, self.open = ends + 1, ""
                continue
            m = _QUOTING.search(text, self.pos, target)
            if m is None:
                self.pos = target
                break
            char = m.group(0)
            self.pos = m.end() + (1 if char == "\\" else 0)  # an escaped character is plain
            self.open = char if char in "'\"" else ""
        return self.open


class Rule:
    """The rule with the secret words of a binary (``words``; an empty word redacts every
    name's value, for when no binary can say)."""

    def __init__(self, words: Iterable[str]) -> None:
        self.words = tuple(dict.fromkeys([*(w.upper() for w in words), *NAME_WORDS_BEYOND_THE_BINARY]))
        self._assign = self._secret_form(_ASSIGN, "A-Za-z0-9_")
        self._colon = self._secret_form(_COLON, "A-Za-z0-9_-")
        self._flag_space = self._secret_form(_FLAG_SPACE, "A-Za-z0-9_-")
        self._word_in_marker = any(word in REDACTED.upper() for word in self.words)

    def _secret_form(self, form: str, name_chars: str) -> re.Pattern:
        """``form`` matching only where its name is secret (:meth:`is_secret_name`): the search
        skips every other name in C, not one Python step per name (a hostile line of a MiB holds
        half a million of them). The lookahead looks for a word inside the name's run of
        ``name_chars`` (a word with another character is never inside such a name), case
        folded in ASCII only, as ``str.upper`` folds these names; once found it is not
        searched again, so a name costs its length times the words at most."""
        inside = [w for w in self.words if re.fullmatch(f"[{name_chars}]*", w)]
        words = "|".join(re.escape(w) for w in sorted(inside, key=len, reverse=True))
        return re.compile(form.format(secret=f"[{name_chars}]*?(?:{words})" if inside else "(?!)"),
                          re.IGNORECASE | re.ASCII)

    def _names_a_secret(self, text: str) -> bool:
        """Whether the forms whose value follows a secret name can match in ``text``: each needs
        a secret word of ASCII name characters in it, folded in ASCII (which ``str.upper`` folds
        alike), inside ``text`` or inside a REDACTED that a form before put there (its ``<`` and
        ``>`` end a name). Without one, ``text`` is skipped in C, not tried by three patterns at
        each of its positions."""
        if self._word_in_marker:
            return True
        upper = text.upper()
        return any(word in upper for word in self.words)

    def is_secret_name(self, name: str) -> bool:
        upper = name.upper()
        return any(word in upper for word in self.words)

    def is_secret(self, name: str, value: str) -> bool:
        """Secret by its name, its shape, or a secret it holds (a URL's password, a token):
        such a value is redacted whole, never shown in part."""
        return self.is_secret_name(name) or has_secret_shape(value) or self.text(value, word=True) != value

    def env(self, env: Mapping[str, str]) -> dict[str, str]:
        """Each value REDACTED when its name or its shape is secret, or when it holds a secret."""
        return {k: REDACTED if isinstance(v, str) and v != REDACTED and self.is_secret(k, v) else v
                for k, v in env.items()}

    def facts(self, facts: Mapping[str, str]) -> dict[str, str]:
        """Name: value facts (a tool's header): a secret name's or shape's value REDACTED, every
        other value as :meth:`text` (it may be a command line)."""
        return {k: REDACTED if isinstance(v, str) and v != REDACTED and self.is_secret(k, v)
                else self.text(v) for k, v in facts.items()}

    def text(self, text: str, *, word: bool = False) -> str:
        """A command line or message: every secret value that follows a name (``NAME=VALUE``,
        ``--secret-flag VALUE``, ``Name: VALUE``), a URL's password, a ``Bearer`` token and
        every secret-shaped part, redacted. ``word``: ``text`` is one word of an argv (the shell
        has removed its quotes), so a secret name's ``=`` value runs to its end."""
        if not isinstance(text, str) or not text:
            return text
        if self._names_a_secret(text):
            out = self._assignments(text, word) if "=" in text else text
            out = self._colon_values(out) if ":" in out else out
            out = self._flag_values(out) if "-" in out else out
        else:
            out = text
        if "://" in out:
            out = _URL_PASSWORD.sub(lambda m: m.group(0) if m.group(2) == REDACTED
                                    else m.group(1) + REDACTED + "@", out)
        if "bearer" in out.lower():  # _BEARER's word, as its IGNORECASE folds it (letters without other forms)
            out = _BEARER.sub(lambda m: m.group(1) + REDACTED, out)
        return redact_shapes(out)

    def _value_end(self, text: str, start: int) -> int:
        """Where the shell word starting at ``start`` ends (``start`` when there is none)."""
        m = _SHELL_WORD.match(text, start)
        return m.end() if m else start

    @staticmethod
    def _replaced(text: str, spans: list[tuple[int, int]]) -> str:
        """``text`` with each (start, end) span (in order, apart) REDACTED; spans that are
        empty or already REDACTED are kept."""
        pieces, at = [], 0
        for start, end in spans:
            if end > start and text[start:end] != REDACTED:
                pieces += [text[at:start], REDACTED]
                at = end
        return "".join(pieces) + text[at:] if pieces else text

    def _assignments(self, text: str, word: bool) -> str:
        """`NAME=VALUE` anywhere (`--export=ALL,HF_TOKEN=VALUE`, `--token=VALUE`, `-xNAME=VALUE`):
        the value after a secret name's `=`, as the shell reads it (a word or all of ``text``)."""
        spans, pos = [], 0
        quotes, lines = _QuoteState(text), _LineEnds(text)
        while (m := self._assign.search(text, pos)) is not None:  # a secret name's `=`
            inside = quotes.at(m.start())  # `'NAME=VALUE'`: the value ends where its quote does
            if word:
                end = len(text)
            elif inside:
                end = lines.find(inside, m.end())
            else:
                end = self._value_end(text, m.end())
            spans.append((m.end(), end))
            pos = max(end, m.end())
        return self._replaced(text, spans)

    def _colon_values(self, text: str) -> str:
        """`Name: VALUE` (a header, a log or JSON line) with a secret name: a quoted value whole,
        else the rest of the line, or of the quoted string the header began in (`-H
        "Authorization: Bearer …"`); an authorization scheme word (Bearer, Basic, …) is kept."""
        spans, pos = [], 0
        lines = _LineEnds(text)
        while (m := self._colon.search(text, pos)) is not None:  # a secret name's `:`
            pos = m.end()
            start = m.end()
            scheme = _AUTH_SCHEME.match(text, start)
            start = scheme.end() if scheme else start
            if text.startswith(REDACTED, start):  # redacted before: the rule again changes nothing
                continue
            line_end = lines.at(start)
            if start < len(text) and text[start] in "'\"":
                end = self._value_end(text, start)
            else:
                opener = text[m.start() - 1] if m.start() > 0 and not m.group(2) else ""
                close = text.find(opener, start, line_end) if opener in ("'", '"') else -1
                end = close if close >= 0 else line_end
            end = min(end, line_end) if end > start else start
            spans.append((start, end))
            pos = max(pos, end)
        return self._replaced(text, spans)

    def _flag_values(self, text: str) -> str:
        """The word after a secret flag (`--password VALUE`, `'--token' 'a b'`), unless it is
        another flag."""
        spans, pos = [], 0
        while (m := self._flag_space.search(text, pos)) is not None:  # a secret flag
            pos = m.end()
            if not text.startswith("-", m.end()):
                end = self._value_end(text, m.end())
                spans.append((m.end(), end))
                pos = max(pos, end)
        return self._replaced(text, spans)

    def argv(self, argv: Iterable[str]) -> list[str]:
        """A command line as a list of words: each word as :meth:`text` (a secret name's value
        to the word's end: `NAME=two words` is one word once the shell removed its quotes), and
        the word after a secret flag redacted."""
        shown: list[str] = []
        previous = ""
        for token in argv:
            flag = _FLAG.fullmatch(previous)
            if flag and self.is_secret_name(flag.group(1)) and not token.startswith("-"):
                shown.append(REDACTED)
            else:
                shown.append(self.text(token, word=True))
            previous = token
        return shown

    def any_json(self, value: object) -> object:
        """A JSON value with every string as :meth:`text` and every object's values redacted by
        their key's name (for what a file read back may hold)."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list):
            return [self.any_json(v) for v in value]
        if isinstance(value, dict):
            return {k: (REDACTED if isinstance(v, str) and v != REDACTED and self.is_secret(str(k), v)
                        else self.any_json(v)) for k, v in value.items()}
        return value


# What the binary already applied to what it wrote: Python adds its own words and the shapes.
AFTER_THE_BINARY = Rule(())


def reading_rule() -> Rule:
    """The rule for what Python reads back (meta.json, imported files): the words of the binaries
    built when there are (their --describe, io.bench_binaries), else the words beyond the
    binary's alone; never "every value" (a machine without a binary still shows what it reads)."""
    # the binary's description is the one source of the words; asked at the first rule needed
    # (it runs the built binaries once), not at import
    return _reading_rule(tuple(w for w in _bench_binaries.built_secret_words() if w))


_READING: dict[tuple[str, ...], Rule] = {}


def _reading_rule(words: tuple[str, ...]) -> Rule:
    if words not in _READING:
        _READING[words] = Rule(words)
    return _READING[words]


def campaign_record(obj: dict) -> dict:
    """campaign.json as read back, with the rule applied again to what shows a command or an
    environment (a file written by an older mpimeter, or by hand, may hold a secret in clear):
    ``command``, ``launcher``, ``alternatives[].env`` and ``launch_template``, the ``argv`` of
    ``sessions`` and ``launches``, and what a launch's launcher or bench said: ``launches[]``'s
    and their ``previous_attempts[]``'s ``stderr_tail`` and ``reason``. Other keys are kept as
    they are."""
    rule = reading_rule()
    out = dict(obj)
    for key in ("command", "launcher"):
        if isinstance(out.get(key), str):
            out[key] = rule.text(out[key])
    if isinstance(out.get("alternatives"), list):
        out["alternatives"] = [
            {**a, **({"env": rule.env({k: v for k, v in a["env"].items()})} if isinstance(a.get("env"), dict) else {}),
             **({"launch_template": rule.text(a["launch_template"])} if isinstance(a.get("launch_template"), str)
                else {})} if isinstance(a, dict) else a
            for a in out["alternatives"]]
    for key in ("sessions", "launches"):
        if isinstance(out.get(key), list):
            out[key] = [{**x, "argv": rule.argv(x["argv"])}
                        if isinstance(x, dict) and isinstance(x.get("argv"), list)
                        and all(isinstance(w, str) for w in x["argv"]) else x for x in out[key]]
    if isinstance(out.get("launches"), list):
        out["launches"] = [_said(rule, x) for x in out["launches"]]
    return out


def _said(rule: Rule, launch: object) -> object:
    """A launch record (or a previous attempt's) with its stderr tail and reason redacted."""
    if not isinstance(launch, dict):
        return launch
    out = {k: rule.text(v) if k in ("stderr_tail", "reason") and isinstance(v, str) else v
           for k, v in launch.items()}
    if isinstance(out.get("previous_attempts"), list):
        out["previous_attempts"] = [_said(rule, a) for a in out["previous_attempts"]]
    return out


def meta_document(doc: dict) -> dict:
    """A meta.json document as stored elsewhere (the results store keeps it whole): the rule
    applied to ``environment``, ``argv``, ``origin.command`` and ``origin.settings``."""
    rule = reading_rule()
    out = dict(doc)
    if isinstance(out.get("environment"), dict):
        out["environment"] = rule.env(out["environment"])
    if isinstance(out.get("argv"), list) and all(isinstance(a, str) for a in out["argv"]):
        out["argv"] = rule.argv(out["argv"])
    origin = out.get("origin")
    if isinstance(origin, dict):
        origin = dict(origin)
        if isinstance(origin.get("command"), str):
            origin["command"] = rule.text(origin["command"])
        if isinstance(origin.get("settings"), dict) and all(isinstance(v, str) for v in origin["settings"].values()):
            origin["settings"] = rule.facts(origin["settings"])
        out["origin"] = origin
    return out
