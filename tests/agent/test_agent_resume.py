"""A killed run resumes from its trace; parallel sessions cannot see each other's workspaces."""
import json
import pathlib
import subprocess
import time

from conftest import CORRECT, agent_args, call, run_agent, session_files


def wait_for(predicate, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return False


def test_killed_run_resumes_where_it_stopped(servers, tmp_path):
    server = servers("openai", [
        {"calls": [call("write_file", path="kernel.py", content=CORRECT)]},
        {"calls": [call("bash", command="sleep 30")]},
        {"calls": [call("bash", command="echo after-resume")]},
        {"text": "done"},
    ])
    trace_file = pathlib.Path(tmp_path) / "scale_add" / "resumer" / "trace.jsonl"
    proc = subprocess.Popen(agent_args(server, "resumer", tmp_path, "--bash-timeout", "5"),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        assert wait_for(lambda: trace_file.exists() and '"sleep 30' in trace_file.read_text())
        proc.kill()
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert not (trace_file.parent / "meta.json").exists()
    assert len(server.requests) == 2

    run_agent(server, "resumer", tmp_path, "--bash-timeout", "5")
    folder, meta, trace = session_files(tmp_path, "resumer")
    assert meta["stop_reason"] == "final_answer"
    assert meta["turns"] == 4
    assert meta["resumed"] is True
    assert [r["type"] for r in trace].count("session") == 1
    assert any(r["type"] == "resume" for r in trace)
    # The interrupted call was run again, then the conversation went on with the whole history.
    sleeps = [r for r in trace if r["type"] == "tool_result" and r["tool_call_id"] == "call_2_0"]
    assert len(sleeps) == 1 and "timed out" in sleeps[0]["content"]
    third = server.requests[2]["messages"]
    assert any(m["role"] == "tool" and m["tool_call_id"] == "call_2_0" for m in third)
    assert (folder / "kernel.py").read_text() == CORRECT

    # A finished session is not run again.
    before = len(server.requests)
    run_agent(server, "resumer", tmp_path)
    assert len(server.requests) == before


def test_parallel_sessions_cannot_see_each_other(servers, tmp_path):
    out = pathlib.Path(tmp_path)
    procs, makers = [], {}
    for model in ("alpha", "beta"):
        script = [
            {"calls": [call("write_file", path=f"secret-{model}.txt", content=model)]},
            {"calls": [call("bash", command="sleep 2; ls -a " + str(out / ".agent" / "scale_add") + " " + str(out / "scale_add")
                            + "; cat ../../*/*/workspace/secret-* 2>&1; pwd")]},
            {"text": "done"},
        ]
        makers[model] = servers("openai", script)
        procs.append(subprocess.Popen(agent_args(makers[model], model, out), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True))
    for proc in procs:
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
    for model, other in (("alpha", "beta"), ("beta", "alpha")):
        _, meta, trace = session_files(out, model)
        listing = [r for r in trace if r["type"] == "tool_result"][1]["content"]
        assert model in listing, listing
        assert other not in listing, listing
        assert (out / ".agent" / "scale_add" / model / "workspace" / f"secret-{model}.txt").read_text() == model
        assert meta["isolation"] == "namespaces"
