"""Breadth-first search: push, pull and direction-optimizing (Beamer), with depth and parent.

Every BFS line is in this package:

- ``__init__.py``: :func:`bfs`, the public function.
- ``program.py``: the BSP :class:`BFS` Program (Beamer's switch, the frontier exchange between
  partitions, the parents reconciled at the end) and :func:`implementation`, the one function that
  decides which implementation a run takes.
- ``kernels.py``: the visit step's interface (what every implementation takes and returns) and the
  vectorized reference built from :mod:`dgraph.ops` (``generic``).
- ``cpu.py``: the numba visit kernels (``cpu-numba``), and the whole traversal in one call
  (``cpu-numba+levels``: one whole shard on the local executor).
- ``gpu.py`` + ``bfs.cu``: the CUDA visit kernels, load-balanced push and early-exit pull
  (``gpu-fused``).
- ``solver.py`` + ``levels.cu``: the whole-graph level loops: every level in numba calls on the CPU
  (``cpu-numba+levels``), many push levels in one cooperative launch for deep graphs on one GPU
  (``gpu-fused+levels``).
- ``union.py`` + ``union.cu``: the bitmap union of a partitioned GPU run's frontiers
  (``gpu-fused+union``).
"""

from __future__ import annotations

from ...errors import InputError
from ..choice import check_kernels
from .program import BFS, DIRECTIONS, IMPLEMENTATIONS, BFSState, implementation


def bfs(G, source, *, direction="auto", backend=None, executor=None, exchange="butterfly", fanout=None,
        transport="auto", alpha=15.0, beta=18.0, kernels="fused", on_step=None, progress=False):
    """Breadth-first search from ``source``: each vertex's depth and parent.

    Parameters
    ----------
    G : Graph or PartitionedGraph
        The graph; a partitioned one (``G.partition(p, ...)``) runs as ButterFly BFS.
    source : int or str
        The start vertex, a user vertex id.
    direction : {'auto', 'push', 'pull'}
        'auto': Beamer's direction-optimizing switch, tuned by ``alpha`` and ``beta``; 'push'
        (top-down) or 'pull' (bottom-up) for every level.
    backend : {'numpy', 'cupy'}, optional
        Where to run; None uses the graph's own backend.
    executor : {'local', 'tasks', 'spmd'}, optional
        'local' (one process), 'tasks' (a Dask task graph per superstep) or 'spmd' (one Dask task
        per shard, direct exchange); None picks 'local' for a Graph and 'spmd' for a
        PartitionedGraph on a cluster.
    exchange : {'butterfly', 'all-to-all'}
        How partitions exchange their frontiers.
    fanout : int, optional
        Partners a butterfly round (default 4).
    transport : {'auto', 'dask', 'nccl'}
        How spmd moves data: Dask worker comm (tcp or ucx), NCCL (CuPy shards, one per GPU), or
        NCCL where it applies.
    alpha, beta : float
        Beamer's thresholds: pull when the frontier's edges exceed the unvisited edges / ``alpha``,
        push again when the frontier shrinks below n / ``beta``.
    kernels : {'fused', 'generic'}
        'fused': the compiled visit kernels (numba on the CPU, CUDA on the GPU); 'generic': the
        vectorized reference composed from :mod:`dgraph.ops`.
    on_step : callable, optional
        Called with each superstep's record (a dict: the row ``r.stats`` will have) as it ends.
    progress : bool or None
        True shows a progress bar of the supersteps (tqdm: on stderr, or a widget in Jupyter);
        None shows one only when stderr is a terminal; False none.

    Returns
    -------
    Result
        Columns ``depth`` (hops from the source, -1 when unreachable) and ``parent`` (the
        smallest-id neighbor one level up; the source is its own parent; -1 when unreachable), in
        the user's vertex ids.  ``r.stats`` has a row per superstep (``direction``, ``frontier``,
        ``edges`` scanned, ``frontier_edges``); ``r.params["implementation"]`` says which
        implementation ran (:func:`implementation`).  Kernel start-up (loading or compiling the
        kernels the call runs) is ``r.phases["startup_s"]``, not ``r.run_time``.

    Raises
    ------
    InputError
        An unknown ``direction``, ``kernels``, ``executor`` or ``exchange``.
    VertexNotFoundError
        ``source`` is not a vertex of ``G``.
    BackendError
        ``backend='cupy'`` without a usable GPU.

    See Also
    --------
    dgraph.sssp : shortest paths over weighted edges.
    dgraph.ops : the frontier operators the generic reference is written with.

    Notes
    -----
    Direction optimization is Beamer, Asanovic and Patterson, "Direction-Optimizing Breadth-First
    Search" (SC 2012); the load-balanced advance is Gunrock's (Wang et al., PPoPP 2016); the
    partitioned exchange is ButterFly BFS (Green).  The parent of a vertex is its smallest-id
    neighbor in the previous level whichever direction, partition, executor or backend found it,
    so every run returns the same parent array.

    Examples
    --------
    >>> import dgraph
    >>> G = dgraph.from_edges([0, 1, 2], [1, 2, 3])    # a path 0 - 1 - 2 - 3
    >>> r = dgraph.bfs(G, source=0)
    >>> r.depth.tolist(), r.parent.tolist()
    ([0, 1, 2, 3], [0, 0, 1, 2])
    >>> r.supersteps, sorted(r.phases), r.params["implementation"]
    (4, ['startup_s'], 'cpu-numba+levels')

    The generic reference gives the same answer, and so does a partitioned graph:

    >>> dgraph.bfs(G, 0, kernels="generic").params["implementation"]
    'generic'
    >>> dgraph.bfs(G.partition(2, client=False), 0, direction="pull").parent.tolist()
    [0, 0, 1, 2]
    """
    from ...engine.run import resolve_graph, run_program  # noqa: PLC0415

    if direction not in DIRECTIONS:
        raise InputError(f"direction={direction!r}: expected one of {', '.join(DIRECTIONS)}")
    check_kernels(kernels)
    from ..choice import run_shape  # noqa: PLC0415

    G = resolve_graph(G, backend)  # on the backend it runs on (run_program keeps it there)
    _, whole = run_shape(G, None, executor)
    impl = implementation(G.backend, getattr(G, "num_parts", 1), kernels, direction, whole=whole)

    def make(ids):
        return BFS(ids.to_internal(source, what="source"), direction=direction, alpha=alpha, beta=beta,
                   kernels=kernels, implementation=impl)

    return run_program(make, G, executor=executor, exchange=exchange, fanout=fanout, transport=transport,
                       on_step=on_step, progress=progress, vertex_columns=("parent",),
                       missing={"depth": -1, "parent": -1},
                       params={"source": source, "direction": direction, "implementation": impl})


__all__ = ["bfs", "BFS", "BFSState", "DIRECTIONS", "IMPLEMENTATIONS", "implementation"]
