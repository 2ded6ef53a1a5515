"""CPU (numpy backend) kernels for SSSP, compiled with numba.

The fused twins of the vectorized steps in :mod:`dgraph.algorithms.sssp`
(which stay the reference, and the CuPy path): the same inputs, the same
float64 expressions, the same outputs bit for bit.

``relax``: one superstep's advance + relaxation over the owned frontier
rows.  For every out-edge ``u -> v`` the candidate is ``(dist[u] + w,
hops[u] + 1)``; per target, the lexicographic (distance, hops) minimum of
the candidates that beat ``(dist[v], hops[v])`` is kept.  Instead of
gathering every frontier arc and sorting the targets (``unique``,
``searchsorted``), the best candidate per target accumulates in a scratch
pair of arrays of size ``n`` (``bd``, ``bh``); a target enters them (and
the ``touched`` list) on its first candidate that beats the current state,
so the scratch arrays never need resetting, only the ``mark`` flags of the
touched targets.  The lexicographic minimum is order-independent, and a
candidate that beats the running best also beats ``(dist[v], hops[v])``, so
this is exactly the vectorized result: ``v`` = the sorted touched list,
``d = bd[v]``, ``h = bh[v]``.  ``dist`` and ``hops`` are only read: every
candidate uses the distances the superstep started with.

``tight_parents``: after convergence, the smallest-id ``u`` per ``v`` over
the shard's out-edges with ``dist[v] < inf``, ``dist[u] + w == dist[v]``,
``hops[u] + 1 == hops[v]`` and ``v != source``, scatter-min'd into an array
of size ``n`` (initialized by the caller to the "no parent" value).
"""

from __future__ import annotations

import numpy as np

from .cpu_kernels import _jit


@_jit
def relax(indptr, indices, weights, weighted, rows, gids, dist, hops, bd, bh, mark, touched):
    """Relax the out-edges of local ``rows`` (global ids ``gids``); returns ``(v, d, h, edges)``:
    the improved targets (sorted), their best (distance, hops) and the number of arcs scanned.

    ``bd``, ``bh``, ``mark`` (all False between calls) and ``touched`` are
    scratch arrays of size ``n``.  ``weights`` is ignored (may be empty) when
    not ``weighted``.
    """
    k = 0
    edges = 0
    for i in range(rows.shape[0]):
        r = rows[i]
        u = gids[i]
        du = dist[u]
        hu = hops[u] + 1
        lo = indptr[r]
        hi = indptr[r + 1]
        edges += hi - lo
        for e in range(lo, hi):
            v = indices[e]
            if weighted:
                c = du + np.float64(weights[e])
            else:
                c = du + 1.0
            if mark[v]:
                b = bd[v]
                if c < b or (c == b and hu < bh[v]):
                    bd[v] = c
                    bh[v] = hu
            else:
                b = dist[v]
                if c < b or (c == b and hu < hops[v]):
                    mark[v] = True
                    bd[v] = c
                    bh[v] = hu
                    touched[k] = v
                    k += 1
    out = np.sort(touched[:k])
    d = np.empty(k, dtype=np.float64)
    h = np.empty(k, dtype=np.int64)
    for i in range(k):
        v = out[i]
        d[i] = bd[v]
        h[i] = bh[v]
        mark[v] = False
    return out, d, h, edges


@_jit
def apply_split(v, d, h, dist, hops, bound, pending, far):
    """Receive one (unique, sorted) contribution: write ``dist[v] = d``, ``hops[v] = h`` and split
    ``v`` by ``d < bound`` into the new near frontier (returned, in order; ``pending`` cleared) and
    ``far[:count]`` (``pending`` set); returns ``(frontier, count)``."""
    k = v.shape[0]
    front = np.empty(k, dtype=v.dtype)
    nf = 0
    nr = 0
    for i in range(k):
        x = v[i]
        dist[x] = d[i]
        hops[x] = h[i]
        if d[i] < bound:
            pending[x] = False
            front[nf] = x
            nf += 1
        else:
            pending[x] = True
            far[nr] = x
            nr += 1
    return front[:nf].copy(), nr


@_jit
def tight_parents(indptr, indices, weights, weighted, row_base, rows, dist, hops, source, parents):
    """parents[v] = min(parents[v], u) over the tight, one-hop-closer out-edges u -> v of every local row."""
    identity = rows.shape[0] == 0
    for r in range(indptr.shape[0] - 1):
        u = r + row_base if identity else rows[r]
        du = dist[u]
        hu = hops[u] + 1
        for e in range(indptr[r], indptr[r + 1]):
            v = indices[e]
            dv = dist[v]
            if dv < np.inf and v != source and hu == hops[v]:
                if weighted:
                    c = du + np.float64(weights[e])
                else:
                    c = du + 1.0
                if c == dv and u < parents[v]:
                    parents[v] = u
    return parents


def warm_up():
    """Compile both kernels for the common dtypes (benchmarks call this before timing)."""
    indptr = np.array([0, 1, 2], np.int64)
    dist = np.array([0.0, np.inf])
    hops = np.array([0, np.iinfo(np.int64).max], np.int64)
    for vdt in (np.int32, np.int64):
        indices = np.array([1, 0], vdt)
        none = np.empty(0, vdt)
        for w, weighted in ((np.empty(0, np.float64), False), (np.array([0.5, 1.0], np.float64), True),
                            (np.array([0.5, 1.0], np.float32), True)):
            relax(indptr, indices, w, weighted, np.array([0], vdt), np.array([0], vdt), dist, hops,
                  np.empty(2), np.empty(2, np.int64), np.zeros(2, bool), np.empty(2, vdt))
            if weighted:
                continue
            apply_split(np.array([1], vdt), np.array([1.0]), np.array([1], np.int64), dist.copy(), hops.copy(),
                        0.5, np.zeros(2, bool), np.empty(2, vdt))
            tight_parents(indptr, indices, w, weighted, 0, none, dist, hops, 0,
                          np.full(2, np.iinfo(vdt).max, vdt))
