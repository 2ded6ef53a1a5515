"""SSSP time, supersteps and relaxations against delta (rmat20 and the 1000x1000 grid), on one backend.

Usage: python3 benchmarks/sssp-delta-sweep.py [cupy|numpy] [scale] [rmat|grid]
"""
import math
import statistics
import sys
import time

import dgraph
from dgraph.bench.bfs import pick_source
from dgraph.bench.spec import load_graph

backend = sys.argv[1] if len(sys.argv) > 1 else "cupy"
scale = sys.argv[2] if len(sys.argv) > 2 else "20"
CASES = [(f"rmat:scale={scale},weighted=True", [0.125, 0.25, 0.5, 1, 2, 4, 8, 16, math.inf], "max-degree", 5),
         ("grid:rows=1000,cols=1000,weighted=True", [2, 4, 8, 16, 32, 64], "corner", 2)]
if len(sys.argv) > 3:  # only the graphs named, e.g. rmat
    CASES = [c for c in CASES if c[0].startswith(sys.argv[3])]
for spec, deltas, where, repeat in CASES:
    G = load_graph(generate=spec, backend=backend)
    s = pick_source(G, where)
    auto = dgraph.sssp(G, s).params["delta"]
    print(f"{spec} on {backend}: auto delta = {auto}", flush=True)
    for d in deltas:
        r = dgraph.sssp(G, s, delta=d)  # warm-up
        times = []
        for _ in range(repeat):
            t = time.perf_counter()
            r = dgraph.sssp(G, s, delta=d)
            times.append(time.perf_counter() - t)
        ms = statistics.median(times) * 1e3
        print(f"  delta={d:<6} {ms:10.2f} ms  {r.supersteps:6d} supersteps  "
              f"{int(r.stats['edges'].sum()):>12,} edges relaxed  {ms / max(r.supersteps, 1) * 1e3:8.1f} us/superstep",
              flush=True)
