"""EMV PageRank against dgraph.pagerank and EMV BFS-Q against dgraph.bfs on rmat, each pair timed in
turn in one process: medians and minima of REPEAT, and the median of each repeat's ratio (the
two timed back to back: the steadiest under a changing load).

    PYTHONPATH=. python3 benchmarks/emv-pr-ab.py [SCALE=20] [REPEAT=5]

PageRank: 30 iterations, the EMV ranks checked against the built-in's (1e-9); BFS-Q from the
max-degree vertex, depths checked equal.  Run it alternately from two checkouts for a before/after
under the same load.
"""
import statistics
import sys
import time

import numpy as np

import dgraph
from dgraph.backend import to_numpy
from dgraph.emv import examples as ex

scale = int(sys.argv[1]) if len(sys.argv) > 1 else 20
rep = int(sys.argv[2]) if len(sys.argv) > 2 else 5
G = dgraph.generate("rmat", scale=scale, seed=1)
src = int(np.argmax(to_numpy(G.out_degree())))


def pair(name, builtin, emv, col_b, col_e, check):
    builtin(), emv(), builtin(), emv()  # compile, build the CSC and the EMV layout
    tb, te = [], []
    for _ in range(rep):
        t = time.perf_counter(); rb = to_numpy(builtin().raw(col_b)); tb.append(time.perf_counter() - t)
        t = time.perf_counter(); re = to_numpy(emv().raw(col_e)); te.append(time.perf_counter() - t)
        check(re, rb)
    mb, me = statistics.median(tb), statistics.median(te)
    pairs = statistics.median(e / b for b, e in zip(tb, te))  # each repeat's EMV / the built-in just before it
    print(f"rmat{scale} {name}: built-in median {mb*1e3:.1f} ms (min {min(tb)*1e3:.1f}), EMV median {me*1e3:.1f} ms "
          f"(min {min(te)*1e3:.1f}); ratio of medians {me/mb:.2f}x, of minima {min(te)/min(tb):.2f}x, "
          f"median of pair ratios {pairs:.2f}x", flush=True)


def close(a, b):
    assert np.abs(a - b).max() <= 1e-9, np.abs(a - b).max()


def equal(a, b):
    assert np.array_equal(a, b)


pair("PageRank 30 it", lambda: dgraph.pagerank(G, iterations=30), lambda: ex.pagerank(G, iterations=30),
     "pagerank", "rank", close)
pair("BFS-Q", lambda: dgraph.bfs(G, src), lambda: ex.bfs(G, src), "depth", "depth", equal)
