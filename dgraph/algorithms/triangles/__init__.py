"""Triangle counting per vertex, NetworkX's ``nx.triangles`` semantics.

- :func:`triangle_count`: the public function (``dgraph.triangle_count``);
- :func:`implementation`: which code counts, recorded in ``Result.params["implementation"]``;
- :mod:`.program`: the three-superstep Program :class:`TriangleProgram` (degrees, replicate the
  oriented rows, count), whose vectorized count is the reference; LCC runs it too
  (:mod:`dgraph.algorithms.lcc`);
- :mod:`.cpu`: the numba kernels: the counting superstep, and the one-shard undirected count;
- :mod:`.gpu` + ``triangles.cu``: the one-shard CUDA count (``"gpu-oriented"``).
"""

from __future__ import annotations

from ..choice import run_shape
from ..choice import check_kernels
from .program import CHUNK, PHASES, TriangleProgram



def implementation(backend, one_whole_shard, directed, kernels):
    """Which code counts the triangles: ``"gpu-oriented"``, ``"gpu-fused"``, ``"cpu-numba-oriented"``,
    ``"cpu-numba"`` or ``"generic"``.

    - ``"generic"``: ``kernels="generic"``: the vectorized count of :class:`TriangleProgram`
      (expanded checks, ``searchsorted``), the reference.
    - ``"gpu-oriented"``: ``kernels="fused"`` on one whole CuPy shard run by the local executor,
      directed or not: :meth:`TriangleProgram.run_steps` does all three supersteps at once in the
      CUDA kernels of :mod:`.gpu` (oriented rows, each triangle found once at its middle corner by
      hashed look-ups).
    - ``"gpu-fused"``: ``kernels="fused"`` on CuPy otherwise: the three supersteps, the count in
      the CUDA kernel :func:`.gpu.count_rows`.
    - ``"cpu-numba-oriented"``: ``kernels="fused"`` on one whole undirected numpy shard run by
      the local executor: :meth:`TriangleProgram.run_steps` does all three supersteps at once
      (:func:`.cpu.undirected_counts`, over the CPU's threads).
    - ``"cpu-numba"``: ``kernels="fused"`` on numpy otherwise: the three supersteps, the count
      in the numba kernel :func:`.cpu.count_rows`.

    The same integer counts whichever runs.

    >>> implementation("cupy", True, True, "fused"), implementation("cupy", False, False, "fused")
    ('gpu-oriented', 'gpu-fused')
    >>> implementation("numpy", True, False, "fused"), implementation("numpy", True, True, "fused")
    ('cpu-numba-oriented', 'cpu-numba')
    """
    if kernels == "generic":
        return "generic"
    if backend != "numpy":
        return "gpu-oriented" if one_whole_shard else "gpu-fused"
    return "cpu-numba-oriented" if one_whole_shard and not directed else "cpu-numba"


def run_triangles(G, lcc, *, backend, executor, exchange, fanout, transport, on_step, kernels="fused",
                  progress=False):
    """Run :class:`TriangleProgram` (``lcc``: the clustering coefficients) with the implementation
    :func:`implementation` picks; ``params["total"]`` is the number of triangles."""
    from ...engine.run import run_program  # noqa: PLC0415

    check_kernels(kernels)
    impl = implementation(*run_shape(G, backend, executor), G.directed, kernels)
    r = run_program(lambda ids: TriangleProgram(lcc=lcc, implementation=impl), G, backend=backend,
                    executor=executor, exchange=exchange, fanout=fanout, transport=transport, on_step=on_step,
                    progress=progress, params={"implementation": impl})
    records = r.stats_records
    r.params["total"] = int(records[-1]["total"]) if records and "total" in records[-1] else 0
    return r


def triangle_count(G, *, backend=None, executor=None, exchange="butterfly", fanout=None, transport="auto",
                   kernels="fused", on_step=None, progress=False):
    """The number of triangles through every vertex (column ``triangles``, int64), as ``nx.triangles``.

    The graph is taken as simple and undirected: edge directions, self loops
    and duplicate edges are ignored.

    Parameters
    ----------
    G : Graph or PartitionedGraph
    kernels : {'fused', 'generic'}, optional
        'fused' (numba kernels count on the numpy backend, CUDA kernels on
        CuPy) or 'generic' (the vectorized count everywhere, the reference
        the kernels are tested against).  Same counts either way.
    backend, executor, exchange, fanout, transport, on_step, progress
        As in :func:`dgraph.bfs`.

    Returns
    -------
    Result
        Column ``triangles``.  ``params["total"]`` is the number of
        triangles in the graph (``sum(r.triangles) // 3``);
        ``params["implementation"]`` says which code counted (see
        :func:`implementation`).  Stats per superstep (three of them):
        ``edges`` (undirected edges), ``oriented`` (edges exchanged),
        ``checks`` (membership tests), ``replica_arcs`` (ghost rows kept,
        over all shards).

    Raises
    ------
    InputError
        ``kernels`` is not one of the two.
    GraphTooLargeError
        A shard's int64 keys (owned rows x vertices) would overflow: use
        more partitions.

    See Also
    --------
    dgraph.lcc : the local clustering coefficient, from the same counts.
    networkx.triangles : the reference the tests compare with.

    Notes
    -----
    Every edge is oriented from its endpoint of lower (degree, id) rank, so
    the work is ``O(E^1.5)`` whatever the degree skew (Schank and Wagner,
    "Finding, counting and listing all triangles in large graphs", 2005).
    Memory: each shard holds up to the whole oriented edge list while it is
    exchanged (see :mod:`dgraph.algorithms.triangles.program`).  The counts
    are integers: every executor, partition count and backend returns the
    same numbers.

    Examples
    --------
    >>> import dgraph
    >>> G = dgraph.from_edges([0, 1, 2, 2], [1, 2, 0, 3])   # a triangle and a pendant vertex
    >>> r = dgraph.triangle_count(G)
    >>> r.triangles.tolist(), r.params["total"]
    ([1, 1, 1, 0], 1)
    >>> r.params["implementation"]
    'cpu-numba-oriented'
    >>> dgraph.triangle_count(G.partition(2, client=False)).params["implementation"]
    'cpu-numba'
    """
    return run_triangles(G, False, backend=backend, executor=executor, exchange=exchange,
                         fanout=fanout, transport=transport, on_step=on_step, progress=progress, kernels=kernels)


__all__ = ["triangle_count", "implementation", "run_triangles", "TriangleProgram", "CHUNK", "PHASES"]
