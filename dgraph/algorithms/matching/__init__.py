"""Maximal bipartite matching: Anderson et al.'s randomized request / grant / accept, written in the
EMV model (:func:`.program.matching_program`), as Medusa evaluates it.

Every iteration, each unmatched left vertex requests every unmatched right neighbour; each right
vertex grants the request of the smallest random priority; each left vertex accepts the grant of the
smallest random priority, and the pair is matched.  It stops when no request is sent: then no edge
joins two unmatched vertices, so the matching is maximal (not maximum).  The priorities are a random
permutation drawn from ``seed``, so every executor, backend and partition count gives the same
matching.
"""

from __future__ import annotations

from ...emv.plan import runtime as implementation
from ...errors import InputError
from .program import bipartition, matching_program, run_matching


def maximal_matching(G, *, left=None, seed=0, hops=1, backend=None, executor=None, exchange="butterfly",
                     fanout=None, transport="auto", on_step=None, progress=False):
    """A maximal matching of a bipartite graph: column ``mate`` (the matched vertex, -1 if none).

    Parameters
    ----------
    G : Graph or PartitionedGraph
        Bipartite; a directed graph is read as undirected.
    left : list of vertex ids, optional
        The vertices of one side (the others are the right side); None
        2-colours the graph (the side of each component's smallest vertex
        is left).
    seed : int, optional
        The random priorities (a permutation of the vertices).
    hops : int or 'auto', optional
        Replica depth between partitions, as in :meth:`dgraph.emv.Program.run`.
    backend, executor, exchange, fanout, transport, on_step, progress
        As in :func:`dgraph.bfs`.

    Returns
    -------
    Result
        Column ``mate``; ``params["implementation"]`` names the EMV engine
        that ran (:func:`implementation`, which is :func:`dgraph.emv.plan.runtime`).

    Raises
    ------
    InputError
        ``seed`` is not a non-negative integer; ``left=None`` and the graph
        is not bipartite (the message names an edge of an odd cycle); a
        directed PartitionedGraph.
    VertexNotFoundError
        A ``left`` vertex is not in the graph.

    See Also
    --------
    dgraph.emv : the model the algorithm is written in.
    networkx.is_maximal_matching : the check the tests use.

    Notes
    -----
    Anderson, Cole and Richards' randomized request / grant / accept
    matching as evaluated in Medusa (Zhong and He, "Medusa: simplified graph
    processing on GPUs", IEEE TPDS 2014): three sends an iteration, keys
    ``priority * n + id`` combined with ``min``.

    Examples
    --------
    >>> import dgraph
    >>> G = dgraph.from_edges([0, 0, 1, 2], [3, 4, 4, 5])   # left 0, 1, 2; right 3, 4, 5
    >>> r = dgraph.maximal_matching(G, seed=1)
    >>> r.mate.tolist()
    [3, 4, 5, 0, 1, 2]
    >>> r.params["implementation"]
    'emv-numba'
    """
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise InputError(f"seed={seed!r}: expected a non-negative integer")
    return run_matching(G, left=left, seed=seed, hops=hops, backend=backend, executor=executor, exchange=exchange,
                        fanout=fanout, transport=transport, on_step=on_step, progress=progress)


__all__ = ["maximal_matching", "implementation", "bipartition", "matching_program"]
