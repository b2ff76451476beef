# SPDX-License-Identifier: BSD-3-Clause
"""`mpimeter tune`: from a campaign whose alternatives are a library's own collective algorithms,
the algorithm to use per operation, process count and size range (faster than the library's
default with significance, else the default: analysis.tuning), written as the library's own
configuration (io.tuning_files), checked before it is written; `--verify` runs the default
against the written file and gates (analysis.tuning_verify)."""

from __future__ import annotations

import datetime as _dt
import json
import os
import re
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from click.core import ParameterSource
from rich.table import Table

from mpimeter import __version__, analysis
from mpimeter.atomic import check_file_target, write_atomic
from mpimeter.analysis.choices import TUNED_LIBRARIES
from mpimeter.campaign import tuning_bench as _bench
from mpimeter.campaign.plan import PlanError
from mpimeter.cli.common import (EXIT_OK, EXIT_REGRESSION, STARS_TEXT, alpha_option, analysis_settings_options,
                                 analyze_together, check_alpha, checked_slowdown_and_alpha, console, fail, fmt_est,
                                 fmt_p, fmt_ratio, fmt_time, guarded, load_options, max_slowdown_option,
                                 print_warnings, write_json)
from mpimeter.io import bounded
from mpimeter.io import tuning_files as _files
from mpimeter.io.errors import InputError
from mpimeter.io.jsonread import load_json

if TYPE_CHECKING:
    from mpimeter.analysis import tuning as _tuning
    from mpimeter.analysis import tuning_verify as _verify

EVIDENCE_SUFFIX = ".evidence.json"  # next to the tuning file: the tuning's JSON, read by --verify
DEFAULT_VERIFY_LAUNCHES = 10
# an evidence file holds every comparison of the tuning (op × p × size × algorithm, ~0.5 KiB each)
EVIDENCE_MAX_BYTES = 64 * 2**20


def _sizes_text(r: _tuning.SizeRange) -> str:
    return str(r.size_min) if r.size_min == r.size_max else f"{r.size_min}–{r.size_max}"


def print_tuning(res: _tuning.TuningResult) -> None:
    con = console()
    pct = f"{100 * res.confidence:g} %"
    for lib in res.libraries:
        t = Table(title=f"mpimeter tune {lib.library}: default = {lib.default}", title_justify="left")
        for name in ("op", "p", "sizes (B)", "choice", "variable", f"time / default [{pct} CI], per size",
                     "p (Holm), per size"):
            t.add_column(name, justify="right" if name == "p" else "left")
        for r in lib.ranges:
            t.add_row(r.op, str(r.nprocs), _sizes_text(r), r.algorithm if r.alternative else "library default",
                      "" if r.setting is None else f"{r.setting.variable}={r.setting.value}",
                      "; ".join(fmt_est(c.ratio, c.ratio_ci_low, c.ratio_ci_high, fmt_ratio) if c.alternative else "1"
                                for c in r.choices),
                      "; ".join(fmt_p(c.p_adjusted) if c.p_adjusted is not None else "–" for c in r.choices))
        con.print(t)
        e = Table(title=f"{lib.library}: every algorithm against the default", title_justify="left")
        for name in ("op", "p", "size", "algorithm", "launches", "median default", "median algorithm",
                     "algorithm / default", "p", "p (Holm)", "", "significant"):
            e.add_column(name, justify="left" if name in ("op", "algorithm", "", "significant") else "right")
        for c in lib.comparisons:
            e.add_row(c.op, str(c.nprocs), str(c.size), c.algorithm, f"{c.launches_default}/{c.launches_algorithm}",
                      fmt_time(c.median_default_ns), fmt_time(c.median_algorithm_ns),
                      fmt_est(c.ratio, c.ratio_ci_low, c.ratio_ci_high, fmt_ratio), fmt_p(c.p_value),
                      fmt_p(c.p_adjusted), c.stars, "yes" if c.significant else "no")
        con.print(e)
    con.print(f"test: {res.test}, min effect {100 * res.min_effect:g} %; correction: {res.correction}; chosen: the "
              f"significant algorithm (p (Holm) ≤ α = {res.alpha:g}) with the smallest Hodges–Lehmann ratio, else "
              f"the default; {STARS_TEXT}")
    print_warnings(con, res.warnings)


def _rules(lib: _tuning.LibraryTuning) -> list[_files.RangeRule]:
    return [_files.RangeRule(op=r.op, nprocs=r.nprocs, size_min=r.size_min, size_max=r.size_max,
                             value=None if r.setting is None else r.setting.value,
                             params={} if r.setting is None else dict(r.setting.params)) for r in lib.ranges]


def _provenance(res: _tuning.TuningResult, lib: _tuning.LibraryTuning, campaign: str) -> dict[str, Any]:
    p = lib.provenance
    return {"machine": p.get("machine"), "cpu": p.get("cpu_model"), "library": p.get("library_version"),
            "campaign": Path(campaign).resolve().name, "campaign id": res.campaign_id,
            "launches from": p.get("first_launch"), "launches to": p.get("last_launch"),
            "written": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "by": f"mpimeter {__version__} tune, min effect {res.min_effect:g}, alpha {res.alpha:g}"}


def _file_text(lib: _tuning.LibraryTuning, file_format: str, provenance: dict[str, Any], bench_dir: Path | None,
               recorded_bench: str | None) -> tuple[str, list[str]]:
    """The file's text, checked as the library reads it; notes on what the check could not use."""
    rules = _rules(lib)
    notes: list[str] = []
    if file_format == "env":
        text = _files.env_settings(lib.library, rules, provenance)
        _files.validate_env(text)
        return text, notes
    try:
        bench = _bench.bench_of(lib.library, recorded_bench, bench_dir)
    except PlanError as exc:
        if file_format == "mpich-json":  # its built-in tree is part of the file
            raise _files.TuningFileError(f"the MPICH file holds the library's built-in tree, read from the library "
                                         f"the binary loads: {exc}") from None
        bench = None
        notes.append(f"algorithm numbers not checked against the library's list ({exc})")
    if file_format == "openmpi-rules":
        text = _files.openmpi_rules(rules, provenance)
        counts = None
        if bench is not None:
            try:
                counts = {op: n for op, n in _bench.list_algorithms(lib.library, bench).counts.items() if n}
            except PlanError as exc:
                notes.append(f"algorithm numbers not checked against the library's list ({exc})")
        _files.validate_openmpi_rules(text, counts)
        return text, notes
    builtin = _files.mpich_builtin(_bench.mpi_library_file(bench))
    text = _files.mpich_json_text(_files.mpich_json(rules, builtin), provenance)
    _files.validate_mpich_json(text, builtin.containers)
    return text, notes


def _recorded_bench(result: analysis.AnalysisResult, alternative: str) -> str | None:
    record = result.campaign.campaign_record
    if record is None:
        return None
    for alt in record.document.get("alternatives") or []:
        if isinstance(alt, dict) and alt.get("name") == alternative and isinstance(alt.get("bench"), str):
            return alt["bench"]
    return None


def _listed_names(result: analysis.AnalysisResult, bench_dir: Path | None) -> dict[str, Any]:
    """library → op → value → name from each library's --list-algorithms (Open MPI numbers its
    algorithms; the names make the table readable); a library whose binary cannot say is named
    by its values."""
    out: dict[str, Any] = {}
    libs = {li.meta.mpi.library: li.alternative for li in result.campaign.launches if li.meta}
    for lib, alt in libs.items():
        if lib != "openmpi":
            continue
        try:
            out[lib] = _bench.list_algorithms(lib, _bench.bench_of(lib, _recorded_bench(result, alt), bench_dir)).names
        except PlanError:
            continue
    return out


def _tune(path: str, out: Path | None, file_format: str, min_effect: float, alpha: float, library: str | None,
          as_json: bool, bench_dir: Path | None, kw: dict[str, Any]) -> int:
    from mpimeter.analysis import tuning as _tuning  # numpy, scipy: not before the command line is parsed

    result = analyze_together([path], kw)
    res = _tuning.tune(result, min_effect=min_effect, alpha=alpha, confidence=kw["confidence"],
                       libraries=[library] if library else None, names=_listed_names(result, bench_dir))
    written: dict[str, Any] = {}
    if out is not None:
        if len(res.libraries) > 1:
            raise analysis.AnalysisError(f"the campaign tunes {', '.join(l.library for l in res.libraries)}: one file "
                                         "is one library's, give --library")
        lib = res.libraries[0]
        fmt = _files.FORMAT_OF_LIBRARY[lib.library] if file_format == "auto" else file_format
        if fmt in _files.LIBRARY_OF_FORMAT and _files.LIBRARY_OF_FORMAT[fmt] != lib.library:
            raise analysis.AnalysisError(f"--format {fmt} is {_files.LIBRARY_OF_FORMAT[fmt]}'s file; the campaign tuned "
                                         f"{lib.library} (use --format {_files.FORMAT_OF_LIBRARY[lib.library]} or env)")
        try:
            text, notes = _file_text(lib, fmt, _provenance(res, lib, path), bench_dir,
                                     _recorded_bench(result, lib.default))
        except (_files.TuningFileError, PlanError) as exc:
            raise analysis.AnalysisError(f"{out}: not written: {exc}") from None
        evidence = dict(res.to_dict(), file=out.name, format=fmt, library=lib.library, campaign=str(path))
        evidence_path = out.with_name(out.name + EVIDENCE_SUFFIX)
        for target in (out, evidence_path):  # both refused before either is written: the pair stays whole
            check_file_target(target, "--out")
        _check_owned(out, evidence_path)
        write_atomic(out, text.encode())
        write_atomic(evidence_path, (json.dumps(evidence, indent=1) + "\n").encode())
        written = {"file": str(out), "format": fmt, "evidence": str(out) + EVIDENCE_SUFFIX, "notes": notes}
    if as_json:
        write_json(dict(res.to_dict(), written=written or None))
    else:
        print_tuning(res)
        if written:
            console().print(f"wrote {written['file']} ({written['format']}) and its evidence "
                            f"{written['evidence']}" + "".join(f"; note: {n}" for n in written["notes"]))
    return EXIT_OK


def _shown(path: Path) -> str:
    """A path as an error message shows it: whole up to 200 characters, else its start and '…'."""
    text = str(path)
    return text if len(text) <= 200 else text[:200] + "…"


def _kind(path: Path) -> str | None:
    """What ``path`` is when it is not a regular file ("a FIFO", "a directory", ...; "missing"),
    None for a regular file (the link followed)."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return "missing"
    except OSError as exc:
        return f"unreadable ({exc.strerror or exc})"
    if stat.S_ISREG(mode):
        return None
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"


def _check_owned(out: Path, evidence_path: Path) -> None:
    """--out replaces only a file tune wrote (its header: tuning_files.MARK) and the evidence
    beside it (CONTRIBUTING.md: outputs never replace what they do not own)."""
    ours = False
    if _kind(out) != "missing":
        try:
            with open(out, "rb") as f:
                ours = _files.written_by_tune(f.read(4096))  # the header's first two lines: bounded
        except OSError as exc:
            raise analysis.AnalysisError(f"--out {out}: cannot be read ({exc.strerror or exc})") from None
        if not ours:
            raise analysis.AnalysisError(f"--out {out}: exists and is not a file mpimeter tune wrote (no "
                                         f"'{_files.MARK}' in its first two lines); give a new path or remove it "
                                         "yourself")
    if not ours and _kind(evidence_path) != "missing":
        try:
            ours = _is_evidence(load_json(evidence_path, max_bytes=EVIDENCE_MAX_BYTES))
        except (InputError, OSError):
            ours = False
        if not ours:
            raise analysis.AnalysisError(f"--out {out}: {evidence_path.name} exists beside it and is not the evidence "
                                         "mpimeter tune writes; give a new path or remove it yourself")


def _read_tuning_file(file: Path) -> str:
    """--verify's FILE: a regular file of at most MAX_FILE_BYTES of UTF-8 text."""
    kind = _kind(file)
    if kind == "missing":
        raise analysis.AnalysisError(f"--verify {file}: no such file")
    if kind is not None:
        raise analysis.AnalysisError(f"--verify {file}: is {kind}, not a tuning file; give the regular file "
                                     "mpimeter tune --out wrote")
    try:
        data = bounded.read_bytes(file, _files.MAX_FILE_BYTES)
    except InputError as exc:
        raise analysis.AnalysisError(f"--verify {exc}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise analysis.AnalysisError(f"--verify {file}: is not UTF-8 text (byte {exc.start}); not a tuning file "
                                     "mpimeter tune wrote") from None


def _is_evidence(ev: Any) -> bool:
    """Whether a JSON document is the evidence tune --out writes (format, library, libraries)."""
    return (isinstance(ev, dict) and ev.get("format") in _files.FORMATS and ev.get("library") in TUNED_LIBRARIES
            and isinstance(ev.get("libraries"), list))


def _read_evidence(file: Path) -> dict[str, Any]:
    ev_path = file.with_name(file.name + EVIDENCE_SUFFIX)
    kind = _kind(ev_path)
    if kind == "missing":
        raise analysis.AnalysisError(f"--verify {file}: its evidence {ev_path.name} is not next to it (mpimeter tune "
                                     "--out writes both)")
    if kind is not None:
        raise analysis.AnalysisError(f"--verify {file}: its evidence {ev_path.name} is {kind}, not the regular file "
                                     "mpimeter tune --out writes")
    ev = load_json(ev_path, max_bytes=EVIDENCE_MAX_BYTES)  # bounded and checked, as every JSON read back
    if not _is_evidence(ev):
        raise analysis.AnalysisError(f"{ev_path}: not the evidence of mpimeter tune (format, library, libraries)")
    return ev


def _checked_choices(choices: list, where: str) -> list[dict[str, Any]]:
    """The evidence's choices (untrusted): each an object with an op name, a process count ≥ 1
    and a size ≥ 0 (they become the verification campaign's --ops, --np and --sizes)."""
    out = []
    for i, c in enumerate(choices):
        ok = (isinstance(c, dict) and isinstance(c.get("op"), str) and _tuning_op(c["op"])
              and all(isinstance(c.get(k), int) and not isinstance(c.get(k), bool) for k in ("nprocs", "size"))
              and c["nprocs"] >= 1 and c["size"] >= 0)
        if not ok:
            raise analysis.AnalysisError(f"{where}: choices[{i}] is not a choice of mpimeter tune (op, nprocs ≥ 1, "
                                         "size ≥ 0)")
        out.append(c)
    return out


def _tuning_op(op: str) -> bool:
    return re.fullmatch(r"[a-z][a-z0-9_]{0,63}", op) is not None  # an operation's name, as --ops takes it


def _verify_file(file: Path, out: Path, launches: int, max_slowdown: float, alpha: float, as_json: bool,
                 extra: tuple[str, ...], kw: dict[str, Any]) -> int:
    text = _read_tuning_file(file)
    ev = _read_evidence(file)
    lib_name, fmt = ev["library"], ev["format"]
    lib = next((l for l in ev["libraries"] if isinstance(l, dict) and l.get("library") == lib_name), None)
    if lib is None or not isinstance(lib.get("choices"), list) or not lib["choices"]:
        raise analysis.AnalysisError(f"{file}{EVIDENCE_SUFFIX}: holds no choices for {lib_name}")
    settings: dict[str, str] = {}
    try:
        if fmt == "openmpi-rules":
            _files.validate_openmpi_rules(text)
        elif fmt == "mpich-json":
            _files.validate_mpich_json(text)
        else:
            settings = _files.validate_env(text)
    except _files.TuningFileError as exc:
        raise analysis.AnalysisError(f"--verify {file}: {exc}") from None
    choices = _checked_choices(lib["choices"], f"{file}{EVIDENCE_SUFFIX}")
    try:
        env = _bench.verify_env(lib_name, fmt, file, settings)
    except PlanError as exc:
        raise analysis.AnalysisError(str(exc)) from None
    code = _bench.run_verification(lib_name, env, out=out, nprocs=sorted({c["nprocs"] for c in choices}),
                                   ops=sorted({c["op"] for c in choices}), sizes=sorted({c["size"] for c in choices}),
                                   launches=launches, extra=extra)
    if code != 0 and _kind(out / "campaign.json") is not None:
        raise analysis.AnalysisError(f"the verification campaign did not start: mpimeter run exited {code} before it "
                                     f"created {out}/campaign.json (its own error, above, says why); nothing was "
                                     "measured")
    if code != 0:
        raise analysis.AnalysisError(f"the verification campaign {out} did not complete (mpimeter run exit {code}); "
                                     f"finish it with mpimeter run --resume {out}, then gate it with mpimeter gate")
    result = analysis.analyze(analysis.load_campaign(out, **load_options(kw)),
                              **{k: kw[k] for k in ("outlier", "tukey_k", "mpibench_a", "drop_warmup", "clock",
                                                    "confidence")})
    from mpimeter.analysis import tuning_verify as _verify  # numpy, scipy: not before parsing

    res = _verify.verify(result, lib_name, choices, max_slowdown=max_slowdown, alpha=alpha,
                         confidence=kw["confidence"])
    gate = res.gate
    if as_json:
        write_json(dict(res.to_dict(), file=str(file), campaign=str(out)))
    else:
        _print_gate(gate, lib_name)
        _print_predictions(res)
    return EXIT_OK if res.passed else EXIT_REGRESSION


def _print_gate(gate: analysis.GateResult, library: str) -> None:
    t = Table(title=f"gate {library} → tuned (max slowdown {100 * gate.max_slowdown:g} %): "
                    f"{'no regression' if gate.passed else 'REGRESSIONS'}", title_justify="left")
    for name in ("op", "p", "size", "default", "tuned", "tuned / default [CI at Holm level]", "p (Holm)", "regression"):
        t.add_column(name, justify="left" if name in ("op", "regression") else "right")
    for r in gate.rows:
        t.add_row(r.op, str(r.nprocs or "–"), str(r.size), fmt_time(r.median_baseline_ns), fmt_time(r.median_candidate_ns),
                  fmt_est(r.ratio, r.ratio_ci_low, r.ratio_ci_high, fmt_ratio), fmt_p(r.p_adjusted),
                  "REGRESSION" if r.regression else "")
    console().print(t)
    console().print(f"test: {gate.test} (tuned against default × {1 + gate.max_slowdown:g}), Holm over "
                    f"{len(gate.rows)} rows, α = {gate.alpha:g}")
    print_warnings(console(), gate.warnings)


def _print_predictions(res: _verify.VerifyResult) -> None:
    con = console()
    pct = f"{100 * res.confidence:g} %"
    t = Table(title=f"predicted against measured: tuned / default ({res.library})", title_justify="left")
    for name in ("op", "p", "size", "choice", "predicted [CI]", f"measured [{pct} CI]", "launches", "within"):
        t.add_column(name, justify="left" if name in ("op", "choice", "within") else "right")
    for r in res.predictions:
        t.add_row(r.op, str(r.nprocs), str(r.size), r.algorithm,
                  fmt_est(r.predicted_ratio, r.predicted_ci_low, r.predicted_ci_high, fmt_ratio),
                  fmt_est(r.measured_ratio, r.measured_ci_low, r.measured_ci_high, fmt_ratio),
                  f"{r.launches_default}/{r.launches_tuned}", "–" if r.within is None else "yes" if r.within else "NO")
    con.print(t)
    inside = sum(1 for r in res.predictions if r.within)
    con.print(f"{inside} of {len(res.predictions)} predictions lie within the measured interval; gate: "
              f"{'passed' if res.passed else 'FAILED: the tuned configuration is slower somewhere'}")


@click.command("tune")
@click.argument("path", type=click.Path(path_type=Path))
@click.argument("run_args", nargs=-1, type=click.UNPROCESSED, metavar="[-- RUN_ARGS...]")
@click.option("--out", type=click.Path(path_type=Path), default=None,
              help="Write the library's tuning file here (and its evidence, FILE.evidence.json, next to it); "
                   "an existing file is replaced only when mpimeter tune wrote it.")
@click.option("--format", "file_format", type=click.Choice(("auto", *_files.FORMATS)), default="auto",
              show_default=True, help="The file: auto is the library's own (Open MPI: openmpi-rules, MPICH: "
                                      "mpich-json); env: the plain variables (one algorithm per operation only).")
@click.option("--min-effect", type=float, default=0.05, show_default=True,
              help="An algorithm must beat the default by more than this fraction (0.05 = 5 %).")
@click.option("--library", type=click.Choice(TUNED_LIBRARIES), default=None,
              help="Tune this library only (needed with --out when the campaign has several).")
@click.option("--json", "as_json", is_flag=True, help="Print the evidence as JSON instead of tables.")
@click.option("--bench-dir", type=click.Path(path_type=Path), default=None,
              help="Where the binaries are (the library's algorithm list and, for MPICH, its built-in tree).")
@click.option("--verify", "verify_file", type=click.Path(path_type=Path), default=None,
              help="Run a campaign into PATH: the library's default against this tuning file, then gate.")
@click.option("--launches", type=int, default=DEFAULT_VERIFY_LAUNCHES, show_default=True,
              help="--verify: launches per side.")
@max_slowdown_option("--verify: the gate's tolerated slowdown of the tuned configuration, as `gate` takes it: a "
                     "fraction below 1 (0.05) or a percentage below 1000% (5%, 150%).")
@alpha_option
@analysis_settings_options
def command(path: Path, run_args: tuple[str, ...], out: Path | None, file_format: str, min_effect: float,
            library: str | None, as_json: bool, bench_dir: Path | None, verify_file: Path | None, launches: int,
            max_slowdown: str, alpha: float, **kw: Any) -> None:
    """Choose a library's collective algorithms from CAMPAIGN (PATH): per operation, process count
    and size, the algorithm alternative faster than the library's default by more than
    --min-effect (one-sided Wilcoxon rank-sum on per-launch medians, Holm over every (op, p,
    size, algorithm) compared), else the default; sizes next to each other with one choice form
    a range. With --out, writes the library's own file (checked as the library reads it first;
    nothing is written when it would be refused). With --verify FILE, PATH is a new campaign
    folder: FILE's library as it is against FILE set, gated (exit 1 when the tuned
    configuration is slower somewhere); RUN_ARGS after `--` go to mpimeter run.
    """
    check_alpha("tune", alpha)
    if verify_file is None:
        if run_args:
            fail("tune", f"{' '.join(run_args)}: RUN_ARGS go with --verify only")
        given_slowdown = click.get_current_context().get_parameter_source("max_slowdown") != ParameterSource.DEFAULT
        for flag, given in (("--launches", launches != DEFAULT_VERIFY_LAUNCHES), ("--max-slowdown", given_slowdown)):
            if given:
                fail("tune", f"{flag} goes with --verify only")
        if not (0 <= min_effect < 10):
            fail("tune", f"--min-effect {min_effect:g}: a fraction ≥ 0 and below 10 (0.05 = 5 %)")
        if out is not None:
            kind, folder = _kind(out), _kind(out.parent)
            if kind == "a directory" or (kind or "").startswith("unreadable"):
                fail("tune", f"--out {_shown(out)}: is {kind}; give a file in an existing folder")
            if folder != "a directory":
                fail("tune", f"--out {_shown(out)}: its folder is {folder or 'a file'}; give a file in an "
                             "existing folder")
        guarded("tune", lambda: _tune(str(path), out, file_format, min_effect, alpha, library, as_json, bench_dir, kw))
        return
    if out is not None or file_format != "auto" or library is not None:
        fail("tune", "--verify reads the library and format from FILE's evidence: do not give --out, --format or "
                     "--library with it")
    if not 1 <= launches <= 10000:
        fail("tune", f"--launches {launches}: 1 to 10000")
    # gate's own rule (cli.common.parse_fraction): a bare 5 is refused as a forgotten %, not read as 500 %
    slowdown = checked_slowdown_and_alpha("tune", max_slowdown, alpha)
    kind = _kind(verify_file)
    if kind is not None and kind.startswith("unreadable"):
        fail("tune", f"--verify {_shown(verify_file)}: is {kind}")
    kind = _kind(path)
    if kind != "missing":
        fail("tune", f"{_shown(path)} is {kind or 'a file'}: --verify runs a new campaign into a folder that "
                     "does not exist yet")
    extra = tuple(run_args) + (("--bench-dir", str(bench_dir)) if bench_dir is not None else ())
    guarded("tune", lambda: _verify_file(verify_file, path, launches, slowdown, alpha, as_json, extra, kw))
