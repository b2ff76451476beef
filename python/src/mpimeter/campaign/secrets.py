"""Which environment variables hold secrets, and redacting their values wherever `mpimeter`
shows or stores one (campaign.json, the lines `mpimeter run` prints, and through campaign.json
the report). The rule is mpimeter-bench's, the one it applies to meta.json's environment: a name
is secret when it contains one of the words its `--describe` document lists
(`environment.secret_words`: PASS, PWD, TOK, AUTH, CRED, SECRET, KEY, ...), in any case; its value
is written as REDACTED. When no binary can say (none is built), every value is redacted. A secret
variant value is not stored at all: `--resume` takes it from its own environment
(campaign.resume).
"""

from __future__ import annotations

import re
import shlex
from functools import lru_cache

from mpimeter.campaign import describe as _describe
from mpimeter.campaign import launcher as _launcher

REDACTED = "<redacted>"
_EVERY_NAME = ("",)  # the empty word is in every name: with no rule known, redact every value


@lru_cache(maxsize=1)
def secret_words() -> tuple[str, ...]:
    """The secret words of the binaries built (the union, should they differ)."""
    bench_dir = _launcher.default_bench_dir()
    words: set[str] = set()
    for lib in _launcher.found_libraries(bench_dir):
        try:
            words |= set(_describe.describe(_launcher.bench_binary(bench_dir, lib)).environment
                         .get("secret_words", ()))
        except _describe.DescribeError:
            continue
    return tuple(sorted(words)) or _EVERY_NAME

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_RUN = re.compile(r"[^\s'\"]+")  # a word of a command line, up to a space or a quote


def is_secret_name(name: str) -> bool:
    upper = name.upper()
    return any(word in upper for word in secret_words())


def redact_env(env: dict[str, str]) -> dict[str, str]:
    return {k: REDACTED if is_secret_name(k) else v for k, v in env.items()}


def _redact_run(match: re.Match) -> str:
    """`NAME=VALUE` (also `tok=UCX_API_TOKEN=VALUE`): everything after the first secret name's
    `=` is redacted; a run already ending in REDACTED is kept."""
    run = match.group(0)
    if run.endswith("=" + REDACTED):
        return run
    parts = run.split("=")
    for i, part in enumerate(parts[:-1]):
        name = part.rsplit("-", 1)[-1]  # `--opt=NAME=...` and `-xNAME=...` name NAME
        if _IDENT.fullmatch(name) and is_secret_name(name):
            return "=".join(parts[:i + 1]) + "=" + REDACTED
    return run


def redact_text(text: str) -> str:
    """Every `NAME=VALUE` of a command line or a message whose NAME is secret, redacted."""
    return _RUN.sub(_redact_run, text) if "=" in text else text


def _redact_variant(value: str) -> str:
    """`NAME=ENV=VALUE ENV2=VALUE2` with secret values redacted (the settings of --variant)."""
    name, sep, settings = value.partition("=")
    if not sep:
        return value
    try:
        tokens = shlex.split(settings)
    except ValueError:  # not split: keep nothing that could be a value of a secret
        names = _IDENT.findall(settings)
        return f"{name}={REDACTED}" if any(map(is_secret_name, names)) else value
    shown = []
    for token in tokens:
        key, eq, _ = token.partition("=")
        shown.append(f"{key}={REDACTED}" if eq and is_secret_name(key) else shlex.quote(token))
    return f"{name}=" + " ".join(shown)


def redact_argv(argv: list[str]) -> list[str]:
    """A command line as it may be shown or stored: --variant settings and NAME=VALUE words with
    secret names redacted."""
    shown: list[str] = []
    variant_next = False
    for token in argv:
        if variant_next:
            shown.append(_redact_variant(token))
        elif token.startswith("--variant="):
            shown.append("--variant=" + _redact_variant(token[len("--variant="):]))
        else:
            shown.append(redact_text(token))
        variant_next = token == "--variant"
    return shown
