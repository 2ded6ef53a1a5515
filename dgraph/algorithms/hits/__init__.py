"""HITS (hubs and authorities): the public function, and where each part of it lives.

- ``program.py``: the BSP Program (power iteration, two pulls an iteration; the reference
  semantics, numpy or CuPy array code) and :func:`implementation`, the one place that decides which
  code runs;
- the row sums it pulls with (numba on the CPU, CuPy's segment tree on a GPU, with or without edge
  weights) are :mod:`dgraph.algorithms.edge_weights`, shared with weighted PageRank.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from ...errors import ConvergenceError, InputError
from ..pagerank import _teleport, check_weight
from .program import HITS, IMPLEMENTATIONS, WEIGHTED, implementation


def hits(G, *, iterations=100, tol=1e-8, nstart=None, normalized=True, weight=None, backend=None, executor=None,
         exchange="butterfly", fanout=None, transport="auto", on_step=None, progress=False):
    """Hub and authority scores of every vertex (HITS), by power iteration as NetworkX computes them.

    A good hub points to good authorities, a good authority is pointed to
    by good hubs: the authorities are the principal eigenvector of
    ``A^T A``, the hubs of ``A A^T``, found by power iteration from uniform
    hub scores (or ``nstart``), each product scaled to its maximum.

    Parameters
    ----------
    G : Graph or PartitionedGraph
        The graph (``G.partition(p, ...)`` for several partitions).  On an
        undirected graph every edge goes both ways, so hubs equal
        authorities.
    iterations : int
        The most iterations (NetworkX's ``max_iter``, 100); with ``tol=None``
        exactly this many.
    tol : float or None
        Stop once the L1 change of the hub scores (scaled to a maximum of 1)
        is below ``tol`` (> 0; NetworkX's test, absolute; 1e-8).  None: no
        test, run ``iterations`` iterations.
    nstart : dict or array_like, optional
        The first hub scores, ``{vertex: value}`` or one value a vertex
        (finite, non-negative, not all 0), scaled to sum to 1; uniform by
        default.
    normalized : bool
        Scale hubs and authorities to sum to 1 each (the default, as
        NetworkX); False leaves them scaled to a maximum of 1.
    weight : {None, 'weight', True}
        None (the default): every edge counts 1.  ``'weight'`` (or True):
        the graph's edge weights (non-negative) are the entries of ``A``, as
        NetworkX's ``hits`` reads the 'weight' attribute.  Parallel edges (a
        graph built with ``dedupe=False``) add up.
    backend, executor, exchange, fanout, transport, on_step, progress
        As in :func:`dgraph.bfs`.

    Returns
    -------
    Result
        Columns ``hubs`` and ``authorities`` (fp64).  ``stats`` has
        ``iteration`` and ``delta`` (the L1 change of the hub scores) per
        superstep; ``params["implementation"]`` names the code that ran
        (:func:`dgraph.algorithms.hits.implementation`).

    Raises
    ------
    ConvergenceError
        The change was still not below ``tol`` after ``iterations``
        iterations (NetworkX's ``PowerIterationFailedConvergence``; also for
        ``iterations=0`` with a ``tol``); the message names the iterations.
    InputError
        A negative or non-integer ``iterations``, ``tol`` not > 0, a
        non-bool ``normalized``, an ``nstart`` that is empty, of the wrong
        length, negative or names a vertex not in the graph, an unknown
        ``weight``, or a negative edge weight with ``weight='weight'``.

    See Also
    --------
    dgraph.pagerank : the random-surfer ranking.
    networkx.hits : the same scores (``backend="dgraph"`` runs this).

    Notes
    -----
    Kleinberg, "Authoritative sources in a hyperlinked environment", JACM
    46(5), 1999.  The iteration, its scaling and its stopping test are
    NetworkX's power iteration (``networkx.algorithms.link_analysis.
    hits_alg._hits_python``); ``networkx.hits`` itself asks ARPACK for the
    top singular vectors, which are the same scores wherever the largest
    singular value of ``A`` is simple.  Where it is not (a graph of two
    equal parts, a cycle), the scores are not unique: the power iteration
    gives the part of the start vector in that eigenspace, ARPACK an
    arbitrary vector of it.  A graph with no edge of positive weight (or a
    start that reaches none) has every score 0.  On one partition an
    iteration is one superstep, on several two (the products ``A^T h`` and
    ``A a`` each need the whole of the other vector); a weighted directed
    graph on several partitions first exchanges every partition's arcs
    once, for its in-edge weights (report ``setup``).  Every executor and
    partition count gives the same bits on one backend.

    Examples
    --------
    >>> import dgraph
    >>> G = dgraph.from_edges([0, 0, 1, 3], [1, 2, 2, 2], directed=True)
    >>> r = dgraph.hits(G)
    >>> [round(float(x), 4) for x in r.hubs], [round(float(x), 4) for x in r.authorities]
    ([0.4142, 0.2929, 0.0, 0.2929], [0.0, 0.2929, 0.7071, 0.0])
    >>> r.params["implementation"]
    'cpu-pull'
    """
    from ...engine.run import run_program, run_target  # noqa: PLC0415

    if not isinstance(iterations, (int, np.integer)) or isinstance(iterations, bool) or iterations < 0:
        raise InputError(f"iterations={iterations!r}: expected a non-negative integer")
    if tol is not None and not (isinstance(tol, numbers.Real) and not isinstance(tol, bool)
                                and math.isfinite(tol) and tol > 0):
        raise InputError(f"tol={tol!r}: expected a finite number > 0, or None (run every iteration)")
    if not isinstance(normalized, (bool, np.bool_)):
        raise InputError(f"normalized={normalized!r}: expected True or False")
    target = run_target(G, backend, executor)
    weighted = check_weight(weight, target.graph)
    impl = implementation(target.backend, weighted)

    def make(ids):
        return HITS(iterations, tol, _teleport(ids, ids.n, nstart, "nstart"), normalized, weighted,
                    implementation=impl)

    r = run_program(make, target.graph, backend=backend, executor=executor, exchange=exchange, fanout=fanout,
                    transport=transport, on_step=on_step, progress=progress,
                    params={"iterations": iterations, "tol": tol, "normalized": bool(normalized),
                            "weight": "weight" if weighted else None, "implementation": impl})
    if tol is not None and target.graph.num_vertices:
        last = r.stats_records[-1] if r.stats_records else {"delta": float("inf")}
        if not last["delta"] < tol:
            raise ConvergenceError(f"hits: no convergence in {iterations} iterations (the hub scores' L1 change "
                                   f"{last['delta']:.3g} is not below tol={tol:g}); give more iterations or a "
                                   f"larger tol", iterations=iterations, delta=last["delta"])
    return r


__all__ = ["hits", "HITS", "implementation", "IMPLEMENTATIONS", "WEIGHTED"]
