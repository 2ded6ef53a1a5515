"""Community detection by label propagation (CDLP): the public function, and where each part lives.

- ``program.py``: the BSP Program (the LDBC semantics; the vectorized sort-based step is the
  reference) and :func:`implementation`, the one place that decides which code runs;
- ``solver.py``: the whole-shard loop on one shard (numpy or CuPy);
- ``cpu.py``: the threaded numba kernel (each row's most frequent neighbor label);
- ``gpu.py`` + ``cdlp.cu``: the CUDA kernels (rows bucketed by size: shuffles, hash tables).
"""

from __future__ import annotations

import numpy as np

from ...errors import InputError
from ..choice import check_kernels
from .program import CDLP, IMPLEMENTATIONS, PAR_MIN_ARCS, SKIP_BELOW, implementation, mode_smallest


def cdlp(G, *, iterations=10, backend=None, executor=None, exchange="butterfly", fanout=None, transport="auto",
         kernels="fused", on_step=None, progress=False):
    """Community detection by label propagation, LDBC Graphalytics semantics.

    Every vertex starts with its own id as its label; in each iteration, all
    at once, a vertex takes the label most frequent among its neighbors (in-
    and out-neighbors for a directed graph), the smallest on a tie; a vertex
    without neighbors keeps its label.

    Parameters
    ----------
    G : Graph or PartitionedGraph
        The graph (``G.partition(p, ...)`` for several partitions).
    iterations : int
        The number of synchronous label updates (Graphalytics: a fixed count;
        10 by default).  The run may stop sooner at a fixed point, with the
        same labels.
    kernels : {'fused', 'generic'}
        'fused' (the default): a threaded numba kernel per superstep on the
        numpy backend, CUDA kernels on CuPy; 'generic': the vectorized step
        everywhere, the reference the kernels are tested against.  Same
        labels either way.
    backend, executor, exchange, fanout, transport, on_step, progress
        As in :func:`dgraph.bfs`.

    Returns
    -------
    Result
        Column ``label``: vertex ids, in the user's ids (``r.raw("label")``
        gives internal ids).  Stats per superstep: ``changed`` (labels that
        changed).  ``params["implementation"]`` names the code that ran
        (:func:`dgraph.algorithms.cdlp.implementation`).

    Raises
    ------
    InputError
        ``iterations`` is not a non-negative integer, or ``kernels`` is
        neither 'fused' nor 'generic'.

    See Also
    --------
    dgraph.wcc : connected components.

    Notes
    -----
    Raghavan, Albert and Kumara, "Near linear time algorithm to detect
    community structures in large-scale networks" (Phys. Rev. E 76, 2007),
    run synchronously as the LDBC Graphalytics specification (Iosup et al.,
    VLDB 2016) and its reference implementation define it: edges count as
    stored (a multi-edge once a copy) and a self loop counts twice (see
    :mod:`dgraph.algorithms.cdlp.program`).

    Examples
    --------
    >>> import dgraph
    >>> G = dgraph.from_edges([0, 0, 1, 3, 3, 4, 2], [1, 2, 2, 4, 5, 5, 3])   # two triangles, one bridge
    >>> r = dgraph.cdlp(G, iterations=5)
    >>> r.label.tolist()
    [0, 0, 0, 2, 2, 2]
    >>> r.params["implementation"]
    'cpu-numba+steps'
    """
    from ...engine.run import run_program, run_target  # noqa: PLC0415

    if isinstance(iterations, bool) or not isinstance(iterations, (int, np.integer)) or iterations < 0:
        raise InputError(f"iterations={iterations!r}: expected a non-negative integer")
    check_kernels(kernels)
    target = run_target(G, backend, executor)
    impl = implementation(target.backend, kernels, target.whole, target.local)

    def make(ids):
        return CDLP(iterations, kernels, implementation=impl)

    return run_program(make, target.graph, backend=backend, executor=executor, exchange=exchange, fanout=fanout,
                       transport=transport, on_step=on_step, progress=progress, vertex_columns=("label",),
                       params={"iterations": int(iterations), "implementation": impl})


__all__ = ["cdlp", "CDLP", "mode_smallest", "implementation", "IMPLEMENTATIONS", "PAR_MIN_ARCS", "SKIP_BELOW"]
