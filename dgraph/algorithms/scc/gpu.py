"""The FW-BW searches of :mod:`.fwbw` on the GPU, with BFS's CUDA kernels (the 'fwbw' implementation
on CuPy).

A search is a BFS from the pivot in which the vertices outside the allowed set are never claimed:
BFS's kernels claim a vertex whose label is -1 (``atomicCAS``) and leave any other label alone
unless it is the level being built, so the allowed vertices start at -1, the others at
:data:`BLOCKED` (above any level), the pivot at level 0.  The reached vertices are then those
with a label in ``[0, BLOCKED)``.  Levels run as BFS runs them on one whole graph
(:mod:`dgraph.algorithms.bfs.solver`): while the frontier is small, many levels in one cooperative
launch (``push_levels``, levels.cu), otherwise one load-balanced launch a level (``push_lb``,
bfs.cu).  Only pushes: the backward search runs over the in-arcs (``shard.csc()``) as the forward
one over the out-arcs, so no pull step is needed.  The parents BFS keeps are scratch here.
"""

from __future__ import annotations

import numpy as np

#: the label of a vertex a search may not enter: above every level, never -1
BLOCKED = np.iinfo(np.int32).max


class Reach:
    """The two searches of :func:`~dgraph.algorithms.scc.fwbw.pivot_component` on one whole CuPy
    shard; the device buffers (labels, parents, two frontier queues, BFS's level records) are
    allocated once, for every search of the run (same interface as
    :class:`~dgraph.algorithms.scc.fwbw.VectorReach`)."""

    def __init__(self, shard):
        import cupy as cp  # noqa: PLC0415

        from ..bfs.solver import LevelBuffers  # noqa: PLC0415

        n, vdt = shard.n, shard.indices.dtype
        cindptr, csrc, _ = shard.csc(edge_ids=False)
        self.out = _csr(shard.indptr, shard.indices)
        self.into = _csr(cindptr, csrc) if shard.directed else self.out
        self.labels = cp.empty(n, dtype=cp.int32)
        self.parents = cp.empty(n, dtype=vdt)
        self.queues = [cp.empty(max(n, 1), dtype=vdt), cp.empty(max(n, 1), dtype=vdt)]
        self.counters = cp.zeros(4, dtype=cp.uint64)
        self.no_rows = cp.empty(0, dtype=vdt)   # row r is vertex r (one whole shard)
        self.levels = LevelBuffers()

    def forward(self, source, allowed):
        """``(mask, arcs)``: the vertices of ``allowed`` that ``source`` reaches through them."""
        return self._search(*self.out, source, allowed)

    def backward(self, source, allowed):
        """``(mask, arcs)``: the vertices of ``allowed`` that reach ``source`` through them."""
        return self._search(*self.into, source, allowed)

    def _search(self, indptr, indices, degree, source, allowed):
        import cupy as cp  # noqa: PLC0415

        from ..bfs import gpu, solver  # noqa: PLC0415

        labels, queues = self.labels, self.queues
        labels[...] = cp.where(allowed, -1, BLOCKED).astype(cp.int32, copy=False)
        labels[source] = 0
        queues[0][0] = source
        cur, nf, m_f, level, arcs = 0, 1, int(degree[source]), 0, 0
        while nf:
            frontier, free = queues[cur][:nf], queues[1 - cur]
            if solver.fits(frontier, m_f, degree):
                # level k (from 0) writes `free` when k is even, queues[cur] when odd
                levels, _, recs = solver.push_levels(indptr, indices, frontier, m_f, free, queues[cur], labels,
                                                     self.parents, degree, level + 1, solver.MAX_LEVELS, 0,
                                                     1.0, False, self.levels)
                arcs += sum(r[2] for r in recs)
                nf, m_f = recs[-1][0], recs[-1][1]
                level += levels
                if levels % 2:
                    cur = 1 - cur
            else:
                self.counters.fill(0)
                gpu.visit_push(indptr, indices, frontier, m_f, 0, self.no_rows, labels, self.parents,
                               level + 1, degree, free, self.counters)
                arcs += m_f
                nf, m_f = (int(x) for x in self.counters[:2].get())
                level += 1
                cur = 1 - cur
        return (labels >= 0) & (labels < BLOCKED), arcs


def _csr(indptr, indices):
    """``(indptr, indices, degree)`` as the BFS kernels take them: int64 offsets and degrees."""
    import cupy as cp  # noqa: PLC0415

    indptr = indptr.astype(cp.int64, copy=False)
    return indptr, indices, indptr[1:] - indptr[:-1]


__all__ = ["Reach", "BLOCKED"]
