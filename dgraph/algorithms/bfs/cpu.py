"""BFS visits on the CPU, compiled with numba: the sequential reference of :mod:`.gpu`.

The fused steps vectorized numpy cannot express efficiently: a bottom-up (pull) step must stop
scanning a vertex's in-edges at the first one in the frontier, and a top-down (push) step should
claim each vertex once without sorting all candidate edges.  Same inputs, same outputs and the same
tie rule as the CUDA kernels (a vertex's parent is its smallest-id neighbor in the previous level);
shard layout as in :mod:`~dgraph.algorithms.bfs.kernels`.  :func:`push` and :func:`pull` are the
superstep's visit steps on these kernels.
"""

from __future__ import annotations

import numpy as np

from ...jit import jit
from . import kernels


@jit
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


@jit
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


def warm_up():
    """Compile both visits once for the common dtypes (benchmarks call this before timing)."""
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


# -- the visit steps (shard, state, frontier edges when known) -> (claimed, scanned, degree sum) ------

def _out(shard, st):
    if st.out is None:
        st.out = np.empty(shard.n, dtype=shard.indices.dtype)
    return st.out


def push(shard, st, m_f):
    """Top-down visit of the frontier's out-edges."""
    out = _out(shard, st)
    # no sorting: the kernel keeps the smallest parent in any frontier order
    k, touched, degsum = visit_push(shard.indptr, shard.indices, kernels.frontier_rows(shard, st),
                                    shard.row_base, shard.rows, st.labels, st.parents, st.level,
                                    out, shard.degree)
    return out[:k].copy(), int(touched), int(degsum)


def pull(shard, st, m_f):
    """Bottom-up visit: every unvisited owned vertex against the frontier mask."""
    out = _out(shard, st)
    cindptr, cindices, _ = shard.csc(edge_ids=False)
    k, touched, degsum = visit_pull(cindptr, cindices, st.frontier.mask, shard.row_base, shard.rows,
                                    st.labels, st.parents, st.level, out, shard.degree)
    return out[:k].copy(), int(touched), int(degsum)


__all__ = ["visit_push", "visit_pull", "warm_up", "push", "pull"]
