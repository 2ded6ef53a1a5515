"""The round trip of one tiny kernel and a read of its 8 counters back on the host, four ways: CuPy's
``get()``, ``get(out=)`` into pinned memory, the kernel writing straight into mapped pinned host
memory then a stream sync, and the same with a sync on an event.  What one host-driven superstep's
read costs beyond the kernels (docs/BENCHMARKS.md).

    python3 benchmarks/read-latency.py [rounds]
"""
import statistics
import sys
import time

import cupy as cp
import numpy as np

N = int(sys.argv[1]) if len(sys.argv) > 1 else 3000
k = cp.RawKernel(r'''extern "C" __global__ void bump(unsigned long long* c, unsigned long long* r) {
    for (int j = 0; j < 8; ++j) { r[j] = c[j]; c[j] += j + 1; }
}''', "bump")
c = cp.zeros(8, cp.uint64)
r = cp.zeros(8, cp.uint64)
mem = cp.cuda.alloc_pinned_memory(64)
h = np.frombuffer(mem, np.uint64, 8)
stream = cp.cuda.get_current_stream()
ev = cp.cuda.Event(block=False, disable_timing=True)


def via_get():
    k((1,), (1,), (c, r))
    return r.get().tolist()


def via_get_pinned():
    k((1,), (1,), (c, r))
    r.get(out=h)
    return h.tolist()


def via_mapped():
    k((1,), (1,), (c, np.uint64(mem.ptr)))
    stream.synchronize()
    return h.tolist()


def via_mapped_event():
    k((1,), (1,), (c, np.uint64(mem.ptr)))
    ev.record()
    ev.synchronize()
    return h.tolist()


ways = [via_get, via_get_pinned, via_mapped, via_mapped_event]
expect = None
for f in ways:  # the same counts come back every way
    a = f()
    b = f()
    assert [y - x for x, y in zip(a, b)] == list(range(1, 9)), (f.__name__, a, b)
res = {f.__name__: [] for f in ways}
for _ in range(5):
    for f in ways:
        t = time.perf_counter()
        for _ in range(N):
            f()
        res[f.__name__].append((time.perf_counter() - t) / N * 1e6)
for name, v in res.items():
    print(f"{name:18s} median {statistics.median(v):6.1f} us a round trip (min {min(v):.1f})")
