"""Where a dgraph.pagerank call's time goes on one GPU: wall time, the engine's run_time, and the
iterations' own device time (the CUDA events in the per-iteration records); --profile adds a cProfile of
one call.  Compare code versions by PYTHONPATH, alternating processes.

    python3 benchmarks/pagerank-overhead.py [--scale 20] [--repeat 10] [--profile]
"""
import argparse
import cProfile
import pstats
import statistics
import time

import cupy as cp

import dgraph

ap = argparse.ArgumentParser()
ap.add_argument("--scale", type=int, default=20)
ap.add_argument("--repeat", type=int, default=10)
ap.add_argument("--iterations", type=int, default=20)
ap.add_argument("--profile", action="store_true")
a = ap.parse_args()

G = dgraph.generate("rmat", scale=a.scale, backend="cupy")
call = lambda: dgraph.pagerank(G, damping=0.85, iterations=a.iterations)  # noqa: E731
call()
wall, run, dev = [], [], []
for _ in range(a.repeat):
    t = time.perf_counter()
    r = call()
    wall.append(time.perf_counter() - t)
    run.append(r.run_time)
    dev.append(float(r.stats["time_s"].sum()))
med = lambda xs: statistics.median(xs) * 1e3 / a.iterations  # noqa: E731
print(f"{dgraph.__file__}: per iteration, median of {a.repeat}: wall {med(wall):.3f} ms (min "
      f"{min(wall) * 1e3 / a.iterations:.3f}), run_time {med(run):.3f}, device iterations {med(dev):.3f}")
if a.profile:
    cp.cuda.Device().synchronize()
    pr = cProfile.Profile()
    pr.enable()
    call()
    pr.disable()
    pstats.Stats(pr).sort_stats("tottime").print_stats(18)
