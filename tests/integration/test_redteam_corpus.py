"""The red-team corpus (tests/corpus/redteam/<road>/<case>) against the real binary: attacks written as
an adversary who has read every file of this repository would write them, all in one campaign on
tests/corpus/redteam/suite, each asserted to get the verdict its expect.toml names with every
pattern id it names (`patterns_<device>` replaces `patterns` on that device). A case is data: a
kernel.py (and sources) and an expect.toml with the keys of tests/corpus/hacks (problem, verdict,
patterns, patterns_<device>, device, note), `patterns_any` where several outside witnesses each
catch the case and which of them fires varies with the host (at least one of them among the
findings), and `open` on a case whose road nothing closes yet: why, reported as an expected failure
(xfail) until the case gets what it names (`open_<device>` where the road is open on that device's
hosts only).

A case with `gain_at_most = g` is met as well when it passes (or gets its verdict from a rule other
than those named) with a stored time per call that its outside batch's CPU per call exceeds at most
g times, on every shape (details.outside_clock): on the CPU a forgery inside the CPU rule's ratio is
timed by that account (details.outside_scored) instead of its record, and g says what it may still
gain.

A case with `static_rules_off = true` is run a second time, in a campaign of its own with `arbiter
eval --no-static-rules`: there it must get the same verdict (and `patterns_static_off`, else
`patterns`) with no finding from the static facts, i.e. the run-time witnesses alone reject it
(`open_static_off`: why they do not yet, reported as an expected failure).

Every case is its own test, so a road still open shows as that case failing, and a case the machine
cannot run shows as skipped with the reason: `device = "cuda"` cases (tests/corpus/redteam/probe)
off cuda, load_inline cases without a C++ compiler. After the campaign three checks look at what the
evaluations left behind on this machine, whatever the verdicts: no process of the campaign alive, no
`arbiter-redteam-*` marker in the host's shared scratch folders (/run/lock, /var/tmp, /tmp,
/dev/shm), no evaluation folder over 512 MiB. They clean up what they find.

ARBITER_CORPUS_CASES=<glob>,<glob> (relative to tests/corpus/redteam, e.g. "channel/*,paced_memo/*")
narrows the run to those cases; the rest are reported as skipped."""
import fnmatch
import json
import os
import pathlib
import shutil
import signal
import sqlite3
import time
import tomllib

import pytest

from conftest import ROOT

REDTEAM = ROOT / "tests" / "corpus" / "redteam"
SUITE = REDTEAM / "suite"
MARKER = "arbiter-redteam-"
SHARED_SCRATCH = ("/run/lock", "/var/tmp", "/tmp", "/dev/shm")
FOLDER_CAP_BYTES = 512 << 20


def _all_cases():
    """(case id, folder, expect) of every case, in path order."""
    cases = []
    for expect_file in sorted(REDTEAM.glob("*/*/expect.toml")):
        case = expect_file.parent
        if case.parent == SUITE:
            continue
        cases.append((str(case.relative_to(REDTEAM)), case, tomllib.loads(expect_file.read_text())))
    return cases


CASES = _all_cases()


def _model(case_id):
    return "redteam-" + case_id.replace("/", "-")


def _why_not(case, expect, device):
    """Why this machine does not run the case, or None."""
    wanted = expect.get("device")
    if wanted and wanted != device:
        return f"needs device {wanted}, this run is on {device}"
    chosen = [g for g in os.environ.get("ARBITER_CORPUS_CASES", "").split(",") if g]
    if chosen and not any(fnmatch.fnmatch(str(case.relative_to(REDTEAM)), g) for g in chosen):
        return "outside ARBITER_CORPUS_CASES"
    sources = "".join(p.read_text(errors="replace") for p in case.glob("*.py"))
    if "load_inline" in sources and not (shutil.which("c++") or shutil.which("g++")):
        return "a load_inline extension and no C++ compiler on this machine"
    return None


def _campaign_processes(tmp):
    """{pid: command line} of processes (not this one) whose working folder or environment names
    the campaign's folder: the candidates set HOME to their work folder, which a child keeps after
    chdir /."""
    found, needle = {}, str(tmp).encode()
    for entry in pathlib.Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cwd = os.readlink(entry / "cwd")
            environ = (entry / "environ").read_bytes()
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ")[:120]
        except OSError:
            continue
        if cwd.startswith(str(tmp)) or needle in environ:
            found[int(entry.name)] = command.decode(errors="replace")
    return found


def _run_campaign(tmp, cases, *flags):
    """One `arbiter eval` of the runnable cases among cases, in tmp; the Arbiter and how many ran."""
    from conftest import Arbiter
    arbiter = Arbiter(tmp / "results.db")
    runnable = []
    for case_id, case, expect in cases:
        if _why_not(case, expect, arbiter.device) is None:
            runnable.append(case_id)
            shutil.copytree(case, tmp / "solutions" / expect["problem"] / _model(case_id),
                            ignore=shutil.ignore_patterns("expect.toml"))
    started = time.monotonic()
    if runnable:
        arbiter.run("eval", str(SUITE), "--solutions", str(tmp / "solutions"), "--db", arbiter.db,
                    "--device", arbiter.device, "--timeout", "180", "--max-time", "0.2", *flags)
    print(f"red-team campaign {' '.join(flags)}: {len(runnable)} evaluations in {time.monotonic() - started:.1f} s")
    return arbiter


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("redteam")
    arbiter = _run_campaign(tmp, CASES)
    time.sleep(2)  # a process of the campaign that is just exiting gets to exit
    survivors = _campaign_processes(tmp)
    return arbiter, tmp, survivors


STATIC_OFF = [c for c in CASES if c[2].get("static_rules_off")]


@pytest.fixture(scope="module")
def static_off_campaign(tmp_path_factory):
    return _run_campaign(tmp_path_factory.mktemp("redteam-static-off"), STATIC_OFF, "--no-static-rules")


def _findings(db, evaluation_id, source=None):
    """The patterns of an evaluation's deciding findings (`info` is shown and decides nothing), only
    those from source ("static", "dynamic", "probe") where one is named."""
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT pattern, severity, evidence FROM finding WHERE evaluation_id = ?",
                            (evaluation_id,)).fetchall()
    return {p for p, severity, evidence in rows
            if severity != "info" and (source is None or json.loads(evidence).get("source") == source)}


def _outside_gain(shown):
    """The largest, over an evaluation's shapes, of the CPU its outside batch used per call over the
    time its stored timing gives a call (whatever the verdict): how much faster its score is than
    what was seen from outside (1 where the outside account timed the shape). None without one."""
    medians = {m["shape"]: m["median_ms"] for m in shown.get("measurements", []) if m["role"] == "candidate"}
    gains = [check["cpu"]["per_call_ms"] / medians[check["shape"]]
             for check in (shown.get("details") or {}).get("outside_clock", [])
             if isinstance(check.get("cpu"), dict) and medians.get(check.get("shape"))]
    return max(gains) if gains else None


def _met(arbiter, expect, row, missing):
    """Whether the case got what its expectation names, and what it gained. Met: its verdict with no
    pattern missing; or, with gain_at_most, passed (or given its verdict by a rule outside the
    patterns named) with a score at most that many times what the outside CPU account confirms."""
    if row["verdict"] == expect["verdict"] and not missing:
        return True, ""
    bound = expect.get("gain_at_most")
    gain = _outside_gain(arbiter.show(row["id"])) if bound and row["verdict"] in ("passed", expect["verdict"]) else None
    if gain is None:
        return False, ""
    return gain <= bound, f"; its times at {gain:.2f}x the score the outside CPU account confirms (at most {bound}x allowed)"


def _judged(arbiter, cases, case_id):
    """The case's expectation, its evaluation row and the patterns of its deciding findings; skips
    a case this machine does not run."""
    _, case, expect = next(c for c in cases if c[0] == case_id)
    why = _why_not(case, expect, arbiter.device)
    if why:
        pytest.skip(f"{case_id}: {why}")
    row = arbiter.evaluations()[(expect["problem"], _model(case_id), 0)]
    return expect, row, _findings(arbiter.db, row["id"])


@pytest.mark.parametrize("case_id", [case_id for case_id, _, _ in CASES])
def test_redteam_case(campaign, case_id):
    arbiter, _, _ = campaign
    expect, row, patterns = _judged(arbiter, CASES, case_id)
    wanted = expect.get(f"patterns_{arbiter.device}", expect.get("patterns", []))
    missing = sorted(set(wanted) - patterns)
    any_of = expect.get("patterns_any", [])
    if any_of and not patterns & set(any_of):
        missing.append("one of " + "/".join(any_of))
    met, gained = _met(arbiter, expect, row, missing)
    print(f"REDTEAM {case_id}: {row['verdict']} {sorted(patterns)} ({row['reason']}){gained}")
    still_open = expect.get(f"open_{arbiter.device}", expect.get("open"))
    if not met and still_open:  # a road known to be open: reported, with why, never hidden
        pytest.xfail(f"{case_id}: open road: {still_open}; got {row['verdict']} {sorted(patterns)}")
    assert met, (
        f"{case_id}: wanted {expect['verdict']} {wanted}, got {row['verdict']} with findings {sorted(patterns)} "
        f"(missing {missing}): {row['reason']}\n  case: {expect.get('note', '')}")


@pytest.mark.parametrize("case_id", [case_id for case_id, _, _ in STATIC_OFF])
def test_rejected_by_run_time_witnesses_alone(static_off_campaign, case_id):
    arbiter = static_off_campaign
    expect, row, patterns = _judged(arbiter, STATIC_OFF, case_id)
    wanted = expect.get("patterns_static_off", expect.get(f"patterns_{arbiter.device}", expect.get("patterns", [])))
    met, gained = _met(arbiter, expect, row, sorted(set(wanted) - patterns))
    print(f"REDTEAM static rules off {case_id}: {row['verdict']} {sorted(patterns)} ({row['reason']}){gained}")
    assert not _findings(arbiter.db, row["id"], "static"), f"{case_id}: a static finding under --no-static-rules"
    if not met and expect.get("open_static_off"):  # the run-time witnesses alone do not hold it yet: reported
        pytest.xfail(f"{case_id} with the static rules off: open: {expect['open_static_off']}; "
                     f"got {row['verdict']} {sorted(patterns)}")
    assert met, (
        f"{case_id} with the static rules off: wanted {expect['verdict']} {wanted}, got {row['verdict']} "
        f"with findings {sorted(patterns)}: {row['reason']}")


def test_no_process_of_the_campaign_outlives_it(campaign):
    _, _, survivors = campaign
    for pid in survivors:
        try:
            os.kill(pid, signal.SIGKILL)  # started by this campaign (its folder is in their environment)
        except OSError:
            pass
    assert not survivors, "processes of the campaign still alive after it ended:\n" + "\n".join(
        f"{pid}: {command}" for pid, command in survivors.items())


def test_nothing_left_outside_the_evaluation_folders(campaign):
    left = []
    for folder in SHARED_SCRATCH:
        try:
            names = [name for name in os.listdir(folder) if name.startswith(MARKER)]
        except OSError:
            continue
        for name in names:
            left.append(os.path.join(folder, name))
            try:
                os.unlink(os.path.join(folder, name))
            except OSError:
                pass
    assert not left, "left on the host by the campaign's evaluations: " + ", ".join(left)


def test_evaluation_folders_stay_under_the_cap(campaign):
    arbiter, tmp, _ = campaign
    over = []
    for folder in sorted((pathlib.Path(arbiter.db + ".d") / "evals").glob("*")):
        files = [p for p in folder.rglob("*") if p.is_file() and not p.is_symlink()]
        size = sum(p.stat().st_size for p in files)
        if size > FOLDER_CAP_BYTES:
            over.append(f"{folder.name}: {size / (1 << 20):.0f} MiB")
            for big in (p for p in files if p.stat().st_size > 64 << 20):
                big.unlink()  # the campaign's own scratch: do not keep GiBs in pytest's folders
    assert not over, "evaluation folders over 512 MiB after the campaign: " + ", ".join(over)
