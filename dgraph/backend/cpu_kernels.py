"""CPU (numpy backend) kernels, compiled with numba.

These are the fused traversal steps that vectorized numpy cannot express
efficiently: a bottom-up (pull) step must stop scanning a vertex's in-edges
at the first one in the frontier, and a top-down (push) step should claim
each vertex once without sorting all candidate edges.  Each kernel is the
sequential reference for its CuPy twin in ``gpu_kernels``: same inputs,
same outputs, same tie rule (a vertex's parent is its smallest-id neighbor
in the previous level).

Kernels work on a *shard*: the rows (out-edges) and columns (in-edges) of
the vertices one partition owns, with global vertex ids in the adjacency
and per-vertex arrays (labels, parents, degrees) indexed by global id.
Local row ``r`` is global vertex ``rows[r]``, or ``row_base + r`` when
``rows`` is empty (a contiguous range; the whole graph has ``row_base=0``).
"""

from __future__ import annotations

import numpy as np
from numba import prange

from ..jit import jit as _jit
from ..jit import pjit as _pjit


@_jit
def visit_push(indptr, indices, frontier_rows, row_base, rows, labels, parents, level, out, degree):
    """Top-down step over the frontier (local rows, any order): claim unvisited targets.

    The first claimer of a vertex sets its parent; a later frontier vertex
    of the same level lowers it if smaller, so the parent is the smallest-id
    frontier neighbor whatever the order.  Claimed vertices (global ids) go
    to ``out``; returns ``(count, edges_scanned, degree_sum_of_claimed)``.
    """
    k = 0
    touched = 0
    degsum = 0
    identity = rows.shape[0] == 0
    for i in range(frontier_rows.shape[0]):
        r = frontier_rows[i]
        u = r + row_base if identity else rows[r]
        lo = indptr[r]
        hi = indptr[r + 1]
        touched += hi - lo
        for e in range(lo, hi):
            v = indices[e]
            lab = labels[v]
            if lab < 0:
                labels[v] = level
                parents[v] = u
                out[k] = v
                k += 1
                degsum += degree[v]
            elif lab == level and u < parents[v]:
                parents[v] = u
    return k, touched, degsum


@_jit
def visit_pull(cindptr, cindices, fmask, row_base, rows, labels, parents, level, out, degree):
    """Bottom-up step: every unvisited owned vertex looks for its first in-neighbor in the frontier.

    In-neighbor lists are sorted, so the first hit is the smallest-id parent.
    Found vertices (global ids, ascending) go to ``out``; returns
    ``(count, edges_scanned, degree_sum_of_found)``.
    """
    found = 0
    touched = 0
    degsum = 0
    identity = rows.shape[0] == 0
    for r in range(cindptr.shape[0] - 1):
        v = r + row_base if identity else rows[r]
        if labels[v] < 0:
            for e in range(cindptr[r], cindptr[r + 1]):
                touched += 1
                u = cindices[e]
                if fmask[u]:
                    labels[v] = level
                    parents[v] = u
                    out[found] = v
                    found += 1
                    degsum += degree[v]
                    break
    return found, touched, degsum


@_jit
def gather_row_sum(indptr, indices, x, out):
    """out[r] = sum of x[indices[e]] over row r, in edge order (deterministic, no atomics)."""
    for r in range(indptr.shape[0] - 1):
        acc = 0.0
        for e in range(indptr[r], indptr[r + 1]):
            acc += x[indices[e]]
        out[r] = acc
    return out


def warm_up():
    """Compile every kernel once for the common dtypes (benchmarks call this before timing)."""
    indptr = np.array([0, 1, 2], np.int64)
    deg = np.array([1, 1], np.int64)
    for vdt in (np.int32, np.int64):
        indices = np.array([1, 0], vdt)
        none = np.empty(0, vdt)
        labels = np.array([0, -1], np.int32)
        parents = np.array([0, -1], vdt)
        visit_push(indptr, indices, np.array([0], vdt), 0, none, labels.copy(), parents.copy(), 1,
                   np.empty(2, vdt), deg)
        visit_pull(indptr, indices, np.array([True, False]), 0, none, labels.copy(), parents.copy(), 1,
                   np.empty(2, vdt), deg)


@_pjit
def pagerank_step(cindptr, cindices, share, base, vec, d, inv_deg, old, new, diff, share_out):
    """One pull iteration on one whole shard, over the CPU's threads: ``new[v] = base + d * sum`` (the
    in-edge sum of ``share`` in edge order, as :func:`gather_row_sum`; ``base[v]`` when ``vec``, else
    ``base[0]``), ``diff[v] = |new[v] - old[v]|`` and ``share_out[v] = new[v] * inv_deg[v]`` for the next
    iteration: the same float64 operations as the numpy steps of the PageRank Program, so the same bits."""
    n = new.shape[0]
    b0 = base[0]
    for v in prange(n):
        acc = 0.0
        for e in range(cindptr[v], cindptr[v + 1]):
            acc += share[cindices[e]]
        b = base[v] if vec else b0
        x = b + d * acc
        new[v] = x
        diff[v] = abs(x - old[v])
        share_out[v] = x * inv_deg[v]
