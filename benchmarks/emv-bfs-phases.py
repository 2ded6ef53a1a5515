"""EMV BFS-Q on one GPU, phase by phase: set-up (init), each superstep, the end-of-superstep
bookkeeping (receive), finish, and the result's copy to the host, each bracketed by a device sync
(the sum runs a little over the plain time, printed first), beside the built-in BFS's plain time.

    python3 benchmarks/emv-bfs-phases.py [scale] [repeat]
"""

import collections
import sys
import time

import numpy as np

import dgraph
from dgraph.backend import to_numpy
from dgraph.emv import examples as ex
from dgraph.emv import runtime

import cupy as cp

scale = int(sys.argv[1]) if len(sys.argv) > 1 else 20
repeat = int(sys.argv[2]) if len(sys.argv) > 2 else 5
G = dgraph.generate("rmat", scale=scale, seed=1, backend="cupy")
src = int(np.argmax(to_numpy(G.out_degree())))
sync = cp.cuda.Device().synchronize


def plain(fn):
    best = 1e9
    for _ in range(repeat):
        sync()
        t = time.perf_counter()
        r = fn()
        to_numpy(r.raw(r.columns[0]))
        best = min(best, time.perf_counter() - t)
    return best


jobs = (("bfs auto", lambda: dgraph.bfs(G, src)), ("bfs push", lambda: dgraph.bfs(G, src, direction="push")),
        ("emv bfs-q", lambda: ex.bfs(G, src)))
for _, fn in jobs:
    fn()
for name, fn in jobs:
    print(f"{name:10s} {plain(fn) * 1e3:7.2f} ms (best of {repeat})")

spent = collections.defaultdict(list)


def timed(owner, name):
    fn = getattr(owner, name)

    def wrapper(*a, **k):
        sync()
        t = time.perf_counter()
        out = fn(*a, **k)
        sync()
        spent[name].append(time.perf_counter() - t)
        return out

    setattr(owner, name, wrapper)
    return fn


for name in ("init", "initial_report", "superstep", "receive", "finish"):
    timed(runtime.EMVRun, name)
runs = []
for _ in range(repeat):
    spent.clear()
    sync()
    t0 = time.perf_counter()
    r = ex.bfs(G, src)
    t1 = time.perf_counter()
    to_numpy(r.raw(r.columns[0]))
    t2 = time.perf_counter()
    runs.append((t2 - t0, t1 - t0, t2 - t1, {k: list(v) for k, v in spent.items()}))
total, call, copy, parts = min(runs, key=lambda x: x[0])
print(f"\nemv bfs-q with synced phases: {total * 1e3:.2f} ms (run() {call * 1e3:.2f}, result to host {copy * 1e3:.2f})")
inside = 0.0
for k, v in parts.items():
    inside += sum(v)
    print(f"  {k:15s} {len(v):3d} calls {sum(v) * 1e3:7.3f} ms  [{' '.join(f'{x * 1e3:.3f}' for x in v)}]")
print(f"  {'outside these':15s}           {(call - inside) * 1e3:7.3f} ms (make, specs, shard, Result)")
