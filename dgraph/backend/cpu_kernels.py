"""CPU (numpy backend) kernels several algorithms share, compiled with numba.

``gather_row_sum`` (a row's sum in edge order: deterministic, no atomics).  An algorithm's own
kernels live in its package (BFS's visits: :mod:`dgraph.algorithms.bfs.cpu`; PageRank's threaded
step: :mod:`dgraph.algorithms.pagerank.cpu`).

Kernels work on a *shard*: the rows (out-edges) and columns (in-edges) of
the vertices one partition owns, with global vertex ids in the adjacency
and per-vertex arrays (labels, parents, degrees) indexed by global id.
Local row ``r`` is global vertex ``rows[r]``, or ``row_base + r`` when
``rows`` is empty (a contiguous range; the whole graph has ``row_base=0``).
"""

from __future__ import annotations

from ..jit import jit as _jit


@_jit
def gather_row_sum(indptr, indices, x, out):
    """out[r] = sum of x[indices[e]] over row r, in edge order (deterministic, no atomics)."""
    for r in range(indptr.shape[0] - 1):
        acc = 0.0
        for e in range(indptr[r], indptr[r + 1]):
            acc += x[indices[e]]
        out[r] = acc
    return out
