"""CPU (numpy backend) kernels, compiled with numba.

These are the fused traversal steps that vectorized numpy cannot express
efficiently: a bottom-up (pull) step must stop scanning a vertex's in-edges
at the first one in the frontier, and a top-down (push) step should claim
each vertex once without sorting all candidate edges.  Each kernel is the
sequential reference for its CuPy twin in ``gpu_kernels``: same inputs,
same outputs, same tie rule (a vertex's parent is its smallest-id neighbor
in the previous level).
"""

from __future__ import annotations

import numpy as np

_numba = None


def _jit(fn):
    """Compile lazily, on first call, so importing dgraph does not import numba."""
    compiled = None

    def call(*args):
        nonlocal compiled
        if compiled is None:
            global _numba
            if _numba is None:
                import numba  # noqa: PLC0415

                _numba = numba
            compiled = _numba.njit(cache=True, nogil=True)(fn)
        return compiled(*args)

    call.__name__ = fn.__name__
    call.__doc__ = fn.__doc__
    call.py_func = fn
    return call


@_jit
def visit_push(indptr, indices, frontier, labels, parents, level, out, out_degree):
    """Top-down step over a sorted frontier: claim unvisited targets, in frontier order.

    Because the frontier is sorted, the first claimer of a vertex is its
    smallest-id parent.  Claimed vertices go to ``out``; returns
    ``(count, edges_scanned, out_degree_sum_of_claimed)``.
    """
    k = 0
    touched = 0
    degsum = 0
    for i in range(frontier.shape[0]):
        u = frontier[i]
        lo = indptr[u]
        hi = indptr[u + 1]
        touched += hi - lo
        for e in range(lo, hi):
            v = indices[e]
            if labels[v] < 0:
                labels[v] = level
                parents[v] = u
                out[k] = v
                k += 1
                degsum += out_degree[v]
    return k, touched, degsum


@_jit
def visit_pull(cindptr, cindices, fmask, labels, parents, level, newmask, out_degree):
    """Bottom-up step: every unvisited vertex looks for its first in-neighbor in the frontier.

    In-neighbor lists are sorted, so the first hit is the smallest-id parent.
    Returns ``(count, edges_scanned, out_degree_sum_of_found)``.
    """
    found = 0
    touched = 0
    degsum = 0
    n = labels.shape[0]
    for v in range(n):
        if labels[v] < 0:
            for e in range(cindptr[v], cindptr[v + 1]):
                touched += 1
                u = cindices[e]
                if fmask[u]:
                    labels[v] = level
                    parents[v] = u
                    newmask[v] = True
                    found += 1
                    degsum += out_degree[v]
                    break
    return found, touched, degsum


def warm_up():
    """Compile every kernel once on tiny inputs (benchmarks call this before timing)."""
    indptr = np.array([0, 1, 2], np.int64)
    indices = np.array([1, 0], np.int32)
    labels = np.array([0, -1], np.int32)
    parents = np.array([0, -1], np.int32)
    deg = np.array([1, 1], np.int64)
    visit_push(indptr, indices, np.array([0], np.int32), labels.copy(), parents.copy(), 1,
               np.empty(2, np.int32), deg)
    visit_push(indptr, indices, np.array([0], np.int64), labels.copy(), parents.copy(), 1,
               np.empty(2, np.int64), deg)
    visit_pull(indptr, indices, np.array([True, False]), labels.copy(), parents.copy(), 1,
               np.zeros(2, bool), deg)
