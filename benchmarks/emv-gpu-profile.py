"""Where an EMV program's time goes on the GPU: cProfile of EMV PageRank and BFS-Q on rmat (CuPy),
next to the built-ins' wall times.  Kernel time shows up at the sync points (``.item``, ``.get``).

    python3 benchmarks/emv-gpu-profile.py [scale] [top]
"""

import cProfile
import pstats
import sys
import time

import numpy as np

import dgraph
from dgraph.backend import to_numpy
from dgraph.emv import examples as ex

scale = int(sys.argv[1]) if len(sys.argv) > 1 else 20
top = int(sys.argv[2]) if len(sys.argv) > 2 else 30
G = dgraph.generate("rmat", scale=scale, seed=1, backend="cupy")
src = int(np.argmax(to_numpy(G.out_degree())))


def timed(fn, repeat=3):
    best = 1e9
    for _ in range(repeat):
        t = time.perf_counter()
        r = fn()
        to_numpy(r.raw(r.columns[0]))
        best = min(best, time.perf_counter() - t)
    return best


jobs = [("pagerank", lambda: dgraph.pagerank(G, iterations=30)), ("emv-pagerank", lambda: ex.pagerank(G, iterations=30)),
        ("bfs", lambda: dgraph.bfs(G, src)), ("emv-bfs-q", lambda: ex.bfs(G, src))]
for name, fn in jobs:
    fn()
for name, fn in jobs:
    print(f"{name:14s} {timed(fn) * 1e3:8.2f} ms", flush=True)
for name, fn in jobs[1::2]:
    pr = cProfile.Profile()
    pr.enable()
    fn()
    pr.disable()
    print(f"\n==== {name}", flush=True)
    pstats.Stats(pr).sort_stats("tottime").print_stats(top)
