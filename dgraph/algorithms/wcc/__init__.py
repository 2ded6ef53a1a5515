"""Weakly connected components: the public function, and where each part of it lives.

- ``program.py``: the BSP Program (hooking and pointer jumping, the reference, with the proof that
  the labels are the component minima) and :func:`implementation`, the one place that decides
  which code runs;
- ``cpu.py``: the numba union-find, merge and pointer-jump kernels;
- ``gpu.py`` + ``wcc.cu``: the concurrent union-find on a shard's CSR.
"""

from __future__ import annotations

from ..choice import check_kernels
from .program import IMPLEMENTATIONS, WCC, WCCState, implementation


def wcc(G, *, backend=None, executor=None, exchange="butterfly", fanout=None, transport="auto", kernels="fused",
        on_step=None, progress=False):
    """Weakly connected components (edge direction ignored), labelled by their smallest vertex.

    Parameters
    ----------
    G : Graph or PartitionedGraph
        The graph (``G.partition(p, ...)`` for several partitions).
    kernels : {'fused', 'generic'}
        'fused' (the default): a compiled union-find per shard (numba on the
        numpy backend, a concurrent CUDA union-find on CuPy, one superstep);
        'generic': vectorized hooking and pointer jumping, the reference.
        Both give the same labels; 'fused' needs fewer supersteps.
    backend, executor, exchange, fanout, transport, on_step, progress
        As in :func:`dgraph.bfs`.

    Returns
    -------
    Result
        Column ``component``: the label of each vertex's component, which is
        the smallest vertex id in it (in the user's ids; for string or
        renumbered ids, the smallest id in sorted order).  Every backend,
        executor and partition count returns the same labels.  Stats per
        superstep: ``hooks`` (parent entries changed), ``edges`` (edges
        scanned), ``components`` (trees left).  ``params["implementation"]``
        names the code that ran (:func:`dgraph.algorithms.wcc.implementation`).

    Raises
    ------
    InputError
        ``kernels`` is neither 'fused' nor 'generic'.

    See Also
    --------
    dgraph.cdlp : communities by label propagation.
    networkx.connected_components : the same components (``backend="dgraph"`` runs this).

    Notes
    -----
    Soman, Kishore and Narayanan, "A fast GPU algorithm for graph
    connectivity" (IPDPSW 2010), as Gunrock (Wang et al., PPoPP 2016,
    section 5.4) runs it: hooking over an edge frontier, then pointer
    jumping.  The union-find kernels follow Jayanti and Tarjan's concurrent
    disjoint sets, as ECL-CC does on GPUs.

    Examples
    --------
    >>> import dgraph
    >>> G = dgraph.from_edges([0, 1, 4], [1, 2, 3])   # {0, 1, 2} and {3, 4}
    >>> r = dgraph.wcc(G)
    >>> r.component.tolist()
    [0, 0, 0, 3, 3]
    >>> r.params["implementation"], dgraph.wcc(G, kernels="generic").params["implementation"]
    ('cpu-union-find', 'generic')
    """
    from ...engine.run import run_program, run_target  # noqa: PLC0415

    check_kernels(kernels)
    target = run_target(G, backend, executor)
    impl = implementation(target.backend, kernels)
    return run_program(lambda ids: WCC(kernels=kernels, implementation=impl), target.graph, backend=backend, executor=executor,
                       exchange=exchange, fanout=fanout, transport=transport, on_step=on_step, progress=progress,
                       vertex_columns=("component",),
                       params={"kernels": kernels, "implementation": impl})


__all__ = ["wcc", "WCC", "WCCState", "implementation", "IMPLEMENTATIONS"]
