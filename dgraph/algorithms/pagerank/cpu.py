"""PageRank's CPU kernel (numpy backend), compiled with numba: one pull iteration on one whole shard.

The fused twin of a superstep of :class:`~dgraph.algorithms.pagerank.program.PageRank` on numpy
(the in-edge row sums of :func:`dgraph.backend.primitives.gather_row_sum`, then the rank update
and its change): the same float64 operations in the same order, so the same bits, in one pass
over the CPU's threads instead of several numpy passes over the vertices.  Run by
:func:`.solver.cpu_steps` ('cpu-fused').
"""

from __future__ import annotations

from numba import prange

from ...jit import pjit as _pjit


@_pjit
def pagerank_step(cindptr, cindices, share, base, vec, d, inv_deg, old, new, diff, share_out):
    """One pull iteration on one whole shard, over the CPU's threads: ``new[v] = base + d * sum`` (the
    in-edge sum of ``share`` in edge order, as :func:`dgraph.backend.cpu_kernels.gather_row_sum`;
    ``base[v]`` when ``vec``, else ``base[0]``), ``diff[v] = |new[v] - old[v]|`` and ``share_out[v] =
    new[v] * inv_deg[v]`` for the next iteration: the same float64 operations as the numpy steps of
    the PageRank Program, so the same bits."""
    n = new.shape[0]
    b0 = base[0]
    for v in prange(n):
        acc = 0.0
        for e in range(cindptr[v], cindptr[v + 1]):
            acc += share[cindices[e]]
        b = base[v] if vec else b0
        x = b + d * acc
        new[v] = x
        diff[v] = abs(x - old[v])
        share_out[v] = x * inv_deg[v]


@_pjit
def pagerank_step_weighted(cindptr, cindices, w_in, share, base, vec, d, inv_deg, old, new, diff, share_out):
    """:func:`pagerank_step` with a weight per in-edge: the in-edge sum is of ``w_in[e] *
    share[cindices[e]]`` in edge order (the weighted row sum of
    :func:`dgraph.algorithms.edge_weights.weighted_row_sum`, operation by operation), so the same
    bits as the weighted supersteps."""
    n = new.shape[0]
    b0 = base[0]
    for v in prange(n):
        acc = 0.0
        for e in range(cindptr[v], cindptr[v + 1]):
            acc += w_in[e] * share[cindices[e]]
        b = base[v] if vec else b0
        x = b + d * acc
        new[v] = x
        diff[v] = abs(x - old[v])
        share_out[v] = x * inv_deg[v]


__all__ = ["pagerank_step", "pagerank_step_weighted"]
