# SPDX-License-Identifier: BSD-3-Clause
"""What a folder is, the DuckDB store, and that inputs stay untouched."""

import hashlib

import duckdb
import pytest
from data.testkit import golden_copy

from mpimeter import analysis
from mpimeter.io import campaign
from mpimeter.io.errors import InputError


def test_discover_the_three_kinds(tmp_path):
    assert campaign.discover(golden_copy(tmp_path, "campaign_a")).kind == "campaign"
    alts = campaign.discover(golden_copy(tmp_path, "alternatives"))
    assert alts.kind == "alternatives" and [a for a, _ in alts.alternatives] == ["openmpi", "mpich"]  # campaign.json order
    one = campaign.discover(golden_copy(tmp_path, "campaign_a") / "launches" / "002")
    assert one.kind == "launch" and one.alternatives[0][0] == "campaign_a"


@pytest.mark.parametrize("name,what", [
    ("not_a_campaign", "is not a campaign or launch folder"),
    ("empty_launches", "holds no launch folder with a meta.json"),
])
def test_not_a_campaign(tmp_path, name, what):
    with pytest.raises(InputError, match=what):
        campaign.discover(golden_copy(tmp_path, name))
    with pytest.raises(InputError, match="does not exist"):
        campaign.discover(tmp_path / "nowhere")


def test_launch_folder_without_meta_is_skipped_with_a_warning(tmp_path):
    root = golden_copy(tmp_path, "campaign_a")
    (root / "launches" / "009").mkdir()
    c = analysis.load_campaign(root)
    assert len(c.launches) == 4
    assert any(w.code == "launch-not-started" for w in c.warnings)


def test_duckdb_store_is_queryable(tmp_path):
    root = golden_copy(tmp_path, "alternatives")
    c = analysis.load_campaign(root)
    with duckdb.connect(str(root / "campaign.duckdb"), read_only=True) as con:
        con.execute(f"SET file_search_path = '{root}'")  # the view's paths are relative to the campaign
        assert con.execute("select count(*) from raw").fetchone()[0] == c.raw.num_rows
        alts = con.execute("select alternative, count(*) from launches group by 1 order by 1").fetchall()
        assert alts == [("mpich", 3), ("openmpi", 3)]
        lib = con.execute("select distinct meta->>'$.mpi.library' from launches").fetchall()
        assert lib == [("openmpi",)]
        assert con.execute("select count(*) from sync where kind = 'model'").fetchone()[0] == 12
    # loading again rewrites it without complaint
    analysis.load_campaign(root)


def digest(root):
    h = {}
    for p in sorted(root.rglob("*")):
        if p.is_file() and p.name not in ("raw.parquet", "campaign.duckdb", "campaign.duckdb.wal"):
            h[str(p.relative_to(root))] = hashlib.sha256(p.read_bytes()).hexdigest()
    return h


def test_nothing_but_the_caches_is_written_to_the_input(tmp_path):
    root = golden_copy(tmp_path, "alternatives")
    before = digest(root)
    analysis.analyze(analysis.load_campaign(root))
    assert digest(root) == before
    written = {p.name for p in root.rglob("*") if p.is_file()} - {p.split("/")[-1] for p in before}
    assert written <= {"raw.parquet", "campaign.duckdb", "campaign.duckdb.wal"}


def test_load_campaigns_names_alternatives_uniquely(tmp_path):
    (tmp_path / "base").mkdir()
    (tmp_path / "cand").mkdir()
    import shutil
    from data.testkit import GOLDEN
    shutil.copytree(GOLDEN / "campaign_a", tmp_path / "base" / "openmpi")
    shutil.copytree(GOLDEN / "campaign_b", tmp_path / "cand" / "openmpi")
    c = analysis.load_campaigns([tmp_path / "base" / "openmpi", tmp_path / "cand" / "openmpi"])
    assert c.alternatives == ("base/openmpi", "cand/openmpi") and c.kind == "several"


def test_one_store_for_several_campaigns(tmp_path):
    from mpimeter.io import store

    stored = []
    for name in ("campaign_a", "campaign_b"):
        lc = campaign.load(golden_copy(tmp_path, name))
        stored += [store.StoredLaunch(campaign=name, alternative=ll.alternative, launch=ll.index,
                                      folder=ll.data.folder, status=ll.data.status, clock="global-online",
                                      meta=ll.data.meta, sync=ll.data.sync) for ll in lc.launches]
    assert store.write_store(tmp_path / "all.duckdb", stored) is None
    with duckdb.connect(str(tmp_path / "all.duckdb"), read_only=True) as con:
        con.execute(f"SET file_search_path = '{tmp_path}'")
        rows = con.execute("select campaign, count(distinct launch) from raw group by 1 order by 1").fetchall()
    assert rows == [("campaign_a", 4), ("campaign_b", 4)]


def test_a_parent_folder_says_which_sub_folders_it_did_not_read(tmp_path):
    parent = tmp_path / "parent"
    parent.mkdir()
    golden_copy(parent, "campaign_a")
    golden_copy(parent, "alternatives")  # a folder of alternatives inside: not read
    (parent / "logs").mkdir()  # no benchmark data: nothing to say
    (parent / "stray").mkdir()
    (parent / "stray" / "campaign.json").write_text("{}")
    c = analysis.load_campaign(parent, cache=False, store=False)
    assert c.alternatives == ("campaign_a",)
    skipped = {w.where: w for w in c.warnings if w.code == "folder-skipped"}
    assert set(skipped) == {str(parent / "alternatives"), str(parent / "stray")}
    assert "folder of alternatives" in skipped[str(parent / "alternatives")].message
    assert f"mpimeter analyze {parent / 'alternatives'}" in skipped[str(parent / "alternatives")].hint
    assert "no launches/" in skipped[str(parent / "stray")].message
    # a real folder of alternatives reads every one of them and warns about nothing skipped
    alts = analysis.load_campaign(golden_copy(tmp_path, "alternatives"), cache=False, store=False)
    assert not any(w.code == "folder-skipped" for w in alts.warnings)


def test_a_copied_campaign_store_queries_the_copy_not_the_original(tmp_path, monkeypatch):
    import shutil

    import pyarrow.parquet as pq

    original = golden_copy(tmp_path, "campaign_a")
    analysis.load_campaign(original)  # writes raw.parquet and campaign.duckdb
    copy = tmp_path / "copy"
    shutil.copytree(original, copy)
    # the copy's data differ from the original's: launch 000 of the copy keeps 10 rows
    copied = copy / "launches" / "000" / "raw.parquet"
    pq.write_table(pq.read_table(copied).slice(0, 10), copied)
    query = "select count(*) from raw where launch = 0"
    monkeypatch.chdir(copy)  # the store as copied, opened where it lies (not rewritten by mpimeter)
    with duckdb.connect(str(copy / "campaign.duckdb"), read_only=True) as con:
        assert con.execute(query).fetchone()[0] == 10
    monkeypatch.chdir(tmp_path)  # from elsewhere, with the campaign as the search path
    with duckdb.connect(str(copy / "campaign.duckdb"), read_only=True) as con:
        con.execute(f"SET file_search_path = '{copy}'")
        assert con.execute(query).fetchone()[0] == 10
    with duckdb.connect(str(original / "campaign.duckdb"), read_only=True) as con:
        con.execute(f"SET file_search_path = '{original}'")
        assert con.execute(query).fetchone()[0] == 160  # the original is untouched: 2 ranks × 20 reps × 4 tests


def test_the_store_is_let_go_after_each_load_also_when_it_cannot_be_written(tmp_path):
    # io.store attaches campaign.duckdb to the process's one in-memory database (io.runtimes)
    # instead of opening a database of its own: a store left attached would stay locked against
    # another process, and the next load's attachment would collide with it
    import subprocess
    import sys

    from mpimeter.io import runtimes

    camp = golden_copy(tmp_path, "campaign_a")
    assert not analysis.load_campaign(camp).warnings and not analysis.load_campaign(camp).warnings
    opened = subprocess.run([sys.executable, "-c", "import duckdb, sys; duckdb.connect(sys.argv[1]).close()",
                             str(camp / "campaign.duckdb")], capture_output=True, text=True, timeout=120)
    assert opened.returncode == 0, opened.stderr
    (camp / "campaign.duckdb").write_text("not a database")
    assert [w.code for w in analysis.load_campaign(camp).warnings] == ["store-not-written"]
    with runtimes.connect() as con:
        names = [n for (n,) in con.execute("SELECT database_name FROM duckdb_databases()").fetchall()]
    assert not [n for n in names if n.startswith("campaign_store")], names


def test_launches_campaign_json_lists_without_a_folder_are_named(tmp_path):
    # a variant whose environment fails MPI_Init leaves no launch folder: campaign.json records its
    # launches as failed, and the analysis names them and the alternative none of whose launches it
    # has, instead of leaving it out of the tables unsaid; a complete launch deleted since, too
    import json
    import shutil

    from data.synth_tuning import algorithm_campaign, ompi

    from mpimeter import analysis

    root = algorithm_campaign(tmp_path / "c", {"openmpi": {}, "ring": ompi("allreduce", 4)},
                              lambda alt, op, size, p: 1.0, sizes=(8,), launches=3)
    doc = json.loads((root / "campaign.json").read_text())
    doc["alternatives"].append({"name": "bad", "mpi": "openmpi", "env": {"OMPI_MCA_pml": "nonexistent"}})
    doc["launches"] += [{"alternative": "bad", "index": i, "folder": f"bad/launches/{i:03d}", "status": "failed",
                         "reason": "exit code 1", "seed": 7 + i, "np": 2} for i in range(3)]
    (root / "campaign.json").write_text(json.dumps(doc))
    codes = [w for w in analysis.load_campaign(root, cache=False, store=False).warnings
             if w.code == "launches-without-folder"]
    assert [w.message for w in codes] == [
        "bad: 3 of its 3 launch(es) in campaign.json left no launch folder to read (3 failed; first: "
        "bad/launches/000: exit code 1); no launch of it is analysed"]
    shutil.rmtree(root / "ring" / "launches" / "001")
    codes = {w.where: w.message for w in analysis.load_campaign(root, cache=False, store=False).warnings
             if w.code == "launches-without-folder"}
    assert codes["ring"] == ("ring: 1 of its 3 launch(es) in campaign.json left no launch folder to read "
                             "(1 complete; first: ring/launches/001: no reason recorded)")


def test_a_launch_run_cut_at_a_hung_test_is_not_a_launch_to_re_run(tmp_path):
    # `run --test-timeout` stops a launch at a hung test and runs its other tests in a continuation
    # launch (campaign.json status "cut"; the hung test is test-failed-every-attempt): its meta.json
    # is not finished, yet a resume would not re-run it, so no failed-launch asks for that
    import json

    from data.synth_tuning import algorithm_campaign

    from mpimeter import analysis

    root = algorithm_campaign(tmp_path / "c", {"openmpi": {}}, lambda alt, op, size, p: 1.0, sizes=(8,), launches=3)
    meta_file = root / "openmpi" / "launches" / "001" / "meta.json"
    meta = json.loads(meta_file.read_text())
    meta["status"] = "failed"
    meta_file.write_text(json.dumps(meta))

    def failed_launch_warnings(status):
        doc = json.loads((root / "campaign.json").read_text())
        doc["launches"][1]["status"] = status
        (root / "campaign.json").write_text(json.dumps(doc))
        return [w for w in analysis.load_campaign(root, cache=False, store=False).warnings if w.code == "failed-launch"]

    assert [w.where for w in failed_launch_warnings("failed")] == [str(meta_file)]
    assert failed_launch_warnings("cut") == []
