# SPDX-License-Identifier: BSD-3-Clause
"""The files a campaign's launches read besides their options: mpimeter-bench's `path` options
that the campaign does not set per launch (--graph-file). Their content is a fact of the
experiment as much as an option's value, and they are named by a path that means another file
from another folder.

- when a campaign is planned, each is named by its absolute path (so that every launch, and a
  `--resume` from any folder, opens the same file; a note says so) and the digest mpimeter-bench
  resolved for it (`--validate`: config.graph.fnv1a64) is recorded in campaign.json
  (`input_files`: {"--graph-file": {"path": ..., "fnv1a64": ...}});
- campaign.json is untrusted: `read` accepts only the options the bench arguments give, with the
  same path, and a digest of 16 hex digits;
- before a resumed campaign runs, `check_unchanged` asks each binary for the digest again: a file
  that differs now is refused in one line (its launches would be pooled with the earlier ones,
  which measured another graph). The analysis refuses such a mix too (io.siblings).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from mpimeter.campaign import describe as _describe
from mpimeter.campaign.benchargs import BenchArgs, BenchOption
from mpimeter.campaign.plan import PlanError

# option -> the key of the resolved configuration (meta.json "config") that holds its digest
DIGEST_KEYS = {"--graph-file": "graph"}
_DIGEST = re.compile(r"[0-9a-f]{16}")


def input_flags(desc: _describe.Description) -> tuple[str, ...]:
    """The options of the binary that name a file every launch reads (type path, not per launch)."""
    return tuple(o.flag for o in desc.options if o.type == "path" and not o.per_launch and "bench" in o.modes)


def absolute(args: BenchArgs, flags: tuple[str, ...], cwd: Path) -> tuple[BenchArgs, list[str]]:
    """``args`` with each input file named by its absolute path (relative ones are taken from
    ``cwd``, where they were checked; `..` and links are kept as given: the binary refuses a link
    itself), and a note per path changed."""
    out, notes = [], []
    for option in args.options:
        if option.flag in flags and option.value and not Path(option.value).is_absolute():
            path = str(Path(cwd) / option.value)
            notes.append(f"{option.flag} {option.value}: recorded as {path}, so that every launch and a "
                         "--resume from any folder read the same file")
            option = BenchOption(option.flag, path, option.joined)
        out.append(option)
    return BenchArgs(tuple(out)), notes


def digests(args: BenchArgs, config: Mapping[str, Any]) -> dict[str, dict[str, str]]:
    """campaign.json's `input_files`: for each input file given, its path and the digest the
    binary resolved (``config``: what `--validate` printed)."""
    out = {}
    for flag, key in DIGEST_KEYS.items():
        path = args.value(flag)
        if not path:
            continue
        facts = config.get(key)
        digest = facts.get("fnv1a64") if isinstance(facts, Mapping) else None
        if not isinstance(digest, str) or not _DIGEST.fullmatch(digest):
            raise PlanError(f"{flag} {path}: mpimeter-bench --validate gave no digest of it (config.{key}.fnv1a64)")
        out[flag] = {"path": path, "fnv1a64": digest}
    return out


def read(raw: object, args: BenchArgs, fail: Callable[[str, str], Any]) -> dict[str, dict[str, str]]:
    """`input_files` of campaign.json, checked against its bench arguments (absent: {})."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        fail("input_files", "expected an object")
    out = {}
    for flag, entry in raw.items():
        where = f"input_files.{flag[:40]}"
        if flag not in DIGEST_KEYS:
            fail(where, f"not one of {', '.join(DIGEST_KEYS)}")
        if not isinstance(entry, dict) or set(entry) != {"path", "fnv1a64"}:
            fail(where, "expected an object of path and fnv1a64")
        path, digest = entry["path"], entry["fnv1a64"]
        if not isinstance(path, str) or path != args.value(flag):
            fail(f"{where}.path", f"is not the {flag} of bench_args")
        if not isinstance(digest, str) or not _DIGEST.fullmatch(digest):
            fail(f"{where}.fnv1a64", "expected 16 hex digits")
        out[flag] = {"path": path, "fnv1a64": digest}
    return out


def check_unchanged(args: BenchArgs, recorded: Mapping[str, Mapping[str, str]], binaries: Iterable[str],
                    ranks: int) -> None:
    """`--resume`: every input file of the bench arguments (``args``) is named by an absolute
    path, recorded with its digest (``recorded``: campaign.json's input_files), and each binary
    that will run finds the same digest now (asked as a launch of ``ranks``). PlanError (one
    line) otherwise."""
    for binary in dict.fromkeys(binaries):
        try:
            flags = input_flags(_describe.describe(binary))
        except _describe.DescribeError as exc:
            raise PlanError(f"cannot resume: {exc}") from None
        given = [flag for flag in flags if args.value(flag)]
        if not given:
            continue
        for flag in given:
            path = args.value(flag) or ""
            if flag not in recorded or not Path(path).is_absolute():
                raise PlanError(f"cannot resume: campaign.json gives {flag} {path[:200]!r} without the digest of "
                                "its content (input_files), so the launches still to run may read another file "
                                "than the ones done; start a new campaign")
        try:
            config = _describe.validate(binary, args.argv(), ranks).config
        except _describe.DescribeError as exc:
            raise PlanError(f"cannot resume: {exc}") from None
        now = digests(args, config)
        for flag in given:
            then, found = recorded[flag]["fnv1a64"], now.get(flag, {}).get("fnv1a64")
            if found != then:
                raise PlanError(f"cannot resume: {flag} {recorded[flag]['path'][:200]} is not the file the "
                                f"campaign's launches read (digest {found} now, {then} in campaign.json); its "
                                "launches would be pooled with theirs: restore the file, or start a new campaign")
