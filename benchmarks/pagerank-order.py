"""PageRank iterations on one GPU: the graph's own vertex order against a degree order (hubs first).

Prototype measurement (issue 5): the row sums gather share[u] for every in-edge u->v; on an rmat graph
whose labels are randomly permuted (Graph500) the hubs' shares are spread over the whole vector, so most
gathers touch their own 32-byte sector.  Renumbering the vertices by decreasing degree packs the most
read shares into a few cache lines.  Each row keeps its edges in the same order, so each rank is the
same sum in the same order: the ranks must come back bit-identical after the inverse permutation.

    python3 benchmarks/pagerank-order.py [--scale 20] [--repeat 10] [--iterations 20] [--ncu]
"""
import argparse
import time

import cupy as cp

import dgraph
from dgraph.backend.gpu_kernels import RowSumPlan
from dgraph.algorithms.pagerank.gpu import FusedIterations

ap = argparse.ArgumentParser()
ap.add_argument("--scale", type=int, default=20)
ap.add_argument("--repeat", type=int, default=10)
ap.add_argument("--iterations", type=int, default=20)
ap.add_argument("--ncu", help="a variant's name start ('given', 'out'): three iterations of it alone, for ncu")
a = ap.parse_args()

G = dgraph.generate("rmat", scale=a.scale, backend="cupy")
indptr, indices, _ = G.csc(edge_ids=False)
n = G.num_vertices
outdeg = G.out_degree().astype(cp.int64)


def relabel(indptr, indices, key):
    """(indptr', indices', newid): rows renumbered by decreasing key (stable), each row's edges kept in
    order with their ids renumbered."""
    t0 = time.perf_counter()
    order = cp.lexsort(cp.stack([cp.arange(n, dtype=cp.int64), -key]))
    newid = cp.empty(n, dtype=cp.int64)
    newid[order] = cp.arange(n, dtype=cp.int64)
    deg = cp.diff(indptr)[order]
    nptr = cp.zeros(n + 1, dtype=cp.int64)
    cp.cumsum(deg, out=nptr[1:])
    m = int(nptr[-1])
    pos = cp.arange(m, dtype=cp.int64)
    row = cp.searchsorted(nptr, pos, side="right") - 1
    old = indptr[order][row] + (pos - nptr[row])
    nind = newid[indices[old]].astype(indices.dtype)
    cp.cuda.Device().synchronize()
    return nptr, nind, newid, time.perf_counter() - t0


def run(indptr, indices, deg, iters):
    degf = deg.astype(cp.float64)
    inv = cp.where(degf > 0, 1.0 / cp.maximum(degf, 1.0), 0.0)
    f = FusedIterations(indptr, indices, cp.full(n, 1.0 / n), inv, None, 0.85, RowSumPlan(indptr))
    e0, e1 = cp.cuda.Event(), cp.cuda.Event()
    e0.record()
    for _ in range(iters):
        f.step()
    e1.record()
    e1.synchronize()
    return cp.cuda.get_elapsed_time(e0, e1) / iters, f.rank


variants = {"given order": (indptr, indices, outdeg, None)}
for name, key in (("out-degree order", outdeg),):
    p, i, newid, secs = relabel(indptr, indices, key)
    print(f"{name}: relabel {secs * 1e3:.1f} ms (one time)")
    variants[name] = (p, i, outdeg[cp.argsort(newid)], newid)

ref = None
for name, (p, i, deg, newid) in variants.items():
    _, r = run(p, i, deg, a.iterations)
    r = r if newid is None else r[newid]
    if ref is None:
        ref = r
    print(f"{name}: ranks bit-identical to the given order: {bool((r == ref).all())}, max |diff| "
          f"{float(cp.abs(r - ref).max()):.3g}")
if a.ncu:  # ncu --profile-from-start off: only these iterations
    for name, (p, i, deg, newid) in variants.items():
        if not name.startswith(a.ncu):
            continue
        cp.cuda.Device().synchronize()
        cp.cuda.profiler.start()
        run(p, i, deg, 3)
        cp.cuda.profiler.stop()
    raise SystemExit
for rep in range(a.repeat):
    print(" | ".join(f"{name} {run(p, i, deg, a.iterations)[0]:.3f} ms/iter"
                     for name, (p, i, deg, newid) in variants.items()))
