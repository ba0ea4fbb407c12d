"""`arbiter export`, `import` and `site` against the real binary."""
import csv
import io
import json

from conftest import run


def leaderboard(db, campaign):
    return json.loads(run("leaderboard", "--db", str(db), "--campaign", campaign, "--json").stdout)


def leaderboard_rows(db, campaign):
    return leaderboard(db, campaign)["rows"]


def judged_rows(db, campaign):
    """The rows without their stale-guard count: an imported result was judged elsewhere, never
    under this build's guard, so all of an import's rows count as stale (asserted below)."""
    return [{k: v for k, v in row.items() if k != "stale_guard"} for row in leaderboard_rows(db, campaign)]


def test_json_csv_and_markdown_exports(campaign_db):
    doc = json.loads(run("export", "--db", str(campaign_db), "--format", "json").stdout)
    assert {r["model"] for r in doc["leaderboard"]["rows"]} == {"correct", "wrong_values", "compile_error"}
    assert len(doc["evaluations"]) == 3
    records = list(csv.DictReader(io.StringIO(run("export", "--db", str(campaign_db), "--format", "csv").stdout)))
    assert {r["model"]: r["verdict"] for r in records} == {"correct": "passed", "wrong_values": "incorrect",
                                                          "compile_error": "compile_error"}
    md = run("export", "--db", str(campaign_db), "--format", "md").stdout
    assert "| rank | model |" in md and "| scale_add |" in md


def test_kernelarena_export_reimports_to_the_same_leaderboard(campaign_db, tmp_path):
    out = tmp_path / "arena"
    run("export", "--db", str(campaign_db), "--format", "kernelarena", "--out", str(out))
    index = json.loads((out / "index.json").read_text())
    assert index["format"] == "kernelarena" and len(index["entries"]) == 3
    assert (out / "solutions" / "scale_add" / "correct" / "kernel.py").is_file()
    assert json.loads((out / "solutions" / "scale_add" / "correct" / "meta.json").read_text())["cost_usd"] == 0.02
    copy = tmp_path / "copy.db"
    run("import", str(out), "--db", str(copy), "--campaign", "imported")
    assert judged_rows(copy, "imported") == judged_rows(campaign_db, "web-test")
    assert all(row["stale_guard"] == row["attempted"] for row in leaderboard_rows(copy, "imported"))
    run("import", str(out), "--db", str(copy), "--campaign", "imported")  # twice: nothing doubles
    assert judged_rows(copy, "imported") == judged_rows(campaign_db, "web-test")
    # The timing methods travel with the measurements, so the import says what it ranks by too.
    original, imported = leaderboard(campaign_db, "web-test"), leaderboard(copy, "imported")
    assert imported["ranked_by"] == original["ranked_by"] and imported["timing_methods"] == original["timing_methods"]
    assert "steady clock" in imported["ranked_by"]


def test_import_names_the_file_when_index_is_malformed(tmp_path):
    (tmp_path / "index.json").write_text('{"suite": "s"}')
    proc = run("import", str(tmp_path), "--db", str(tmp_path / "x.db"), check=False)
    assert proc.returncode == 1 and "index.json" in proc.stderr and "campaign" in proc.stderr


def test_site_writes_every_page_with_relative_links(campaign_db, tmp_path):
    site = tmp_path / "site"
    run("site", str(site), "--db", str(campaign_db))
    index = (site / "index.html").read_text()
    assert 'href="assets/style.css"' in index and "campaign/" in index
    problem_pages = list(site.glob("campaign/*/problem/scale_add/index.html"))
    assert len(problem_pages) == 1
    page = problem_pages[0].read_text()
    assert 'href="../../../../assets/style.css"' in page and "data-events" not in page
    assert len(list(site.glob("evaluation/*/index.html"))) == 3 and (site / "hardware" / "index.html").is_file()
