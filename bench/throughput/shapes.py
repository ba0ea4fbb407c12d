"""Per-shape device times of the passing evaluations of a results database, eager beside the
candidate, as a markdown table: python3 bench/throughput/shapes.py results.db"""
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
rows = c.execute("""select p.key, m.name, me.shape, me.role, me.median_ms, me.samples, me.rel_noise, me.speedup, me.method, me.evaluation_id, me.id
 from measurement me join evaluation e on e.id=me.evaluation_id join solution s on s.id=e.solution_id
 join problem p on p.id=s.problem_id join model m on m.id=s.model_id where e.verdict='passed' order by me.evaluation_id, me.id""").fetchall()
base = {}
print("| problem | model | shape | eager ms | candidate ms | speedup | method |")
print("|---|---|---|---:|---:|---:|---|")
for r in rows:
    if r[3] == 'baseline': base[(r[9], r[2])] = r[4]; continue
    b = base.get((r[9], r[2]))
    print(f"| {r[0]} | {r[1]} | {r[2]} | {b:.4f} | {r[4]:.4f} | {r[7]:.2f}× | {r[8]} |" if b else f"| {r[0]} | {r[1]} | {r[2]} | — | {r[4]:.4f} | — | {r[8]} |")
