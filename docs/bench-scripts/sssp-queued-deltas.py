"""GPU SSSP on rmat (weighted, max-degree source) over a range of deltas, with the fat supersteps
host-driven (DGRAPH_SSSP_QUEUED=0) and queued (=1), alternated in one process; the skip of stale rows
on in both.  Best of 3 per point, two rounds.

    python3 docs/bench-scripts/sssp-queued-deltas.py [scale] [delta ...]
"""

import os
import sys
import time

import dgraph
from dgraph.backend import to_numpy
from dgraph.bench.bfs import pick_source
from dgraph.bench.spec import load_graph

import cupy as cp

scale = sys.argv[1] if len(sys.argv) > 1 else "20"
deltas = [float(x) for x in sys.argv[2:]] or [0.03, 0.06, 0.125, 0.25, 0.5, 1.0, 4.0]
G = load_graph(generate=f"rmat:scale={scale},weighted=True", backend="cupy")
s = pick_source(G, "max-degree")
os.environ["DGRAPH_SSSP_SKIP_STALE"] = "1"
for q in ("0", "1"):
    os.environ["DGRAPH_SSSP_QUEUED"] = q
    for d in deltas:
        dgraph.sssp(G, s, delta=d)
for rnd in range(2):
    for d in deltas:
        line = []
        for q in ("0", "1"):
            os.environ["DGRAPH_SSSP_QUEUED"] = q
            tb = 1e9
            for _ in range(3):
                cp.cuda.Device().synchronize()
                t = time.perf_counter()
                r = dgraph.sssp(G, s, delta=d)
                to_numpy(r.raw("parent"))
                tb = min(tb, time.perf_counter() - t)
            st = r.stats
            relaxed = int(st["edges"].sum() - st["skipped"].sum())
            line.append(f"{'queued' if q == '1' else 'host'} {tb * 1e3:7.2f} ms")
        print(f"round {rnd} delta {d:<6} supersteps {r.supersteps:4d} relaxations {relaxed:>12,}: " + ", ".join(line),
              flush=True)
