"""Reading the database a running campaign writes (WAL) is safe: every request answers while the
campaign runs, and the progress the API reports only moves forward."""
import subprocess
import time

from conftest import Server, env, eval_args, make_solutions


def test_pages_answer_while_a_campaign_writes(tmp_path):
    db = tmp_path / "busy.db"
    subprocess.run(eval_args(db, make_solutions(tmp_path / "first", ["correct"]), "first"), check=True,
                   capture_output=True, env=env(), timeout=900)
    server = Server(db)
    solutions = make_solutions(tmp_path / "solutions", ["correct", "wrong_values", "compile_error", "copy0", "copy1"])
    campaign = subprocess.Popen(eval_args(db, solutions, "busy"), stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, env=env())
    seen, statuses = [], set()
    try:
        while campaign.poll() is None:
            for path in ("/", "/campaigns", "/hardware", "/api/campaigns"):
                statuses.add(server.get(path)[0])
            busy = [c for c in server.json("/api/campaigns")["campaigns"] if c["campaign"]["name"] == "busy"]
            if busy:
                seen.append(busy[0]["done"])
                statuses.add(server.get(f"/campaign/{busy[0]['campaign']['id']}")[0])
            time.sleep(0.05)
        assert campaign.returncode == 0
        busy = [c for c in server.json("/api/campaigns")["campaigns"] if c["campaign"]["name"] == "busy"][0]
        assert busy["done"] == 5 and busy["campaign"]["status"] == "finished"
    finally:
        campaign.kill()
        campaign.wait()
        server.stop()
    assert statuses == {200}
    assert seen == sorted(seen) and len(set(seen)) > 1, f"progress did not move forward: {seen}"
