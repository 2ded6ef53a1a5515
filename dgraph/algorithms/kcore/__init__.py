"""k-cores: core numbers and the k-core subgraph (NetworkX's ``core_number`` and ``k_core``).

- ``program.py``: the BSP Program (peeling with a frontier of vertices whose degree fell to the
  level: Gunrock's filter + advance; the reference, with why the numbers are right) and
  :func:`implementation`, the one place that decides which code runs;
- ``cpu.py``: the same peeling, level by level in one thread, in numba (O(m + n));
- ``gpu.py`` + ``peel.cu``: the Program's peeling in one cooperative CUDA launch;
- ``solver.py``: either as the whole run of one whole shard (numpy: the level-by-level peeling;
  CuPy: the one launch).

Partitioned CuPy graphs run the vectorized step.
"""

from __future__ import annotations

import numbers

import numpy as np

from ...errors import InputError
from ..choice import check_kernels
from .program import IMPLEMENTATIONS, CoreNumber, implementation, owned_degrees, shard_self_loops

#: what ``self_loops=`` may say
SELF_LOOPS = ("raise", "ignore")


def core_number(G, *, self_loops="raise", kernels="fused", backend=None, executor=None, exchange="butterfly",
                fanout=None, transport="auto", on_step=None, progress=False):
    """The core number of every vertex: the largest k of a k-core holding it (NetworkX's semantics).

    A k-core is a maximal subgraph in which every vertex has degree k or
    more.  The degree of a vertex counts its edges: for a directed graph its
    in-degree plus its out-degree, as NetworkX counts it (``u -> v`` and
    ``v -> u`` are two edges), and a multi-edge kept with ``dedupe=False``
    once a copy.

    Parameters
    ----------
    G : Graph or PartitionedGraph
        The graph (``G.partition(p, ...)`` for several partitions).
    self_loops : {'raise', 'ignore'}
        What to do with a graph that has self loops: 'raise' (the default:
        NetworkX refuses such a graph too) or 'ignore' (the core numbers of
        the graph without them: a loop adds nothing to a vertex's degree).
    kernels : {'fused', 'generic'}
        'fused' (the default): a whole graph on the numpy backend peels
        level by level in numba, one thread, O(m + n), in one superstep; on
        CuPy, the peeling's every level and round in one cooperative CUDA
        launch ('gpu-peel'), one superstep (partitioned graphs peel by
        supersteps either way); 'generic': the peeling supersteps
        everywhere, the reference.  Same core numbers either way.
    backend, executor, exchange, fanout, transport, on_step, progress
        As in :func:`dgraph.bfs`.

    Returns
    -------
    Result
        Column ``core`` (int64).  Every backend, executor and partition
        count returns the same numbers.  Stats per superstep: ``k`` (the
        level peeled), ``frontier`` (the vertices peeled next), ``left``
        (the vertices not yet peeled, frontier included), ``edges`` (the
        arcs the superstep advanced over); superstep 0 of the peeling
        gathers the degrees.  ``params["implementation"]`` names the code
        that ran (:func:`dgraph.algorithms.kcore.implementation`).

    Raises
    ------
    InputError
        The graph has self loops and ``self_loops`` is 'raise' (the message
        names one); ``self_loops`` or ``kernels`` is not one of its values.

    See Also
    --------
    dgraph.k_core : the k-core itself, as a Graph.
    networkx.core_number : the same numbers (``backend="dgraph"`` runs this).

    Notes
    -----
    Peeling by supersteps as Gunrock composes its primitives (Wang et al.,
    PPoPP 2016): remove the frontier, advance to its neighbors and lower
    their degrees, filter those whose degree fell to the level into the
    next frontier; raise the level when the frontier empties
    (:mod:`dgraph.algorithms.kcore.program`).  The one-shard CPU path
    peels the same levels in one thread with a compacted list of the
    vertices left (Kabir and Madduri's PKC, "Parallel k-core decomposition
    on multicore platforms", IPDPSW 2017), where NetworkX runs Batagelj
    and Zaversnik's bucket peeling ("An O(m) Algorithm for Cores
    Decomposition of Networks", 2003).

    Examples
    --------
    >>> import dgraph
    >>> G = dgraph.from_edges([0, 0, 1, 2, 3], [1, 2, 2, 3, 4])   # a triangle and a tail
    >>> r = dgraph.core_number(G)
    >>> r.core.tolist()
    [2, 2, 2, 1, 1]
    >>> r.params["implementation"], dgraph.core_number(G, kernels="generic").params["implementation"]
    ('cpu-numba+levels', 'generic')
    >>> dgraph.core_number(dgraph.from_edges([0, 0, 1], [0, 1, 2]), self_loops="ignore").core.tolist()   # a loop on 0
    [1, 1, 1]
    """
    from ...engine.run import run_program, run_target  # noqa: PLC0415

    check_kernels(kernels)
    _check_self_loops(G, self_loops)
    target = run_target(G, backend, executor)
    impl = implementation(target.backend, kernels, target.whole, target.local)
    return run_program(lambda ids: CoreNumber(kernels, implementation=impl), target.graph, backend=backend,
                       executor=executor, exchange=exchange, fanout=fanout, transport=transport, on_step=on_step,
                       progress=progress, params={"self_loops": self_loops, "implementation": impl})


def k_core(G, k=None, *, core_number=None, self_loops="raise", kernels="fused", progress=False):
    """The k-core of ``G``: the subgraph induced by the vertices of core number ``k`` or more.

    As ``networkx.k_core``: a Graph (a k-core is a maximal subgraph in
    which every vertex has degree ``k`` or more; degrees as
    :func:`dgraph.core_number` counts them).

    Parameters
    ----------
    G : Graph
        The graph (for a partitioned run, pass the Graph with
        ``core_number=dgraph.core_number(PG)``).
    k : int, optional
        The order of the core, a non-negative integer; None (the default)
        gives the main core, of the largest core number.  A ``k`` above it
        gives a graph without vertices.
    core_number : Result, optional
        The core numbers of ``G`` computed before (:func:`dgraph.core_number`
        on ``G`` or a partitioning of it); None computes them.
    self_loops : {'raise', 'ignore'}
        As in :func:`dgraph.core_number`; with 'ignore' the k-core keeps the
        loops of its vertices (an induced subgraph keeps every edge).
    kernels, progress
        As in :func:`dgraph.core_number`.

    Returns
    -------
    Graph
        :meth:`Graph.subgraph` of the vertices kept: their user ids, their
        order, the weights and the directedness of ``G``, on its backend
        (edges stored twice with ``dedupe=False`` are kept once).  An empty
        ``G`` gives an empty graph for ``k=None`` (NetworkX raises there).

    Raises
    ------
    InputError
        ``k`` is not a non-negative integer or None; ``G`` is not a Graph;
        ``core_number`` is not a core-number Result of ``G``; as
        :func:`dgraph.core_number`.

    See Also
    --------
    dgraph.core_number : the core number of every vertex.
    networkx.k_core : the same subgraph (``backend="dgraph"`` runs this).

    Examples
    --------
    >>> import dgraph
    >>> G = dgraph.from_edges([0, 0, 1, 2, 3], [1, 2, 2, 3, 4])   # a triangle and a tail
    >>> H = dgraph.k_core(G)
    >>> H.vertex_ids().tolist(), H.num_edges
    ([0, 1, 2], 3)
    >>> dgraph.k_core(G, 1).num_vertices, dgraph.k_core(G, 3).num_vertices
    (5, 0)
    """
    from ...graph import Graph  # noqa: PLC0415

    if not isinstance(G, Graph):
        what = type(G).__name__
        hint = (" (a PartitionedGraph has no subgraph: pass the Graph it came from, with "
                "core_number=dgraph.core_number(PG))") if what == "PartitionedGraph" else ""
        raise InputError(f"k_core: expected a dgraph.Graph, got {what}{hint}")
    if k is not None and (not isinstance(k, numbers.Integral) or isinstance(k, (bool, np.bool_)) or k < 0):
        raise InputError(f"k={k!r}: expected a non-negative integer, or None for the largest core number")
    if core_number is None:
        r = _core_numbers(G, self_loops=self_loops, kernels=kernels, progress=progress)
    else:
        r = _check_result(G, core_number)
    core = _host(r.raw("core"))
    if k is None:
        k = int(core.max()) if len(core) else 0
    return G.subgraph(core >= int(k), name=f"{G.name or 'graph'}-{int(k)}-core")


_core_numbers = core_number


def _host(a):
    from ...backend import to_numpy  # noqa: PLC0415

    return np.asarray(to_numpy(a))


def _check_result(G, r):
    """``r`` if it is a core-number Result of ``G``'s vertices, else InputError."""
    from ...engine.result import Result  # noqa: PLC0415

    if not isinstance(r, Result) or r.algorithm != CoreNumber.name:
        raise InputError(f"core_number: expected the Result of dgraph.core_number, got {type(r).__name__}"
                         f"{'' if not isinstance(r, Result) else ' of ' + r.algorithm}")
    users = r.vertex
    if len(users) != G.num_vertices or not np.array_equal(users, G.vertex_ids()):
        raise InputError(f"core_number: the Result is of another graph ({len(users):,} vertices; this graph "
                         f"has {G.num_vertices:,}, or other ids)")
    return r


def _check_self_loops(G, self_loops):
    """InputError for a graph with self loops under ``self_loops='raise'`` (naming one looped vertex)."""
    if not isinstance(self_loops, str) or self_loops not in SELF_LOOPS:
        raise InputError(f"self_loops={self_loops!r}: expected 'raise' or 'ignore'")
    if self_loops == "ignore":
        return
    count, vertex = graph_self_loops(G)
    if count:
        user = G.ids.to_user(np.array([vertex]))[0]
        user = user.item() if hasattr(user, "item") else user
        raise InputError(f"core_number: the graph has {count:,} self loop{'s' if count > 1 else ''} (vertex "
                         f"{user!r} -> {user!r} is one), which core numbers are not defined with (NetworkX "
                         f"refuses them too); pass self_loops='ignore' to leave them out, or drop them "
                         f"(G.drop_self_loops(), or self_loops=False when the graph is read or generated)")


def graph_self_loops(G):
    """``(count, smallest looped vertex or -1)`` of a Graph or a PartitionedGraph (a tiny task a shard
    where it is distributed); a Graph counts once and keeps the count."""
    from ...graph import Graph  # noqa: PLC0415
    from ...partition.partitioned import PartitionedGraph  # noqa: PLC0415
    from ...partition.shard import whole_graph_shard  # noqa: PLC0415

    if isinstance(G, Graph):
        if G.num_vertices == 0 or G.num_self_loops == 0:
            return 0, -1
        parts = [shard_self_loops(whole_graph_shard(G))]
    elif isinstance(G, PartitionedGraph):
        if G.distributed:
            G.ensure_shards()
            parts = G.client.gather([G.client.submit(shard_self_loops, f, pure=False, workers=[G.workers[q]])
                                     for q, f in enumerate(G.shards)])
        else:
            parts = [shard_self_loops(s) for s in G.shards]
    else:
        return 0, -1  # not a graph: run_program names what was given
    count = sum(c for c, _ in parts)
    looped = [v for c, v in parts if c]
    return count, (min(looped) if looped else -1)


__all__ = ["core_number", "k_core", "CoreNumber", "implementation", "IMPLEMENTATIONS", "owned_degrees",
           "shard_self_loops", "graph_self_loops", "SELF_LOOPS"]
