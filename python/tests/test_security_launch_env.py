# SPDX-License-Identifier: BSD-3-Clause
"""What a file may set for a launch (campaign.launch_env): an allow-list of the libraries'
collective-tuning variables, each value of its type, no control character — checked where
campaign.json becomes a resumed launch (campaign.resume.prepare), where a binary's algorithm
list becomes alternatives (campaign.algorithms) and where a tuning file becomes the verification
campaign's command line (campaign.tuning_bench). Properties with hypothesis: whatever names and
values a file holds, nothing off the list reaches a launch's environment or command line."""

from __future__ import annotations

import json
import shlex
import string

import pytest
from data.fakebench import cli, failed, fake_env, on_disk, one_line_error, template  # noqa: F401
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as hs

from mpimeter.campaign import algorithms, launch_env, plan, resume, secrets, tuning_bench
from mpimeter.campaign import state as st
from mpimeter.campaign.plan import PlanError
from mpimeter.io import tuning_files

# ---- the list ---------------------------------------------------------------------------------

ALLOWED = [("OMPI_MCA_coll_tuned_use_dynamic_rules", "1"), ("OMPI_MCA_coll_tuned_allreduce_algorithm", "4"),
           ("OMPI_MCA_coll_tuned_bcast_algorithm_segmentsize", "8192"),
           ("OMPI_MCA_coll_tuned_bcast_algorithm_chain_fanout", "4"),
           ("OMPI_MCA_coll_tuned_reduce_algorithm_tree_fanout", "2"),
           ("OMPI_MCA_coll_tuned_alltoall_algorithm_max_requests", "0"), ("OMPI_MCA_coll_hcoll_priority", "90"),
           ("OMPI_MCA_coll", "^hcoll,han"), ("OMPI_MCA_btl", "self,vader"), ("OMPI_MCA_pml", "ob1"),
           ("OMPI_MCA_osc", "^monitoring"), ("OMPI_MCA_pml_monitoring_enable", "1"),
           ("MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM", "recursive_doubling"),
           ("MPIR_CVAR_IBCAST_INTRA_ALGORITHM", "tree"), ("MPIR_CVAR_BCAST_TREE_KVAL", "4"),
           ("MPIR_CVAR_REDUCE_SCATTER_BLOCK_INTER_ALGORITHM", "auto"), ("MPIR_CVAR_DEVICE_COLLECTIVES", "percoll"),
           ("MPIR_CVAR_ALLREDUCE_DEVICE_COLLECTIVE", "0")]


@pytest.mark.parametrize("name,value", ALLOWED)
def test_the_libraries_tuning_variables_pass(name, value):
    assert launch_env.refusal(name, value) is None


def test_a_file_path_passes_only_when_it_is_a_regular_file(tmp_path):
    rules = tmp_path / "rules"
    rules.write_text("0\n")
    for name in ("OMPI_MCA_coll_tuned_dynamic_rules_filename", "MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE"):
        assert launch_env.refusal(name, str(rules)) is None
        for bad in (str(tmp_path), "/dev/zero", str(tmp_path / "missing"), ""):
            assert "an existing regular file" in launch_env.refusal(name, bad)


@pytest.mark.parametrize("name", ["LD_PRELOAD", "LD_AUDIT", "DYLD_INSERT_LIBRARIES", "PYTHONSTARTUP", "PATH",
                                  "BASH_ENV", "OMPI_MCA_orte_fork_agent", "OMPI_MCA_mca_base_component_path",
                                  "OMPI_MCA_plm_rsh_agent", "OMPI_MCA_orte_launch_agent", "PRTE_MCA_prte_fork_agent",
                                  "OPAL_PREFIX", "HYDRA_LAUNCHER_EXEC", "MPIEXEC_PORT_RANGE", "I_MPI_HYDRA_BOOTSTRAP",
                                  "OMPI_MCA_coll_tuned_allreduce_algorithm_x", "MPIR_CVAR_CH4_NETMOD",
                                  "OMPI_MCA_coll_tuned_dynamic_rules_filenamex"])
def test_a_variable_off_the_list_is_refused_naming_it(name):
    why = launch_env.refusal(name, "1")
    assert why is not None and name in why and "allow-list" in why


@pytest.mark.parametrize("name,value,words", [
    ("OMPI_MCA_coll_tuned_allreduce_algorithm", "3\nLD_PRELOAD=/x/evil.so", "control character"),
    ("OMPI_MCA_coll_tuned_allreduce_algorithm", "1e3", "an integer ≥ 0"),
    ("OMPI_MCA_coll_tuned_allreduce_algorithm", "-1", "an integer ≥ 0"),
    ("OMPI_MCA_coll_tuned_use_dynamic_rules", "2", "0 or 1"),
    ("MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM", "ring;id", "a name of letters"),
    ("MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM", "$(id)", "a name of letters"),
    ("OMPI_MCA_btl", "self, vader", "a component list"),
    ("OMPI_MCA_coll_tuned_allreduce\t_algorithm", "1", "control character"),
])
def test_a_value_of_the_wrong_type_is_refused_saying_what_is_allowed(name, value, words):
    why = launch_env.refusal(name, value)
    assert why is not None and words in why


def test_a_refusal_quotes_a_bounded_excerpt():
    why = launch_env.refusal("X" * 10**6, "1")
    assert len(why) < 600 and "…" in why
    why = launch_env.refusal("OMPI_MCA_coll_tuned_allreduce_algorithm", "9" * 10**6)
    assert len(why) < 600


# ---- --resume ---------------------------------------------------------------------------------

def _resume(tmp, out, *extra):
    return cli(["--resume", str(out), "--launcher", template(tmp), *extra, "--no-analyze"],
               env={"FAKE_BENCH_MODE": "ok", "FAKE_BENCH_LOG": str(tmp / "calls")})


def _set_env(out, env):
    disk = on_disk(out)
    for alt in disk["alternatives"]:
        alt["env"] = env
    (out / "campaign.json").write_text(json.dumps(disk))
    return (out / "campaign.json").read_text()


@pytest.mark.parametrize("env", [{"OMPI_MCA_orte_fork_agent": "/tmp/x.sh"},
                                 {"OMPI_MCA_mca_base_component_path": "/tmp/evil"},
                                 {"OMPI_MCA_coll_tuned_allreduce_algorithm": "3\nLD_PRELOAD=/x/evil.so"},
                                 {"OMPI_MCA_coll_tuned_allreduce_algorithm": "1e3"}])
def test_resume_with_trust_recorded_refuses_what_is_off_the_list(failed, env):
    tmp, out = failed
    text = _set_env(out, env)
    result = _resume(tmp, out, "--trust-recorded")
    line = one_line_error(result)
    assert result.exit_code == 2 and next(iter(env)) in line, line
    assert not (tmp / "calls").exists() and (out / "campaign.json").read_text() == text


NAMES = hs.one_of(
    hs.sampled_from([n for n, _ in ALLOWED] + ["LD_PRELOAD", "LD_LIBRARY_PATH", "DYLD_INSERT_LIBRARIES",
                                                "PYTHONPATH", "PYTHONSTARTUP", "OMPI_MCA_orte_fork_agent",
                                                "OMPI_MCA_plm_rsh_agent", "OMPI_MCA_mca_base_component_path",
                                                "PRTE_MCA_plm_ssh_agent", "HYDRA_LAUNCHER_EXEC",
                                                "HYDRA_BOOTSTRAP_EXEC", "MPIEXEC_TIMEOUT", "I_MPI_HYDRA_BOOTSTRAP",
                                                "OMPI_MCA_coll_tuned_dynamic_rules_filename",
                                                "MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE"]),
    hs.from_regex(r"\A(LD_|DYLD_|PYTHON|OMPI_MCA_orte_|OMPI_MCA_plm_|PRTE_|HYDRA_|MPIEXEC_|I_MPI_|OMPI_MCA_coll_|"
                  r"MPIR_CVAR_)[A-Za-z0-9_]{0,12}\Z"),
    hs.text(alphabet=string.ascii_letters + string.digits + "_", min_size=1, max_size=20))
VALUES = hs.one_of(
    hs.sampled_from(["1", "0", "4", "ring", "self,vader", "^hcoll", "/bin/sh", "/etc/passwd", "/dev/zero",
                     "3\nLD_PRELOAD=/x/evil.so", "1e3", "$(id)", "`id`", "a;b", "a b", "x\x00y", "1\r", "'q'"]),
    hs.text(alphabet=string.printable + "\x00\x01\x1b\x7f\x85", max_size=30))


def _load_with(out, env):
    """campaign.json with ``env`` for every alternative, read as --resume reads it."""
    disk = on_disk(out)
    for alt in disk["alternatives"]:
        alt["env"] = env
    (out / "campaign.json").write_text(json.dumps(disk))
    return st.load(out)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(env=hs.lists(hs.sampled_from(ALLOWED) | hs.sampled_from(ALLOWED) |
                   hs.tuples(hs.from_regex(r"\A[A-Za-z_][A-Za-z0-9_]{0,30}\Z") | NAMES, VALUES), max_size=3).map(dict),
       trust=hs.booleans())
@example(env={"OMPI_MCA_btl": "self,vader", "OMPI_MCA_coll_tuned_allreduce_algorithm": "4"}, trust=True)
@example(env={"OMPI_MCA_orte_fork_agent": "/tmp/x.sh"}, trust=True)
def test_property_nothing_off_the_list_reaches_a_resumed_launch(failed, env, trust):
    """Whatever campaign.json's alternatives set (names state.load takes), a prepared resume
    gives the launches still to run only variables on the list with values of their type, or
    values the environment of --resume sets already; the launcher's command line (Open MPI's
    mpirun -x NAME forwards each variable) names only those."""
    tmp, out = failed
    try:
        state = _load_with(out, env)
    except st.CampaignFileError:
        return  # not even a campaign: nothing runs
    try:
        prepared = resume.prepare(state, out, launcher_given="local", environ={}, trust_recorded=trust)
    except PlanError:
        return  # refused before anything runs
    todo = {r.alternative for r in prepared.launches if r.status != "complete"}
    for alt in prepared.alternatives:
        if alt.name not in todo:
            continue
        for key, value in alt.env.items():
            assert launch_env.refusal(key, value) is None, (key, value)
        words = shlex.split(prepared.launch_templates[alt.name])
        forwarded = [words[i + 1] for i, w in enumerate(words[:-1]) if w == "-x"]
        assert all(launch_env.value_type(name) is not None for name in forwarded), forwarded


# ---- --algorithms: the binary's list ------------------------------------------------------------

def _listing(env: str, choices=(("ignore", 0), ("ring", 4))):
    return algorithms.parse_listing({"algorithms": [{"op": "allreduce", "variable": "coll_tuned_allreduce_algorithm",
                                                     "env": env, "set_by": "value",
                                                     "choices": [{"name": n, "value": v} for n, v in choices]}]},
                                    "bench")


def test_an_algorithm_variable_a_binary_lists_passes_the_list():
    (alt,) = algorithms.alternatives("openmpi", {"allreduce": None},
                                     _listing("OMPI_MCA_coll_tuned_allreduce_algorithm"))
    assert alt.env == {"OMPI_MCA_coll_tuned_use_dynamic_rules": "1", "OMPI_MCA_coll_tuned_allreduce_algorithm": "4"}


@pytest.mark.parametrize("env", ["LD_PRELOAD", "OMPI_MCA_orte_fork_agent"])
def test_an_algorithm_variable_off_the_list_is_refused(env):
    with pytest.raises(PlanError, match=f"{env}.*allow-list"):
        algorithms.alternatives("openmpi", {"allreduce": None}, _listing(env))


@pytest.mark.parametrize("texts", [[";"], [" ; ;"], [""]])
def test_an_algorithms_request_of_nothing_is_refused(texts):
    with pytest.raises(PlanError, match="requests no operation"):
        algorithms.parse_request(texts)


def test_an_unknown_op_of_a_library_that_selects_none_says_so():
    with pytest.raises(PlanError) as err:
        algorithms.alternatives("mpich", {"scan": None}, {})
    assert "it has one for: none" not in str(err.value) and "no algorithm of any operation" in str(err.value)


# ---- tune: the env file and --verify's command line ---------------------------------------------

def _rule(value, op="allreduce", **params):
    return tuning_files.RangeRule(op=op, nprocs=2, size_min=8, size_max=4096, value=value, params=params)


@settings(max_examples=200, deadline=None)
@given(value=VALUES, library=hs.sampled_from(["openmpi", "mpich"]),
       params=hs.dictionaries(hs.sampled_from(["segmentsize", "chain_fanout", "x\n", "a b"]), VALUES, max_size=2))
def test_property_an_env_file_holds_only_allowed_settings(value, library, params):
    try:
        text = tuning_files.env_settings(library, [_rule(value, **params)], {"machine": "m\nLD_PRELOAD=x"})
    except tuning_files.TuningFileError:
        return
    for line in text.split("\n"):
        if line and not line.startswith("#"):
            name, _, val = line.partition("=")
            assert launch_env.refusal(name, val) is None, line
    assert tuning_files.validate_env(text)  # what it writes, --verify reads back


@settings(max_examples=300, deadline=None)
@given(lines=hs.lists(hs.tuples(NAMES, VALUES), max_size=4))
def test_property_verify_launches_only_allowed_settings(lines, tmp_path_factory):
    """A settings file of any names and values: either refused, or every setting that reaches
    the verification campaign's command line (its --variant, split as run splits it) is on
    the list, with its value."""
    text = "".join(f"{n}={v}\n" for n, v in lines)
    folder = tmp_path_factory.mktemp("v")
    try:
        settings_ = tuning_files.validate_env(text)
        env = tuning_bench.verify_env("openmpi", "env", folder / "t.env", settings_)
    except (tuning_files.TuningFileError, PlanError):
        return
    argv = tuning_bench.verification_argv("openmpi", env, out=folder / "o", nprocs=[2], ops=["allreduce"],
                                          sizes=[8], launches=1, extra=())
    variant = argv[argv.index("--variant") + 1]
    name, reached = plan.parse_variant(variant)
    assert name == "tuned" and reached == env
    for key, value in reached.items():
        assert launch_env.refusal(key, value) is None
    assert sum(a == "--variant" for a in argv) == 1 and not any("\n" in a for a in argv)


def test_a_rules_file_path_with_a_space_reaches_the_variant_whole(tmp_path):
    rules = tmp_path / "a b" / "t.rules"
    rules.parent.mkdir()
    rules.write_text("0\n")
    env = tuning_bench.verify_env("openmpi", "openmpi-rules", rules, {})
    argv = tuning_bench.verification_argv("openmpi", env, out=tmp_path / "o", nprocs=[2], ops=["allreduce"],
                                          sizes=[8], launches=1, extra=())
    assert plan.parse_variant(argv[argv.index("--variant") + 1])[1] == env


def test_secret_values_still_come_from_the_environment_on_resume(failed):
    tmp, out = failed
    state = _load_with(out, {"UCX_API_TOKEN": secrets.REDACTED, "OMPI_MCA_btl": "self,vader"})
    prepared = resume.prepare(state, out, launcher_given=template(tmp), environ={"UCX_API_TOKEN": "s3"},
                              trust_recorded=True)
    assert all(a.env == {"UCX_API_TOKEN": "s3", "OMPI_MCA_btl": "self,vader"} for a in prepared.alternatives
               if a.name in {r.alternative for r in prepared.launches})

