# SPDX-License-Identifier: BSD-3-Clause
"""campaign.json's one reader on the analysis side (mpimeter.io.campaign_record) and the one
check of every JSON file read back (mpimeter.io.jsonread.load_json), which `--resume` uses too."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from mpimeter import SCHEMA_VERSION, analysis
from mpimeter.campaign import state as st
from mpimeter.io.campaign_record import read_campaign_record
from mpimeter.io.errors import InputError
from mpimeter.io.jsonread import load_json

GOLDEN = Path(__file__).parent / "data" / "golden"


def _write(folder: Path, doc) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "campaign.json").write_text(json.dumps(doc) if not isinstance(doc, str) else doc)
    return folder


def test_the_record_holds_what_the_consumers_use(tmp_path):
    doc = {"schema_version": SCHEMA_VERSION, "id": "0" * 32, "seed": 7, "command": "mpimeter run",
           "alternatives": [{"name": "b", "env": {"X": "1", "bad": 3}}, {"name": "a", "env": "not an object"}],
           "launches": [{"folder": "b/launches/000", "seed": 11, "alternative": "b"}],
           "sessions": [{"slurm": {"job_id": "1"}}, "junk", {"host": "h"}],
           "adaptive_launches": {"min": 10}}
    record = read_campaign_record(_write(tmp_path, doc))
    assert record.alternative_names == ("b", "a")
    assert dict(record.env_of("b")) == {"X": "1"} and dict(record.env_of("a")) == {} and record.env_of("c") == {}
    assert [(e.folder, e.seed, e.alternative) for e in record.launches] == [("b/launches/000", 11, "b")]
    assert (record.id, record.id_given, record.seed, record.command) == ("0" * 32, True, 7, "mpimeter run")
    assert record.session_slurm == ((0, {"job_id": "1"}), (2, None))
    assert record.adaptive_launches == {"min": 10} and record.document == doc
    assert read_campaign_record(tmp_path / "none") is None


@pytest.mark.parametrize("change, fragment", [
    (lambda d: d.update(schema_version=99), "schema_version 99"),
    (lambda d: d["alternatives"][0].update(name=5), "alternatives[0].name"),
    (lambda d: d.update(launches=[{"seed": 1}]), "launches[0].folder"),
    (lambda d: d.update(launches=[{"folder": "x", "seed": "1"}]), "launches[0].seed"),
])
def test_what_the_readers_depend_on_is_checked_once(tmp_path, change, fragment):
    doc = {"schema_version": SCHEMA_VERSION, "alternatives": [{"name": "a"}], "launches": []}
    change(doc)
    with pytest.raises(InputError, match=fragment.replace("[", r"\[").replace("]", r"\]")):
        read_campaign_record(_write(tmp_path, doc))


def test_the_order_of_alternatives_comes_from_the_record():
    campaign = analysis.load_campaign(GOLDEN / "alternatives", cache=False, store=False)
    assert campaign.campaign_record.alternative_names == ("openmpi", "mpich")
    assert campaign.alternatives == ("openmpi", "mpich")  # not sorted: campaign.json's order


@pytest.mark.parametrize("text, fragment", [
    ('{"a": NaN}', "NaN is not a JSON number"),
    ('{"a": Infinity}', "Infinity is not a JSON number"),
    ("{", "does not parse as JSON"),
    ("[" * 70 + "]" * 70, "more than 64 levels deep"),
])
def test_one_check_of_json_for_both_readers(tmp_path, text, fragment):
    (tmp_path / "campaign.json").write_text(text)
    with pytest.raises(InputError, match=fragment):
        load_json(tmp_path / "campaign.json")
    with pytest.raises(InputError, match=fragment):
        read_campaign_record(tmp_path)
    with pytest.raises(st.CampaignFileError, match="does not parse as JSON|levels deep|not a JSON number"):
        st.load(tmp_path)


def test_a_fifo_is_refused_without_waiting(tmp_path):
    os.mkfifo(tmp_path / "meta.json")  # reading it would wait for a writer forever
    with pytest.raises(InputError, match="not a regular file"):
        load_json(tmp_path / "meta.json")
