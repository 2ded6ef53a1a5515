"""The SSSP Program: the BSP reference of near/far delta-stepping, and the one choice of kernels.

:class:`SSSP` is the algorithm as the engine runs it (:mod:`dgraph.engine.program`): ``init``,
``superstep`` (advance over the near frontier's out-edges + relax), ``receive`` (merge by
(distance, hops) minimum, split into near and far, the next bucket when near is empty), the
parent search once the distances are final.  The vectorized numpy/CuPy code of this module is
the reference: the numba kernels (:mod:`.cpu`), the CUDA kernels (:mod:`.gpu`) and the
whole-graph loops (:mod:`.solver`) give its bits, its supersteps and its counters.

Which of them runs is decided once a run, by :func:`implementation`, and the Program dispatches
on that string (:data:`IMPLEMENTATIONS` says what each one runs).
"""

from __future__ import annotations

import numpy as np

from ...backend import array_module, to_backend
from ...backend.primitives import expand, row_ids, scatter_min
from ...config import config
from ...engine.program import Contribution, Program

#: the hop count of a vertex no path has reached yet
HOPS_UNSET = np.iinfo(np.int64).max

#: what each implementation runs: ``<kernels>[+<loop>]`` (``Result.params["implementation"]``)
IMPLEMENTATIONS = {
    "generic": "the vectorized numpy/CuPy superstep of this module (the reference), any graph",
    "cpu-numba": "numba kernels (cpu.py) a superstep; partitions merged by the vectorized receive",
    "cpu-numba+whole": "numba kernels a superstep on one whole shard that a Dask executor runs",
    "cpu-numba+steps": "one whole shard, local executor: many supersteps a numba call (solver.py)",
    "gpu-cuda": "CUDA kernels (gpu.py, sssp.cu) a superstep; partitions merged on the GPU (merge), each "
                "vertex's improvements on its owner alone over NCCL (routed)",
    "gpu-cuda+whole": "CUDA kernels a superstep on one whole shard that a Dask executor runs: in-place receive",
    "gpu-cuda+steps": "one whole shard, local executor: many supersteps a cooperative launch (sssp_steps.cu), "
                      "host-driven supersteps where the launch cannot take one (solver.py)",
    "gpu-cuda+host-steps": "one whole shard, local executor, dgraph.config.sssp_steps off: host-driven "
                           "supersteps only (solver.py)",
}


def implementation(backend, whole, kernels="fused", executor="local"):
    """The implementation one SSSP run uses (a key of :data:`IMPLEMENTATIONS`): the one place
    that chooses, called once a run by :func:`dgraph.sssp`.

    ``backend``: "numpy" or "cupy"; ``whole``: the graph runs as one shard holding every vertex
    (a Graph, or a one-partition range PartitionedGraph: ``Shard.whole``); ``kernels``: the
    user's "fused" or "generic"; ``executor``: the resolved executor (only the local one drives
    the whole-graph loops, ``Program.run_steps``).  On CuPy the cooperative many-superstep launch
    is taken unless ``dgraph.config.sssp_steps`` is off.
    """
    if kernels == "generic":
        return "generic"
    base = "gpu-cuda" if backend == "cupy" else "cpu-numba"
    if not whole:
        return base
    if executor != "local":
        return base + "+whole"
    if base == "gpu-cuda" and not config.sssp_steps:
        return base + "+host-steps"
    return base + "+steps"


class SSSPState:
    __slots__ = ("dist", "hops", "frontier", "pending", "pile", "bound", "parents", "big",
                 "bd", "bh", "mark", "touched", "scratch", "w64", "snap", "steps", "steps_skip", "skip",
                 "routed", "gather")


class SSSP(Program):
    """The SSSP Program (see :mod:`dgraph.engine.program`).

    ``implementation``: a key of :data:`IMPLEMENTATIONS` (:func:`implementation` picks it);
    ``dist``: the final distances of a first run, for the hop pass (``dgraph.algorithms.sssp``).
    """

    name = "sssp"
    replicated_result = False
    steps_timed = True  # each batch of run_steps ends in a read; a host-driven one may queue the next relaxation

    def __init__(self, source, delta, implementation="cpu-numba+steps", dist=None):
        if implementation not in IMPLEMENTATIONS:
            raise ValueError(f"implementation={implementation!r}: expected one of {', '.join(IMPLEMENTATIONS)}")
        self.source = int(source)
        self.delta = float(delta)
        self.implementation = implementation
        kernels, _, self.loop = implementation.partition("+")
        self.cpu = kernels == "cpu-numba"   # numba kernels on the numpy backend
        self.gpu = kernels == "gpu-cuda"    # CUDA kernels on CuPy: relax in place, parents by atomicMin
        self.whole = self.loop != ""        # one shard holding every vertex in order
        self.dist = dist  # the hop pass (_hop_pass): the final distances, internal order

    # -- setup -------------------------------------------------------------------
    def init(self, shard):
        if (self.cpu or self.gpu) and self.whole != shard.whole:
            raise RuntimeError(f"SSSP: implementation {self.implementation!r} chosen for "
                               f"{'one whole shard' if self.whole else 'a partition'}, run on "
                               f"{'one whole shard' if shard.whole else 'a partition'}")
        xp = shard.xp
        if (self.cpu and xp is not np) or (self.gpu and xp is np):
            raise RuntimeError(f"SSSP: implementation {self.implementation!r} run on a "
                               f"{'numpy' if xp is np else 'CuPy'} shard")
        n = shard.n
        vdt = shard.indices.dtype
        st = SSSPState()
        if self.gpu and self.dist is None and n:  # one CUDA launch
            from . import gpu  # noqa: PLC0415

            st.dist, st.hops, st.pending, st.frontier = gpu.init_state(n, self.source, vdt)
        else:
            if self.dist is None:
                st.dist = xp.full(n, np.inf, dtype=np.float64)
                st.dist[self.source] = 0.0
            else:  # the hop pass: the distances are final, the relaxation only settles hop counts
                st.dist = to_backend(self.dist, xp).astype(np.float64, copy=True)
            st.hops = xp.full(n, HOPS_UNSET, dtype=np.int64)
            st.hops[self.source] = 0
            st.frontier = xp.asarray([self.source], dtype=vdt)
            st.pending = xp.zeros(n, dtype=bool)   # in the far pile and not relaxed since
        st.pile = xp.empty(0, dtype=vdt)       # far vertices (may hold stale entries and repeats)
        st.bound = self.delta                  # near: dist < bound
        st.big = np.iinfo(vdt).max
        st.parents = None
        st.bd = st.bh = st.mark = st.touched = None  # numba scratch (cpu.scratch)
        # GPU: skip stale frontier rows (dgraph.config.sssp_skip_stale, read once a run).  A row whose
        # distance this shard lowered in the superstep is in its changed queue, so in every shard's
        # next frontier: a partition may skip it as one whole shard does (rmat26 on 2 GPUs spent as
        # long relaxing half the graph as one GPU did the whole without it)
        st.skip = self.gpu and config.sssp_skip_stale
        st.scratch = None
        st.snap = None  # GPU, one shard: (fd, fh, scanned, total, block starts or None) of the frontier
        st.steps = None  # GPU, one shard: the buffers of the many-supersteps launch (solver.StepBuffers)
        st.steps_skip = False  # the launch stopped before a superstep it cannot take: the host's turn
        st.w64 = None if shard.weights is None else shard.weights.astype(np.float64, copy=False)
        st.routed = None  # decided by the first superstep (routed)
        st.gather = None  # a routed partition's StepContext.gather_ranges, for final_min (it has no ctx)
        return st

    def initial_report(self, shard, st):
        return {"frontier": 1, "far": 0, "bound": st.bound}

    def converged(self, report, step):
        return report.get("frontier", 0) == 0

    # -- one superstep: advance + relax ----------------------------------------------
    def superstep(self, shard, st, ctx):
        if self.cpu:
            from . import cpu  # noqa: PLC0415

            return cpu.relax_step(shard, st)
        if self.gpu:
            from . import gpu  # noqa: PLC0415

            if st.routed is None:
                st.routed = routed(self, shard, ctx)
                st.gather = ctx.gather_ranges if st.routed else None
            return gpu.relax_step(shard, st, self.whole)
        xp = shard.xp
        rows, gids = owned_frontier(shard, st.frontier)
        seg, eid = expand(shard.indptr, rows)
        dst = shard.indices[eid]
        src = gids[seg]
        with np.errstate(over="ignore"):  # an overflowing sum is inf: no path (kept out below)
            cand = st.dist[src] + _weights(shard, eid)
        hops = st.hops[src] + 1
        dv = st.dist[dst]
        better = (cand < dv) | ((cand == dv) & (hops < st.hops[dst]) & (cand < np.inf))  # inf: an overflow
        dst, cand, hops = dst[better], cand[better], hops[better]
        v = xp.unique(dst)
        best = xp.full(len(v), np.inf, dtype=np.float64)
        fewest = xp.full(len(v), HOPS_UNSET, dtype=np.int64)
        if len(v):
            at = xp.searchsorted(v, dst)
            scatter_min(best, at, cand)
            tie = cand == best[at]
            scatter_min(fewest, at[tie], hops[tie])
        return Contribution({"v": v, "d": best, "h": fewest}, {"edges": len(eid)})

    def run_steps(self, shard, st, ctx, limit):
        """One whole shard under the local executor: many supersteps a call (:mod:`.solver`), the
        same states and counters as superstep + receive; None for every other implementation."""
        if self.loop not in ("steps", "host-steps"):
            return None
        from . import solver  # noqa: PLC0415

        if self.gpu:
            return solver.gpu_run_steps(self, shard, st, limit)
        return solver.cpu_run_steps(self, shard, st, ctx, limit)

    # -- merge + filter into near / far ----------------------------------------------
    def receive(self, shard, st, contributions, ctx):
        xp = shard.xp
        if self.cpu and len(contributions) == 1:
            from . import cpu  # noqa: PLC0415

            return cpu.receive_one(st, contributions[0], self._next_bucket)
        if self.gpu and self.whole:
            from . import gpu  # noqa: PLC0415

            return gpu.receive_whole(shard, st, contributions[0], self._next_bucket)
        if self.gpu and len(contributions) > 1:  # merged and split on the GPU (routed: only its own came)
            from . import gpu  # noqa: PLC0415

            others = [tuple(to_backend(c.arrays[k], xp) for k in ("v", "d", "h"))
                      for i, c in enumerate(contributions) if i != shard.part]
            edges = sum(int(c.counters["edges"]) for c in contributions)
            if st.routed:
                report = gpu.receive_routed(shard, st, others, edges, self._next_bucket, ctx.share)
            else:
                report = gpu.receive_partition(shard, st, others, edges, self._next_bucket)
            if "skipped" in contributions[0].counters:  # stale rows skipped (gpu.relax_step)
                report["skipped"] = sum(int(c.counters["skipped"]) for c in contributions)
            return report
        if len(contributions) == 1:
            c = contributions[0]
            v = c.arrays["v"]
            st.dist[v] = c.arrays["d"]  # unique, and each beats the (distance, hops) it was relaxed against
            st.hops[v] = c.arrays["h"]
            changed = v
        else:
            v = xp.concatenate([to_backend(c.arrays["v"], xp) for c in contributions]).astype(
                st.frontier.dtype, copy=False)
            d = xp.concatenate([to_backend(c.arrays["d"], xp) for c in contributions])
            h = xp.concatenate([to_backend(c.arrays["h"], xp) for c in contributions])
            before = st.dist[v]
            scatter_min(st.dist, v, d)
            st.hops[v[st.dist[v] < before]] = HOPS_UNSET  # a shorter distance: its hop count starts over
            tie = d == st.dist[v]
            scatter_min(st.hops, v[tie], h[tie])
            # every contribution beat the (distance, hops) every shard held: all of them improve
            changed = xp.unique(v)
        near = st.dist[changed] < st.bound
        frontier, far = changed[near], changed[~near]
        st.pending[frontier] = False
        if len(far):
            st.pending[far] = True
            st.pile = xp.concatenate([st.pile, far])
        if len(frontier) == 0 and len(st.pile):
            frontier = self._next_bucket(st)
        st.frontier = frontier
        return {"frontier": len(frontier), "far": len(st.pile), "bound": st.bound, "improved": len(changed),
                "edges": sum(int(c.counters["edges"]) for c in contributions)}

    def _next_bucket(self, st, share=None):
        """Near is empty: raise the bound past the closest far vertex; its bucket becomes the frontier.
        ``share`` (a routed partition, whose pile holds only its own vertices): the closest over every
        shard's pile, agreed through that collective (every shard calls it)."""
        from .cpu import bound_above  # noqa: PLC0415

        xp = array_module(st.dist)
        pile = xp.unique(st.pile)
        pile = pile[st.pending[pile]]
        closest = float(st.dist[pile].min()) if len(pile) else np.inf
        if share is not None:
            closest = float(shared_rows(share, [closest]).min())
        if closest == np.inf:  # no far vertex anywhere (a routed shard without one still takes the new bound)
            st.pile = pile
            return pile
        st.bound = bound_above(closest, st.bound, self.delta)
        near = st.dist[pile] < st.bound
        frontier, st.pile = pile[near], pile[~near]
        st.pending[frontier] = False
        return frontier

    # -- parents, once, from the final distances ----------------------------------------
    def _tight_parents(self, shard, st):
        """The compiled kernels' parent candidates: one dense array (``st.big`` where none)."""
        if self.cpu:
            from . import cpu  # noqa: PLC0415

            return cpu.parents(shard, st, self.source, self.whole)
        from . import gpu  # noqa: PLC0415

        return gpu.parents(shard, st, self.source)

    def _candidates(self, shard, st):
        """(v, smallest u) over this shard's out-edges u -> v with dist[u] + w == dist[v]."""
        xp = shard.xp
        if self.cpu or self.gpu:
            par = self._tight_parents(shard, st)
            v = xp.flatnonzero(par != st.big).astype(shard.indices.dtype, copy=False)
            return v, par[v]
        local = row_ids(shard.indptr)
        src = (local + shard.row_base) if shard.contiguous else shard.rows[local]
        src = src.astype(shard.indices.dtype, copy=False)
        dst = shard.indices
        dv = st.dist[dst]
        with np.errstate(over="ignore"):
            tight = ((dv < np.inf) & (st.dist[src] + _weights(shard, None) == dv) & (dst != self.source)
                     & (st.hops[src] + 1 == st.hops[dst]))
        src, dst = src[tight], dst[tight]
        v = xp.unique(dst)
        u = xp.full(len(v), st.big, dtype=shard.indices.dtype)
        if len(v):
            scatter_min(u, xp.searchsorted(v, dst), src)
        return v, u

    def final_contribution(self, shard, st):
        if shard.num_parts == 1:
            return None
        v, u = self._candidates(shard, st)
        return Contribution({"v": v, "u": u}, {})

    def final_min(self, shard, st):
        """Every vertex's parent candidate from this shard's edges as one dense array (``big`` where
        none), for a transport that reduces on the GPUs: the minimum over the shards is the parent.
        The (vertex, candidate) pairs of every shard cost 24.8 ms at rmat26 on 2 GPUs."""
        if shard.num_parts == 1 or not self.gpu:
            return None
        if st.routed:  # the parents read every edge's ends: the owners' distances and hop counts first
            st.gather(st.dist)
            st.gather(st.hops)
        st.parents = self._tight_parents(shard, st)
        return st.parents

    def final_receive(self, shard, st, contributions):
        xp = shard.xp
        st.parents = xp.full(shard.n, st.big, dtype=shard.indices.dtype)
        for c in contributions:
            scatter_min(st.parents, to_backend(c.arrays["v"], xp),
                        to_backend(c.arrays["u"], xp).astype(st.parents.dtype, copy=False))

    def tally(self, shard, st, result):
        """The reached vertices of this shard's part without a parent (:func:`dgraph.algorithms.sssp._orphans`):
        where the shards count them in the run, no task on every worker checks them after it."""
        from . import _orphans  # noqa: PLC0415

        return {"orphans": int(_orphans(result))}

    def finish(self, shard, st):
        xp = shard.xp
        if st.parents is None:  # one shard: every edge is here
            if self.cpu or self.gpu:
                st.parents = self._tight_parents(shard, st)
            else:
                st.parents = xp.full(shard.n, st.big, dtype=shard.indices.dtype)
                v, u = self._candidates(shard, st)
                st.parents[v] = u
        parents = st.parents
        if self.gpu and self.whole:
            from . import gpu  # noqa: PLC0415

            return {"distance": st.dist, "parent": gpu.finish_parents(parents, st.big, self.source)}
        parents[self.source] = self.source
        if shard.num_parts == 1 and shard.num_rows == shard.n:
            dist, par = st.dist, parents
        else:
            owned = shard.global_rows()
            dist, par = st.dist[owned], parents[owned]
        par = xp.where(par == st.big, -1, par)
        return {"distance": dist, "parent": par}


# -- helpers ------------------------------------------------------------------------------

def owned_frontier(shard, frontier):
    """(local rows, global ids) of the frontier vertices this shard owns."""
    if shard.num_parts == 1 and shard.contiguous and shard.row_base == 0:
        return frontier, frontier
    if shard.contiguous:
        lo, hi = shard.row_base, shard.row_base + shard.num_rows
        g = frontier[(frontier >= lo) & (frontier < hi)]
        return (g - lo).astype(shard.indices.dtype, copy=False), g
    rows = shard.local_rows(frontier)
    return rows, shard.rows[rows]


#: the most shards a routed exchange takes (sssp.cuh's MAX_ROUTES: a block counts each owner's vertices)
MAX_ROUTES = 64


def routed(program, shard, ctx):
    """Whether a partition of a CUDA SSSP keeps only its own vertices' state, sending each improvement
    to the shard that owns the vertex (decided by its first superstep, the same on every shard).

    Where the exchange can route (:attr:`~dgraph.engine.program.StepContext.routed_exchange`) and the
    shards are vertex ranges, yes: the replicated merge has every shard merge every shard's
    improvements, (p - 1) times the work of its own vertices' and (p - 1) times the bytes."""
    return bool(program.gpu and not program.whole and config.sssp_routed and ctx.routed_exchange
                and ctx.share is not None and ctx.gather_ranges is not None
                and shard.range_bounds() is not None and 1 < shard.num_parts <= MAX_ROUTES)


def shared_rows(share, values):
    """Every shard's ``values`` (the same count of numbers on each) as a (shards, values) float64
    array, through ``share`` (:attr:`dgraph.engine.program.StepContext.share`, a collective)."""
    got = share(np.asarray(values, dtype=np.float64).tobytes())
    return np.frombuffer(b"".join(got), dtype=np.float64).reshape(len(got), -1)


def _weights(shard, eid):
    """Weights of the given CSR positions (all when None) as float64; 1 for an unweighted graph."""
    if shard.weights is None:
        return 1.0
    w = shard.weights if eid is None else shard.weights[eid]
    return w.astype(np.float64, copy=False)


__all__ = ["SSSP", "IMPLEMENTATIONS", "implementation", "HOPS_UNSET", "owned_frontier"]
