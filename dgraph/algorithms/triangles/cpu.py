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
#
# Four parallel passes on a CSR the generators and readers hand over simple (sorted rows, no self
# loop, no repeat): orient (its degrees are the row lengths, and the same pass proves them simple),
# count, merge.  A CSR that is not simple costs two more: its simple degrees, then the orientation
# again.  Each pass is one prange region: on the shared 2-core box a region costs a wake-up of the
# other thread, a time slice when it is busy elsewhere (2026-11-26: the grid's trivial sums took
# 17 ms of wall each at load 10), so the sums and the LCC values ride in the passes that exist.

from numba import prange  # noqa: E402
import numpy as np  # noqa: E402

from ...jit import pjit as _pjit  # noqa: E402
from ...jit import row_block  # noqa: E402


@_pjit
def orient_simple(indptr, indices, deg, odeg, onbr, part):
    """The oriented rows, taking every row as simple (its degree = its length).

    N+(v) = the neighbors x of v with (deg[x], x) > (deg[v], v), sorted by id, written into the
    row's own slots ``onbr[indptr[v]:indptr[v] + odeg[v]]``; ``deg[v]`` = the row length.
    ``part[b]`` (one row of 4 per block of rows, a block a thread) = (oriented edges, checks
    ``sum deg * odeg``, entries that break simplicity: a self loop or a target not above the one
    before it, largest degree).  A block's count of breaks > 0: the rows were not simple, the
    output is not to be used (:func:`undirected_counts` redoes it with :func:`simple_degrees`).
    """
    B = part.shape[0]
    for b in prange(B):
        r0, r1 = row_block(indptr, b, B)
        s = 0
        c = 0
        bad = 0
        big = 0
        for v in range(r0, r1):
            lo = indptr[v]
            hi = indptr[v + 1]
            dv = hi - lo
            k = lo
            prev = -1
            for e in range(lo, hi):
                x = indices[e]
                if x != v and x > prev:
                    dx = indptr[x + 1] - indptr[x]
                    if dx > dv or (dx == dv and x > v):
                        onbr[k] = x
                        k += 1
                else:
                    bad += 1
                prev = x
            o = k - lo
            deg[v] = dv
            odeg[v] = o
            s += o
            c += dv * o
            if dv > big:
                big = dv
        part[b, 0] = s
        part[b, 1] = c
        part[b, 2] = bad
        part[b, 3] = big


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
def oriented_rows(indptr, indices, deg, odeg, onbr, part):
    """The oriented row N+(v) = the distinct neighbors x of v with (deg[x], x) > (deg[v], v), sorted by
    id, into onbr[indptr[v]:indptr[v] + odeg[v]] (the row's own slots: no prefix sum, one pass);
    ``part[b]`` as :func:`orient_simple` gives it (no breaks counted)."""
    B = part.shape[0]
    for b in prange(B):
        r0, r1 = row_block(indptr, b, B)
        s = 0
        c = 0
        big = 0
        for v in range(r0, r1):
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
            o = k - indptr[v]
            odeg[v] = o
            s += o
            c += dv * o
            if dv > big:
                big = dv
        part[b, 0] = s
        part[b, 1] = c
        part[b, 2] = 0
        part[b, 3] = big


@_pjit
def count_oriented(optr, odeg, onbr, stamp, cnt):
    """Per-vertex triangle counts from the oriented rows: for every u, every w in N+(u), every x in
    N+(w) with x in N+(u) is the triangle {u, w, x}, found once; each of its three corners gets one.
    ``stamp`` (T x n zeros: u's mark is u + 1) and ``cnt`` (T x n zeros) are per-thread scratch;
    :func:`merge_counts` adds ``cnt`` over its first axis.  A zero is never written (a triangle-free
    region leaves its pages untouched).  Thread t takes the vertices t, t + T, t + 2T, ... (hubs are
    spread)."""
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
            mark = u + 1
            for e in range(a, b):
                st[onbr[e]] = mark
            cu = 0
            for e in range(a, b):
                w = onbr[e]
                cw = 0
                for f in range(optr[w], optr[w] + odeg[w]):
                    x = onbr[f]
                    if st[x] == mark:
                        cw += 1
                        ct[x] += 1
                if cw:
                    ct[w] += cw
                    cu += cw
            if cu:
                ct[u] += cu


@_pjit
def merge_counts(cnt, deg, tri, lcc, part):
    """tri[v] = the threads' counts of v added; with ``lcc`` of length n also
    ``lcc[v] = 2 t(v) / (d (d - 1))`` where d > 1, else 0 (TriangleProgram.finish's float64 steps,
    the same bits); ``part[b]`` = block b's sum of tri."""
    n = tri.shape[0]
    T = cnt.shape[0]
    B = part.shape[0]
    with_lcc = lcc.shape[0] == n
    for b in prange(B):
        v0 = n * b // B
        v1 = n * (b + 1) // B
        total = 0
        for v in range(v0, v1):
            s = 0
            for t in range(T):
                s += cnt[t, v]
            tri[v] = s
            total += s
            if with_lcc:
                d = np.int64(deg[v])
                if d > 1:
                    lcc[v] = np.float64(s * 2) / np.float64(d * (d - 1))
                else:
                    lcc[v] = 0.0
        part[b] = total


def undirected_counts(indptr, indices, threads, lcc=False):
    """(triangles per vertex, LCC values or None, simple arcs, oriented edges, checks, triangles) of an
    undirected CSR (both directions stored, rows sorted by target): the counts and stats
    TriangleProgram gives, and with ``lcc`` its values."""
    n = indptr.shape[0] - 1
    T = max(1, int(threads))
    ddt = np.int32 if indices.shape[0] < 2**31 else np.int64
    deg = np.empty(n, dtype=ddt)
    odeg = np.empty(n, dtype=ddt)
    onbr = np.empty(indices.shape[0], dtype=indices.dtype)
    part = np.zeros((T, 4), dtype=np.int64)
    orient_simple(indptr, indices, deg, odeg, onbr, part)
    if part[:, 2].any():  # not simple: its simple degrees first, then orient by them
        simple_degrees(indptr, indices, deg)
        oriented_rows(indptr, indices, deg, odeg, onbr, part)
    oriented, checks, big = int(part[:, 0].sum()), int(part[:, 1].sum()), int(part[:, 3].max())
    # a thread's count of v is at most v's triangles, d (d - 1) / 2: int32 where that fits
    cdt = np.int32 if big * (big - 1) // 2 < 2**31 else np.int64
    cnt = np.zeros((T, n), dtype=cdt)
    count_oriented(indptr, odeg, onbr, np.zeros((T, n), dtype=np.int32 if n < 2**31 - 1 else np.int64), cnt)
    tri = np.empty(n, dtype=np.int64)
    values = np.empty(n if lcc else 0, dtype=np.float64)
    sums = np.zeros(T, dtype=np.int64)
    merge_counts(cnt, deg, tri, values, sums)
    return tri, (values if lcc else None), oriented * 2, oriented, checks, int(sums.sum()) // 3
