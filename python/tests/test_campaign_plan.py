"""The plan of a campaign: seeded interleaving, alternatives, launcher templates, bench options."""

from collections import Counter

import pytest

from mpimeter.campaign import benchopts, launcher, plan
from mpimeter.campaign.plan import PlanError


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
    assert [(a.name, a.mpi, a.env) for a in one_lib] == [("a", "openmpi", {"X": "1"}),
                                                          ("b", "openmpi", {})]
    two = plan.make_alternatives(["openmpi", "mpich"], [("a", {}), ("b", {})])
    assert [a.name for a in two] == ["openmpi-a", "openmpi-b", "mpich-a", "mpich-b"]
    with pytest.raises(PlanError, match="listed twice"):
        plan.make_alternatives(["mpich", "mpich"], [])
    with pytest.raises(PlanError, match="used twice"):
        plan.make_alternatives(["mpich"], [("a", {}), ("a", {})])


def test_local_templates():
    assert launcher.local_template("openmpi", as_root=True) == \
        "mpirun.openmpi --allow-run-as-root --oversubscribe -np {np} {cmd}"
    assert launcher.local_template("openmpi", as_root=False) == \
        "mpirun.openmpi --oversubscribe -np {np} {cmd}"
    assert launcher.local_template("openmpi", ["A", "B"], as_root=False) == \
        "mpirun.openmpi --oversubscribe -x A -x B -np {np} {cmd}"
    assert launcher.local_template("mpich") == "mpiexec.mpich -np {np} {cmd}"
    assert launcher.resolve_template("srun", "mpich") == "srun -n {np} {cmd}"
    with pytest.raises(PlanError, match="knows openmpi, mpich"):
        launcher.local_template("intelmpi")


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
    monkeypatch.delenv(launcher.BENCH_DIR_ENV)
    assert launcher.default_bench_dir() == launcher.repo_root() / "build"
    assert (launcher.repo_root() / "python" / "src" / "mpimeter").is_dir()


def test_parse_sizes():
    assert benchopts.parse_sizes("8:65536:x8") == [8, 64, 512, 4096, 32768]
    assert benchopts.parse_sizes("1,8:64:x2") == [1, 8, 16, 32, 64]
    for bad in ("8:64", "8:64:*2", "a", "", "64:8:x2", "8:64:x1"):
        with pytest.raises(PlanError, match="--sizes"):
            benchopts.parse_sizes(bad)


def test_resolve_bench_args_fills_campaign_defaults_explicitly():
    args = benchopts.resolve_bench_args({}, "hca3")
    assert args == ["--ops", benchopts.DEFAULT_OPS, "--sizes", benchopts.DEFAULT_SIZES,
                    "--nrep", "300", "--procsync", "window", "--clocksync", "hca3"]
    args = benchopts.resolve_bench_args({"procsync": "barrier", "window_us": 50.0}, "hca3")
    assert "--clocksync" not in args  # barrier needs no global clock: the bench's default
    assert benchopts.arg_value(args, "--window-us") == "50"


def test_check_bench_args():
    benchopts.check_bench_args({"ops": "bcast", "datatype": "double", "sizes": "8,16"}, 2,
                               ["bcast", "allreduce"])
    with pytest.raises(PlanError, match="unknown operation.*allredux"):
        benchopts.check_bench_args({"ops": "allredux"}, 2, ["bcast", "allreduce"])
    with pytest.raises(PlanError, match="not multiples of the double"):
        benchopts.check_bench_args({"datatype": "double", "sizes": "8,12"}, 2, None)
    with pytest.raises(PlanError, match="--nrep 0"):
        benchopts.check_bench_args({"nrep": 0}, 2, None)
    with pytest.raises(PlanError, match="--root 2: must be below --np 2"):
        benchopts.check_bench_args({"root": 2}, 2, None)


def test_default_launch_timeout_grows_with_the_plan_and_has_a_floor():
    small = benchopts.default_launch_timeout(["--ops", "bcast", "--sizes", "8", "--nrep", "10"], 2)
    assert small == 300.0
    default = benchopts.default_launch_timeout(benchopts.resolve_bench_args({}, "hca3"), 2, ncpus=2)
    big = benchopts.default_launch_timeout(benchopts.resolve_bench_args({"nrep": 30000}, "x"), 2,
                                           ncpus=2)
    assert big > 10 * default
    over = benchopts.default_launch_timeout(benchopts.resolve_bench_args({"nrep": 30000}, "x"), 8,
                                            ncpus=2)
    assert over > 3.9 * big
