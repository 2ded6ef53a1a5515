"""CPU (numpy backend) kernel for betweenness centrality on one whole shard, compiled with numba.

Brandes' two passes for one source at a time, on the CSR (and, for a
directed graph, the CSC), computing exactly what the BC Program's
supersteps compute (:mod:`dgraph.algorithms.bc.program`), the same bits:

- forward, level by level: ``sigma[v]`` of a level-``L`` vertex is the sum,
  in the in-edge order of its row, of ``sigma[u]`` over the in-neighbors at
  depth ``L - 1`` (the Program adds exact zeros for the others); its
  out-neighbors not yet reached get depth ``L + 1``;
- backward, from the deepest level up: ``delta[v] = sigma[v] * sum`` over the
  out-edges, in edge order, of ``coef[w] = (1 + delta[w]) / sigma[w]`` at the
  neighbors of depth ``L + 1`` (the Program's other terms are exact zeros);
- ``bc[v] += delta[v]`` (or NetworkX's endpoint terms), source by source in
  the order given (the Program's sorted order).

It also returns, per level, the numbers the Program reports per superstep
(vertices, out-arcs and in-arcs of the level), so a batched run gives the
same superstep records.  Scratch arrays are reset for the reached vertices
only, so a run over many sources costs O(reached) per source.
"""

from __future__ import annotations

import numpy as np

from ...jit import jit as _jit


@_jit
def brandes_one(indptr, indices, cindptr, cindices, directed, s, endpoints, bc, depth, sigma, delta, coef,
                order, lptr, cnt, oute, ine):
    """One source ``s``: forward + backward, ``bc`` updated; returns the deepest level ``D``.

    On entry ``depth`` is all -1 and ``sigma``, ``delta``, ``coef`` all 0 (left so on exit).
    ``order`` (n) and ``lptr`` (n + 2) hold the levels; ``cnt``, ``oute``, ``ine`` (n + 1) get, per
    level 0..D, its vertices, out-arcs and (directed, level > 0) in-arcs.
    """
    depth[s] = 0
    sigma[s] = 1.0
    order[0] = s
    lptr[0] = 0
    lptr[1] = 1
    tail = 1
    L = 0
    while True:
        a = lptr[L]
        b = lptr[L + 1]
        oe = 0
        ie = 0
        for i in range(a, b):
            v = order[i]
            lo = indptr[v]
            hi = indptr[v + 1]
            oe += hi - lo
            if L == 0 or directed:
                if L > 0:  # sigma from the in-edges of the level before
                    acc = 0.0
                    clo = cindptr[v]
                    chi = cindptr[v + 1]
                    ie += chi - clo
                    for e in range(clo, chi):
                        u = cindices[e]
                        if depth[u] == L - 1:
                            acc += sigma[u]
                    sigma[v] = acc
                for e in range(lo, hi):
                    w = indices[e]
                    if depth[w] < 0:
                        depth[w] = L + 1
                        order[tail] = w
                        tail += 1
            else:  # the in-edges are the out-edges: one pass pulls sigma and discovers
                acc = 0.0
                for e in range(lo, hi):
                    w = indices[e]
                    dw = depth[w]
                    if dw == L - 1:
                        acc += sigma[w]
                    elif dw < 0:
                        depth[w] = L + 1
                        order[tail] = w
                        tail += 1
                sigma[v] = acc
        cnt[L] = b - a
        oute[L] = oe
        ine[L] = ie
        if tail == b:
            break
        lptr[L + 2] = tail
        L += 1
    D = L
    for i in range(lptr[D], lptr[D + 1]):
        v = order[i]
        coef[v] = 1.0 / sigma[v]
    for L in range(D - 1, 0, -1):
        for i in range(lptr[L], lptr[L + 1]):
            v = order[i]
            acc = 0.0
            for e in range(indptr[v], indptr[v + 1]):
                w = indices[e]
                if depth[w] == L + 1:
                    acc += coef[w]
            dv = sigma[v] * acc
            delta[v] = dv
            coef[v] = (1.0 + dv) / sigma[v]
    if endpoints:
        for i in range(tail):
            v = order[i]
            if v == s:
                bc[v] += np.float64(tail - 1)
            else:
                bc[v] += delta[v] + 1.0
    else:
        for i in range(tail):
            v = order[i]
            bc[v] += delta[v]
    for i in range(tail):
        v = order[i]
        depth[v] = -1
        sigma[v] = 0.0
        delta[v] = 0.0
        coef[v] = 0.0
    return D


class Scratch:
    """The per-run scratch arrays of :func:`brandes_one` (size n)."""

    def __init__(self, n, vdt):
        self.depth = np.full(n, -1, dtype=np.int32)
        self.sigma = np.zeros(n, dtype=np.float64)
        self.delta = np.zeros(n, dtype=np.float64)
        self.coef = np.zeros(n, dtype=np.float64)
        self.order = np.empty(n, dtype=vdt)
        self.lptr = np.zeros(n + 2, dtype=np.int64)
        self.cnt = np.zeros(n + 1, dtype=np.int64)
        self.oute = np.zeros(n + 1, dtype=np.int64)
        self.ine = np.zeros(n + 1, dtype=np.int64)


def run_source(indptr, indices, cindptr, cindices, directed, s, endpoints, bc, sc):
    """Brandes from ``s`` into ``bc``; returns (D, vertices, out-arcs, in-arcs per level 0..D)."""
    D = int(brandes_one(indptr, indices, cindptr, cindices, directed, s, endpoints, bc, sc.depth, sc.sigma,
                        sc.delta, sc.coef, sc.order, sc.lptr, sc.cnt, sc.oute, sc.ine))
    return D, sc.cnt[:D + 1].copy(), sc.oute[:D + 1].copy(), sc.ine[:D + 1].copy()
