"""The guard's corpus (tests/corpus/hacks, tests/corpus/legit) against the real binary: every hack
gets its expected verdict with its pattern ids among the findings, no legitimate case is rejected,
`show` prints the evidence and the leaderboard counts rejections per model. Cases marked
`device = "cuda"` in expect.toml run only under the gpu label and are reported as skipped here;
`patterns_<device>` replaces `patterns` on that device (a check that cannot judge there, another that does);
`patterns_any`: at least one of them among the findings, where several witnesses outside the process
each catch the case and which fires first varies with the host.
ARBITER_CORPUS_CASES=<glob>,<glob> (relative to tests/corpus, e.g. "hacks/T1/*,legit/*") narrows the
run to those cases; the rest are reported as skipped."""
import fnmatch
import os
import shutil
import sqlite3
import tomllib

import pytest

from conftest import ROOT

CORPUS = ROOT / "tests" / "corpus"
SUITE = CORPUS / "hacks" / "suite"


def _cases(device):
    """(model name, case folder, expect) of every case that runs on device; skipped ones apart."""
    runnable, skipped = [], []
    for expect_file in sorted(CORPUS.glob("hacks/*/*/expect.toml")) + sorted(CORPUS.glob("legit/*/expect.toml")):
        case = expect_file.parent
        expect = tomllib.loads(expect_file.read_text())
        kind = case.relative_to(CORPUS).parts[0]
        model = f"{kind}-" + "-".join(case.relative_to(CORPUS / kind).parts)
        wanted = expect.get("device")
        chosen = [g for g in os.environ.get("ARBITER_CORPUS_CASES", "").split(",") if g]
        excluded = chosen and not any(fnmatch.fnmatch(str(case.relative_to(CORPUS)), g) for g in chosen)
        (skipped if (wanted and wanted != device) or excluded else runnable).append((model, case, expect))
    return runnable, skipped


@pytest.fixture(scope="module")
def corpus_run(tmp_path_factory):
    from conftest import Arbiter
    tmp = tmp_path_factory.mktemp("guard")
    arbiter = Arbiter(tmp / "results.db")
    runnable, skipped = _cases(arbiter.device)
    for model, case, expect in runnable:
        shutil.copytree(case, tmp / "solutions" / expect.get("problem", "scale_add") / model,
                        ignore=shutil.ignore_patterns("expect.toml"))
    # On cuda the CUPTI probe is on by default: the GPU-side cases are caught by its evidence.
    arbiter.run("eval", str(SUITE), "--solutions", str(tmp / "solutions"), "--db", arbiter.db, "--device", arbiter.device,
                "--timeout", "120", "--max-time", "0.2")
    return arbiter, runnable, skipped


def _findings(db, evaluation_id):
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT pattern, severity, evidence FROM finding WHERE evaluation_id = ?",
                            (evaluation_id,)).fetchall()


def test_every_hack_is_caught_with_its_pattern(corpus_run):
    arbiter, runnable, skipped = corpus_run
    for model, _, _ in skipped:
        print(f"SKIPPED {model}: needs another device or is outside ARBITER_CORPUS_CASES")
    got = arbiter.evaluations()
    failures = []
    for model, case, expect in runnable:
        if not model.startswith("hacks-"):
            continue
        row = got[(expect.get("problem", "scale_add"), model, 0)]
        # What caught it: an `info` finding is shown and decides nothing, so it names no catch.
        patterns = {pattern for pattern, severity, _ in _findings(arbiter.db, row["id"]) if severity != "info"}
        wanted = expect.get(f"patterns_{arbiter.device}", expect.get("patterns", []))
        missing = set(wanted) - patterns
        any_of = expect.get("patterns_any", [])  # several outside witnesses; which fires varies with the host
        if any_of and not patterns & set(any_of):
            missing.add("one of " + "/".join(any_of))
        if row["verdict"] != expect["verdict"] or missing:
            failures.append(f"{model}: {row['verdict']} ({row['reason']}); findings {sorted(patterns)}, "
                            f"missing {sorted(missing)}")
        if expect["verdict"] == "rejected":
            assert all(p in row["reason"] for p in wanted) or missing, f"{model}: {row['reason']}"
    assert not failures, "\n".join(failures)


def test_no_legitimate_solution_is_rejected(corpus_run):
    arbiter, runnable, _ = corpus_run
    got = arbiter.evaluations()
    failures, known_open = [], []
    for model, _, expect in runnable:
        if not model.startswith("legit-"):
            continue
        row = got[(expect.get("problem", "scale_add"), model, 0)]
        if row["verdict"] != expect["verdict"]:
            # `open`: a legal case a check still rejects, and why; reported, never hidden.
            (known_open if expect.get("open") else failures).append(
                f"{model}: {row['verdict']} ({row['reason']}); findings {_findings(arbiter.db, row['id'])}"
                + (f"; open: {expect['open']}" if expect.get("open") else ""))
    assert not failures, "\n".join(failures)
    if known_open:
        pytest.xfail("legal cases still rejected (open): " + "; ".join(known_open))


def test_show_prints_the_evidence_and_the_leaderboard_counts_rejections(corpus_run):
    arbiter, _, _ = corpus_run
    row = arbiter.evaluations().get(("scale_add", "hacks-T4-time_patch", 0))
    if row is None:
        pytest.skip("hacks/T4/time_patch is outside ARBITER_CORPUS_CASES")
    shown = arbiter.run("show", str(row["id"]), "--db", arbiter.db).stdout
    assert "findings" in shown and "T4" in shown and "time.perf_counter" in shown, shown
    as_json = arbiter.show(row["id"])
    assert any(f["pattern"] == "T4" and f["severity"] == "reject" for f in as_json["findings"])
    board = {r["model"]: r for r in arbiter.leaderboard()["rows"]}
    assert board["hacks-T4-time_patch"]["rejected"] == 1
    assert board["hacks-T4-time_patch"]["pass_at_1"] == 0.0
