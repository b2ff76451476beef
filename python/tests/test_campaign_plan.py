# SPDX-License-Identifier: BSD-3-Clause
"""The plan of a campaign: seeded interleaving, alternatives, launcher templates, bench options."""

from collections import Counter
import re

from pathlib import Path

import pytest

from mpimeter.campaign import benchopts, describe, launcher, plan
from mpimeter.campaign.benchargs import BenchArgs
from mpimeter.campaign.plan import PlanError
from mpimeter.io import bench_binaries


def test_interleave_is_deterministic_for_a_seed_and_differs_between_seeds():
    a = plan.interleave(["openmpi", "mpich"], 10, seed=42)
    b = plan.interleave(["openmpi", "mpich"], 10, seed=42)
    c = plan.interleave(["openmpi", "mpich"], 10, seed=43)
    assert a == b
    assert [(p.alternative, p.seed) for p in a] != [(p.alternative, p.seed) for p in c]


def test_interleave_runs_every_alternative_once_per_round_in_a_shuffled_order():
    alts = ["a", "b", "c"]
    order = plan.interleave(alts, 20, seed=7)
    assert len(order) == 60
    for r in range(20):
        block = order[3 * r: 3 * r + 3]
        assert sorted(p.alternative for p in block) == alts  # a complete block
        assert {p.index for p in block} == {r}
    firsts = Counter(order[3 * r].alternative for r in range(20))
    assert len(firsts) > 1  # shuffled, not always the same alternative first


def test_launch_seeds_are_distinct_and_in_range():
    order = plan.interleave(["x"], 200, seed=1)
    seeds = [p.seed for p in order]
    assert len(set(seeds)) == len(seeds)
    assert all(1 <= s <= plan.SEED_LIMIT for s in seeds)
    assert [p.index for p in order] == list(range(200))


def test_interleave_refuses_no_launches():
    with pytest.raises(PlanError, match="--launches 0"):
        plan.interleave(["x"], 0, seed=1)


def test_parse_variant():
    name, env = plan.parse_variant("tuned=OMPI_MCA_coll_tuned_use_dynamic_rules=1 "
                                   "OMPI_MCA_coll_tuned_allreduce_algorithm='3'")
    assert name == "tuned"
    assert env == {"OMPI_MCA_coll_tuned_use_dynamic_rules": "1",
                   "OMPI_MCA_coll_tuned_allreduce_algorithm": "3"}
    assert plan.parse_variant("default=") == ("default", {})


@pytest.mark.parametrize("text, message", [
    ("tuned", "expected NAME="),
    ("tu/ned=A=1", "not a usable name"),
    ("launches=A=1", "not a usable name"),
    ("v=1A=2", "not ENV=VALUE"),
    ("v=A", "not ENV=VALUE"),
    ("v=A=1 A=2", "given twice"),
    ("v='A=1", "cannot split"),
])
def test_parse_variant_refuses_bad_input(text, message):
    with pytest.raises(PlanError, match=message):
        plan.parse_variant(text)


def test_alternative_names():
    assert [a.name for a in plan.make_alternatives(["openmpi", "mpich"], [])] == ["openmpi", "mpich"]
    one_lib = plan.make_alternatives(["openmpi"], [("a", {"X": "1"}), ("b", {})])
    assert [(a.name, a.mpi, a.env) for a in one_lib] == [("openmpi", "openmpi", {}),
                                                          ("a", "openmpi", {"X": "1"}),
                                                          ("b", "openmpi", {})]
    two = plan.make_alternatives(["openmpi", "mpich"], [("a", {}), ("b", {})])
    assert [a.name for a in two] == ["openmpi", "openmpi-a", "openmpi-b", "mpich", "mpich-a",
                                     "mpich-b"]
    with pytest.raises(PlanError, match="listed twice"):
        plan.make_alternatives(["mpich", "mpich"], [])
    with pytest.raises(PlanError, match="used twice"):
        plan.make_alternatives(["mpich"], [("a", {}), ("a", {})])


RING = {"OMPI_MCA_coll_tuned_use_dynamic_rules": "1",
        "OMPI_MCA_coll_tuned_allreduce_algorithm": "4"}


def test_the_baseline_of_each_library_is_kept_next_to_its_variants():
    alts = plan.make_alternatives(["openmpi"], [("ring", RING)])
    assert [(a.name, a.mpi, a.env) for a in alts] == [("openmpi", "openmpi", {}),
                                                       ("ring", "openmpi", RING)]


def test_a_library_variant_runs_with_that_library_only_and_keeps_its_name():
    alts = plan.make_alternatives(["openmpi", "mpich"],
                                  [("ring", RING), ("nem", {"MPIR_CVAR_CH3_NOLOCAL": "1"})])
    assert [(a.name, a.mpi) for a in alts] == [("openmpi", "openmpi"), ("ring", "openmpi"),
                                               ("mpich", "mpich"), ("nem", "mpich")]
    assert alts[1].env == RING and alts[3].env == {"MPIR_CVAR_CH3_NOLOCAL": "1"}
    for key, mpi in [("OPAL_X", "openmpi"), ("PMIX_MCA_x", None), ("PRTE_MCA_x", "openmpi"),
                     ("MPICH_ASYNC_PROGRESS", "mpich"), ("HYDRA_TOPO_DEBUG", "mpich"),
                     ("MPIEXEC_TIMEOUT", None), ("UCX_TLS", None), ("OMP_NUM_THREADS", None),
                     ("MPIR_CVARX", None)]:
        assert plan.variant_library("v", {key: "1"}) == mpi, key


def test_a_neutral_variant_runs_with_every_library():
    ucx = {"UCX_TLS": "sm,self", "OMP_NUM_THREADS": "1"}
    alts = plan.make_alternatives(["openmpi", "mpich"], [("shm", ucx), ("ring", RING)])
    assert [(a.name, a.mpi, a.env) for a in alts] == [
        ("openmpi", "openmpi", {}), ("openmpi-shm", "openmpi", ucx), ("ring", "openmpi", RING),
        ("mpich", "mpich", {}), ("mpich-shm", "mpich", ucx)]
    one = plan.make_alternatives(["mpich"], [("shm", ucx)])
    assert [(a.name, a.mpi, a.env) for a in one] == [("mpich", "mpich", {}), ("shm", "mpich", ucx)]


def test_a_variant_mixing_two_libraries_is_refused():
    with pytest.raises(PlanError, match=r"--variant both: mixes settings of several MPI "
                                        r"libraries \(OMPI_A for openmpi; MPICH_B for mpich\)"):
        plan.make_alternatives(["openmpi", "mpich"],
                               [("both", {"OMPI_A": "1", "UCX_TLS": "sm", "MPICH_B": "2"})])


def test_a_variant_of_a_library_not_in_the_campaign_is_refused():
    with pytest.raises(PlanError) as given:
        plan.make_alternatives(["mpich"], [("ring", RING)])
    message = str(given.value)
    assert message.startswith("--variant ring: OMPI_MCA_coll_tuned_use_dynamic_rules, "
                              "OMPI_MCA_coll_tuned_allreduce_algorithm belong to openmpi")
    assert "not in this campaign (--mpi mpich)" in message
    assert "--mpi mpich,openmpi" in message
    with pytest.raises(PlanError, match=r"not in this campaign \(libraries found under /b: "
                                        r"mpich\); build its mpimeter-bench"):
        plan.make_alternatives(["mpich"], [("ring", RING)], found_under="/b")


def test_alternative_names_must_not_clash():
    with pytest.raises(PlanError, match="--variant openmpi with openmpi would be named 'openmpi', "
                                        "like the baseline of openmpi"):
        plan.make_alternatives(["openmpi"], [("openmpi", {"UCX_TLS": "sm"})])
    with pytest.raises(PlanError, match="--variant mpich with openmpi would be named 'mpich'"):
        plan.make_alternatives(["openmpi", "mpich"], [("mpich", RING)])
    with pytest.raises(PlanError, match="'openmpi-x'"):
        plan.make_alternatives(["openmpi", "mpich"], [("openmpi-x", RING), ("x", {})])


def test_local_templates():
    assert launcher.local_template("openmpi", as_root=True) == \
        "mpirun.openmpi --allow-run-as-root --oversubscribe -np {np} {cmd}"
    assert launcher.local_template("openmpi", as_root=False) == \
        "mpirun.openmpi --oversubscribe -np {np} {cmd}"
    assert launcher.local_template("openmpi", ["A", "B"], as_root=False) == \
        "mpirun.openmpi --oversubscribe -x A -x B -np {np} {cmd}"
    assert launcher.local_template("mpich") == "mpiexec.mpich -np {np} {cmd}"
    assert launcher.resolve_template("srun", "mpich") == "srun -n {np} {cmd}"
    with pytest.raises(PlanError, match="no launcher known for 'intelmpi'"):
        launcher.local_template("intelmpi", bench_dir=Path("/nonexistent"))


def test_build_argv_expands_cmd_word_by_word_or_quoted():
    bench = ["/b/mpimeter-bench", "--ops", "a b", "--out", "x"]
    assert launcher.build_argv("srun -n {np} {cmd}", 4, bench) == ["srun", "-n", "4", *bench]
    assert launcher.build_argv("sh -c 'exec {cmd}' -np{np}", 2, bench) == \
        ["sh", "-c", "exec /b/mpimeter-bench --ops 'a b' --out x", "-np2"]


@pytest.mark.parametrize("template, message", [
    ("srun -n 4 {cmd}", "needs both"),
    ("srun -n {np}", "needs both"),
    ("{cmd} {np}", "must start with a launcher"),
    ("srun 'x {np} {cmd}", "cannot split"),
])
def test_bad_templates(template, message):
    with pytest.raises(PlanError, match=message):
        launcher.check_template(template)


def test_bench_dir_from_environment(monkeypatch, tmp_path):
    monkeypatch.setenv(launcher.BENCH_DIR_ENV, str(tmp_path))
    assert launcher.default_bench_dir() == tmp_path


def test_bench_dir_of_a_source_checkout_is_its_build_folder(monkeypatch):
    import mpimeter

    if "site-packages" in mpimeter.__file__:
        pytest.skip("the package is installed, not run from a checkout (scripts/check-oldest-deps): "
                    "there is no source tree to find, hence MPIMETER_BENCH_DIR")
    monkeypatch.delenv(launcher.BENCH_DIR_ENV, raising=False)
    assert launcher.default_bench_dir() == bench_binaries.repo_root() / "build"
    assert (bench_binaries.repo_root() / "python" / "src" / "mpimeter").is_dir()


def _bench() -> str:
    return str(launcher.bench_binary(launcher.default_bench_dir(), "openmpi"))


def test_resolve_writes_the_campaign_defaults_out_from_the_binary():
    res = benchopts.resolve([_bench()], {}, BenchArgs(), 2)
    desc = describe.describe(_bench())
    defaults = {o.flag: o.default for o in desc.options if o.name in benchopts.WRITTEN_OUT}
    args = res.args.argv()
    for flag, default in defaults.items():  # written out, with the binary's own defaults
        assert args[args.index(flag) + 1] == default
    # the binary's auto for a window is hca3, or none in a launch whose ranks read one clock:
    # left to each launch, and said in the notes
    assert args[args.index("--clocksync") + 1] == "auto"
    assert any(n.startswith("clock sync hca3: ") and "one kernel clock" in n for n in res.notes)
    assert res.validated.config["nrep"] == 300 and res.validated.tests > 0
    barrier = benchopts.resolve([_bench()], {"procsync": "barrier"}, BenchArgs(), 2)
    assert barrier.args.value("--clocksync") == "none"


def test_resolve_refuses_in_the_binarys_words():
    cases = [({"ops": "allredux"}, "--ops: unknown operation 'allredux'; allowed: allgather"),
             ({"datatype": "double", "sizes": "8,12"}, "--sizes: size 12 is not a multiple of the datatype size"),
             ({"nrep": "0"}, "--nrep: 0 is out of range; allowed: a whole number from 1 to 100000000"),
             ({"root": "2", "ops": "bcast"}, "--root: 2 is not a rank of this launch; allowed: 0 to 1"),
             ({"window_us": "0"}, "--window-us: 0 is out of range; allowed: a number from 0.001"),
             ({"frobnicate": "1"}, "--frobnicate: mpimeter-bench")]
    for values, message in cases:
        with pytest.raises(PlanError) as err:
            benchopts.resolve([_bench()], values, BenchArgs(), 2)
        assert str(err.value).startswith(message), (values, str(err.value))


def test_default_launch_timeout_grows_with_the_plan_and_has_a_floor():
    def timeout(values, np, ncpus=2):
        return benchopts.default_launch_timeout(benchopts.resolve([_bench()], values, BenchArgs(), np).validated, np,
                                                ncpus=ncpus)

    assert timeout({"ops": "bcast", "sizes": "8", "nrep": "10"}, 2) == 300.0
    default = timeout({}, 2)
    big = timeout({"nrep": "30000"}, 2)
    assert big > 10 * default
    assert timeout({"nrep": "30000"}, 8) > 3.9 * big


def test_default_launch_timeout_with_adaptive_repetitions_and_sizes():
    def timeout(values):
        return benchopts.default_launch_timeout(benchopts.resolve([_bench()], values, BenchArgs(), 2).validated, 2, ncpus=2)

    plain = {"ops": "allreduce", "sizes": "8,1024"}
    # --nrep auto may record up to --nrep-max, but each test ends by its budget (10 s: 60 + 2 x 25
    # s, below the floor)
    assert timeout({**plain, "nrep": "auto", "nrep_max": "1000000"}) == 300.0
    assert timeout({**plain, "nrep": "1000000"}) > 10000
    assert timeout({**plain, "nrep": "auto", "nrep_max": "1000000", "nrep_budget_s": "100"}) == 60 + 2 * 205
    # --sizes auto: up to 16 more sizes per operation, counted at the largest
    assert timeout({"ops": "allreduce", "sizes": "auto:8:1048576", "nrep": "3000"}) > \
        timeout({"ops": "allreduce", "sizes": "8:1048576:x2", "nrep": "3000"})


def test_default_launch_timeout_leaves_room_for_the_cold_cache_overwrite():
    # 256 MiB overwritten after each of 310 × 24 repetitions: at least 2 ns per byte each
    def timeout(values):
        return benchopts.default_launch_timeout(benchopts.resolve([_bench()], values, BenchArgs(), 2).validated, 2, ncpus=2)

    assert timeout({"cold_cache": str(256 << 20)}) - timeout({}) >= 10 * 24 * 310 * 2 * (256 << 20) * 1e-9 * 0.99


@pytest.mark.parametrize("template, mpi, mpis, message", [
    ("mpirun.openmpi --allow-run-as-root -np {np} {cmd}", "mpich", ["mpich", "openmpi"],
     "mpirun.openmpi starts openmpi ranks, but this campaign also runs mpich"),
    ("sh -c 'exec mpiexec.mpich -np {np} {cmd}'", "openmpi", ["openmpi"],
     "mpiexec.mpich starts mpich ranks"),
    ("/usr/bin/mpirun -np {np} {cmd}", "openmpi", ["mpich", "openmpi"],
     "mpirun is one MPI library's launcher, but the campaign runs mpich, openmpi"),
])
def test_a_template_must_fit_every_library_it_starts(template, mpi, mpis, message):
    with pytest.raises(PlanError, match=re.escape(message)):
        launcher.check_template_fits(template, mpi, mpis)


@pytest.mark.parametrize("template, mpi, mpis", [
    ("mpirun.openmpi --allow-run-as-root -np {np} {cmd}", "openmpi", ["openmpi"]),
    ("mpirun -np {np} {cmd}", "mpich", ["mpich"]),
    ("srun -n {np} {cmd}", "mpich", ["mpich", "openmpi"]),
])
def test_templates_that_fit_are_accepted(template, mpi, mpis):
    launcher.check_template_fits(template, mpi, mpis)
