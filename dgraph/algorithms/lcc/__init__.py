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

It is the triangle-counting Program of :mod:`dgraph.algorithms.triangles`
(the same implementations, chosen by :func:`dgraph.algorithms.triangles.implementation`):
every edge ``{u, w}`` among the neighbors of ``v`` is found once per ``v``;
on a directed graph each shard also keeps, per arc of its rows, whether the
two vertices are joined one way or both ways, and that travels with the
oriented rows of the replica table (one int8 per edge).  The numerator is an
integer and the division is the last operation, so every executor, partition
count and backend returns the same bits.  Memory and work: see
:mod:`dgraph.algorithms.triangles.program` (each shard holds up to the whole oriented
edge list while it is exchanged).
"""

from __future__ import annotations

from ..triangles import TriangleProgram, implementation, run_triangles


def lcc(G, *, backend=None, executor=None, exchange="butterfly", fanout=None, transport="auto", kernels="fused",
        on_step=None, progress=False):
    """The local clustering coefficient of every vertex (column ``lcc``, float64), LDBC Graphalytics rule.

    Directed graphs: neighbors are in- and out-neighbors, the numerator
    counts the directed edges among them; undirected graphs: NetworkX's
    ``nx.clustering``.  Self loops and duplicate edges are ignored; a vertex
    with fewer than two neighbors has 0.

    Parameters
    ----------
    G : Graph or PartitionedGraph
    kernels : {'fused', 'generic'}, optional
        'fused' (numba kernels count on the numpy backend, CUDA kernels on
        CuPy) or 'generic' (the vectorized count everywhere, the
        reference).  Same bits either way.
    backend, executor, exchange, fanout, transport, on_step, progress
        As in :func:`dgraph.bfs`.

    Returns
    -------
    Result
        Column ``lcc``.  ``params["total"]`` is the number of triangles of
        the undirected simple graph; ``params["implementation"]`` says
        which code counted (:func:`dgraph.algorithms.triangles.implementation`).

    Raises
    ------
    InputError
        ``kernels`` is not one of the two.

    See Also
    --------
    dgraph.triangle_count : the counts this is computed from.
    networkx.clustering : the same values on an undirected graph.

    Notes
    -----
    The LDBC Graphalytics specification (Iosup et al., "LDBC Graphalytics:
    a benchmark for large-scale graph analysis on parallel and distributed
    platforms", VLDB 2016), section on LCC; the rule is in this module's
    docstring.  The numerator is an integer and the division comes last:
    every executor, partition count and backend returns the same bits.

    Examples
    --------
    >>> import dgraph
    >>> G = dgraph.from_edges([0, 1, 2, 2], [1, 2, 0, 3])   # a triangle and a pendant vertex
    >>> dgraph.lcc(G).lcc.tolist()
    [1.0, 1.0, 0.3333333333333333, 0.0]
    >>> D = dgraph.from_edges([0, 1, 2, 1], [1, 2, 0, 0], directed=True)   # 0 and 1 joined both ways
    >>> dgraph.lcc(D).lcc.tolist()
    [0.5, 0.5, 1.0]
    """
    return run_triangles(G, True, backend=backend, executor=executor, exchange=exchange, fanout=fanout,
                         transport=transport, on_step=on_step, progress=progress, kernels=kernels)


__all__ = ["lcc", "implementation", "TriangleProgram"]
