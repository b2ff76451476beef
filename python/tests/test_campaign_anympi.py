# SPDX-License-Identifier: BSD-3-Clause
"""Any MPI library built: `--launcher local` from the build's record (mpi.json, written by
CMakeLists.txt), library names as folder names, and the record read as untrusted input."""

import json
import os
import stat
import pytest
from click.testing import CliRunner

from mpimeter.campaign import launcher
from mpimeter.campaign.plan import PlanError
from mpimeter.cli import main


def _build(bench, name, record):
    binary = bench / name / "bin" / "mpimeter-bench"
    binary.parent.mkdir(parents=True)
    binary.write_text("#!/bin/sh\n")
    binary.chmod(binary.stat().st_mode | stat.S_IXUSR)
    if record is not None:
        (bench / name / "mpi.json").write_text(json.dumps(record) if isinstance(record, dict) else record)
    return binary


def test_a_library_of_any_name_launches_with_the_mpiexec_its_build_found(tmp_path):
    mpiexec = tmp_path / "intel" / "mpiexec"
    mpiexec.parent.mkdir()
    mpiexec.write_text("#!/bin/sh\n")
    mpiexec.chmod(0o755)
    _build(tmp_path, "intelmpi", {"schema_version": 1, "library": "intelmpi", "mpiexec": str(mpiexec),
                                  "launcher": ""})
    assert launcher.local_template("intelmpi", bench_dir=tmp_path) == f"{mpiexec} -n {{np}} {{cmd}}"
    assert launcher.found_libraries(tmp_path) == ["intelmpi"]


def test_the_template_set_at_build_time_is_local(tmp_path):
    _build(tmp_path, "cray-mpich", {"library": "cray-mpich", "mpiexec": "",
                                    "launcher": "srun --mpi=pmi2 -n {np} {cmd}"})
    assert launcher.resolve_template("local", "cray-mpich", ["UCX_TLS"], bench_dir=tmp_path) == \
        "srun --mpi=pmi2 -n {np} {cmd}"


def test_open_mpi_from_another_prefix_keeps_its_flags(tmp_path):
    mpirun = tmp_path / "ompi5" / "mpirun"
    mpirun.parent.mkdir()
    mpirun.write_text("#!/bin/sh\n")
    mpirun.chmod(0o755)
    _build(tmp_path, "openmpi", {"library": "openmpi", "mpiexec": str(mpirun), "launcher": ""})
    assert launcher.local_template("openmpi", ["A"], as_root=True, bench_dir=tmp_path) == \
        f"{mpirun} --allow-run-as-root --oversubscribe -x A -np {{np}} {{cmd}}"


def test_the_simgrid_build_and_folders_without_a_record_are_not_libraries(tmp_path):
    _build(tmp_path, "smpi", None)
    _build(tmp_path, "notes", None)
    assert launcher.found_libraries(tmp_path) == []


@pytest.mark.parametrize("record, message", [
    ("{", "cannot read it"),
    ('["x"]', "not a build record"),
    ({"library": "x", "mpiexec": 3}, "not a build record"),
    ({"library": "x", "launcher": "mpiexec -n 4 ./a.out"}, "needs both {np} and {cmd}"),
])
def test_a_bad_record_is_refused_in_one_line(tmp_path, record, message):
    _build(tmp_path, "x", record)
    with pytest.raises(PlanError, match="mpi.json: ") as info:
        launcher.local_template("x", bench_dir=tmp_path)
    assert message in str(info.value) and "\n" not in str(info.value)
    assert launcher.found_libraries(tmp_path) == []


@pytest.mark.parametrize("name", ["a/b", "../x", ".hidden", "-n", "x y", "é", "a" * 65])
def test_a_library_name_must_be_a_folder_name(tmp_path, name):
    with pytest.raises(PlanError, match="a library name is a folder of the bench dir"):
        launcher.check_binary(tmp_path, name)
    with pytest.raises(PlanError, match="a library name is a folder of the bench dir"):
        launcher.local_template(name, bench_dir=tmp_path)


def test_no_launcher_known_says_how_to_set_one(tmp_path):
    _build(tmp_path, "mvapich", {"library": "mvapich", "mpiexec": "", "launcher": ""})
    with pytest.raises(PlanError, match=r"LAUNCHER='mpiexec -n \{np\} \{cmd\}'"):
        launcher.local_template("mvapich", bench_dir=tmp_path)
    assert os.access(tmp_path / "mvapich" / "bin" / "mpimeter-bench", os.X_OK)


def _launcher_program(folder, name, version_line):
    """A launcher that says ``version_line`` on --version and leaves a mark when it launches."""
    program = folder / name
    program.parent.mkdir(parents=True, exist_ok=True)
    program.write_text(f'#!/bin/sh\nif [ "$1" = --version ]; then echo "{version_line}"; exit 0; fi\n'
                       f'touch {folder / "launched"}\n')
    program.chmod(0o755)
    return program


def test_the_flags_are_those_of_the_library_the_record_names_not_of_the_folder(tmp_path):
    mpirun = _launcher_program(tmp_path / "ompi5", "mpirun", "mpirun (Open MPI) 5.0.3")
    _build(tmp_path, "site-mpi", {"library": "openmpi", "mpiexec": str(mpirun), "launcher": ""})
    assert launcher.local_template("site-mpi", ["A"], as_root=True, bench_dir=tmp_path) == \
        f"{mpirun} --allow-run-as-root --oversubscribe -x A -np {{np}} {{cmd}}"


@pytest.mark.parametrize("library, version_line, other", [
    ("mpich", "mpiexec (OpenRTE) 4.1.4", "openmpi"),
    ("openmpi", "HYDRA build details:", "mpich"),
    ("intelmpi", "mpiexec (PRRTE) 3.0.2", "openmpi"),
])
def test_a_launcher_of_another_library_is_refused_in_one_line(tmp_path, library, version_line, other):
    mpiexec = _launcher_program(tmp_path / "other", "mpiexec", version_line)
    _build(tmp_path, library, {"library": library, "mpiexec": str(mpiexec), "launcher": ""})
    with pytest.raises(PlanError) as info:
        launcher.local_template(library, bench_dir=tmp_path)
    message = str(info.value)
    assert "\n" not in message
    assert f"built with {library}" in message and f"is {other}'s" in message, message


def test_a_launcher_of_the_same_library_or_unknown_passes(tmp_path):
    hydra = _launcher_program(tmp_path / "hydra", "mpiexec", "HYDRA build details:")
    _build(tmp_path, "intelmpi", {"library": "intelmpi", "mpiexec": str(hydra), "launcher": ""})
    assert launcher.local_template("intelmpi", bench_dir=tmp_path) == f"{hydra} -n {{np}} {{cmd}}"
    wrapper = _launcher_program(tmp_path / "wrap", "mpiexec", "site wrapper 1.0")
    _build(tmp_path, "mpich", {"library": "mpich", "mpiexec": str(wrapper), "launcher": ""})
    assert launcher.local_template("mpich", bench_dir=tmp_path) == f"{wrapper} -np {{np}} {{cmd}}"


def test_mpimeter_run_refuses_a_mismatched_build_in_one_line_before_any_launch(tmp_path):
    mpiexec = _launcher_program(tmp_path / "ompi", "mpiexec", "mpiexec (OpenRTE) 4.1.4")
    _build(tmp_path / "bench", "mpich", {"library": "mpich", "mpiexec": str(mpiexec), "launcher": ""})
    # in this process (click's runner): the refusal is the command's, not the interpreter's, and
    # a process of its own would cost a second interpreter importing mpimeter
    done = CliRunner().invoke(main, ["run", "--bench-dir", str(tmp_path / "bench"), "--mpi", "mpich", "--np", "2",
                                     "--launches", "1", "--no-analyze", "--out", str(tmp_path / "campaign")])
    assert done.exit_code == 2, done.output
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "built with mpich" in lines[0] and "is openmpi's" in lines[0], done.stderr
    assert not (tmp_path / "ompi" / "launched").exists()
    assert not (tmp_path / "campaign").exists()
