"""The core decomposition's whole-shard solvers, each one call (``Program.run_steps``).

Chosen by :func:`~dgraph.algorithms.kcore.program.implementation` for one whole shard (owned rows
= every vertex, in order) on the local executor, where every vertex's edges are at hand:
'cpu-numba+levels' (numpy), the sequential O(m + n) peeling of
:func:`~dgraph.algorithms.kcore.cpu.peel_cores`; 'gpu-peel' (CuPy), the Program's peeling in one
cooperative launch (:func:`~dgraph.algorithms.kcore.gpu.peel`).  Either is recorded as one superstep.
"""

from __future__ import annotations

import numpy as np


def run_steps(program, shard, st, ctx, limit):
    """The whole peeling as one superstep of ``program`` (a :class:`~.program.CoreNumber`): a list of
    one (report, seconds), or None (a superstep at a time) for the 'generic' implementation."""
    if st["impl"] not in ("cpu-numba+levels", "gpu-peel") or not shard.whole or limit < 1:
        return None
    from ... import startup  # noqa: PLC0415

    sw = startup.Stopwatch()
    cindptr, cindices = shard.indptr, shard.indices
    if shard.directed:
        cindptr, cindices, _ = shard.csc(edge_ids=False)
    graph = shard._graph
    loop_free = graph is not None and graph.known_self_loops() == 0   # the degrees without reading the rows
    if st["impl"] == "gpu-peel":
        from . import gpu  # noqa: PLC0415
        from .program import owned_degrees  # noqa: PLC0415

        top, _, _, edges = gpu.peel(shard.indptr, shard.indices, cindptr, cindices, shard.directed,
                                    owned_degrees(shard, loop_free), st["core"])
        top = max(top, 0)
    else:
        from . import cpu  # noqa: PLC0415

        deg = np.empty(shard.n, dtype=cpu.degree_dtype(shard.num_arcs))
        top = cpu.peel_cores(shard.indptr, shard.indices, cindptr, cindices, shard.directed, loop_free, deg,
                             st["core"])
        edges = shard.num_arcs * (2 if shard.directed else 1)
    out = [({"k": int(top), "frontier": 0, "left": 0, "edges": int(edges)}, sw.lap())]
    if ctx.tick is not None:
        ctx.tick(*out[-1])
    return out


__all__ = ["run_steps"]
