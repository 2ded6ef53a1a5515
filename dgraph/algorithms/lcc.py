"""Local clustering coefficient (LCC) with the LDBC Graphalytics semantics.

For a vertex ``v`` let ``N(v)`` be the set of its neighbors, in- or out-,
``v`` itself excluded (self loops and duplicate edges do not count).  If
``|N(v)| <= 1`` then ``LCC(v) = 0``; otherwise

    LCC(v) = #{ arcs (u, w) : u, w in N(v), u != w } / (|N(v)| * (|N(v)| - 1))

where, on a directed graph, the arcs are the graph's (distinct) directed
edges -- a pair of neighbors joined both ways counts twice, one way once --
and on an undirected graph every edge counts in both directions, which is
``2 * t(v) / (d (d - 1))``, NetworkX's ``nx.clustering``.  (NetworkX's
*directed* clustering is another formula; it is not this one.)

It is the triangle-counting Program of :mod:`dgraph.algorithms.triangles`:
every edge ``{u, w}`` among the neighbors of ``v`` is found once per ``v``;
on a directed graph each shard also keeps, per arc of its rows, whether the
two vertices are joined one way or both ways, and that travels with the
oriented rows of the replica table (one int8 per edge).  The numerator is an
integer and the division is the last operation, so every executor, partition
count and backend returns the same bits.  Memory and work: see
:mod:`dgraph.algorithms.triangles` (each shard holds up to the whole oriented
edge list while it is exchanged).
"""

from __future__ import annotations

from .triangles import TriangleProgram, run_triangles


def lcc(G, *, backend=None, executor=None, exchange="butterfly", fanout=None, transport="auto", kernels="fused",
        on_step=None, progress=False):
    """The local clustering coefficient of every vertex (column ``lcc``, float64), LDBC Graphalytics rule.

    Directed graphs: neighbors are in- and out-neighbors, the numerator
    counts the directed edges among them; undirected graphs: NetworkX's
    ``nx.clustering``.  Self loops and duplicate edges are ignored; a vertex
    with fewer than two neighbors has 0.  ``r.params["total"]`` is the number
    of triangles of the undirected simple graph.
    kernels : 'fused' (a numba kernel counts on the numpy backend; CuPy
        runs the vectorized count either way) or 'generic' (the vectorized
        count everywhere, the reference).  Same bits either way.
    Other keywords as in :func:`dgraph.bfs`.
    """
    return run_triangles(G, True, backend=backend, executor=executor, exchange=exchange, fanout=fanout,
                         transport=transport, on_step=on_step, progress=progress, kernels=kernels)


__all__ = ["lcc", "TriangleProgram"]
