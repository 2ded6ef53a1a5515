"""CPU SSSP time, supersteps and relaxations at given deltas (one graph spec), median of 3 after a warm-up.

Usage: python3 benchmarks/sssp-cpu-sweep.py rmat:scale=20,weighted=True 0.002,0.005,0.5
"""
import sys, time, statistics
import dgraph
from dgraph.bench.bfs import pick_source
from dgraph.bench.spec import load_graph
from dgraph.algorithms.bfs import cpu as bfs_cpu
bfs_cpu.warm_up()
spec, deltas = sys.argv[1], [float(x) for x in sys.argv[2].split(",")]
G = load_graph(generate=spec)
s = pick_source(G, "max-degree" if "rmat" in spec else "corner")
for d in deltas:
    dgraph.sssp(G, s, delta=d)
    ts = []
    for _ in range(3):
        t = time.perf_counter(); r = dgraph.sssp(G, s, delta=d); ts.append(time.perf_counter() - t)
    print(f"{spec.split(':')[0]} delta={d:<6} {statistics.median(ts)*1e3:8.1f} ms  {r.supersteps:6d} steps  {int(r.stats['edges'].sum()):>12,} relaxed", flush=True)
