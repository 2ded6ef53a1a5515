"""Maximal bipartite matching as an EMV program: Anderson et al.'s randomized request / grant /
accept, the way Medusa evaluates it (:func:`matching_program`), and the 2-colouring that finds the
sides when the caller gives none (:func:`bipartition`)."""

from __future__ import annotations

import functools

import numpy as np

from ...emv.api import edge, edge_list, vertex
from ...emv.program import Program
from ...emv.trace import where
from ...errors import InputError


@functools.lru_cache(maxsize=32)
def matching_program():
    """Anderson et al.'s randomized maximal bipartite matching, three sends an iteration.

    Keys are ``prio * n + id`` (prio: a random permutation), so a min combiner picks the request or
    grant of the smallest random priority and the key still names its vertex (``key % n``)."""

    @edge_list
    def request(v, edges):  # unmatched left vertices ask every unmatched right neighbour
        edges.send(v.prio * v.graph.num_vertices + v.id,
                   where=v.left & (v.mate < 0) & ~edges.tail.left & (edges.tail.mate < 0))

    @vertex
    def choose_request(v, msg):
        v.req = where(v.received & ~v.left & (v.mate < 0), msg % v.graph.num_vertices, -1)
        v.vote_halt(~v.received)

    @edge
    def grant(e):  # a right vertex grants the request it chose
        e.send(e.head.prio * e.head.graph.num_vertices + e.head.id, where=e.head.req == e.tail.id)

    @vertex
    def accept(v, msg):
        v.mate = where(v.received & v.left & (v.mate < 0), msg % v.graph.num_vertices, v.mate)

    @edge
    def confirm(e):  # the left vertex tells the right vertex it accepted
        e.send(e.head.id, where=e.head.left & (e.head.mate == e.tail.id) & (e.tail.mate < 0))

    @vertex
    def matched(v, msg):
        v.mate = where(v.received, msg, v.mate)

    return Program({"left": bool, "prio": "i8", "mate": "vertex", "req": ("i8", -1)}, message="i8",
                   combiner="min", steps=[request, choose_request, grant, accept, confirm, matched],
                   name="maximal_matching", outputs=["mate"])


def _arcs(G):
    """(src, dst) of every arc of a Graph or PartitionedGraph (numpy; a distributed one's shards are fetched)."""
    from ...backend import to_numpy  # noqa: PLC0415
    from ...emv.shard import arcs_of  # noqa: PLC0415
    from ...partition.partitioned import PartitionedGraph  # noqa: PLC0415

    if isinstance(G, PartitionedGraph):
        arcs = [arcs_of(s) for s in G.local_shards()]
        return (np.concatenate([to_numpy(a["src"]) for a in arcs]).astype(np.int64),
                np.concatenate([to_numpy(a["dst"]) for a in arcs]).astype(np.int64))
    indptr = to_numpy(G.indptr)
    return np.repeat(np.arange(G.num_vertices), np.diff(indptr)), to_numpy(G.indices).astype(np.int64)


def bipartition(G):
    """A 2-colouring of the undirected view of ``G`` (True = left: the colour of each component's
    smallest vertex is left); InputError naming an odd cycle's edge when there is none."""
    n = G.num_vertices
    src, dst = _arcs(G)
    src, indices = np.concatenate([src, dst]), np.concatenate([dst, src])
    order = np.argsort(src, kind="stable")
    src, indices = src[order], indices[order]
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(src, minlength=n), out=indptr[1:])
    color = np.full(n, -1, dtype=np.int8)
    for root in range(n):
        if color[root] >= 0:
            continue
        color[root] = 0
        frontier = np.array([root])
        while len(frontier):
            starts, ends = indptr[frontier], indptr[frontier + 1]
            lens = ends - starts
            pos = np.repeat(starts - np.concatenate([[0], np.cumsum(lens)[:-1]]), lens) + np.arange(lens.sum())
            nb = indices[pos]
            par = np.repeat(frontier, lens)
            new = color[nb] < 0
            color[nb[new]] = 1 - color[par[new]]
            frontier = np.unique(nb[new])
    bad = color[src] == color[indices]
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        u, v = G.ids.to_user(np.array([src[i], indices[i]]))
        raise InputError(f"maximal_matching: the graph is not bipartite (edge {u} - {v} closes an odd cycle"
                         f"{' or is a self loop' if u == v else ''}); give left= to choose the sides")
    return color == 0


def run_matching(G, left=None, seed=0, **run):
    """Run :func:`matching_program` on ``G`` (sides from ``left`` or :func:`bipartition`); its Result."""
    from ...partition.partitioned import PartitionedGraph  # noqa: PLC0415

    if getattr(G, "directed", False):
        if isinstance(G, PartitionedGraph):
            raise InputError("maximal_matching: the partitioned graph is directed; partition an undirected graph")
        G = G.symmetrize()  # grants and confirmations travel back along the requests' edges
    n = G.num_vertices
    ids = G.ids
    if left is None:
        side = bipartition(G)
    else:
        side = np.zeros(n, dtype=bool)
        vals = list(np.atleast_1d(np.asarray(left, dtype=object)))
        if vals:
            side[np.asarray(ids.to_internal(vals, what="left vertex"), dtype=np.int64)] = True
    prio = np.random.default_rng(seed).permutation(n).astype(np.int64)
    return matching_program().run(G, init={"left": side, "prio": prio}, **run)


__all__ = ["matching_program", "bipartition", "run_matching"]
