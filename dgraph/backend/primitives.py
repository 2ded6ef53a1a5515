"""Vectorized building blocks shared by every operator, written once for numpy and CuPy.

Each function takes its array module from its inputs.  These are the generic
(unfused) paths; the fused kernels live in the algorithms' packages (BFS:
:mod:`dgraph.algorithms.bfs`) or, shared, in ``cpu_kernels`` and ``gpu_kernels``.
"""

from __future__ import annotations

import numpy as np

from . import array_module


def expand(indptr, frontier):
    """Load-balanced neighbor expansion of a vertex frontier (Gunrock's LB advance).

    Returns ``(seg, eid)``: for every edge leaving the frontier, the position of
    its source in ``frontier`` and its edge id (CSR position).  Work is spread
    over edges, not vertices: a prefix sum of the degrees and a sorted search
    map each edge back to its source, so one huge vertex does not serialize
    the step.
    """
    xp = array_module(indptr, frontier)
    starts = indptr[frontier]
    degrees = indptr[frontier + 1] - starts
    if xp is np:
        seg = np.repeat(np.arange(len(frontier), dtype=np.int64), degrees)
        if len(seg) == 0:
            return seg, np.empty(0, np.int64)
        offsets = np.cumsum(degrees) - degrees
        eid = np.arange(len(seg), dtype=np.int64) - offsets[seg] + starts[seg]
        return seg, eid
    scanned = xp.cumsum(degrees)
    total = int(scanned[-1]) if len(scanned) else 0
    idx = xp.arange(total, dtype=np.int64)
    seg = xp.searchsorted(scanned, idx, side="right")
    eid = idx - (scanned[seg] - degrees[seg]) + starts[seg]
    return seg, eid


def scatter_min(target, index, values):
    """target[index] = min(target[index], values), duplicates in index combined."""
    return _scatter_extreme(target, index, values, "minimum")


def scatter_max(target, index, values):
    """target[index] = max(target[index], values), duplicates in index combined."""
    return _scatter_extreme(target, index, values, "maximum")


def _scatter_extreme(target, index, values, ufunc):
    xp = array_module(target)
    if xp is np or target.dtype.kind != "f":
        getattr(xp, ufunc).at(target, index, values)
        return target
    # CuPy 14.2's float64 minimum.at / maximum.at (and cupyx.scatter_min/max) round through
    # float32 (its atomic uses fminf); reduce order-preserving integer keys instead: exact.
    keys = _ordered_keys(xp, target)
    getattr(xp, ufunc).at(keys, index, _ordered_keys(xp, xp.asarray(values, dtype=target.dtype)))
    target[...] = _flip(xp, keys).view(target.dtype)
    return target


def _flip(xp, i):
    """Negative ints get all bits but the sign flipped: an involution."""
    return xp.where(i < 0, i ^ i.dtype.type(np.iinfo(i.dtype).max), i)


def _ordered_keys(xp, x):
    """Signed ints whose order is the order of the floats ``x`` (same width)."""
    return _flip(xp, xp.ascontiguousarray(x).view(np.dtype(f"i{x.dtype.itemsize}")))


def scatter_add(target, index, values):
    """target[index] += values, duplicates in index summed."""
    array_module(target).add.at(target, index, values)
    return target


def row_ids(indptr):
    """The row (source vertex) of every CSR position."""
    xp = array_module(indptr)
    n = len(indptr) - 1
    counts = indptr[1:] - indptr[:-1]
    if xp is np:
        return np.repeat(np.arange(n, dtype=np.int64), counts)
    nnz = int(indptr[-1])
    return xp.searchsorted(indptr[1:], xp.arange(nnz, dtype=np.int64), side="right")


def row_ids_of(indptr, a, b):
    """The row of every CSR position in ``[a, b)``."""
    xp = array_module(indptr)
    return xp.searchsorted(indptr[1:], xp.arange(a, b, dtype=np.int64), side="right")


#: elements a boolean mask selects from at once: CuPy's masked selection overflows a C int past 2**31
MASK_CHUNK = 1 << 30


def compress(mask, *arrays, chunk=None):
    """``[a[mask] for a in arrays]``, a bounded chunk of the mask at a time (arrays of billions)."""
    xp = array_module(mask)
    chunk = MASK_CHUNK if chunk is None else int(chunk)
    n = len(mask)
    if n <= chunk:
        return [a[mask] for a in arrays]
    parts = [[a[i:i + chunk][mask[i:i + chunk]] for i in range(0, n, chunk)] for a in arrays]
    return [xp.concatenate(p) for p in parts]


def group_starts(sorted_keys):
    """Boolean mask of the first element of every run of equal keys."""
    xp = array_module(sorted_keys)
    first = xp.ones(len(sorted_keys), dtype=bool)
    if len(sorted_keys) > 1:
        first[1:] = sorted_keys[1:] != sorted_keys[:-1]
    return first


def row_sum_plan(indptr):
    """What :func:`gather_row_sum` precomputes for a CSR (its row segments on CuPy; None on numpy)."""
    if array_module(indptr) is np:
        return None
    from . import gpu_kernels  # noqa: PLC0415

    return gpu_kernels.RowSumPlan(indptr)


def gather_row_sum(indptr, indices, x, plan=None):
    """Per CSR row, the sum of ``x`` at the row's column indices (float64).

    A compiled kernel on both backends: deterministic, so a vertex's sum does
    not depend on how the graph is partitioned (numpy: in edge order; CuPy:
    load-balanced over row segments, each summed by a fixed tree).  ``plan``
    (from :func:`row_sum_plan`) saves the CuPy segment setup on repeated calls.
    """
    xp = array_module(indptr)
    out = xp.empty(len(indptr) - 1, dtype=np.float64)
    x = xp.ascontiguousarray(x, dtype=np.float64)
    if xp is np:
        from . import cpu_kernels  # noqa: PLC0415

        return cpu_kernels.gather_row_sum(indptr, indices, x, out)
    from . import gpu_kernels  # noqa: PLC0415

    return gpu_kernels.gather_row_sum(indptr, indices, x, out, plan)
