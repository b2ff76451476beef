# SPDX-License-Identifier: BSD-3-Clause
"""More ranks than cores under --launcher local: the launcher sets the library's yield-when-idle
mode (Open MPI), keeps a value the user gave, sets nothing where the library has no such mode
(MPICH ch4) and records in campaign.json what it did, per launch."""

import json

import pytest

from mpimeter.campaign import oversub
from mpimeter.campaign import state as st
from mpimeter.campaign.fake import FakeExecutor
from mpimeter.campaign.runner import CampaignRunner

from test_campaign_runner import make_state

YIELD = "OMPI_MCA_mpi_yield_when_idle"


def run(state, folder, cores, base_env=None):
    fake = FakeExecutor()
    CampaignRunner(state, folder, fake, base_env=base_env or {"PATH": "/usr/bin"},
                   local_cores=lambda: cores).run()
    return fake


def test_ranks_within_the_cores_set_and_record_nothing(tmp_path):
    fake = run(make_state(launches=1), tmp_path, cores=2)  # np 2 on 2 cores
    assert all(YIELD not in c.env for c in fake.calls)
    disk = json.loads((tmp_path / "campaign.json").read_text())
    assert [x["oversubscription"] for x in disk["launches"]] == [None, None]


def test_more_ranks_than_cores_turn_yield_on_for_open_mpi_only_and_record_it(tmp_path):
    state = make_state(launches=1)
    state.np = 3
    fake = run(state, tmp_path, cores=2)
    by_alt = {c.out.parent.parent.name: c.env for c in fake.calls}
    assert by_alt["openmpi"][YIELD] == "1"
    assert not any(k.startswith("OMPI_MCA") or k.startswith("MPIR_CVAR") for k in by_alt["mpich"])
    disk = json.loads((tmp_path / "campaign.json").read_text())
    rec = {x["alternative"]: x["oversubscription"] for x in disk["launches"]}
    assert rec["openmpi"] == {"ranks": 3, "cores": 2, "set": {YIELD: "1"}, "user_set": {}, "note": ""}
    assert rec["mpich"]["set"] == {} and "busy-poll" in rec["mpich"]["note"]
    # read back (--resume) as written
    again = st.load(tmp_path)
    assert {r.alternative: r.oversubscription for r in again.launches} == rec


def test_a_value_the_user_gave_is_kept_and_recorded_as_theirs(tmp_path):
    state = make_state(alternatives=("openmpi",), launches=1, env={"openmpi": {YIELD: "0"}})
    state.np = 4
    fake = run(state, tmp_path, cores=2)
    assert fake.calls[0].env[YIELD] == "0"
    assert state.launches[0].oversubscription["set"] == {}
    assert state.launches[0].oversubscription["user_set"] == {YIELD: "0"}


def test_other_launchers_are_left_alone(tmp_path):
    state = make_state(alternatives=("openmpi",), launches=1)
    state.np, state.launcher = 8, "srun"
    fake = run(state, tmp_path, cores=2)
    assert YIELD not in fake.calls[0].env and state.launches[0].oversubscription is None


@pytest.mark.parametrize("bad, key", [
    ("x", "oversubscription"), ({"ranks": 0, "cores": 2}, "ranks"), ({"ranks": 3, "cores": True}, "cores"),
    ({"ranks": 3, "cores": 2, "set": {"A": 1}}, "set"), ({"ranks": 3, "cores": 2, "extra": 1}, "extra")])
def test_a_forged_record_is_refused_naming_the_key(tmp_path, bad, key):
    run(make_state(alternatives=("openmpi",), launches=1), tmp_path, cores=2)
    obj = json.loads((tmp_path / "campaign.json").read_text())
    obj["launches"][0]["oversubscription"] = bad
    (tmp_path / "campaign.json").write_text(json.dumps(obj))
    with pytest.raises(st.CampaignFileError, match=key):
        st.load(tmp_path)


def test_settings_of_an_unknown_library_say_none_is_known():
    rec = oversub.settings(3, 2, "other", {})
    assert rec["set"] == {} and "no yield-when-idle setting is known for other" in rec["note"]
    assert oversub.settings(2, 2, "openmpi", {}) is None
