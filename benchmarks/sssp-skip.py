"""GPU SSSP with and without the skip of stale frontier rows (DGRAPH_SSSP_SKIP_STALE), alternated in
one process: best-of time, supersteps, frontier edges, edges skipped, relaxations, and whether the
answers are equal; then a cProfile of one run (host time per function).

    python3 benchmarks/sssp-skip.py [rmat scale] [grid side] [profile]
"""

import cProfile
import os
import pstats
import sys
import time

import numpy as np

import dgraph
from dgraph.backend import to_numpy
from dgraph.bench.bfs import pick_source
from dgraph.bench.spec import load_graph

import cupy as cp

scale = sys.argv[1] if len(sys.argv) > 1 else "20"
side = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
profile = "profile" in sys.argv


def best(G, s, repeat):
    t_best, out = 1e9, None
    for _ in range(repeat):
        cp.cuda.Device().synchronize()
        t = time.perf_counter()
        out = dgraph.sssp(G, s)
        to_numpy(out.raw("parent"))
        t_best = min(t_best, time.perf_counter() - t)
    return out, t_best


graphs = [(f"rmat{scale}", load_graph(generate=f"rmat:scale={scale},weighted=True", backend="cupy"), "max-degree", 5)]
if side:
    graphs.append((f"grid{side}", load_graph(generate=f"grid:rows={side},cols={side},weighted=True",
                                             backend="cupy"), "corner", 3))
for name, G, how, repeat in graphs:
    s = pick_source(G, how) if how != "corner" else 0
    modes = {"plain": "0", "skip": "1"}

    def use(mode):
        os.environ["DGRAPH_SSSP_SKIP_STALE"] = modes[mode]

    for mode in modes:
        use(mode)
        dgraph.sssp(G, s)
    answers = {}
    for rnd in range(3):
        for mode in modes:
            use(mode)
            r, t = best(G, s, repeat)
            st = r.stats
            edges = int(st["edges"].sum())
            skipped = int(st["skipped"].sum()) if "skipped" in st.columns else 0
            answers[mode] = (to_numpy(r.raw("distance")), to_numpy(r.raw("parent")))
            print(f"{name} round {rnd} {mode}: {t * 1e3:.2f} ms, {r.supersteps} supersteps, delta "
                  f"{r.params['delta']}, frontier edges {edges:,}, skipped {skipped:,}, relaxations "
                  f"{edges - skipped:,}, hop pass {r.params.get('hop_pass', 0)}", flush=True)
    same = all(np.array_equal(a, b) for m in modes for a, b in zip(answers["plain"], answers[m]))
    print(f"{name}: answers equal in every mode: {same}")
    if name.startswith("rmat"):
        print(f"records of the last run ({mode}):")
        cols = [c for c in ("frontier", "edges", "skipped", "improved", "far", "time_s") if c in st.columns]
        print(st[cols].to_string())

if profile:
    G, s = graphs[0][1], pick_source(graphs[0][1], "max-degree")
    os.environ["DGRAPH_SSSP_SKIP_STALE"] = "1"
    pr = cProfile.Profile()
    pr.enable()
    for _ in range(5):
        r = dgraph.sssp(G, s)
        to_numpy(r.raw("parent"))
    pr.disable()
    pstats.Stats(pr).sort_stats("tottime").print_stats(25)
