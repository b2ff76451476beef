# SPDX-License-Identifier: BSD-3-Clause
"""Redaction follows values (mpimeter.io.redact): a quoted value is redacted whole
(`AWS_SECRET_ACCESS_KEY='…'`, `DB_PASSWORD="… x"`), a URL's password (`mysql://u:SECRET@db/x`)
with its user and host kept, `Authorization: Bearer|Basic …` and a `Bearer` token alone; in an
imported IMB file's command line (meta.json, the report, the store), in a launcher's stderr
(campaign.json's stderr tail, the report), and in a campaign.json read back. Hostile lines of a
MiB are read to their end."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as hs
from data.fakebench import cli, fake_env, on_disk  # noqa: F401
from data.testkit import imported_everywhere, leaks

from mpimeter.campaign import executor, secrets
from mpimeter.cli import main
from mpimeter.io import redact

GOLDEN = Path(__file__).parent / "data" / "golden" / "alternatives"
RULE = redact.Rule(("PASS", "TOK", "KEY", "SECRET", "AUTH", "CRED"))

# what no output may hold (each ≥ 8 characters, none of a secret shape: only the rule for values
# that follow their names catches them)
AWS_PART1, AWS_PART2 = "awsquoted-first-8471", "awsquoted-second-8471"
DB_PART1, DB_PART2 = "dbpw-first-half-2291", "dbpw-second-x-2291"
URL_PASSWORD = "urlpass-SECRET-4242"
BEARER_TOKEN = "bearer-token-abcdef0123"
BASIC_CREDENTIAL = "dXNlcjpzZWNyZXQtYmFzaWM="
PLANTED = (AWS_PART1, AWS_PART2, DB_PART1, DB_PART2, URL_PASSWORD, BEARER_TOKEN, BASIC_CREDENTIAL)
COMMAND_TAIL = (f"AWS_SECRET_ACCESS_KEY='{AWS_PART1} {AWS_PART2}' DB_PASSWORD=\"{DB_PART1} {DB_PART2}\" "
                f"mysql://u:{URL_PASSWORD}@db/x")




# --- the rule ------------------------------------------------------------------------------------

@pytest.mark.parametrize("line, kept", [
    (f"IMB-MPI1 -msglog 3 {COMMAND_TAIL}", "IMB-MPI1 -msglog 3 AWS_SECRET_ACCESS_KEY=<redacted> "
                                           "DB_PASSWORD=<redacted> mysql://u:<redacted>@db/x"),
    (f"x 'DB_PASSWORD={DB_PART1} {DB_PART2}' y", "x 'DB_PASSWORD=<redacted>' y"),
    (f"--export=ALL,DB_PASSWORD=\"{DB_PART1} {DB_PART2}\" -np 2", "--export=ALL,DB_PASSWORD=<redacted> -np 2"),
    (f"DB_PASSWORD='{DB_PART1} {DB_PART2}", "DB_PASSWORD=<redacted>"),  # an unclosed quote: to the line's end
    (f"https://u:{URL_PASSWORD}@host.example/p?q=1", "https://u:<redacted>@host.example/p?q=1"),
    (f"git clone https://x-access:{URL_PASSWORD}@github.com/o/r", "git clone https://x-access:<redacted>@github.com/o/r"),
    (f"Authorization: Bearer {BEARER_TOKEN}", "Authorization: Bearer <redacted>"),
    (f"Authorization: Basic {BASIC_CREDENTIAL}", "Authorization: Basic <redacted>"),
    (f"curl -H 'Authorization: Bearer {BEARER_TOKEN}' https://h/x", "curl -H 'Authorization: Bearer <redacted>' https://h/x"),
    (f"sending Bearer {BEARER_TOKEN} to the server", "sending Bearer <redacted> to the server"),
    (f'{{"password": "{DB_PART1} {DB_PART2}", "user": "bob"}}', '{"password": <redacted> "user": "bob"}'),
    (f"--password '{DB_PART1} {DB_PART2}' -msglog 3", "--password <redacted> -msglog 3"),
])
def test_a_secret_value_is_redacted_whole(line, kept):
    shown = RULE.text(line)
    assert [s for s in PLANTED if s in shown] == []
    assert shown == kept
    assert RULE.text(shown) == shown  # the rule applied again changes nothing


@pytest.mark.parametrize("line", ["https://host.example:8443/path?a=b", "Intel(R) Xeon(R) Gold 6130 CPU @ 2.10GHz",
                                  "mpimeter-bench: --timer: unknown timer 'sundial'", "12:30:05 rank 1: exited",
                                  "user@host:/path", "OMPI_MCA_btl=self,vader"])
def test_ordinary_text_is_kept(line):
    assert RULE.text(line) == line


def test_an_argv_word_is_redacted_to_its_end_and_an_env_value_holding_a_secret_whole():
    # shlex has removed the quotes: the value of a secret name runs to the end of the word
    assert RULE.argv(["IMB-MPI1", f"AWS_SECRET_ACCESS_KEY={AWS_PART1} {AWS_PART2}", "--token", f"{DB_PART1} x"]) == \
        ["IMB-MPI1", "AWS_SECRET_ACCESS_KEY=<redacted>", "--token", "<redacted>"]
    assert RULE.env({"DATABASE_URL": f"mysql://u:{URL_PASSWORD}@db/x", "UCX_TLS": "rc"}) == \
        {"DATABASE_URL": redact.REDACTED, "UCX_TLS": "rc"}


NAME_PIECES = ["a", "b_", "9", "tok", "TOK", "en", "Pass", "wd", "KE", "Y", "jwt", "x", "sess", "ion_id", "_"]


@settings(max_examples=300, deadline=None)
@given(name=hs.lists(hs.sampled_from(NAME_PIECES), min_size=1, max_size=6).map("".join)
       .filter(lambda n: n[0].isalpha()))
def test_property_a_value_after_a_name_is_redacted_exactly_when_the_name_is_secret(name):
    """`NAME=V`, `NAME: V` and `--NAME V` redact V exactly when is_secret_name(NAME) says the
    name is secret (the scans look for secret names only, case folded as str.upper folds)."""
    secret = RULE.is_secret_name(name)
    for line in (f"{name}=plainvalue rest", f"x {name}: plainvalue", f"run --{name} plainvalue rest"):
        assert ("plainvalue" not in RULE.text(line)) == secret, (line, RULE.text(line))


HOSTILE = ["a", "=", "a=", "TOKEN=", "'", '"', "TOKEN='", "x'TOKEN=a'", "a:", "KEY: ", '"KEY":', "a://", "a://u:",
           "@:", "--token ", "-a ", "Bearer ", "eyJa_", "eyJaaaa.eyJ", "hf_", "Ab1 ", "\\", "a='b\" c:", "-"]


def test_hostile_lines_of_a_mebibyte_are_read_to_their_end():
    """Every pattern starts at a word's boundary and does not scan back: each line is redacted
    (a pattern that rescans from every position would take hours here, not seconds)."""
    code = ("import sys; from mpimeter.io import redact\n"
            "rule = redact.Rule(('PASS', 'TOK', 'KEY', 'SECRET', 'AUTH'))\n"
            f"for unit in {HOSTILE!r}:\n"
            "    line = (unit * (2**20 // len(unit) + 1))[:2**20]\n"
            "    rule.text(line); rule.text(line, word=True)\n"
            "    print(unit, flush=True)\n")
    try:
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=900)
    except subprocess.TimeoutExpired as exc:
        raise AssertionError(f"a hostile line was not redacted in 15 minutes; done: {exc.stdout!r}") from None
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == HOSTILE


# --- an imported IMB file ------------------------------------------------------------------------

def test_an_imb_command_line_with_quoted_values_and_a_url_password_leaks_nowhere(tmp_path):
    out, store, printed, meta = imported_everywhere(tmp_path, COMMAND_TAIL)
    assert "AWS_SECRET_ACCESS_KEY=<redacted>" in meta["argv"] and "DB_PASSWORD=<redacted>" in meta["argv"]
    assert meta["origin"]["command"].endswith("DB_PASSWORD=<redacted> mysql://u:<redacted>@db/x")
    assert [s for s in PLANTED if s in printed] == []
    for folder in (out, tmp_path / "store", tmp_path / "www"):
        assert leaks(folder, PLANTED) == [], folder
    assert not [s for s in PLANTED if s.encode() in (tmp_path / "report.html").read_bytes()]
    assert leaks(tmp_path / "in", PLANTED) != []  # the walk does see what was planted


# --- a launcher's stderr -------------------------------------------------------------------------

def test_a_launchers_authorization_header_on_stderr_is_not_kept(fake_env, tmp_path):
    tmp, opts = fake_env
    talker = tmp / "talkrun"  # a launcher that prints credentials on stderr, then starts the ranks
    talker.write_text("#!/bin/sh\n"
                      f"echo 'POST /jobs Authorization: Bearer {BEARER_TOKEN}' >&2\n"
                      f"echo 'connecting to mysql://u:{URL_PASSWORD}@db/x' >&2\n"
                      "shift 2\nexec \"$@\"\n")
    talker.chmod(0o755)
    out = tmp / "c"
    result = cli([*opts, "--launches", "1", "--mpi", "openmpi", "--launcher", f"{talker} -np {{np}} {{cmd}}",
                  "--out", str(out)])
    assert result.exit_code == 0, result.output
    tail = on_disk(out)["launches"][0]["stderr_tail"]
    assert "Authorization: Bearer <redacted>" in tail and "mysql://u:<redacted>@db/x" in tail
    assert [s for s in PLANTED if s in result.output] == []
    # the launch's log is rewritten redacted once the launch has ended
    assert sorted(p.name for p in (out / "logs").iterdir()) == ["000.1.stderr", "000.1.stdout"]
    assert (out / "logs" / "000.1.stderr").read_text().startswith(
        "POST /jobs Authorization: Bearer <redacted>\nconnecting to mysql://u:<redacted>@db/x\n")
    assert leaks(out, PLANTED) == []


def test_a_log_is_rewritten_only_when_it_holds_a_secret_and_never_through_a_link(tmp_path):
    plain, secret, target = tmp_path / "plain.stderr", tmp_path / "secret.stderr", tmp_path / "target"
    plain.write_bytes(b"rank 1: exited \xff\n")  # not UTF-8: kept byte for byte
    secret.write_bytes(f"Authorization: Bearer {BEARER_TOKEN}\n\xff\n".encode("latin-1"))
    target.write_text(f"Bearer {BEARER_TOKEN}\n")
    link = tmp_path / "link.stderr"
    link.symlink_to(target)
    assert secrets.redact_log(plain) is False and plain.read_bytes() == b"rank 1: exited \xff\n"
    assert secrets.redact_log(secret) is True
    assert secret.read_bytes() == b"Authorization: Bearer <redacted>\n\xff\n"
    assert secrets.redact_log(link) is False and target.read_text() == f"Bearer {BEARER_TOKEN}\n"


def test_a_campaign_json_read_back_has_its_stderr_tails_and_reasons_redacted(tmp_path):
    """campaign.json written by an older mpimeter (or by hand) with a launcher's credentials in
    its tails: the report, which shows the whole file, shows them redacted."""
    camp = tmp_path / "c"
    shutil.copytree(GOLDEN, camp)
    doc = json.loads((camp / "campaign.json").read_text())
    doc["launches"] = [{"folder": f"openmpi/launches/{i:03d}", "alternative": "openmpi", "seed": None,
                        "stderr_tail": f"Authorization: Bearer {BEARER_TOKEN}",
                        "reason": f"exit code 1: mysql://u:{URL_PASSWORD}@db/x",
                        "previous_attempts": [{"stderr_tail": f"DB_PASSWORD='{DB_PART1} {DB_PART2}'"}]}
                       for i in range(3)]
    (camp / "campaign.json").write_text(json.dumps(doc))
    shown = json.dumps(redact.campaign_record(doc))
    assert [s for s in PLANTED if s in shown] == []
    assert "openmpi/launches/000" in shown and "Authorization: Bearer <redacted>" in shown
    report = CliRunner().invoke(main, ["report", str(camp), "-o", str(tmp_path / "r.html")])
    assert report.exit_code == 0, report.output
    page = (tmp_path / "r.html").read_text()
    assert "Authorization: Bearer &lt;redacted&gt;" in page  # the tails are shown, redacted
    assert [s for s in PLANTED if s in page + report.output] == []


def test_a_stderr_tail_is_redacted_before_it_is_cut(tmp_path):
    """The tail keeps its last characters: cut first, what is left of a long line holding
    `Authorization: Bearer TOKEN …` would begin with the token alone, which no rule recognises."""
    kept = executor.STDERR_TAIL_CHARS
    line = f"Authorization: Bearer {BEARER_TOKEN} " + "y" * (kept - len(BEARER_TOKEN) - 1)
    stderr = tmp_path / "err"
    stderr.write_text("started\n" + line + "\n")
    assert line[-kept:].startswith(BEARER_TOKEN)  # where a cut before the redaction falls
    tail = executor.tail(stderr)
    assert BEARER_TOKEN not in tail
    assert tail == "started\nAuthorization: Bearer <redacted>"
