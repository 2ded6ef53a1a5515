"""cProfile of one GPU SSSP call (rmat, weighted, max-degree source): the host's share of a run whose
device time ncu puts well under its wall time.

    python3 benchmarks/sssp-host-profile.py [scale]
"""
import cProfile
import pstats
import sys
import time

import cupy as cp

import dgraph
from dgraph.bench.bfs import pick_source

scale = int(sys.argv[1]) if len(sys.argv) > 1 else 20
G = dgraph.generate("rmat", scale=scale, weighted=True, backend="cupy")
s = pick_source(G, "max-degree")
for _ in range(3):
    dgraph.sssp(G, s).raw("distance")
cp.cuda.Device().synchronize()
t = time.perf_counter()
dgraph.sssp(G, s).raw("distance")
cp.cuda.Device().synchronize()
print(f"one call {1e3 * (time.perf_counter() - t):.2f} ms")
pr = cProfile.Profile()
pr.enable()
dgraph.sssp(G, s).raw("distance")
cp.cuda.Device().synchronize()
pr.disable()
st = pstats.Stats(pr)
st.sort_stats("tottime").print_stats(22)
