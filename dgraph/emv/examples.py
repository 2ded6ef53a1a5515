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

Maximal bipartite matching, the fourth of Medusa's set, is an algorithm of its own:
:mod:`dgraph.algorithms.matching` (``dgraph.maximal_matching``).
"""

from __future__ import annotations

import functools

from .api import edge_list, vertex
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
