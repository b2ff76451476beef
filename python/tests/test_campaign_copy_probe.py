# SPDX-License-Identifier: BSD-3-Clause
"""`mpimeter run` runs the copy probe once per alternative (issue 31): the first complete launch
of an alternative probes; every later one gets `--copy-probe-from` with that launch's folder (the
binary's --describe offers the option); a campaign that turned the probe off passes nothing. The
same for the MPI library's control variables (`--mpit-from`), which no option turns off."""

from __future__ import annotations

import json

from data.fakebench import cli, fake_env  # noqa: F401 (fake_env: a fixture)


def _argv_by_launch(out):
    disk = json.loads((out / "campaign.json").read_text())
    return {(x["alternative"], x["index"]): (x["folder"], x["argv"]) for x in disk["launches"]}


def _value(argv, flag):
    return argv[argv.index(flag) + 1] if flag in argv else None


def test_later_launches_take_the_copy_probe_of_the_first(fake_env):
    tmp, opts = fake_env
    out = tmp / "c"
    result = cli([*opts, "--launches", "3", "--seed", "4", "--out", str(out)])
    assert result.exit_code == 0, result.output
    launches = _argv_by_launch(out)
    for alt in ("openmpi", "mpich"):
        first_folder, first_argv = launches[(alt, 0)]
        assert "--copy-probe-from" not in first_argv
        for index in (1, 2):
            _, argv = launches[(alt, index)]
            assert _value(argv, "--copy-probe-from") == str(out / first_folder)
            # the binary got it: the stand-in records its argv
            meta = json.loads((out / launches[(alt, index)][0] / "meta.json").read_text())
            assert _value(meta["argv"], "--copy-probe-from") == str(out / first_folder)


def test_no_copy_probe_means_nothing_to_take(fake_env):
    tmp, opts = fake_env
    out = tmp / "c"
    result = cli([*opts, "--launches", "2", "--out", str(out), "--", "--copy-probe-bytes", "0"])
    assert result.exit_code == 0, result.output
    assert all("--copy-probe-from" not in argv for _, argv in _argv_by_launch(out).values())


def test_later_launches_take_the_mpi_t_reading_of_the_first(fake_env):
    tmp, opts = fake_env
    out = tmp / "c"
    result = cli([*opts, "--launches", "3", "--seed", "4", "--out", str(out), "--", "--copy-probe-bytes", "0"])
    assert result.exit_code == 0, result.output
    launches = _argv_by_launch(out)
    for alt in ("openmpi", "mpich"):
        first_folder, first_argv = launches[(alt, 0)]
        assert "--mpit-from" not in first_argv
        for index in (1, 2):
            folder, argv = launches[(alt, index)]
            assert _value(argv, "--mpit-from") == str(out / first_folder)
            assert "--copy-probe-from" not in argv  # independent of the copy probe
            meta = json.loads((out / folder / "meta.json").read_text())
            assert _value(meta["argv"], "--mpit-from") == str(out / first_folder)
