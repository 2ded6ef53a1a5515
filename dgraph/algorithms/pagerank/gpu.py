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


def owned_update(cindptr, cindices, share, plan, old, inv_deg, mass, teleport, damping, n, out, share_out,
                 split=None):
    """One iteration for a shard's owned vertices (rows of ``cindptr``): their in-edge sums from the
    whole ``share`` vector, then ``out`` = their new ranks and ``share_out`` = their new shares (rank /
    out-degree; the array path's bits) (``old``, ``inv_deg``, ``teleport``: the owned
    slices; ``mass``: the whole graph's dangling mass, a device scalar; ``n``: the graph's vertices);
    -> a device array [dangling mass of the new owned ranks, their L1 change], nothing read back.
    With ``split`` (:class:`SplitInEdges`, whose local half's sums are already queued), only the
    other half is summed here, and ``cindptr``, ``cindices`` and ``plan`` are unread."""
    import cupy as cp  # noqa: PLC0415

    from ...backend import gpu_kernels  # noqa: PLC0415

    nrows = len(old)
    if nrows <= 0:
        return cp.zeros(2, dtype=np.float64)
    sums2 = cp.empty(2, dtype=np.float64)  # sum_totals writes both (a new array: the contribution carries it)
    nb = _blocks(nrows)
    part = cp.empty(2 * nb, dtype=np.float64)
    # without a teleport vector the kernel never reads it: ``old`` stands in (no allocation a superstep)
    tail = (old, inv_deg, mass, old if teleport is None else teleport,
            cp.int32(teleport is not None), cp.float64(damping), cp.float64(n), out, share_out, part, cp.int64(nrows))
    if split is None:
        gpu_kernels.row_segment_sums(cindptr, cindices, share, plan)
        kernel("rank_update")((nb,), (BLOCK,), (plan.segptr, plan.segend, plan.partial) + tail)
    else:
        lp, rp = split.local[2], split.remote[2]
        cp.cuda.get_current_stream().wait_event(split.local_done)
        gpu_kernels.row_segment_sums(split.remote[0], split.remote[1], share, rp)
        kernel("rank_update_split")((nb,), (BLOCK,),
                                    (lp.segptr, lp.segend, lp.partial, rp.segptr, rp.segend, rp.partial) + tail)
    kernel("sum_totals")((1,), (BLOCK,), (part, cp.int64(nb), sums2[0:1], sums2[1:2]))
    return sums2


class SplitInEdges:
    """A partition's in-edges cut in two by where each source lives: ``local`` (the sources it owns,
    as local rows) and ``remote`` (the others, as global ids), each ``(indptr, indices, plan)``.

    Why: the sums over the local half need only this shard's own new shares, so they run on a side
    stream while the exchange brings the other shards' shares (:meth:`queue_local`), and only the
    remote half waits for it.  On 4 GPUs at rmat26 the exchange was 2 ms of an 11.5 ms superstep,
    with nothing else running.  Built once per shard (:meth:`Shard.cached`); it costs a second
    copy of the in-edge indices, so :func:`split_in_edges` builds it only where the device has room."""

    def __init__(self, shard):
        import cupy as cp  # noqa: PLC0415

        from ...backend.gpu_kernels import RowSumPlan  # noqa: PLC0415
        from ...cuda import dtype_suffix  # noqa: PLC0415

        cindptr, cindices, _ = shard.csc(edge_ids=False)
        nrows = shard.num_rows
        lo, local_of = shard.row_base, cp.empty(1, dtype=cp.int64)  # ranges: a source's row is s - lo
        if not shard.contiguous:
            local_of = cp.full(shard.n, -1, dtype=cp.int64)
            local_of[shard.rows] = cp.arange(nrows, dtype=cp.int64)
        mapped = cp.int32(not shard.contiguous)
        kern = kernel("split_rows_" + dtype_suffix(cindices.dtype))
        grid = ((nrows * 32 + BLOCK - 1) // BLOCK,)
        lptr = cp.zeros(nrows + 1, dtype=cp.int64)
        if nrows:
            kern(grid, (BLOCK,), (cindptr, cindices, cp.int64(lo), cp.int64(nrows), local_of, mapped, lptr[1:], lptr,
                                  cindices, cindices, cp.int64(nrows), cp.int32(0)))
            cp.cumsum(lptr[1:], out=lptr[1:])
        rptr = cindptr.astype(cp.int64) - lptr
        lidx = cp.empty(int(lptr[-1]), dtype=cindices.dtype)
        ridx = cp.empty(int(rptr[-1]), dtype=cindices.dtype)
        if nrows:
            kern(grid, (BLOCK,), (cindptr, cindices, cp.int64(lo), cp.int64(nrows), local_of, mapped, lptr, lptr,
                                  lidx, ridx, cp.int64(nrows), cp.int32(1)))
        self.local = (lptr, lidx, RowSumPlan(lptr))
        self.remote = (rptr, ridx, RowSumPlan(rptr))
        # the local sums' own stream (kept: a run's last, unread sums finish before the next run's
        # queue behind them), and the events ordering it against the current stream
        self.side = cp.cuda.Stream(non_blocking=True)
        self.share_own = self.written = self.local_done = None

    @staticmethod
    def nbytes(shard):
        """About what building one needs on the device: the indices again, two row offsets and two
        row-sum plans (a segment per 64 arcs and per row, each 16 bytes, 48 a row for the offsets)."""
        m, rows = shard.num_arcs, shard.num_rows
        return m * shard.indices.dtype.itemsize + rows * 64 + (m // 64 + 2 * rows) * 16 + shard.n * 8 * (
            not shard.contiguous)

    def start(self, share_own):
        """A new run from ``share_own`` (this shard's first shares, in local row order): the local
        half's first sums queued."""
        self.mark_written(share_own)
        self.queue_local()

    def mark_written(self, share_own):
        """``share_own``: the shares the next local sums read, written by what the current stream has
        queued so far (call it before the exchange is queued, which the local sums must not wait for)."""
        import cupy as cp  # noqa: PLC0415

        self.share_own = share_own
        self.written = cp.cuda.Event(disable_timing=True)
        self.written.record()

    def queue_local(self):
        """Queue the local half's sums of the marked shares on the side stream: they run while the
        exchange does, and the next :func:`owned_update` waits for them."""
        import cupy as cp  # noqa: PLC0415

        from ...backend import gpu_kernels  # noqa: PLC0415

        self.side.wait_event(self.written)
        with self.side:
            gpu_kernels.row_segment_sums(self.local[0], self.local[1], self.share_own, self.local[2])
            self.local_done = cp.cuda.Event(disable_timing=True)
            self.local_done.record(self.side)


def split_in_edges(shard):
    """This CuPy partition's :class:`SplitInEdges`, built once, or None where building it would not
    leave room on the device (the iterations then sum all in-edges after the exchange)."""
    from ...backend import device_memory  # noqa: PLC0415

    have = shard.cached(("pagerank-split",), None)
    if have is not None:
        return have
    if SplitInEdges.nbytes(shard) * 2 > device_memory.available()[0]:
        return None
    return shard.cached(("pagerank-split",), lambda: SplitInEdges(shard))


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


__all__ = ["FusedIterations", "SplitInEdges", "owned_update", "split_in_edges", "sums"]
