# SPDX-License-Identifier: BSD-3-Clause
"""The C copy of the median-interval rule (Le Boudec order statistics, used by the adaptive
stopping of mpimeter-bench) against the Python rule the analysis reports (mpimeter.stats.intervals).

c/tests/unit/golden/adaptive_golden.py writes adaptive_golden.h from the Python side; the C unit
test (c/tests/unit/test_adaptive.c) checks the C functions against that header. Here: the header
committed is what the generator prints now (so a change of the Python rule cannot leave the C
rule pinned to stale values), its table of order statistics is the Python rule's for n = 1..N at
every confidence, that choice is the tightest one with the coverage asked for (exact binomial,
Le Boudec 2010 §2.2.2), and the C side's switch to the normal approximation happens at the same n.
The C unit test itself is run too when the build is there (`make test` builds first)."""

from __future__ import annotations

import functools
import importlib.util
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from mpimeter.stats import intervals

REPO = Path(__file__).resolve().parents[2]
GOLDEN_DIR = REPO / "c" / "tests" / "unit" / "golden"
GENERATOR = GOLDEN_DIR / "adaptive_golden.py"
HEADER = GOLDEN_DIR / "adaptive_golden.h"


@functools.cache
def _generator():
    spec = importlib.util.spec_from_file_location("adaptive_golden", GENERATOR)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _array(text: str, name: str) -> str:
    """The initializer text of the C array ``name`` in the header."""
    m = re.search(rf"\b{name}\[[^=]*=\s*\{{(.*?)\}};", text, re.S)
    assert m, f"{name} not found in {HEADER.name}"
    return m.group(1)


def _ranks_table() -> tuple[tuple[float, ...], np.ndarray]:
    """(confidences, ranks[confidence][n - 1] = (j, k)) as the committed header holds them."""
    text = HEADER.read_text()
    confidences = tuple(float(v) for v in _array(text, "golden_confidences").split(","))
    rank_n = int(re.search(r"#define GOLDEN_RANK_N (\d+)", text).group(1))
    pairs = [int(v) for v in re.findall(r"-?\d+", _array(text, "golden_ranks"))]
    ranks = np.array(pairs, dtype=int).reshape(len(confidences), rank_n, 2)
    return confidences, ranks


_NUMBER = re.compile(r"-?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?")


def _text_and_numbers(text: str) -> tuple[list[str], np.ndarray]:
    """The header cut into its words and its numbers: numpy's log and exp take the CPU's widest
    vector unit, so the generated samples may differ in their last digits between machines."""
    return _NUMBER.split(text), np.array([float(m) for m in _NUMBER.findall(text)])


def test_committed_header_is_what_the_generator_prints_now():
    committed_words, committed = _text_and_numbers(HEADER.read_text())
    generated_words, generated = _text_and_numbers(_generator().render())
    stale = ("adaptive_golden.h is stale: run .venv/bin/python c/tests/unit/golden/adaptive_golden.py "
             "and rebuild (the C rules are checked against it)")
    assert committed_words == generated_words and committed.shape == generated.shape, stale
    np.testing.assert_allclose(committed, generated, rtol=1e-12, atol=0, err_msg=stale)


def test_header_ranks_are_the_python_rule_for_every_n():
    confidences, ranks = _ranks_table()
    assert confidences == _generator().CONFIDENCES
    assert ranks.shape[1] >= 2 * intervals.EXACT_MAX_N  # both the exact and the normal branch
    for c, table in zip(confidences, ranks):
        for n in range(1, table.shape[0] + 1):
            expected = intervals.median_ci_ranks(n, c) or (0, 0)
            assert tuple(table[n - 1]) == expected, (c, n)


@pytest.mark.parametrize("confidence", [0.90, 0.95, 0.99])
def test_exact_ranks_are_the_tightest_with_the_coverage(confidence):
    """For n ≤ EXACT_MAX_N: [x_(j), x_(n+1-j)] covers the median with probability ≥ the
    confidence, and moving j one rank inwards would not; no interval when even [x_(1), x_(n)]
    falls short (n = 1..4 at 95 %)."""
    _, ranks = _ranks_table()
    table = ranks[_generator().CONFIDENCES.index(confidence)]
    for n in range(1, intervals.EXACT_MAX_N + 1):
        j, k = (int(v) for v in table[n - 1])
        full = 1 - 2 * stats.binom.cdf(0, n, 0.5)
        if j == 0:
            assert full < confidence, n
            continue
        assert k == n + 1 - j
        assert intervals.median_ci_coverage(n, j, k) >= confidence * (1 - 1e-12), n
        if j + 1 <= k - 1:
            assert intervals.median_ci_coverage(n, j + 1, k - 1) < confidence, n


def test_c_rule_switches_to_the_normal_approximation_where_python_does():
    """The C function's exact-branch limit is the Python one (the header pins both branches only
    if they switch at the same n)."""
    sources = [p for p in (REPO / "c" / "src").rglob("*.c") if "mm_median_ci_ranks(long n" in p.read_text()]
    assert len(sources) == 1, sources
    m = re.search(r"MM__EXACT_MAX_N\s*=\s*(\d+)", sources[0].read_text())
    assert m and int(m.group(1)) == intervals.EXACT_MAX_N


BUILT = sorted((REPO / "build").glob("*/tests/test_adaptive"))


@pytest.mark.skipif(not BUILT, reason="no build/<lib>/tests/test_adaptive (run `make build`)")
def test_c_unit_test_of_the_rule_passes_against_this_header():
    for binary in BUILT:
        done = subprocess.run([str(binary)], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr
