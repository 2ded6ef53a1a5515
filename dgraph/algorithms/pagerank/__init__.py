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
from .program import IMPLEMENTATIONS, PageRank, implementation


def _teleport(ids, n, personalization):
    if personalization is None:
        return None
    vec = np.zeros(n, dtype=np.float64)
    if isinstance(personalization, dict):
        if not personalization:
            raise InputError("personalization: an empty dict; give at least one vertex a positive weight")
        idx = ids.to_internal(list(personalization.keys()), what="personalization vertex")
        vec[idx] = np.asarray(list(personalization.values()), dtype=np.float64)
    else:
        arr = np.asarray(personalization, dtype=np.float64)
        if arr.shape != (n,):
            raise InputError(f"personalization: expected a dict {{vertex: weight}} or {n} values, got shape {arr.shape}")
        vec = arr.copy()
    if not np.all(np.isfinite(vec)) or (vec < 0).any() or vec.sum() <= 0:
        raise InputError("personalization: weights must be finite, non-negative, and not all zero")
    return vec / vec.sum()


def pagerank(G, *, damping=0.85, iterations=None, tol=1e-6, max_iterations=100, personalization=None,
             variant="pull", backend=None, executor=None, exchange="butterfly", fanout=None, transport="auto",
             on_step=None, progress=False):
    """PageRank of every vertex, with the Graphalytics rule for dangling vertices.

    A dangling vertex (no out-edges) hands its rank to every vertex in
    proportion to the teleport distribution (uniform, or the personalization
    vector), as Graphalytics and NetworkX do.  fp64 throughout; the ranks sum
    to 1.

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
        an unknown ``variant``, ``tol <= 0``, ``max_iterations < 0``, or a
        personalization that is empty, of the wrong length, negative, or
        names a vertex not in the graph.

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
    in partition order, equal to one GPU's to about 1e-15 relative.

    Examples
    --------
    >>> import dgraph
    >>> G = dgraph.from_edges([0, 1, 2, 2], [1, 2, 0, 3], directed=True)
    >>> r = dgraph.pagerank(G, iterations=30)
    >>> [round(float(x), 4) for x in r.pagerank]
    [0.2138, 0.2646, 0.3079, 0.2138]
    >>> round(float(r.pagerank.sum()), 12), r.params["implementation"]
    (1.0, 'cpu-fused')
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
    impl = implementation(target.backend, target.num_parts, target.whole, variant, iterations, target.local)

    def make(ids):
        return PageRank(damping, iterations, tol, max_iterations, _teleport(ids, ids.n, personalization), variant,
                        implementation=impl)

    return run_program(make, target.graph, backend=backend, executor=executor, exchange=exchange, fanout=fanout,
                       transport=transport, on_step=on_step, progress=progress,
                       params={"damping": damping, "iterations": iterations, "variant": variant,
                               "implementation": impl})


__all__ = ["pagerank", "PageRank", "implementation", "IMPLEMENTATIONS"]
