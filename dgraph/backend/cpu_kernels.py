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

from ..jit import jit as _jit


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
