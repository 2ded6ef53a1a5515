"""EMV BFS-Q against dgraph.bfs on rmat, timed in turn in one process: medians and minima of REPEAT.

    PYTHONPATH=. python3 benchmarks/emv-bfs-ab.py [SCALE=20] [REPEAT=7]

Source: the max-degree vertex; every EMV answer is checked against the built-in depths.  Run it
alternately from two checkouts (or with DGRAPH_EMV_FUSE=0) for a before/after in the same load.
"""
import sys, time, statistics, numpy as np, dgraph
from dgraph.backend import to_numpy
from dgraph.emv import examples as ex
scale = int(sys.argv[1]) if len(sys.argv) > 1 else 20
rep = int(sys.argv[2]) if len(sys.argv) > 2 else 7
t0 = time.perf_counter()
G = dgraph.generate("rmat", scale=scale, seed=1)
src = int(np.argmax(to_numpy(G.out_degree())))
print("gen", time.perf_counter() - t0, flush=True)
ex.bfs(G, src); dgraph.bfs(G, src); ex.bfs(G, src); dgraph.bfs(G, src)
ref = to_numpy(dgraph.bfs(G, src).raw("depth"))
tb, te = [], []
for _ in range(rep):
    t = time.perf_counter(); r = dgraph.bfs(G, src); to_numpy(r.raw("depth")); tb.append(time.perf_counter() - t)
    t = time.perf_counter(); r = ex.bfs(G, src); d = to_numpy(r.raw("depth")); te.append(time.perf_counter() - t)
    assert np.array_equal(d, ref)
mb, me = statistics.median(tb), statistics.median(te)
print(f"rmat{scale}: bfs median {mb*1e3:.1f} ms (min {min(tb)*1e3:.1f}), EMV BFS-Q median {me*1e3:.1f} ms (min {min(te)*1e3:.1f}); ratio median {me/mb:.2f}x, min {min(te)/min(tb):.2f}x; iterations {len(r.stats)}")
