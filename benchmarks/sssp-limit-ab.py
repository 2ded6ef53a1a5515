"""SSSP's EDGE_LIMIT (the most frontier edges a superstep of the cooperative launch takes) and
BLOCKS_PER_SM (its blocks a multiprocessor) compared in one process, the calls interleaved: rmat
(weighted, max-degree source) and the grid (corner).  A setting is LIMIT or LIMIT:BLOCKS.

    python3 benchmarks/sssp-limit-ab.py [rounds] [setting ...]
"""
import statistics
import sys
import time

import cupy as cp

import dgraph
from dgraph.bench.bfs import pick_source

rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 10
limits = sys.argv[2:] or [str(1 << 16), str(1 << 18), str(1 << 20), str(1 << 22)]
for spec, kw, where, n in (("rmat", {"scale": 20}, "max-degree", rounds),
                           ("grid", {"rows": 1000, "cols": 1000}, "corner", max(2, rounds // 4))):
    G = dgraph.generate(spec, weighted=True, backend="cupy", **kw)
    s = pick_source(G, where)
    t = {L: [] for L in limits}
    ref = None
    for r in range(n + 1):
        for L in limits:
            limit, _, blocks = L.partition(":")
            dgraph.config.sssp_steps_edge_limit = int(limit)
            dgraph.config.sssp_steps_blocks_per_sm = int(blocks or 1)
            cp.cuda.Device().synchronize()
            t0 = time.perf_counter()
            res = dgraph.sssp(G, s)
            d = res.raw("distance")
            cp.cuda.Device().synchronize()
            if r:
                t[L].append(1e3 * (time.perf_counter() - t0))
            d = cp.asnumpy(d)
            assert ref is None or (d == ref).all(), L
            ref = d
    base = statistics.median(t[limits[0]])
    print(f"{spec}: " + "; ".join(f"limit {L}: median {statistics.median(v):.3f} ms (min {min(v):.3f}, "
                                  f"{statistics.median(v) / base:.3f}x)" for L, v in t.items()), flush=True)
