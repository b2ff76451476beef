# SPDX-License-Identifier: BSD-3-Clause
"""Launch folders that parse but are corrupt (golden/<case>, made by make_golden.py): each is
refused with exit 2 and one line naming the file, the test and what is missing or extra — none
is silently analyzed. And what stays allowed: an incomplete launch's finished tests, and a
deliberate mix of launches with --allow-mixed."""

import json
import shutil

import pytest
from click.testing import CliRunner
from data.synth import write_campaign, write_launch
from data.testkit import golden_copy

from mpimeter import analysis
from mpimeter.cli.analyze import command
from mpimeter.io.errors import InputError


def analyze(*args):
    return CliRunner().invoke(command, [str(a) for a in args])


def refused(tmp_path, case, *args):
    r = analyze(golden_copy(tmp_path, case), "--no-cache", *args)
    assert r.exit_code == 2, r.output
    assert r.stdout == "" and r.stderr.count("\n") == 1 and r.stderr.startswith("mpimeter analyze: error: ")
    return r.stderr


def test_a_rank_missing_from_a_finished_test(tmp_path):
    err = refused(tmp_path, "missing_rank_rows")
    assert "missing_rank_rows/launches/000/raw.csv: test 2 (bcast 8) is complete in meta.json, but raw.csv has " \
           "no rows of rank 1 (it has rows of rank 0 only" in err


def test_half_the_repetitions_of_a_finished_test_missing(tmp_path):
    err = refused(tmp_path, "missing_reps")
    assert "missing_reps/launches/000/raw.csv: test 1 (bcast 1024) is complete in meta.json, but rank 0 has 10 of " \
           "its 20 rows (missing repetitions 10 … 19; tests[1].nrep = 20)" in err


def test_meta_json_says_more_ranks_than_raw_csv_holds(tmp_path):
    err = refused(tmp_path, "nprocs_mismatch")
    assert "raw.csv: test 0 (allreduce 8) is complete in meta.json, but raw.csv has no rows of rank 2" in err
    assert "meta.json says nprocs 3, so ranks 0 … 2 must each have 20 rows" in err


def test_a_duplicated_repetition(tmp_path):
    err = refused(tmp_path, "duplicate_rep", "--outlier", "none")
    assert "duplicate_rep/launches/000/raw.csv:8: repetition 5 of rank 0 in test 0 (bcast 1024) appears twice " \
           "(lines 7 and 8)" in err


def test_timestamps_whose_difference_overflows(tmp_path):
    err = refused(tmp_path, "overflow_times")
    assert "overflow_times/launches/000/raw.csv:4: start_ns is out of range: timestamps must lie within ±2^62 ns" in err


def test_a_launch_copied_in_from_another_campaign(tmp_path):
    err = refused(tmp_path, "foreign_launch")
    assert "foreign_launch/launches/001/meta.json: this launch does not belong with the others: it ran with seed " \
           "99001 (config.seed), but campaign.json gave this launch seed 36001" in err
    assert "--allow-mixed" in err


def test_a_launch_of_another_library(tmp_path):
    err = refused(tmp_path, "foreign_library")
    assert "foreign_library/launches/002/meta.json: this launch does not belong with the others: its MPI library " \
           "(mpi.library) is 'mpich', but 'openmpi' in launches 000, 001" in err


def test_a_mix_is_a_warning_with_allow_mixed(tmp_path):
    r = analyze(golden_copy(tmp_path, "foreign_library"), "--no-cache", "--allow-mixed", "--format", "json")
    assert r.exit_code == 0, r.output
    mixed = [w for w in json.loads(r.stdout)["warnings"] if w["code"] == "mixed-launches"]
    assert len(mixed) == 1 and mixed[0]["count"] == 2  # library and its version
    assert "launch 002" in mixed[0]["message"]


def test_other_hosts_or_rank_counts_are_a_mix_too(tmp_path):
    camp = write_campaign(tmp_path / "c", 3, seed=3, nrep=10, sizes=(8,))
    meta_path = camp / "launches" / "001" / "meta.json"
    meta = json.loads(meta_path.read_text())
    for r in meta["ranks"]:
        r["host"] = "other-node"
    meta_path.write_text(json.dumps(meta))
    with pytest.raises(InputError, match=r"its host set \(ranks\[\]\.host\) is 'other-node', but 'synthetic-host' in "
                                         r"launches 000, 002"):
        analysis.load_campaign(camp, cache=False, store=False)


def test_a_raw_csv_cut_short_in_a_complete_launch(tmp_path):
    err = refused(tmp_path, "cut_complete")
    assert "cut_complete/launches/000/raw.csv:81: the last line is cut short (no newline), but meta.json says the " \
           "launch is complete" in err


def test_a_cut_raw_csv_of_a_killed_launch_is_still_used(tmp_path):
    r = analyze(golden_copy(tmp_path, "truncated_raw"))
    assert r.exit_code == 0 and "[truncated-line]" in r.stdout


def test_a_resynced_launch_without_sync_csv(tmp_path):
    err = refused(tmp_path, "resync_no_sync")
    assert "resync_no_sync/launches/000/sync.csv: is missing, but meta.json says the clock was re-synced " \
           "(clock_sync.resyncs = 2)" in err


def test_an_incomplete_launch_must_have_its_finished_tests_whole(tmp_path):
    f = write_launch(tmp_path / "c" / "launches" / "000", seed=5, nrep=10, finished=2, status="incomplete")
    lines = (f / "raw.csv").read_text().splitlines(keepends=True)
    (f / "raw.csv").write_text("".join(ln for ln in lines if not ln.startswith("1,1,") and not
                                       (ln.startswith("1,") and ln.split(",")[3] == "1")))
    with pytest.raises(InputError, match=r"test 1 \(.*\) is complete in meta.json, but raw.csv has no rows of rank 1"):
        analysis.load_campaign(tmp_path / "c", cache=False, store=False)


def test_rows_of_another_raw_mode_are_refused(tmp_path):
    f = write_launch(tmp_path / "l", seed=6, nrep=5)
    lines = (f / "raw.csv").read_text().splitlines(keepends=True)
    parts = lines[1].split(",")
    parts[3] = "-1"
    (f / "raw.csv").write_text("".join(lines[:1] + [",".join(parts)] + lines[2:]))
    with pytest.raises(InputError) as exc:
        analysis.load_campaign(f, cache=False, store=False)
    assert exc.value.line == 2 and "rank is -1 (a --raw reduced row), but meta.json says config.raw is full" in str(exc.value)


def test_extra_repetitions_beyond_nrep_are_refused(tmp_path):
    f = write_launch(tmp_path / "l", seed=7, nrep=5)
    meta = json.loads((f / "meta.json").read_text())
    meta["tests"][0]["nrep"] = 4
    (f / "meta.json").write_text(json.dumps(meta))
    with pytest.raises(InputError, match=r"has repetition 4, but tests\[0\]\.nrep is 4 \(its repetitions are 0 … 3\)"):
        analysis.load_campaign(f, cache=False, store=False)


def test_shuffled_rows_are_fine_and_duplicates_among_them_are_found(tmp_path):
    f = write_launch(tmp_path / "l", seed=8, nrep=5)
    lines = (f / "raw.csv").read_text().splitlines(keepends=True)
    body = lines[1:][::-1]  # the same rows, last first: not the order the bench writes
    (f / "raw.csv").write_text(lines[0] + "".join(body))
    assert analysis.load_campaign(f, cache=False, store=False).raw.num_rows == len(body)
    (f / "raw.csv").write_text(lines[0] + "".join(body + body[3:4]))
    with pytest.raises(InputError, match="appears twice"):
        analysis.load_campaign(f, cache=False, store=False)


def test_the_corrupt_cases_were_good_launches_before(tmp_path):
    # each corrupt folder differs from a launch that reads fine in the one way it is named for
    good = write_launch(tmp_path / "good", seed=31, nrep=20, nprocs=2, ops=("allreduce", "bcast"), sizes=(8, 1024))
    assert analysis.load_campaign(good, cache=False, store=False).raw.num_rows == 2 * 20 * 4
    copy = tmp_path / "copy"
    shutil.copytree(golden_copy(tmp_path, "foreign_launch"), copy)
    (copy / "campaign.json").unlink()  # without campaign.json, nothing says launch 001 is foreign
    assert len(analysis.load_campaign(copy, cache=False, store=False).launches) == 3


def test_integers_beyond_64_bits_name_their_line(tmp_path):
    f = write_launch(tmp_path / "l", seed=9, nrep=5)
    lines = (f / "raw.csv").read_text().splitlines(keepends=True)
    parts = lines[3].split(",")
    parts[5] = "99999999999999999999"
    lines[3] = ",".join(parts)
    (f / "raw.csv").write_text("".join(lines))
    with pytest.raises(InputError) as exc:
        analysis.load_campaign(f, cache=False, store=False)
    assert exc.value.line == 4 and exc.value.what == "column start_ns: 99999999999999999999 does not fit a 64-bit integer"
