# SPDX-License-Identifier: BSD-3-Clause
"""`mpimeter store add|list|query`: the results store across machines and libraries.

- round trips: two campaigns from different (faked) machines added, listed and queried back;
- adding a campaign again changes nothing (keyed by its id: campaign.json's, or the meta.json
  hash of a campaign without one); --replace replaces it;
- bad input — a path that is not a store, a store of another schema version, a campaign in the
  store under another machine's name, SQL that writes or reads other files — is one line, exit
  2, and nothing changed;
- the default store: $MPIMETER_STORE, else under $XDG_DATA_HOME."""

from __future__ import annotations

import hashlib
import json
import shutil

import duckdb
import pytest
from click.testing import CliRunner
from data.store_campaigns import alpha_two_libraries, beta_one_library

from mpimeter.cli import main
from mpimeter.resultstore import schema


def invoke(*args, env=None):
    return CliRunner().invoke(main, [str(a) for a in args], env=env)


def one_error_line(result, command: str, needle: str) -> None:
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"mpimeter {command}: error: ") and needle in lines[0], lines


def digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def campaigns(tmp_path_factory):
    root = tmp_path_factory.mktemp("campaigns")
    return alpha_two_libraries(root), beta_one_library(root)


@pytest.fixture(scope="module")
def added_once(campaigns, tmp_path_factory):
    """The store with both campaigns, added once for the module (the analysis of a campaign is
    what adding costs)."""
    path = tmp_path_factory.mktemp("store") / "results.duckdb"
    r = invoke("store", "add", *campaigns, "--store", path, "--no-report")
    assert r.exit_code == 0, r.output
    assert not path.with_name(path.name + ".wal").exists()  # closed: the file alone is the store
    return path


@pytest.fixture
def store(added_once, tmp_path):
    """A test's own copy of that store: a test may change it, or compare its bytes."""
    path = tmp_path / "results.duckdb"
    shutil.copyfile(added_once, path)
    return path


def query(store, sql):
    r = invoke("store", "query", sql, "--store", store, "--format", "json")
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)["rows"]


def test_add_list_query_round_trip(store, campaigns):
    listed = json.loads(invoke("store", "list", "--store", store, "--format", "json").stdout)["campaigns"]
    assert [c["machine"] for c in listed] == ["alpha-node", "beta-node"]  # oldest first
    assert listed[0]["id"] == "a1" * 16 and listed[0]["alternatives"] == "mpich, openmpi"
    assert listed[1]["id"].startswith("m") and len(listed[1]["id"]) == 32  # no id: the meta.json hash
    assert listed[0]["ranks"] == 2 and listed[0]["launches"] == 12 and listed[0]["operations"] == "allreduce,bcast"
    rows = query(store, "select machine, library, cpu_model, op, size, median_ns, bound_ns from results_by_machine "
                        "order by machine, library, op, size")
    assert {(r["machine"], r["library"], r["cpu_model"]) for r in rows} == {
        ("alpha-node", "mpich", "Fake CPU A"), ("alpha-node", "openmpi", "Fake CPU A"),
        ("beta-node", "openmpi", "Fake CPU B")}
    assert len(rows) == 3 * 2 * 3 and all(r["median_ns"] > 0 and r["bound_ns"] > 0 for r in rows)
    # provenance: ranks, hosts, date, settings; per-launch summaries of every launch
    alt = query(store, "select nprocs, hosts, first_start, bench_config, latency_floor_ns from alternatives "
                       "where library = 'mpich'")[0]
    assert alt["nprocs"] == 2 and json.loads(alt["hosts"]) == ["alpha-node"] and alt["first_start"].startswith(
        "2026-11-10") and json.loads(alt["bench_config"])["nrep"] == 60 and alt["latency_floor_ns"] == 200.0
    counts = query(store, "select count(*) as n, count(distinct launch) as launches from launch_summaries "
                          "where campaign_id = 'a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1'")[0]
    assert counts == {"n": 2 * 6 * 6, "launches": 6}


def test_formats_table_and_csv(store):
    r = invoke("store", "query", "select machine, count(*) as n from results_by_machine group by 1 order by 1",
               "--store", store, "--format", "csv")
    assert r.exit_code == 0 and r.stdout.splitlines() == ["machine,n", "alpha-node,12", "beta-node,6"]
    r = invoke("store", "list", "--store", store)
    assert r.exit_code == 0 and "alpha-node" in r.stdout and "2 campaign(s)" in r.stdout


def test_adding_again_changes_nothing(store, campaigns):
    before = query(store, "select count(*) as n from launch_summaries")[0]["n"]
    added = query(store, "select added from campaigns order by added")
    r = invoke("store", "add", campaigns[0], campaigns[1], "--store", store, "--no-report")
    assert r.exit_code == 0 and r.stdout.count("unchanged:") == 2
    assert query(store, "select count(*) as n from launch_summaries")[0]["n"] == before
    assert query(store, "select added from campaigns order by added") == added
    r = invoke("store", "add", campaigns[1], "--store", store, "--no-report", "--replace")
    assert r.exit_code == 0 and "replaced:" in r.stdout, r.output
    assert query(store, "select count(*) as n from launch_summaries")[0]["n"] == before


def test_a_report_is_kept(campaigns, tmp_path):
    path = tmp_path / "r.duckdb"
    r = invoke("store", "add", campaigns[1], "--store", path)
    assert r.exit_code == 0, r.output
    row = query(path, "select report_source, octet_length(report) as n from campaigns")[0]
    assert row["report_source"] == "built by mpimeter store add" and row["n"] > 10000


def test_another_machine_name_is_refused_and_nothing_changes(store, campaigns):
    before = digest(store)
    r = invoke("store", "add", campaigns[0], "--store", store, "--machine", "gamma", "--no-report")
    one_error_line(r, "store add", "is in the store")
    assert "under machine 'alpha-node', not 'gamma'" in r.stderr
    assert digest(store) == before


def test_not_a_store_is_refused(tmp_path, campaigns):
    text = tmp_path / "notes.txt"
    text.write_text("not a database")
    one_error_line(invoke("store", "list", "--store", text), "store list", "not a results store")
    r = invoke("store", "add", campaigns[1], "--store", text, "--no-report")
    one_error_line(r, "store add", "not a results store")
    assert text.read_text() == "not a database"
    other = tmp_path / "other.duckdb"  # a DuckDB file of something else (a campaign.duckdb cache, say)
    con = duckdb.connect(str(other))
    con.execute("create table launches (x int)")
    con.close()
    before = digest(other)
    one_error_line(invoke("store", "add", campaigns[1], "--store", other, "--no-report"), "store add",
                   "not an mpimeter results store")
    assert digest(other) == before
    one_error_line(invoke("store", "list", "--store", tmp_path / "missing.duckdb"), "store list",
                   "no results store there")


def test_another_schema_version_is_refused(store):
    con = duckdb.connect(str(store))
    con.execute("update store_info set value = '99' where key = 'schema_version'")
    con.close()
    one_error_line(invoke("store", "list", "--store", store), "store list", "schema version 99; this mpimeter reads "
                                                                          f"version {schema.SCHEMA_VERSION}")


@pytest.mark.parametrize("sql, needle", [
    ("delete from results", "read-only: a DELETE statement is not allowed"),
    ("insert into campaigns (campaign_id) values ('x')", "a INSERT statement is not allowed"),
    ("copy results to 'out.csv'", "a COPY statement is not allowed"),
    ("attach 'x.duckdb' as x", "a ATTACH statement is not allowed"),
    ("select 1; drop table results", "give one SELECT statement (got 2 statements)"),
    ("select * from read_csv('/etc/passwd')", "Permission Error"),
    ("selec 1", "does not parse"),
])
def test_query_is_read_only(store, sql, needle, tmp_path):
    before = digest(store)
    one_error_line(invoke("store", "query", sql, "--store", store), "store query", needle)
    assert digest(store) == before and not (tmp_path / "out.csv").exists()


def test_default_store_from_the_environment(campaigns, tmp_path):
    env = {"MPIMETER_STORE": str(tmp_path / "env.duckdb"), "XDG_DATA_HOME": str(tmp_path / "xdg")}
    assert invoke("store", "add", campaigns[1], "--no-report", env=env).exit_code == 0
    assert (tmp_path / "env.duckdb").is_file() and not (tmp_path / "xdg").exists()
    env.pop("MPIMETER_STORE")
    assert invoke("store", "add", campaigns[1], "--no-report", env={**env, "MPIMETER_STORE": ""}).exit_code == 0
    assert (tmp_path / "xdg" / "mpimeter" / "results.duckdb").is_file()


def test_bad_command_lines(store, campaigns):
    one_error_line(invoke("store", "add", campaigns[1], "--store", store, "--store", store), "store add",
                   "--store given more than once")
    one_error_line(invoke("store", "list", "--store", store, "--format", "xml"), "store list", "--format")
    one_error_line(invoke("store", "add", campaigns[1], "--store", store, "--machine", "bad\nname"), "store add",
                   "--machine")
    one_error_line(invoke("store", "add", "/nonexistent/campaign", "--store", store), "store add", "/nonexistent")


def test_a_campaign_left_unchanged_says_when_its_folder_differs(campaigns, tmp_path):
    # `store add` of a campaign while it ran stored its first launches; added again once complete
    # it said "unchanged:" and nothing else, as it did for results edited since or other analysis
    # options given now: the user believed the store held what the folder says
    folder = shutil.copytree(campaigns[0], tmp_path / "running")
    late = [folder / alt / "launches" / "005" for alt in ("openmpi", "mpich")]
    for k, launch in enumerate(late):
        launch.rename(tmp_path / f"later{k}")
    store = tmp_path / "s.duckdb"
    r = invoke("store", "add", folder, "--store", store, "--no-report")
    assert r.exit_code == 0, r.output
    for k, launch in enumerate(late):
        (tmp_path / f"later{k}").rename(launch)
    r = invoke("store", "add", folder, "--store", store, "--no-report")
    assert r.exit_code == 0, r.output
    assert r.stdout.startswith("unchanged: ") and "the store holds 10 launch(es) of it, the folder 12" in r.stdout
    assert "--replace stores it as it is" in r.stdout
    r = invoke("store", "add", folder, "--store", store, "--no-report", "--outlier", "none", "--replace")
    assert r.exit_code == 0 and "replaced: " in r.stdout, r.output
    moved = shutil.copytree(folder, tmp_path / "moved")  # the same campaign elsewhere: nothing differs
    r = invoke("store", "add", moved, "--store", store, "--no-report", "--outlier", "none")
    assert r.exit_code == 0 and "unchanged: " in r.stdout and "not as the folder is now" not in r.stdout, r.output
    r = invoke("store", "add", moved, "--store", store, "--no-report")
    assert "not as the folder is now: the store holds it analysed with other options" in r.stdout, r.output
    raw = next((moved / "openmpi" / "launches" / "000").glob("raw.csv"))
    lines = raw.read_text().splitlines()
    head = lines[0].split(",")
    pairs = [(head.index(a), head.index(b)) for a, b in (("start_ns", "end_ns"), ("gstart_ns", "gend_ns")) if a in head]

    def doubled(line):  # every run time of the launch twice as long (either clock): its medians change
        cells = line.split(",")
        for start, end in pairs:
            if cells[start] and cells[end]:
                cells[end] = str(int(cells[start]) + 2 * (int(cells[end]) - int(cells[start])))
        return ",".join(cells)

    raw.write_text("\n".join([lines[0], *map(doubled, lines[1:])]) + "\n")
    r = invoke("store", "add", moved, "--store", store, "--no-report", "--outlier", "none", "--no-cache")
    assert "not as the folder is now: the store holds other results than the folder gives" in r.stdout, r.output


def test_a_campaign_still_running_is_stored_and_export_copied_with_a_word_of_it(tmp_path):
    # campaign.json says running, 3 of 6 launches done: the store and the copy hold what is done
    # so far, which each says (they said nothing; the store's "unchanged" later hid the rest)
    from test_analysis_multip import _lognormal, np_campaign

    camp = np_campaign(tmp_path / "c", {2: 3, 3: 3}, lambda p, i: _lognormal(lambda op, size: 1000.0 + size), seed=3)
    record = json.loads((camp / "campaign.json").read_text())
    record["status"] = "running"
    for launch in record["launches"][3:]:
        launch["status"] = "pending"
    (camp / "campaign.json").write_text(json.dumps(record))
    r = invoke("store", "add", camp, "--store", tmp_path / "store", "--no-report")
    assert r.exit_code == 0, r.output
    said = " ".join(r.stdout.split())
    assert "campaign.json says running: 3 of 6 launches complete: stored as it is now" in said
    assert "add it again with --replace" in said
    r = invoke("export", camp, tmp_path / "copy")
    assert r.exit_code == 0, r.output
    assert "campaign.json says running: 3 of 6 launches complete: the copy holds what is done so far" in \
        " ".join(r.stdout.split())
    record["status"] = "complete"
    (camp / "campaign.json").write_text(json.dumps(record))
    assert "campaign.json says" not in invoke("export", camp, tmp_path / "copy2").stdout
