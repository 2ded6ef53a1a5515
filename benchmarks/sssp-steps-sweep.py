"""SSSP on one GPU: the cooperative many-supersteps launch (dgraph/algorithms/sssp/solver.py) against the host-driven
supersteps (DGRAPH_SSSP_STEPS=0), over deltas, on rmat20 and the 1000x1000 grid.

Usage: python3 benchmarks/sssp-steps-sweep.py [rmat-deltas] [grid-deltas]  (comma lists)
"""
import os
import statistics
import sys
import time

import dgraph
from dgraph.bench.bfs import pick_source
from dgraph.bench.spec import load_graph


def floats(arg, default):
    return [float(x) for x in arg.split(",")] if arg else default


HOST_DELTAS = floats(os.environ.get("HOST_DELTAS", ""), [4.0, 32.0])  # the host path is run for these only
rmat_d = floats(sys.argv[1] if len(sys.argv) > 1 else "", [0.01, 0.03, 0.06, 0.125, 0.25, 1.0, 4.0])
grid_d = floats(sys.argv[2] if len(sys.argv) > 2 else "", [2.0, 4.0, 8.0, 32.0])
for spec, deltas, where, repeat in [("rmat:scale=20,weighted=True", rmat_d, "max-degree", 5),
                                    ("grid:rows=1000,cols=1000,weighted=True", grid_d, "corner", 3)]:
    G = load_graph(generate=spec, backend="cupy")
    s = pick_source(G, where)
    print(f"{spec}: auto delta {dgraph.sssp(G, s).params['delta']}, "
          f"DGRAPH_SSSP_BLOCKS_PER_SM={os.environ.get('DGRAPH_SSSP_BLOCKS_PER_SM', '2 (default)')}", flush=True)
    ref = None
    for d in deltas:
        for steps in ("0", "1"):
            if steps == "0" and d not in HOST_DELTAS:
                continue
            os.environ["DGRAPH_SSSP_STEPS"] = steps
            r = dgraph.sssp(G, s, delta=d)
            times = []
            for _ in range(repeat):
                t = time.perf_counter()
                r = dgraph.sssp(G, s, delta=d)
                times.append(time.perf_counter() - t)
            dist = r.raw("distance").get()
            if ref is None:
                ref = dist
            same = (dist == ref).all()
            ms = statistics.median(times) * 1e3
            print(f"  delta={d:<6} steps={steps} {ms:9.2f} ms (min {min(times) * 1e3:8.2f})  {r.supersteps:5d} supersteps"
                  f"  {int(r.stats['edges'].sum()):>12,} relaxed  same={same}", flush=True)
