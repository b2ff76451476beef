# SPDX-License-Identifier: BSD-3-Clause
"""Outputs replace only what mpimeter owns: every command that writes a file refuses a target that
is a character device, a FIFO, a socket, a symbolic link (even to a regular file) or a folder, and
every command that writes a folder refuses a device, FIFO, socket, link or file — exit 2, one line,
no traceback, and the target exactly as it was (same inode, same bytes, a link still pointing where
it pointed). Also: the campaign's own caches are never written through a link, launch logs are
opened as regular files only, ``store add --store ''`` is refused, and a store on a read-only file
system is read, and refused for writing with a message that says so.

Character devices and mounts need root (this suite's machines run it as root)."""

from __future__ import annotations

import errno
import hashlib
import os
import shutil
import socket
import stat
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from data.fakebench import fake_env  # noqa: F401 (a fixture)
from data.store_campaigns import beta_one_library
from data.synth_tuning import algorithm_campaign, ompi
from test_io_peers import IMB

from mpimeter import atomic
from mpimeter.campaign import executor
from mpimeter.cli import main

ROOT = os.geteuid() == 0
FILE_KINDS = ("character device", "FIFO", "socket", "symbolic link", "folder")
FOLDER_KINDS = ("character device", "FIFO", "socket", "symbolic link", "regular file")


def invoke(*args, env=None):
    return CliRunner().invoke(main, [str(a) for a in args], env=env)


def one_error_line(result, command: str) -> str:
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and isinstance(result.exception, SystemExit), result.exception
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"mpimeter {command}: error: "), result.output
    return lines[0]


class Target:
    """Something that is not mpimeter's to replace, made at ``path``; ``elsewhere`` holds what a
    link points to. ``state()`` is everything that must stay as it was."""

    def __init__(self, path: Path, kind: str, elsewhere: Path, monkeypatch):
        self.path, self.kind, self.sock = path, kind, None
        if kind == "character device":
            if not ROOT:
                pytest.skip("making a character device needs root")
            os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 3))  # as /dev/null
        elif kind == "FIFO":
            os.mkfifo(path)
        elif kind == "socket":
            self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            monkeypatch.chdir(path.parent)  # a relative name: a socket's path is limited to 107 bytes
            self.sock.bind(path.name)
        elif kind == "symbolic link":
            elsewhere.mkdir(exist_ok=True)
            if path.suffix:  # a file output: a link to a regular file outside
                (elsewhere / "theirs").write_bytes(b"not mpimeter's\n")
                path.symlink_to(elsewhere / "theirs")
            else:  # a folder output: a link to an empty folder outside
                (elsewhere / "theirs").mkdir()
                path.symlink_to(elsewhere / "theirs", target_is_directory=True)
        elif kind == "folder":
            path.mkdir()
            (path / "kept").write_bytes(b"inside\n")
        elif kind == "regular file":
            path.write_bytes(b"a user's file\n")
        self.before = self.state()

    def state(self) -> tuple:
        st = os.lstat(self.path)
        facts = (stat.S_IFMT(st.st_mode), st.st_ino, st.st_rdev)
        if stat.S_ISLNK(st.st_mode):
            pointed = Path(os.readlink(self.path))
            facts += (str(pointed), sorted(os.listdir(pointed)) if pointed.is_dir() else pointed.read_bytes())
        elif stat.S_ISREG(st.st_mode):
            facts += (self.path.read_bytes(),)
        elif stat.S_ISDIR(st.st_mode):
            facts += (sorted(os.listdir(self.path)),)
        return facts

    def unchanged(self) -> bool:
        return self.state() == self.before

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()


@pytest.fixture
def target(tmp_path, monkeypatch):
    made = []

    def make(name: str, kind: str) -> Target:
        t = Target(tmp_path / "out" / name, kind, tmp_path / "elsewhere", monkeypatch)
        made.append(t)
        return t

    (tmp_path / "out").mkdir()
    yield make
    for t in made:
        t.close()


def no_leftovers(folder: Path) -> None:
    assert not [p.name for p in folder.iterdir() if p.name.endswith(".tmp")], list(folder.iterdir())


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    return beta_one_library(tmp_path_factory.mktemp("campaigns"))


@pytest.fixture(scope="module")
def tuning_campaign(tmp_path_factory):
    root = tmp_path_factory.mktemp("tuning")
    return algorithm_campaign(root / "c", {"openmpi": {}, "ring": ompi("allreduce", 4)},
                              lambda alt, op, size, p: 0.6 if alt == "ring" else 1.0)


# command, the name of its output, its arguments around the output path
FILE_OUTPUTS = {
    "report": ("r.html", lambda c, t, out: ["report", c, "-o", out]),
    "fingerprint": ("f.png", lambda c, t, out: ["fingerprint", c, "--op", "allreduce", "--size", "8", "-o", out]),
    "tune": ("rules.txt", lambda c, t, out: ["tune", t, "--out", out, "--bench-dir", out.parent / "nobin"]),
    # tune writes its evidence next to the file: the evidence's name taken is refused the same way
    "tune evidence": ("rules.txt.evidence.json",
                      lambda c, t, out: ["tune", t, "--out", out.parent / "rules.txt", "--bench-dir",
                                         out.parent / "nobin"]),
    "store add": ("s.duckdb", lambda c, t, out: ["store", "add", c, "--store", out, "--no-report"]),
}


@pytest.mark.parametrize("kind", FILE_KINDS)
@pytest.mark.parametrize("command", FILE_OUTPUTS)
def test_a_file_output_replaces_only_a_regular_file(command, kind, target, campaign, tuning_campaign):
    name, args = FILE_OUTPUTS[command]
    t = target(name, kind)
    line = one_error_line(invoke(*args(campaign, tuning_campaign, t.path)), command.split(" evidence")[0])
    assert str(t.path) in line
    if kind == "folder":  # click's own check of some options, or ours
        assert "directory" in line or "folder" in line, line
    else:
        assert f"not a regular file (a {kind})" in line, line
    assert t.unchanged()
    if command == "tune evidence":  # the pair is written whole or not at all
        assert not (t.path.parent / "rules.txt").exists()
    no_leftovers(t.path.parent)


@pytest.mark.parametrize("command", FILE_OUTPUTS)
def test_a_file_output_replaces_a_regular_file(command, tmp_path, campaign, tuning_campaign):
    """The same commands still rewrite their own earlier output (a regular file), atomically."""
    name, args = FILE_OUTPUTS[command]
    (tmp_path / "out").mkdir()
    out = tmp_path / "out" / name
    for _ in range(2):
        result = invoke(*args(campaign, tuning_campaign, out))
        assert result.exit_code == 0, result.output
    assert out.is_file() and not out.is_symlink() and out.stat().st_size > 0
    no_leftovers(out.parent)


@pytest.fixture(scope="module")
def results_store(tmp_path_factory, campaign):
    path = tmp_path_factory.mktemp("store") / "results.duckdb"
    assert invoke("store", "add", campaign, "--store", path, "--no-report").exit_code == 0
    return path


# command, its arguments around the output folder (given the fake_env options for run)
FOLDER_OUTPUTS = {
    "run": lambda opts, store, out: ["run", *opts, "--launches", "1", "--out", out],
    "reproducibility": lambda opts, store, out: ["reproducibility", "--trials", "2", *opts[:-1], "--launches", "1",
                                                 "--out", out],
    "import": lambda opts, store, out: ["import", "imb", IMB, "--out", out],
    "site": lambda opts, store, out: ["site", "-o", out, "--store", store],
}


@pytest.mark.parametrize("kind", FOLDER_KINDS)
@pytest.mark.parametrize("command", FOLDER_OUTPUTS)
def test_a_folder_output_is_a_folder_or_nothing(command, kind, target, fake_env, results_store):  # noqa: F811
    tmp, opts = fake_env
    assert opts[-1] == "--no-analyze"
    t = target("campaign", kind)
    line = one_error_line(invoke(*FOLDER_OUTPUTS[command](opts, results_store, t.path)), command)
    assert str(t.path) in line and f"not a folder (a {kind})" in line, line
    assert t.unchanged()
    no_leftovers(t.path.parent)


def test_the_campaign_database_is_never_written_through_a_link(tmp_path, campaign, results_store):
    """A campaign.duckdb that links to another DuckDB file (here a results store): analyze
    leaves the link and the file as they were (DuckDB writes in place: it would have dropped the
    store's tables of the same names), and says why its cache was not written."""
    mine = tmp_path / "c"
    shutil.copytree(campaign, mine)
    theirs = tmp_path / "theirs.duckdb"
    shutil.copyfile(results_store, theirs)
    before = hashlib.sha256(theirs.read_bytes()).hexdigest()
    (mine / "campaign.duckdb").unlink(missing_ok=True)
    (mine / "campaign.duckdb").symlink_to(theirs)
    result = invoke("analyze", mine)
    assert result.exit_code == 0, result.output
    assert (mine / "campaign.duckdb").is_symlink() and hashlib.sha256(theirs.read_bytes()).hexdigest() == before
    assert "not a regular file (a symbolic link)" in result.output


def test_a_parquet_copy_is_never_written_over_a_link(tmp_path, campaign):
    mine = tmp_path / "c"
    shutil.copytree(campaign, mine)
    raw = next(mine.rglob("raw.csv"))
    cache = raw.with_suffix(".parquet")
    cache.unlink(missing_ok=True)
    (tmp_path / "theirs").write_bytes(b"theirs\n")
    cache.symlink_to(tmp_path / "theirs")
    assert invoke("analyze", mine).exit_code == 0
    assert cache.is_symlink() and (tmp_path / "theirs").read_bytes() == b"theirs\n"
    assert [p for p in mine.rglob("raw.parquet") if not p.is_symlink()]  # the other launches' copies: written


@pytest.mark.parametrize("kind", ("character device", "symbolic link", "FIFO"))
def test_launch_logs_are_opened_as_regular_files_only(tmp_path, kind, monkeypatch):
    (tmp_path / "out").mkdir()
    t = Target(tmp_path / "out" / "000.1.stderr", kind, tmp_path / "elsewhere", monkeypatch)
    reader = os.open(t.path, os.O_RDONLY | os.O_NONBLOCK) if kind == "FIFO" else None  # no open would block
    try:
        with pytest.raises(atomic.NotRegularFile, match="not a regular file"):
            executor._no_links(str(t.path), os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    finally:
        if reader is not None:
            os.close(reader)
    assert t.unchanged()


def test_a_name_taken_while_writing_is_not_replaced(tmp_path, monkeypatch):
    """The check before the rename and the link(2) that creates a new name: a FIFO made there
    after the first check (here: by the stand-in for link) is refused and kept."""
    target_path = tmp_path / "out.txt"
    real_link = os.link

    def racing_link(src, dst):
        os.mkfifo(dst)
        return real_link(src, dst)

    monkeypatch.setattr(atomic.os, "link", racing_link)
    with pytest.raises(atomic.NotRegularFile, match=r"not a regular file \(a FIFO\)"):
        atomic.write_atomic(target_path, b"data")
    assert stat.S_ISFIFO(os.lstat(target_path).st_mode)
    no_leftovers(tmp_path)


def test_write_atomic_over_nothing_and_over_its_own_file(tmp_path):
    path = tmp_path / "f.txt"
    atomic.write_atomic(path, b"one")
    atomic.write_atomic(path, b"two", durable=True)
    assert path.read_bytes() == b"two" and os.lstat(path).st_nlink == 1
    no_leftovers(tmp_path)


# --- the results store -----------------------------------------------------------------------------

def test_an_empty_store_path_is_refused(tmp_path, campaign):
    data = tmp_path / "data"
    env = {"XDG_DATA_HOME": str(data), "MPIMETER_STORE": None, "HOME": str(tmp_path)}
    for args in (["store", "add", campaign, "--no-report"], ["store", "list"], ["site", "-o", tmp_path / "s"]):
        command = " ".join(args[:2]) if args[0] == "store" else args[0]
        line = one_error_line(invoke(*args, "--store", "", env=env), command)
        assert "--store '': an empty path" in line
    assert not data.exists()  # the default store was not written


@pytest.fixture
def read_only_folder(tmp_path):
    """A folder, and the same folder mounted read-only (a bind mount), unmounted at the end."""
    if not ROOT:
        pytest.skip("a read-only bind mount needs root")
    source, view = tmp_path / "rw", tmp_path / "ro"
    source.mkdir()
    view.mkdir()
    subprocess.run(["mount", "--bind", str(source), str(view)], check=True, timeout=60)
    try:
        subprocess.run(["mount", "-o", "remount,ro,bind", str(view)], check=True, timeout=60)
        yield source, view
    finally:
        subprocess.run(["umount", str(view)], check=True, timeout=60)


def test_a_store_on_a_read_only_file_system(read_only_folder, results_store, campaign):
    source, view = read_only_folder
    shutil.copyfile(results_store, source / "results.duckdb")
    before = hashlib.sha256((source / "results.duckdb").read_bytes()).hexdigest()
    listed = invoke("store", "list", "--store", view / "results.duckdb", "--format", "json")
    assert listed.exit_code == 0, listed.output
    line = one_error_line(invoke("store", "add", campaign, "--store", view / "results.duckdb", "--no-report",
                                 "--replace"), "store add")
    assert "read-only" in line and "not a DuckDB database" not in line, line
    line = one_error_line(invoke("store", "add", campaign, "--store", view / "new.duckdb", "--no-report"),
                          "store add")
    assert "read-only" in line, line
    # no store there: "store list, store query and site can still read it" was false
    assert "cannot be created" in line and "can still read it" not in line, line
    assert hashlib.sha256((source / "results.duckdb").read_bytes()).hexdigest() == before
    assert sorted(os.listdir(source)) == ["results.duckdb"]


def test_a_store_behind_a_link_is_read_but_not_written(tmp_path, results_store, campaign):
    link = tmp_path / "link.duckdb"
    link.symlink_to(results_store)
    assert invoke("store", "list", "--store", link).exit_code == 0
    before = hashlib.sha256(results_store.read_bytes()).hexdigest()
    line = one_error_line(invoke("store", "add", campaign, "--store", link, "--no-report", "--replace"), "store add")
    assert "not a regular file (a symbolic link)" in line
    assert hashlib.sha256(results_store.read_bytes()).hexdigest() == before and link.is_symlink()


def test_refusal_is_an_os_error_naming_the_path():
    """Every command maps an OSError to its one line: the refusal is one, and reads as one."""
    exc = atomic._refused(Path("/dev/null"), "a character device", "--out",
                          "not a regular file ({kind}); mpimeter writes only regular files")
    assert isinstance(exc, OSError) and exc.errno == errno.EINVAL
    assert str(exc) == "--out /dev/null: not a regular file (a character device); mpimeter writes only regular files"
