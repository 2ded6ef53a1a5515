"""Vectorized building blocks shared by every operator, written once for numpy and CuPy.

Each function takes its array module from its inputs.  These are the generic
(unfused) paths; the fused per-algorithm kernels live beside them in
``cpu_kernels`` and ``gpu_kernels``.
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
    array_module(target).minimum.at(target, index, values)
    return target


def scatter_max(target, index, values):
    """target[index] = max(target[index], values), duplicates in index combined."""
    array_module(target).maximum.at(target, index, values)
    return target


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


def group_starts(sorted_keys):
    """Boolean mask of the first element of every run of equal keys."""
    xp = array_module(sorted_keys)
    first = xp.ones(len(sorted_keys), dtype=bool)
    if len(sorted_keys) > 1:
        first[1:] = sorted_keys[1:] != sorted_keys[:-1]
    return first
