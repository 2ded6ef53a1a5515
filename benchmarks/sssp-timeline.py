"""A GPU timeline of one SSSP call (rmat, weighted, max-degree source) from CUDA events recorded
around every SSSP launch and host step: where the GPU waits for the host.

Each mark is an event recorded on the stream with the host clock beside it.  ``lag`` is how far the
GPU runs behind the host at that mark (its GPU time minus its host time, less the smallest such
difference): 0 means the GPU reached the mark as soon as the host queued it, i.e. it was idle and
waiting.  The marks cost the host a few microseconds each, so the marked call is slower than an
unmarked one (both are printed).

    python3 benchmarks/sssp-timeline.py [scale] [dgraph package dir to import instead]
"""
import collections
import sys
import time

import cupy as cp

if len(sys.argv) > 2:
    sys.path.insert(0, sys.argv[2])
import dgraph  # noqa: E402
from dgraph.algorithms import sssp as sssp_mod  # noqa: E402
from dgraph.algorithms.sssp import gpu as gpu_sssp  # noqa: E402
from dgraph.algorithms.sssp import solver as gpu_sssp_steps  # noqa: E402
from dgraph.bench.bfs import pick_source  # noqa: E402

scale = int(sys.argv[1]) if len(sys.argv) > 1 else 20
G = dgraph.generate("rmat", scale=scale, weighted=True, backend="cupy")
s = pick_source(G, "max-degree")


def call():
    return dgraph.sssp(G, s).raw("distance")


for _ in range(3):
    call()
walls = []
for _ in range(5):
    cp.cuda.Device().synchronize()
    t = time.perf_counter()
    call()
    cp.cuda.Device().synchronize()
    walls.append(1e3 * (time.perf_counter() - t))
print(f"unmarked calls: {' '.join(f'{x:.2f}' for x in walls)} ms")

marks = []
on = [False]


def mark(label):
    if on[0]:
        e = cp.cuda.Event()
        e.record()
        marks.append((label, time.perf_counter(), e))


def wrapped(f, name):
    def g(*a, **k):
        mark(name + "<")
        r = f(*a, **k)
        mark(name + ">")
        return r
    return g


for mod, names in ((gpu_sssp, ("relax", "split", "tight_parents", "init_state", "finish_parents", "block_starts",
                               "block_starts_queued")),
                   (gpu_sssp_steps, ("run",)), (sssp_mod, ("_orphans",))):
    for name in names:
        if hasattr(mod, name):
            setattr(mod, name, wrapped(getattr(mod, name), mod.__name__.rsplit(".", 1)[1] + "." + name))
sssp_mod.SSSP._next_bucket = wrapped(sssp_mod.SSSP._next_bucket, "next_bucket")
cp.cumsum = wrapped(cp.cumsum, "cumsum")


class Kernels:  # the module's kernels, each launch between two marks
    def __init__(self, m):
        self.m = m

    def get_function(self, name):
        return wrapped(self.m.get_function(name), name)


if hasattr(gpu_sssp, "module"):  # an older tree: kernels looked up on the module each launch
    module = gpu_sssp.module
    gpu_sssp.module = lambda: Kernels(module())
if hasattr(gpu_sssp, "kernel"):  # a kernel looked up once by name
    kernel = gpu_sssp.kernel
    gpu_sssp.kernel = lambda name: wrapped(kernel(name), name)

for _ in range(2):
    call()
cp.cuda.Device().synchronize()
marks.clear()
on[0] = True
t = time.perf_counter()
mark("call<")
call()
mark("call>")
cp.cuda.Device().synchronize()
print(f"marked call: {1e3 * (time.perf_counter() - t):.2f} ms, {len(marks)} marks")
on[0] = False

e0, h0 = marks[0][2], marks[0][1]
rows = [(label, 1e3 * (h - h0), cp.cuda.get_elapsed_time(e0, e)) for label, h, e in marks]
lag0 = min(g - h for _, h, g in rows)
spans = collections.defaultdict(float)   # GPU ms between consecutive marks, by (from, to)
counts = collections.Counter()
idle = 0.0
print(f"{'mark':34s} {'host ms':>8s} {'gpu ms':>8s} {'lag ms':>7s}")
for i, (label, h, g) in enumerate(rows):
    print(f"{label:34s} {h:8.3f} {g:8.3f} {g - h - lag0:7.3f}")
    if i:
        prev = rows[i - 1]
        key = (prev[0], label)
        spans[key] += g - prev[2]
        counts[key] += 1
        # the GPU reached this mark no earlier than the host queued it: the part of the span after the
        # GPU had caught up (lag ~ 0) was spent waiting for the host
        if g - h - lag0 < 0.005:
            idle += min(g - prev[2], max(0.0, (h - prev[1])))
print(f"\nGPU span {rows[-1][2]:.3f} ms; spans where the GPU had caught up with the host (waiting): ~{idle:.3f} ms")
print("\nlargest GPU spans between marks (from -> to: total ms, count):")
for key, v in sorted(spans.items(), key=lambda kv: -kv[1])[:24]:
    print(f"  {key[0]:>30s} -> {key[1]:<30s} {v:7.3f} ms  x{counts[key]}")
