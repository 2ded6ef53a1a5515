"""CPU (numpy backend) core decomposition, compiled with numba: peeling level by level, in one thread.

The O(m + n) sequential twin of the peeling Program ('cpu-numba+levels'; see
:mod:`dgraph.algorithms.kcore.program` for the semantics and why the numbers
are right).  Level ``k`` starts with a scan of the vertices not yet peeled:
those of degree ``k`` are the frontier, the others stay in a compacted list
(kept in id order, so the scan reads the degrees in order); then the
frontier is peeled as a queue: every neighbor of degree above ``k`` loses
one, and one that falls to ``k`` joins the queue.  A vertex peeled at level
``k`` keeps degree ``k`` from then on (only degrees above the level drop),
so the degrees end as the core numbers.  When a scan finds nobody at level
``k`` the level jumps to the smallest degree left.  The degrees count the
out- and in-arcs of a directed graph, each stored arc once, self loops left
out, as the Program counts them.

Per arc one read of the far end's degree (and a write when it drops), in an
int32 array of 4 bytes a vertex: Batagelj and Zaversnik's bucket peeling
(NetworkX's ``core_number``, what this module ran before) moves a vertex
between buckets on every decrement, four more scattered accesses an arc, and
took about twice as long on R-MAT and grid graphs (docs/BENCHMARKS.md).  A
vertex sits in the compacted list for at most ``core + 2`` scans and
``core <= degree``, so the scans cost O(n + m) in all.  The level-synchronous
peeling with a compacted vertex list is Kabir and Madduri's PKC ("Parallel
k-core decomposition on multicore platforms", IPDPSW 2017), here in one thread.
"""

from __future__ import annotations

import numpy as np

from ...jit import inline as _inline
from ...jit import jit as _jit


@_inline
def _loop_free_degree(indptr, indices, v, loop_free):
    if loop_free:
        return indptr[v + 1] - indptr[v]
    d = 0
    for e in range(indptr[v], indptr[v + 1]):
        if indices[e] != v:
            d += 1
    return d


@_inline
def _peel_row(indptr, indices, v, k, deg, queue, tail):
    """Every neighbor of ``v`` (along one CSR) of degree above ``k`` loses one; those reaching ``k``
    join the queue.  Returns the queue's new tail."""
    for e in range(indptr[v], indptr[v + 1]):
        u = indices[e]
        du = deg[u]
        if du > k:
            du -= 1
            deg[u] = du
            if du == k:
                queue[tail] = u
                tail += 1
    return tail


def degree_dtype(arcs):
    """int32 while a degree (at most twice the stored arcs) fits in it, else int64."""
    return np.int32 if 2 * int(arcs) < 2**31 else np.int64


@_jit
def peel_cores(indptr, indices, cindptr, cindices, directed, loop_free, deg, core):
    """Core numbers of every vertex into ``core`` (int64, one per vertex); returns the largest (0
    without vertices).  ``deg``: scratch, one per vertex, of an integer type that holds any degree
    (:func:`degree_dtype`).

    ``indptr``/``indices``: the out-CSR (both directions of every edge for an undirected graph);
    ``cindptr``/``cindices``: the in-CSC of a directed graph (read only when ``directed``; pass the
    CSR again otherwise).  ``loop_free``: the graph is known to have no self loops (the degrees are
    then the row lengths, without reading the rows).
    """
    n = indptr.shape[0] - 1
    rest = np.empty(n, indices.dtype)      # the vertices not yet peeled, ascending
    queue = np.empty(n, indices.dtype)     # the level's frontier, then what falls to the level
    for v in range(n):
        d = _loop_free_degree(indptr, indices, v, loop_free)
        if directed:
            d += _loop_free_degree(cindptr, cindices, v, loop_free)
        deg[v] = d
        rest[v] = v
    left = n
    peeled = 0
    k = -1
    while peeled < n:
        k += 1
        tail = 0
        kept = 0
        smallest = np.int64(1) << 62
        for i in range(left):              # the scan: the frontier at k, the rest compacted
            v = rest[i]
            d = deg[v]
            if d > k:
                rest[kept] = v
                kept += 1
                if d < smallest:
                    smallest = d
            elif d == k:
                queue[tail] = v
                tail += 1
            # d < k: peeled at an earlier level
        left = kept
        if tail == 0:                      # nobody at k: the level jumps to the smallest degree left
            k = smallest
            for i in range(left):
                v = rest[i]
                if deg[v] == k:
                    queue[tail] = v
                    tail += 1
        head = 0
        while head < tail:
            v = queue[head]
            head += 1
            tail = _peel_row(indptr, indices, v, k, deg, queue, tail)
            if directed:
                tail = _peel_row(cindptr, cindices, v, k, deg, queue, tail)
        peeled += tail
    for v in range(n):
        core[v] = deg[v]
    return max(k, 0)


__all__ = ["peel_cores", "degree_dtype"]
