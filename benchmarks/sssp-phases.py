"""Where one GPU SSSP run's wall time goes, call by call: each program step and kernel wrapper is
timed with a device sync after it (so a call's time is its host work plus the GPU work it queued).

    python3 benchmarks/sssp-phases.py [rmat scale]
"""

import sys
import time
from collections import defaultdict

import dgraph
from dgraph.algorithms import sssp as S
from dgraph.algorithms.sssp import gpu, solver
from dgraph.backend import to_numpy
from dgraph.bench.bfs import pick_source
from dgraph.bench.spec import load_graph

import cupy as cp

scale = sys.argv[1] if len(sys.argv) > 1 else "20"
G = load_graph(generate=f"rmat:scale={scale},weighted=True", backend="cupy")
s = pick_source(G, "max-degree")
for _ in range(3):
    to_numpy(dgraph.sssp(G, s).raw("parent"))

log = []
sync = cp.cuda.Device().synchronize


def timed(owner, name, label=None):
    real = getattr(owner, name)

    def wrapper(*a, **k):
        sync()
        t = time.perf_counter()
        out = real(*a, **k)
        sync()
        log.append((label or name, time.perf_counter() - t))
        return out

    setattr(owner, name, wrapper)


for name in ("init", "run_steps", "superstep", "receive", "final_contribution", "finish"):
    timed(S.SSSP, name, "SSSP." + name)
for name in ("frontier_scan", "relax", "split", "tight_parents"):
    timed(gpu, name, "gpu." + name)
timed(solver, "run", "solver.run")
timed(S, "_orphans")
timed(S, "graph_summary")

for rnd in range(2):
    log.clear()
    sync()
    t0 = time.perf_counter()
    r = dgraph.sssp(G, s)
    to_numpy(r.raw("parent"))
    total = time.perf_counter() - t0
    print(f"round {rnd}: {total * 1e3:.2f} ms (with a sync after every timed call)")
    sums = defaultdict(lambda: [0, 0.0])
    for name, t in log:
        sums[name][0] += 1
        sums[name][1] += t
    for name, (n, t) in sums.items():
        print(f"  {name:28s} {n:3d} calls {t * 1e3:8.3f} ms")
    if rnd == 1:
        print("sequence:")
        for name, t in log:
            print(f"  {name:28s} {t * 1e6:9.1f} us")
