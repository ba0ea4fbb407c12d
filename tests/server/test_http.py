"""Black-box HTTP tests of `arbiter serve`: every page, its JSON API, errors and live events."""
import json
import urllib.request


def board(server):
    boards = server.json("/api/boards")["boards"]
    assert len(boards) == 1
    return boards[0]


def row(board_json, model):
    return next(r for r in board_json["rows"] if r["model"] == model)


def test_leaderboard_ranks_and_says_what_it_ranks_by(server):
    b = board(server)
    assert [r["model"] for r in b["rows"]][0] == "correct"
    assert b["baseline"] == "eager" and b["clock"] == "host" and "eager PyTorch" in b["ranked_by"]
    correct = row(b, "correct")
    assert correct["pass_at_1"] == 1.0 and correct["geomean_speedup"] > 0
    assert set(correct["fast_p"]) == {"0", "0.5", "1", "1.5", "2"}
    assert correct["tokens_per_solved"] == 1500 and abs(correct["cost_per_solved_usd"] - 0.02) < 1e-12
    assert correct["harness"] == "handwritten" and correct["wall_s_per_solved"] == 42.0
    assert correct["cache_tokens_per_solved"] is None  # its meta.json names no cache tokens
    assert row(b, "wrong_values")["tokens_per_solved"] is None and row(b, "wrong_values")["harness"] == ""
    # What it ranks by comes from the methods of the stored timings (the CPU's steady clock here).
    assert [m["method"] for m in b["timing_methods"]] == ["steady_clock"]
    assert "host time (steady clock) per shape on cpu" in b["ranked_by"], b["ranked_by"]
    assert correct["fraction_of_peak"] is None and b["fraction_of_peak"]["measured"] is False
    assert row(b, "wrong_values")["verdicts"] == {"incorrect": 1}
    status, kind, html = server.get("/")
    assert status == 200 and kind.startswith("text/html")
    for text in ('class="note ranked-by"', "host time (steady clock)", "not measured", "fast<sub>1.5</sub>",
                 "tokens / solved", "cache tokens / solved", "agent time / solved", "42.0 s", "handwritten", "<svg",
                 "correct", "wrong_values"):
        assert text in html, text


def test_campaign_page_lists_problems_progress_and_plots(server):
    cid = board(server)["campaign"]["id"]
    data = server.json(f"/api/campaign/{cid}")
    assert data["progress"]["done"] == 3 and data["progress"]["finished"] is True
    status, _, html = server.get(f"/campaign/{cid}")
    assert status == 200
    assert 'id="progress"' in html and f'data-events="/api/campaign/{cid}/events"' in html
    assert f'href="/campaign/{cid}/problem/scale_add"' in html and "Speedups of passed first samples" in html


def test_model_page_has_per_problem_level_and_tag_breakdowns(server):
    cid = board(server)["campaign"]["id"]
    model = server.json(f"/api/campaign/{cid}/model/wrong_values")
    assert model["problems"][0]["verdict"] == "incorrect"
    assert model["by_level"][0]["problems"] == 1 and model["by_level"][0]["passed"] == 0
    status, _, html = server.get(f"/campaign/{cid}/model/wrong_values")
    assert status == 200 and "by level" in html and "by tag" in html


def test_problem_page_shows_solutions_side_by_side_with_source_and_diff(server):
    cid = board(server)["campaign"]["id"]
    problem = server.json(f"/api/campaign/{cid}/problem/scale_add")
    by_model = {s["model"]: s for s in problem["solutions"]}
    assert set(by_model) == {"correct", "wrong_values", "compile_error"}
    assert by_model["correct"]["shapes"] and by_model["correct"]["shapes"][0]["candidate"]["median_ms"] > 0
    assert by_model["correct"]["source"]["language"] == "python"
    status, _, html = server.get(f"/campaign/{cid}/problem/scale_add")
    assert status == 200
    assert '<span class="t-k">class</span>' in html  # highlighted on the server
    assert "diff against correct" in html and 'class="d-' in html
    assert "Timing distribution per shape" in html
    _, _, against = server.get(f"/campaign/{cid}/problem/scale_add?against=wrong_values")
    assert "diff against wrong_values" in against


def test_evaluation_page_has_log_environment_and_rerun_command(server, campaign_db):
    cid = board(server)["campaign"]["id"]
    eid = next(s["evaluation"] for s in server.json(f"/api/campaign/{cid}/problem/scale_add")["solutions"]
               if s["model"] == "wrong_values")
    e = server.json(f"/api/evaluation/{eid}")
    assert e["verdict"] == "incorrect" and e["environment"]["fingerprint"]
    assert f"--db {campaign_db}" in e["rerun"] and "--models wrong_values" in e["rerun"]
    status, _, html = server.get(f"/evaluation/{eid}")
    assert status == 200 and 'id="rerun"' in html and "environment" in html and "log" in html


def test_hardware_page_shows_each_machine_and_portability(server):
    hw = server.json("/api/hardware")
    assert len(hw["hardware"]) == 1 and hw["hardware"][0]["campaigns"]
    assert {m["model"] for m in hw["portability"][0]["models"]} == {"correct", "wrong_values", "compile_error"}
    assert server.get("/hardware")[0] == 200


def test_unknown_ids_are_404_pages_and_bad_ids_400_json(server):
    status, kind, html = server.get("/evaluation/999999")
    assert status == 404 and kind.startswith("text/html") and "Not found" in html
    status, kind, body = server.get("/api/evaluation/999999")
    assert status == 404 and json.loads(body)["status"] == 404
    status, kind, body = server.get("/api/campaign/abc")
    assert status == 400 and "not a positive integer" in json.loads(body)["error"]
    assert server.get("/campaign/1/problem/no_such_problem")[0] == 404
    assert server.get("/no/such/page")[0] == 404
    status, _, body = server.get("/api/no/such")
    assert status == 404 and json.loads(body)["error"]


def test_assets_are_embedded(server):
    status, kind, css = server.get("/assets/style.css")
    assert status == 200 and kind.startswith("text/css") and "table.sortable" in css
    status, kind, js = server.get("/assets/app.js")
    assert status == 200 and "EventSource" in js


def test_events_stream_progress_then_finished(server):
    cid = board(server)["campaign"]["id"]
    with urllib.request.urlopen(f"{server.url}/api/campaign/{cid}/events", timeout=30) as resp:
        assert resp.headers["Content-Type"].startswith("text/event-stream")
        text = resp.read().decode()  # the campaign is finished: the stream ends by itself
    assert text.startswith("event: progress\ndata: ") and "event: finished" in text
    progress = json.loads(text.split("data: ", 1)[1].split("\n", 1)[0])
    assert progress["done"] == 3
