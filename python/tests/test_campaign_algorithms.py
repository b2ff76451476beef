# SPDX-License-Identifier: BSD-3-Clause
"""`mpimeter run --algorithms` from the request to campaign.json (campaign.algorithms, spec.prepare,
the runner with the fake executor, --resume's reader and the analysis side's reader): each
library's algorithms, as its own mpimeter-bench --list-algorithms names them, become alternatives
with the library's variables in their environment, next to the library as it is; bad requests are
refused with the names the library allows."""

import json

import pytest
from click.testing import CliRunner
from data.testkit import wrapped_bench_dir

from mpimeter.campaign import algorithms, spec
from mpimeter.campaign import state as st
from mpimeter.campaign.fake import FakeExecutor
from mpimeter.campaign.plan import PlanError
from mpimeter.campaign.runner import CampaignRunner
from mpimeter.cli import main
from mpimeter.io import campaign_record

LISTING = {"algorithms": [
    {"op": "allreduce", "variable": "coll_tuned_allreduce_algorithm",
     "env": "OMPI_MCA_coll_tuned_allreduce_algorithm", "set_by": "value", "description": "",
     "choices_from": "enumeration",
     "choices": [{"value": 0, "name": "ignore"}, {"value": 3, "name": "recursive_doubling"},
                 {"value": 4, "name": "ring"}]},
    {"op": "bcast", "variable": "MPIR_CVAR_BCAST_INTRA_ALGORITHM", "env": "MPIR_CVAR_BCAST_INTRA_ALGORITHM",
     "set_by": "name", "description": "", "choices_from": "library",
     "choices": [{"value": 0, "name": "auto"}, {"value": 1, "name": "binomial"}]},
    {"op": "gather", "variable": "MPIR_CVAR_GATHER_INTRA_ALGORITHM", "env": "MPIR_CVAR_GATHER_INTRA_ALGORITHM",
     "set_by": "name", "description": "", "choices_from": "none", "choices": [{"value": 1, "name": "binomial"}]},
]}


def test_request_syntax():
    assert algorithms.parse_request(["allreduce=all; bcast=binomial,smp", "gather=nb"]) == \
        {"allreduce": None, "bcast": ["binomial", "smp"], "gather": ["nb"]}
    for bad, says in [("allreduce", "expected OP=all"), ("=ring", "expected OP=all"),
                      ("allreduce=ring,", "empty algorithm name"), ("allreduce=all,ring", "stands alone"),
                      ("allreduce=ring,ring", "listed twice")]:
        with pytest.raises(PlanError, match=says):
            algorithms.parse_request([bad])
    with pytest.raises(PlanError, match="allreduce is given twice"):
        algorithms.parse_request(["allreduce=ring", "allreduce=all"])


def test_alternatives_set_the_librarys_own_variables():
    variables = algorithms.parse_listing(LISTING, "bench")
    alts = algorithms.alternatives("openmpi", {"allreduce": None}, variables)
    # "ignore" is the library's own choice: the baseline, not an alternative
    assert [a.name for a in alts] == ["openmpi-allreduce-recursive_doubling", "openmpi-allreduce-ring"]
    assert alts[1].env == {"OMPI_MCA_coll_tuned_use_dynamic_rules": "1",
                           "OMPI_MCA_coll_tuned_allreduce_algorithm": "4"}
    assert alts[1].algorithms == {"allreduce": {
        "name": "ring", "variable": "coll_tuned_allreduce_algorithm",
        "env": "OMPI_MCA_coll_tuned_allreduce_algorithm", "value": "4", "mpi_t_value": 4}}
    mpich = algorithms.alternatives("mpich", {"bcast": ["binomial"]}, variables)
    assert [(a.name, a.env) for a in mpich] == [("mpich-bcast-binomial", {"MPIR_CVAR_BCAST_INTRA_ALGORITHM": "binomial"})]
    assert mpich[0].algorithms["bcast"]["mpi_t_value"] == 1


@pytest.mark.parametrize("request_, says", [
    ({"allreduce": ["rings"]}, r"'rings' is not one of its algorithms; openmpi allows for allreduce: "
                               r"recursive_doubling, ring \(or all\)"),
    ({"allreduce": ["ignore"]}, "is the library's default"),
    ({"scan": None}, "openmpi has no algorithm variable for scan .it has one for: allreduce, bcast."),
    # MPICH could not confirm the names of this variable: none is offered
    ({"gather": None}, "names no algorithm it confirms"),
])
def test_refusals_name_what_the_library_allows(request_, says):
    with pytest.raises(PlanError, match=says):
        algorithms.alternatives("openmpi", request_, algorithms.parse_listing(LISTING, "bench"))


def test_a_variant_may_not_set_the_same_variable():
    variables = {"openmpi": algorithms.parse_listing(LISTING, "bench")}
    with pytest.raises(PlanError, match="--variant mine sets OMPI_MCA_coll_tuned_allreduce_algorithm"):
        algorithms.check_variants({"allreduce": None}, variables,
                                  [("mine", {"OMPI_MCA_coll_tuned_allreduce_algorithm": "1"})])
    algorithms.check_variants({"allreduce": None}, variables, [("other", {"UCX_TLS": "sm"})])


def test_a_listing_of_another_shape_is_refused():
    with pytest.raises(PlanError, match="not the document this mpimeter reads"):
        algorithms.parse_listing({"algorithms": [{"op": "x"}]}, "bench")


# --- with the real binaries (their listing) and the fake executor ----------------------------------

@pytest.fixture
def bench_dir(tmp_path):
    return wrapped_bench_dir(tmp_path)


def request(bench_dir, mpis, wanted, variants=(), ops="allreduce"):
    bench, template = bench_dir
    return spec.CampaignRequest(np=2, launches=2, mpis=mpis, algorithms=list(wanted), variants=list(variants),
                                launcher=template, bench_dir=bench, seed=3,
                                bench_values={"ops": ops, "sizes": "8", "nrep": 10})


def test_both_libraries_end_to_end_and_resume_keeps_the_record(bench_dir, tmp_path):
    state = spec.prepare(request(bench_dir, ["openmpi", "mpich"], ["allreduce=recursive_doubling"]))
    assert [(a.name, a.env) for a in state.alternatives] == [
        ("openmpi", {}), ("mpich", {}),
        ("openmpi-allreduce-recursive_doubling", {"OMPI_MCA_coll_tuned_use_dynamic_rules": "1",
                                                  "OMPI_MCA_coll_tuned_allreduce_algorithm": "3"}),
        ("mpich-allreduce-recursive_doubling", {"MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM": "recursive_doubling"})]
    out = tmp_path / "c"
    fake = FakeExecutor()
    assert CampaignRunner(state, out, fake, base_env={}).run().status == "complete"
    assert len(fake.calls) == 8
    for call in fake.calls:  # each launch runs with its alternative's variables, and only those
        alternative = state.alternative(call.out.parent.parent.name)
        assert {k: v for k, v in call.env.items() if k != "MPIMETER_LAUNCH_ID"} == alternative.env
    disk = json.loads((out / "campaign.json").read_text())
    by_name = {a["name"]: a for a in disk["alternatives"]}
    assert "algorithms" not in by_name["openmpi"]
    assert by_name["mpich-allreduce-recursive_doubling"]["algorithms"] == {"allreduce": {
        "name": "recursive_doubling", "variable": "MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM",
        "env": "MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM", "value": "recursive_doubling", "mpi_t_value": 3}}
    resumed = st.load(out)  # --resume's reader keeps it
    assert [a.algorithms for a in resumed.alternatives] == [a.algorithms for a in state.alternatives]
    record = campaign_record.read_campaign_record(out)  # and so does the analysis side's
    assert record.algorithms_of("openmpi-allreduce-recursive_doubling")["allreduce"]["mpi_t_value"] == 3
    assert record.algorithms_of("openmpi") == {}


def test_resume_refuses_a_record_the_env_does_not_set(bench_dir, tmp_path):
    state = spec.prepare(request(bench_dir, ["openmpi"], ["allreduce=ring"]))
    out = tmp_path / "c"
    out.mkdir()
    st.save(state, out)
    doc = json.loads((out / "campaign.json").read_text())
    doc["alternatives"][1]["algorithms"]["allreduce"]["value"] = "3"  # the env still sets 4
    (out / "campaign.json").write_text(json.dumps(doc))
    with pytest.raises(st.CampaignFileError, match=r"alternatives\[1\].algorithms.allreduce: the alternative's "
                                                   "env does not set OMPI_MCA_coll_tuned_allreduce_algorithm=3"):
        st.load(out)
    # the analysis side, which only shows it, leaves a record of another shape out
    doc["alternatives"][1]["algorithms"]["allreduce"]["mpi_t_value"] = "4"
    (out / "campaign.json").write_text(json.dumps(doc))
    assert campaign_record.read_campaign_record(out).algorithms_of("ring") == {}


def test_all_of_an_op_and_refusals_in_the_campaigns_words(bench_dir):
    state = spec.prepare(request(bench_dir, ["mpich"], ["allreduce=all"]))
    names = [a.name for a in state.alternatives]
    assert names[0] == "mpich" and "mpich-allreduce-auto" not in names
    assert "mpich-allreduce-recursive_doubling" in names and len(names) >= 3
    with pytest.raises(PlanError, match="does not measure bcast .--ops allreduce.; add it to --ops"):
        spec.prepare(request(bench_dir, ["mpich"], ["bcast=binomial"]))
    with pytest.raises(PlanError, match="--variant mine sets MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM"):
        spec.prepare(request(bench_dir, ["mpich"], ["allreduce=smp"],
                             variants=["mine=MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=nb"]))


def test_a_name_of_one_library_in_a_campaign_of_two(bench_dir):
    with pytest.raises(PlanError, match=r"mpich allows for allreduce: .*--mpi openmpi leaves mpich out"):
        spec.prepare(request(bench_dir, ["openmpi", "mpich"], ["allreduce=ring"]))


def test_cli_refuses_an_unknown_name_with_exit_2_and_writes_nothing(bench_dir, tmp_path):
    bench, template = bench_dir
    out = tmp_path / "never"
    result = CliRunner().invoke(main, ["run", "--np", "2", "--mpi", "openmpi", "--bench-dir", str(bench),
                                       "--launcher", template, "--algorithms", "allreduce=fastest",
                                       "--ops", "allreduce", "--out", str(out)])
    assert result.exit_code == 2, result.output
    assert "'fastest' is not one of its algorithms; openmpi allows for allreduce: basic_linear" in result.output
    assert not out.exists()
