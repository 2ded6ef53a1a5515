"""Where EMV BFS-Q's time goes on the GPU, level by level, beside the built-in BFS's levels.

Each EMV helper that launches work (the sends' gather / push, the fused VERTEX kernel, the message
and mask expressions, the end-of-iteration read) is wrapped with a device sync before and after,
so its share is its own (the wrapped run is slower than the plain one: the plain time is printed
first).

    python3 benchmarks/emv-bfs-breakdown.py [scale]
"""

import collections
import sys
import time

import numpy as np

import dgraph
from dgraph.backend import to_numpy
from dgraph.emv import examples as ex
from dgraph.emv import device_send, kernels, rounds, runtime, sends, vertex_steps

import cupy as cp

scale = int(sys.argv[1]) if len(sys.argv) > 1 else 20
G = dgraph.generate("rmat", scale=scale, seed=1, backend="cupy")
src = int(np.argmax(to_numpy(G.out_degree())))
for _ in range(2):
    ex.bfs(G, src), dgraph.bfs(G, src), dgraph.bfs(G, src, direction="push")


def best(fn, repeat=5):
    times, out = [], None
    for _ in range(repeat):
        cp.cuda.Device().synchronize()
        t = time.perf_counter()
        out = fn()
        to_numpy(out.raw(out.columns[0]))
        times.append(time.perf_counter() - t)
    return out, min(times)


for name, fn in (("bfs auto", lambda: dgraph.bfs(G, src)), ("bfs push", lambda: dgraph.bfs(G, src, direction="push")),
                 ("emv bfs-q", lambda: ex.bfs(G, src))):
    r, t = best(fn)
    st = r.stats
    cols = [c for c in ("frontier", "messages", "edges", "direction", "time_s") if c in st.columns]
    print(f"== {name}: {t * 1e3:.2f} ms")
    print(st[cols].to_string())

spent = collections.defaultdict(float)
calls = collections.Counter()


def timed(owner, name, label=None):
    fn = getattr(owner, name)

    def wrapper(*a, **k):
        cp.cuda.Device().synchronize()
        t = time.perf_counter()
        out = fn(*a, **k)
        cp.cuda.Device().synchronize()
        spent[label or name] += time.perf_counter() - t
        calls[label or name] += 1
        return out

    setattr(owner, name, wrapper)


timed(kernels, "gather_reduce")
timed(device_send.CudaSend, "push", "CudaSend.push (compiled send)")
timed(device_send.CudaSend, "gather", "CudaSend.gather (compiled send)")
timed(kernels, "best_sent")
timed(kernels, "active_heads")
timed(sends, "evaluate", "evaluate (message / mask expressions)")
timed(vertex_steps, "cuda_kernel")
timed(rounds, "end_of_iteration")
timed(sends, "sparse_heads")
timed(runtime, "run_send", "run_send (whole)")
_, t = best(lambda: ex.bfs(G, src), repeat=1)
print(f"== emv bfs-q, synced helpers, one run: {t * 1e3:.2f} ms")
for k, v in sorted(spent.items(), key=lambda kv: -kv[1]):
    print(f"{k:45s} {calls[k]:4d} calls {v * 1e3:8.3f} ms")

import cProfile  # noqa: E402
import pstats  # noqa: E402

for name, fn in (("emv bfs-q", lambda: ex.bfs(G, src)), ("bfs auto", lambda: dgraph.bfs(G, src))):
    pr = cProfile.Profile()
    pr.enable()
    r = fn()
    to_numpy(r.raw(r.columns[0]))
    pr.disable()
    print(f"\n==== {name}, cumulative (helpers still synced for emv)")
    pstats.Stats(pr).sort_stats("cumulative").print_stats(45)
