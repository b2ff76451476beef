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
On a command line, ``NAME=VALUE`` (also inside a word: ``--export=ALL,HF_TOKEN=…``),
``--secret-flag=VALUE`` and ``--secret-flag VALUE`` are redacted too.
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
NAME_WORDS_BEYOND_THE_BINARY = ("JWT", "BEARER", "SESSION_ID", "SESSIONID", "APIKEY")
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
    r"|eyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*"  # JSON Web Tokens
    r")")
_WORD = re.compile(r"[A-Za-z0-9+/_=.-]{%d,}" % ENTROPY_MIN_LENGTH)
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_RUN = re.compile(r"[^\s'\"]+")  # a word of a command line, up to a space or a quote
_FLAG = re.compile(r"--?([A-Za-z][A-Za-z0-9_-]*)")


def _high_entropy(word: str) -> bool:
    if len(word) < ENTROPY_MIN_LENGTH:
        return False
    if not (any(c.isupper() for c in word) and any(c.islower() for c in word)
            and any(c.isdigit() for c in word)):
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


def has_secret_shape(value: str) -> bool:
    return bool(_SHAPES.search(value)) or bool(_entropy_spans(value))


def redact_shapes(text: str) -> str:
    """Every secret-shaped part of ``text`` replaced by REDACTED."""
    text = _SHAPES.sub(REDACTED, text)
    for start, end in reversed(_entropy_spans(text)):
        text = text[:start] + REDACTED + text[end:]
    return text


class Rule:
    """The rule with the secret words of a binary (``words``; an empty word redacts every
    name's value, for when no binary can say)."""

    def __init__(self, words: Iterable[str]) -> None:
        self.words = tuple(dict.fromkeys([*(w.upper() for w in words), *NAME_WORDS_BEYOND_THE_BINARY]))

    def is_secret_name(self, name: str) -> bool:
        upper = name.upper()
        return any(word in upper for word in self.words)

    def is_secret(self, name: str, value: str) -> bool:
        return self.is_secret_name(name) or has_secret_shape(value)

    def env(self, env: Mapping[str, str]) -> dict[str, str]:
        """Each value REDACTED when its name or its shape is secret."""
        return {k: REDACTED if isinstance(v, str) and v != REDACTED and self.is_secret(k, v) else v
                for k, v in env.items()}

    def facts(self, facts: Mapping[str, str]) -> dict[str, str]:
        """Name: value facts (a tool's header): a secret name's or shape's value REDACTED, every
        other value as :meth:`text` (it may be a command line)."""
        return {k: REDACTED if isinstance(v, str) and v != REDACTED and self.is_secret(k, v)
                else self.text(v) for k, v in facts.items()}

    def _run(self, match: re.Match) -> str:
        """`NAME=VALUE` inside a word (`--export=ALL,HF_TOKEN=VALUE`, `--token=VALUE`,
        `-xNAME=VALUE`): everything after the first secret name's `=` is redacted."""
        run = match.group(0)
        if run.endswith("=" + REDACTED):
            return run
        parts = run.split("=")
        for i, part in enumerate(parts[:-1]):
            name = re.split(r"[^A-Za-z0-9_]", part)[-1]
            if _IDENT.fullmatch(name) and self.is_secret_name(name):
                return "=".join(parts[:i + 1]) + "=" + REDACTED
        return run

    def text(self, text: str) -> str:
        """A command line or message: secret `NAME=VALUE`s, the word after a secret flag
        (`--password VALUE`) and every secret-shaped part, redacted."""
        if not isinstance(text, str) or not text:
            return text
        out = _RUN.sub(self._run, text) if "=" in text else text
        out = self._flag_values(out)
        return redact_shapes(out)

    def _flag_values(self, text: str) -> str:
        pieces = re.split(r"(\s+)", text)
        for i in range(0, len(pieces) - 2, 2):
            flag = _FLAG.fullmatch(pieces[i].strip("'\""))
            nxt = pieces[i + 2]
            if flag and self.is_secret_name(flag.group(1)) and nxt and not nxt.startswith("-") \
                    and nxt != REDACTED:
                pieces[i + 2] = REDACTED
        return "".join(pieces)

    def argv(self, argv: Iterable[str]) -> list[str]:
        """A command line as a list of words: each word as :meth:`text`, and the word after a
        secret flag redacted."""
        shown: list[str] = []
        previous = ""
        for token in argv:
            flag = _FLAG.fullmatch(previous)
            if flag and self.is_secret_name(flag.group(1)) and not token.startswith("-"):
                shown.append(REDACTED)
            else:
                shown.append(self.text(token))
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
    ``sessions`` and ``launches``. Other keys are kept as they are."""
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
