# SPDX-License-Identifier: BSD-3-Clause
"""ctest status_messages (c/tests/tools/status_messages.py) on small C files: a failure with no
message on its path is found, each way of saying why passes, and an exception that no longer
applies is reported."""

from __future__ import annotations

import sys
from pathlib import Path

TOOLS = Path(__file__).resolve().parents[2] / "c" / "tests" / "tools"
sys.path.insert(0, str(TOOLS))
import status_messages  # noqa: E402

SOURCE = """\
int mm__alloc(mm_op_args *a) {
    void *p = malloc(8);
    if (!p) return MM_E_FAILED;
    return 0;
}

int mm__said(mm_op_args *a) {
    void *p = malloc(8);
    if (!p) return mm__setup_no_memory(a, "p", 8);
    if (a->size < 0) {
        mm_error_set(a->error, sizeof a->error, "size %lld", (long long)a->size);
        return MM_E_FAILED;
    }
    return 0;
}

int mm__passed_on(mm_op_args *a) {
    if (mm__said(a) != 0) return MM_E_FAILED;
    return 0;
}

int mm__mpi(mm_op_args *a, mm_mpi_error *err) {
    int rc = MM_MPI(err, MPI_Barrier(a->comm));
    if (rc != MPI_SUCCESS) return MM_E_FAILED;
    return 0;
}

int mm__handed(const char *path, char *err, size_t len) {
    FILE *f = mm__open(path, err, len);
    if (!f) return MM_E_FAILED;
    return 0;
}

int mm__raw_mpi(mm_op_args *a) {
    int rc = MM_MPI(&a->err, MPI_Barrier(a->comm));
    int other = MPI_Barrier(a->comm);
    if (other != MPI_SUCCESS) return MM_E_FAILED;
    return rc;
}
"""


def _check(tmp_path: Path, source: str) -> tuple[list[str], list[str]]:
    (tmp_path / "ops").mkdir(exist_ok=True)
    (tmp_path / "ops" / "x.c").write_text(source)
    return status_messages.check(tmp_path)


def test_failures_without_a_message_are_found(tmp_path, monkeypatch):
    monkeypatch.setattr(status_messages, "QUIET", {})
    findings, stale = _check(tmp_path, SOURCE)
    # the bare malloc failure, and an MPI call's failure not kept by MM_MPI (the earlier MM_MPI
    # of the block is not on the guard's path)
    assert [f.split(": a failure with no message")[0] for f in findings] == [
        "ops/x.c:3 mm__alloc", "ops/x.c:37 mm__raw_mpi"], findings
    assert stale == []


def test_a_quiet_function_passes_and_a_stale_entry_is_reported(tmp_path, monkeypatch):
    monkeypatch.setattr(status_messages, "QUIET", {("ops/x.c", "mm__alloc"): "why", ("ops/x.c", "mm__raw_mpi"): "why",
                                                   ("ops/x.c", "mm__gone"): "why"})
    findings, stale = _check(tmp_path, SOURCE)
    assert findings == []
    assert stale == ["ops/x.c mm__gone: listed but no longer found: remove it"]


def test_the_c_sources_pass():
    findings, stale = status_messages.check(TOOLS.parents[1] / "src")
    assert (findings, stale) == ([], [])
