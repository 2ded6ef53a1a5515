"""The local layout of one partition for EMV: its vertices (owned, then replicas hop by hop) and the
graph-aware message buffer's index (the in-edges of its computed vertices, grouped by tail).

Local vertex ``i`` is global vertex ``L[i]``; the owned vertices come first (in the shard's row
order, so the result of the owned prefix is what the executor assembles), then the replicas of hop
1, 2, ... n.  ``hb[h]`` is the number of local vertices within ``h`` hops.  The buffer holds one
slot per in-edge of every vertex within ``n - 1`` hops, in CSC order: the slots of one tail are
contiguous (Medusa's reverse-edge ids), and ordered by hop, so the vertices computed at a stage of a
round (hop <= h) own exactly the buffer prefix ``[0, eb[h])``.  On one partition ``L`` is every
vertex and the buffer is the graph's CSC.
"""

from __future__ import annotations

import numpy as np

from ..backend import to_backend, to_numpy
from ..backend.primitives import row_ids
from .replicas import hop_sets


class Layout:
    def __init__(self, xp, L, hb, cindptr, cindices, weights, degree, whole):
        self.xp = xp
        self.L = L                    # global ids of the local vertices
        self.hb = hb                  # hb[h]: local vertices within h hops
        self.hops = len(hb) - 1
        self.cindptr = cindptr        # int64, over the tails L[:hb[hops-1]]
        self.cindices = cindices      # local head ids, buffer order
        self.weights = weights        # edge weight per buffer slot (or None)
        self.degree = degree          # global out-degree of every local vertex
        self.whole = whole            # one partition: L is arange(n)
        self.eb = [int(cindptr[min(hb[h], len(cindptr) - 1)]) for h in range(self.hops)]
        self.num_slots = int(cindptr[-1]) if len(cindptr) else 0  # read here, once: on CuPy a read is a sync
        self._etail = None
        self._heads = None
        self.csr = None               # one partition: the graph's (indptr, indices), a head-major index
        self.csr_weights = None       # and its edge weights in that order
        self.send_local = None        # owned local ids whose values others replicate
        self.send_ids = None          # their global ids
        self.recv = {}                # source partition -> (local positions, mask of the values kept)
        self.costs = {}               # the cost model's estimates (multi-hop)

    @property
    def size(self):
        return len(self.L)

    @property
    def owned(self):
        return self.hb[0]

    def etail(self):
        """The local tail of every buffer slot (built once, on first use)."""
        if self._etail is None:
            self._etail = row_ids(self.cindptr)  # CuPy's repeat takes no array of counts
        return self._etail

    def head_index(self):
        """Queue mode: (hptr, rid): the buffer slots of each local head, head-major, in buffer order."""
        if self._heads is None:
            from .kernels import head_major  # noqa: PLC0415

            self._heads = head_major(self.xp, self.cindices, self.size)
        return self._heads


    def push_index(self):
        """Queue mode, a push from few heads: (hptr, slot, tail).  A head h's buffered edges are
        j in hptr[h]..hptr[h+1], in buffer order; ``slot`` None: ``tail[j]`` is the edge's tail (one
        partition: the graph's CSR, with nothing to build; a row's order differs from buffer order
        only among a head's edges, whose messages are equal), else the edge's buffer slot is
        ``slot[j]`` and its tail ``tail[slot[j]]``."""
        if self.csr is not None:
            return self.csr[0], None, self.csr[1]
        hptr, rid = self.head_index()
        return hptr, rid, self.etail()


def cached_layout(shard, key, build):
    """The layout ``key`` of this shard's graph, built once (``build()``; None: only look it up), so
    the buffer index, the head-major index and the replica maps are built once per graph
    (:meth:`dgraph.partition.shard.Shard.cached`)."""
    return shard.cached(("emv-layout",) + tuple(key), build)


def whole_layout(shard):
    """One partition: every vertex is local, the buffer is the graph's CSC."""
    xp = shard.xp
    n = shard.n
    weights = None
    if shard.directed:
        cindptr, cindices, ceids = shard.csc(edge_ids=shard.weights is not None)
        if shard.weights is not None:
            weights = shard.weights[ceids]
    else:
        cindptr, cindices, weights = shard.indptr, shard.indices, shard.weights
    L = xp.arange(n, dtype=shard.indices.dtype)
    lay = Layout(xp, L, [n, n], cindptr.astype(np.int64, copy=False), cindices, weights, shard.degree, True)
    lay.csr = (shard.indptr.astype(np.int64, copy=False), shard.indices)
    lay.csr_weights = shard.weights
    return lay


def one_hop_layout(shard):
    """A partition with one hop of replicas, from the shard alone (its in-edges are local)."""
    xp = shard.xp
    n = shard.n
    owned = shard.global_rows()
    cindptr, cindices, _ = shard.csc(edge_ids=False)
    weights = shard.weights if not shard.directed else None
    mine = xp.zeros(n, dtype=bool)
    mine[owned] = True
    heads = xp.unique(cindices)
    replicas = heads[~mine[heads]]
    L = xp.concatenate([owned, replicas.astype(owned.dtype)])
    lmap = xp.full(n, -1, dtype=np.int64)
    lmap[L] = xp.arange(len(L), dtype=np.int64)
    lay = Layout(xp, L, [len(owned), len(L)], cindptr.astype(np.int64, copy=False), lmap[cindices], weights,
                 shard.degree[L], False)
    # the owned vertices others replicate: heads of my out-edges into other partitions
    rows = row_ids(shard.indptr)
    cross = xp.unique(rows[~mine[shard.indices]])
    lay.send_local = cross
    lay.send_ids = owned[cross]
    lay.lmap = lmap
    return lay


def arcs_of(shard):
    """This shard's out-edges as (source, target, weight) global arcs (numpy): the setup exchange."""
    xp = shard.xp
    rows = row_ids(shard.indptr)
    src = shard.global_rows()[rows]
    w = shard.weights
    return {"src": src, "dst": shard.indices, "w": w if w is not None else xp.empty(0)}


def multi_hop_layouts(shard, arcs, hops, executor, row_bytes, auto):
    """The layout with ``hops`` hops of replicas (``auto``: the cost model's choice), built from every
    partition's arcs; every partition computes the same plan, so the choice needs no further exchange.
    Returns (layout, hops, {n: estimated seconds})."""
    from .replicas import MAX_HOPS, choose_hops  # noqa: PLC0415

    xp = shard.xp
    n = shard.n
    src = np.concatenate([to_numpy(a["src"]) for a in arcs]).astype(np.int64)
    dst = np.concatenate([to_numpy(a["dst"]) for a in arcs]).astype(np.int64)
    has_w = shard.weights is not None
    w = np.concatenate([to_numpy(a["w"]) for a in arcs]) if has_w else None
    order = np.lexsort((src, dst))
    src, dst = src[order], dst[order]
    w = w[order] if has_w else None
    cindptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(dst, minlength=n), out=cindptr[1:])
    p = shard.num_parts
    owners = [to_numpy(shard.part_vertices(q)) if not isinstance(shard.part_vertices(q), slice)
              else np.arange(shard.part_vertices(q).start, shard.part_vertices(q).stop) for q in range(p)]
    depth = MAX_HOPS if auto else hops
    per = [hop_sets(cindptr, src, owners[q], n, depth) for q in range(p)]
    costs = {}
    if auto:
        hops, costs = choose_hops(per, row_bytes, executor, p, depth)
    levels, _ = per[shard.part]
    levels = levels[: hops + 1]
    L = np.concatenate(levels).astype(np.int64)
    hb = np.cumsum([len(lv) for lv in levels]).tolist()
    tails = L[: hb[hops - 1]]
    starts, ends = cindptr[tails], cindptr[tails + 1]
    from .replicas import _ranges  # noqa: PLC0415

    sel = _ranges(starts, ends)
    lptr = np.zeros(len(tails) + 1, dtype=np.int64)
    np.cumsum(ends - starts, out=lptr[1:])
    lmap = np.full(n, -1, dtype=np.int64)
    lmap[L] = np.arange(len(L))
    vdt = shard.indices.dtype
    lay = Layout(xp, to_backend(L.astype(vdt), xp), hb, to_backend(lptr, xp), to_backend(lmap[src[sel]], xp),
                 to_backend(w[sel], xp) if has_w else None, shard.degree[to_backend(L, xp)], False)
    # what I send at a refresh: my owned vertices that any other partition replicates (hops 1..n)
    wanted = np.zeros(n, dtype=bool)
    for q in range(p):
        if q != shard.part:
            for lv in per[q][0][1: hops + 1]:
                wanted[lv] = True
    mine = np.flatnonzero(wanted[levels[0]])
    lay.send_local = to_backend(mine, xp)
    lay.send_ids = to_backend(levels[0][mine].astype(vdt), xp)
    lay.lmap = to_backend(lmap, xp)
    return lay, hops, costs
