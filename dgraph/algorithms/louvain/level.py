"""One level of Louvain as a shard holds it: its owned rows' neighbor lists and the replicated state.

Level 0 is the input graph: a shard owns its partition's vertices, and their lists are the arcs
of its rows, self loops left out (a loop is kept as the vertex's ``loop`` weight), and for a
directed graph the in-arcs too (so ``K(v, c)`` counts both directions, as NetworkX's directed
gain does).  Every later level is the community graph of the one before (one vertex per
community; the weight between two communities the sum of the weights between their members;
a community's internal weight its self loop), built from every shard's part of it on every shard
(:func:`coarse_level`): it is one vertex per community, small next to the input, and each shard
keeps the rows of an even slice of its vertices.

Replicated on every shard, indexed by the level's vertex ids: ``sout``/``sin`` (each vertex's out-
and in-strength; undirected: one array, the weighted degree with a loop counted twice), ``loop``,
``comm`` (each vertex's community, a vertex id of the level) and ``tot_out``/``tot_in`` (each
community's total strength).  All int64 (:func:`dgraph.algorithms.louvain.kernels.quantize`).
"""

from __future__ import annotations

import numpy as np

from ...backend import to_backend
from ...backend.primitives import row_ids
from .kernels import add_at, segment_sums


class Level:
    """A level's graph on one shard (see the module docstring)."""

    def __init__(self, index, n, rows, ptr, nbr, w, directed, bounds=None):
        self.index = int(index)
        self.n = int(n)
        self.rows, self.ptr, self.nbr, self.w = rows, ptr, nbr, w
        self._arc_row = None
        self._identity = None
        self.directed = bool(directed)
        #: where each partition's rows are (a coarse level: ``bounds[q]..bounds[q + 1]``); None: the shard's
        #: own layout (level 0)
        self.bounds = bounds
        self.sout = self.sin = self.loop = None
        self.comm = self.tot_out = self.tot_in = None

    @property
    def xp(self):
        from ...backend import array_module  # noqa: PLC0415

        return array_module(self.ptr)

    def arc_rows(self, keep=False):
        """The local row of every arc (int64); kept for the next call when ``keep`` (the vectorized step
        reads it every superstep; the numba kernel walks ``ptr`` and needs it only to aggregate)."""
        rows = self._arc_row
        if rows is None:
            rows = row_ids(self.ptr).astype(np.int64, copy=False)
            if keep:
                self._arc_row = rows
        return rows

    def rows_are_ids(self):
        """Whether local row ``r`` is vertex ``r`` for every vertex of the level (one shard owns them all)."""
        if self._identity is None:
            self._identity = len(self.rows) == self.n and bool(
                (self.rows == self.xp.arange(self.n, dtype=self.rows.dtype)).all())
        return self._identity

    def set_strengths(self, sout, sin, loop):
        """The replicated strengths and loops; every vertex starts alone in its community."""
        xp = self.xp
        self.sout, self.loop = sout, loop
        self.sin = sin if self.directed else sout
        self.comm = xp.arange(self.n, dtype=np.int64)
        self.tot_out = sout.copy()
        self.tot_in = self.sin.copy() if self.directed else self.tot_out

    def longest_row(self):
        return int((self.ptr[1:] - self.ptr[:-1]).max()) if len(self.ptr) > 1 else 0

    def gather(self, shard, target, contributions, name):
        """``target[vertices of q] = what partition q sent as name``, for every q (an all-gather)."""
        if self.bounds is None:
            return shard.gather_owned(target, contributions, name)
        xp = self.xp
        for q, c in enumerate(contributions):
            target[int(self.bounds[q]):int(self.bounds[q + 1])] = to_backend(c.arrays[name], xp)
        return target

    def move_communities(self, old, new):
        """``comm`` went from ``old`` to ``new`` (both replicated): move the moved vertices' strengths."""
        xp = self.xp
        moved = xp.flatnonzero(old != new)
        if len(moved) == 0:
            return 0
        a, b = old[moved], new[moved]
        add_at(xp, self.tot_out, a, -self.sout[moved])
        add_at(xp, self.tot_out, b, self.sout[moved])
        if self.directed:
            add_at(xp, self.tot_in, a, -self.sin[moved])
            add_at(xp, self.tot_in, b, self.sin[moved])
        return int(len(moved))


def owned_local(shard, vertices):
    """Each vertex's local row on ``shard``, -1 where another shard owns it."""
    xp = shard.xp
    v = vertices.astype(np.int64, copy=False)
    if shard.contiguous:
        lr = v - shard.row_base
        return xp.where((lr >= 0) & (lr < shard.num_rows), lr, -1)
    table = xp.full(shard.n, -1, dtype=np.int64)
    table[shard.rows.astype(np.int64)] = xp.arange(shard.num_rows, dtype=np.int64)
    return table[v]


def out_arcs(shard, wq):
    """``(rows, arc rows, targets)`` of the shard's out-arcs: the owned vertices' global ids and the local
    row of every arc (int64), the arc's target (the shard's vertex dtype)."""
    rows = shard.global_rows().astype(np.int64)
    arow = row_ids(shard.indptr).astype(np.int64, copy=False)
    return rows, arow, shard.indices


def in_arcs_local(shard, wq):
    """The owned rows' in-arcs from the shard itself, ``(local rows, sources, int64 weights)``, or None
    when their weights are not here (a partitioned weighted graph: :func:`in_arcs_from` gets them)."""
    xp = shard.xp
    if shard.weights is None:
        cptr, csrc, _ = shard.csc(edge_ids=False)
        return row_ids(cptr).astype(np.int64, copy=False), csrc.astype(np.int64), xp.ones(len(csrc), dtype=np.int64)
    if not shard.whole:
        return None
    cptr, csrc, ceid = shard.csc(edge_ids=True)
    if ceid is None:
        return None
    return row_ids(cptr).astype(np.int64, copy=False), csrc.astype(np.int64), wq[ceid]


def in_arcs_from(shard, contributions):
    """The owned rows' in-arcs out of every shard's out-arcs (``src``, ``dst``, ``w`` each), sorted by row."""
    xp = shard.xp
    src = xp.concatenate([to_backend(c.arrays["src"], xp) for c in contributions])
    dst = xp.concatenate([to_backend(c.arrays["dst"], xp) for c in contributions])
    w = xp.concatenate([to_backend(c.arrays["w"], xp) for c in contributions])
    lr = owned_local(shard, dst)
    mine = xp.flatnonzero(lr >= 0)
    lr, src, w = lr[mine], src[mine], w[mine]
    order = xp.argsort(lr, kind="stable") if xp is np else xp.argsort(lr)
    return lr[order], src[order], w[order]


def level_zero(shard, wq, in_arcs):
    """Level 0 on ``shard`` and its owned rows' ``(sout, sin, loop)``: ``wq`` the int64 weights of its
    out-arcs, ``in_arcs`` (directed) its rows' in-arcs ``(local rows sorted, sources, weights)``."""
    xp = shard.xp
    rows, arow, u = out_arcs(shard, wq)
    nr = len(rows)
    ptr = shard.indptr.astype(np.int64, copy=False)
    is_loop = u.astype(np.int64) == rows[arow]
    loop = segment_sums(xp, ptr, xp.where(is_loop, wq, 0))
    sout = segment_sums(xp, ptr, wq)
    keep = ~is_loop
    r_all, u_all, w_all = arow[keep], u[keep], wq[keep]
    if shard.directed:
        in_row, in_src, in_w = in_arcs
        in_ptr = xp.searchsorted(in_row, xp.arange(nr + 1, dtype=np.int64)).astype(np.int64)
        sin = segment_sums(xp, in_ptr, in_w)
        keep_in = in_src != rows[in_row]
        r_all = xp.concatenate([r_all, in_row[keep_in]])
        u_all = xp.concatenate([u_all.astype(np.int64), in_src[keep_in]]).astype(u.dtype)
        w_all = xp.concatenate([w_all, in_w[keep_in]])
        order = xp.argsort(r_all, kind="stable") if xp is np else xp.argsort(r_all)
        r_all, u_all, w_all = r_all[order], u_all[order], w_all[order]
    else:
        sout = sout + loop         # a loop counts twice in the weighted degree
        sin = sout
    counts = xp.bincount(r_all, minlength=nr) if len(r_all) else xp.zeros(nr, dtype=np.int64)
    nptr = xp.zeros(nr + 1, dtype=np.int64)
    xp.cumsum(counts, out=nptr[1:])
    return Level(0, shard.n, rows, nptr, u_all, w_all, shard.directed), (sout, sin, loop)


def coarse_level(shard, lv, keys, sums):
    """The next level from ``lv`` and the whole community graph's arcs (``keys = c * n + d`` sorted and
    unique, ``sums`` their weights, over every shard): ``(level, dense)`` with ``dense`` the new id of
    each old community id.  Communities are numbered in the order of their old ids."""
    xp = lv.xp
    n = max(lv.n, 1)
    present = xp.zeros(lv.n, dtype=bool)
    present[lv.comm] = True
    ids = xp.flatnonzero(present)
    k = int(len(ids))
    dense = xp.cumsum(present.astype(np.int64)) - 1
    c = dense[keys // n]
    d = dense[keys % n]
    inside = c == d
    loop = xp.zeros(k, dtype=np.int64)
    add_at(xp, loop, dense[lv.comm], lv.loop)
    add_at(xp, loop, c[inside], sums[inside] // 2)   # each internal pair was summed from both ends
    ext = xp.flatnonzero(~inside)
    c, d, w = c[ext], d[ext], sums[ext]
    counts = xp.bincount(c, minlength=k) if len(c) else xp.zeros(k, dtype=np.int64)
    ptr = xp.zeros(k + 1, dtype=np.int64)
    xp.cumsum(counts, out=ptr[1:])
    p, q = shard.num_parts, shard.part
    bounds = np.array([k * i // p for i in range(p + 1)], dtype=np.int64)
    lo, hi = int(bounds[q]), int(bounds[q + 1])
    a, b = int(ptr[lo]), int(ptr[hi])
    nxt = Level(lv.index + 1, k, xp.arange(lo, hi, dtype=np.int64), ptr[lo:hi + 1] - a, d[a:b], w[a:b],
                lv.directed, bounds=bounds)
    sout = lv.tot_out[ids]
    sin = lv.tot_in[ids] if lv.directed else sout
    nxt.set_strengths(sout, sin, loop)
    return nxt, dense


__all__ = ["Level", "owned_local", "out_arcs", "in_arcs_local", "in_arcs_from", "level_zero", "coarse_level"]
