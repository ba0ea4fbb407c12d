"""The bundled starter suite end to end on the CPU: what the README's first command does."""
from conftest import ROOT


def test_starter_suite(arbiter):
    proc = arbiter.run("eval", str(ROOT / "suites" / "starter"), "--solutions", str(ROOT / "solutions" / "starter"),
                       "--db", arbiter.db, "--device", arbiter.device, "--max-time", "0.2")
    assert "handwritten" in proc.stdout  # the leaderboard closes the run
    got = arbiter.evaluations()
    problems = {key[0] for key in got}
    assert len(problems) >= 6
    for (problem, model, _), row in got.items():
        if model == "handwritten":
            assert row["verdict"] == "passed", f"{problem}/{model}: {row['reason']}"
        elif model == "handwritten-wrong":
            assert row["verdict"] == "incorrect", f"{problem}/{model}: {row['reason']}"
        elif model == "handwritten-triton":
            want = "passed" if arbiter.device == "cuda" else "skipped"
            assert row["verdict"] == want, f"{problem}/{model}: {row['reason']}"
    if arbiter.device == "cuda":
        for (problem, model, _), row in got.items():
            if row["verdict"] == "passed":
                shown = arbiter.show(row["id"])
                shapes = {m["shape"] for m in shown["measurements"] if m["role"] == "candidate"}
                assert shapes and all(m["clock"] == "cuda_event" for m in shown["measurements"]), f"{problem}/{model}"
    board = {r["model"]: r for r in arbiter.leaderboard()["rows"]}
    assert board["handwritten"]["pass_at_1"] == 1.0
    assert board["handwritten"]["geomean_speedup"] is not None
    assert board["handwritten-wrong"]["pass_at_1"] == 0.0
