"""The visit step of a BFS superstep: its interface, and the vectorized reference built from :mod:`dgraph.ops`.

A superstep visits the next level from the frontier, top-down (push: the frontier's out-edges) or
bottom-up (pull: every unvisited owned vertex scans its in-edges for a frontier vertex).  Each
implementation module (this one, :mod:`.cpu`, :mod:`.gpu`) has ``push`` and ``pull`` with the same
signature::

    step(shard, state, m_f) -> (claimed, scanned, degree_sum)

- ``shard``: the rows (out-edges) and columns (in-edges) of the vertices one partition owns, with
  global vertex ids in the adjacency and per-vertex arrays (labels, parents, degrees) indexed by
  global id; local row ``r`` is global vertex ``rows[r]``, or ``row_base + r`` when ``rows`` is
  empty (a contiguous range; the whole graph has ``row_base=0``).
- ``state``: the :class:`~dgraph.algorithms.bfs.program.BFSState`; the step labels the vertices it
  claims with ``state.level`` and sets their parents.
- ``m_f``: the frontier's out-edge count when the caller knows it (None: the step counts it).
- returns the claimed vertices (global ids), the edges scanned and the claimed vertices' degree sum.

The tie rule every implementation keeps: a vertex's parent is its smallest-id neighbor in the
previous level, whatever the frontier order, direction, partition or backend.

:func:`push` and :func:`pull` here are that step written with the frontier operators of
:mod:`dgraph.ops` (advance, then a filter of visited targets) as numpy or CuPy array code: the
``generic`` implementation, and the reference the compiled kernels are tested against
(tests/test_bfs.py runs both on every case).
"""

from __future__ import annotations

import numpy as np

from ...backend.primitives import scatter_min
from ...ops import Frontier, advance_pull, advance_push


def frontier_rows(shard, st):
    """The frontier as this shard's local rows (what a push step walks)."""
    if shard.num_parts == 1:
        return st.frontier.ids.astype(shard.indices.dtype, copy=False)
    if st.next_rows is not None:  # the GPU union wrote them (the frontier's ids may never be made)
        return st.next_rows[0]
    return shard.local_rows(st.frontier.ids)


def push(shard, st, m_f):
    """Advance over out-edges, filter visited targets, smallest parent by scatter-min."""
    xp = shard.xp
    labels = st.labels
    rows = frontier_rows(shard, st)
    edges = advance_push(shard, Frontier(shard.num_rows, ids=rows), lambda s, d, e: labels[d] < 0)
    touched = int((shard.indptr[rows + 1] - shard.indptr[rows]).sum())
    src = shard.global_rows()[edges.src]
    new = xp.unique(edges.dst)
    best = xp.full(len(new), np.iinfo(np.int64).max, dtype=np.int64)
    scatter_min(best, xp.searchsorted(new, edges.dst), src.astype(np.int64))
    labels[new] = st.level
    st.parents[new] = best.astype(st.parents.dtype)
    return new, touched, int(shard.degree[new].sum())


def pull(shard, st, m_f):
    """Advance over in-edges of unvisited owned vertices against the frontier bitmap, first hit each."""
    grows = shard.global_rows()
    unvisited = Frontier(shard.num_rows, mask=st.labels[grows] < 0)
    cindptr = shard.csc(edge_ids=False)[0]
    cand = unvisited.ids
    touched = int((cindptr[cand + 1] - cindptr[cand]).sum())
    edges = advance_pull(shard, st.frontier, unvisited)
    found = grows[edges.dst]
    st.labels[found] = st.level
    st.parents[found] = edges.src
    return found, touched, int(shard.degree[found].sum())


def visit(implementation, direction):
    """The visit step of ``implementation`` (see :func:`~dgraph.algorithms.bfs.program.implementation`)
    in ``direction`` ('push' or 'pull').  The compiled modules are imported on first use: numba's
    import is start-up time, and a GPU run never needs it."""
    if implementation == "generic":
        return {"push": push, "pull": pull}[direction]
    if implementation.startswith("cpu-numba"):  # cpu-numba+levels: a superstep its loop did not take
        from . import cpu as module  # noqa: PLC0415
    else:  # gpu-fused, gpu-fused+levels, gpu-fused+union
        from . import gpu as module  # noqa: PLC0415
    return getattr(module, direction)


__all__ = ["frontier_rows", "push", "pull", "visit"]
