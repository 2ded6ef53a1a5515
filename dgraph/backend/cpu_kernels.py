"""CPU (numpy backend) kernels several algorithms share, compiled with numba.

``gather_row_sum`` (a row's sum in edge order: deterministic, no atomics) and PageRank's threaded
``pagerank_step``.  An algorithm's own kernels live in its package (BFS's visits:
:mod:`dgraph.algorithms.bfs.cpu`).

Kernels work on a *shard*: the rows (out-edges) and columns (in-edges) of
the vertices one partition owns, with global vertex ids in the adjacency
and per-vertex arrays (labels, parents, degrees) indexed by global id.
Local row ``r`` is global vertex ``rows[r]``, or ``row_base + r`` when
``rows`` is empty (a contiguous range; the whole graph has ``row_base=0``).
"""

from __future__ import annotations

from numba import prange

from ..jit import jit as _jit
from ..jit import pjit as _pjit


@_jit
def gather_row_sum(indptr, indices, x, out):
    """out[r] = sum of x[indices[e]] over row r, in edge order (deterministic, no atomics)."""
    for r in range(indptr.shape[0] - 1):
        acc = 0.0
        for e in range(indptr[r], indptr[r + 1]):
            acc += x[indices[e]]
        out[r] = acc
    return out


@_pjit
def pagerank_step(cindptr, cindices, share, base, vec, d, inv_deg, old, new, diff, share_out):
    """One pull iteration on one whole shard, over the CPU's threads: ``new[v] = base + d * sum`` (the
    in-edge sum of ``share`` in edge order, as :func:`gather_row_sum`; ``base[v]`` when ``vec``, else
    ``base[0]``), ``diff[v] = |new[v] - old[v]|`` and ``share_out[v] = new[v] * inv_deg[v]`` for the next
    iteration: the same float64 operations as the numpy steps of the PageRank Program, so the same bits."""
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
