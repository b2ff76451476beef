# SPDX-License-Identifier: BSD-3-Clause
"""Clean failures of the campaign side: whatever the file system says (names too long, read-only,
full), `mpimeter run` ends with one line `mpimeter run: error: ...` and exit 2, never a
traceback, and leaves no temporary file behind. The read-only and full file systems are small
tmpfs mounts made by the test (root only)."""

import os
import subprocess

import pytest
from data.fakebench import cli, fake_env, on_disk, one_line_error, template  # noqa: F401

from mpimeter.campaign import state as st
from mpimeter.campaign.fake import FakeExecutor
from mpimeter.campaign.runner import CampaignRunner
from test_campaign_runner import make_state


@pytest.fixture
def tmpfs(tmp_path):
    """mount(name, size, ro) -> a fresh tmpfs folder under tmp_path, unmounted afterwards."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root (read-only and full file systems are made so)")
    mounted = []

    def mount(name, size="64k"):
        folder = tmp_path / name
        folder.mkdir()
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "none", str(folder)],
                              capture_output=True, text=True)
        if done.returncode:
            pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
        mounted.append(folder)
        return folder

    yield mount
    for folder in reversed(mounted):
        subprocess.run(["umount", "-l", str(folder)], check=False)


def remount_read_only(folder):
    subprocess.run(["mount", "-o", "remount,ro", str(folder)], check=True)


def no_temporary_files(folder):
    return not [p for p in folder.rglob("*") if p.name.endswith(".tmp")]


def test_an_out_name_too_long_is_one_line(fake_env):
    tmp, opts = fake_env
    line = one_line_error(cli([*opts, "--out", str(tmp / ("x" * 300))]))
    assert "File name too long" in line
    deep = tmp.joinpath(*["x" * 250] * 17)  # more than PATH_MAX (4096) in all
    line = one_line_error(cli([*opts, "--out", str(deep)]))
    assert "File name too long" in line


def test_an_out_below_a_file_and_a_resume_of_a_file_are_one_line(fake_env):
    tmp, opts = fake_env
    (tmp / "file").write_text("")
    assert "not a folder" in one_line_error(cli([*opts, "--out", str(tmp / "file" / "c")]))
    assert "not a folder" in one_line_error(cli([*opts, "--out", str(tmp / "file")]))
    assert "not a folder" in one_line_error(cli(["--resume", str(tmp / "file")]))
    assert "no such folder" in one_line_error(cli(["--resume", str(tmp / "nothing")]))


def test_read_only_output_folders(fake_env, tmpfs):
    tmp, opts = fake_env
    ro = tmpfs("ro", size="1m")
    assert cli([*opts, "--launches", "1", "--retries", "0", "--out", str(ro / "done")],
               env={"FAKE_BENCH_MODE": "fail"}).exit_code == 1
    remount_read_only(ro)
    assert "Read-only file system" in one_line_error(cli([*opts, "--out", str(ro / "c")]))
    ro_empty = tmpfs("ro-empty")
    remount_read_only(ro_empty)
    assert "Read-only file system" in one_line_error(cli([*opts, "--out", str(ro_empty)]))
    before = (ro / "done" / "campaign.json").read_text()
    line = one_line_error(cli(["--resume", str(ro / "done"), "--launcher", template(tmp)]))
    assert "Read-only file system" in line
    assert (ro / "done" / "campaign.json").read_text() == before


def test_a_full_disk_at_the_first_write_of_campaign_json(fake_env, tmpfs):
    tmp, opts = fake_env
    small = tmpfs("small")
    result = cli([*opts, "--launches", "300", "--out", str(small / "c")],
                 env={"FAKE_BENCH_LOG": str(tmp / "calls")})
    line = one_line_error(result, after_output=True)
    assert "campaign.json" in line and "No space left on device" in line
    assert no_temporary_files(small)
    assert not (tmp / "calls").exists()


def test_a_full_disk_during_a_campaign_stops_it_with_campaign_json_intact(tmpfs):
    small = tmpfs("small")

    class FillTheDisk(FakeExecutor):
        def run(self, argv, **kw):
            result = super().run(argv, **kw)
            if len(self.calls) == 2:  # the disk fills up during the second launch
                try:
                    with open(small / "filler", "wb") as f:
                        while True:
                            f.write(b"x" * 4096)
                            f.flush()
                except OSError:
                    pass
            return result

    state = make_state(alternatives=("openmpi",), launches=3)
    with pytest.raises(st.CampaignWriteError, match="No space left on device") as err:
        CampaignRunner(state, small / "c", FillTheDisk(), base_env={}).run()
    assert str(small / "c" / "campaign.json") in str(err.value)
    assert no_temporary_files(small)
    disk = on_disk(small / "c")  # the last complete record
    assert [x["status"] for x in disk["launches"]] == ["complete", "incomplete", "pending"]
