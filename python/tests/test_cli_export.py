# SPDX-License-Identifier: BSD-3-Clause
"""`mpimeter export CAMP OUT`: a campaign copied to share — secrets in campaign.json, each
meta.json, the data files and the launch logs are absent from OUT (logs left out, the rest
redacted), the copy still analyzes, a symbolic link inside CAMP is not followed, and an OUT that
exists (or lies inside CAMP) is refused in one line, exit 2, with nothing written."""

from __future__ import annotations

import json
import os
import shutil
import socket
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner
from data.testkit import leaks

from mpimeter.cli import main

GOLDEN = Path(__file__).parent / "data" / "golden" / "alternatives"

BEARER_TOKEN = "bearer-token-abcdef0123"
URL_PASSWORD = "urlpass-SECRET-4242"
DB_PART1, DB_PART2 = "dbpw-first-half-2291", "dbpw-second-x-2291"
ENV_SECRET = "envsecret-value-7788"
OUTSIDE = "outside-the-campaign-5150"
PLANTED = (BEARER_TOKEN, URL_PASSWORD, DB_PART1, DB_PART2, ENV_SECRET, OUTSIDE)


def export(*args):
    return CliRunner().invoke(main, ["export", *map(str, args)])


def one_line_error(result) -> str:
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mpimeter export: error: "), result.output
    return lines[0]




@pytest.fixture
def campaign(tmp_path) -> Path:
    """The golden two-library campaign with secrets planted where a campaign keeps text from
    outside: campaign.json (a stderr tail, a reason, an alternative's env), a launch's meta.json
    (its environment and argv), its logs, and a note beside the data."""
    camp = tmp_path / "camp"
    shutil.copytree(GOLDEN, camp)
    doc = json.loads((camp / "campaign.json").read_text())
    doc["alternatives"][0]["env"] = {"DATABASE_URL": f"mysql://u:{URL_PASSWORD}@db/x"}
    doc["launches"] = [{"folder": f"openmpi/launches/{i:03d}", "alternative": "openmpi", "seed": None,
                        "stderr_tail": f"Authorization: Bearer {BEARER_TOKEN}",
                        "reason": f"DB_PASSWORD='{DB_PART1} {DB_PART2}'"} for i in range(3)]
    (camp / "campaign.json").write_text(json.dumps(doc, indent=1))
    meta_path = camp / "openmpi" / "launches" / "001" / "meta.json"
    meta = json.loads(meta_path.read_text())
    meta["environment"] = {"MPI_SETTING_TOKEN": ENV_SECRET, "OMPI_MCA_btl": "self,vader"}
    meta["argv"] = ["mpimeter-bench", "--ops", "allreduce", f"DB_PASSWORD={DB_PART1} {DB_PART2}"]
    meta_path.write_text(json.dumps(meta))
    logs = camp / "openmpi" / "logs"
    logs.mkdir()
    (logs / "000.1.stderr").write_text(f"curl -H 'Authorization: Bearer {BEARER_TOKEN}'\n-----BEGIN\n{ENV_SECRET}\n")
    (logs / "000.1.stdout").write_text(f"{DB_PART1}\n")
    (camp / "notes.txt").write_text(f"db at mysql://u:{URL_PASSWORD}@db/x\nexport DB_PASSWORD=\"{DB_PART1} {DB_PART2}\"\n")
    assert len(leaks(camp, PLANTED)) > 6
    return camp


def test_secrets_of_campaign_json_meta_json_and_logs_are_absent_from_out(campaign, tmp_path):
    out = tmp_path / "shared"
    result = export(campaign, out)
    assert result.exit_code == 0, result.output
    assert "left out: 2 launch logs" in result.output
    assert leaks(out, PLANTED) == []
    assert not (out / "openmpi" / "logs" / "000.1.stderr").exists()
    doc = json.loads((out / "campaign.json").read_text())
    assert doc["launches"][0]["stderr_tail"] == "Authorization: Bearer <redacted>"
    assert doc["alternatives"][0]["env"] == {"DATABASE_URL": "<redacted>"}
    meta = json.loads((out / "openmpi" / "launches" / "001" / "meta.json").read_text())
    assert meta["environment"] == {"MPI_SETTING_TOKEN": "<redacted>", "OMPI_MCA_btl": "self,vader"}
    assert "mysql://u:<redacted>@db/x" in (out / "notes.txt").read_text()
    # the data are copied as they are: the copy analyzes as the campaign does
    raw = "openmpi/launches/000/raw.csv"
    assert (out / raw).read_bytes() == (campaign / raw).read_bytes()
    analyzed = CliRunner().invoke(main, ["analyze", str(out), "--format", "json"])
    assert analyzed.exit_code == 0, analyzed.output
    assert [s for s in PLANTED if s in result.output + analyzed.output] == []


def test_a_symbolic_link_inside_the_campaign_is_not_followed(campaign, tmp_path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "secret.txt").write_text(f"{OUTSIDE}\n")
    (outside / "meta.json").write_text(json.dumps({"note": OUTSIDE}))
    os.symlink(outside / "secret.txt", campaign / "openmpi" / "launches" / "000" / "extra.txt")
    os.symlink(outside, campaign / "mpich" / "linked")
    os.symlink(outside / "nothing", campaign / "dangling")
    out = tmp_path / "shared"
    result = export(campaign, out)
    assert result.exit_code == 0, result.output
    assert "3 symbolic links" in result.output
    assert leaks(out, PLANTED) == []
    assert not any(p.is_symlink() for p in out.rglob("*"))
    assert not (out / "mpich" / "linked").exists() and not (out / "openmpi" / "launches" / "000" / "extra.txt").exists()


@pytest.mark.parametrize("kind", ["folder", "empty folder", "file", "link", "dangling link", "device", "fifo",
                                  "socket"])
def test_an_out_that_exists_is_refused(campaign, tmp_path, kind):
    out = tmp_path / "shared"
    target = tmp_path / "target"
    if kind == "folder":
        out.mkdir()
        (out / "keep.txt").write_text("mine")
    elif kind == "empty folder":
        out.mkdir()
    elif kind == "file":
        out.write_text("mine")
    elif kind == "link":
        target.mkdir()
        out.symlink_to(target)
    elif kind == "dangling link":
        out.symlink_to(tmp_path / "nowhere")
    elif kind == "device":
        if os.geteuid() != 0:
            pytest.skip("making a device node needs root")
        os.mknod(out, 0o600 | stat.S_IFCHR, os.makedev(1, 3))
    elif kind == "fifo":
        os.mkfifo(out)
    else:
        listening = socket.socket(socket.AF_UNIX)
        listening.bind(str(out))
        listening.close()
    kind_before = os.lstat(out).st_mode
    before = sorted(p.name for p in tmp_path.rglob("*") if "camp" not in p.parts)
    line = one_line_error(export(campaign, out))
    assert "already exists" in line and str(out) in line
    assert sorted(p.name for p in tmp_path.rglob("*") if "camp" not in p.parts) == before
    assert not (target.exists() and any(target.iterdir()))
    assert os.lstat(out).st_mode == kind_before


def test_bad_campaigns_and_outs_inside_the_campaign_are_one_line(campaign, tmp_path):
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "a.txt").write_text("x")
    assert "is not a campaign folder" in one_line_error(export(plain, tmp_path / "o1"))
    assert "is not a folder" in one_line_error(export(tmp_path / "nothing", tmp_path / "o2"))
    assert "inside" in one_line_error(export(campaign, campaign / "openmpi" / "copy"))
    assert "must exist" in one_line_error(export(campaign, tmp_path / "no" / "such" / "o3"))
    assert not any((tmp_path / n).exists() for n in ("o1", "o2"))
    assert not (campaign / "openmpi" / "copy").exists()
