"""PageRank and personalized PageRank: the public function, and where each part of it lives.

- ``program.py``: the BSP Program (the reference semantics, numpy or CuPy array code) and
  :func:`implementation`, the one place that decides which code runs;
- ``solver.py``: the whole-graph loops on one shard (numba on the CPU, fused iterations on a GPU);
- ``cpu.py``: the numba kernel of one fused iteration;
- ``gpu.py`` + ``pagerank.cu``: the CUDA kernels (fused rank update, the sums in a fixed order).
"""

from __future__ import annotations

import numpy as np

from ...errors import InputError
from .program import IMPLEMENTATIONS, WEIGHTED, PageRank, implementation


def _teleport(ids, n, personalization, what="personalization"):
    """``{vertex: value}`` or n values as a numpy vector summing to 1 (None stays None)."""
    if personalization is None:
        return None
    vec = np.zeros(n, dtype=np.float64)
    if isinstance(personalization, dict):
        if not personalization:
            raise InputError(f"{what}: an empty dict; give at least one vertex a positive weight")
        idx = ids.to_internal(list(personalization.keys()), what=f"{what} vertex")
        try:
            vec[idx] = np.asarray(list(personalization.values()), dtype=np.float64)
        except (TypeError, ValueError):
            raise InputError(f"{what}: expected numbers as the dict's values") from None
    else:
        try:
            arr = np.asarray(personalization, dtype=np.float64)
        except (TypeError, ValueError):
            raise InputError(f"{what}: expected a dict {{vertex: weight}} or {n} numbers") from None
        if arr.shape != (n,):
            raise InputError(f"{what}: expected a dict {{vertex: weight}} or {n} values, got shape {arr.shape}")
        vec = arr.copy()
    if not np.all(np.isfinite(vec)) or (vec < 0).any() or vec.sum() <= 0:
        raise InputError(f"{what}: weights must be finite, non-negative, and not all zero")
    return vec / vec.sum()


def check_weight(weight, G):
    """``weight=`` of the link-analysis functions -> True (use the graph's edge weights) or False.

    None or False: every edge counts 1.  ``"weight"`` or True: the graph's weights (a dgraph graph
    carries one weight per edge; NetworkX calls it 'weight'); an unweighted graph then counts every
    edge 1, as NetworkX does for edges without the attribute.  Negative weights are refused, naming
    the edge."""
    if weight is None or weight is False:
        return False
    if weight is not True and weight != "weight":
        raise InputError(f"weight={weight!r}: expected None (every edge 1), 'weight' or True (the graph's edge "
                         f"weights)")
    if not getattr(G, "weighted", False):
        return False
    from ..sssp.delta import graph_summary  # noqa: PLC0415

    summary = graph_summary(G)
    if summary is not None and summary[2] is not None:
        u, v, w = summary[2]
        uu, vv = (x.item() if hasattr(x, "item") else x for x in G.ids.to_user(np.array([u, v])))
        raise InputError(f"weights: edge {uu!r} -> {vv!r} has weight {w!r}; weight='weight' needs "
                         f"non-negative weights")
    return True


def pagerank(G, *, damping=0.85, iterations=None, tol=1e-6, max_iterations=100, personalization=None,
             weight=None, nstart=None, variant="pull", backend=None, executor=None, exchange="butterfly",
             fanout=None, transport="auto", on_step=None, progress=False):
    """PageRank of every vertex, with the Graphalytics rule for dangling vertices.

    A dangling vertex (no out-edges) hands its rank to every vertex in
    proportion to the teleport distribution (uniform, or the personalization
    vector), as Graphalytics and NetworkX do.  fp64 throughout; the ranks sum
    to 1.  With ``weight="weight"`` the edge weights are transition weights,
    as in ``networkx.pagerank(G, weight="weight")``.

    Parameters
    ----------
    G : Graph or PartitionedGraph
        The graph (``G.partition(p, ...)`` for several partitions).  For an
        undirected graph the in-edges are the edges.
    damping : float
        The probability of following an edge, in [0, 1] (0.85).
    iterations : int or None
        A fixed number of iterations (Graphalytics); None iterates until the
        L1 change is below ``tol * n`` or ``max_iterations`` were run.
    tol : float
        The convergence tolerance per vertex (> 0), when ``iterations`` is None.
    max_iterations : int
        The most iterations when ``iterations`` is None.
    personalization : dict or array_like, optional
        ``{vertex: weight}`` or one weight a vertex (personalized PageRank):
        the teleport distribution, normalized to sum to 1.
    weight : {None, 'weight', True}
        None (the default): every edge counts 1.  ``'weight'`` (or True): the
        graph's edge weights (non-negative) are transition weights: a vertex
        hands on its rank in proportion to its out-edges' weights, and a
        vertex whose out-edges weigh 0 in all is dangling.  Parallel edges (a
        graph built with ``dedupe=False``) add up, as in a NetworkX
        multigraph.  On an unweighted graph every edge weighs 1.
    nstart : dict or array_like, optional
        The first ranks, ``{vertex: value}`` or one value a vertex
        (NetworkX's ``nstart``), normalized to sum to 1; uniform by default.
    variant : {'pull', 'push'}
        'pull' gathers over in-edges (deterministic sums, the default);
        'push' scatters over out-edges.
    backend, executor, exchange, fanout, transport, on_step, progress
        As in :func:`dgraph.bfs`.

    Returns
    -------
    Result
        Column ``pagerank`` (fp64); ``stats`` has ``delta`` (the L1 change)
        per iteration; ``params["implementation"]`` names the code that ran
        (:func:`dgraph.algorithms.pagerank.implementation`).

    Raises
    ------
    InputError
        A damping outside [0, 1], a negative or non-integer ``iterations``,
        an unknown ``variant``, ``tol <= 0``, ``max_iterations < 0``, a
        personalization or nstart that is empty, of the wrong length,
        negative, or names a vertex not in the graph, an unknown ``weight``,
        or a negative edge weight with ``weight='weight'``.

    See Also
    --------
    dgraph.emv.examples.pagerank : PageRank written in the edge-message-vertex model.
    networkx.pagerank : the same ranks (``backend="dgraph"`` runs this).

    Notes
    -----
    Page, Brin, Motwani and Winograd, "The PageRank citation ranking:
    bringing order to the web" (1999); the dangling rule and the fixed
    iteration count of the LDBC Graphalytics specification (Iosup et al.,
    VLDB 2016).  Every executor and partition count gives the same bits on
    the CPU (pull); CuPy shards of a partitioned graph add their partial sums
    in partition order, equal to one GPU's to about 1e-15 relative.  A
    weighted run on several partitions spends its first superstep exchanging
    the out-weight sums (and, pulling over a directed graph, each partition's
    arcs, once: memory for every arc on each shard while it lasts); that
    superstep's report says ``setup``.

    Examples
    --------
    >>> import dgraph
    >>> G = dgraph.from_edges([0, 1, 2, 2], [1, 2, 0, 3], directed=True)
    >>> r = dgraph.pagerank(G, iterations=30)
    >>> [round(float(x), 4) for x in r.pagerank]
    [0.2138, 0.2646, 0.3079, 0.2138]
    >>> round(float(r.pagerank.sum()), 12), r.params["implementation"]
    (1.0, 'cpu-fused')

    Edge weights as transition weights (NetworkX's ``weight="weight"``):

    >>> W = dgraph.from_edges([0, 0, 1, 2], [1, 2, 2, 0], weights=[3.0, 1.0, 1.0, 1.0], directed=True)
    >>> r = dgraph.pagerank(W, weight="weight", tol=1e-12)
    >>> [round(float(x), 4) for x in r.pagerank], r.params["implementation"]
    ([0.3585, 0.2785, 0.3629], 'cpu-fused+weighted')
    """
    from ...engine.run import run_program, run_target  # noqa: PLC0415

    if not (0.0 <= float(damping) <= 1.0):
        raise InputError(f"damping={damping!r}: expected a number in [0, 1]")
    if iterations is not None and (not isinstance(iterations, (int, np.integer)) or iterations < 0):
        raise InputError(f"iterations={iterations!r}: expected a non-negative integer or None")
    if variant not in ("pull", "push"):
        raise InputError(f"variant={variant!r}: expected 'pull' or 'push'")
    if tol <= 0 or max_iterations < 0:
        raise InputError("tol must be > 0 and max_iterations >= 0")
    target = run_target(G, backend, executor)
    weighted = check_weight(weight, target.graph)
    impl = implementation(target.backend, target.num_parts, target.whole, variant, iterations, target.local,
                          weighted=weighted)

    def make(ids):
        return PageRank(damping, iterations, tol, max_iterations, _teleport(ids, ids.n, personalization), variant,
                        implementation=impl, weighted=weighted, start=_teleport(ids, ids.n, nstart, "nstart"))

    return run_program(make, target.graph, backend=backend, executor=executor, exchange=exchange, fanout=fanout,
                       transport=transport, on_step=on_step, progress=progress,
                       params={"damping": damping, "iterations": iterations, "variant": variant,
                               "weight": "weight" if weighted else None, "implementation": impl})


__all__ = ["pagerank", "PageRank", "implementation", "IMPLEMENTATIONS", "WEIGHTED", "check_weight"]
