"""The core-number Program: k-core peeling as Gunrock's filter + advance over a vertex frontier.

The core number of a vertex is the largest ``k`` such that the vertex lies in
a ``k``-core, a maximal subgraph in which every vertex has degree ``k`` or
more (NetworkX's ``core_number``).  The degree of a vertex is the number of
its edges: for a directed graph its in-degree plus its out-degree (NetworkX's
rule: two vertices joined both ways are two edges apart), and an edge stored
twice (``dedupe=False``) counts twice.  Self loops are left out here (the
public functions refuse a graph that has them unless told to leave them out,
as NetworkX refuses it).

Peeling, bulk-synchronous.  Every shard holds the replicated state: the
remaining degree ``deg`` of every vertex (edges to vertices not yet peeled),
an ``alive`` mask, the level ``k`` and the frontier (global ids: the alive
vertices whose degree fell to ``k`` or below).  A superstep

1. removes the frontier: its vertices get core number ``k`` (every shard
   marks them in its own copy, so nothing is sent for it);
2. advances from the frontier vertices the shard owns, over their out-arcs
   (and in-arcs, from ``shard.csc()``, for a directed graph): the far ends
   that are still alive are the shard's contribution, one id per arc;
3. on receive, every shard applies every contribution the same way: each
   far end's degree drops by the number of arcs that reached it, and those
   now at ``k`` or below are the next frontier (Gunrock's filter).  When
   the frontier is empty, ``k`` rises to the smallest remaining degree and
   the frontier is every alive vertex at that degree.

The degrees of the owned vertices are all-gathered once, in superstep 0 (a
shard knows only its own in-arcs).  The run ends when every vertex left is
in the frontier: they all get core number ``k`` in ``finish``.  Vertices
peeled at level ``k`` have core number ``k`` (they have at most ``k`` edges
into what is left, which is the ``k``-core or more); a vertex is never peeled
below its core number (every vertex of a ``c``-core keeps ``c`` edges inside
it until the level reaches ``c``).  The answer depends only on the graph, not
on the partitioning, the backend or the executor: every run returns the same
core numbers.

Implementations (chosen once by :func:`implementation`): that vectorized
step is 'generic' (numpy or CuPy, any partitioning, the reference); one
whole numpy shard on the local executor runs the same peeling in numba, one
vertex at a time in one thread ('cpu-numba+levels': :mod:`.cpu` through
:mod:`.solver`, one superstep, O(m + n)), and one whole CuPy shard there runs
the peeling above, every level and round in one cooperative CUDA launch
('gpu-peel': :mod:`.gpu`, one superstep); all give the same numbers.
"""

from __future__ import annotations

import numpy as np

from ...backend import to_backend
from ...backend.primitives import expand, row_ids
from ...engine.program import Contribution, Program

#: what :func:`implementation` may choose, and what each runs
IMPLEMENTATIONS = {
    "generic": "vectorized peeling: frontier advance, degree decrements, filter (numpy or CuPy; the reference)",
    "cpu-numba+levels": "numpy, one whole shard: level-by-level peeling in numba, one thread, O(m + n), one "
                        "superstep",
    "gpu-peel": "CuPy, one whole shard: the same peeling, every level and round in one cooperative CUDA launch "
                "(gpu.py, peel.cu), one superstep",
}


def implementation(backend, kernels, whole, local=True):
    """The name of the code that runs a core decomposition (a key of :data:`IMPLEMENTATIONS`), decided
    once a run.

    ``backend``: 'numpy' or 'cupy'; ``kernels``: the user's 'fused' or 'generic'; ``whole``: one shard
    holding every vertex as its rows in order (:attr:`dgraph.partition.shard.Shard.whole`); ``local``:
    the ``local`` executor runs it (only it calls ``Program.run_steps``).  The numba peeling and
    the one-launch GPU peeling need every vertex's edges in one place, so partitioned runs peel by
    supersteps.

    >>> implementation("numpy", "fused", True), implementation("numpy", "fused", False)
    ('cpu-numba+levels', 'generic')
    >>> implementation("cupy", "fused", True), implementation("numpy", "generic", True)
    ('gpu-peel', 'generic')
    """
    if kernels == "fused" and whole and local:
        return "cpu-numba+levels" if backend == "numpy" else "gpu-peel"
    return "generic"


def owned_degrees(shard, loop_free=False):
    """The degree of every owned vertex (in + out for a directed graph), self loops left out: int64,
    one per local row.  ``loop_free``: the graph is known to have none, so no arc is read."""
    xp = shard.xp
    g = shard.global_rows().astype(np.int64, copy=False)
    deg = xp.zeros(shard.num_rows, dtype=np.int64)
    csrs = [(shard.indptr, shard.indices)]
    if shard.directed:
        cindptr, csources, _ = shard.csc(edge_ids=False)
        csrs.append((cindptr, csources))
    for indptr, indices in csrs:
        deg += (indptr[1:] - indptr[:-1]).astype(np.int64, copy=False)
        if shard.num_rows and len(indices) and not loop_free:
            rows = row_ids(indptr)
            loop = indices.astype(np.int64, copy=False) == g[rows]
            if bool(loop.any()):
                deg -= xp.bincount(rows[loop], minlength=shard.num_rows).astype(np.int64, copy=False)
    return deg


def shard_self_loops(shard):
    """``(count, smallest looped vertex or -1)`` of a shard's self loops (global ids; one per stored
    ``v -> v`` arc of an owned row)."""
    if shard.num_rows == 0 or shard.num_arcs == 0:
        return 0, -1
    g = shard.global_rows().astype(np.int64, copy=False)
    rows = row_ids(shard.indptr)
    loop = shard.indices.astype(np.int64, copy=False) == g[rows]
    count = int(loop.sum())
    return count, (int(g[rows[loop]].min()) if count else -1)


class CoreNumber(Program):
    """The core-number Program (see :mod:`dgraph.engine.program`); ``implementation``: a key of
    :data:`IMPLEMENTATIONS`, or None to decide it from ``kernels`` and the first shard (as if on the
    local executor)."""

    name = "core_number"
    replicated_result = True

    def __init__(self, kernels="fused", implementation=None):
        self.kernels = kernels
        self.implementation = implementation

    def init(self, shard):
        xp = shard.xp
        impl = self.implementation or implementation(shard.backend, self.kernels, shard.whole)
        if impl not in IMPLEMENTATIONS:
            raise ValueError(f"implementation={impl!r}: expected one of {', '.join(IMPLEMENTATIONS)}")
        st = {"impl": impl, "core": xp.full(shard.n, -1, dtype=np.int64)}
        if impl != "generic":
            return st
        st.update(deg=xp.zeros(shard.n, dtype=np.int64), alive=xp.ones(shard.n, dtype=bool),
                  frontier=xp.empty(0, dtype=np.int64), k=0, left=shard.n, ready=False)
        return st

    def initial_report(self, shard, st):
        return {"k": 0, "frontier": 0, "left": shard.n}

    def converged(self, report, step):
        # every vertex left is in the frontier: they all take core number k (finish)
        return report["left"] == report["frontier"]

    def run_steps(self, shard, st, ctx, limit):
        """The whole-shard peeling of :mod:`.solver` ('cpu-numba+levels', 'gpu-peel'); None (a superstep
        at a time) for 'generic'."""
        from . import solver  # noqa: PLC0415

        return solver.run_steps(self, shard, st, ctx, limit)

    def superstep(self, shard, st, ctx):
        if st["impl"] != "generic":
            raise RuntimeError(f"core_number: implementation {st['impl']!r} runs on one whole shard on the "
                               f"local executor only")
        if not st["ready"]:  # superstep 0: every shard's owned degrees, for the replicated array
            return Contribution({"degree": owned_degrees(shard)}, {})
        xp = shard.xp
        F, k = st["frontier"], st["k"]
        st["core"][F] = k                      # the frontier leaves the graph at level k
        st["alive"][F] = False
        local = shard.local_rows(F)
        ends = []
        for indptr, indices in self._adjacency(shard):
            _, eid = expand(indptr, local)
            ends.append(indices[eid].astype(np.int64, copy=False))
        ends = xp.concatenate(ends) if len(ends) > 1 else ends[0]
        edges = len(ends)
        ends = ends[st["alive"][ends]]         # the far ends still in the graph (loops and peers gone)
        return Contribution({"ends": ends}, {"edges": edges})

    @staticmethod
    def _adjacency(shard):
        """The CSRs the advance runs over: the out-arcs, and the in-arcs for a directed graph."""
        if shard.directed:
            cindptr, csources, _ = shard.csc(edge_ids=False)
            return [(shard.indptr, shard.indices), (cindptr, csources)]
        return [(shard.indptr, shard.indices)]

    def receive(self, shard, st, contributions, ctx):
        xp = shard.xp
        deg, alive = st["deg"], st["alive"]
        edges = 0
        if not st["ready"]:
            shard.gather_owned(deg, contributions, "degree")
            st["ready"] = True
            F = xp.empty(0, dtype=np.int64)
        else:
            left = st["left"] - len(st["frontier"])
            st["left"] = left
            edges = int(sum(c.counters.get("edges", 0) for c in contributions))
            parts = [to_backend(c.arrays["ends"], xp) for c in contributions]
            ends = xp.concatenate(parts) if len(parts) > 1 else parts[0]
            if len(ends):
                far, hits = xp.unique(ends, return_counts=True)   # the filter: one entry per vertex reached
                deg[far] -= hits
                F = far[deg[far] <= st["k"]]
            else:
                F = xp.empty(0, dtype=np.int64)
        if len(F) == 0 and st["left"] > 0:     # this level is done: the next one starts at the smallest degree
            st["k"] = int(deg[alive].min())
            F = xp.flatnonzero(alive & (deg <= st["k"])).astype(np.int64, copy=False)
        st["frontier"] = F
        return {"k": st["k"], "frontier": len(F), "left": st["left"], "edges": edges}

    def finish(self, shard, st):
        if st["impl"] == "generic":
            st["core"][st["frontier"]] = st["k"]   # the vertices left when the run ended
            st["frontier"] = st["frontier"][:0]
        return {"core": st["core"]}


__all__ = ["CoreNumber", "implementation", "IMPLEMENTATIONS", "owned_degrees", "shard_self_loops"]
