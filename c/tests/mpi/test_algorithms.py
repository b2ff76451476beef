"""`mpimeter-bench --list-algorithms`: the selectable collective algorithms, read from the
library's MPI_T control variables, are the ones the library's own tools list — Open MPI's
`ompi_info --param coll tuned --level 9` (every coll_tuned_<op>_algorithm with its valid values)
and MPICH's `mpivars` (every MPIR_CVAR_<OP>_INTRA_ALGORITHM)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest

from conftest import run_bench


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
    # no MPI_T enumeration: the choices are named in the description only, passed on as it is
    assert allreduce["choices"] == [] and "recursive_doubling" in allreduce["description"]
