"""Strongly connected components: the public function, and where each part of it lives.

- ``program.py``: the BSP Program (trimming, forward coloring, backward reachability; the proof
  that the labels are the components' smallest ids) and :func:`implementation`, the one place
  that decides which code runs;
- ``kernels.py``: a shard's part of each superstep, vectorized (numpy or CuPy: the reference);
- ``cpu.py``: the numba twins of those steps, and Tarjan's algorithm for one whole shard;
- ``fwbw.py``: the forward-backward search from a pivot ('fwbw', one whole shard), with array-code
  searches; ``gpu.py``: its searches on the GPU, with BFS's CUDA kernels.

One whole CuPy shard runs 'fwbw'; a partitioned CuPy graph runs the vectorized steps.
"""

from __future__ import annotations

from ..choice import check_kernels
from .program import IMPLEMENTATIONS, PHASES, SCC, SCCState, implementation


def scc(G, *, backend=None, executor=None, exchange="butterfly", fanout=None, transport="auto", kernels="fused",
        on_step=None, progress=False):
    """Strongly connected components, each labelled by its smallest vertex.

    Two vertices are in one strongly connected component when each reaches
    the other along directed edges.  An undirected graph's edge goes both
    ways, so its strongly connected components are its connected components
    (the same labels as :func:`dgraph.wcc`), as scipy's
    ``connected_components(connection="strong")`` has it; NetworkX's
    ``strongly_connected_components`` refuses undirected graphs, and so does
    ``nx.strongly_connected_components(G, backend="dgraph")``.

    Parameters
    ----------
    G : Graph or PartitionedGraph
        The graph (``G.partition(p, ...)`` for several partitions).
    kernels : {'fused', 'generic'}
        'fused' (the default): on the numpy backend, Tarjan's algorithm
        compiled with numba for one whole shard, and numba supersteps for a
        partitioned graph; on CuPy, forward-backward searches with BFS's
        CUDA kernels for one whole shard ('fwbw'), the vectorized supersteps
        for a partitioned graph; 'generic': the vectorized supersteps
        everywhere, the reference.  The same labels either way.
    backend, executor, exchange, fanout, transport, on_step, progress
        As in :func:`dgraph.bfs`.

    Returns
    -------
    Result
        Column ``component``: the label of each vertex's strongly connected
        component, which is the smallest vertex id in it (in the user's ids;
        for string or renumbered ids, the smallest id in sorted order).  Every
        backend, executor and partition count returns the same labels.  Stats
        per superstep: ``phase`` (the phase that superstep ran: 'init',
        'trim', 'fwbw', 'color', 'back', or 'tarjan'), ``active`` (vertices
        not yet in a component), ``trimmed`` (vertices found alone by
        trimming), ``found`` (vertices placed by a backward search or a
        forward-backward one), ``frontier``,
        ``components`` (found so far) and ``edges`` (arcs scanned).
        ``params["implementation"]`` names the code that ran
        (:func:`dgraph.algorithms.scc.implementation`).

    Raises
    ------
    InputError
        ``kernels`` is neither 'fused' nor 'generic'.

    See Also
    --------
    dgraph.wcc : weakly connected components (edge direction ignored).
    networkx.strongly_connected_components : the same components (``backend="dgraph"`` runs this).

    Notes
    -----
    The partitioned algorithm is the coloring method (Orzan, "On
    distributed verification and verified distribution", 2004; Slota,
    Rajamanickam and Madduri, "BFS and coloring-based parallel algorithms
    for strongly connected components and related problems", IPDPS 2014),
    with their trimming of vertices that have no other active in- or
    out-neighbor: colors (vertex ids) flow forward, the smallest winning;
    each vertex whose color is its own id is the smallest of its component,
    which a backward search inside its color finds; found components are
    removed and the rest is colored again.  Supersteps grow with the
    longest path through vertices not trimmed, times the number of rounds
    (a chain of cycles takes a round per cycle at worst).  One whole numpy
    shard runs Tarjan's algorithm (Tarjan, "Depth-first search and linear
    graph algorithms", SIAM J. Comput. 1972) instead: one superstep, O(V + E).
    One whole CuPy shard first searches forward and backward from a pivot
    while the searches find big components (Fisher, Hendrickson and Pinar,
    2000, as Slota et al. run it for the giant component), a superstep each
    however deep the graph, then colors the rest
    (:mod:`dgraph.algorithms.scc.fwbw`).

    Examples
    --------
    >>> import dgraph
    >>> G = dgraph.from_edges([0, 1, 2, 2, 3, 4], [1, 2, 0, 3, 4, 3], directed=True)
    >>> r = dgraph.scc(G)                       # {0, 1, 2} -> {3, 4}
    >>> r.component.tolist()
    [0, 0, 0, 3, 3]
    >>> r.params["implementation"], dgraph.scc(G, kernels="generic").params["implementation"]
    ('cpu-tarjan', 'generic')
    """
    from ...engine.run import run_program, run_target  # noqa: PLC0415

    check_kernels(kernels)
    target = run_target(G, backend, executor)
    impl = implementation(target.backend, kernels, target.whole)
    return run_program(lambda ids: SCC(kernels=kernels, implementation=impl), target.graph, backend=backend,
                       executor=executor, exchange=exchange, fanout=fanout, transport=transport, on_step=on_step,
                       progress=progress, vertex_columns=("component",),
                       params={"kernels": kernels, "implementation": impl})


__all__ = ["scc", "SCC", "SCCState", "implementation", "IMPLEMENTATIONS", "PHASES"]
