"""GPU PageRank: the iteration's vector work fused into the row sum's last kernel, and the two sums
(dangling mass, L1 change) in one fixed order shared by the fused and the array path.

The CuPy wrappers of ``pagerank.cu`` (beside this module).  An iteration of
:mod:`dgraph.algorithms.pagerank` on one GPU shard is the in-edge row sum
(:func:`dgraph.backend.gpu_kernels.row_segment_sums`) plus a dozen small
array operations (each vertex's share, the dangling mass, the teleport term,
the new rank, the L1 change): each a kernel launch and a pass over a vector.
Here the rank update also computes the next iteration's share and, per block
of 256 vertices, the partial sums of the new dangling mass and of the
absolute change; a one-block kernel adds the block partials.  An iteration is
four kernels (row segments, hub folds, rank update, the two totals) and
nothing is read back.

The two sums are the same two-stage tree wherever a GPU computes them
(:func:`sums`, used by the array path too): a warp-shuffle tree in each block
of 256 values, then one block adding the block partials, thread t those of
blocks t, t + 256, ... in order, and a tree.  The arithmetic is the array
path's, operation by operation and with no fused multiply-add
(``__dadd_rn``/``__dmul_rn``), so the fused ranks and L1 changes are
bit-identical to it; only the launches are fewer.
"""

from __future__ import annotations

import numpy as np

from ...cuda import BLOCK, function, source

#: the CUDA source (pagerank.cu, a package resource; compiled with --fmad=false)
_SOURCE = source(__package__, "pagerank.cu")


def kernel(name):
    """A kernel of this module (:func:`dgraph.cuda.function`)."""
    return function(_SOURCE, name, "--fmad=false")


def _blocks(n):
    return (n + BLOCK - 1) // BLOCK


def sums(rank, inv_deg, old=None):
    """(dangling mass, L1 change from ``old``) of a rank vector, two 0-d device arrays (the change 0
    without ``old``), added in the fixed order the fused iteration uses."""
    import cupy as cp  # noqa: PLC0415

    n = len(rank)
    out = cp.zeros(2, dtype=np.float64)
    if n:
        nb = _blocks(n)
        part = cp.empty(2 * nb, dtype=np.float64)
        kernel("sum_parts")((nb,), (BLOCK,), (rank, rank if old is None else old, inv_deg, part, cp.int64(n)))
        kernel("sum_totals")((1,), (BLOCK,), (part, cp.int64(nb), out[0:1], out[1:2]))
    return out[0], out[1]


def owned_update(cindptr, cindices, share, plan, old, inv_deg, mass, teleport, damping, n, out, share_out):
    """One iteration for a shard's owned vertices (rows of ``cindptr``): their in-edge sums from the
    whole ``share`` vector, then ``out`` = their new ranks and ``share_out`` = their new shares (rank /
    out-degree; the array path's bits) (``old``, ``inv_deg``, ``teleport``: the owned
    slices; ``mass``: the whole graph's dangling mass, a device scalar; ``n``: the graph's vertices);
    -> a device array [dangling mass of the new owned ranks, their L1 change], nothing read back."""
    import cupy as cp  # noqa: PLC0415

    from ...backend import gpu_kernels  # noqa: PLC0415

    nrows = len(cindptr) - 1
    sums2 = cp.zeros(2, dtype=np.float64)
    if nrows <= 0:
        return sums2
    nb = _blocks(nrows)
    part = cp.empty(2 * nb, dtype=np.float64)
    gpu_kernels.row_segment_sums(cindptr, cindices, share, plan)
    kernel("rank_update")(
        (nb,), (BLOCK,),
        (plan.segptr, plan.segend, plan.partial, old, inv_deg, mass,
         cp.zeros((), dtype=np.float64) if teleport is None else teleport, cp.int32(teleport is not None),
         cp.float64(damping), cp.float64(n), out, share_out, part, cp.int64(nrows)))
    kernel("sum_totals")((1,), (BLOCK,), (part, cp.int64(nb), sums2[0:1], sums2[1:2]))
    return sums2


class FusedIterations:
    """PageRank iterations on one whole-graph CuPy shard; :meth:`step` queues one and returns its
    L1 change as a 0-d device array (nothing is read back).  Weighted (``w_in``: each in-edge's
    weight, ``ident``: 0..m-1), an iteration first forms the products ``w_in * share[cindices]``
    (two array operations) and the row sums add those up."""

    def __init__(self, cindptr, cindices, rank, inv_deg, teleport, damping, plan, w_in=None, ident=None):
        import cupy as cp  # noqa: PLC0415

        self.cindptr, self.cindices, self.plan = cindptr, cindices, plan
        # weighted: the row sums add up the edge array w_in * share[cindices] (over ``ident``, 0..m-1)
        self.w_in, self.ident = w_in, ident
        self.products = None if w_in is None else cp.empty(len(w_in), dtype=np.float64)
        self.n = len(cindptr) - 1
        self.inv_deg, self.teleport = inv_deg, teleport
        self.d = float(damping)
        self.rank = rank
        self.spare = cp.empty_like(rank)
        self.share = rank * inv_deg
        self.part = cp.empty(2 * _blocks(self.n), dtype=np.float64)
        self.mass = sums(rank, inv_deg)[0]
        self.zero = cp.zeros((), dtype=np.float64)

    def step(self):
        import cupy as cp  # noqa: PLC0415

        from ...backend import gpu_kernels  # noqa: PLC0415

        if self.n == 0:
            return self.zero
        plan, n, nb = self.plan, self.n, _blocks(self.n)
        if self.w_in is None:
            gpu_kernels.row_segment_sums(self.cindptr, self.cindices, self.share, plan)
        else:
            cp.take(self.share, self.cindices, out=self.products)
            cp.multiply(self.w_in, self.products, out=self.products)
            gpu_kernels.row_segment_sums(self.cindptr, self.ident, self.products, plan)
        kernel("rank_update")(
            (nb,), (BLOCK,),
            (plan.segptr, plan.segend, plan.partial, self.rank, self.inv_deg, self.mass,
             self.zero if self.teleport is None else self.teleport, cp.int32(self.teleport is not None),
             cp.float64(self.d), cp.float64(n), self.spare, self.share, self.part, cp.int64(n)))
        out = cp.empty(2, dtype=np.float64)  # the next iteration's dangling mass, this one's change
        kernel("sum_totals")((1,), (BLOCK,), (self.part, cp.int64(nb), out[0:1], out[1:2]))
        self.mass = out[0:1]
        self.rank, self.spare = self.spare, self.rank
        return out[1]


__all__ = ["FusedIterations", "owned_update", "sums"]
