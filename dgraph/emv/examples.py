"""Algorithms written in the EMV model: Medusa's evaluation set.

Each ``*_program`` returns an :class:`~dgraph.emv.Program`, built once per argument set and shared:
tracing the steps and compiling their kernels is per Program, as for a user who builds a program
once and runs it many times (do not change the returned Program: build your own from the steps).
Each plain function runs it and returns a Result, like the built-in algorithm it is tested against:

- :func:`pagerank`: ELIST sends rank / out-degree, VERTEX applies the Graphalytics rule (the rank of
  dangling vertices spread evenly: an aggregator), so it equals :func:`dgraph.pagerank`.
- :func:`bfs` ``queue=False`` (BFS-N): every reached vertex sends every iteration, until no depth
  changes; ``queue=True`` (BFS-Q): only the vertices reached in the last iteration send (set_active).
- :func:`sssp` ``queue=False`` (SSSP-N, Bellman-Ford) and ``queue=True`` (SSSP-Q): min-plus relaxation.
- :func:`maximal_matching`: Anderson et al.'s randomized request / grant / accept on a bipartite graph.
"""

from __future__ import annotations

import functools

import numpy as np

from ..errors import InputError
from .api import edge, edge_list, vertex
from .program import Program
from .trace import where

INF = float("inf")


@functools.lru_cache(maxsize=32)
def pagerank_program(damping=0.85, iterations=30):
    d = float(damping)

    @edge_list
    def send_rank(v, edges):
        edges.send(v.rank / v.out_degree)

    @vertex
    def update(v, msg):
        n = v.graph.num_vertices
        dangling = v.graph.sum(where(v.out_degree == 0, v.rank, 0.0))
        v.rank = ((1 - d) + d * dangling) / n + d * msg

    return Program({"rank": "f8"}, message="f8", combiner="sum", steps=[send_rank, update],
                   max_iterations=iterations, name="emv-pagerank")


def pagerank(G, damping=0.85, iterations=30, **run):
    n = G.num_vertices
    return pagerank_program(damping, iterations).run(G, init={"rank": 1.0 / n if n else 0.0}, **run)


@functools.lru_cache(maxsize=32)
def bfs_program(queue=True):
    if queue:
        @edge_list
        def expand(v, edges):
            edges.send(v.depth + 1, where=edges.tail.depth < 0)

        @vertex
        def visit(v, msg):
            fresh = v.depth < 0        # queue mode: only vertices that received a message run
            v.depth = where(fresh, msg, v.depth)
            v.set_active(fresh)

        return Program({"depth": ("i8", -1)}, message="i8", combiner="min", steps=[expand, visit],
                       name="emv-bfs-q")

    @edge_list
    def expand_all(v, edges):
        edges.send(v.depth + 1, where=v.depth >= 0)

    @vertex
    def visit_all(v, msg):
        fresh = v.received & (v.depth < 0)
        v.depth = where(fresh, msg, v.depth)
        v.vote_halt(~fresh)

    return Program({"depth": ("i8", -1)}, message="i8", combiner="min", steps=[expand_all, visit_all],
                   name="emv-bfs-n")


def bfs(G, source, queue=True, **run):
    prog = bfs_program(queue)
    return prog.run(G, init={"depth": {source: 0}}, active=[source] if queue else None, **run)


@functools.lru_cache(maxsize=32)
def sssp_program(queue=True):
    if queue:
        @edge_list
        def relax(v, edges):
            edges.send(v.dist + edges.weight)

        @vertex
        def settle(v, msg):
            better = msg < v.dist
            v.dist = where(better, msg, v.dist)
            v.set_active(better)

        return Program({"dist": ("f8", INF)}, message="f8", combiner="min", steps=[relax, settle],
                       name="emv-sssp-q")

    @edge_list
    def relax_all(v, edges):
        edges.send(v.dist + edges.weight, where=v.dist < INF)

    @vertex
    def settle_all(v, msg):
        better = msg < v.dist
        v.dist = where(better, msg, v.dist)
        v.vote_halt(~better)

    return Program({"dist": ("f8", INF)}, message="f8", combiner="min", steps=[relax_all, settle_all],
                   name="emv-sssp-n")


def sssp(G, source, queue=True, **run):
    return sssp_program(queue).run(G, init={"dist": {source: 0.0}}, active=[source] if queue else None, **run)


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
    from ..backend import to_numpy  # noqa: PLC0415
    from ..partition.partitioned import PartitionedGraph  # noqa: PLC0415
    from .shard import arcs_of  # noqa: PLC0415

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


def maximal_matching(G, left=None, seed=0, **run):
    from ..partition.partitioned import PartitionedGraph  # noqa: PLC0415

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
