# SPDX-License-Identifier: BSD-3-Clause
"""`--resume`: nothing recorded in campaign.json chooses what runs without the user.

- `alternatives[].env = {"LD_PRELOAD": "/path/evil.so"}` (or any variable off the allow-list of
  campaign.launch_env, or an allowed one with a value of the wrong type) written into
  campaign.json (with the launcher template that `--launcher` gives): refused, one line, exit 2,
  nothing ran — also with --trust-recorded; such a variable runs only when the environment of
  `--resume` sets the same value (the user's own choice);
- allowed recorded variables are shown and run only with --trust-recorded;
- a recorded launcher template of the user's own runs when given again or confirmed;
- --trust-recorded without --resume is refused."""

from __future__ import annotations

import json

import pytest
from data.fakebench import cli, failed, fake_env, on_disk, one_line_error, template  # noqa: F401


def resume(tmp, out, *extra, env=None, launcher=True):
    args = ["--resume", str(out), *(["--launcher", template(tmp)] if launcher else []), *extra, "--no-analyze"]
    return cli(args, env={"FAKE_BENCH_MODE": "ok", "FAKE_BENCH_LOG": str(tmp / "calls"), **(env or {})})


def set_env(out, env):
    disk = on_disk(out)
    for alt in disk["alternatives"]:
        alt["env"] = env
    text = json.dumps(disk)
    (out / "campaign.json").write_text(text)
    return text


@pytest.mark.parametrize("name", ["LD_PRELOAD", "DYLD_INSERT_LIBRARIES", "PYTHONPATH", "LD_LIBRARY_PATH",
                                  "PATH", "BASH_ENV", "OMPI_MCA_plm_rsh_agent", "OMPI_MCA_orte_fork_agent",
                                  "OMPI_MCA_mca_base_component_path", "OMPI_MCA_mca_component_path",
                                  "PRTE_MCA_prte_fork_agent", "MPIMETER_NOTE"])
def test_a_variable_off_the_allow_list_in_campaign_json_is_never_run(failed, name):
    tmp, out = failed
    text = set_env(out, {name: str(tmp / "evil.so")})
    for extra in ((), ("--trust-recorded",)):
        line = one_line_error(resume(tmp, out, *extra))
        assert name in line and "not on the allow-list" in line and "even with --trust-recorded" in line, line
        assert not (tmp / "calls").exists()  # nothing ran
        assert (out / "campaign.json").read_text() == text  # nothing recorded


def test_a_loader_variable_runs_when_the_users_environment_sets_the_same(failed):
    tmp, out = failed
    set_env(out, {"PYTHONDONTWRITEBYTECODE": "1"})
    assert "not on the allow-list" in one_line_error(resume(tmp, out, env={"PYTHONDONTWRITEBYTECODE": "0"}))
    result = resume(tmp, out, env={"PYTHONDONTWRITEBYTECODE": "1"})
    assert result.exit_code == 0, result.output
    assert (tmp / "calls").read_text().count("\n") == 1


def test_recorded_variables_are_shown_and_run_only_when_confirmed(failed):
    tmp, out = failed
    set_env(out, {"OMPI_MCA_btl": "self,vader", "OMPI_MCA_coll_tuned_allreduce_algorithm": "4"})
    line = one_line_error(resume(tmp, out))
    assert "OMPI_MCA_btl=self,vader" in line and "--trust-recorded" in line
    assert not (tmp / "calls").exists()
    result = resume(tmp, out, "--trust-recorded")
    assert result.exit_code == 0, result.output
    assert "OMPI_MCA_btl=self,vader" in result.output  # shown before it runs
    assert json.loads((out / "campaign.json").read_text())["status"] == "complete"


def test_a_recorded_template_runs_when_given_again_or_confirmed(failed):
    tmp, out = failed
    assert "--trust-recorded" in one_line_error(resume(tmp, out, launcher=False))
    result = resume(tmp, out, "--trust-recorded", launcher=False)
    assert result.exit_code == 0, result.output
    assert f"launcher: {template(tmp)}" in result.output


def test_trust_recorded_goes_with_resume_only(fake_env):
    tmp, opts = fake_env
    line = one_line_error(cli([*opts, "--out", str(tmp / "x"), "--trust-recorded"]))
    assert "--trust-recorded" in line and "--resume" in line
    assert not (tmp / "x").exists()
