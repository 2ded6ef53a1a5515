"""The SCC Program: trimming, then forward coloring and backward reachability, repeated.

Strongly connected components labelled by their smallest vertex id, as a bulk-synchronous
Program (the coloring method of Orzan, and of Slota, Rajamanickam and Madduri's Multistep, with
their trimming of trivial components).  Every shard keeps the global per-vertex arrays
(replicated, like BFS's depth array): ``label`` (the answer; -1 while a vertex is *active*, not
yet placed in a component), ``color``, ``visited``, and two trimming counters, ``in_count`` and
``out_count`` (arcs from and to other active vertices).  The shards hold the out-arcs (CSR) and
in-arcs (``shard.csc()``) of the vertices they own; an undirected graph's edge is both arcs, so
its strongly connected components are its connected components.

The run goes through phases, one superstep at a time; every shard ends each superstep with the
same state and the same report, so all take the same next phase.

1. ``init`` (superstep 0): each shard counts its owned rows' in- and out-arcs, self loops left out;
   the counts are all-gathered.  Every vertex with a zero count is trimmed.
2. ``trim``: a vertex with no active in-neighbor (or no active out-neighbor) but itself is a
   component of its own.  After any removal the owners of the removed vertices send one entry per
   arc from or to an active vertex; every shard lowers the counters by them, and the vertices whose
   counter reaches zero are removed next (label = their own id).  Repeats while it removes any:
   a DAG, or a long path, is peeled completely here, at a cost proportional to its arcs.
   ('fwbw' only: ``fwbw``: when trimming runs dry while many vertices are active, one superstep
   finds the component of a pivot by a forward and a backward search (:mod:`.fwbw`), labels it,
   and goes back to ``trim``; once a search finds a small component, the rounds below follow.)
3. ``color``: ``color[v] = v`` for the active vertices, then colors flow forward along arcs
   between active vertices, each vertex keeping the smallest it is offered (only vertices whose
   color fell send again), until nothing changes.  Then ``color[v]`` is the smallest active vertex
   that reaches ``v``.
4. ``back``: the *roots*, active vertices with ``color[v] == v``, are visited; visits flow backward
   (along in-arcs) to active vertices of the same color, until nothing changes.  Every visited
   vertex gets ``label = color``, is removed, and the run goes back to ``trim``.

It stops when no vertex is active.

Why the labels are the components' smallest ids.  Trimming: a vertex without another active
in-neighbor lies on no cycle through active vertices, and every vertex of its component is active
(components are removed whole), so it is alone in its component.  Coloring: after it, ``color[v]``
is the smallest active ``r`` with a path ``r -> v`` (through active vertices), and ``color[r] ==
r`` means no smaller active vertex reaches ``r``.  Every member of ``r``'s component reaches
``r``, so none is smaller: ``r`` is the component's smallest id, and every member ``v`` has
``color[v] == r`` (the same vertices reach ``v`` as reach ``r``).  The backward search from ``r``
inside color ``r`` finds exactly ``r``'s component: a vertex it visits reaches ``r``, and is
reached from ``r`` (its color is ``r``); every member of the component is reached along a path
inside the component, whose vertices all have color ``r``.  The smallest active vertex is always a
root, so each round places at least one component, and the run ends.  Nothing here depends on
the order of the updates or the partitioning: every backend, executor and partition count gives
the same labels, which are also what the one-shard solver ('cpu-tarjan', Tarjan's algorithm)
gives.

Implementations (chosen once by :func:`implementation`).  'generic': the phases above with the
vectorized kernels of :mod:`.kernels` (numpy or CuPy), the reference.  'cpu-numba': the same
phases, the shard's part of each superstep in numba (:mod:`.cpu`).  'cpu-tarjan': one whole
numpy shard: Tarjan's algorithm (iterative, compiled) in one superstep, then each component's
smallest id.  'fwbw': the same phases on one whole shard, with the ``fwbw`` phase, searches by
BFS's CUDA kernels on CuPy (:mod:`.gpu`): a component found there is removed whole, as the proof
above needs.
"""

from __future__ import annotations

import numpy as np

from ...backend import to_backend
from ...backend.primitives import scatter_min
from ...engine.program import Contribution, Program
from . import fwbw
from . import kernels as vec

#: what :func:`implementation` may choose, and what each runs
IMPLEMENTATIONS = {
    "generic": "trimming, forward coloring and backward reachability with vectorized steps, numpy or CuPy "
               "(the reference)",
    "cpu-numba": "numpy: the same supersteps, each shard's part in numba (cpu.py)",
    "cpu-tarjan": "numpy, one whole shard: Tarjan's algorithm compiled with numba, one superstep (cpu.py)",
    "fwbw": "one whole shard: trimming, then forward-backward searches from a pivot while they find big "
            "components (BFS's CUDA kernels on CuPy: gpu.py; array code on numpy), coloring for the rest",
}

#: a report's ``phase``, the phase its superstep ran: the Program's, in the order a round goes through
#: them ('fwbw' only in the 'fwbw' implementation), and 'tarjan' (the one superstep of 'cpu-tarjan')
PHASES = ("init", "trim", "fwbw", "color", "back", "tarjan")


def implementation(backend, kernels, whole):
    """The name of the code that runs an SCC (a key of :data:`IMPLEMENTATIONS`), decided once a run.

    ``backend``: 'numpy' or 'cupy'; ``kernels``: the user's 'fused' or 'generic'; ``whole``: one
    shard holding every vertex as its rows in order (:attr:`dgraph.partition.shard.Shard.whole`).
    One whole CuPy shard runs 'fwbw' (its searches are BFS's CUDA kernels); a partitioned CuPy graph
    runs the vectorized supersteps.  ('fwbw' on numpy, array code, is only ever asked for: the tests.)

    >>> implementation("numpy", "fused", True), implementation("numpy", "fused", False)
    ('cpu-tarjan', 'cpu-numba')
    >>> implementation("cupy", "fused", True), implementation("cupy", "fused", False)
    ('fwbw', 'generic')
    >>> implementation("numpy", "generic", True)
    'generic'
    """
    if kernels == "generic":
        return "generic"
    if backend != "numpy":
        return "fwbw" if whole else "generic"
    return "cpu-tarjan" if whole else "cpu-numba"


class SCCState:
    __slots__ = ("impl", "rows", "label", "color", "visited", "in_count", "out_count", "removed", "frontier",
                 "phase", "active", "components", "scratch", "pivoting", "reach")


class SCC(Program):
    """The SCC Program (see :mod:`dgraph.engine.program`); ``implementation``: a key of
    :data:`IMPLEMENTATIONS`, or None to decide it from ``kernels`` and the first shard.

    'fwbw' only: a FW-BW search runs when trimming runs dry while ``pivot_min_active`` vertices or
    more are active, until a search finds a component of fewer than ``pivot_min_share`` of the
    vertices active before it; coloring places the rest (:mod:`.fwbw`)."""

    name = "scc"
    replicated_result = True

    def __init__(self, kernels="fused", implementation=None, pivot_min_active=fwbw.PIVOT_MIN_ACTIVE,
                 pivot_min_share=fwbw.PIVOT_MIN_SHARE):
        self.kernels = kernels
        self.implementation = implementation
        self.pivot_min_active = pivot_min_active
        self.pivot_min_share = pivot_min_share

    def init(self, shard):
        xp = shard.xp
        st = SCCState()
        st.impl = self.implementation or implementation(shard.backend, self.kernels, shard.whole)
        if st.impl in ("cpu-tarjan", "fwbw") and not shard.whole:
            raise ValueError(f"{st.impl!r} runs on one whole shard")  # a caller's bug, not bad input
        vdt = shard.indices.dtype
        st.rows = None if st.impl == "cpu-tarjan" else shard.global_rows()   # (Tarjan needs no row ids)
        st.label = xp.full(shard.n, -1, dtype=vdt)     # -1: not placed (what Tarjan's kernel starts from)
        st.color = st.visited = st.in_count = st.out_count = st.scratch = st.reach = None
        st.pivoting = st.impl == "fwbw"
        st.removed = st.frontier = xp.empty(0, dtype=vdt)
        st.phase = "tarjan" if st.impl == "cpu-tarjan" else "init"
        st.active = shard.n
        st.components = 0
        return st

    def initial_report(self, shard, st):
        return {"active": shard.n, "components": 0}

    def converged(self, report, step):
        return report["active"] == 0

    # -- one superstep: the shard's part of the current phase --------------------------------------
    def superstep(self, shard, st, ctx):
        k = self._kernels(st)
        empty = shard.xp.empty(0, dtype=st.label.dtype)
        if st.phase == "tarjan":
            from . import cpu  # noqa: PLC0415

            st.components = int(cpu.tarjan_labels(shard.indptr, shard.indices, st.label, empty))
            return Contribution({"a": empty, "b": empty}, {"edges": shard.num_arcs})
        if st.phase == "fwbw":
            if st.reach is None:
                st.reach = _reach(shard)
            ids, arcs = fwbw.pivot_component(shard, st.label, st.in_count, st.out_count, st.reach)
            return Contribution({"a": ids, "b": empty}, {"edges": arcs})
        step = {"init": k.owned_counts, "trim": k.decrements, "color": k.color_step, "back": k.back_step}
        a, b, arcs = step[st.phase](shard, st)
        return Contribution({"a": a, "b": b}, {"edges": arcs})

    def _kernels(self, st):
        if st.impl == "cpu-numba":
            from . import cpu  # noqa: PLC0415

            return cpu
        return vec

    # -- the merge: the same on every shard --------------------------------------------------------
    def receive(self, shard, st, contributions, ctx):
        xp = shard.xp
        phase = st.phase
        edges = sum(int(c.counters["edges"]) for c in contributions)
        trimmed = found = 0
        if phase == "tarjan":
            st.active = 0
            return self._report(st, phase, edges, 0, shard.n, 0)
        if phase == "init":
            st.in_count = shard.gather_owned(xp.empty(shard.n, dtype=np.int64), contributions, "a")
            st.out_count = (shard.gather_owned(xp.empty(shard.n, dtype=np.int64), contributions, "b")
                            if shard.directed else st.in_count)
            trimmed = self._trim(xp, st, xp.flatnonzero((st.in_count == 0) | (st.out_count == 0)))
        elif phase == "trim":
            touched = _lower(xp, st.in_count, _concat(xp, [c.arrays["a"] for c in contributions], st.label.dtype))
            if shard.directed:  # (undirected: one counter, in_count is out_count)
                more = _lower(xp, st.out_count, _concat(xp, [c.arrays["b"] for c in contributions], st.label.dtype))
                touched = xp.unique(xp.concatenate([touched, more]))
            zero = (st.label[touched] < 0) & ((st.in_count[touched] == 0) | (st.out_count[touched] == 0))
            trimmed = self._trim(xp, st, touched[zero])
        elif phase == "fwbw":  # one component, its ids sorted: the smallest first
            members = _concat(xp, [c.arrays["a"] for c in contributions], st.label.dtype)
            found = len(members)
            st.label[members] = members[0]
            st.pivoting = found >= self.pivot_min_share * st.active
            st.active -= found
            st.components += 1
            st.removed = members
            st.frontier = members[:0]
            st.phase = "trim"
        elif phase == "color":
            ids = _concat(xp, [c.arrays["a"] for c in contributions], st.label.dtype)
            vals = _concat(xp, [c.arrays["b"] for c in contributions], st.label.dtype)
            scatter_min(st.color, ids, vals)     # every offer is below the color it replaces
            st.frontier = xp.unique(ids)
        else:  # back
            st.frontier = xp.unique(_concat(xp, [c.arrays["a"] for c in contributions], st.label.dtype))
            st.visited[st.frontier] = True
        frontier = len(st.frontier)
        # what comes next: the same decision on every shard (the state is the same everywhere)
        if phase in ("init", "trim"):
            if not trimmed and st.active:
                if st.pivoting and st.active >= self.pivot_min_active:
                    st.phase = "fwbw"
                else:
                    self._start_color(xp, st)
        elif phase == "color":
            if not frontier:
                roots = xp.flatnonzero((st.label < 0) & (st.color == xp.arange(shard.n, dtype=st.color.dtype)))
                st.visited = xp.zeros(shard.n, dtype=bool)
                st.visited[roots] = True
                st.frontier = roots.astype(st.label.dtype, copy=False)
                st.components += len(roots)
                st.phase = "back"
        elif phase == "back" and not frontier:  # the components of this round's roots are complete
            members = xp.flatnonzero(st.visited).astype(st.label.dtype, copy=False)
            st.label[members] = st.color[members]
            found = len(members)
            st.active -= found
            st.removed = members
            st.visited = None
            st.phase = "trim"
        return self._report(st, phase, edges, trimmed, found, frontier)

    def _trim(self, xp, st, ids):
        """Each of ``ids`` (active, a zero counter) is a component of its own; returns how many."""
        ids = ids.astype(st.label.dtype, copy=False)
        st.label[ids] = ids
        st.removed = ids
        st.active -= len(ids)
        st.components += len(ids)
        st.phase = "trim"
        return len(ids)

    def _start_color(self, xp, st):
        st.color = xp.arange(len(st.label), dtype=st.label.dtype)
        st.frontier = xp.flatnonzero(st.label < 0).astype(st.label.dtype, copy=False)
        st.removed = st.frontier[:0]
        st.phase = "color"

    @staticmethod
    def _report(st, phase, edges, trimmed, found, frontier):
        return {"phase": phase, "active": int(st.active), "trimmed": int(trimmed), "found": int(found),
                "frontier": int(frontier), "components": int(st.components), "edges": int(edges)}

    def finish(self, shard, st):
        return {"component": st.label}


def _reach(shard):
    """The FW-BW searches of a whole shard: BFS's CUDA kernels on CuPy, array code on numpy."""
    if shard.backend == "cupy":
        from .gpu import Reach  # noqa: PLC0415

        return Reach(shard)
    return fwbw.VectorReach(shard)


def _lower(xp, count, ids):
    """``count[v] -= (copies of v in ids)``; returns the distinct ids.  Sort-based, not an
    ``add.at``: CuPy's scatter-add has no int64 atomic."""
    ids, copies = xp.unique(ids, return_counts=True)
    count[ids] -= copies
    return ids


def _concat(xp, arrays, dtype):
    arrays = [to_backend(a, xp) for a in arrays if len(a)]
    if not arrays:
        return xp.empty(0, dtype=dtype)
    return (xp.concatenate(arrays) if len(arrays) > 1 else arrays[0]).astype(dtype, copy=False)


__all__ = ["SCC", "SCCState", "implementation", "IMPLEMENTATIONS", "PHASES"]
