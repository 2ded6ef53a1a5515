"""Maximal bipartite matching: Anderson et al.'s randomized request / grant / accept, written in the
EMV model (:func:`dgraph.emv.examples.matching_program`), as Medusa evaluates it.

Every iteration, each unmatched left vertex requests every unmatched right neighbour; each right
vertex grants the request of the smallest random priority; each left vertex accepts the grant of the
smallest random priority, and the pair is matched.  It stops when no request is sent: then no edge
joins two unmatched vertices, so the matching is maximal (not maximum).  The priorities are a random
permutation drawn from ``seed``, so every executor, backend and partition count gives the same
matching.
"""

from __future__ import annotations

from ..errors import InputError


def maximal_matching(G, *, left=None, seed=0, hops=1, backend=None, executor=None, exchange="butterfly",
                     fanout=None, transport="auto", on_step=None, progress=False):
    """A maximal matching of a bipartite graph: column ``mate`` (the matched vertex, -1 if none).

    left : the vertices of one side (the others are the right side); None 2-colours a Graph (an
        InputError names an edge of an odd cycle when it is not bipartite).  A directed graph is
        read as undirected.
    seed : the random priorities (a permutation of the vertices).
    Other keywords as in :func:`dgraph.bfs`; ``hops`` as in :meth:`dgraph.emv.Program.run`.
    """
    from ..emv.examples import maximal_matching as run  # noqa: PLC0415

    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise InputError(f"seed={seed!r}: expected a non-negative integer")
    return run(G, left=left, seed=seed, hops=hops, backend=backend, executor=executor, exchange=exchange,
               fanout=fanout, transport=transport, on_step=on_step, progress=progress)


__all__ = ["maximal_matching"]
