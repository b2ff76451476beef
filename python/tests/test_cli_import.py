# SPDX-License-Identifier: BSD-3-Clause
"""`mpimeter import`: real IMB, OSU and ReproMPI outputs become launch folders (meta.json schema 4
with its origin, reduced raw rows) that the readers check and that analyze, compare, gate and
report read with warnings about what cannot be computed; bad input is one line naming the file
and line, exit 2, and nothing written."""

import json
import shutil

import pytest
from click.testing import CliRunner

from mpimeter.cli import main
from mpimeter.io.errors import InputError
from mpimeter.io.launch import read_launch

from test_io_peers import IMB, OSU_FULL, OSU_LAT, PEERS, REP_BARRIER, REP_WINDOW


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def imported(tmp_path, tool, *files, name=None, np=None):
    out = tmp_path / (name or tool)
    r = run("import", tool, *files, "--out", out, *(["--np", np] if np else []))
    assert r.exit_code == 0, r.output
    return out


def test_imb_import_is_one_launch_of_aggregates(tmp_path):
    out = imported(tmp_path, "imb", IMB)
    meta = json.loads((out / "launches/000/meta.json").read_text())
    assert meta["schema_version"] == 4 and meta["nprocs"] == 2 and meta["config"]["raw"] == "reduced"
    o = meta["origin"]
    assert (o["tool"], o["tool_version"], o["data"], o["file"]) == ("imb", "2021.11", "aggregates", IMB.name)
    assert "per-rank times" in o["lacks"] and o["command"].startswith("IMB-MPI1 PingPong")
    assert len(meta["tests"]) == 33 and meta["operations"]["pingpong-send-recv"]["round_trip"] is True
    data = read_launch(out / "launches/000")
    assert data.raw.num_rows == 33 and set(data.raw["rank"].to_pylist()) == {-1}
    assert [w.code for w in data.warnings] == ["imported-aggregates"]
    r = run("analyze", out, "--format", "json")
    assert r.exit_code == 0, r.output
    res = json.loads(r.stdout)
    rows = {(x["op"], x["size"]): x for x in res["rows"]}
    assert rows[("allreduce", 1024)]["median_ns"] == 720  # IMB's t_max
    assert rows[("pingpong-send-recv", 8)]["median_ns"] == 180 and rows[("pingpong-send-recv", 8)]["one_way"]
    codes = {w["code"] for w in res["warnings"]}
    assert {"imported-aggregates", "one-launch"} <= codes
    assert "imported (1 launch) from Intel(R) MPI Benchmarks" in res["clock"]


def test_osu_and_reprompi_imports_analyze(tmp_path):
    osu = imported(tmp_path, "osu", OSU_FULL, np=2)
    lat = imported(tmp_path, "osu", OSU_LAT, name="lat")
    rep = imported(tmp_path, "reprompi", REP_BARRIER, REP_WINDOW, name="rep")
    assert len(list((rep / "launches").iterdir())) == 2
    r = run("analyze", osu, lat, rep, "--format", "json")
    assert r.exit_code == 0, r.output
    res = json.loads(r.stdout)
    rows = {(x["alternative"], x["op"], x["size"]): x for x in res["rows"]}
    assert rows[("osu", "allreduce", 65536)]["median_ns"] == 57340
    assert rows[("lat", "pingpong-send-recv", 1)]["median_ns"] == 400  # osu_latency's one-way time
    assert rows[("rep", "allreduce", 1024)]["launches"] == 2 and rows[("rep", "allreduce", 1024)]["invalid"] == 2
    codes = {w["code"] for w in res["warnings"]}
    assert {"imported-aggregates", "imported-repetitions"} <= codes


def test_compare_gate_and_report_on_imported_campaigns(tmp_path):
    barrier = imported(tmp_path, "reprompi", REP_BARRIER, name="barrier")
    window = imported(tmp_path, "reprompi", REP_WINDOW, name="window")
    r = run("compare", barrier, window, "--per-repetition", "--format", "json")
    assert r.exit_code == 0, r.output
    cmp = json.loads(r.stdout)
    assert {(x["op"], x["size"]) for x in cmp["rows"]} == {("allreduce", 8), ("allreduce", 1024)}
    assert {"imported-repetitions", "different-settings"} <= {w["code"] for w in cmp["warnings"]}
    r = run("gate", barrier, window, "--per-repetition", "--format", "json")
    assert r.exit_code in (0, 1), r.output
    assert "imported-repetitions" in {w["code"] for w in json.loads(r.stdout)["warnings"]}
    html = tmp_path / "imb.html"
    r = run("report", imported(tmp_path, "imb", IMB), "-o", html)
    assert r.exit_code == 0, r.output
    assert "imported-aggregates" in html.read_text()


def test_imported_aggregates_have_no_fingerprint(tmp_path):
    """An aggregate is one value per test and run (docs/FORMAT.md, "Imported launches"): drawn,
    it showed as one repetition categorized "first", and rule 8 cited its "p99" as a tail,
    beside the warning that no fingerprint can be computed. The command refuses it, the report
    says why it has none and draws those of the alternatives with repetitions."""
    imb = imported(tmp_path, "imb", IMB)
    rep = imported(tmp_path, "reprompi", REP_BARRIER, name="rep")
    figure = tmp_path / "fp.png"
    r = run("fingerprint", imb, "--op", "allreduce", "--size", 8, "-o", figure)
    assert r.exit_code == 2 and r.output.count("\n") == 1, r.output
    assert "imported from Intel(R) MPI Benchmarks" in r.output and "no repetitions" in r.output
    assert not figure.exists()
    html = tmp_path / "both.html"
    r = run("report", imb, rep, "-o", html)
    assert r.exit_code == 0, r.output
    assert " 4 fingerprints" in r.output
    text = html.read_text()
    assert 'data-alternative="imb"' not in text and text.count('class="fingerprint"') == 4
    assert "No fingerprint: imb was imported from Intel(R) MPI Benchmarks" in text
    rule8 = text.split("<tr><td>8</td><td>Carefully")[1].split("</tr>")[0]
    assert "imb " not in rule8 and "rep " in rule8 and "of 4<" in rule8  # rep's 4 tests, not imb's 33 too


def test_runs_of_two_process_syncs_imported_together_are_not_called_switches(tmp_path):
    """ReproMPI runs with MPI_Barrier and with the window, imported as launches of one campaign:
    `mixed-start-methods` blamed "the window's own policy … on a busy machine" and advised a
    quieter machine; the launches began with different process syncs, as the user ran them."""
    rep = imported(tmp_path, "reprompi", REP_BARRIER, REP_WINDOW, name="rep")
    r = run("analyze", rep, "--format", "json")
    assert r.exit_code == 0, r.output
    (w,) = [w for w in json.loads(r.stdout)["warnings"] if w["code"] == "mixed-start-methods"]
    assert "barrier in launch(es) 000; window in launch(es) 001" in w["message"]
    assert "different process syncs" in w["message"] and "window's own policy" not in w["message"]
    assert "quieter machine" not in w["hint"] and "each process sync as a campaign of their own" in w["hint"]


def test_analyze_refuses_a_changed_imported_row(tmp_path):
    out = imported(tmp_path, "imb", IMB)
    raw = out / "launches/000/raw.csv"
    lines = raw.read_text().splitlines()
    assert lines[2].split(",")[6] == "360"  # PingPong 8 B: twice IMB's t of 0.18 us
    lines[2] = lines[2].replace(",0,360,", ",0,361,")
    raw.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError, match="origin.tests.1. says t = 180 ns"):
        read_launch(out / "launches/000", cache=False)
    r = run("analyze", out, "--no-cache")
    assert r.exit_code == 2 and r.output.count("\n") == 1 and "raw.csv:3" in r.output


def test_origin_needs_schema_4(tmp_path):
    out = imported(tmp_path, "reprompi", REP_WINDOW)
    path = out / "launches/000/meta.json"
    meta = json.loads(path.read_text())
    meta["schema_version"] = 3
    path.write_text(json.dumps(meta))
    with pytest.raises(InputError, match="origin is only defined from schema_version 4"):
        read_launch(path.parent)


@pytest.mark.parametrize("tool,files,np,match", [
    ("imb", [IMB, OSU_FULL], None, "osu-allreduce-full.txt:2: is OSU output, not IMB's"),
    ("osu", [PEERS / "README.md"], 2, "README.md:1: is not OSU output, nor any other format mpimeter import reads"),
    ("osu", [OSU_FULL], None, "give it with --np N"),
    ("reprompi", [REP_WINDOW, REP_WINDOW], None, "has the same content"),
    ("imb", [IMB], 4, "says 2 ranks ran; --np 4 contradicts it"),
])
def test_bad_input_is_one_line_exit_2_and_nothing_written(tmp_path, tool, files, np, match):
    out = tmp_path / "out"
    r = run("import", tool, *files, "--out", out, *(["--np", np] if np else []))
    assert r.exit_code == 2, r.output
    assert r.output.count("\n") == 1 and r.output.startswith("mpimeter import: error: ") and match in r.output
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_truncated_file_names_the_line_and_writes_nothing(tmp_path):
    cut = tmp_path / "cut.txt"
    data = REP_WINDOW.read_bytes()
    cut.write_bytes(data[: data.index(b"MPI_Allreduce        100         1024") + 30])
    out = tmp_path / "out"
    r = run("import", "reprompi", REP_BARRIER, cut, "--out", out)
    assert r.exit_code == 2 and f"{cut}:" in r.output and "cut short" in r.output
    assert not out.exists()


def test_an_existing_campaign_is_never_written_into(tmp_path):
    out = imported(tmp_path, "imb", IMB)
    before = sorted(p.name for p in (out / "launches").iterdir())
    r = run("import", "reprompi", REP_WINDOW, "--out", out)
    assert r.exit_code == 2 and "already exists" in r.output
    assert sorted(p.name for p in (out / "launches").iterdir()) == before
    empty = tmp_path / "empty"
    empty.mkdir()
    assert run("import", "reprompi", REP_WINDOW, "--out", empty).exit_code == 0
    shutil.rmtree(empty)


def test_runs_of_two_builds_of_a_benchmark_are_not_one_campaign(tmp_path):
    # one campaign's launches are repetitions of one experiment: OSU 7.4 and 5.0 are two builds
    older = tmp_path / "osu50.txt"
    older.write_text(OSU_LAT.read_text().replace("v7.4", "v5.0"))
    out = tmp_path / "out"
    r = run("import", "osu", OSU_LAT, older, "--out", out)
    assert r.exit_code == 2 and r.output.count("\n") == 1, r.output
    assert "osu50.txt is a run of OSU Micro-Benchmarks 5.0, osu-latency.txt of OSU Micro-Benchmarks 7.4" in r.output
    assert not out.exists()
    # imported one by one and put together by hand, analyze says what does not belong
    a, b = imported(tmp_path, "osu", OSU_LAT, name="a"), imported(tmp_path, "osu", older, name="b")
    shutil.move(b / "launches" / "000", a / "launches" / "001")
    r = run("analyze", a)
    assert r.exit_code == 2 and "origin.tool_version) is 'OSU Micro-Benchmarks 5.0'" in r.output, r.output
    assert run("analyze", a, "--allow-mixed").exit_code == 0
