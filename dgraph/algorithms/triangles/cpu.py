"""CPU (numpy backend) kernel for the counting superstep of triangle counting and LCC, compiled with numba.

The sequential twin of :class:`dgraph.algorithms.triangles.program.TriangleProgram`'s
vectorized count (``kernels="generic"``, which expands every (v, u, w) check
and looks the key ``row(v) * n + w`` up with ``searchsorted``): here each
owned row ``v`` stamps its neighbors into a mark array (``stamp[x] = r``, so
nothing is reset between rows), then every ``w`` of the oriented ghost row
``N+(u)`` of every neighbor ``u`` is a hit exactly when ``stamp[w] == r``.
Same checks, same hits, so the same integer counts, bit for bit.
"""

from __future__ import annotations

from ...jit import jit as _jit


@_jit
def count_rows(pindptr, pnbr, gindptr, gnbr, gmult, stamp, tri, two):
    """Count, per owned row ``r``, the edges among its neighbors.

    ``pindptr``/``pnbr``: the owned rows (local row ``r``'s sorted, deduplicated
    neighbors are ``pnbr[pindptr[r]:pindptr[r + 1]]``, global ids).
    ``gindptr``/``gnbr``: the ghost table, a CSR over global ids of the
    oriented rows ``N+(u)``; ``gmult`` (int8, same length as ``gnbr``, or
    empty when there are no multiplicities) is the number of arcs, 1 or 2,
    of each oriented edge.  ``stamp``: int64 scratch of size ``n`` filled
    with -1.  Adds the hits of row ``r`` to ``tri[r]`` and those whose edge
    has arcs both ways to ``two[r]`` (only when ``gmult`` is given).
    Returns the number of checks (``sum over (v, u) of |N+(u)|``).
    """
    has_mult = gmult.shape[0] > 0
    checks = 0
    for r in range(pindptr.shape[0] - 1):
        lo = pindptr[r]
        hi = pindptr[r + 1]
        for e in range(lo, hi):
            stamp[pnbr[e]] = r
        c = 0
        c2 = 0
        for e in range(lo, hi):
            u = pnbr[e]
            a = gindptr[u]
            b = gindptr[u + 1]
            checks += b - a
            if has_mult:
                for f in range(a, b):
                    if stamp[gnbr[f]] == r:
                        c += 1
                        if gmult[f] == 2:
                            c2 += 1
            else:
                for f in range(a, b):
                    if stamp[gnbr[f]] == r:
                        c += 1
        tri[r] += c
        two[r] += c2
    return checks


# -- the one-shard undirected fast path: orientation by (degree, id), stamp, threads ----------------

from numba import prange  # noqa: E402
import numpy as np  # noqa: E402

from ...jit import pjit as _pjit  # noqa: E402


@_pjit
def simple_degrees(indptr, indices, deg):
    """deg[v] = distinct neighbors of v other than v (rows sorted by target, repeats adjacent)."""
    n = indptr.shape[0] - 1
    for v in prange(n):
        c = 0
        prev = -1
        for e in range(indptr[v], indptr[v + 1]):
            x = indices[e]
            if x != v and x != prev:
                c += 1
            prev = x
        deg[v] = c


@_pjit
def oriented_rows(indptr, indices, deg, odeg, onbr):
    """The oriented row N+(v) = the distinct neighbors x of v with (deg[x], x) > (deg[v], v), sorted by
    id, into onbr[indptr[v]:indptr[v] + odeg[v]] (the row's own slots: no prefix sum, one pass)."""
    n = indptr.shape[0] - 1
    for v in prange(n):
        k = indptr[v]
        prev = -1
        dv = deg[v]
        for e in range(indptr[v], indptr[v + 1]):
            x = indices[e]
            if x != v and x != prev:
                dx = deg[x]
                if dx > dv or (dx == dv and x > v):
                    onbr[k] = x
                    k += 1
            prev = x
        odeg[v] = k - indptr[v]


@_pjit
def count_oriented(optr, odeg, onbr, stamp, cnt):
    """Per-vertex triangle counts from the oriented rows: for every u, every w in N+(u), every x in
    N+(w) with x in N+(u) is the triangle {u, w, x}, found once; each of its three corners gets one.
    ``stamp`` (T x n, filled with -1) and ``cnt`` (T x n zeros) are per-thread scratch; the caller adds
    ``cnt`` over its first axis.  Thread t takes the vertices t, t + T, t + 2T, ... (hubs are spread)."""
    T = cnt.shape[0]
    n = odeg.shape[0]
    for t in prange(T):
        st = stamp[t]
        ct = cnt[t]
        for u in range(t, n, T):
            a = optr[u]
            b = a + odeg[u]
            if b - a < 2:
                continue
            for e in range(a, b):
                st[onbr[e]] = u
            cu = 0
            for e in range(a, b):
                w = onbr[e]
                cw = 0
                for f in range(optr[w], optr[w] + odeg[w]):
                    x = onbr[f]
                    if st[x] == u:
                        cw += 1
                        ct[x] += 1
                ct[w] += cw
                cu += cw
            ct[u] += cu


@_pjit
def sum_rows(cnt, out):
    n = out.shape[0]
    T = cnt.shape[0]
    for v in prange(n):
        s = 0
        for t in range(T):
            s += cnt[t, v]
        out[v] = s


@_pjit
def sums_of(deg, odeg):
    """(oriented edges, checks): the sum of odeg, the sum of deg * odeg."""
    s = 0
    c = 0
    for v in prange(deg.shape[0]):
        s += odeg[v]
        c += deg[v] * odeg[v]
    return s, c


def undirected_counts(indptr, indices, threads):
    """(triangles per vertex, simple degree, simple arcs, oriented edges, checks) of an undirected
    CSR (both directions stored, rows sorted by target): the counts and stats TriangleProgram gives."""
    import numpy as np  # noqa: PLC0415

    n = indptr.shape[0] - 1
    deg = np.empty(n, dtype=np.int64)
    simple_degrees(indptr, indices, deg)
    odeg = np.empty(n, dtype=np.int64)
    onbr = np.empty(indices.shape[0], dtype=indices.dtype)
    oriented_rows(indptr, indices, deg, odeg, onbr)
    T = max(1, int(threads))
    sdt = np.int32 if n < 2**31 else np.int64
    stamp = np.full((T, n), -1, dtype=sdt)
    cnt = np.zeros((T, n), dtype=np.int64)
    count_oriented(indptr, odeg, onbr, stamp, cnt)
    tri = np.empty(n, dtype=np.int64)
    sum_rows(cnt, tri)
    oriented, checks = sums_of(deg, odeg)
    return tri, deg, oriented * 2, oriented, checks


@_pjit
def lcc_values(tri, deg, out):
    """out[v] = 2 t(v) / (d (d - 1)) where d > 1, else 0: TriangleProgram.finish's float64 steps."""
    for v in prange(out.shape[0]):
        d = deg[v]
        if d > 1:
            out[v] = np.float64(tri[v] * 2) / np.float64(d * (d - 1))
        else:
            out[v] = 0.0
