"""bench/throughput against a real campaign: the scripts behind docs/measurement.md's throughput
figures read the database and the runners' events as arbiter writes them now."""
import re
import subprocess
import sys

from conftest import ROOT

BENCH = ROOT / "bench" / "throughput"
SAMPLE = ROOT / "tests" / "corpus" / "kernelbench"


def _script(name, *args, timeout=60):
    proc = subprocess.run([sys.executable, str(BENCH / name), *map(str, args)], capture_output=True, text=True,
                          timeout=timeout)
    assert proc.returncode == 0, f"{name} exited {proc.returncode}:\n{proc.stderr[-3000:]}"
    return proc.stdout.splitlines()


def test_the_throughput_scripts_read_a_campaign_with_and_without_candidates_started_ahead(arbiter, tmp_path):
    work = tmp_path / "prestart"
    # One copy of each sample solution: 1_Scaled_Tanh passes, 2_Row_Max (a row mean) is incorrect.
    table = _script("prestart.py", "--arbiter", arbiter.bin, "--suite", SAMPLE / "level1", "--solutions",
                    SAMPLE / "solutions", "--device", arbiter.device, "--copies", "1", "--prestart", "0,1",
                    "--work", work, timeout=900)
    rows = {line.split("|")[1].strip(): [cell.strip() for cell in line.split("|")[2:-1]]
            for line in table if re.match(r"\| [01] \|", line)}
    assert set(rows) == {"0", "1"}, table
    for prestart, cells in rows.items():
        evaluations, verdicts, _campaign_s, walls, ahead = cells[:5]
        assert evaluations == "2" and verdicts == "incorrect 1, passed 1", cells
        assert re.fullmatch(r"\d+\.\d\d \(\d+\.\d\d–\d+\.\d\d\)", walls), cells
        # with --prestart 1 both candidates start ahead (the first beside its problem's reference)
        assert ahead == ("0" if prestart == "0" else "2"), cells
    # The passing candidate's and the baseline's times, under each value.
    timed = [line for line in table if line.startswith("| 1_Scaled_Tanh |")]
    assert {line.split("|")[3].strip() for line in timed} == {"baseline", "candidate"}, table

    db = work / "prestart1" / "r.db"
    walls = _script("walls.py", db)
    assert walls[0].startswith("| id | problem | model | verdict |") and len(walls) == 4, walls
    assert {line.split("|")[4].strip() for line in walls[2:]} == {"passed", "incorrect"}
    shapes = _script("shapes.py", db)
    assert len(shapes) > 2 and all(line.startswith("| 1_Scaled_Tanh | m0 |") for line in shapes[2:]), shapes
    assert all(re.search(r"\| \d+\.\d{4} \| \d+\.\d{4} \| \d+\.\d\d× \|", line) for line in shapes[2:]), shapes
    phases = _script("phases.py", f"{db}.d")
    candidates = [line for line in phases if " mode=candidate " in line]
    # Started ahead, each candidate's wait at its gate is a phase of its own, before its timing.
    assert len(candidates) == 2 and all(re.search(r"gate=\d+\.\d .*timing\[0\]=\d+\.\d", line) for line in candidates), phases
    assert any(" mode=reference " in line for line in phases), phases


def test_a_path_that_names_no_database_is_an_error_and_creates_nothing(tmp_path):
    missing = tmp_path / "missing.db"
    for script in ("walls.py", "shapes.py"):
        proc = subprocess.run([sys.executable, str(BENCH / script), str(missing)], capture_output=True, text=True,
                              timeout=60, cwd=tmp_path)
        assert proc.returncode != 0 and f"{missing}: cannot open the results database" in proc.stderr, proc.stderr
        helped = subprocess.run([sys.executable, str(BENCH / script), "--help"], capture_output=True, text=True,
                                timeout=60, cwd=tmp_path)
        assert helped.returncode != 0 and "results.db" in helped.stderr, helped.stderr
    assert list(tmp_path.iterdir()) == [], "the scripts left files behind"
