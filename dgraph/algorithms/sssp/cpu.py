"""CPU (numpy backend) kernels for SSSP, compiled with numba, and the Program's steps on them.

The fused twins of the vectorized steps in :mod:`dgraph.algorithms.sssp.program`
(which stay the reference): the same inputs, the same float64 expressions,
the same outputs bit for bit.  The implementations ``cpu-numba*`` run them
(:func:`dgraph.algorithms.sssp.program.implementation`); the end of this
module is what the Program calls (:func:`relax_step`, :func:`receive_one`,
:func:`parents`).

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

import numba
from numba import prange

from ...engine.program import Contribution
from ...jit import inline as _inline
from ...jit import jit as _jit
from ...jit import pjit as _pjit
from .program import owned_frontier


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
                if c < b or (c == b and hu < hops[v] and c < np.inf):  # an overflowing sum is no path
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


# -- the one-shard run: many supersteps in one call ------------------------------------------------

#: arcs whose targets' distances are gathered before they are compared (memory-level parallelism)
GATHER = 128

#: the far pile's window, in buckets: entries under ``wend`` (a bucket bound WINDOW - 1 buckets past
#: the bucket last taken from the rest) sit in the near part, which is all a next bucket scans; the
#: rest is scanned once every time the near part runs dry.  Before, every next bucket scanned the
#: whole pile (rmat20 at delta 0.005: ~600k entries, ~4 ms, 400 times).
WINDOW = 16


@_inline
def bound_above(closest, bound, delta):
    """The end of the delta-bucket holding ``closest``: the smallest ``bound + k * delta`` above it
    (k >= 1; float rounding stepped over).  The fused run's next bucket and the Program's both use it
    (the CUDA twin is in sssp_steps.cu)."""
    if np.isinf(delta):
        return np.inf
    kk = np.floor((closest - bound) / delta) + 1.0
    nb = bound + max(kk, 1.0) * delta
    while nb <= closest:
        nb = max(nb + delta, np.nextafter(closest, np.inf))
    return nb


@_inline
def _live(arr, count, pending, mark):
    """arr[:count] -> its distinct pending entries, in place (``mark`` clear before and after)."""
    m = 0
    for i in range(count):
        x = arr[i]
        if pending[x] and not mark[x]:
            mark[x] = True
            arr[m] = x
            m += 1
    for i in range(m):
        mark[arr[i]] = False
    return m


@_inline
def _take_below(src, nsrc, dst, ndst, dist, limit):
    """Move the entries of src[:nsrc] with dist < limit to dst[ndst:]; -> (nsrc, ndst) after."""
    r = 0
    for i in range(nsrc):
        x = src[i]
        if dist[x] < limit:
            dst[ndst] = x
            ndst += 1
        else:
            src[r] = x
            r += 1
    return r, ndst


@numba.njit(cache=True)  # not inlined: the parallel caller's array analysis rejects its two result sizes
def _room(arr, used, extra):
    """arr, grown (doubled) when ``used + extra`` entries do not fit."""
    if used + extra <= arr.shape[0]:
        return arr
    grown = np.empty(max(2 * arr.shape[0], used + extra), dtype=arr.dtype)
    grown[:used] = arr[:used]
    return grown


@_inline
def _closest(arr, count, dist):
    c = np.inf
    for i in range(count):
        d = dist[arr[i]]
        if d < c:
            c = d
    return c


@_pjit
def run_steps(indptr, indices, weights, weighted, dist, hops, pending, front, nf, pile, npile, bound, delta,
              limit, fd, fh, mark, touched, rec_front, rec_far, rec_bound, rec_improved, rec_edges,
              par_min, cum, tbd, tbh, tmark, tlist, tcount):
    """Up to ``limit`` supersteps (at most ``len(rec_front)``) of the single whole shard, exactly as
    the Program's fused superstep + receive (+ next bucket) give them, in one call.

    The relaxation writes ``dist``/``hops`` in place: every candidate uses the frontier's distances
    and hop counts as the superstep began (snapshot ``fd``, ``fh``), and a target compares against its
    running best, which is what the scratch pair of :func:`relax` holds; so the improved set, their
    final (distance, hops) and every counter are the same.  ``front[:nf]`` is the frontier,
    ``pile[:npile]`` the far pile (stale entries and repeats kept, as the Program keeps them).
    A superstep over at least ``par_min`` arcs is relaxed by ``T = len(tcount)`` threads, each over an
    equal share of the arcs with its own running bests (``tbd``, ``tbh``, ``tmark``, ``tlist``: T x n),
    compared first against the distances the superstep began with, then merged by the same
    lexicographic minimum: the same result again.
    Returns ``(steps, nf, pile, npile, bound)`` (the pile may have been reallocated) and fills the
    per-superstep records.
    """
    T = tcount.shape[0]
    gbuf = np.empty(GATHER, dtype=np.float64)
    steps = 0
    n = dist.shape[0]
    # the pile: ``npile`` counts its entries as the Program keeps them (stale ones and repeats: the
    # records' "far"); held as a near part (entries under wend) and a far part; ``P`` vertices are
    # pending, each with an entry
    wend = np.inf if np.isinf(delta) else bound + (WINDOW - 1) * delta
    near = np.empty(max(npile, 16), dtype=pile.dtype)
    far = np.empty(max(npile, 16), dtype=pile.dtype)
    far[:npile] = pile[:npile]
    nfar, nnear = _take_below(far, npile, near, 0, dist, wend)
    P = 0
    for x in range(n):
        if pending[x]:
            P += 1
    while nf > 0 and steps < limit and steps < rec_front.shape[0]:
        for i in range(nf):
            u = front[i]
            fd[i] = dist[u]
            fh[i] = hops[u]
        edges = 0
        for i in range(nf):
            u = front[i]
            edges += indptr[u + 1] - indptr[u]
        k = 0
        if edges < par_min or T == 1:
            # in place: a target compares against its running best (dist/hops written as it improves)
            # each row in blocks of GATHER arcs: the targets' distances gathered first (independent
            # loads, no branch), then compared; a candidate that fails against the gathered value fails
            # against the live one (distances only fall), one that passes is checked again live
            for i in range(nf):
                u = front[i]
                du = fd[i]
                hu = fh[i] + 1
                e = indptr[u]
                hi = indptr[u + 1]
                while e < hi:
                    m = min(GATHER, hi - e)
                    for j in range(m):
                        gbuf[j] = dist[indices[e + j]]
                    for j in range(m):
                        if weighted:
                            c = du + np.float64(weights[e + j])
                        else:
                            c = du + 1.0
                        if c <= gbuf[j] and c < np.inf:  # an overflowing sum is no path
                            v = indices[e + j]
                            dv = dist[v]
                            if c < dv or (c == dv and hu < hops[v]):
                                dist[v] = c
                                hops[v] = hu
                                if not mark[v]:
                                    mark[v] = True
                                    touched[k] = v
                                    k += 1
                    e += m
        else:
            # T threads over equal shares of the frontier's arcs, each with its own running bests;
            # dist/hops are only read, then the bests are merged by the lexicographic minimum
            cum[0] = 0
            for i in range(nf):
                u = front[i]
                cum[i + 1] = cum[i] + indptr[u + 1] - indptr[u]
            for t in prange(T):
                a = edges * t // T
                b = edges * (t + 1) // T
                i = np.searchsorted(cum[:nf + 1], a, side="right") - 1
                kt = 0
                pos = a
                tb = np.empty(GATHER, dtype=np.float64)
                while pos < b:
                    u = front[i]
                    du = fd[i]
                    hu = fh[i] + 1
                    end = min(b, cum[i + 1])
                    base = indptr[u] - cum[i]
                    e0 = base + pos
                    e1 = base + end
                    while e0 < e1:
                        m = min(GATHER, e1 - e0)
                        for j in range(m):
                            tb[j] = dist[indices[e0 + j]]
                        for j in range(m):
                            e = e0 + j
                            if weighted:
                                c = du + np.float64(weights[e])
                            else:
                                c = du + 1.0
                            dv = tb[j]  # dist is only read in this branch: the gathered value is live
                            if c < dv or (c == dv and hu < hops[indices[e]] and c < np.inf):
                                v = indices[e]
                                if tmark[t, v]:
                                    bb = tbd[t, v]
                                    if c < bb or (c == bb and hu < tbh[t, v]):
                                        tbd[t, v] = c
                                        tbh[t, v] = hu
                                else:
                                    tmark[t, v] = True
                                    tbd[t, v] = c
                                    tbh[t, v] = hu
                                    tlist[t, kt] = v
                                    kt += 1
                        e0 += m
                    pos = end
                    i += 1
                tcount[t] = kt
            for t in range(T):
                for j in range(tcount[t]):
                    v = tlist[t, j]
                    tmark[t, v] = False
                    c = tbd[t, v]
                    hu = tbh[t, v]
                    if not mark[v]:
                        mark[v] = True
                        touched[k] = v
                        k += 1
                        dist[v] = c
                        hops[v] = hu
                    elif c < dist[v] or (c == dist[v] and hu < hops[v]):
                        dist[v] = c
                        hops[v] = hu
        if k * 16 > n:  # many: read them off the marks in order (a scan of n flags beats a sort)
            j = 0
            for x in range(n):
                if mark[x]:
                    touched[j] = x
                    j += 1
        # (fewer: left in discovery order -- the results do not depend on the frontier's order)
        near = _room(near, nnear, k)
        far = _room(far, nfar, k)
        nf = 0
        for i in range(k):
            x = touched[i]
            mark[x] = False
            dx = dist[x]
            if dx < bound:
                if pending[x]:
                    P -= 1
                pending[x] = False
                front[nf] = x
                nf += 1
            else:
                if not pending[x]:
                    P += 1
                pending[x] = True
                npile += 1
                if dx < wend:
                    near[nnear] = x
                    nnear += 1
                else:
                    far[nfar] = x
                    nfar += 1
        if nf == 0 and npile > 0:  # the next bucket: the closest pending vertex's
            nnear = _live(near, nnear, pending, mark)
            if nnear == 0:  # the near part ran dry: the window moves to the closest far vertex
                nfar = _live(far, nfar, pending, mark)
                if nfar > 0:
                    first = bound_above(_closest(far, nfar, dist), bound, delta)
                    wend = np.inf if np.isinf(delta) else first + (WINDOW - 1) * delta
                    near = _room(near, 0, nfar)
                    nfar, nnear = _take_below(far, nfar, near, 0, dist, wend)
            if nnear > 0:
                bound = bound_above(_closest(near, nnear, dist), bound, delta)
                if bound > wend:  # (a rounding step past the window: take the far part's share too)
                    near = _room(near, nnear, nfar)
                    nfar, nnear = _take_below(far, nfar, near, nnear, dist, bound)
                    nnear = _live(near, nnear, pending, mark)
                    wend = bound
                nnear, nf = _take_below(near, nnear, front, 0, dist, bound)
                for i in range(nf):
                    pending[front[i]] = False
                P -= nf
            npile = P
        rec_front[steps] = nf
        rec_far[steps] = npile
        rec_bound[steps] = bound
        rec_improved[steps] = k
        rec_edges[steps] = edges
        steps += 1
    # the pile handed back: the pending vertices, padded with repeats to npile entries (the Program
    # dedupes and filters its pile at every next bucket, so repeats change nothing but the count)
    pile = _room(pile, 0, max(npile, 1))
    m = 0
    for x in range(n):
        if pending[x]:
            pile[m] = x
            m += 1
    for i in range(m, npile):
        pile[i] = pile[0] if m > 0 else 0
    return steps, nf, pile, npile, bound


@_pjit
def tight_parents_pull(indptr, indices, weights, weighted, dist, hops, source, parents):
    """:func:`tight_parents` of the single whole shard of an *undirected* graph, by target over the
    CPU's threads: the in-edges of ``v`` are its row (an edge's two arcs carry the same weight), whose
    targets are sorted, so the first tight, one-hop-closer neighbor is the smallest such ``u``."""
    n = indptr.shape[0] - 1
    for v in prange(n):
        dv = dist[v]
        if not dv < np.inf or v == source:
            continue
        hv = hops[v]
        for e in range(indptr[v], indptr[v + 1]):
            u = indices[e]
            if hops[u] + 1 == hv:
                if weighted:
                    c = dist[u] + np.float64(weights[e])
                else:
                    c = dist[u] + 1.0
                if c == dv:
                    parents[v] = u
                    break
    return parents


# -- the Program's steps on the numpy backend (the vectorized code in program.py is their reference) --

def kernel_weights(shard):
    """(weights, weighted) as the kernels take them: an empty array for an unweighted graph."""
    if shard.weights is None:
        return np.empty(0, dtype=np.float64), False
    return shard.weights, True


def scratch(shard, st):
    """The relaxation's scratch arrays of size n (``bd``, ``bh``, ``mark``, ``touched``), once a run."""
    n = shard.n
    if st.bd is None:
        st.bd = np.empty(n, dtype=np.float64)
        st.bh = np.empty(n, dtype=np.int64)
        st.mark = np.zeros(n, dtype=bool)
        st.touched = np.empty(n, dtype=shard.indices.dtype)


def relax_step(shard, st):
    """SSSP.superstep on the numpy backend, as one numba pass (same contribution, bit for bit)."""
    scratch(shard, st)
    rows, gids = owned_frontier(shard, st.frontier)
    w, weighted = kernel_weights(shard)
    v, d, h, edges = relax(shard.indptr, shard.indices, w, weighted, rows, gids, st.dist, st.hops,
                           st.bd, st.bh, st.mark, st.touched)
    return Contribution({"v": v, "d": d, "h": h}, {"edges": int(edges)})


def receive_one(st, c, next_bucket):
    """SSSP.receive of a single contribution on the numpy backend: the same updates, in one numba
    pass (``next_bucket``: the Program's, when near is empty)."""
    v = c.arrays["v"]
    frontier, nfar = apply_split(v, c.arrays["d"], c.arrays["h"], st.dist, st.hops, st.bound, st.pending,
                                 st.touched)
    if nfar:
        st.pile = np.concatenate([st.pile, st.touched[:nfar]])
    if len(frontier) == 0 and len(st.pile):
        frontier = next_bucket(st)
    st.frontier = frontier
    return {"frontier": len(frontier), "far": len(st.pile), "bound": st.bound, "improved": len(v),
            "edges": int(c.counters["edges"])}


def parents(shard, st, source, whole):
    """The smallest tight, one-hop-closer in-neighbor per vertex over this shard's out-edges
    (st.big where none), as SSSP._candidates finds them; ``whole``: the shard is the whole graph
    (an undirected one is searched by target, over the CPU's threads)."""
    par = np.full(shard.n, st.big, dtype=shard.indices.dtype)
    w, weighted = kernel_weights(shard)
    if whole and not shard.directed:
        return tight_parents_pull(shard.indptr, shard.indices, w, weighted, st.dist, st.hops, source, par)
    tight_parents(shard.indptr, shard.indices, w, weighted, shard.row_base, shard.rows, st.dist,
                  st.hops, source, par)
    return par
