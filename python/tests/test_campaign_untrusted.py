# SPDX-License-Identifier: BSD-3-Clause
"""campaign.json is untrusted input to `--resume`: every path must stay inside the campaign in
the layout's own names, every alternative must be a usable name, every number within its
bounds, and the commands it records (launcher template, bench binary) are run only when they are
what the launcher and bench dir give now, or when the user gives them again. Every refusal is
one line, exit 2, with nothing run and nothing moved."""

import json
import os
import shutil

import pytest
from data.fakebench import cli, make_fake_env, on_disk, one_line_error, template, use_fake_env


@pytest.fixture(scope="module")
def failed_once(tmp_path_factory):
    """(the folder of `failed`, a pristine copy of it): the campaign is run once per module (per
    xdist worker), not once per test. Its campaign.json holds absolute paths (the launcher, the
    bench binaries), so each test gets it back in the same folder, not in a copy elsewhere."""
    base = tmp_path_factory.mktemp("untrusted")
    tmp, pristine = base / "tmp", base / "pristine"
    tmp.mkdir()
    with pytest.MonkeyPatch.context() as monkeypatch:
        opts = make_fake_env(tmp, monkeypatch)
        out = tmp / "c"
        result = cli([*opts, "--launches", "1", "--retries", "0", "--out", str(out)],
                     env={"FAKE_BENCH_MODE": "fail"})
    assert result.exit_code == 1, result.output
    victim = tmp / "victim"
    (victim / "launches").mkdir(parents=True)
    (victim / "keep").write_text("mine")
    shutil.copytree(tmp, pristine, symlinks=True)
    return tmp, pristine


@pytest.fixture
def failed(failed_once, monkeypatch):
    """A campaign of two alternatives whose launches failed (their folders are there, so a
    resume would move them aside and run again), beside a victim folder; as `failed_once` ran
    it, whatever an earlier test did to it."""
    tmp, pristine = failed_once
    shutil.rmtree(tmp)
    shutil.copytree(pristine, tmp, symlinks=True)
    use_fake_env(tmp, monkeypatch)
    return tmp, tmp / "c"


def resume(tmp, out, *extra, launcher=True):
    args = ["--resume", str(out), *(["--launcher", template(tmp)] if launcher else []), *extra,
            "--no-analyze"]
    return cli(args, env={"FAKE_BENCH_MODE": "ok", "FAKE_BENCH_LOG": str(tmp / "calls")})


def tamper(out, change) -> str:
    disk = on_disk(out)
    change(disk)
    text = json.dumps(disk)
    (out / "campaign.json").write_text(text)
    return text


def snapshot(tmp):
    return sorted(str(p.relative_to(tmp)) for p in tmp.rglob("*") if "bench" not in p.parts)


def assert_refused(tmp, out, result, text, fragment, before):
    line = one_line_error(result)
    assert fragment in line, line
    assert not (tmp / "calls").exists()  # nothing ran
    assert (out / "campaign.json").read_text() == text  # nothing recorded
    assert snapshot(tmp) == before  # nothing moved
    assert (tmp / "victim" / "keep").read_text() == "mine"


def launch0(disk):
    return disk["launches"][0]


def set_alt_name(disk, name):
    old = disk["alternatives"][0]["name"]
    disk["alternatives"][0]["name"] = name
    for rec in disk["launches"]:
        if rec["alternative"] == old:
            rec["alternative"] = name


def nested(depth):
    value = []
    for _ in range(depth):
        value = [value]
    return value


def second_copy(disk):
    disk["launches"].append(dict(disk["launches"][0]))


TAMPERED = [
    (lambda d: launch0(d).update(folder="../victim"), "launches[0].folder"),
    (lambda d: launch0(d).update(folder="/tmp/victim"), "launches[0].folder"),
    (lambda d: launch0(d).update(folder=launch0(d)["folder"] + "/../../../victim"),
     "launches[0].folder"),
    (lambda d: launch0(d).update(folder=d["launches"][1]["folder"]), "launches[0].folder"),
    (lambda d: launch0(d).update(stdout_log="../victim/log"), "launches[0].stdout_log"),
    (lambda d: launch0(d).update(alternative="intelmpi"), "unknown alternative 'intelmpi'"),
    (lambda d: set_alt_name(d, "../victim"), "not a usable name"),
    (lambda d: set_alt_name(d, "launches"), "not a usable name"),
    (lambda d: d["alternatives"][0].update(mpi="../x"), "not a usable name"),
    (lambda d: d.update(alternatives=[1, 2]), "alternatives[0]: expected an object"),
    (lambda d: d.update(launches="x"), "launches: expected a list"),
    (lambda d: launch0(d).update(previous_attempts="x"), "previous_attempts: expected a list"),
    (lambda d: launch0(d).update(previous_attempts=[3]),
     "previous_attempts[0]: expected an object"),
    (lambda d: launch0(d).update(index="0"), "launches[0].index: expected an integer"),
    (lambda d: launch0(d).update(index=7), "launches[0].index"),
    (lambda d: launch0(d).update(status="bogus"), "launches[0].status"),
    (second_copy, "twice"),
    (lambda d: d["alternatives"][0].update(env={"UCX_TLS": 1}), "expected a string"),
    (lambda d: d["alternatives"][0].update(env={"A B": "1"}), "env"),
    (lambda d: d.update(np=100000), "np 100000"),
    (lambda d: d.update(np=True), "np: expected an integer"),
    (lambda d: d.update(launch_timeout_s=1e300), "launch_timeout_s"),
    (lambda d: d.update(seed=-5), "seed -5"),
    (lambda d: d.update(launches_per_alternative=10**12), "launches_per_alternative"),
    (lambda d: d.update(bench_args=[*d["bench_args"], "--force"]), "--force"),
    (lambda d: d.update(bench_args="--ops bcast"), "bench_args: expected a list"),
    (lambda d: d["sessions"][0].update(argv=[1]), "sessions[0].argv: expected a string"),
    (lambda d: d["history"].append({"x": nested(400)}), "nests arrays or objects more than 32 levels deep"),
    (lambda d: d["sessions"][0].update(slurm="4242"), "sessions[0].slurm: expected an object"),
    (lambda d: d["sessions"][0].update(slurm={"job_id": 4242}),
     "sessions[0].slurm.job_id: expected a string"),
    (lambda d: d["sessions"][0].update(slurm={"nodelist": "n[1-2]"}),
     "sessions[0].slurm.job_id: missing"),
    (lambda d: d["sessions"][0].update(slurm={"job_id": "1", "script": "rm -rf /"}),
     "unknown key 'script'"),
    (lambda d: launch0(d).update(slurm_job=4242), "launches[0].slurm_job: expected a string"),
    (lambda d: d.update(id="../../etc"), "id: '../../etc' is not 32 hex digits"),
    (lambda d: d.update(id=42), "id: expected a string"),
    (lambda d: d.update(secret_words="PASS"), "secret_words: expected a list of at most 64 words"),
    (lambda d: d.update(secret_words=["PASS"] * 65), "secret_words: expected a list of at most 64 words"),
    (lambda d: d.update(secret_words=["PASS", "a b"]), "secret_words[1]: 'a b' is not a word"),
    (lambda d: d.update(secret_words=[7]), "secret_words[0]: '7' is not a word"),
    (lambda d: d.update(secret_words=["X" * 33]), "secret_words[0]"),
    (lambda d: d.update(analyze_after="no"), "analyze_after: expected true, false or null, found a string"),
    (lambda d: d.update(analyze_after=0), "analyze_after: expected true, false or null, found an integer"),
    # a value stored redacted is gone: refused saying what to do, not run with "<redacted>"
    (lambda d: d.update(bench_args=["--ops", "<redacted>"]),
     "bench_args --ops '<redacted>' with <redacted> values"),
]


@pytest.mark.parametrize("change, fragment", TAMPERED)
def test_a_tampered_campaign_json_is_refused(failed, change, fragment):
    tmp, out = failed
    text = tamper(out, change)
    before = snapshot(tmp)
    assert_refused(tmp, out, resume(tmp, out), text, fragment, before)


@pytest.mark.parametrize("raw, fragment", [
    ('{"schema_version": 1, "launch_timeout_s": NaN}', "NaN"),
    ("[" * 100000 + "]" * 100000, "nests arrays or objects too deeply"),
    ('{"schema_version": 1, "launches": ' + "[" * 5000 + "]" * 5000 + "}", "campaign.json"),
    ("[1, 2]", "expected a JSON object"),
    ('{"schema_version": 1}', "missing"),
])
def test_campaign_json_that_is_no_campaign_record_is_refused(failed, raw, fragment):
    tmp, out = failed
    (out / "campaign.json").write_text(raw)
    before = snapshot(tmp)
    assert_refused(tmp, out, resume(tmp, out), raw, fragment, before)


def test_a_campaign_json_that_is_not_a_file_is_refused(failed):
    tmp, out = failed
    (out / "campaign.json").unlink()
    os.mkfifo(out / "campaign.json")  # reading it would wait for a writer forever
    before = snapshot(tmp)
    line = one_line_error(resume(tmp, out))
    assert "campaign.json: not a regular file" in line
    assert snapshot(tmp) == before and not (tmp / "calls").exists()


def test_a_symbolic_link_inside_the_campaign_is_refused(failed):
    tmp, out = failed
    (tmp / "victim" / "launches").rmdir()
    (out / "openmpi" / "launches").rename(tmp / "victim" / "launches")
    (out / "openmpi" / "launches").symlink_to(tmp / "victim" / "launches")
    text, before = (out / "campaign.json").read_text(), snapshot(tmp)
    assert_refused(tmp, out, resume(tmp, out), text, "symbolic link", before)
    assert (tmp / "victim" / "launches" / "000" / "meta.json").is_file()


def test_a_symbolic_link_for_the_next_log_is_refused(failed):
    tmp, out = failed
    (out / "mpich" / "logs" / "000.2.stderr").symlink_to(tmp / "victim" / "keep")
    text, before = (out / "campaign.json").read_text(), snapshot(tmp)
    assert_refused(tmp, out, resume(tmp, out), text, "symbolic link", before)


def test_a_template_launcher_is_run_only_when_given_again(failed):
    tmp, out = failed
    evil = f"sh -c 'touch {tmp}/PWNED; exec \"$@\"' sh {tmp}/fakerun -np {{np}} {{cmd}}"

    def swap(disk):
        disk["launcher"] = evil
        for alt in disk["alternatives"]:
            alt["launch_template"] = evil

    text, before = tamper(out, swap), snapshot(tmp)
    refused = one_line_error(resume(tmp, out, launcher=False))
    assert "--launcher" in refused and "touch" in refused  # it shows what it would have run
    assert (out / "campaign.json").read_text() == text and snapshot(tmp) == before
    result = resume(tmp, out)
    assert result.exit_code == 0, result.output
    assert not (tmp / "PWNED").exists()
    disk = on_disk(out)
    assert disk["launcher"] == template(tmp)
    assert {a["launch_template"] for a in disk["alternatives"]} == {template(tmp)}
    assert f"launcher: {template(tmp)}" in result.output


def test_a_template_that_is_not_what_local_gives_now_is_refused(failed):
    tmp, out = failed

    def local(disk):
        disk["launcher"] = "local"  # the template stays the fake one: not what local gives

    text, before = tamper(out, local), snapshot(tmp)
    line = one_line_error(resume(tmp, out, launcher=False))
    assert "mpirun.openmpi" in line and "fakerun" in line
    assert (out / "campaign.json").read_text() == text and snapshot(tmp) == before


def test_a_template_stored_redacted_is_refused_saying_what_to_do(failed):
    # as written when no binary could give its secret words: every value redacted, -np's too
    tmp, out = failed

    def redacted(disk):
        disk["launcher"] = "local"
        for alt in disk["alternatives"]:
            alt["launch_template"] = "mpirun.openmpi -np <redacted> {cmd}"

    text, before = tamper(out, redacted), snapshot(tmp)
    assert_refused(tmp, out, resume(tmp, out, launcher=False), text,
                   "launch_template 'mpirun.openmpi -np <redacted> {cmd}' with <redacted> values", before)
    assert "start a new campaign (--out) with --bench-dir" in one_line_error(resume(tmp, out, launcher=False))


def test_a_bench_binary_that_is_not_the_one_found_now_is_refused(failed):
    tmp, out = failed
    evil = tmp / "evil"
    evil.write_text(f"#!/bin/sh\ntouch {tmp}/PWNED\n")
    evil.chmod(0o755)
    text = tamper(out, lambda d: d["alternatives"][0].update(bench=str(evil)))
    before = snapshot(tmp)
    line = one_line_error(resume(tmp, out))
    assert str(evil) in line and str(tmp / "bench" / "openmpi" / "bin" / "mpimeter-bench") in line
    assert (out / "campaign.json").read_text() == text and snapshot(tmp) == before
    result = resume(tmp, out, "--bench-dir", str(tmp / "bench"))
    assert result.exit_code == 0, result.output
    assert not (tmp / "PWNED").exists()
    binary = str((tmp / "bench" / "openmpi" / "bin" / "mpimeter-bench").resolve())
    assert on_disk(out)["alternatives"][0]["bench"] == binary
    assert f"bench: {binary}" in result.output


def test_resume_shows_what_it_runs(failed):
    tmp, out = failed
    result = resume(tmp, out)
    assert result.exit_code == 0, result.output
    assert f"launcher: {template(tmp)}" in result.output
    assert "bench: " + str((tmp / "bench" / "mpich" / "bin" / "mpimeter-bench").resolve()) \
        in result.output


def test_the_campaign_id_is_written_and_kept_by_resume(failed):
    # the results store's key (docs/FORMAT.md campaign.json "id"): drawn once, the same after a resume
    tmp, out = failed
    first = on_disk(out)["id"]
    assert len(first) == 32 and int(first, 16) >= 0
    assert resume(tmp, out).exit_code == 0
    assert on_disk(out)["id"] == first
