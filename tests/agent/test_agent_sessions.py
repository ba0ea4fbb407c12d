"""The four scripted scenarios: a passing solution, a budget, malformed tool calls, a run of 500s."""
import pytest

from conftest import CORRECT, call, run_agent, session_files

PRICE = "in=3,out=15,cache_read=0.3,cache_write=3.75"


def tool_results(trace):
    return [r for r in trace if r["type"] == "tool_result"]


@pytest.mark.parametrize("api", ["openai", "anthropic"])
def test_session_reaches_a_passing_solution(servers, tmp_path, api):
    server = servers(api, [
        {"calls": [call("write_file", path="kernel.py", content=CORRECT)]},
        {"calls": [call("bash", command="check")]},
        {"text": "kernel.py is done."},
    ])
    run_agent(server, "scripted-" + api, tmp_path, "--price", PRICE)
    folder, meta, trace = session_files(tmp_path, "scripted-" + api)
    assert (folder / "kernel.py").read_text() == CORRECT
    assert meta["harness"] == "arbiter-basic"
    assert meta["stop_reason"] == "final_answer"
    assert meta["turns"] == 3
    cache_write = 5 if api == "anthropic" else 0  # OpenAI reports no cache writes
    assert meta["tokens"] == {"input": 300, "output": 30, "cache_read": 150, "cache_write": 3 * cache_write,
                              "total": 480 + 3 * cache_write}
    assert len(meta["tokens_per_turn"]) == 3
    expected_cost = (300 * 3 + 30 * 15 + 150 * 0.3 + 3 * cache_write * 3.75) / 1e6
    assert meta["cost_usd"] == pytest.approx(expected_cost)
    assert meta["wall_s"] > 0
    check_output = tool_results(trace)[1]["content"]
    assert "passed" in check_output and "[exit status 0]" in check_output, check_output
    assert all("ts" in record for record in trace)
    # The model saw the problem statement and the results of its calls.
    assert "scale_add" in str(server.requests[0])
    assert "passed" in str(server.requests[2])


def test_session_stops_at_its_turn_budget(servers, tmp_path):
    server = servers("openai", [{"calls": [call("bash", command="echo turn")]} for _ in range(5)])
    run_agent(server, "looper", tmp_path, "--max-turns", "2")
    folder, meta, trace = session_files(tmp_path, "looper")
    assert meta["stop_reason"] == "max_turns"
    assert meta["turns"] == 2
    assert len(server.requests) == 2
    assert not (folder / "kernel.py").exists()
    assert meta["solution"] is False
    assert trace[-1]["type"] == "stop" and trace[-1]["reason"] == "max_turns"


def test_session_stops_at_its_token_budget(servers, tmp_path):
    server = servers("anthropic", [{"calls": [call("bash", command="true")]} for _ in range(5)])
    run_agent(server, "spender", tmp_path, "--max-tokens", "300")
    _, meta, _ = session_files(tmp_path, "spender")
    assert meta["stop_reason"] == "max_tokens"
    assert meta["turns"] == 2  # 165 tokens a turn: the second crosses 300


def test_malformed_tool_calls_become_error_results(servers, tmp_path):
    server = servers("openai", [
        {"calls": [("bash", '{"command": "ls"')]},
        {"calls": [call("python", code="print(1)")]},
        {"calls": [call("write_file", path="../escape.py", content="x")]},
        {"calls": [call("write_file", path="kernel.py", content=CORRECT)]},
        {"text": "done"},
    ])
    run_agent(server, "clumsy", tmp_path)
    folder, meta, trace = session_files(tmp_path, "clumsy")
    results = tool_results(trace)
    assert [r["is_error"] for r in results] == [True, True, True, False]
    assert "not valid JSON" in results[0]["content"]
    assert "unknown tool 'python'" in results[1]["content"]
    assert ".." in results[2]["content"]
    assert not (tmp_path / ".agent" / "scale_add" / "escape.py").exists()
    # The model was told: the next request carries the error as the tool's result.
    tool_messages = [m for m in server.requests[1]["messages"] if m["role"] == "tool"]
    assert "not valid JSON" in tool_messages[-1]["content"]
    assert meta["stop_reason"] == "final_answer"
    assert (folder / "kernel.py").read_text() == CORRECT


def test_server_errors_are_retried_until_it_recovers(servers, tmp_path):
    server = servers("anthropic", [{"status": 500}, {"status": 503}, {"status": 500}, {"status": 429},
                                   {"calls": [call("write_file", path="kernel.py", content=CORRECT)]},
                                   {"status": 502}, {"text": "done"}])
    run_agent(server, "patient", tmp_path)
    _, meta, trace = session_files(tmp_path, "patient")
    retries = [r for r in trace if r["type"] == "retry"]
    assert [r["status"] for r in retries] == [500, 503, 500, 429, 502]
    assert meta["stop_reason"] == "final_answer"
    assert meta["turns"] == 2


def test_an_endpoint_that_keeps_failing_ends_the_session(servers, tmp_path):
    server = servers("openai", [{"status": 500}] * 3)
    proc = run_agent(server, "down", tmp_path, "--retries", "3", check=False)
    assert proc.returncode == 1
    _, meta, _ = session_files(tmp_path, "down")
    assert meta["stop_reason"] == "model_error"
    assert "gave up after 3 attempts" in meta["error"]
