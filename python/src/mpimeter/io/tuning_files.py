# SPDX-License-Identifier: BSD-3-Clause
"""The libraries' own collective-tuning files, written from a tuning (``mpimeter tune``) and
checked before they are written: a file a library would reject is never written.

- ``openmpi-rules``: Open MPI 4.1's dynamic rules file (``coll_tuned_dynamic_rules_filename``,
  read by ``ompi_coll_tuned_read_rules_config_file`` in ompi/mca/coll/tuned/
  coll_tuned_dynamic_file.c): whitespace-separated integers, ``#`` to the end of the line a
  comment — the number of collectives; per collective its id (the ``COLLTYPE`` enumeration of
  ompi/mca/coll/base/coll_base_functions.h) and its number of communicator sizes; per
  communicator size (ascending: the lookup takes the last one ≤ the communicator's size, or the
  first) the size and its number of message-size rules; per rule (ascending, the first at 0:
  the reader refuses anything else) the message size from which it holds, the algorithm (0:
  the library's own decision), the fan-in/out and the segment size. The message size is
  Open MPI's: the bytes of the whole vector for allreduce, bcast and reduce, times the
  communicator size for the collectives whose size is one rank's block
  (coll_tuned_decision_dynamic.c).
- ``mpich-json``: MPICH 4.0's collective-selection tree (``MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE``,
  read by ``MPIR_Csel_create_from_file`` in src/mpi/coll/src/csel.c): nested objects whose keys
  are tests (``collective=``, ``comm_size<=N``, ``avg_msg_size<=N``, ..., ``…=any`` last) and
  whose leaves are ``{"algorithm=MPIR_<Coll>_intra_<name>": {}}``. The file replaces the
  library's whole built-in tree, so every collective the file does not tune — and every size
  and communicator size it does not — keeps the library's own subtree, read from the library
  itself (:func:`mpich_builtin`). ``avg_msg_size`` (allreduce, bcast, reduce, alltoall) is one
  rank's vector; ``total_msg_size`` (the others) that times the communicator size.
- ``env``: the plain variables, possible only where one algorithm holds at every size and
  process count of an operation (the variables say nothing of sizes).

Every file starts with its provenance (machine, library version, campaign id, date) in the
format's comment (the JSON file: a ``"comment=…"`` would be a key MPICH refuses, so it goes in a
file next to it: the caller's business; :func:`provenance_lines` gives the lines).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mpimeter.errors import MpimeterError
from mpimeter.launch_vars import excerpt, refusal

# The largest tuning file read back: an MPICH file holds the library's whole built-in tree
# (18 KiB in MPICH 4.0), repeated per tuned range and process count; 16 MiB leaves room for
# hundreds of both and bounds what a hostile file costs to read.
MAX_FILE_BYTES = 16 * 2**20

FORMATS = ("openmpi-rules", "mpich-json", "env")
# every format's header says so in its first two lines: how `tune --out` knows a file it may
# replace (CONTRIBUTING.md: outputs never replace what they do not own)
MARK = "written by mpimeter tune"
FORMAT_OF_LIBRARY = {"openmpi": "openmpi-rules", "mpich": "mpich-json"}
LIBRARY_OF_FORMAT = {v: k for k, v in FORMAT_OF_LIBRARY.items()}

# Open MPI 4.1, ompi/mca/coll/base/coll_base_functions.h: enum COLLTYPE (COLLCOUNT = 22)
OMPI_COLL_IDS = {"allgather": 0, "allgatherv": 1, "allreduce": 2, "alltoall": 3, "alltoallv": 4, "alltoallw": 5,
                 "barrier": 6, "bcast": 7, "exscan": 8, "gather": 9, "gatherv": 10, "reduce": 11,
                 "reduce_scatter": 12, "reduce_scatter_block": 13, "scan": 14, "scatter": 15, "scatterv": 16,
                 "neighbor_allgather": 17, "neighbor_allgatherv": 18, "neighbor_alltoall": 19,
                 "neighbor_alltoallv": 20, "neighbor_alltoallw": 21}
OMPI_COLLCOUNT = 22
# what multiplies mpimeter's size (one rank's block, or the whole vector) into the library's
# message size, per operation a file can tune; "p": times the communicator size
OMPI_MESSAGE = {"allreduce": "1", "bcast": "1", "reduce": "1", "allgather": "p", "alltoall": "p", "gather": "p",
                "scatter": "p", "reduce_scatter_block": "p"}
MPICH_MESSAGE = {"allreduce": ("avg_msg_size", "1"), "bcast": ("avg_msg_size", "1"), "reduce": ("avg_msg_size", "1"),
                 "alltoall": ("avg_msg_size", "1"), "allgather": ("total_msg_size", "p"),
                 "gather": ("total_msg_size", "p"), "scatter": ("total_msg_size", "p"),
                 "reduce_scatter_block": ("total_msg_size", "p")}


class TuningFileError(ValueError, MpimeterError):
    """A file that cannot be written, or that a library would reject: one line saying why."""


@dataclass(frozen=True, kw_only=True)
class RangeRule:
    """One operation at one process count from ``size_min`` (mpimeter's size) on: the setting
    to use (None: the library's default), up to the next rule; ``size_max`` the largest size
    measured in it (beyond the last rule's the library's default holds again)."""

    op: str
    nprocs: int
    size_min: int
    size_max: int
    value: str | None
    params: Mapping[str, str]


def provenance_lines(provenance: Mapping[str, Any]) -> list[str]:
    """``key: value`` lines, one per fact, with no control character (they go into comments)."""
    out = []
    for key, value in provenance.items():
        text = ", ".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)
        out.append(f"{key}: " + re.sub(r"[\x00-\x1f\x7f]", " ", text))
    return out


def _message(op: str, size: int, nprocs: int, table: Mapping[str, str]) -> int:
    return size * (nprocs if table[op] == "p" else 1)


def _check_ops(rules: Sequence[RangeRule], table: Mapping, fmt: str) -> None:
    bad = sorted({r.op for r in rules} - set(table))
    if bad:
        raise TuningFileError(f"--format {fmt} cannot tune {', '.join(bad)} (it tunes {', '.join(sorted(table))}); "
                              "use --format env, or tune only these operations")


def written_by_tune(head: bytes) -> bool:
    """Whether a file's first bytes are a file ``mpimeter tune`` wrote: MARK in its first two lines."""
    return any(MARK.encode() in line for line in head.split(b"\n")[:2])


# ---- Open MPI 4.1 dynamic rules -------------------------------------------------------------

def openmpi_rules(rules: Sequence[RangeRule], provenance: Mapping[str, Any]) -> str:
    """The rules file's text (see the module's docstring)."""
    _check_ops(rules, OMPI_MESSAGE, "openmpi-rules")
    lines = ["# Open MPI dynamic rules for the tuned collectives (coll_tuned_dynamic_rules_filename, 4.1 format)",
             f"# {MARK}; use with OMPI_MCA_coll_tuned_use_dynamic_rules=1 and",
             "# OMPI_MCA_coll_tuned_dynamic_rules_filename=<this file>",
             *("# " + line for line in provenance_lines(provenance))]
    ops = sorted({r.op for r in rules}, key=lambda op: OMPI_COLL_IDS[op])
    lines.append(f"{len(ops)}  # collectives")
    for op in ops:
        mine = [r for r in rules if r.op == op]
        counts = sorted({r.nprocs for r in mine})
        comm: list[tuple[int, list[tuple[int, int, int, int]]]] = []
        # the lookup takes the last communicator size ≤ the communicator's, or the first: rules for
        # the sizes around the measured ones keep the library's decision where nothing was measured
        if counts[0] > 1:
            comm.append((1, [(0, 0, 0, 0)]))
        for p in counts:
            msgs: list[tuple[int, int, int, int]] = [(0, 0, 0, 0)]
            for r in sorted((r for r in mine if r.nprocs == p), key=lambda r: r.size_min):
                alg = 0 if r.value is None else _count(r.value, f"{op}'s algorithm")
                fan = _count(r.params.get("chain_fanout") or "0", f"{op}'s chain_fanout")
                seg = _count(r.params.get("segmentsize") or "0", f"{op}'s segmentsize")
                msgs.append((_message(op, r.size_min, p, OMPI_MESSAGE), alg, fan, seg))
            last = max(r.size_max for r in mine if r.nprocs == p)
            msgs.append((_message(op, last, p, OMPI_MESSAGE) + 1, 0, 0, 0))
            comm.append((p, _collapse(msgs)))
            if p + 1 not in counts:
                comm.append((p + 1, [(0, 0, 0, 0)]))
        lines += [f"{OMPI_COLL_IDS[op]}  # {op}", f"{len(comm)}  # communicator sizes"]
        for p, msgs in comm:
            lines += [f"{p}  # communicator size", f"{len(msgs)}  # message sizes"]
            lines += [f"{m} {a} {f} {s}  # from {m} B: {'library default' if a == 0 else f'algorithm {a}'}"
                      for m, a, f, s in msgs]
    return "\n".join(lines) + "\n"


def _count(text: str, what: str) -> int:
    """A recorded setting as the integer a rules file holds (campaign.json is untrusted)."""
    if not isinstance(text, str) or not re.fullmatch(r"0|[1-9][0-9]{0,9}", text):
        raise TuningFileError(f"the campaign records {what} as {excerpt(str(text))}: a rules file holds a decimal "
                              "integer ≥ 0 there")
    return int(text)


def _collapse(msgs: list[tuple[int, int, int, int]]) -> list[tuple[int, int, int, int]]:
    """Rules in ascending message size, a later rule at the same size replacing an earlier one,
    and a rule that repeats the one before it left out."""
    by_size: dict[int, tuple[int, int, int, int]] = {}
    for m in msgs:
        by_size[m[0]] = m
    out: list[tuple[int, int, int, int]] = []
    for m in sorted(by_size.values()):
        if out and out[-1][1:] == m[1:]:
            continue
        out.append(m)
    return out


def _ompi_tokens(text: str) -> list[tuple[int, str]]:
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        for token in line.split("#", 1)[0].split():
            out.append((number, token))
    return out


def validate_openmpi_rules(text: str, algorithm_counts: Mapping[str, int] | None = None) -> dict[str, Any]:
    """Reads a rules file as Open MPI 4.1 does, more strictly (a decimal integer per token: its
    reader takes ``010`` as octal and skips stray characters); returns the rules
    {op: {comm size: [(message size, algorithm, faninout, segsize)]}}. ``algorithm_counts``: op →
    the number of algorithms the library lists (``mpimeter-bench --list-algorithms``), to check
    the algorithm numbers. Raises :class:`TuningFileError` naming the line."""
    tokens = _ompi_tokens(text)
    pos = 0
    id_to_op = {v: k for k, v in OMPI_COLL_IDS.items()}

    def take(what: str, low: int = 0, high: int | None = None) -> int:
        nonlocal pos
        if pos >= len(tokens):
            raise TuningFileError(f"the rules file ends where {what} was expected")
        line, tok = tokens[pos]
        pos += 1
        if not re.fullmatch(r"0|[1-9][0-9]*", tok):
            raise TuningFileError(f"rules file line {line}: {what} must be a decimal integer ≥ 0, "
                                  f"found {excerpt(tok)}")
        value = int(tok) if len(tok) <= 19 else 2**63  # a longer one is out of bounds (and int() refuses 4300 digits)
        if value < low or (high is not None and value > high) or value > 2**62:
            shown = tok if len(tok) <= 19 else f"{tok[:12]}… ({len(tok)} digits)"
            raise TuningFileError(f"rules file line {line}: {what} {shown} outside "
                                  f"{low}…{high if high is not None else '2^62'}")
        return value

    out: dict[str, Any] = {}
    for _ in range(take("the number of collectives", 0, OMPI_COLLCOUNT)):
        cid = take("a collective id", 0, OMPI_COLLCOUNT - 1)
        op = id_to_op[cid]
        if op in out:
            raise TuningFileError(f"rules file: collective {op} ({cid}) given twice")
        comms: dict[int, list[tuple[int, int, int, int]]] = {}
        last_cs = -1
        for _ in range(take(f"{op}'s number of communicator sizes", 1)):
            cs = take(f"{op}: a communicator size")
            if cs <= last_cs:
                raise TuningFileError(f"rules file: {op}: communicator sizes must ascend ({cs} after {last_cs})")
            last_cs = cs
            msgs = []
            for k in range(take(f"{op} at {cs} ranks: the number of message sizes", 1)):
                ms = take(f"{op} at {cs} ranks: a message size")
                top = None if algorithm_counts is None or op not in algorithm_counts else algorithm_counts[op] - 1
                alg = take(f"{op} at {cs} ranks: the algorithm", 0, top)
                fan = take(f"{op} at {cs} ranks: the fan-in/out", 0, 2**31 - 1)
                seg = take(f"{op} at {cs} ranks: the segment size", 0, 2**31 - 1)
                if k == 0 and ms != 0:
                    raise TuningFileError(f"rules file: {op} at {cs} ranks: the first message size must be 0 "
                                          f"(Open MPI refuses the file otherwise), found {ms}")
                if msgs and ms <= msgs[-1][0]:
                    raise TuningFileError(f"rules file: {op} at {cs} ranks: message sizes must ascend "
                                          f"({ms} after {msgs[-1][0]})")
                msgs.append((ms, alg, fan, seg))
            comms[cs] = msgs
        out[op] = comms
    if pos != len(tokens):
        raise TuningFileError(f"rules file line {tokens[pos][0]}: {excerpt(tokens[pos][1])} after the last rule")
    return out


# ---- MPICH 4.0 JSON tuning file ---------------------------------------------------------------

@dataclass(frozen=True)
class MpichBuiltin:
    """What the library holds: its built-in selection tree of the MPIR layer (the one the file
    replaces) and every container name it knows (``algorithm=MPIR_…``)."""

    tree: Mapping[str, Any]
    containers: frozenset[str]


def mpich_builtin(library: Path) -> MpichBuiltin:
    """Reads the MPIR-layer selection tree and the container names out of an MPICH shared
    library (the JSON and the names are text in it). Raises :class:`TuningFileError` when the
    library holds none (not MPICH ≥ 4, or stripped of them)."""
    data = Path(library).read_bytes()
    containers = frozenset(m.decode() for m in re.findall(rb"algorithm=MPIR_[A-Za-z0-9_]+", data))
    tree = None
    for m in re.finditer(rb'\{"collective=', data):
        end = data.find(b"\0", m.start())
        try:
            doc = json.loads(data[m.start():end].decode())
        except (UnicodeDecodeError, json.JSONDecodeError):
            continue
        if isinstance(doc, dict) and any("algorithm=MPIR_" in key for key in _keys(doc)):
            tree = doc
            break
    if tree is None or not containers:
        raise TuningFileError(f"{library}: holds no MPIR collective-selection tree (MPICH ≥ 4.0 has one)")
    return MpichBuiltin(tree, containers)


def _keys(node: Any):
    if isinstance(node, dict):
        for k, v in node.items():
            yield k
            yield from _keys(v)


def mpich_container(op: str, value: str) -> str:
    """The container name MPICH's JSON uses for ``MPIR_CVAR_<OP>_INTRA_ALGORITHM=value``."""
    coll = op[:1].upper() + op[1:]
    return f"algorithm=MPIR_{coll}_allcomm_nb" if value == "nb" else f"algorithm=MPIR_{coll}_intra_{value}"


def mpich_json(rules: Sequence[RangeRule], builtin: MpichBuiltin) -> dict[str, Any]:
    """The tree: the library's own, with each tuned collective's subtree wrapped in tests of the
    communicator size and the message size that choose the tuned algorithm where the tuning
    chose one and the library's subtree everywhere else."""
    _check_ops(rules, MPICH_MESSAGE, "mpich-json")
    tree = dict(builtin.tree)
    for op in sorted({r.op for r in rules}):
        key = f"collective={op}"
        if key not in tree:
            raise TuningFileError(f"the library's built-in tree has no {key}")
        own = tree[key]
        test, _ = MPICH_MESSAGE[op]
        by_comm: dict[str, Any] = {}
        mine = [r for r in rules if r.op == op]
        for p in sorted({r.nprocs for r in mine}):
            if p > 1:
                by_comm[f"comm_size<{p}"] = own
            sizes: dict[str, Any] = {}
            ranges = sorted((r for r in mine if r.nprocs == p), key=lambda r: r.size_min)
            for i, r in enumerate(ranges):
                top = ranges[i + 1].size_min - 1 if i + 1 < len(ranges) else r.size_max
                lo = _message(op, r.size_min, p, {op: MPICH_MESSAGE[op][1]})
                if i == 0 and lo > 0:
                    sizes[f"{test}<{lo}"] = own
                hi = _message(op, top, p, {op: MPICH_MESSAGE[op][1]})
                sizes[f"{test}<={hi}"] = own if r.value is None else _guarded(op, mpich_container(op, r.value), own)
            sizes[f"{test}=any"] = own
            by_comm[f"comm_size<={p}"] = sizes
        by_comm["comm_size=any"] = own
        tree[key] = {"comm_type=intra": by_comm, "comm_type=inter": own}
    return tree


def _guarded(op: str, container: str, own: Any) -> dict[str, Any]:
    """The chosen algorithm where MPICH's own restrictions hold, the library's subtree elsewhere.
    A file's choice, unlike MPIR_CVAR_<OP>_INTRA_ALGORITHM, is not checked by the library
    (measured with MPICH 4.0.2: reduce_scatter_allgather chosen for allreduce by the file fails
    the assertion count >= pof2 on a 1-element allreduce; with the variable it falls back): the
    reductions keep the library's decision for a non-commutative or user-defined operation and
    for counts below the communicator's power of two (the tests MPICH's own tree makes:
    is_commutative, is_op_built_in, count<pow2), the other collectives with a count for counts
    below it."""
    leaf = {container: {}}
    if op in ("allreduce", "reduce"):
        return {"is_commutative=no": own, "is_op_built_in=no": own, "count<pow2": own, "count=any": leaf}
    if op in ("bcast", "allgather", "reduce_scatter_block"):
        return {"count<pow2": own, "count=any": leaf}
    return leaf


def mpich_json_text(tree: Mapping[str, Any], provenance: Mapping[str, Any]) -> str:
    """The file: the provenance as ``//`` comment lines (json-c, MPICH's parser, takes them; a
    key would be a test MPICH refuses), then the tree."""
    head = ["// MPICH collective selection (MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE, MPICH 4.0 format)",
            f"// {MARK}: the library's built-in tree with the tuned choices",
            *("// " + line for line in provenance_lines(provenance))]
    return "\n".join(head) + "\n" + json.dumps(tree, indent=1) + "\n"


def _strip_comments(text: str) -> str:
    """The leading ``//`` lines off (the only comments the writer makes)."""
    lines = text.splitlines()
    while lines and lines[0].lstrip().startswith("//"):
        lines.pop(0)
    return "\n".join(lines)


_MPICH_TESTS = re.compile(
    r"(collective=[a-z_]+|comm_type=(intra|inter)|is_multi_threaded=(yes|no)|comm_size=(pow2|node_comm_size|any)"
    r"|comm_size<=?[0-9]+|count<=[0-9]+|count<pow2|count=any|(avg|total)_msg_size(=any|<=?[0-9]+)"
    r"|is_(commutative|sendbuf_inplace|op_built_in|block_regular|node_consecutive)=(yes|no)"
    r"|comm_avg_ppn<=[0-9]+|comm_hierarchy=(parent|node_roots|node|flat|any))")
_ANY = re.compile(r"^(comm_size|avg_msg_size|total_msg_size|count)=any$")
_NEEDS_NEXT = re.compile(r"^(comm_size<=?|comm_size=pow2|comm_size=node_comm_size|count<=|count<pow2|"
                         r"(avg|total)_msg_size<=?|comm_avg_ppn<=)")


def validate_mpich_json(text: str, containers: frozenset[str] | None = None) -> None:
    """Checks a tuning file as MPICH 4.0's reader (csel.c parse_json_tree, validate_tree) does:
    JSON objects only; every key a test it knows or, as an object's first key, a container
    (checked against ``containers``, the library's names, when given); an ``…=any`` test last
    among its siblings; a range test followed by another sibling (its failure path); no empty
    object except a container's. Raises :class:`TuningFileError` naming the path."""
    try:
        doc = json.loads(_strip_comments(text))
    except json.JSONDecodeError as exc:
        raise TuningFileError(f"not JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})") from None
    except RecursionError:
        raise TuningFileError("nests objects too deeply to be read") from None

    def walk(node: Any, path: str) -> None:
        if not isinstance(node, dict):
            raise TuningFileError(f"{excerpt(path) if path else 'the file'}: a JSON object is expected, found "
                                  f"{type(node).__name__}")
        keys = list(node)
        if not keys:
            raise TuningFileError(f"{excerpt(path) if path else 'the file'}: an empty object (a test needs a subtree)")
        first = keys[0].replace(" ", "")
        if first.startswith(("algorithm=", "composition=")):
            if containers is not None and first not in containers:
                raise TuningFileError(f"{excerpt(path)}: {excerpt(first)} is not an algorithm of this library")
            return
        for i, key in enumerate(keys):
            k = key.replace(" ", "")
            if not _MPICH_TESTS.fullmatch(k):
                raise TuningFileError(f"{excerpt(path + '/' + key)}: not a test MPICH 4.0 knows")
            last = i == len(keys) - 1
            if _ANY.match(k) and not last:
                raise TuningFileError(f"{excerpt(path + '/' + key)}: an '=any' test must be the last of its siblings")
            if _NEEDS_NEXT.match(k) and last:
                raise TuningFileError(f"{excerpt(path + '/' + key)}: a range test needs a sibling after it (end with "
                                      "'=any')")
            walk(node[key], f"{path}/{key}")

    walk(doc, "")


# ---- the plain variables --------------------------------------------------------------------

def env_settings(library: str, rules: Sequence[RangeRule], provenance: Mapping[str, Any]) -> str:
    """``NAME=value`` lines under ``#`` comments: one algorithm per operation at every size and
    process count, else :class:`TuningFileError`."""
    lines = [f"# {library} collective algorithm settings {MARK}",
             *("# " + line for line in provenance_lines(provenance))]
    chosen: dict[str, set] = {}
    for r in rules:
        chosen.setdefault(r.op, set()).add(r.value)
    mixed = sorted(op for op, values in chosen.items() if len(values) > 1)
    if mixed:
        raise TuningFileError(f"the choice for {', '.join(mixed)} differs by size or process count, which plain "
                              f"variables cannot say: use --format {FORMAT_OF_LIBRARY[library]}")
    settings = {}
    for op, values in sorted(chosen.items()):
        (value,) = values
        if value is None:
            continue
        if library == "openmpi":
            settings["OMPI_MCA_coll_tuned_use_dynamic_rules"] = "1"
            settings[f"OMPI_MCA_coll_tuned_{op}_algorithm"] = value
            for r in rules:
                if r.op == op:
                    for k, v in r.params.items():
                        settings[f"OMPI_MCA_coll_tuned_{op}_algorithm_{k}"] = v
        else:
            settings[f"MPIR_CVAR_{op.upper()}_INTRA_ALGORITHM"] = value
    for name, value in sorted(settings.items()):  # the values come from campaign.json: untrusted
        why = refusal(name, value)
        if why is not None:
            raise TuningFileError(f"the campaign records a setting no tuning file may hold: {why}")
    if not settings:
        lines.append("# the library's default is best everywhere measured: nothing to set")
    lines += [f"{k}={v}" for k, v in sorted(settings.items())]
    return "\n".join(lines) + "\n"


def validate_env(text: str) -> dict[str, str]:
    """Every line a comment, empty, or ``NAME=value`` of a variable a file may set with a value
    of its type (mpimeter.launch_vars); the settings."""
    settings: dict[str, str] = {}
    for number, line in enumerate(text.split("\n"), 1):
        if line.startswith("#") or not line:
            continue
        name, eq, value = line.partition("=")
        if not eq:
            raise TuningFileError(f"settings line {number}: {excerpt(line)} is not NAME=value")
        why = refusal(name, value)
        if why is not None:
            raise TuningFileError(f"settings line {number}: {why}")
        if name in settings:
            raise TuningFileError(f"settings line {number}: {name} is set twice")
        settings[name] = value
    return settings
