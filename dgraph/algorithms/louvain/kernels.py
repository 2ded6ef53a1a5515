"""Louvain's per-superstep kernels, vectorized (numpy or CuPy through ``xp``): the reference.

Every sum here is over int64 weights (the graph's weights scaled to integers once,
:func:`scale_exponent`), so sums are exact and do not depend on the order they are added in: a
shard's partial sums and the whole graph's agree to the bit, whatever the partitioning, the
executor, the backend or the thread count.  Floating point enters only in the gain of one
candidate move (:func:`move_step`), an expression of exact integers evaluated the same way by
this reference and by the numba kernel (:mod:`dgraph.algorithms.louvain.cpu`).

The local-moving rule of one superstep (all vertices of the level at once, from the same
replicated state): vertex ``v`` in community ``own`` weighs each neighbor community ``c`` by

    score(c) = K(v, c) - res_d * (sout(v) * tin(c) + sin(v) * tout(c))

where ``K(v, c)`` is the weight of ``v``'s arcs to (and, directed, from) ``c``'s members other than
``v``, ``tout``/``tin`` the communities' total out-/in-strengths (undirected: one strength, the
weighted degree with a self loop counted twice) with ``v`` taken out of ``own``, and ``res_d`` the
resolution over ``2m`` (undirected, ``m`` the total edge weight) or over ``m`` (directed):
NetworkX's ``louvain_communities`` gain, times ``m``.  ``v`` wants the best neighbor community when
it scores strictly more than ``own``; among equal scores the smallest community id.  It moves when
it also draws :func:`coins` this superstep: a counter-based coin keyed by the seed, the level, the
superstep of the level and the vertex, up with probability ``2**-shift`` (the program sets
``shift``: fewer vertices move at once where their moves interfere, see
:mod:`dgraph.algorithms.louvain.program`).
"""

from __future__ import annotations

import math

import numpy as np

from ...backend.primitives import group_starts, scatter_max
from ...generators.rng import GOLDEN, mix64, mix64_int, stream_key, u64

#: the random stream of Louvain's coins (a stream number of :mod:`dgraph.generators.rng`)
STREAM = 11
#: the random stream the seeds of the later tries are drawn from
TRIES_STREAM = 12
#: the weight sums stay below 2**SCALE_BITS (int64 holds 2**63)
SCALE_BITS = 60


def scale_exponent(max_weight, arcs, integer):
    """``e`` such that every weight times ``2**e``, rounded to an integer, keeps the sum of all of them
    (at most ``2 * max_weight * arcs``: undirected loops count twice) below ``2**(SCALE_BITS + 1)``.

    Integer weights whose sum fits keep their value (``e = 0``, exact modularity).  The bound is from
    the largest weight and the arc count, not from a float sum, so every partitioning finds the same
    ``e``.  ``max_weight`` 0 (no weight): ``e = 0``.
    """
    if max_weight <= 0 or arcs <= 0:
        return 0
    bound = float(max_weight) * float(arcs)
    if integer and bound <= 2.0 ** SCALE_BITS:
        return 0
    mant, exp = math.frexp(bound)        # bound = mant * 2**exp, 0.5 <= mant < 1
    ceil_log2 = exp - 1 if mant == 0.5 else exp
    return SCALE_BITS - ceil_log2


def quantize(xp, weights, e, n):
    """int64 weights: ``round(w * 2**e)`` (``weights`` None: every arc weighs 1)."""
    if weights is None:
        return xp.ones(n, dtype=np.int64)
    if e == 0 and weights.dtype.kind in "iu":
        return weights.astype(np.int64, copy=False)
    return xp.rint(xp.ldexp(weights.astype(np.float64, copy=False), e)).astype(np.int64)


def segment_sums(xp, indptr, values):
    """Per CSR row, the sum of ``values`` (int64, exact)."""
    csum = xp.zeros(len(values) + 1, dtype=np.int64)
    if len(values):
        xp.cumsum(values, out=csum[1:])
    return csum[indptr[1:]] - csum[indptr[:-1]]


def run_sums(xp, keys, values):
    """Sort by ``keys`` and sum ``values`` (int64) over each run of equal keys: ``(run keys, sums)``."""
    if len(keys) == 0:
        return keys[:0].astype(np.int64), values[:0].astype(np.int64)
    order = xp.argsort(keys)
    k = keys[order]
    v = values[order]
    starts = xp.flatnonzero(group_starts(k))
    csum = xp.cumsum(v)
    ends = xp.empty_like(starts)
    ends[:-1] = starts[1:]
    ends[-1] = len(k)
    sums = csum[ends - 1]
    sums[1:] -= csum[starts[1:] - 1]
    return k[starts], sums


def add_at(xp, target, index, values):
    """``target[index] += values`` for int64 arrays, duplicates summed, exact (CuPy adds int64 as its
    two's complement uint64 bits: its scatter-add has no int64)."""
    if xp is np:
        np.add.at(target, index, values)
    else:
        xp.add.at(target.view(np.uint64), index, values.astype(np.int64, copy=False).view(np.uint64))
    return target


def coin_key(seed, level, step):
    """The 64-bit key of the coins of one superstep (``step`` of level ``level``)."""
    ls = ((int(level) & 0xFFFFFFFF) << 32) | (int(step) & 0xFFFFFFFF)
    return mix64_int(stream_key(seed, STREAM) ^ mix64_int(ls))


def try_seed(seed, t):
    """The seed of try ``t`` of a run of ``seed`` (``louvain(tries=...)``): ``seed`` itself for try 0, so
    one try is the plain run; else a non-negative 63-bit int drawn from ``(seed, t)``."""
    if t == 0:
        return int(seed)
    return mix64_int(stream_key(seed, TRIES_STREAM) ^ mix64_int(int(t))) >> 1


def coins(xp, key, vertices, shift=1):
    """Each vertex's coin for the superstep of ``key``: True for about ``2**-shift`` of them (the top
    ``shift`` bits of the vertex's hash all set)."""
    if shift == 0:
        return xp.ones(len(vertices), dtype=bool)
    x = vertices.astype(np.uint64)
    x *= u64(GOLDEN)
    x += u64(key)
    mix64(xp, x)
    return (x >> np.uint64(64 - shift)) == np.uint64((1 << shift) - 1)


def modularity(inner_half, products, total, resolution, directed):
    """Modularity from exact parts: ``inner_half`` the communities' internal weight (each edge once, a
    loop once), ``products`` the sum over communities of out-strength times in-strength, ``total``
    the sum of the out-strengths (``2m`` undirected, ``m`` directed).  NetworkX's
    ``community.modularity``; 0.0 for a graph of no weight (where it is undefined)."""
    if total <= 0:
        return 0.0
    t = float(total)
    return (1.0 if directed else 2.0) * float(inner_half) / t - float(resolution) * float(products) / (t * t)


def products(xp, tot_out, tot_in):
    """Sum over communities of ``tot_out * tot_in`` as float64, on the host (numpy's pairwise sum of the
    same values: the same float on every shard and backend)."""
    from ...backend import to_numpy  # noqa: PLC0415

    a = to_numpy(tot_out).astype(np.float64)
    b = a if tot_in is tot_out else to_numpy(tot_in).astype(np.float64)
    return float(np.sum(a * b))


def move_step(xp, rows, arc_row, nbr, w, comm, sout, sin, loop, tot_out, tot_in, res_d, key, shift, active, kown):
    """One local-moving superstep of the owned ``rows`` (level ids, int64) whose neighbor lists are
    ``nbr``/``w`` with ``arc_row`` the local row of each arc (rows ascending): the rule of the module
    docstring, for the rows where ``active`` (bool, per row) is set; the others stay and keep their
    ``kown``.  ``kown`` (int64 per row, updated in place): ``K(v, own)`` of each row.  Returns ``(new
    community of each row, candidates (bool per row: active and wants to move), moved, inner)``: moved
    counts the candidates whose coin came up, inner is ``sum over the rows of K(v, own) + 2 loop(v)``
    (twice the internal weight this shard sees, before the moves).  ``shift``: the coins' bits (a
    candidate moves with probability ``2**-shift``)."""
    nr = len(rows)
    own = comm[rows]
    new = own.copy()
    cand = xp.zeros(nr, dtype=bool)
    if nr == 0 or len(nbr) == 0:
        kown[...] = 0
        return new, cand, 0, int(loop[rows].sum()) * 2 if nr else 0
    n = max(int(len(comm)), 1)
    sel = active[arc_row]
    a_row, a_nbr, a_w = arc_row[sel], nbr[sel], w[sel]
    keys, sums = run_sums(xp, a_row * n + comm[a_nbr], a_w)
    g_row = keys // n
    g_c = keys - g_row * n
    is_own = g_c == own[g_row]
    kown[active] = 0
    kown[g_row[is_own]] = sums[is_own]
    inner = int(kown.sum()) + int(loop[rows].sum()) * 2
    so, si = sout[rows], sin[rows]
    f = np.float64
    stay = kown.astype(f) - res_d * (so.astype(f) * (tot_in[own] - si).astype(f)
                                     + si.astype(f) * (tot_out[own] - so).astype(f))
    other = ~is_own
    orow, oc = g_row[other], g_c[other]
    if len(orow) == 0:
        return new, cand, 0, inner
    score = sums[other].astype(f) - res_d * (so[orow].astype(f) * tot_in[oc].astype(f)
                                             + si[orow].astype(f) * tot_out[oc].astype(f))
    best = _row_max(xp, orow, score, nr)
    top = score == best[orow]
    crow, cc = orow[top], oc[top]
    first = group_starts(crow)           # groups ascend by community within a row: the smallest id
    crow, cc = crow[first], cc[first]
    want = best[crow] > stay[crow]
    crow, cc = crow[want], cc[want]
    cand[crow] = True
    go = coins(xp, key, rows[crow], shift)
    new[crow[go]] = cc[go]
    return new, cand, int(go.sum()), inner


def next_active(xp, arc_row, nbr, cand, moved):
    """The rows active in the superstep after a kept one: those that wanted to move (``cand``, per
    row) and those with a neighbor that moved (``moved``, bool per vertex of the level)."""
    out = cand.copy()
    if len(nbr):
        hit = arc_row[moved[nbr]]
        out[hit] = True
    return out


def _row_max(xp, run_rows, values, num_rows):
    """Per row, the largest of ``values`` (``run_rows`` ascending); -inf for rows without any."""
    best = xp.full(num_rows, -np.inf, dtype=np.float64)
    if xp is np:
        starts = np.flatnonzero(group_starts(run_rows))
        best[run_rows[starts]] = np.maximum.reduceat(values, starts)
        return best
    scatter_max(best, run_rows, values)
    return best


def aggregate_arcs(xp, rows, arc_row, nbr, w, comm):
    """This shard's part of the community graph: ``(keys c * n + d, summed weight)`` of its rows' arcs,
    ``c`` the community of the row and ``d`` of the neighbor (``c == d``: inside a community)."""
    n = max(int(len(comm)), 1)
    c = comm[rows][arc_row]
    return run_sums(xp, c * n + comm[nbr], w)


def canonical(xp, member):
    """Each vertex's community renamed to its smallest member (vertex ids 0..n-1)."""
    n = len(member)
    if n == 0:
        return member.astype(np.int64)
    key = xp.sort(member.astype(np.int64) * n + xp.arange(n, dtype=np.int64))
    starts = xp.flatnonzero(group_starts(key // n))
    smallest = xp.zeros(int(member.max()) + 1, dtype=np.int64)
    smallest[key[starts] // n] = key[starts] % n
    return smallest[member]


__all__ = ["STREAM", "SCALE_BITS", "scale_exponent", "quantize", "segment_sums", "run_sums", "add_at", "coin_key",
           "try_seed", "coins", "modularity", "products", "move_step", "next_active", "aggregate_arcs", "canonical"]
