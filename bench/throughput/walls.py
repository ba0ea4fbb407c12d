"""Where each evaluation of a results database spent its wall time (details.wall), one markdown row
per evaluation: python3 bench/throughput/walls.py results.db"""
import json, sqlite3, sys
c = sqlite3.connect(sys.argv[1])
rows = c.execute("""select e.id, p.key, m.name, e.verdict, e.speedup, e.wall_s, e.details_json, e.reason
                    from evaluation e join solution s on s.id = e.solution_id join problem p on p.id = s.problem_id
                    join model m on m.id = s.model_id order by e.id""").fetchall()
print("| id | problem | model | verdict | speedup | wall s | reference_s | build_wait_s | candidate_process_s | judge_s | prune_s | probe |")
print("|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|")
for r in rows:
    d = json.loads(r[6] or "{}")
    w = d.get("wall", {})
    probe = d.get("probe")
    ptxt = "object" if isinstance(probe, dict) else str(probe)[:30]
    f = lambda k: "%.1f" % w[k] if k in w else "—"
    sp = "%.2f" % r[4] if r[4] is not None else "—"
    print(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} | {sp} | {r[5]:.1f} | {f('reference_s')} | {f('build_wait_s')} | {f('candidate_process_s')} | {f('judge_s')} | {f('prune_s')} | {ptxt} |")
    if r[3] not in ("passed", "incorrect"): print("  reason:", r[7][:300])
