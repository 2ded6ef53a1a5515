"""Weakly connected components: hooking and pointer jumping (Soman et al.; Gunrock section 5.4).

Every shard keeps the global parent array ``p`` (replicated, like BFS's
depth array) and an *edge frontier*: the edges of its own rows whose
endpoints are still in different trees.  A superstep is

1. hooking (a filter over the edge frontier): for every edge ``(u, v)`` with
   ``p[u] != p[v]`` the larger root is hooked under the smaller one,
   ``p[max] = min(p[max], min)`` by ``scatter_min``; edges whose endpoints
   already share a root leave the frontier for good (components only merge);
2. the exchange: the parent entries this shard changed (ids and values, or
   the whole array when that is smaller) go to every shard, which merges
   them all by minimum (the same result on every shard, whatever the order);
3. pointer jumping, ``p = p[p]`` until nothing changes: every tree becomes
   a star again (local and deterministic).

It stops after a superstep in which no shard hooked anything.

Direction is ignored (weakly connected): hooking an edge is symmetric, and
every edge is the out-edge of exactly one owned row, so the shards' out-edges
together hold every edge once (an undirected graph's edge is kept only as
``u -> v`` with ``u > v``, so it too is hooked once); in-edges would add
nothing but a second copy.

Why the labels are the component minima, on every executor and partition
count: ``p[x] <= x`` always holds (it starts as ``p[x] = x``; a hook writes
a smaller value into a root; pointer jumping replaces ``p[x]`` by
``p[p[x]] <= p[x]``), so following parents strictly decreases until a root
(no cycles, even with concurrent hooks) and a root is the minimum of its
tree; ``p[x]`` always stays in ``x``'s component (hooks follow edges).  At
convergence no edge joins two trees, so each component is one tree, whose
root is its minimum vertex id: a label that depends on neither the order of
the hooks nor the partitioning.
"""

from __future__ import annotations

from ..backend import to_backend
from ..backend.primitives import row_ids, scatter_min
from ..engine.program import Contribution, Program


class WCCState:
    __slots__ = ("parent", "src", "dst", "new")


class WCC(Program):
    """The WCC Program (see :mod:`dgraph.engine.program`)."""

    name = "wcc"
    replicated_result = True

    def init(self, shard):
        xp = shard.xp
        st = WCCState()
        vdt = shard.indices.dtype
        st.parent = xp.arange(shard.n, dtype=vdt)
        src = shard.global_rows()[row_ids(shard.indptr)].astype(vdt, copy=False)
        dst = shard.indices
        # each edge once (an undirected edge is stored both ways), self loops dropped
        keep = (src > dst) if not shard.directed else (src != dst)
        st.src, st.dst = src[keep], dst[keep]
        st.new = None
        return st

    def initial_report(self, shard, st):
        return {"components": shard.n}

    def converged(self, report, step):
        return step > 0 and report["hooks"] == 0

    # -- one superstep -------------------------------------------------------------
    def superstep(self, shard, st, ctx):
        xp = shard.xp
        p = st.parent
        ru, rv = p[st.src], p[st.dst]
        live = ru != rv                       # the filter: edges still joining two trees
        scanned = len(st.src)
        st.src, st.dst, ru, rv = st.src[live], st.dst[live], ru[live], rv[live]
        hi, lo = xp.maximum(ru, rv), xp.minimum(ru, rv)
        new = p.copy()
        scatter_min(new, hi, lo)              # hook the larger root under the smaller
        whole = shard.num_parts == 1
        if whole:
            hooks = int(xp.count_nonzero(new != p))
            st.new = new
            return Contribution({"dense": new}, {"hooks": hooks, "edges": scanned})
        changed = xp.flatnonzero(new != p).astype(p.dtype, copy=False)
        hooks = len(changed)
        empty = xp.empty(0, dtype=p.dtype)
        if 2 * hooks <= shard.n:
            arrays = {"ids": changed, "vals": new[changed], "dense": empty}
        else:
            arrays = {"ids": empty, "vals": empty, "dense": new}
        return Contribution(arrays, {"hooks": hooks, "edges": scanned})

    def receive(self, shard, st, contributions, ctx):
        xp = shard.xp
        if len(contributions) == 1 and st.new is not None:
            p = st.new
        else:
            p = st.parent
            for c in contributions:            # merge by minimum: order does not matter
                dense = to_backend(c.arrays["dense"], xp)
                if len(dense):
                    xp.minimum(p, dense, out=p)
                ids = to_backend(c.arrays["ids"], xp)
                if len(ids):
                    scatter_min(p, ids, to_backend(c.arrays["vals"], xp).astype(p.dtype, copy=False))
        st.new = None
        st.parent = _pointer_jump(xp, p)
        hooks = sum(int(c.counters["hooks"]) for c in contributions)
        edges = sum(int(c.counters["edges"]) for c in contributions)
        components = int(xp.count_nonzero(st.parent == xp.arange(shard.n, dtype=st.parent.dtype)))
        return {"hooks": hooks, "edges": edges, "components": components}

    def finish(self, shard, st):
        return {"component": st.parent}


def _pointer_jump(xp, p):
    """p = p[p] until every vertex points at its root (p[x] <= x, so it ends)."""
    while True:
        pp = p[p]
        if not bool(xp.any(pp != p)):
            return p
        p = pp


def wcc(G, *, backend=None, executor=None, exchange="butterfly", fanout=None, transport="auto", on_step=None):
    """Weakly connected components (edge direction ignored).

    Returns a :class:`~dgraph.engine.result.Result` with column ``component``:
    the label of each vertex's component, which is the smallest vertex id in
    it (in the user's ids; for string or renumbered ids, the smallest id in
    sorted order).  Every backend, executor and partition count returns the
    same labels.  Stats per superstep: ``hooks`` (parent entries changed),
    ``edges`` (edges scanned), ``components`` (trees left).

    Keywords as in :func:`dgraph.bfs`.
    """
    from ..engine.run import run_program  # noqa: PLC0415

    return run_program(lambda ids: WCC(), G, backend=backend, executor=executor, exchange=exchange, fanout=fanout,
                       transport=transport, on_step=on_step, vertex_columns=("component",))


__all__ = ["wcc", "WCC"]
