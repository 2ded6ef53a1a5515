"""The Jaccard Programs: given pairs (:class:`PairsProgram`), and the pairs at distance two
(:class:`TwoHopProgram`, counted over every row, or listed for a window of rows).

Semantics (NetworkX's ``jaccard_coefficient`` on an undirected ``nx.Graph``):
``N(v)`` is the set of neighbors of ``v``, ``v`` itself included when it has a
self loop, duplicate edges counted once; the coefficient of ``(u, v)`` is
``|N(u) & N(v) - {u, v}| / |N(u) | N(v)|``, 0 when the union is empty.
Every shard works on *simple rows* ``S(v) = N(v) - {v}`` (sorted, no
repeats) and a self-loop flag, in a row table (:mod:`.kernels`).

:class:`PairsProgram`, two supersteps.  Every shard holds the whole pair list
(it came with the Program) and computes the pairs whose ``u`` it owns:

0. *rows*: it builds the simple rows of the vertices its pairs name that it
   owns (not the whole shard: a few pairs on a big graph touch a few rows),
   and sends the rows of its own vertices that are the ``v`` of a pair whose
   ``u`` another shard owns; each shard keeps, of what it receives, the rows
   its own pairs need.
1. *intersect*: ``|S(u) & S(v)|`` per owned pair (:func:`.kernels.run_pair_common`:
   the numba merge, or the vectorized lookup), and the coefficient; the values
   go to shard 0, which holds the answer (``replicated_result``).

One whole numpy shard ('cpu-numba', the local executor) whose rows hold no
repeated arc skips the row table: ``run_steps`` reads the pairs' rows off the
CSR itself (:func:`.cpu.pair_coefficients`) and reports the same two
supersteps (nothing sent, the same ``checks``).

:class:`TwoHopProgram`, two supersteps, for the rows ``u`` of a window
``[lo, hi)`` of vertex ids (all of them when counting):

0. *rows*: a shard sends the simple rows of its vertices ``x`` adjacent to a
   window vertex that another shard owns, and keeps, of what it receives, the
   rows of the neighbors of its own window vertices;
1. *count* or *pairs*: for every owned window vertex ``u``, every ``x`` in
   ``S(u)`` and every ``w`` in ``S(x)`` with ``w > u`` and ``w`` not in
   ``S(u)``: the pair ``(u, w)`` (its number of common neighbors is the
   number of such paths).  Counting gives the per-vertex columns ``pairs``
   and ``degree`` (``|N(v)|``); listing sends the window's pairs and their
   coefficients to shard 0.

Memory per shard: the pair list (16 bytes a pair) and its values (8 bytes a pair on
shard 0); the rows of the vertices it needs (8 bytes an arc, and the arcs of
the rows it sends); an n-vertex owner map (4 bytes a vertex) and row index
(8 bytes a vertex).  Counting keeps every row adjacent to an owned vertex: up
to the whole simple graph per shard, as the triangle count does.
"""

from __future__ import annotations

import numpy as np

from ...backend import to_backend
from ...backend.primitives import expand, row_ids
from ...engine.program import Contribution, Program
from .kernels import (coefficients, run_pair_common, run_two_hop_counts, run_two_hop_pairs, simple_rows,
                      sort_unique, sub_rows)

PHASES = ("rows", "intersect")
TWO_HOP_PHASES = {"count": ("rows", "count"), "pairs": ("rows", "pairs")}


def owner_map(shard):
    """The partition owning each vertex (int32, one per vertex), or None with one partition."""
    if shard.num_parts == 1:
        return None
    own = shard.xp.empty(shard.n, dtype=np.int32)
    for q in range(shard.num_parts):
        own[shard.part_vertices(q)] = q
    return own


def own_rows(shard, gids):
    """The simple rows of the owned vertices ``gids`` (global ids, int64): a table piece."""
    xp = shard.xp
    tptr, tnbr, tloop = simple_rows(xp, shard.indptr, shard.indices, shard.local_rows(gids), gids, shard.n)
    return gids, tptr[1:] - tptr[:-1], tnbr, tloop


def received_rows(xp, contribution, need, with_loop):
    """The rows of a contribution (``vid``, ``len``, ``nbrs``[, ``loop``]) whose vertex ``need`` marks."""
    a = contribution.arrays
    vid = to_backend(a["vid"], xp).astype(np.int64, copy=False)
    if len(vid) == 0:
        return None
    keep = xp.flatnonzero(need[vid])
    if len(keep) == 0:
        return None
    lens = to_backend(a["len"], xp).astype(np.int64, copy=False)
    ptr = xp.zeros(len(lens) + 1, dtype=np.int64)
    xp.cumsum(lens, out=ptr[1:])
    _, eid = expand(ptr, keep)
    nbrs = to_backend(a["nbrs"], xp)[eid].astype(np.int64, copy=False)
    loop = to_backend(a["loop"], xp)[keep] if with_loop else xp.zeros(len(keep), dtype=np.int8)
    return vid[keep], lens[keep], nbrs, loop


def table(xp, n, pieces):
    """``(tptr, tnbr, tloop, where)`` of table pieces ``(vid, lens, nbrs, loop)`` (distinct vertices)."""
    cat = lambda k, dt: xp.concatenate([p[k] for p in pieces]) if pieces else xp.zeros(0, dtype=dt)  # noqa: E731
    vid, lens, tnbr, tloop = cat(0, np.int64), cat(1, np.int64), cat(2, np.int64), cat(3, np.int8)
    tptr = xp.zeros(len(vid) + 1, dtype=np.int64)
    xp.cumsum(lens, out=tptr[1:])
    where = xp.full(max(n, 1), -1, dtype=np.int64)
    where[vid] = xp.arange(len(vid), dtype=np.int64)
    return tptr, tnbr, tloop, where


def receive_rows(shard, st, contributions, phase, with_loop):
    """Superstep 0's receive of both Programs: this shard's own rows and the rows it asked for
    (``st["remote"]``) from the others' contributions, made into its table; -> the report."""
    xp = shard.xp
    pieces = [st.pop("own")]
    if len(st["remote"]):
        need = xp.zeros(shard.n, dtype=bool)
        need[st["remote"]] = True
        for q, c in enumerate(contributions):
            if q != shard.part:
                got = received_rows(xp, c, need, with_loop)
                if got is not None:
                    pieces.append(got)
    st["table"] = table(xp, shard.n, pieces)
    return {"phase": phase, "rows_sent": sum(int(c.counters["rows"]) for c in contributions),
            "arcs_sent": sum(int(c.counters["arcs"]) for c in contributions)}


def _rows_contribution(xp, piece, send):
    """The rows of ``piece``'s vertices ``send`` (sorted global ids among them), to be sent."""
    vid, lens, nbrs, loop = piece
    ptr = xp.zeros(len(vid) + 1, dtype=np.int64)
    xp.cumsum(lens, out=ptr[1:])
    rows = xp.searchsorted(vid, send)
    slens, snbrs = sub_rows(xp, ptr, nbrs, rows)
    return Contribution({"vid": send, "len": slens, "nbrs": snbrs, "loop": loop[rows]},
                        {"rows": len(send), "arcs": len(snbrs)})


def _empty(xp):
    return xp.zeros(0, dtype=np.int64)


def rows_simple(shard):
    """Whether a whole numpy shard's rows are sorted with no repeated arc (a self loop allowed): what
    :func:`.cpu.pair_coefficients` reads the CSR as.  Checked once a graph (one pass over the arcs)
    and kept with it."""
    graph = getattr(shard, "_graph", None)
    if graph is None or shard.xp is not np:
        return False
    from . import cpu  # noqa: PLC0415

    return graph.memo("rows_sorted_distinct", lambda: bool(cpu.rows_sorted_distinct(graph.indptr, graph.indices)))


def _pair_arcs(indptr, pu, pv):
    """The arcs the pairs' rows hold (at least one a pair): enough to choose serial or threaded."""
    from .cpu import SERIAL_ARCS  # noqa: PLC0415

    if len(pu) >= SERIAL_ARCS:
        return len(pu)
    return int((indptr[pu + 1] - indptr[pu]).sum() + (indptr[pv + 1] - indptr[pv]).sum()) + len(pu)


class PairsProgram(Program):
    """The coefficient of every given pair (internal ids, an int64 (P, 2) numpy array); shard 0 ends
    with column ``jaccard``, one value per pair in the given order."""

    name = "jaccard"
    replicated_result = True

    def __init__(self, pairs, implementation="generic"):
        self.pairs = np.ascontiguousarray(pairs, dtype=np.int64).reshape(-1, 2)
        #: "cpu-numba" or "generic": see dgraph.algorithms.jaccard.implementation
        self.implementation = implementation

    def init(self, shard):
        if self.implementation == "cpu-numba" and shard.whole and rows_simple(shard):
            return {"direct": True}            # run_steps: the coefficients straight from the CSR
        return self._state(shard)

    def _state(self, shard):
        xp = shard.xp
        pairs = to_backend(self.pairs, xp)
        pu, pv = xp.ascontiguousarray(pairs[:, 0]), xp.ascontiguousarray(pairs[:, 1])
        owner = owner_map(shard)
        if owner is None:
            mine = xp.arange(len(pu), dtype=np.int64)
            exports = remote = _empty(xp)
            build = sort_unique(xp, xp.concatenate([pu, pv]))
        else:
            ou, ov = owner[pu], owner[pv]
            mine = xp.flatnonzero(ou == shard.part)
            exports = sort_unique(xp, pv[(ov == shard.part) & (ou != shard.part)])
            vm = pv[mine]
            far = ov[mine] != shard.part
            remote = sort_unique(xp, vm[far])
            build = sort_unique(xp, xp.concatenate([pu[mine], vm[~far], exports]))
        return {"mine": mine, "pu": pu[mine], "pv": pv[mine], "exports": exports, "remote": remote,
                "own": own_rows(shard, build)}

    def initial_report(self, shard, st):
        return {"phase": "start"}

    def converged(self, report, step):
        return step >= 2

    def run_steps(self, shard, st, ctx, limit):
        """One whole numpy shard of simple rows: both supersteps at once, from the CSR itself
        (:func:`.cpu.pair_coefficients`: no row table, nothing sent); None otherwise."""
        if not st.get("direct") or limit < len(PHASES):
            return None
        from ... import startup  # noqa: PLC0415
        from ...backend.device_memory import require_host  # noqa: PLC0415
        from ...jit import num_threads  # noqa: PLC0415
        from . import cpu  # noqa: PLC0415

        sw = startup.Stopwatch()
        rows = {"phase": PHASES[0], "rows_sent": 0, "arcs_sent": 0}
        out = [(rows, sw.lap())]
        if ctx.tick is not None:
            ctx.tick(*out[-1])
        pu, pv = (np.ascontiguousarray(self.pairs[:, k]) for k in (0, 1))
        st["out"] = np.empty(len(pu), dtype=np.float64)
        checks = 0
        if len(pu):
            arcs = _pair_arcs(shard.indptr, pu, pv)
            T = num_threads() if arcs >= cpu.SERIAL_ARCS else 1
            require_host(T * shard.n, f"jaccard: the marks of {T} thread(s) over {shard.n:,} vertices")
            marks = np.zeros((T, max(shard.n, 1)), dtype=np.uint8)
            checks = cpu.kernel("pair_coefficients", arcs)(shard.indptr, shard.indices, pu, pv, marks, st["out"])
        out.append(({"phase": PHASES[1], "pairs": len(pu), "checks": int(checks)}, sw.lap()))
        if ctx.tick is not None:
            ctx.tick(*out[-1])
        return out

    def superstep(self, shard, st, ctx):
        if st.get("direct"):                   # run one superstep at a time: the row-table path after all
            st.clear()
            st.update(self._state(shard))
        if ctx.step == 0:
            return _rows_contribution(shard.xp, st["own"], st["exports"])
        return self._intersect(shard, st)

    def receive(self, shard, st, contributions, ctx):
        xp = shard.xp
        if ctx.step == 0:
            return receive_rows(shard, st, contributions, PHASES[0], True)
        if shard.part == 0:
            out = xp.zeros(len(self.pairs), dtype=np.float64)
            for c in contributions:
                out[to_backend(c.arrays["index"], xp)] = to_backend(c.arrays["jaccard"], xp)
            st["out"] = out
        return {"phase": PHASES[1], "pairs": sum(int(c.counters["pairs"]) for c in contributions),
                "checks": sum(int(c.counters["checks"]) for c in contributions)}

    def _intersect(self, shard, st):
        xp = shard.xp
        tptr, tnbr, tloop, where = st.pop("table")
        pu, pv = st["pu"], st["pv"]
        ru, rv = where[pu], where[pv]
        common, adj = run_pair_common(self.implementation, xp, tptr, tnbr, ru, rv, pv, shard.n)
        lens = tptr[1:] - tptr[:-1]
        lu, lv = tloop[ru].astype(np.int64), tloop[rv].astype(np.int64)
        p = coefficients(xp, common, adj, lens[ru] + lu, lens[rv] + lv, lu, lv, pu == pv)
        checks = int(xp.minimum(lens[ru], lens[rv]).sum()) if len(ru) else 0
        return Contribution({"index": st["mine"], "jaccard": p}, {"pairs": len(pu), "checks": checks})

    def finish(self, shard, st):
        return {"jaccard": st.get("out", shard.xp.zeros(0, dtype=np.float64))}


class TwoHopProgram(Program):
    """The pairs at distance two of the window ``[lo, hi)`` of vertex ids (``u`` in it, ``w > u``).

    ``mode="count"`` (the whole range): per-vertex columns ``pairs`` (how many ``w`` each ``u``
    has) and ``degree`` (``|N(u)|``).  ``mode="pairs"``: shard 0 ends with columns ``u``, ``v``,
    ``jaccard``, ordered by ``u`` then ``v``; ``degree`` (every vertex's ``|N|``) and ``counts``
    (the window's ``pairs``, ``counts[u - lo]``) are what the counting run found (numpy).
    """

    name = "jaccard"

    def __init__(self, mode, lo, hi, implementation="generic", degree=None, counts=None):
        if mode not in TWO_HOP_PHASES:
            raise ValueError(f"mode={mode!r}")
        self.mode, self.lo, self.hi = mode, int(lo), int(hi)
        self.implementation = implementation
        self.degree, self.counts = degree, counts
        self.replicated_result = mode == "pairs"

    def init(self, shard):
        xp = shard.xp
        grows = shard.global_rows().astype(np.int64)
        if self.mode == "count":
            lw = xp.arange(shard.num_rows, dtype=np.int64)
        else:
            lw = xp.flatnonzero((grows >= self.lo) & (grows < self.hi))
        gw = grows[lw]
        seg, eid = expand(shard.indptr, lw)
        x = shard.indices[eid].astype(np.int64, copy=False)
        nb = sort_unique(xp, x[x != gw[seg]])             # the neighbors of the window's rows
        owner = owner_map(shard)
        if owner is None:
            own_x, remote, exports = nb, _empty(xp), _empty(xp)
        else:
            far = owner[nb] != shard.part
            own_x, remote = nb[~far], nb[far]
            ind = shard.indices
            send = (owner[ind] != shard.part)
            if self.mode == "pairs":
                send &= (ind >= self.lo) & (ind < self.hi)
            exports = sort_unique(xp, grows[row_ids(shard.indptr)[send]])
        build = sort_unique(xp, xp.concatenate([gw, own_x, exports]))
        return {"gw": gw, "remote": remote, "exports": exports, "own": own_rows(shard, build)}

    def initial_report(self, shard, st):
        return {"phase": "start"}

    def converged(self, report, step):
        return step >= 2

    def superstep(self, shard, st, ctx):
        if ctx.step == 0:
            return _rows_contribution(shard.xp, st["own"], st["exports"])
        return self._pairs(shard, st)

    def receive(self, shard, st, contributions, ctx):
        xp = shard.xp
        phases = TWO_HOP_PHASES[self.mode]
        if ctx.step == 0:
            return receive_rows(shard, st, contributions, phases[0], False)
        report = {"phase": phases[1], "pairs": sum(int(c.counters["pairs"]) for c in contributions)}
        if self.mode == "pairs" and shard.part == 0:
            n = max(shard.n, 1)
            got = [{k: to_backend(c.arrays[k], xp) for k in ("u", "v", "jaccard")} for c in contributions]
            cols = {k: xp.concatenate([g[k] for g in got]) for k in ("u", "v", "jaccard")}
            order = xp.argsort(cols["u"] * n + cols["v"])
            st["out"] = {k: a[order] for k, a in cols.items()}
        return report

    def _pairs(self, shard, st):
        xp, n = shard.xp, shard.n
        tptr, tnbr, tloop, where = st.pop("table")
        gw = st["gw"]
        urows = where[gw]
        if self.mode == "count":
            counts = run_two_hop_counts(self.implementation, xp, tptr, tnbr, where, urows, gw, n)
            st["pairs"] = counts
            st["degree"] = (tptr[urows + 1] - tptr[urows]) + tloop[urows].astype(np.int64)
            return Contribution({}, {"pairs": int(counts.sum()) if len(counts) else 0})
        counts = to_backend(np.asarray(self.counts, dtype=np.int64), xp)[gw - self.lo]
        deg = to_backend(np.asarray(self.degree, dtype=np.int64), xp)
        i, w, p = run_two_hop_pairs(self.implementation, xp, tptr, tnbr, where, urows, gw, n, counts, deg)
        u = gw[i]
        return Contribution({"u": u, "v": w, "jaccard": p}, {"pairs": len(u)})

    def finish(self, shard, st):
        xp = shard.xp
        if self.mode == "count":
            return {"pairs": st["pairs"], "degree": st["degree"]}
        if "out" in st:
            return st["out"]
        return {"u": _empty(xp), "v": _empty(xp), "jaccard": xp.zeros(0, dtype=np.float64)}


__all__ = ["PairsProgram", "TwoHopProgram", "PHASES", "TWO_HOP_PHASES", "owner_map", "own_rows", "table"]
