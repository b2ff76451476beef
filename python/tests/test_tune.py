# SPDX-License-Identifier: BSD-3-Clause
"""`mpimeter tune` (analysis.tuning, io.tuning_files, cli.tune) on synthetic campaigns whose truth
is known: the choices, the ranges, the files written and refused, and bad input."""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from data.synth_tuning import algorithm_campaign, mpich, ompi

from mpimeter.cli.tune import command
from mpimeter.io import tuning_files as tf

SIZES = (8, 64, 512, 4096)


def run(*args):
    # --bench-dir to nowhere: the tests do not depend on a built binary (names are the values)
    return CliRunner().invoke(command, [str(a) for a in args])


def tuned(result):
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["libraries"]


def ranges(lib):
    return [(r["op"], r["nprocs"], r["size_min"], r["size_max"], r["alternative"]) for r in lib["ranges"]]


def test_a_clear_winner_is_chosen_at_every_size(tmp_path):
    root = algorithm_campaign(tmp_path / "c", {"openmpi": {}, "ring": ompi("allreduce", 4)},
                              lambda alt, op, size, p: 0.6 if alt == "ring" else 1.0)
    (lib,) = tuned(run(root, "--json", "--bench-dir", tmp_path / "nobin"))
    assert lib["library"] == "openmpi" and lib["default"] == "openmpi"
    assert ranges(lib) == [("allreduce", 2, 8, 4096, "ring")]
    for c in lib["comparisons"]:
        assert c["significant"] and 0.55 < c["ratio"] < 0.65 and c["ratio_ci_high"] < 0.95
        assert c["p_value"] <= c["p_adjusted"] <= 0.05
        assert c["variable"] == "OMPI_MCA_coll_tuned_allreduce_algorithm" and c["value"] == "4"
    (r,) = lib["ranges"]
    assert r["setting"]["variable"] == "OMPI_MCA_coll_tuned_allreduce_algorithm" and r["setting"]["value"] == "4"
    assert all(0.55 < x < 0.65 for x in r["predicted_ratio"])


def test_a_tie_keeps_the_default(tmp_path):
    root = algorithm_campaign(tmp_path / "c", {"openmpi": {}, "ring": ompi("allreduce", 4)},
                              lambda alt, op, size, p: 1.0)
    (lib,) = tuned(run(root, "--json", "--bench-dir", tmp_path / "nobin"))
    assert ranges(lib) == [("allreduce", 2, 8, 4096, None)]
    assert not any(c["significant"] for c in lib["comparisons"])


def test_an_effect_below_the_minimum_keeps_the_default(tmp_path):
    """3 % faster, every time: significant as a difference, but below --min-effect 5 %; with
    --min-effect 0.01 it is chosen."""
    root = algorithm_campaign(tmp_path / "c", {"openmpi": {}, "ring": ompi("allreduce", 4)},
                              lambda alt, op, size, p: 0.97 if alt == "ring" else 1.0, launches=12)
    (lib,) = tuned(run(root, "--json", "--bench-dir", tmp_path / "nobin"))
    assert ranges(lib) == [("allreduce", 2, 8, 4096, None)]
    (lib,) = tuned(run(root, "--json", "--min-effect", "0.01", "--bench-dir", tmp_path / "nobin"))
    assert ranges(lib) == [("allreduce", 2, 8, 4096, "ring")]


def test_a_winner_in_one_size_range_only(tmp_path):
    """ring wins from 512 B on, linear below 64 B, the default in between... and the slower one
    is never chosen."""
    def truth(alt, op, size, p):
        if alt == "ring":
            return 0.7 if size >= 512 else 1.25
        if alt == "linear":
            return 0.8 if size <= 8 else 1.3
        return 1.0
    root = algorithm_campaign(tmp_path / "c", {"openmpi": {}, "ring": ompi("allreduce", 4),
                                               "linear": ompi("allreduce", 1)}, truth)
    (lib,) = tuned(run(root, "--json", "--bench-dir", tmp_path / "nobin"))
    assert ranges(lib) == [("allreduce", 2, 8, 8, "linear"), ("allreduce", 2, 64, 64, None),
                           ("allreduce", 2, 512, 4096, "ring")]
    # the rules file says the same, in Open MPI's message sizes
    out = tmp_path / "rules.txt"
    assert run(root, "--out", out, "--bench-dir", tmp_path / "nobin").exit_code == 0
    rules = tf.validate_openmpi_rules(out.read_text())
    assert rules["allreduce"][2] == [(0, 0, 0, 0), (8, 1, 0, 0), (64, 0, 0, 0), (512, 4, 0, 0), (4097, 0, 0, 0)]
    # communicator sizes next to the measured one keep the library's decision
    assert rules["allreduce"][1] == rules["allreduce"][3] == [(0, 0, 0, 0)]
    text = out.read_text()
    assert text.startswith("# Open MPI dynamic rules") and "# campaign id: synthetic-7" in text
    assert "# library: Open MPI v4.1.4 (synthetic)" in text and "# machine: synthetic-host" in text
    evidence = json.loads((tmp_path / "rules.txt.evidence.json").read_text())
    assert evidence["format"] == "openmpi-rules" and evidence["library"] == "openmpi"


def test_several_process_counts_are_chosen_apart(tmp_path):
    """ring wins at p = 4 only; the per-rank block operations count p in Open MPI's message size."""
    root = algorithm_campaign(tmp_path / "c", {"openmpi": {}, "ring": ompi("allgather", 4)},
                              lambda alt, op, size, p: 0.6 if alt == "ring" and p == 4 else 1.0,
                              ops=("allgather",), nprocs=(2, 4), launches=20)
    (lib,) = tuned(run(root, "--json", "--bench-dir", tmp_path / "nobin"))
    assert ranges(lib) == [("allgather", 2, 8, 4096, None), ("allgather", 4, 8, 4096, "ring")]
    out = tmp_path / "rules.txt"
    assert run(root, "--out", out, "--bench-dir", tmp_path / "nobin").exit_code == 0
    rules = tf.validate_openmpi_rules(out.read_text())["allgather"]
    assert rules[4] == [(0, 0, 0, 0), (32, 4, 0, 0), (4096 * 4 + 1, 0, 0, 0)]
    assert rules[2] == [(0, 0, 0, 0)] and rules[5] == [(0, 0, 0, 0)] and rules[3] == [(0, 0, 0, 0)]


def test_names_come_from_the_record_only_when_it_agrees_with_the_environment(tmp_path):
    root = algorithm_campaign(tmp_path / "c", {"openmpi": {}, "ring": ompi("allreduce", 4),
                                               "other": ompi("allreduce", 3)},
                              lambda alt, op, size, p: 1.0,
                              algorithms={"ring": {"allreduce": {"name": "ring", "variable":
                                                                 "OMPI_MCA_coll_tuned_allreduce_algorithm", "value": "4"}},
                                          "other": {"allreduce": {"name": "claims-ring", "variable":
                                                                  "OMPI_MCA_coll_tuned_allreduce_algorithm", "value": "4"}}})
    (lib,) = tuned(run(root, "--json", "--bench-dir", tmp_path / "nobin"))
    names = {c["alternative"]: c["algorithm"] for c in lib["comparisons"]}
    assert names == {"ring": "ring", "other": "3"}  # the environment is the truth: other ran 3


def test_a_campaign_without_campaign_json_is_read_from_the_launches_environment(tmp_path):
    root = algorithm_campaign(tmp_path / "c", {"openmpi": {}, "ring": ompi("allreduce", 4)},
                              lambda alt, op, size, p: 0.6 if alt == "ring" else 1.0, record=False)
    (lib,) = tuned(run(root, "--json", "--bench-dir", tmp_path / "nobin"))
    assert ranges(lib) == [("allreduce", 2, 8, 4096, "ring")]


def _add_launcher_variables(root: Path, extra: dict[str, dict[str, str]] | None = None) -> None:
    """Each launch's meta.json environment gets what a real launcher records beside the
    alternative's own variables: ids that differ per launch, values alike in every launch, and
    ``extra``'s variables for an alternative."""
    for k, meta_path in enumerate(sorted(root.glob("*/launches/*/meta.json"))):
        meta = json.loads(meta_path.read_text())
        alt = meta_path.parents[2].name
        meta["environment"] = {**meta["environment"], "PMIX_ID": f"1234{k}.0", "OMPI_MCA_ess_base_jobid": str(k + 1),
                               "OMPI_COMM_WORLD_SIZE": "2", "OMPI_MCA_orte_ess_num_procs": "2",
                               **(extra or {}).get(alt, {})}
        meta_path.write_text(json.dumps(meta))


def test_without_campaign_json_the_launchers_own_variables_are_not_the_alternatives_settings(tmp_path):
    # launches as real ones record them: the launcher's per-launch ids and its constant values
    # are not what the alternative set; what tells the alternatives apart is
    root = algorithm_campaign(tmp_path / "c", {"openmpi": {}, "ring": ompi("allreduce", 4),
                                               "ucx": ompi("allreduce", 3)},
                              lambda alt, op, size, p: 0.6 if alt == "ring" else 1.0, record=False)
    _add_launcher_variables(root, {"ucx": {"UCX_TLS": "sm"}})
    r = run(root, "--json", "--bench-dir", tmp_path / "nobin")
    (lib,) = tuned(r)
    assert ranges(lib) == [("allreduce", 2, 8, 4096, "ring")]
    assert {c["alternative"] for c in lib["comparisons"]} == {"ring"}
    left_out = [w["message"] for w in json.loads(r.stdout)["warnings"] if w["code"] == "tune-left-out"]
    assert len(left_out) == 1 and "ucx" in left_out[0] and "UCX_TLS" in left_out[0] and "PMIX" not in left_out[0]


def test_an_alternative_that_sets_more_than_an_algorithm_is_left_out_with_a_warning(tmp_path):
    root = algorithm_campaign(tmp_path / "c", {"openmpi": {}, "ring": ompi("allreduce", 4),
                                               "ucx": {**ompi("allreduce", 3), "UCX_TLS": "sm"}},
                              lambda alt, op, size, p: 0.5 if alt == "ucx" else 1.0)
    r = run(root, "--json", "--bench-dir", tmp_path / "nobin")
    (lib,) = tuned(r)
    assert {c["alternative"] for c in lib["comparisons"]} == {"ring"}
    assert any(w["code"] == "tune-left-out" and "UCX_TLS" in w["message"] for w in json.loads(r.stdout)["warnings"])


def test_mpich_env_file_when_one_algorithm_holds_everywhere(tmp_path):
    root = algorithm_campaign(tmp_path / "c", {"mpich": {}, "rd": mpich("allreduce", "recursive_doubling")},
                              lambda alt, op, size, p: 0.6 if alt == "rd" else 1.0, library="mpich")
    out = tmp_path / "mpich.env"
    r = run(root, "--out", out, "--format", "env", "--bench-dir", tmp_path / "nobin")
    assert r.exit_code == 0, r.output
    lines = out.read_text().splitlines()
    assert [x for x in lines if not x.startswith("#")] == ["MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=recursive_doubling"]
    assert any("campaign id: synthetic-7" in x for x in lines)


# ---- bad input: one line, exit 2, nothing written ---------------------------------------------

def _refused(r, out: Path, *words):
    assert r.exit_code == 2, r.output
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mpimeter tune: error:"), r.stderr
    for w in words:
        assert w in lines[0], lines[0]
    assert not out.exists() and not out.with_name(out.name + ".evidence.json").exists()


def test_a_campaign_without_the_default_is_refused(tmp_path):
    root = algorithm_campaign(tmp_path / "c", {"ring": ompi("allreduce", 4), "linear": ompi("allreduce", 1)},
                              lambda alt, op, size, p: 1.0, launches=4)
    out = tmp_path / "rules.txt"
    _refused(run(root, "--out", out), out, "default")


def test_a_campaign_without_algorithm_alternatives_is_refused(tmp_path):
    root = algorithm_campaign(tmp_path / "c", {"openmpi": {}}, lambda alt, op, size, p: 1.0, launches=4)
    out = tmp_path / "rules.txt"
    _refused(run(root, "--out", out), out, "no algorithm alternatives")


def test_a_format_of_another_library_is_refused(tmp_path):
    root = algorithm_campaign(tmp_path / "c", {"openmpi": {}, "ring": ompi("allreduce", 4)},
                              lambda alt, op, size, p: 0.6 if alt == "ring" else 1.0, launches=4)
    out = tmp_path / "x.json"
    _refused(run(root, "--out", out, "--format", "mpich-json", "--bench-dir", tmp_path / "nobin"), out, "mpich-json")


def test_plain_variables_that_cannot_say_a_size_range_are_refused(tmp_path):
    root = algorithm_campaign(tmp_path / "c", {"openmpi": {}, "ring": ompi("allreduce", 4)},
                              lambda alt, op, size, p: 0.6 if alt == "ring" and size >= 512 else 1.0)
    out = tmp_path / "x.env"
    _refused(run(root, "--out", out, "--format", "env", "--bench-dir", tmp_path / "nobin"), out, "differs by size")


def test_an_operation_no_file_format_tunes_is_refused(tmp_path):
    root = algorithm_campaign(tmp_path / "c", {"openmpi": {}, "lin": ompi("scan", 1)},
                              lambda alt, op, size, p: 0.6 if alt == "lin" else 1.0, ops=("scan",))
    out = tmp_path / "rules.txt"
    _refused(run(root, "--out", out, "--bench-dir", tmp_path / "nobin"), out, "cannot tune scan")


def test_an_mpich_file_without_the_library_is_refused(tmp_path):
    root = algorithm_campaign(tmp_path / "c", {"mpich": {}, "rd": mpich("allreduce", "recursive_doubling")},
                              lambda alt, op, size, p: 0.6 if alt == "rd" else 1.0, library="mpich", launches=4)
    out = tmp_path / "x.json"
    _refused(run(root, "--out", out, "--bench-dir", tmp_path / "nobin"), out, "built-in tree")


def test_verify_options_alone_are_refused(tmp_path):
    r = run(tmp_path / "c", "--launches", "3")
    assert r.exit_code == 2 and "--launches goes with --verify only" in r.stderr


# ---- the validators, as the libraries read the files ------------------------------------------

GOOD_RULES = "1 # one\n2\n1\n2\n2\n0 0 0 0\n1024 4 0 0\n"


def test_the_rules_reader_takes_a_good_file():
    assert tf.validate_openmpi_rules(GOOD_RULES, {"allreduce": 7}) == {"allreduce": {2: [(0, 0, 0, 0), (1024, 4, 0, 0)]}}


@pytest.mark.parametrize("text, words", [
    ("1\n2\n1\n2\n2\n8 0 0 0\n1024 4 0 0\n", "first message size must be 0"),
    ("1\n2\n1\n2\n2\n0 0 0 0\n0 4 0 0\n", "must ascend"),
    ("1\n2\n2\n4\n1\n0 0 0 0\n2\n1\n0 0 0 0\n", "communicator sizes must ascend"),
    ("1\n2\n1\n2\n2\n0 0 0 0\n010 4 0 0\n", "decimal integer"),  # Open MPI would read 010 as 8
    ("1\n2\n1\n2\n1\n0 9 0 0\n", "algorithm 9 outside 0…6"),
    ("1\n22\n", "collective id 22"),
    ("1\n2\n1\n2\n2\n0 0 0 0\n", "ends where"),
    (GOOD_RULES + "7\n", "after the last rule"),
])
def test_the_rules_reader_refuses_what_open_mpi_would(text, words):
    with pytest.raises(tf.TuningFileError, match=words):
        tf.validate_openmpi_rules(text, {"allreduce": 7})


BUILTIN = tf.MpichBuiltin({"collective=allreduce": {"comm_type=intra": {"avg_msg_size<=8": {
    "algorithm=MPIR_Allreduce_intra_recursive_doubling": {}}, "avg_msg_size=any": {
    "algorithm=MPIR_Allreduce_intra_reduce_scatter_allgather": {}}}},
    "collective=bcast": {"comm_type=intra": {"algorithm=MPIR_Bcast_intra_binomial": {}}}},
    frozenset({"algorithm=MPIR_Allreduce_intra_recursive_doubling", "algorithm=MPIR_Bcast_intra_binomial",
               "algorithm=MPIR_Allreduce_intra_reduce_scatter_allgather"}))


def test_the_mpich_tree_keeps_the_library_s_own_subtree_outside_the_tuned_ranges():
    rules = [tf.RangeRule(op="allreduce", nprocs=4, size_min=64, size_max=512, value="recursive_doubling", params={})]
    tree = tf.mpich_json(rules, BUILTIN)
    own = BUILTIN.tree["collective=allreduce"]
    assert tree["collective=bcast"] == BUILTIN.tree["collective=bcast"]
    comm = tree["collective=allreduce"]["comm_type=intra"]
    assert list(comm) == ["comm_size<4", "comm_size<=4", "comm_size=any"]
    assert comm["comm_size<4"] == comm["comm_size=any"] == own
    sizes = comm["comm_size<=4"]
    assert list(sizes) == ["avg_msg_size<64", "avg_msg_size<=512", "avg_msg_size=any"]
    assert sizes["avg_msg_size<64"] == sizes["avg_msg_size=any"] == own
    # the choice only where MPICH's own restrictions hold (a file's choice is not checked by it)
    assert sizes["avg_msg_size<=512"] == {"is_commutative=no": own, "is_op_built_in=no": own, "count<pow2": own,
                                          "count=any": {"algorithm=MPIR_Allreduce_intra_recursive_doubling": {}}}
    text = tf.mpich_json_text(tree, {"campaign id": "x"})
    assert text.startswith("// MPICH collective selection") and "// campaign id: x" in text
    tf.validate_mpich_json(text, BUILTIN.containers)


@pytest.mark.parametrize("tree, words", [
    ({"collective=allreduce": {"comm_size=any": {"algorithm=MPIR_Allreduce_intra_ring": {}}}}, "not an algorithm"),
    ({"collective=allreduce": {"msg_size<=8": {"algorithm=MPIR_Allreduce_intra_recursive_doubling": {}}}},
     "not a test"),
    ({"collective=allreduce": {"comm_size=any": {"algorithm=MPIR_Allreduce_intra_recursive_doubling": {}},
                               "comm_size<=4": {"algorithm=MPIR_Allreduce_intra_recursive_doubling": {}}}}, "last"),
    ({"collective=allreduce": {"comm_size<=4": {"algorithm=MPIR_Allreduce_intra_recursive_doubling": {}}}},
     "needs a sibling"),
    ({"collective=allreduce": {}}, "empty object"),
])
def test_the_mpich_reader_refuses_what_mpich_would(tree, words):
    with pytest.raises(tf.TuningFileError, match=words):
        tf.validate_mpich_json(json.dumps(tree), BUILTIN.containers)


# ---- the report's tuning section --------------------------------------------------------------

def test_the_report_shows_the_tuning_when_the_campaign_has_algorithm_alternatives(tmp_path):
    from mpimeter import analysis
    from mpimeter.report.tuning import tuning_section

    def truth(alt, op, size, p):
        return 0.6 if alt == "ring" and size >= 512 else 1.0
    root = algorithm_campaign(tmp_path / "c", {"openmpi": {}, "ring": ompi("allreduce", 4)}, truth, nprocs=(2, 4),
                              launches=20)
    html = tuning_section(analysis.analyze(analysis.load_campaign(root, cache=False, store=False)))
    # one figure and one table per (op, p), the chosen range and its setting named
    assert html.count("<img") == 2 and html.count("<table") == 2
    assert "openmpi allreduce, p = 2" in html and "openmpi allreduce, p = 4" in html
    assert html.count("OMPI_MCA_coll_tuned_allreduce_algorithm=4") == 2 and html.count("library default") == 2
    assert "512 B – 4 KiB" in html
    plain = algorithm_campaign(tmp_path / "p", {"openmpi": {}}, lambda *a: 1.0, launches=3)
    assert tuning_section(analysis.analyze(analysis.load_campaign(plain, cache=False, store=False))) == ""


def test_an_open_mpi_algorithm_without_dynamic_rules_is_left_out(tmp_path):
    """Open MPI 4.1 ignores coll_tuned_<op>_algorithm unless use_dynamic_rules=1: that alternative
    ran the default, whatever its times say."""
    root = algorithm_campaign(tmp_path / "c", {"openmpi": {}, "ring": ompi("allreduce", 4),
                                               "inert": {"OMPI_MCA_coll_tuned_allreduce_algorithm": "3"}},
                              lambda alt, op, size, p: 0.5 if alt == "inert" else 1.0)
    r = run(root, "--json", "--bench-dir", tmp_path / "nobin")
    (lib,) = tuned(r)
    assert {c["alternative"] for c in lib["comparisons"]} == {"ring"}
    assert ranges(lib) == [("allreduce", 2, 8, 4096, None)]
    assert any(w["code"] == "tune-left-out" and "use_dynamic_rules" in w["message"]
               for w in json.loads(r.stdout)["warnings"])


# ---- --verify's judgement (analysis.tuning_verify), on campaigns whose truth is known ----------

def _verify_campaign(tmp_path, factor):
    from mpimeter import analysis

    env = {"OMPI_MCA_coll_tuned_use_dynamic_rules": "1", "OMPI_MCA_coll_tuned_dynamic_rules_filename": "/x/rules"}
    root = algorithm_campaign(tmp_path / "v", {"openmpi": {}, "tuned": env},
                              lambda alt, op, size, p: factor(size, p) if alt == "tuned" else 1.0,
                              sizes=(8, 4096), nprocs=(2, 4), launches=20)
    return analysis.analyze(analysis.load_campaign(root, cache=False, store=False))


CHOICES = [{"op": "allreduce", "nprocs": p, "size": s, "algorithm": "ring" if s == 4096 else "default",
            "ratio": 0.6 if s == 4096 else 1.0, "ratio_ci_low": None, "ratio_ci_high": None}
           for p in (2, 4) for s in (8, 4096)]


def test_verify_passes_and_confirms_the_predictions_that_came_true(tmp_path):
    from mpimeter.analysis import tuning_verify

    res = tuning_verify.verify(_verify_campaign(tmp_path, lambda s, p: 0.6 if s == 4096 else 1.0), "openmpi",
                               CHOICES)
    assert res.passed and len(res.gate.rows) == 4 and {r.nprocs for r in res.gate.rows} == {2, 4}
    assert [(r.nprocs, r.size, r.within) for r in res.predictions] == [(2, 8, True), (2, 4096, True),
                                                                       (4, 8, True), (4, 4096, True)]


def test_verify_fails_where_the_tuned_file_is_slower_and_says_which_prediction_missed(tmp_path):
    from mpimeter.analysis import tuning_verify

    res = tuning_verify.verify(_verify_campaign(tmp_path, lambda s, p: 1.4 if (s, p) == (4096, 4) else 1.0),
                               "openmpi", CHOICES)
    assert not res.passed
    assert [(r.nprocs, r.size) for r in res.gate.rows if r.regression] == [(4, 4096)]
    missed = {(r.nprocs, r.size) for r in res.predictions if r.within is False}
    assert missed == {(2, 4096), (4, 4096)}  # 0.6 predicted: measured 1.0 and 1.4


def test_out_replaces_only_a_file_tune_wrote(tmp_path):
    # `tune --out campaign.log` replaced the log with a rules file (and wrote evidence beside it):
    # outputs never replace what they do not own (CONTRIBUTING.md); its own earlier file it rewrites
    root = algorithm_campaign(tmp_path / "c", {"openmpi": {}, "ring": ompi("allreduce", 4)},
                              lambda alt, op, size, p: 0.6 if alt == "ring" else 1.0, sizes=(8,))
    mine = tmp_path / "campaign.log"
    mine.write_text("a log of mine\n")
    r = run(root, "--out", mine, "--bench-dir", tmp_path / "nobin")
    assert r.exit_code == 2 and "is not a file mpimeter tune wrote" in r.stderr, r.output
    assert mine.read_text() == "a log of mine\n" and not (tmp_path / "campaign.log.evidence.json").exists()
    beside = tmp_path / "rules.txt.evidence.json"
    beside.write_text('{"mine": true}\n')
    r = run(root, "--out", tmp_path / "rules.txt", "--bench-dir", tmp_path / "nobin")
    assert r.exit_code == 2 and "is not the evidence mpimeter tune writes" in r.stderr, r.output
    assert beside.read_text() == '{"mine": true}\n' and not (tmp_path / "rules.txt").exists()
    beside.unlink()
    for fmt in ("openmpi-rules", "env"):  # tune's own file, and its evidence without it, are rewritten
        out = tmp_path / f"{fmt}.txt"
        for _ in range(2):
            assert run(root, "--out", out, "--format", fmt, "--bench-dir", tmp_path / "nobin").exit_code == 0
        out.unlink()
        assert run(root, "--out", out, "--format", fmt, "--bench-dir", tmp_path / "nobin").exit_code == 0


@pytest.mark.parametrize("given, said", [("5", "(did you mean 5%?)"), ("2", "(did you mean 2%?)"),
                                         ("nan", "must be a fraction in [0, 1)")])
def test_verify_takes_max_slowdown_as_gate_does(tmp_path, given, said):
    # `--max-slowdown 5` was read as 500 % (a fraction below 10), which lets every regression pass;
    # gate refuses it as a forgotten % (cli.common.parse_fraction), and so does tune now, before running
    r = run(tmp_path / "verify", "--verify", tmp_path / "rules.txt", "--max-slowdown", given)
    assert r.exit_code == 2 and said in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.output
    assert not (tmp_path / "verify").exists()


def test_the_states_note_says_what_tune_does_with_the_states(tmp_path):
    # analyze's "each row is also reported per state" would be false here: tune prints no row per state
    root = algorithm_campaign(tmp_path / "c", {"openmpi": {}, "ring": ompi("allreduce", 4)},
                              lambda alt, op, size, p: 0.6 if alt == "ring" else 1.0,
                              slow_state=lambda alt, i: i % 2 == 0)
    r = run(root, "--json", "--bench-dir", tmp_path / "nobin")
    assert r.exit_code == 0, r.output
    said = [w["message"] for w in json.loads(r.stdout)["warnings"] if w["code"] == "states"]
    assert said and all("state by state where a round's launches ran in different states; it reports no row "
                        "per state" in m for m in said)
    assert not any("each row is also reported per state" in m for m in said)
