# SPDX-License-Identifier: BSD-3-Clause
"""The bench arguments of a campaign as typed values: what every launch passes to mpimeter-bench
besides its own --seed and --out (campaign.json `bench_args`).

They are made once where they are validated - from the options the user gave, checked in the
binary's words (campaign.benchopts), or from campaign.json when a campaign is resumed
(campaign.state) - and turned into a command line once, when a launch is built
(campaign.runner). In between, the campaign reads and changes them as values: the operations in
their order (`--launches auto` plans its rounds with them), the sizes (`--sizes auto` cannot run
under it), a launch's subset of the tests (its --ops and --sizes), the clock sync the binary
chose. An option is kept as it was given (`--flag VALUE` or `--flag=VALUE`), so that the
command line, and campaign.json, say what was given.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace


@dataclass(frozen=True)
class BenchOption:
    """One option of the command line: `--flag`, `--flag VALUE` or `--flag=VALUE` (joined)."""

    flag: str
    value: str | None = None  # None: a flag without a value
    joined: bool = False  # given as --flag=VALUE

    def argv(self) -> list[str]:
        if self.value is None:
            return [self.flag]
        return [f"{self.flag}={self.value}"] if self.joined else [self.flag, self.value]


@dataclass(frozen=True)
class BenchArgs:
    """The options, in their order (the binary's parser takes the last of a repeated one)."""

    options: tuple[BenchOption, ...] = ()

    @classmethod
    def of(cls, pairs: Iterable[tuple[str, str | None]]) -> BenchArgs:
        """From (flag, value) pairs (value None: a flag without one)."""
        return cls(tuple(BenchOption(flag, value) for flag, value in pairs))

    @classmethod
    def parse(cls, tokens: Sequence[str]) -> BenchArgs:
        """A command line read once into options: `--flag=VALUE`, `--flag VALUE` (the next word
        when it is not itself an option), `--flag`. Any other word stands alone (the binary
        refuses it: campaign.benchopts and campaign.resume have it check every command line).
        ``parse(t).argv() == list(t)`` for every list of words."""
        options: list[BenchOption] = []
        i = 0
        while i < len(tokens):
            token = tokens[i]
            if token.startswith("--") and "=" in token:
                flag, value = token.split("=", 1)
                options.append(BenchOption(flag, value, joined=True))
            elif token.startswith("--") and i + 1 < len(tokens) and not tokens[i + 1].startswith("--"):
                options.append(BenchOption(token, tokens[i + 1]))
                i += 1
            else:
                options.append(BenchOption(token))
            i += 1
        return cls(tuple(options))

    def argv(self) -> list[str]:
        return [word for option in self.options for word in option.argv()]

    def __add__(self, other: BenchArgs) -> BenchArgs:
        return BenchArgs(self.options + other.options)

    @property
    def flags(self) -> tuple[str, ...]:
        return tuple(o.flag for o in self.options)

    def value(self, flag: str) -> str | None:
        """The value of the last `flag` (the one the binary keeps); None when not given."""
        for option in reversed(self.options):
            if option.flag == flag:
                return option.value
        return None

    @property
    def ops(self) -> tuple[str, ...]:
        """--ops as a list of operation names, in the order given (empty when not given)."""
        value = self.value("--ops")
        return tuple(value.split(",")) if value else ()

    @property
    def sizes(self) -> str | None:
        """--sizes as given: a list of sizes or `auto[:...]`."""
        return self.value("--sizes")

    def without(self, flag: str) -> BenchArgs:
        return BenchArgs(tuple(o for o in self.options if o.flag != flag))

    def with_values(self, values: Mapping[str, str]) -> BenchArgs:
        """Each flag of ``values`` set to its value: in place where it is given (as `--flag
        VALUE`), at the end, in the order of ``values``, where it is not."""
        out = [replace(o, value=values[o.flag], joined=False) if o.flag in values else o
               for o in self.options]
        out += [BenchOption(flag, value) for flag, value in values.items() if flag not in self.flags]
        return BenchArgs(tuple(out))

    def for_tests(self, tests: Mapping[str, list] | None,
                  scopes: Mapping[str, frozenset[str]] | None = None) -> BenchArgs:
        """The options of one launch of `--launches auto`: the campaign's, with --ops and --sizes
        set to the launch's subset (campaign.json `launches[].tests`; None: all of them), and
        without the op-scoped options (``scopes``: --flag → the operations it shapes, from the
        binary's --describe) whose operations the subset has none of: the binary refuses such an
        option there, and it shaped no test of that launch (campaign.json keeps each argv)."""
        if not tests:
            return self
        ops = set(tests["ops"])
        kept = BenchArgs(tuple(o for o in self.options if not (scopes and o.flag in scopes and
                                                             not ops & scopes[o.flag])))
        return kept.with_values({"--ops": ",".join(tests["ops"]),
                                 "--sizes": ",".join(str(s) for s in tests["sizes"])})
