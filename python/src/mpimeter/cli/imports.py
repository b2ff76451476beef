# SPDX-License-Identifier: BSD-3-Clause
"""`mpimeter import imb|osu|reprompi FILE… --out CAMPAIGN`: other benchmarks' outputs as a campaign
of imported launches, one per file (= one run), which analyze, compare, gate and report read
like any other (docs/FORMAT.md, "Imported launches"; parsers in mpimeter.io.peers).

Every file is parsed before anything is written; one bad file (another tool's, an unknown format,
a header that does not parse, a truncated table) is one line naming the file and line, exit 2,
and no folder."""

from __future__ import annotations

from pathlib import Path

import click

from mpimeter.cli.common import EXIT_OK, console, fail, guarded
from mpimeter.io import peers


@click.command("import")
@click.argument("tool", type=click.Choice(tuple(peers.TOOLS)))
@click.argument("files", nargs=-1, required=True, type=click.Path())
@click.option("--out", "out", required=True, type=click.Path(), help="The campaign folder to create (must not exist).")
@click.option("--np", "nprocs", type=click.IntRange(1, 65536), default=None,
              help="How many ranks ran: needed for OSU collectives (OSU does not print it); checked against the "
                   "files of the other tools.")
@click.option("--osu-window", "osu_window", type=click.IntRange(1, 1 << 20), default=None,
              help="Operations per epoch of OSU 5.7+'s one-sided bandwidth tests (their -W, default 64), which "
                   "their output does not print; only those tables take it.")
def command(tool: str, files: tuple[str, ...], out: str, nprocs: int | None, osu_window: int | None) -> None:
    """Import IMB, OSU or ReproMPI output FILES (one per run) as launches of a new campaign OUT.

    imb: IMB-MPI1 2019–2021 output, several benchmarks per file (t_min/t_max/t_avg tables; the
    launch keeps t_max, all three in meta.json). osu: an OSU 5.x–7.x latency table (Avg
    latency kept; -f adds min, max, iterations), or a one-sided table (5.x; Put and Get of
    6.x/7.x). reprompi: ReproMPI's per-measurement rows (one run time per repetition;
    errorcode ≠ 0 marks it invalid) or its --summary rows. meta.json
    says where each launch came from and what it lacks; analyze, compare, gate and report warn
    about what cannot be computed from it. Exit 2 on bad input, with nothing written.
    """

    def body() -> int:
        from mpimeter.io.peers import write as _write  # pyarrow: not before the command line is parsed

        runs = [peers.read_peer(tool, f, nprocs=nprocs, osu_window=osu_window) for f in files]
        _one_build(runs)
        folders = _write.write_campaign(runs, out)
        con = console()
        for run, folder in zip(runs, folders):
            kind = "repetitions" if run.data == "repetitions" else "aggregates"
            con.print(f"{folder}: {run.tool_name} {run.tool_version or ''}".rstrip() + f", {len(run.tests)} tests ({kind}), "
                      f"{run.nprocs} ranks, from {Path(run.path).name}")
        con.print(f"imported {len(runs)} run{'s' if len(runs) != 1 else ''} into {out}: mpimeter analyze {out}")
        return EXIT_OK

    guarded("import", body)


def _one_build(runs) -> None:
    """The launches of one campaign are repetitions of one experiment (io.siblings: one build
    measured them), so runs that name different versions of their benchmark are refused before
    anything is written; a run that prints no version is taken as any."""
    seen: dict[str, str] = {}
    for run in runs:
        label = f"{run.tool_name} {run.tool_version}" if run.tool_version else None
        if label is not None:
            seen.setdefault(label, Path(run.path).name)
    if len(seen) > 1:
        (first, first_file), (other, other_file) = list(seen.items())[:2]
        fail("import", f"{other_file} is a run of {other}, {first_file} of {first}: the launches of one campaign "
                       "are runs of one build of one benchmark; import each build's runs into a campaign of its "
                       "own, and compare them with `mpimeter compare`")
