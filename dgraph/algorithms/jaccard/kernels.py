"""The Jaccard kernels' interface and their vectorized reference (numpy or CuPy, ``kernels="generic"``).

Everything works on a *row table*: the simple rows ``S(v)`` (distinct
neighbors other than ``v``, sorted) of some vertices, as a CSR ``tptr`` /
``tnbr`` over table rows, with ``tloop[r]`` = 1 when the vertex of row ``r``
has a self loop and ``where[x]`` = the table row of vertex ``x`` (-1: not in
the table).  NetworkX's neighbor set ``N(v)`` is ``S(v)`` plus ``v`` itself
when it has a self loop, so ``deg(v) = |S(v)| + loop(v)``.

Three kernels, each with a numba twin in :mod:`.cpu` (chosen by the
``implementation`` string of :func:`dgraph.algorithms.jaccard.implementation`):

- :func:`pair_common`: per pair (table rows ``ru``, ``rv``, vertex ``v``):
  ``|S(u) & S(v)|`` and whether ``v`` is a neighbor of ``u``;
- :func:`two_hop_counts`: per row ``u``, the number of vertices ``w > u`` at
  distance exactly two (sharing a neighbor, not adjacent);
- :func:`two_hop_pairs`: those pairs, ``w`` ascending per ``u``, with their
  number of common neighbors.

and :func:`coefficients` / :func:`two_hop_coefficients`, where the coefficient is
computed from those integers (the same float64 division NetworkX does, so the
same bits; the numba listing kernel divides the same way in place).

The vectorized versions expand their work in chunks of at most ``CHUNK``
elements (membership checks, or two-hop paths), except a single pair or row
whose own work is larger (it is expanded whole: at most the table's arcs).
"""

from __future__ import annotations

import numpy as np

from ...backend.primitives import expand, group_starts, row_ids

#: at most this many checks (pairs) or two-hop paths (all pairs) are expanded at once
CHUNK = 1 << 21


def bincount(xp, idx, size):
    if len(idx) == 0 or size == 0:
        return xp.zeros(size, dtype=np.int64)
    return xp.bincount(idx, minlength=size).astype(np.int64, copy=False)


def sort_unique(xp, keys):
    """Sorted distinct keys (numpy: a sort and a mask; numpy >= 2.3's ``np.unique`` hashes, slower here)."""
    if xp is not np:
        return xp.unique(keys)
    keys = np.sort(keys)
    return keys[group_starts(keys)] if len(keys) else keys


def simple_rows(xp, indptr, indices, lrows, gids, n):
    """``(tptr, tnbr, tloop)``: the simple rows of local CSR rows ``lrows`` (vertices ``gids``), in order.

    Duplicate arcs and self loops go (a self loop sets ``tloop``); each row comes out sorted."""
    m = len(lrows)
    seg, eid = expand(indptr, lrows)
    x = indices[eid].astype(np.int64, copy=False)
    loop = x == gids[seg]
    tloop = (bincount(xp, seg[loop], m) > 0).astype(np.int8)
    keep = ~loop
    keys = sort_unique(xp, seg[keep] * max(n, 1) + x[keep])
    row = keys // max(n, 1)
    tnbr = keys - row * max(n, 1)
    tptr = xp.zeros(m + 1, dtype=np.int64)
    xp.cumsum(bincount(xp, row, m), out=tptr[1:])
    return tptr, tnbr, tloop


def sub_rows(xp, tptr, tnbr, rows):
    """``(lengths, neighbors)`` of table rows ``rows``: a CSR slice to send to other shards."""
    seg, eid = expand(tptr, rows)
    return (tptr[rows + 1] - tptr[rows]), tnbr[eid]


def chunk_bounds(xp, work, limit=CHUNK):
    """Cut ``range(len(work))`` into pieces of at most ``limit`` total work (a single item may pass it)."""
    m = len(work)
    if m == 0:
        return []
    cum = xp.cumsum(work)
    total = int(cum[-1])
    cuts = np.arange(limit, total, limit, dtype=np.int64)
    inner = xp.searchsorted(cum, xp.asarray(cuts), side="left").tolist() if len(cuts) else []
    bounds = sorted(set([0, *[min(int(b) + 1, m) for b in inner], m]))
    return list(zip(bounds[:-1], bounds[1:]))


# -- pairs -------------------------------------------------------------------------------------

def pair_common(xp, tptr, tnbr, ru, rv, v, n, limit=CHUNK):
    """``(common, adjacent)`` per pair: ``|S(u) & S(v)|`` (int64) and ``v in S(u)`` (int8).

    The shorter row of each pair is expanded and each of its vertices looked up in the longer
    one (one sorted key per table arc, ``row * n + neighbor``, and ``searchsorted``)."""
    P = len(ru)
    common = xp.zeros(P, dtype=np.int64)
    adj = xp.zeros(P, dtype=np.int8)
    if P == 0 or len(tnbr) == 0:
        return common, adj
    nn = max(n, 1)
    tkeys = row_ids(tptr).astype(np.int64, copy=False) * nn + tnbr      # sorted: rows, then neighbors
    lens = tptr[1:] - tptr[:-1]
    la, lb = lens[ru], lens[rv]
    swap = la > lb
    a = xp.where(swap, rv, ru)
    b = xp.where(swap, ru, rv)
    for p0, p1 in chunk_bounds(xp, xp.minimum(la, lb), limit):
        seg, eid = expand(tptr, a[p0:p1])
        if len(eid) == 0:
            continue
        q = b[p0:p1][seg] * nn + tnbr[eid]
        pos = xp.minimum(xp.searchsorted(tkeys, q), len(tkeys) - 1)
        common[p0:p1] += bincount(xp, seg[tkeys[pos] == q], p1 - p0)
    q = ru.astype(np.int64, copy=False) * nn + v
    pos = xp.minimum(xp.searchsorted(tkeys, q), len(tkeys) - 1)
    adj[...] = (tkeys[pos] == q).astype(np.int8)
    return common, adj


def coefficients(xp, common, adjacent, deg_u, deg_v, loop_u, loop_v, same):
    """NetworkX's ``|N(u) & N(v) - {u, v}| / |N(u) | N(v)|`` (0 where the union is empty).

    ``common = |S(u) & S(v)|`` (which is ``N(u) & N(v) - {u, v}``: a simple row holds neither end of
    its own vertex), ``deg = |N|``; ``N(u) & N(v)`` itself adds ``v`` and ``u`` where the pair is
    adjacent and the end has a self loop.  For ``u == v`` the union is ``N(u)``."""
    full = common + adjacent.astype(np.int64) * (loop_u.astype(np.int64) + loop_v.astype(np.int64))
    union = xp.where(same, deg_u, deg_u + deg_v - full)
    ratio = common.astype(np.float64) / xp.maximum(union, 1).astype(np.float64)
    return xp.where(union > 0, ratio, 0.0)


def two_hop_coefficients(xp, common, deg_u, deg_w):
    """:func:`coefficients` of pairs at distance two (not adjacent, ``common >= 1``): ``c / (du + dw - c)``."""
    return common.astype(np.float64) / (deg_u + deg_w - common).astype(np.float64)


# -- all pairs at distance two ------------------------------------------------------------------

def wedges(xp, tptr, tnbr, where, urows):
    """Two-hop paths leaving each of the table rows ``urows`` (``sum |S(x)|`` over ``x`` in ``S(u)``):
    the work and the scratch of :func:`two_hop_pairs` for them."""
    lens = tptr[1:] - tptr[:-1]
    seg, eid = expand(tptr, urows)
    if len(eid) == 0:
        return xp.zeros(len(urows), dtype=np.int64)
    cs = xp.zeros(len(eid) + 1, dtype=np.int64)
    xp.cumsum(lens[where[tnbr[eid]]], out=cs[1:])
    ends = xp.zeros(len(urows) + 1, dtype=np.int64)
    xp.cumsum(tptr[urows + 1] - tptr[urows], out=ends[1:])
    return cs[ends[1:]] - cs[ends[:-1]]


def _two_hop(xp, tptr, tnbr, where, urows, ugid, n):
    """Sorted keys ``i * n + w`` of the distance-two pairs of rows ``urows[i]`` (``w > ugid[i]``) and
    their common-neighbor counts."""
    nn = max(n, 1)
    seg1, e1 = expand(tptr, urows)
    x = tnbr[e1]
    near = seg1 * nn + x                         # sorted: the rows in order, each row's neighbors sorted
    seg2, e2 = expand(tptr, where[x])
    i = seg1[seg2]
    w = tnbr[e2]
    keep = w > ugid[i]
    keys = xp.sort(i[keep] * nn + w[keep])
    if len(keys) == 0:
        return keys, xp.zeros(0, dtype=np.int64)
    first = xp.flatnonzero(group_starts(keys))
    ends = xp.empty_like(first)
    ends[:-1] = first[1:]
    ends[-1] = len(keys)
    keys, counts = keys[first], (ends - first).astype(np.int64)
    if len(near):
        pos = xp.minimum(xp.searchsorted(near, keys), len(near) - 1)
        far = near[pos] != keys
        keys, counts = keys[far], counts[far]
    return keys, counts


def two_hop_counts(xp, tptr, tnbr, where, urows, ugid, n, limit=CHUNK):
    """Per row ``urows[i]``: how many ``w > ugid[i]`` are at distance exactly two from it."""
    out = xp.zeros(len(urows), dtype=np.int64)
    for a, b in chunk_bounds(xp, wedges(xp, tptr, tnbr, where, urows), limit):
        keys, _ = _two_hop(xp, tptr, tnbr, where, urows[a:b], ugid[a:b], n)
        out[a:b] = bincount(xp, keys // max(n, 1), b - a)
    return out


def two_hop_pairs(xp, tptr, tnbr, where, urows, ugid, n, limit=CHUNK):
    """``(i, w, common)``: the distance-two pairs ``(ugid[i], w)``, ``w > ugid[i]``, ordered by ``i``
    then ``w``, with their numbers of common neighbors."""
    nn = max(n, 1)
    parts = []
    for a, b in chunk_bounds(xp, wedges(xp, tptr, tnbr, where, urows), limit):
        keys, counts = _two_hop(xp, tptr, tnbr, where, urows[a:b], ugid[a:b], n)
        i = keys // nn
        parts.append((i + a, keys - i * nn, counts))
    if not parts:
        empty = xp.zeros(0, dtype=np.int64)
        return empty, empty, empty
    return tuple(xp.concatenate([p[k] for p in parts]) for k in range(3))


# -- dispatch: the implementation string picks the numba kernels or the vectorized ones ------------

def run_pair_common(impl, xp, tptr, tnbr, ru, rv, v, n):
    """:func:`pair_common` by ``impl`` ('cpu-numba': :func:`.cpu.pair_common` over the threads)."""
    if impl != "cpu-numba":
        return pair_common(xp, tptr, tnbr, ru, rv, v, n)
    from . import cpu  # noqa: PLC0415

    common = np.zeros(len(ru), dtype=np.int64)
    adj = np.zeros(len(ru), dtype=np.int8)
    if len(ru):
        lens = tptr[1:] - tptr[:-1]
        arcs = int(lens[ru].sum() + lens[rv].sum())
        cpu.kernel("pair_common", arcs)(tptr, tnbr, ru, rv, v.astype(tnbr.dtype, copy=False), common, adj)
    return common, adj


def threads_for(rows, n, arrays):
    """Threads for a numba two-hop kernel: at most one per row, and only as many as have room for
    their ``arrays`` scratch arrays of ``n`` int64 each (a quarter of the free host memory at most;
    GraphTooLargeError when even one thread's does not fit)."""
    from ...backend.device_memory import host_available, require_host  # noqa: PLC0415
    from ...jit import num_threads  # noqa: PLC0415

    per_thread = 8 * max(n, 1) * arrays
    T = max(1, min(num_threads(), rows))
    if T > 1:
        T = max(1, min(T, host_available()[0] // 4 // per_thread))
    require_host(T * per_thread, f"jaccard: the scratch of {T} thread(s) over {n:,} vertices")
    return T


def _arcs(tptr, urows):
    """The arcs of rows ``urows`` (what sets the two-hop work: each leads to a row read whole)."""
    return int((tptr[urows + 1] - tptr[urows]).sum()) if len(urows) else 0


def _scratch(n, T):
    return np.full((T, max(n, 1)), -1, dtype=np.int64)


def run_two_hop_counts(impl, xp, tptr, tnbr, where, urows, ugid, n):
    """:func:`two_hop_counts` by ``impl``."""
    if impl != "cpu-numba":
        return two_hop_counts(xp, tptr, tnbr, where, urows, ugid, n)
    from . import cpu  # noqa: PLC0415

    counts = np.zeros(len(urows), dtype=np.int64)
    if len(urows):
        arcs = _arcs(tptr, urows)
        T = threads_for(len(urows), n, 1) if arcs >= cpu.SERIAL_ARCS else 1
        cpu.kernel("two_hop_count", arcs)(tptr, tnbr, where, urows, ugid, _scratch(n, T), counts)
    return counts


def run_two_hop_pairs(impl, xp, tptr, tnbr, where, urows, ugid, n, counts, degree):
    """``(i, w, jaccard)``: :func:`two_hop_pairs` by ``impl``, with the coefficients (``degree``: every
    vertex's ``|N|``).  ``counts``: :func:`two_hop_counts` of the same rows (the numba kernel writes each
    row's pairs at their offset, over the threads, dividing as it goes)."""
    if impl != "cpu-numba":
        i, w, c = two_hop_pairs(xp, tptr, tnbr, where, urows, ugid, n)
        return i, w, two_hop_coefficients(xp, c, degree[ugid[i]], degree[w])
    from . import cpu  # noqa: PLC0415

    offsets = np.zeros(len(urows) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    total = int(offsets[-1])
    out_v = np.empty(total, dtype=np.int64)
    out_p = np.empty(total, dtype=np.float64)
    if total:
        arcs = _arcs(tptr, urows)
        T = threads_for(len(urows), n, 2) if arcs >= cpu.SERIAL_ARCS else 1
        cpu.kernel("two_hop_emit", arcs)(tptr, tnbr, where, urows, ugid, degree, offsets, _scratch(n, T),
                                         np.zeros((T, max(n, 1)), dtype=np.int64), out_v, out_p)
    i = np.repeat(np.arange(len(urows), dtype=np.int64), counts)
    return i, out_v, out_p


__all__ = ["CHUNK", "simple_rows", "sub_rows", "pair_common", "coefficients", "wedges", "two_hop_counts",
           "two_hop_pairs", "two_hop_coefficients", "run_pair_common", "run_two_hop_counts", "run_two_hop_pairs"]
