"""GPU PageRank iterations with the vector work fused into the row-sum's last kernel.

An iteration of :mod:`dgraph.algorithms.pagerank` on one GPU shard is the
in-edge row sum (two kernels, :func:`gpu_kernels.gather_row_sum`) plus a
dozen small array operations (each vertex's share, the dangling mass, the
teleport term, the new rank, the L1 change): each a kernel launch and a pass
over a vector.  Here the row sum's second kernel also computes the new rank,
the next iteration's share and the absolute change of every vertex, reading
the dangling mass from the device, so an iteration is four kernels (row
segments, rank update, the dangling mass, the change's sum).

The arithmetic is the array path's, operation by operation and with no fused
multiply-add (``__dadd_rn``/``__dmul_rn``), so the ranks are bit-identical to
it; only the launches are fewer.
"""

from __future__ import annotations

import numpy as np

from .gpu_kernels import BLOCK, compiled

_SOURCE = r"""
typedef long long i64;
// new = base + d * sums, base = ((1 - d) + d * mass) / n  (or * teleport[r]); the array path's
// operations in its order, rounded one by one
extern "C" __global__ void rank_update(const i64* segptr, const double* partial, const double* old,
                                       const double* inv_deg, const double* mass, const double* teleport,
                                       int personalized, double d, double n, double* rank, double* share, double* diff,
                                       i64 nrows) {
    i64 r = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= nrows) return;
    double acc = 0.0;
    for (i64 s = segptr[r]; s < segptr[r + 1]; ++s) acc = __dadd_rn(acc, partial[s]);
    double head = __dadd_rn(1.0 - d, __dmul_rn(d, mass[0]));
    double base = personalized ? __dmul_rn(head, teleport[r]) : __ddiv_rn(head, n);
    double v = __dadd_rn(base, __dmul_rn(d, acc));
    rank[r] = v;
    share[r] = __dmul_rn(v, inv_deg[r]);
    diff[r] = fabs(__dadd_rn(v, -old[r]));
}
"""


def module():
    return compiled(_SOURCE, "--fmad=false")


class FusedIterations:
    """PageRank iterations on one whole-graph CuPy shard; :meth:`step` queues one and returns its
    L1 change as a 0-d device array (nothing is read back)."""

    def __init__(self, cindptr, cindices, rank, inv_deg, dangling, teleport, damping, plan):
        import cupy as cp  # noqa: PLC0415

        self.cindptr, self.cindices, self.plan = cindptr, cindices, plan
        self.n = len(cindptr) - 1
        self.inv_deg, self.dangling, self.teleport = inv_deg, dangling, teleport
        self.d = float(damping)
        self.rank = rank
        self.spare = cp.empty_like(rank)
        self.share = rank * inv_deg
        self.diff = cp.empty_like(rank)
        self.zero = cp.zeros((), dtype=np.float64)

    def step(self):
        import cupy as cp  # noqa: PLC0415

        from . import gpu_kernels  # noqa: PLC0415

        if self.n == 0:
            return self.zero
        plan = self.plan
        mass = self.rank[self.dangling].sum() if len(self.dangling) else self.zero
        gpu_kernels.row_segment_sums(self.cindptr, self.cindices, self.share, plan)
        module().get_function("rank_update")(
            ((self.n + BLOCK - 1) // BLOCK,), (BLOCK,),
            (plan.segptr, plan.partial, self.rank, self.inv_deg, mass,
             self.zero if self.teleport is None else self.teleport, cp.int32(self.teleport is not None), cp.float64(self.d),
             cp.float64(max(self.n, 1)), self.spare, self.share, self.diff, cp.int64(self.n)))
        self.rank, self.spare = self.spare, self.rank
        return self.diff.sum()


__all__ = ["FusedIterations"]
