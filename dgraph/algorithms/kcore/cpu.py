"""CPU (numpy backend) core decomposition, compiled with numba: Batagelj and Zaversnik's bucket peeling.

The O(m) sequential twin of the peeling Program ('cpu-numba+bz'; see
:mod:`dgraph.algorithms.kcore.program` for the semantics): vertices sit in
an array sorted by their current degree, with the start of every degree's
bucket; the vertex of smallest degree is taken next, its core number is its
degree then, and each neighbor of larger degree moves one bucket down (a
swap with the first vertex of its bucket).  The degrees count the out- and
in-arcs of a directed graph, each stored arc once, self loops left out, as
the Program counts them.

V. Batagelj and M. Zaversnik, "An O(m) Algorithm for Cores Decomposition of
Networks" (2003), the algorithm NetworkX's ``core_number`` runs.
"""

from __future__ import annotations

import numpy as np

from ...jit import inline as _inline
from ...jit import jit as _jit


@_inline
def _loop_free_degree(indptr, indices, v):
    d = 0
    for e in range(indptr[v], indptr[v + 1]):
        if indices[e] != v:
            d += 1
    return d


@_inline
def _peel_row(indptr, indices, v, deg, bins, pos, vert):
    """Every neighbor of ``v`` (along one CSR) of larger degree moves one bucket down."""
    dv = deg[v]
    for e in range(indptr[v], indptr[v + 1]):
        u = indices[e]
        du = deg[u]
        if du > dv:
            pu = pos[u]
            pw = bins[du]          # the first vertex of u's bucket trades places with u
            w = vert[pw]
            if u != w:
                pos[u] = pw
                vert[pu] = w
                pos[w] = pu
                vert[pw] = u
            bins[du] += 1
            deg[u] = du - 1


@_jit
def bz_cores(indptr, indices, cindptr, cindices, directed, core):
    """Core numbers of every vertex into ``core`` (int64, one per vertex); returns the largest.

    ``indptr``/``indices``: the out-CSR (both directions of every edge for an undirected graph);
    ``cindptr``/``cindices``: the in-CSC of a directed graph (read only when ``directed``; pass the
    CSR again otherwise).
    """
    n = indptr.shape[0] - 1
    deg = core
    md = 0
    for v in range(n):
        d = _loop_free_degree(indptr, indices, v)
        if directed:
            d += _loop_free_degree(cindptr, cindices, v)
        deg[v] = d
        if d > md:
            md = d
    bins = np.zeros(md + 1, dtype=np.int64)
    for v in range(n):
        bins[deg[v]] += 1
    start = 0
    for d in range(md + 1):
        count = bins[d]
        bins[d] = start
        start += count
    pos = np.empty(n, dtype=np.int64)
    vert = np.empty(n, dtype=np.int64)
    for v in range(n):
        p = bins[deg[v]]
        pos[v] = p
        vert[p] = v
        bins[deg[v]] = p + 1
    for d in range(md, 0, -1):
        bins[d] = bins[d - 1]
    if md >= 0:
        bins[0] = 0
    top = 0
    for i in range(n):
        v = vert[i]
        if deg[v] > top:
            top = deg[v]
        _peel_row(indptr, indices, v, deg, bins, pos, vert)
        if directed:
            _peel_row(cindptr, cindices, v, deg, bins, pos, vert)
    return top


__all__ = ["bz_cores"]
