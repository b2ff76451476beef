# SPDX-License-Identifier: BSD-3-Clause
"""Which environment variables hold secrets, and redacting their values wherever `mpimeter`
shows or stores one (campaign.json, the lines `mpimeter run` prints, and through campaign.json
the report). The rule is mpimeter-bench's, the one it applies to meta.json's environment: a name
is secret when it contains one of the words its `--describe` document lists
(`environment.secret_words`: PASS, PWD, TOK, AUTH, CRED, SECRET, KEY, ...), in any case; its value
is written as REDACTED. A campaign asks the binaries of the bench dir it runs from and records
the words in campaign.json (campaign.state), so that `--resume` redacts by the same words
whatever binaries this process would find by default; each function takes them as ``words``
(None: the binaries of the default bench dir). When no binary can say, every value is redacted.
A secret variant value is not stored at all: `--resume` takes it from its own environment
(campaign.resume). Values are also secret by their shape (cloud keys, prefixed tokens, JWTs,
long high-entropy words): the rule itself is io.redact's, the one implementation.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

from mpimeter.io import bench_binaries as _bench_binaries
from mpimeter.io import redact as _redact

REDACTED = _redact.REDACTED
_EVERY_NAME = ("",)  # the empty word is in every name: with no rule known, redact every value


Words = Iterable[str] | None  # the secret words to redact by; None: the default bench dir's


def secret_words(bench_dir: str | Path | None = None) -> tuple[str, ...]:
    """The secret words of the binaries built in ``bench_dir`` (None: the default bench dir;
    io.bench_binaries); empty when none can say."""
    return _bench_binaries.built_secret_words(bench_dir)


_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# campaign.json's `secret_words`, read back: the binary's words are short upper-case names
MAX_WORDS = 64
_SECRET_WORD = re.compile(r"[A-Z][A-Z0-9_]{0,31}")


def read_words(value: object, fail) -> tuple[str, ...] | None:
    """campaign.json's ``secret_words`` (untrusted): a list of at most MAX_WORDS words of
    ``[A-Z][A-Z0-9_]``, at most 32 characters each; None when absent (not recorded).
    ``fail(key, what)`` refuses anything else."""
    if value is None:
        return None
    if not isinstance(value, list) or len(value) > MAX_WORDS:
        fail("secret_words", f"expected a list of at most {MAX_WORDS} words")
    for i, word in enumerate(value):
        if not isinstance(word, str) or not _SECRET_WORD.fullmatch(word):
            fail(f"secret_words[{i}]", f"{str(word)[:40]!r} is not a word of A-Z, 0-9 and _ "
                 "(at most 32 characters, starting with a letter)")
    return tuple(value)


def rule(words: Words = None) -> _redact.Rule:
    """The one rule (io.redact) with ``words`` (None: those of the default bench dir's
    binaries); every name is secret when no word is known."""
    known = tuple(secret_words() if words is None else words)
    return _rule(known or _EVERY_NAME)


@lru_cache(maxsize=4)
def _rule(words: tuple[str, ...]) -> _redact.Rule:
    return _redact.Rule(words)


def is_secret_name(name: str, words: Words = None) -> bool:
    return rule(words).is_secret_name(name)


def is_secret(name: str, value: str, words: Words = None) -> bool:
    """Secret by its name or by the shape of its value (io.redact)."""
    return rule(words).is_secret(name, value)


def redact_env(env: dict[str, str], words: Words = None) -> dict[str, str]:
    return rule(words).env(env)


def redact_text(text: str, words: Words = None) -> str:
    """A command line or a message with every secret `NAME=VALUE`, secret flag's value and
    secret-shaped word redacted (io.redact)."""
    return rule(words).text(text)


def _redact_variant(value: str, the_rule: _redact.Rule) -> str:
    """`NAME=ENV=VALUE ENV2=VALUE2` with secret values redacted (the settings of --variant)."""
    name, sep, settings = value.partition("=")
    if not sep:
        return value
    try:
        tokens = shlex.split(settings)
    except ValueError:  # not split: keep nothing that could be a value of a secret
        names = _IDENT.findall(settings)
        return f"{name}={REDACTED}" if any(map(the_rule.is_secret_name, names)) else value
    shown = []
    for token in tokens:
        key, eq, _ = token.partition("=")
        shown.append(f"{key}={REDACTED}" if eq and the_rule.is_secret(key, _) else shlex.quote(token))
    return f"{name}=" + " ".join(shown)


def redact_argv(argv: list[str], words: Words = None) -> list[str]:
    """A command line as it may be shown or stored: --variant settings and NAME=VALUE words with
    secret names redacted."""
    the_rule = rule(words)
    shown: list[str] = []
    variant_next = False
    plain = the_rule.argv(argv)  # the word after a secret flag, NAME=VALUE words, secret shapes
    for token, redacted in zip(argv, plain):
        if variant_next:
            shown.append(_redact_variant(token, the_rule))
        elif token.startswith("--variant="):
            shown.append("--variant=" + _redact_variant(token[len("--variant="):], the_rule))
        else:
            shown.append(redacted)
        variant_next = token == "--variant"
    return shown


def redact_launch_meta(folder, words: Words = None) -> bool:
    """Rewrites a launch folder's meta.json with its environment and argv redacted by the whole
    rule (mpimeter-bench redacts by name with its own words only; the shapes and the words beyond
    its list are Python's, io.redact). Only when something changes (the file is otherwise kept
    byte for byte); returns whether it did. A file that cannot be read is left to the readers,
    which refuse it."""
    import json
    from pathlib import Path

    from mpimeter.atomic import write_atomic
    from mpimeter.io.errors import InputError
    from mpimeter.io.meta import read_document

    path = Path(folder) / "meta.json"
    try:
        if path.is_symlink():  # rewritten in place only, never through a link
            return False
        meta = read_document(path)  # meta.json's one read (io.meta)
    except (OSError, InputError):
        return False
    the_rule = rule(words)
    changed = dict(meta)
    if isinstance(meta.get("environment"), dict):
        changed["environment"] = the_rule.env(meta["environment"])
    if isinstance(meta.get("argv"), list) and all(isinstance(a, str) for a in meta["argv"]):
        changed["argv"] = the_rule.argv(meta["argv"])
    if changed == meta:
        return False
    write_atomic(path, (json.dumps(changed, indent=1, ensure_ascii=False) + "\n").encode("utf-8"))
    return True


LOG_MAX_BYTES = 64 * 2**20  # a launch's log beyond this is left as printed (export leaves logs out)


def redact_log(path, words: Words = None) -> bool:
    """Rewrites a launch log (``logs/NNN.K.stdout``/``.stderr``: the launcher's and the bench's
    output went straight to it) with every line redacted by the rule, once the launch has ended.
    Only when something changes; returns whether it did. A link, what is not a regular file, and
    a log above LOG_MAX_BYTES are left as they are. A secret printed over several lines (a key
    block) is not recognised line by line: `mpimeter export` leaves the logs out."""
    import os
    import stat

    from mpimeter.atomic import write_atomic

    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return False
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return False
        data = f.read(LOG_MAX_BYTES + 1)
    if len(data) > LOG_MAX_BYTES:
        return False
    text = data.decode("utf-8", errors="surrogateescape")  # bytes that are not UTF-8 kept as they were
    the_rule = rule(words)
    shown = "".join(the_rule.text(line) for line in text.splitlines(keepends=True))
    if shown == text:
        return False
    write_atomic(path, shown.encode("utf-8", errors="surrogateescape"))
    return True
