# SPDX-License-Identifier: BSD-3-Clause
"""The processing schemes of other benchmarks by name (Hunold & Carpen-Amarie 2016, Table 4):
who uses each, what its first number is and which numbers it prints. Apart from
``mpimeter.analysis.schemes``, which computes them, so that the command line offers the names
without loading numpy."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Scheme:
    name: str
    tools: str  # who uses it
    table: str  # Hunold & Carpen-Amarie 2016, Table 4
    headline: str  # what its first number is
    stats: tuple[str, ...]  # the numbers it prints


SCHEMES: dict[str, Scheme] = {s.name: s for s in (
    Scheme("ours", "mpimeter", "§5.1, Algorithm 3",
           "median of per-launch medians (outliers filtered per launch; global clock when there is one)",
           ("median",)),
    Scheme("skampi", "SKaMPI", "PS1", "mean of the central half of the sorted maxima over ranks", ("mean", "stdev")),
    Scheme("mpiblib", "MPIBlib, mpicoscope, NBCBench", "PS2", "mean of the maxima over ranks", ("mean", "min", "max")),
    Scheme("mpiblib-global", "MPIBlib", "PS4",
           "mean over repetitions of the latest global end minus rank 0's global start", ("mean", "ci_low", "ci_high",
                                                                                          "min", "max")),
    Scheme("osu", "OSU Micro-Benchmarks", "PS3", "mean over ranks of each rank's mean (avg)", ("avg", "min", "max")),
    Scheme("mpibench", "MPIBench", "PS5", "mean of all ranks' times after dropping those above 2·t99",
           ("avg", "min", "max")),
    Scheme("imb", "Intel MPI Benchmarks, Phloem", "PS6", "maximum over ranks of each rank's mean (t_max)",
           ("t_max", "t_min", "t_avg")),
    Scheme("mpptest", "mpptest", "PS7", "minimum over repetitions of rank 0's time (with --batch N: per-call means)",
           ("min",)),
)}
NAMES = tuple(SCHEMES)
