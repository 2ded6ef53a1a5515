"""Edge weights for the link-analysis algorithms (weighted PageRank, HITS): row sums with or
without a weight per edge, and a shard's in-edge weights.

A shard holds the weights of its out-edges (aligned with its CSR); a pull over in-edges needs them
aligned with its CSC instead.  For an undirected graph the CSC is the CSR, so they are; for a
directed graph's whole-graph shard they are the CSR weights at the CSC's edge ids; for a directed
graph split into partitions, the in-edges of a partition's vertices come from the other partitions'
rows, so their weights come from every partition's arcs (one exchange before the first iteration:
:func:`arcs`, then :func:`match_in_weights` on every shard).

The row sums keep the unweighted sums' promise: each row's sum runs in one fixed order whatever the
partitioning (numpy: edge order, a thread per block of rows; CuPy: the products ``w[e] * x[j]``
formed first, then :func:`dgraph.backend.primitives.gather_row_sum`'s fixed tree over them), so
every executor and partition count gives the same bits on one backend.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from ..backend import array_module, to_backend, to_numpy
from ..backend.primitives import gather_row_sum, row_ids
from ..jit import jit, pjit

#: below this many edges a row sum runs on one thread (starting the others costs more)
THREADED_EDGES = 1 << 16

# Each kernel twice, threaded and not (numba caches one compiled variant per function): the same
# operations in the same order in each row, so the same bits.


@pjit
def _weighted_threads(indptr, indices, w, x, out):
    """out[r] = sum of w[e] * x[indices[e]] over row r, in edge order (rows over the threads)."""
    for r in prange(indptr.shape[0] - 1):
        acc = 0.0
        for e in range(indptr[r], indptr[r + 1]):
            acc += w[e] * x[indices[e]]
        out[r] = acc
    return out


@jit
def _weighted_serial(indptr, indices, w, x, out):
    """:func:`_weighted_threads` on one thread."""
    for r in range(indptr.shape[0] - 1):
        acc = 0.0
        for e in range(indptr[r], indptr[r + 1]):
            acc += w[e] * x[indices[e]]
        out[r] = acc
    return out


@pjit
def _plain_threads(indptr, indices, x, out):
    """out[r] = sum of x[indices[e]] over row r, in edge order (rows over the threads): the threaded
    twin of :func:`dgraph.backend.cpu_kernels.gather_row_sum`, the same bits."""
    for r in prange(indptr.shape[0] - 1):
        acc = 0.0
        for e in range(indptr[r], indptr[r + 1]):
            acc += x[indices[e]]
        out[r] = acc
    return out


def _weighted_gather(indptr, indices, w, x, out):
    kernel = _weighted_threads if len(indices) >= THREADED_EDGES else _weighted_serial
    return kernel(indptr, indices, w, x, out)


def row_sum(indptr, indices, x, weights=None, plan=None, ident=None):
    """Per row, the sum of ``x[indices[e]]`` (times ``weights[e]`` when given) over its edges
    (float64) in a fixed order: numpy, numba in edge order (over the CPU's threads past
    :data:`THREADED_EDGES` edges); CuPy, :func:`gather_row_sum`'s tree (``plan``: its row segments
    for ``indptr``; ``ident``: see :func:`weighted_row_sum`)."""
    if weights is not None:
        return weighted_row_sum(indptr, indices, weights, x, plan=plan, ident=ident)
    if array_module(indptr) is not np or len(indices) < THREADED_EDGES:
        return gather_row_sum(indptr, indices, x, plan=plan)  # numpy: the same sums, in edge order, one thread
    return _plain_threads(indptr, indices, np.ascontiguousarray(x, dtype=np.float64),
                          np.empty(len(indptr) - 1, dtype=np.float64))


def identity(indices):
    """The index array that makes :func:`gather_row_sum` add up an edge array itself (CuPy's path of
    :func:`weighted_row_sum`): 0 .. m-1, int32 while m fits."""
    xp = array_module(indices)
    m = len(indices)
    return xp.arange(m, dtype=np.int32 if m < 2**31 - 1 else np.int64)


def weighted_row_sum(indptr, indices, weights, x, plan=None, ident=None, out=None):
    """Per row, the sum of ``weights[e] * x[indices[e]]`` over its edges (float64), in a fixed order.

    numpy: a numba kernel, edge order.  CuPy: the products as one edge array, added up by
    :func:`~dgraph.backend.primitives.gather_row_sum` over ``ident`` (:func:`identity`, built here
    when not given) with ``plan`` (its row segments for ``indptr``)."""
    xp = array_module(indptr)
    if xp is np:
        out = np.empty(len(indptr) - 1, dtype=np.float64) if out is None else out
        return _weighted_gather(indptr, indices, weights, np.ascontiguousarray(x, dtype=np.float64), out)
    vals = weights * x[indices]
    return gather_row_sum(indptr, identity(indices) if ident is None else ident, vals, plan=plan)


def row_sums(indptr, weights, ident=None):
    """Per row, the sum of its edges' ``weights`` (float64), in edge order on numpy, in
    :func:`gather_row_sum`'s fixed tree on CuPy: the out-weight sums of a shard's rows."""
    xp = array_module(indptr, weights)
    w = weights.astype(np.float64, copy=False)
    if xp is np:
        ones = np.ones(1, dtype=np.float64)
        return _weighted_gather(indptr, np.zeros(len(w), dtype=np.int32), w, ones,
                                np.empty(len(indptr) - 1, dtype=np.float64))
    return gather_row_sum(indptr, identity(w) if ident is None else ident, w)


def float_weights(shard):
    """The shard's out-edge weights as float64 (aligned with its CSR), or None when unweighted."""
    return None if shard.weights is None else shard.weights.astype(np.float64, copy=False)


def whole_in_weights(shard):
    """The in-edge weights (aligned with ``shard.csc()``) of a shard that holds every vertex's rows
    (one partition), or None when the shard cannot say without its arcs matched
    (:func:`match_in_weights`): a directed shard built without in-edge ids."""
    if not shard.directed:
        return float_weights(shard)
    if shard.contiguous and shard.row_base == 0 and shard.num_rows == shard.n:
        _, _, eids = shard.csc(edge_ids=True)
        if eids is not None:
            return shard.weights[eids].astype(np.float64, copy=False)
    return None


def arcs(shard):
    """This shard's out-edges as ``{"src", "dst", "w"}`` (global ids, float64 weights, CSR order):
    what every shard sends once so that each can find the weights of its in-edges."""
    src = shard.global_rows()[row_ids(shard.indptr)]
    return {"src": src, "dst": shard.indices, "w": float_weights(shard)}


def match_in_weights(shard, parts):
    """The weights of this shard's in-edges, aligned with ``shard.csc()``, from every partition's
    :func:`arcs` (``parts``, in partition order); on the shard's backend.

    An in-edge ``u -> v`` of an owned ``v`` is paired with an arc ``u -> v``: both sides sorted by
    (owner row, source), stably, so parallel edges pair in the order they were stored.  A mismatch
    (a shard whose in-edges are not its graph's) raises RuntimeError rather than pairing wrongly."""
    xp = shard.xp
    n = shard.n
    src = np.concatenate([to_numpy(p["src"]) for p in parts]).astype(np.int64, copy=False)
    dst = np.concatenate([to_numpy(p["dst"]) for p in parts]).astype(np.int64, copy=False)
    w = np.concatenate([to_numpy(p["w"]) for p in parts]).astype(np.float64, copy=False)
    if shard.contiguous:
        local = dst - shard.row_base
        keep = (local >= 0) & (local < shard.num_rows)
    else:
        where = np.full(n, -1, dtype=np.int64)
        where[to_numpy(shard.rows)] = np.arange(shard.num_rows, dtype=np.int64)
        local = where[dst]
        keep = local >= 0
    src, local, w = src[keep], local[keep], w[keep]
    order = np.lexsort((src, local))
    cindptr, cindices, _ = shard.csc(edge_ids=False)
    cindptr, cindices = to_numpy(cindptr), to_numpy(cindices).astype(np.int64, copy=False)
    crow = np.repeat(np.arange(len(cindptr) - 1, dtype=np.int64), np.diff(cindptr))
    corder = np.lexsort((cindices, crow))
    if len(order) != len(corder) or not (np.array_equal(local[order], crow[corder])
                                         and np.array_equal(src[order], cindices[corder])):
        raise RuntimeError(f"partition {shard.part}: its in-edges do not match the other partitions' arcs")
    out = np.empty(len(corder), dtype=np.float64)
    out[corder] = w[order]
    return to_backend(out, xp)


__all__ = ["row_sum", "weighted_row_sum", "row_sums", "identity", "float_weights", "whole_in_weights", "arcs",
           "match_in_weights"]
