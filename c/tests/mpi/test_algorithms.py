# SPDX-License-Identifier: BSD-3-Clause
"""`mpimeter-bench --list-algorithms`: the selectable collective algorithms, read from the
library's MPI_T control variables, are the ones the library's own tools list — Open MPI's
`ompi_info --param coll tuned --level 9` (every coll_tuned_<op>_algorithm with its valid values)
and MPICH's `mpivars` (every MPIR_CVAR_<OP>_INTRA_ALGORITHM, one name per item of its
description, each accepted by MPICH); and `mpimeter run --algorithms` runs them: the variable
read inside each launch is the one set, and each algorithm gives the default's results."""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import subprocess
import sys

import pandas as pd
import pytest

from conftest import REPO, bench_path, launcher, run_bench


@functools.lru_cache(maxsize=2)  # MPICH's whole listing starts ~10^3 processes: once per library
def _listed(lib: str) -> dict[str, dict]:
    doc = json.loads(run_bench(lib, 1, ["--list-algorithms"], timeout=120).stdout)
    return {v["variable"]: v for v in doc["algorithms"]}


def _ompi_info() -> dict[str, list[tuple[int, str]]]:
    text = subprocess.run(["ompi_info", "--param", "coll", "tuned", "--level", "9"], capture_output=True,
                          text=True, check=True).stdout
    out, current = {}, None
    for line in text.splitlines():
        m = re.search(r'parameter "(coll_tuned_\w+_algorithm)"', line)
        if m:
            current = m.group(1)
            continue
        m = re.search(r"Valid values: (.*)", line)
        if m and current:
            out[current] = [(int(v), n) for v, n in re.findall(r'(-?\d+):"([^"]*)"', m.group(1))]
            current = None
    return out


@pytest.mark.skipif(shutil.which("ompi_info") is None, reason="ompi_info not installed")
def test_open_mpi_algorithms_are_ompi_infos():
    ours = _listed("openmpi")
    theirs = _ompi_info()
    assert theirs and set(ours) == set(theirs)
    for name, choices in theirs.items():
        v = ours[name]
        assert [(c["value"], c["name"]) for c in v["choices"]] == choices
        assert v["set_by"] == "value" and v["env"] == "OMPI_MCA_" + name
        assert v["op"] == name[len("coll_tuned_"):-len("_algorithm")]
    assert ours["coll_tuned_allreduce_algorithm"]["choices"][0] == {"value": 0, "name": "ignore"}


@pytest.mark.skipif(shutil.which("mpivars") is None, reason="mpivars not installed")
def test_mpich_algorithm_variables_are_mpivars():
    ours = _listed("mpich")
    text = subprocess.run(["mpivars"], capture_output=True, text=True, check=True).stdout
    theirs = set(re.findall(r"^\s*(MPIR_CVAR_\w+_INTRA_ALGORITHM)\s*=", text, re.M))
    assert theirs and set(ours) == theirs
    allreduce = ours["MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM"]
    assert allreduce["op"] == "allreduce" and allreduce["set_by"] == "name"
    assert allreduce["env"] == "MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM"
    # no MPI_T enumeration: the choices are named in the description, and MPICH confirms them
    assert allreduce["choices_from"] == "library" and "recursive_doubling" in allreduce["description"]


# --- MPICH's names, confirmed by MPICH ---------------------------------------------------------

def _items(description: str) -> int:
    """The "name<spaces>- text" items of an MPICH description (mpivars prints the same text)."""
    return len(re.findall(r"[A-Za-z0-9_] +- ", description))


@pytest.mark.skipif(shutil.which("mpivars") is None, reason="mpivars not installed")
def test_mpich_names_are_the_ones_mpich_accepts():
    mpich_listing = _listed("mpich")
    text = subprocess.run(["mpivars"], capture_output=True, text=True, check=True).stdout
    descriptions = dict(re.findall(r"^\s*(MPIR_CVAR_\w+_INTRA_ALGORITHM)\s*=\S*\t(?:[^\t]*\t){4}(.*)$", text, re.M))
    assert descriptions and set(descriptions) == set(mpich_listing)
    for variable, v in mpich_listing.items():
        assert v["choices_from"] == "library", variable
        names = [c["name"] for c in v["choices"]]
        # one name per item of the description mpivars shows, each followed there by "<spaces>- ",
        # numbered in the order of the items (the variable's MPI_T value with that name set)
        assert len(names) == _items(descriptions[variable]) == len(set(names)), (variable, names)
        assert [c["value"] for c in v["choices"]] == list(range(len(names))), variable
        for name in names:
            assert re.search(re.escape(name) + r" +- ", descriptions[variable]), (variable, name)
    allreduce = [c["name"] for c in mpich_listing["MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM"]["choices"]]
    assert allreduce == ["auto", "nb", "smp", "recursive_doubling", "reduce_scatter_allgather"]


def test_mpich_refuses_the_suffixes_left_out():
    """What is not listed, MPICH refuses: "mp" is glued in the text as "algorithmsmp" too."""
    for value, ok in (("mp", False), ("smp", True)):
        proc = subprocess.run([str(bench_path("mpich")), "--list-algorithms", "--ops", "allreduce"],
                              capture_output=True, text=True, timeout=120,
                              env={**os.environ, "MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM": value})
        assert (proc.returncode == 0) == ok, proc.stderr
        if not ok:
            assert f"Invalid MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM value ({value})" in proc.stderr


def test_ops_lists_only_their_variables(lib):
    doc = json.loads(run_bench(lib, 1, ["--list-algorithms", "--ops", "allreduce,bcast"], timeout=120).stdout)
    assert sorted(v["op"] for v in doc["algorithms"]) == ["allreduce", "bcast"]
    assert all(len(v["choices"]) >= 3 for v in doc["algorithms"])


# --- a campaign of algorithms: the setting takes effect, the results stay right ----------------

TWO = {"openmpi": ("recursive_doubling", "ring"), "mpich": ("recursive_doubling", "reduce_scatter_allgather")}


def test_a_campaign_of_two_algorithms_runs_them(lib, tmp_path):
    out = tmp_path / "algs"
    done = subprocess.run(
        [sys.executable, "-m", "mpimeter", "run", "--np", "2", "--launches", "1", "--mpi", lib,
         "--algorithms", f"allreduce={','.join(TWO[lib])}", "--ops", "allreduce", "--sizes", "8,4096",
         "--nrep", "10", "--seed", "29", "--out", str(out), "--no-analyze"],
        capture_output=True, text=True, timeout=600, cwd=REPO)
    assert done.returncode == 0, done.stdout + done.stderr
    disk = json.loads((out / "campaign.json").read_text())
    alternatives = {a["name"]: a for a in disk["alternatives"]}
    assert sorted(alternatives) == sorted([lib] + [f"{lib}-allreduce-{name}" for name in TWO[lib]])
    variable = "coll_tuned_allreduce_algorithm" if lib == "openmpi" else "MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM"
    for name, alt in alternatives.items():
        meta = json.loads((out / name / "launches" / "000" / "meta.json").read_text())
        assert meta["status"] == "complete"
        inside = meta["mpi"]["mpi_t"]["selected"][variable]  # read by MPI_T inside the launch
        if name == lib:  # the baseline: the library's own choice (Open MPI "ignore", MPICH "auto")
            assert "algorithms" not in alt and inside == "0"
            continue
        record = alt["algorithms"]["allreduce"]
        assert record["variable"] == variable and record["name"] == name.rsplit("-", 1)[1]
        assert alt["env"][record["env"]] == record["value"]
        assert inside == str(record["mpi_t_value"]) != "0"


@pytest.mark.parametrize("np", [2, 3])
def test_each_algorithm_gives_the_result_of_the_default(lib, np):
    """The checker of the mock-ups compares allreduce (here run with each algorithm) with reduce +
    bcast byte for byte over datatypes, reduction ops and counts."""
    checker = REPO / "build" / lib / "tests" / "mm_mockup_check"
    listed = json.loads(run_bench(lib, 1, ["--list-algorithms", "--ops", "allreduce"], timeout=120).stdout)
    v = listed["algorithms"][0]
    for name in TWO[lib]:
        value = next(str(c["value"]) if v["set_by"] == "value" else c["name"] for c in v["choices"] if c["name"] == name)
        env = {**os.environ, v["env"]: value}
        if lib == "openmpi":
            env["OMPI_MCA_coll_tuned_use_dynamic_rules"] = "1"
        cmd = launcher(lib, np) + [str(checker), "allreduce-as-reduce-bcast"]
        if lib == "openmpi":  # mpirun passes the variables on with -x
            cmd[1:1] = ["-x", v["env"], "-x", "OMPI_MCA_coll_tuned_use_dynamic_rules"]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env)
        assert proc.returncode == 0, (name, proc.stdout + proc.stderr)
        assert proc.stdout.strip().splitlines()[-1].endswith("0 mismatches, 0 failed"), (name, proc.stdout)


# --- a written tuning file: the library reads it -----------------------------------------------

# the variables that show, read by MPI_T inside the launch, which file the library was given
FILE_VARIABLES = {"openmpi": "coll_tuned_dynamic_rules_filename", "mpich": "MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE"}


def _tuning_file(lib: str, folder) -> tuple:
    """mpimeter tune's writer: allreduce at 2 ranks up to 4 KiB with the second algorithm of TWO,
    checked by the validator tune runs before it writes."""
    from mpimeter.campaign.tuning_bench import mpi_library_file, verify_env
    from mpimeter.io import tuning_files as tf

    choice = next(c for c in _listed(lib)["coll_tuned_allreduce_algorithm" if lib == "openmpi"
                                         else "MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM"]["choices"]
                  if c["name"] == TWO[lib][1])
    value = str(choice["value"]) if lib == "openmpi" else choice["name"]
    rules = [tf.RangeRule(op="allreduce", nprocs=2, size_min=8, size_max=4096, value=value, params={})]
    provenance = {"campaign": "test_algorithms", "library": lib}
    if lib == "openmpi":
        text = tf.openmpi_rules(rules, provenance)
        tf.validate_openmpi_rules(text)
        path = folder / "allreduce.rules"
    else:
        builtin = tf.mpich_builtin(mpi_library_file(bench_path(lib)))
        text = tf.mpich_json_text(tf.mpich_json(rules, builtin), provenance)
        tf.validate_mpich_json(text, builtin.containers)
        path = folder / "allreduce.json"
    path.write_text(text)
    return path, verify_env(lib, tf.FORMAT_OF_LIBRARY[lib], path, {})


def _launch_with(lib: str, env_vars: dict, out) -> subprocess.CompletedProcess:
    # no copy probe (conftest.run_bench says why); barrier starts: what is asserted is that the
    # library read the file and the launch ran, and a window start on a loaded machine can leave a
    # size of 10 repetitions without a valid one
    cmd = launcher(lib, 2) + [str(bench_path(lib)), "--ops", "allreduce", "--sizes", "8,4096", "--nrep", "10",
                              "--procsync", "barrier", "--copy-probe-bytes", "0", "--out", str(out)]
    if lib == "openmpi":  # mpirun passes the variables on with -x
        for name in env_vars:
            cmd[1:1] = ["-x", name]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300, env={**os.environ, **env_vars})


def _unread(path) -> None:
    """Sets the file's access time before its modification time: the next read moves it (relatime)."""
    st = path.stat()
    os.utime(path, (st.st_mtime - 100, st.st_mtime))


def _was_read(path) -> bool:
    st = path.stat()
    return st.st_atime > st.st_mtime


def test_a_written_tuning_file_is_read_by_the_library(lib, tmp_path):
    """The file tune writes, set as tune --verify sets it: the launch runs and gives right results,
    MPI_T inside it shows the variable naming the file (Open MPI: and the dynamic rules switched
    on, recorded as the boolean it is), and the library read the file (its access time moved; a
    launch without the switch leaves an Open MPI rules file unread, and MPICH aborts on a tree it
    cannot parse, so a launch that ran has parsed it)."""
    path, env_vars = _tuning_file(lib, tmp_path)
    _unread(path)
    out = tmp_path / "tuned"
    proc = _launch_with(lib, env_vars, out)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    meta = json.loads((out / "meta.json").read_text())
    assert meta["status"] == "complete"
    selected = meta["mpi"]["mpi_t"]["selected"]
    assert meta["environment"][next(iter(env_vars)) if lib == "mpich" else
                               "OMPI_MCA_coll_tuned_dynamic_rules_filename"] == str(path.resolve())
    assert "?" not in selected.values(), selected
    if lib == "openmpi":
        assert selected[FILE_VARIABLES[lib]] == str(path.resolve())
        assert selected["coll_tuned_use_dynamic_rules"] == "true"
    else:
        # MPICH 4.0's MPI_T reads a string variable's default, not the value the environment set
        # (measured: MPIR_CVAR_IBCAST_TREE_TYPE=knomial_1 reads "kary"): the record holds the
        # variable, empty; the environment record and the file's access time show the setting
        assert selected[FILE_VARIABLES[lib]] == ""
    assert _was_read(path), "the library did not read the tuning file"
    raw = pd.read_csv(out / "raw.csv")
    assert set(raw["size"]) == {8, 4096}

    if lib == "openmpi":  # the control: the file named, the rules off — not read, recorded false
        _unread(path)
        off = tmp_path / "off"
        proc = _launch_with(lib, {**env_vars, "OMPI_MCA_coll_tuned_use_dynamic_rules": "0"}, off)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        selected = json.loads((off / "meta.json").read_text())["mpi"]["mpi_t"]["selected"]
        assert selected["coll_tuned_use_dynamic_rules"] == "false"
        assert selected[FILE_VARIABLES[lib]] == str(path.resolve())
        assert not _was_read(path)
    else:  # the control: a tree MPICH cannot parse aborts the launch
        broken = tmp_path / "broken.json"
        text = path.read_text()
        broken.write_text(text[:len(text) // 2])
        proc = _launch_with(lib, {FILE_VARIABLES[lib]: str(broken.resolve())}, tmp_path / "broken")
        assert proc.returncode != 0
        assert "csel" in proc.stderr, proc.stderr
