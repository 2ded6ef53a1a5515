"""GPU (CuPy backend) launch helpers several algorithms share.

The block starts of a load-balanced launch (a thread per frontier edge: which frontier slot each
block's first edge belongs to) and the segmented, deterministic row sums ``gather_row_sum`` (no
atomics: a vertex's sum is the same bits whatever the partitioning).  An algorithm's own kernels
live in its package (BFS's visits: :mod:`dgraph.algorithms.bfs.gpu`).  Compiled on first use;
CuPy caches the binaries on disk.

The CUDA is in ``gpu_kernels.cu`` beside this file; the helpers it shares with every kernel module
are ``dgraph/cuda/common.cuh``, and the compile and launch machinery is :mod:`dgraph.cuda`.
"""

from __future__ import annotations

from ..cuda import BLOCK, compiled, dtype_suffix, elementwise, function, multiprocessors, source

#: this module's CUDA (gpu_kernels.cu, with dgraph/cuda/common.cuh in front)
_SOURCE = source(__package__, "gpu_kernels.cu")


def module():
    return compiled(_SOURCE)


def kernel(name):
    """A kernel of this module (:func:`dgraph.cuda.function`)."""
    return function(_SOURCE, name)


def row_degree_scan(indptr, rows):
    """The inclusive scan of the degrees of ``rows`` (int64): what a load-balanced launch over their
    edges searches.  One launch for the degrees (the expression ``indptr[rows + 1] - indptr[rows]``
    takes four, each some 50 us of host time on the device machines), then CuPy's scan."""
    import cupy as cp  # noqa: PLC0415

    kern = elementwise("dgraph_row_degree", "T r, raw int64 indptr", "int64 d", "d = indptr[r + 1] - indptr[r]")
    return cp.cumsum(kern(rows, indptr))


def block_starts(scanned, nf, total, starts=None):
    """For a launch of a thread per frontier edge in blocks of BLOCK (``total`` > 0 edges over ``nf``
    slots with inclusive degree scan ``scanned``): int32 ``starts``, starts[b] the slot of edge
    min(b * BLOCK, total - 1) for b = 0 .. blocks, so block b's edges lie in slots starts[b] ..
    starts[b + 1] (:c:func:`block_slot`).  One small launch, searches in parallel; into ``starts``
    where given (room for ``total // BLOCK + 2``)."""
    import cupy as cp  # noqa: PLC0415

    count = (total + BLOCK - 1) // BLOCK + 1
    if starts is None:
        starts = cp.empty(count, dtype=cp.int32)
    kernel("block_starts")(((count + BLOCK - 1) // BLOCK,), (BLOCK,),  # (counts unread: not queued)
                           (scanned, cp.int32(nf), cp.int64(total), starts, cp.int32(0), cp.int32(0),
                            cp.int32(BLOCK), starts))
    return starts


def block_starts_queued(scanned, counts, at, starts):
    """:func:`block_starts` into ``starts`` (room for ``edges // BLOCK + 2``, where ``edges`` bounds the
    total) with ``nf`` and ``total`` at ``counts[at]``, ``counts[at + 1]`` on the device: queued behind
    the kernels that count them, before the host reads the counts."""
    import cupy as cp  # noqa: PLC0415

    kernel("block_starts")((4 * multiprocessors(),), (BLOCK,),
                           (scanned, cp.int32(0), cp.int64(0), counts, cp.int32(1), cp.int32(at), cp.int32(BLOCK),
                            starts))
    return starts


SEG_EDGES = 64  # SEG_LANES * SEG_ITER in the CUDA source
FOLD_MIN = 4    # rows of more segments have them added by a warp (seg_fold), not one thread


class RowSumPlan:
    """The segments of a CSR's rows for :func:`gather_row_sum`: build once per graph, reuse.

    ``segptr``: each row's first segment; ``segend``: the end of the segments a row's total adds
    (its first alone for a hub, whose segments seg_fold has added into it); ``hubs``: those rows."""

    def __init__(self, indptr):
        import cupy as cp  # noqa: PLC0415

        n = len(indptr) - 1
        deg = indptr[1:] - indptr[:-1]
        nseg = (deg + SEG_EDGES - 1) // SEG_EDGES  # none for an empty row (38% of rmat20's)
        self.segptr = cp.zeros(n + 1, dtype=cp.int64)
        cp.cumsum(nseg, out=self.segptr[1:])
        self.nseg = int(self.segptr[-1]) if n else 0
        self.seg_row = cp.searchsorted(self.segptr, cp.arange(self.nseg, dtype=cp.int64), side="right") - 1
        self.partial = cp.empty(self.nseg, dtype=cp.float64)
        self.hubs = cp.flatnonzero(nseg > FOLD_MIN)
        self.segend = self.segptr[1:].copy()
        self.segend[self.hubs] = self.segptr[self.hubs] + 1
        self.indptr = indptr


def row_segment_sums(indptr, indices, x, plan):
    """Each row's segment sums into plan.partial, a hub's folded into its first segment (the first
    kernels of gather_row_sum): the row's total is then partial[segptr[r]:segend[r]] added in order."""
    import cupy as cp  # noqa: PLC0415

    threads = plan.nseg * 8  # SEG_LANES
    if threads:
        kern = kernel("seg_sum_" + dtype_suffix(indices.dtype))
        kern(((threads + BLOCK - 1) // BLOCK,), (BLOCK,),
             (indptr, indices, x, plan.segptr, plan.seg_row, plan.partial, cp.int64(plan.nseg)))
    nhubs = len(plan.hubs)
    if nhubs:
        kernel("seg_fold")(((nhubs * 32 + BLOCK - 1) // BLOCK,), (BLOCK,),
                                          (plan.segptr, plan.hubs, plan.partial, cp.int64(nhubs)))


def gather_row_sum(indptr, indices, x, out, plan=None):
    """out[r] = sum of x[indices[e]] over row r (float64), load-balanced over row segments."""
    import cupy as cp  # noqa: PLC0415

    nrows = len(indptr) - 1
    if nrows <= 0:
        return out
    if plan is None or plan.indptr is not indptr:
        plan = RowSumPlan(indptr)
    row_segment_sums(indptr, indices, x, plan)
    kernel("seg_total")(((nrows + BLOCK - 1) // BLOCK,), (BLOCK,),
                                        (plan.segptr, plan.segend, plan.partial, out, cp.int64(nrows)))
    return out
