"""Forward-backward (FW-BW) search for one big strongly connected component on one whole shard.

The 'fwbw' implementation's own phase of the SCC Program (:mod:`.program`): once trimming runs
dry, a *pivot* is picked among the active vertices, the one of largest ``in_count * out_count``
(the smallest id among ties), and

- ``F``, the active vertices the pivot reaches (a BFS along out-arcs through active vertices);
- ``S``, the vertices of ``F`` that reach the pivot (a BFS along in-arcs through ``F`` only).

``S`` is the pivot's component: a vertex of it reaches the pivot and is reached from it; every
vertex on a path from a vertex ``v`` of ``F`` to the pivot is reached from the pivot (through
``v``), so the backward search restricted to ``F`` misses no member.  Its label is its smallest
id.  Fisher, Hendrickson and Pinar, "On identifying strongly connected components in parallel"
(IPDPS workshops 2000); Slota, Rajamanickam and Madduri, "BFS and coloring-based parallel
algorithms for strongly connected components" (IPDPS 2014) run it this way, for the one giant
component of a real graph, before coloring the rest.

One search is two BFS traversals, whatever the graph's depth: a 1000 x 1000 grid (one component,
2,000 levels deep) takes one FW-BW step where coloring takes thousands of supersteps.  The
searches are a *reach* object's: :class:`VectorReach` (array code on numpy or CuPy, the
reference, what the CPU tests run) or :class:`dgraph.algorithms.scc.gpu.Reach` (BFS's CUDA
kernels, the whole traversal on the device).  Everything else here is array code on the shard's
``xp``, the same for both.
"""

from __future__ import annotations

import numpy as np

from ...backend import array_module
from ...backend.primitives import expand

#: the FW-BW phase runs while this many vertices or more are active (fewer: coloring finishes)
PIVOT_MIN_ACTIVE = 4096
#: ... and while the last component it found held this share of the vertices active before it
PIVOT_MIN_SHARE = 0.01


def pivot(label, in_count, out_count, active=None):
    """The active vertex (``label < 0``; ``active``, when the caller has that mask already) of largest
    ``in_count * out_count``, the smallest id among ties; -1 when none is active."""
    xp = array_module(label)
    active = label < 0 if active is None else active
    if not len(label):
        return -1
    score = xp.where(active, in_count.astype(np.int64) * out_count.astype(np.int64), -1)
    p = int(xp.argmax(score))
    return p if int(score[p]) >= 0 else -1   # an active vertex scores 0 or more


def pivot_component(shard, label, in_count, out_count, reach):
    """``(ids, arcs)``: the sorted ids of the pivot's component among the active vertices (none when
    no vertex is active) and the arcs the two searches scanned.  ``reach``: a :class:`VectorReach`
    or a :class:`dgraph.algorithms.scc.gpu.Reach` of ``shard`` (one whole shard)."""
    xp = shard.xp
    active = label < 0
    p = pivot(label, in_count, out_count, active)
    if p < 0:
        return xp.empty(0, dtype=label.dtype), 0
    forward, arcs = reach.forward(p, active)
    if shard.directed:
        member, back = reach.backward(p, forward)
        arcs += back
    else:                                 # an edge goes both ways: whatever p reaches reaches p
        member = forward
    return xp.flatnonzero(member).astype(label.dtype, copy=False), arcs


class VectorReach:
    """The searches of :func:`pivot_component` in array code (numpy or CuPy): a level-synchronous
    BFS, a level a few array operations (the reference of :class:`dgraph.algorithms.scc.gpu.Reach`)."""

    def __init__(self, shard):
        self.out = (shard.indptr, shard.indices)
        cindptr, csrc, _ = shard.csc(edge_ids=False)
        self.into = (cindptr, csrc)

    def forward(self, source, allowed):
        """``(mask, arcs)``: the vertices of ``allowed`` that ``source`` (allowed) reaches through
        vertices of ``allowed`` along out-arcs, and the arcs scanned."""
        return reach(*self.out, source, allowed)

    def backward(self, source, allowed):
        """As :meth:`forward` along in-arcs: the vertices of ``allowed`` that reach ``source``."""
        return reach(*self.into, source, allowed)


def reach(indptr, indices, source, allowed):
    """``(mask, arcs)``: the vertices of the boolean mask ``allowed`` reached from ``source`` (one of
    them) along the CSR's rows through vertices of ``allowed``, and the arcs scanned."""
    xp = array_module(indptr)
    seen = ~allowed                       # seen or out of bounds
    seen[source] = True
    frontier = xp.asarray([source], dtype=indices.dtype)
    arcs = 0
    while len(frontier):
        _, eid = expand(indptr, frontier)
        arcs += len(eid)
        w = indices[eid]
        w = xp.unique(w[~seen[w]])
        seen[w] = True
        frontier = w
    seen &= allowed
    return seen, arcs


__all__ = ["pivot", "pivot_component", "VectorReach", "reach", "PIVOT_MIN_ACTIVE", "PIVOT_MIN_SHARE"]
