# SPDX-License-Identifier: BSD-3-Clause
"""--np LIST (issue 27): the process counts of a campaign, their plan (every alternative at every
p, interleaved), their record in campaign.json (read back by --resume), and the refusals."""

import json
from collections import Counter

import pytest
from data.fakebench import cli, fake_env  # noqa: F401 (fake_env: a fixture)
from data.testkit import assert_refused

from mpimeter.campaign import nplist, plan
from mpimeter.campaign import state as st
from mpimeter.campaign.plan import PlanError


@pytest.mark.parametrize("text, values", [
    ("2", [2]), ("2,4", [2, 4]), ("4,2,3", [4, 2, 3]), ("2:64:x2", [2, 4, 8, 16, 32, 64]),
    ("2:10:x2", [2, 4, 8]), ("2:8:+2", [2, 4, 6, 8]), ("2:4", [2, 3, 4]), ("1,3:9:x3", [1, 3, 9]),
    (" 2 , 6 ", [2, 6]),
])
def test_lists_and_ranges(text, values):
    assert nplist.parse(text) == values


@pytest.mark.parametrize("text, message", [
    ("2,2", "2 is given twice"),
    ("2:8:x2,4", "4 is given twice"),
    ("8:2:x2", "range 8:2:x2 descends (8 > 2); give it as 2:8:x2"),
    ("2:8:x1", "the factor after 'x' must be at least 2"),
    ("2:8:+0", "the step after '+' must be at least 1"),
    ("0:8:+2", "starts at 0"),
    ("2,,4", "'' is not a process count or a range"),
    ("two", "'two' is not a process count or a range"),
    ("1:1000:+1", "more than 64 process counts"),
])
def test_bad_lists_are_refused(text, message):
    with pytest.raises(PlanError, match="^--np ") as info:
        nplist.parse(text)
    assert message in str(info.value)


def test_one_process_count_plans_the_order_of_a_campaign_without_a_list():
    assert plan.interleave(["a", "b"], 5, 11, [4]) == [
        plan.PlannedLaunch(p.alternative, p.index, p.seed, 4) for p in plan.interleave(["a", "b"], 5, 11)]


def test_every_alternative_runs_at_every_process_count_once_per_round():
    nps = [2, 3, 8]
    order = plan.interleave(["a", "b"], 4, 99, nps)
    assert len(order) == 2 * 3 * 4
    for r in range(4):
        block = order[r * 6:(r + 1) * 6]
        assert sorted((p.alternative, p.np) for p in block) == sorted((a, n) for a in "ab" for n in nps)
    # launch index -> process count is fixed (folders launches/NNN), the order within a round is not
    assert all(p.np == plan.launch_np(nps, p.index) for p in order)
    assert sorted(p.index for p in order if p.alternative == "a") == list(range(12))
    firsts = Counter(tuple((p.alternative, p.np) for p in order[r * 6:(r + 1) * 6]) for r in range(4))
    assert len(firsts) > 1  # shuffled per round


def _read_back(out):
    return st.load(out)


def test_run_with_a_list_records_each_launch_np_and_resumes(fake_env):
    tmp, opts = fake_env
    out = tmp / "c"
    result = cli([*opts, "--mpi", "openmpi", "--np", "2,3", "--launches", "2", "--seed", "3", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "at each of 2,3 ranks" in result.output
    disk = json.loads((out / "campaign.json").read_text())
    assert disk["np"] == 3 and disk["np_list"] == [2, 3] and disk["launches_per_alternative"] == 2
    assert sorted((x["index"], x["np"]) for x in disk["launches"]) == [(0, 2), (1, 3), (2, 2), (3, 3)]
    for x in disk["launches"]:  # the launcher was given each launch's own count
        assert x["argv"][1:3] == ["-np", str(x["np"])]
        assert x["folder"] == f"launches/{x['index']:03d}"
    state = _read_back(out)
    assert state.process_counts == [2, 3] and [state.np_of(r) for r in state.launches] == [
        x["np"] for x in disk["launches"]]


def test_a_single_np_is_recorded_as_before(fake_env):
    tmp, opts = fake_env
    out = tmp / "c"
    result = cli([*opts, "--mpi", "openmpi", "--launches", "1", "--out", str(out)])
    assert result.exit_code == 0, result.output
    disk = json.loads((out / "campaign.json").read_text())
    # one process count: the launches carry none of their own (the campaign's np), as before
    assert disk["np"] == 2 and disk["np_list"] == [2] and [x["np"] for x in disk["launches"]] == [None]


def test_a_campaign_json_without_np_list_still_reads(fake_env):
    tmp, opts = fake_env
    out = tmp / "c"
    assert cli([*opts, "--mpi", "openmpi", "--launches", "2", "--out", str(out)]).exit_code == 0
    path = out / "campaign.json"
    disk = json.loads(path.read_text())
    del disk["np_list"]
    for x in disk["launches"]:
        del x["np"]
    path.write_text(json.dumps(disk))
    state = _read_back(out)
    assert state.process_counts == [2] and {state.np_of(r) for r in state.launches} == {2}


@pytest.mark.parametrize("change, message", [
    (lambda d: d.update(np_list=[2, 2]), "2 is given twice"),
    (lambda d: d.update(np_list=[2, 5]), "its largest value 5 is not np 3"),
    (lambda d: d["launches"][0].update(np=7), "the process count np_list gives this launch"),
    (lambda d: d.update(np_list=[3]), "the process count np_list gives this launch"),
    (lambda d: [x.pop("np") for x in d["launches"]] and d.update(np_list=[3]), "is not below launches_per_alternative 2"),
])
def test_a_forged_np_list_is_refused(fake_env, change, message):
    tmp, opts = fake_env
    out = tmp / "c"
    assert cli([*opts, "--mpi", "openmpi", "--np", "2,3", "--launches", "2", "--out", str(out)]).exit_code == 0
    path = out / "campaign.json"
    disk = json.loads(path.read_text())
    change(disk)
    path.write_text(json.dumps(disk))
    with pytest.raises(st.CampaignFileError, match=message):
        _read_back(out)


@pytest.mark.parametrize("np_text, message", [
    ("2,4", None), ("0,2", "--np 0: must be at least 1"), ("2,-4", "--np -4: must be at least 1"), ("2,2", "2 is given twice"),
    ("8:2:x2", "descends"), ("2,100000", "must be at most 65536"),
])
def test_bad_np_lists_exit_2_in_one_line_writing_nothing(fake_env, np_text, message):
    tmp, opts = fake_env
    out = tmp / "c"
    args = [*opts, "--mpi", "openmpi", "--launches", "1", "--out", str(out), "--np", np_text]
    if message is None:  # the control: the same command with a good list runs
        assert cli(args).exit_code == 0
        return
    result = cli(args)
    assert_refused(result, "mpimeter run: error: --np ", message, out)


def test_a_list_with_launches_auto_is_refused(fake_env):
    tmp, opts = fake_env
    out = tmp / "c"
    result = cli([*opts, "--mpi", "openmpi", "--np", "2,3", "--launches", "auto", "--out", str(out)])
    assert result.exit_code == 2 and "do not go with --launches auto" in result.output
    assert len(result.output.strip().splitlines()) == 1 and not out.exists()
