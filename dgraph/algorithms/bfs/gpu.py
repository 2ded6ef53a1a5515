"""BFS visits on the GPU (CuPy): the CUDA twins of :mod:`dgraph.algorithms.bfs.cpu`.

Same inputs, outputs and tie rule as the numba kernels (see :mod:`~dgraph.algorithms.bfs.kernels`
for the shard layout: local rows, global ids); the parallel versions reach the smallest-id parent
with ``atomicMin``.  Unvisited parents hold ``INT_MAX`` of their dtype (mapped to -1 at the end).
Output queues and counters are appended per block (one atomic per block, not per thread:
``block_emit`` in ``dgraph/cuda/common.cuh``).  Push is load-balanced over edges (Gunrock's LB
advance: a thread per frontier edge, a binary search for its source); pull is a thread per owned
vertex that stops at its first in-neighbor in the frontier.

The CUDA is ``bfs.cu`` beside this file; compiled on first use, CuPy keeps the binaries on disk.
:func:`push` and :func:`pull` are the superstep's visit steps (the interface of
:mod:`~dgraph.algorithms.bfs.kernels`) on these kernels.
"""

from __future__ import annotations

from ...backend.gpu_kernels import row_degree_scan
from ...cuda import BLOCK, dtype_suffix, function, source
from . import kernels

#: this module's CUDA (bfs.cu, with dgraph/cuda/common.cuh in front)
_SOURCE = source(__package__, "bfs.cu")


def kernel(name):
    """A kernel of this module (:func:`dgraph.cuda.function`)."""
    return function(_SOURCE, name)


def visit_push(indptr, indices, frontier_rows, total, row_base, rows, labels, parents, level, degree,
               out, counters):
    """Top-down step over ``total`` frontier edges (known on the host); see ``block_emit``."""
    import cupy as cp  # noqa: PLC0415

    nf = len(frontier_rows)
    if nf == 0 or total == 0:
        return
    scanned = row_degree_scan(indptr, frontier_rows)
    kern = kernel("push_lb_" + dtype_suffix(indices.dtype))
    grid = (int(total) + BLOCK - 1) // BLOCK
    kern((grid,), (BLOCK,), (indptr, indices, frontier_rows, scanned, cp.int32(nf), cp.int64(total),
                             cp.int64(row_base), rows, cp.int32(len(rows) > 0), labels, parents,
                             cp.int32(level), degree, out, counters))


def visit_pull(cindptr, cindices, fmask, row_base, rows, labels, parents, level, degree, out, counters):
    """Bottom-up step over all owned vertices; see ``block_emit``."""
    import cupy as cp  # noqa: PLC0415

    nrows = len(cindptr) - 1
    if nrows <= 0:
        return
    kern = kernel("pull_" + dtype_suffix(cindices.dtype))
    grid = (nrows + BLOCK - 1) // BLOCK
    kern((grid,), (BLOCK,), (cindptr, cindices, fmask, cp.int64(nrows), cp.int64(row_base), rows,
                             cp.int32(len(rows) > 0), labels, parents, cp.int32(level), degree, out,
                             counters))


# -- the visit steps (shard, state, frontier edges when known) -> (claimed, scanned, degree sum) ------

def buffers(shard, st):
    """The run's device buffers, allocated on the first visit: two output queues (double buffered:
    the new frontier never overwrites the one being read), the kernels' counters and, on the
    ``gpu-fused+union`` path, the bitmap union of :mod:`~dgraph.algorithms.bfs.union`.  Swaps the
    queues and returns the one to write."""
    import cupy as cp  # noqa: PLC0415

    if st.out is None:
        st.out = [cp.empty(shard.n, dtype=shard.indices.dtype), cp.empty(shard.n, dtype=shard.indices.dtype)]
        st.counters = cp.zeros(4, dtype=cp.uint64)
        if st.implementation == "gpu-fused+union":
            from .union import FrontierUnion  # noqa: PLC0415

            st.union = FrontierUnion(shard.n, shard.indices.dtype, shard.row_base,
                                     shard.num_rows if shard.contiguous else 0)
    st.out.reverse()  # double buffer: the new frontier never overwrites the one being read
    st.counters.fill(0)
    return st.out[0]


def push(shard, st, m_f, read=True):
    """Top-down visit of the frontier's out-edges (``m_f`` of them; counted here when None).
    ``read=False``: the counts stay on the device (``st.counters``) and the claimed vertices are
    the start of ``st.out[0]``: -> (None, m_f, None)."""
    out = buffers(shard, st)
    rows = kernels.frontier_rows(shard, st)
    if m_f is None:
        m_f = int((shard.indptr[rows + 1] - shard.indptr[rows]).sum())
    visit_push(shard.indptr, shard.indices, rows, m_f, shard.row_base, shard.rows, st.labels,
               st.parents, st.level, shard.degree, out, st.counters)
    if not read:
        return None, m_f, None
    count, degsum, _, _ = (int(x) for x in st.counters.get())
    return out[:count], m_f, degsum


def pull(shard, st, m_f, read=True):
    """Bottom-up visit: every unvisited owned vertex against the frontier's byte mask (``read`` as
    for :func:`push`: False -> (None, None, None))."""
    import cupy as cp  # noqa: PLC0415

    out = buffers(shard, st)
    cindptr, cindices, _ = shard.csc(edge_ids=False)
    fmask = st.frontier.mask.view(cp.uint8)
    visit_pull(cindptr, cindices, fmask, shard.row_base, shard.rows, st.labels, st.parents,
               st.level, shard.degree, out, st.counters)
    if not read:
        return None, None, None
    count, degsum, scanned, _ = (int(x) for x in st.counters.get())
    return out[:count], scanned, degsum


__all__ = ["visit_push", "visit_pull", "push", "pull", "buffers"]
