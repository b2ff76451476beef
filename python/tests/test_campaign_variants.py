# SPDX-License-Identifier: BSD-3-Clause
"""--variant from the request to the campaign folder (spec.prepare, then the runner with the fake
executor): every library keeps its baseline, a variant of one library's variables runs with that
library only, a neutral variant with every library, and each alternative is a sub-campaign that
`mpimeter compare` reads as it is."""

import json

import pytest
from click.testing import CliRunner
from data.testkit import wrapped_bench_dir

from mpimeter.campaign import launcher, spec
from mpimeter.campaign.fake import FakeExecutor
from mpimeter.campaign.plan import PlanError
from mpimeter.campaign.runner import CampaignRunner
from mpimeter.cli import main

RING = "ring=OMPI_MCA_coll_tuned_use_dynamic_rules=1 OMPI_MCA_coll_tuned_allreduce_algorithm=4"
RING_ENV = {"OMPI_MCA_coll_tuned_use_dynamic_rules": "1",
            "OMPI_MCA_coll_tuned_allreduce_algorithm": "4"}


@pytest.fixture
def bench_dir(tmp_path):
    return wrapped_bench_dir(tmp_path)


def request(bench_dir, mpis, variants, launches=2):
    bench, template = bench_dir
    return spec.CampaignRequest(np=2, launches=launches, mpis=mpis, variants=variants,
                                launcher=template, bench_dir=bench, seed=3,
                                bench_values={"ops": "bcast", "sizes": "8", "nrep": 10})


def test_baseline_library_variant_and_neutral_variant_end_to_end(bench_dir, tmp_path):
    state = spec.prepare(request(bench_dir, ["openmpi", "mpich"], [RING, "shm=UCX_TLS=sm,self"],
                                 launches=3))
    assert [(a.name, a.mpi, a.env) for a in state.alternatives] == [
        ("openmpi", "openmpi", {}), ("ring", "openmpi", RING_ENV),
        ("openmpi-shm", "openmpi", {"UCX_TLS": "sm,self"}),
        ("mpich", "mpich", {}), ("mpich-shm", "mpich", {"UCX_TLS": "sm,self"})]
    out = tmp_path / "c"
    fake = FakeExecutor()
    assert CampaignRunner(state, out, fake, base_env={}).run().status == "complete"
    assert len(fake.calls) == 15
    for call in fake.calls:
        alternative = call.out.parent.parent.name
        assert call.out.parent.name == "launches"
        bench = state.bench_binaries[alternative]
        assert call.argv[3] == bench and bench.endswith(f"{state.alternative(alternative).mpi}"
                                                        "/bin/mpimeter-bench")
        launch_env = {k: v for k, v in call.env.items() if k != "MPIMETER_LAUNCH_ID"}
        assert launch_env == state.alternative(alternative).env  # base_env is empty
        assert call.env["MPIMETER_LAUNCH_ID"].count("@") == 1  # marks the launch's processes
    assert not any(k.startswith("OMPI_") for c in fake.calls for k in c.env
                   if "/mpich/bin/" in c.argv[3])
    disk = json.loads((out / "campaign.json").read_text())
    assert [(a["name"], a["mpi"], a["env"]) for a in disk["alternatives"]] == \
        [(a.name, a.mpi, a.env) for a in state.alternatives]
    for name in ("openmpi", "ring", "openmpi-shm", "mpich", "mpich-shm"):
        assert sorted(p.name for p in (out / name / "launches").iterdir()) == ["000", "001", "002"]
    result = CliRunner().invoke(main, ["compare", str(out / "openmpi"), str(out / "ring"),
                                       "--format", "json", "--no-cache"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["groups"] == ["openmpi", "ring"]


def test_one_library_with_a_variant_keeps_its_baseline(bench_dir):
    state = spec.prepare(request(bench_dir, ["openmpi"], [RING]))
    assert [(a.name, a.mpi, a.env) for a in state.alternatives] == [
        ("openmpi", "openmpi", {}), ("ring", "openmpi", RING_ENV)]
    assert {r.folder.split("/")[0] for r in state.launches} == {"openmpi", "ring"}


def test_a_variant_mixing_two_libraries_is_refused(bench_dir):
    with pytest.raises(PlanError, match="--variant mix: mixes settings of several MPI libraries "
                                        r"\(OMPI_MCA_x for openmpi; MPIR_CVAR_y for mpich\)"):
        spec.prepare(request(bench_dir, ["openmpi", "mpich"], ["mix=OMPI_MCA_x=1 MPIR_CVAR_y=2"]))


def test_a_variant_of_an_absent_library_is_refused(bench_dir, monkeypatch):
    with pytest.raises(PlanError, match=r"--variant ring: .* belong to openmpi, so the variant "
                                        r"runs with openmpi, which is not in this campaign "
                                        r"\(--mpi mpich\); add it: --mpi mpich,openmpi"):
        spec.prepare(request(bench_dir, ["mpich"], [RING]))
    # without --mpi: the libraries found under the bench folder
    monkeypatch.setattr(launcher, "found_libraries", lambda bench: ["mpich"])
    with pytest.raises(PlanError, match=r"not in this campaign \(libraries found under .*bench: "
                                        r"mpich\); build its mpimeter-bench"):
        spec.prepare(request(bench_dir, None, [RING]))
