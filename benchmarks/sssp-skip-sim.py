"""How many relaxations frontier SSSP makes on rmat (weighted, max-degree source, delta = inf), in a
numpy simulation: the frontier relaxed all at once from a snapshot (what every kernel set did), or
in sequential chunks (a stand-in for the GPU's waves of blocks) that skip a row whose distance an
earlier chunk already lowered ("skip"), or that read the live distance instead ("live").

    python3 benchmarks/sssp-skip-sim.py [scale]
"""

import sys
import time

import numpy as np

from dgraph.bench.bfs import pick_source
from dgraph.bench.spec import load_graph

scale = int(sys.argv[1]) if len(sys.argv) > 1 else 18
G = load_graph(generate=f"rmat:scale={scale},weighted=True", backend="numpy")
s = int(pick_source(G, "max-degree"))
indptr, indices, w = np.asarray(G.indptr), np.asarray(G.indices), np.asarray(G.weights)
n = len(indptr) - 1
rng = np.random.default_rng(1)


def edges_of(rows):
    deg = indptr[rows + 1] - indptr[rows]
    starts = np.repeat(indptr[rows] - np.concatenate([[0], np.cumsum(deg)[:-1]]), deg)
    return np.repeat(np.arange(len(rows)), deg), starts + np.arange(int(deg.sum()))


def run(chunks, mode):
    dist = np.full(n, np.inf)
    dist[s] = 0
    front, relaxed, steps = np.array([s]), 0, 0
    while len(front):
        steps += 1
        start = dist.copy()
        front = front[rng.permutation(len(front))]
        snap = dist[front].copy()
        for part in np.array_split(np.arange(len(front)), chunks):
            rows, d = front[part], snap[part]
            if mode == "skip":
                keep = dist[rows] >= d
                rows, d = rows[keep], d[keep]
            elif mode == "live":
                d = dist[rows]
            k, eid = edges_of(rows)
            relaxed += len(eid)
            np.minimum.at(dist, indices[eid], d[k] + w[eid])
        front = np.flatnonzero(dist < start)
    return relaxed, steps, dist


print(f"rmat{scale}: {n:,} vertices, {len(indices):,} arcs, source {s}")
ref = None
for chunks, mode in [(1, "snapshot"), (8, "skip"), (32, "skip"), (8, "live"), (32, "live")]:
    t = time.perf_counter()
    r, st, d = run(chunks, mode)
    ref = d if ref is None else ref
    print(f"{mode:8s} chunks {chunks:3d}: {r:,} relaxations ({r / len(indices):.2f} an arc), {st} supersteps, "
          f"same distances {np.array_equal(d, ref)}, {time.perf_counter() - t:.1f} s")
