"""Single-source shortest paths: Gunrock's advance + filter with a near/far priority queue.

Every superstep relaxes the out-edges of the *near* frontier (Gunrock
section 5.2): advance over the frontier's out-edges, compute the candidate
distance ``dist[u] + w(u, v)``, keep it where it beats ``dist[v]`` (the
atomic-min relaxation, here a ``scatter_min``), and filter the improved
vertices into the two-level priority queue of section 4.5 (delta-stepping,
Meyer and Sanders; Davidson et al.'s near/far split): a vertex whose new
distance is below the current bound is *near* and is relaxed in the next
superstep; the others wait in the *far* pile.  When no near vertex is left
the bound grows by ``delta`` (straight to the bucket holding the closest
far vertex, so empty buckets cost no superstep), and the far vertices under
the new bound become the frontier.  The run ends when both are empty.

``delta`` (when not given) follows the near/far heuristic of Davidson et
al. that Gunrock's SSSP descends from: ``delta = 32 * mean weight / mean
out-degree`` (32: a warp's width), so that one bucket holds about a warp's
worth of relaxations per frontier vertex; it is rounded to the nearest power
of two (exact bucket bounds, and the same value whatever the partitioning);
with no edges or only zero weights, delta = 1.  A larger delta means fewer
supersteps and more re-relaxations (Bellman-Ford at delta = inf), a smaller
one the reverse (Dijkstra's order as delta -> 0).  On the CPU (numpy, one
partition) the heuristic lands among the fastest: on a 300x300 weighted
grid 1/2 to 1 times it was fastest, while delta = inf did 9x the
relaxations and took 4x as long; on RMAT scale 16 (uniform or integer
weights) every delta from 1/8 times it to inf ran within about 1.5x of each
other.  A whole graph on numpy runs its supersteps inside one numba call,
where a superstep costs microseconds and the far pile's next bucket scans
only a window of it (:mod:`dgraph.backend.cpu_sssp`), so small buckets pay:
there delta is ``8 * mean weight / mean out-degree ** 2`` instead
(``CPU_DELTA_FACTOR``, ``CPU_DELTA_POWER``; rmat20 from the hub: delta
1/256, 509 supersteps, 44M relaxations, 0.63 s, against 0.5 by the rule of
32: 23 supersteps, 127M relaxations, 0.93-1.10 s; the 1000x1000 grid: 1/4,
125 ms, against 4: 123 ms).  On CuPy a superstep costs 0.2-0.3 ms of launches and host syncs
whatever its size, and larger buckets win: the constant there is 256, not
32 (``GPU_DELTA_FACTOR``; the measurements are beside it).  Supersteps cost
milliseconds on the Dask executors, so a larger delta can pay there on
long, thin graphs.

Every delta gives the same bits: float64 addition is monotone, so the
distances the relaxation converges to are the unique fixed point
``dist[v] = min over in-edges of dist[u] + w`` (the smallest left-to-right
path sum), whatever order the relaxations ran in.

``kernels="fused"`` (the default) runs, on the numpy backend, each
superstep's advance + relaxation, the single-shard receive (write the
distances, split near / far) and the final parent search as numba kernels
(:mod:`dgraph.backend.cpu_sssp`): the best candidate per target accumulates
in scratch arrays of size n instead of gathering every frontier arc and
sorting the targets.  On CuPy the fused superstep is two CUDA launches over
the frontier's edges (:mod:`dgraph.backend.gpu_sssp`): an ``atomicMin`` on
the distance bits, then one on the hop counts of the ties, in place, and
the parents are one ``atomicMin`` pass over the edges; one whole CuPy shard
runs its supersteps of up to 2^16 frontier edges many at a time in one
cooperative launch (:mod:`dgraph.backend.gpu_sssp_steps`: grid barriers
between the phases, no host round trip; the 1000x1000 grid's 2,214
supersteps in 52 ms instead of 331 on an H100).  ``kernels="generic"``
keeps the vectorized steps below; they are the reference, and every kernel
set gives the same bits, the same supersteps and the same counters.  One
whole numpy shard runs many supersteps per numba call (``run_steps``): the
relaxation in place against a snapshot of the frontier, or over the CPU's
threads with per-thread running bests, and the near/far split and the next
bucket in the same kernel.

Across partitions: every shard keeps the global distance array, relaxes the
out-edges of the frontier vertices it owns and contributes, per vertex it
improved, the best new distance it found.  The contributions are merged by
minimum, identically on every shard, so every shard ends each superstep
with the same distances, the same near frontier and the same far pile; the
superstep sequence is the same whatever the partitioning.

Parents are computed once, after convergence, from the final distances:
the parent of ``v`` is the smallest-id ``u`` with an edge ``u -> v``,
``dist[u] + w(u, v) == dist[v]`` (the same float64 expression the
relaxation used, so it is exact: the edge that last lowered ``dist[v]``
satisfies it) and ``u`` one hop closer to the source (below).  Each shard finds candidates over its owned out-edges; one
final exchange reconciles them by minimum.  So every executor, partition
count, backend and delta returns the same parent array.  The source is its
own parent.

Ties are broken by hop count, so the parents always form a tree, zero-weight
cycles included: the relaxation orders candidates by (distance, hops), the
converged state is the lexicographic minimum (the shortest distance, then
the fewest edges among shortest paths), and a parent must also be exactly
one hop closer to the source (``hops[u] + 1 == hops[v]``), so following
parents always reaches the source.  Rounding can break the middle step: a
candidate made from a distance that later dropped may round to the same
final distance (a weight far larger than both) with fewer hops than any path
the final distances allow, and that vertex then has no parent.  The run
counts reached vertices without a parent and, if there are any, reruns from
the source with the final distances fixed (:func:`_hop_pass`: a breadth-first
search over the tight edges), so the hop counts, and the parents, depend on
the final distances alone.  A path whose length overflows float64 counts as
no path (distance inf, parent -1).

On the GPU one whole shard's relaxation also skips a frontier vertex whose
distance already dropped during the same superstep (it is in the next
frontier with the smaller one; rmat20 from the hub: 131M relaxations ->
72M): the answers are the same, the per-superstep records then follow the
order the GPU ran the edges in (``dgraph.config.sssp_skip_stale = False`` turns it off).
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from ..backend import array_module, to_backend, to_numpy
from ..backend.primitives import expand, row_ids, scatter_min
from ..engine.program import Contribution, Program
from ..errors import InputError

#: the hop count of a vertex no path has reached yet
HOPS_UNSET = np.iinfo(np.int64).max

#: Davidson et al.'s constant in delta = C * mean weight / mean degree (a warp's width)
DELTA_FACTOR = 32.0

#: the constant on CuPy, where a superstep costs ~0.2-0.3 ms of launches and syncs whatever its
#: size, so fewer, fuller buckets pay (H100, dgraph bench sssp / docs/bench-scripts/sssp-delta-sweep.py:
#: rmat20 20.0 ms at delta 0.5 (32x), 14.8 ms at 2, 14.3 ms at inf; 1000x1000 grid 841 ms at 4 (32x),
#: 571 ms at 32, 518 ms at 64)
GPU_DELTA_FACTOR = 256.0

#: a whole graph on numpy: delta = CPU_DELTA_FACTOR * mean weight / mean degree ** CPU_DELTA_POWER
#: (2-core CPU, docs/BENCHMARKS.md "SSSP on the CPU: small buckets": rmat20 best at delta 1/512-1/256,
#: 0.61-0.63 s, 0.93-1.10 s at the rule of 32's 0.5; the grid flat from 1/4 to 4, 115-125 ms; the
#: directed rmat20 0.67-0.70 s at 1/256-1/64, 0.86 s at 1)
CPU_DELTA_FACTOR = 8.0
CPU_DELTA_POWER = 2

#: CPU, one shard: a superstep over at least this many arcs is relaxed by all the CPU's threads
PAR_MIN_ARCS = 1 << 16


class SSSPState:
    __slots__ = ("dist", "hops", "frontier", "pending", "pile", "bound", "parents", "big", "fused",
                 "bd", "bh", "mark", "touched", "gpu", "scratch", "w64", "snap", "steps", "steps_skip", "skip")


class SSSP(Program):
    """The SSSP Program (see :mod:`dgraph.engine.program`)."""

    name = "sssp"
    replicated_result = False
    steps_timed = True  # each batch of run_steps ends in a read; a host-driven one may queue the next relaxation

    def __init__(self, source, delta, kernels="fused", dist=None):
        self.source = int(source)
        self.delta = float(delta)
        self.kernels = kernels
        self.dist = dist  # the hop pass (_hop_pass): the final distances, internal order

    # -- setup -------------------------------------------------------------------
    def init(self, shard):
        xp = shard.xp
        n = shard.n
        vdt = shard.indices.dtype
        st = SSSPState()
        if xp is not np and self.kernels == "fused" and self.dist is None and n:  # one CUDA launch
            from ..backend import gpu_sssp  # noqa: PLC0415

            st.dist, st.hops, st.pending, st.frontier = gpu_sssp.init_state(n, self.source, vdt)
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
        # numba kernels on the numpy backend (the vectorized steps stay for CuPy and "generic")
        st.fused = self.kernels == "fused" and xp is np
        st.bd = st.bh = st.mark = st.touched = None
        # CUDA kernels on the CuPy backend (gpu_sssp): relax in place, parents by atomicMin
        st.gpu = self.kernels == "fused" and xp is not np
        st.skip = False  # GPU, one whole shard: skip stale frontier rows (gpu_sssp.skip_stale, read once a run)
        if st.gpu and shard.whole:
            from ..backend import gpu_sssp  # noqa: PLC0415

            st.skip = gpu_sssp.skip_stale()
        st.scratch = None
        st.snap = None  # GPU, one shard: (fd, fh, scanned, total, block starts or None) of the frontier
        st.steps = None  # GPU, one shard: the buffers of the many-supersteps launch (gpu_sssp_steps)
        st.steps_skip = False  # the launch stopped before a superstep it cannot take: the host's turn
        st.w64 = None if shard.weights is None else shard.weights.astype(np.float64, copy=False)
        return st

    def initial_report(self, shard, st):
        return {"frontier": 1, "far": 0, "bound": st.bound}

    def converged(self, report, step):
        return report.get("frontier", 0) == 0

    # -- one superstep: advance + relax ----------------------------------------------
    def superstep(self, shard, st, ctx):
        if st.fused:
            return _cpu_relax(shard, st)
        if st.gpu:
            return _gpu_relax(shard, st)
        xp = shard.xp
        rows, gids = _owned(shard, st.frontier)
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
        """The single whole shard on numpy: many supersteps per numba call
        (:func:`dgraph.backend.cpu_sssp.run_steps`, the same states and counters as superstep +
        receive).  The per-superstep times are the call's time shared out by arcs scanned."""
        from .. import startup  # noqa: PLC0415

        if st.gpu and shard.whole:
            return self._gpu_run_steps(shard, st, limit)
        if not st.fused or not shard.whole:
            return None
        from ..backend import cpu_sssp  # noqa: PLC0415
        from ..jit import num_threads  # noqa: PLC0415

        n = shard.n
        if st.bd is None:  # scratch, once per run (bd: the frontier's distance snapshot here)
            st.bd = np.empty(n, dtype=np.float64)
            st.bh = np.empty(n, dtype=np.int64)
            st.mark = np.zeros(n, dtype=bool)
            st.touched = np.empty(n, dtype=shard.indices.dtype)
        cap = 1024
        rec = (np.empty(cap, np.int64), np.empty(cap, np.int64), np.empty(cap, np.float64),
               np.empty(cap, np.int64), np.empty(cap, np.int64))
        front = np.empty(n, dtype=shard.indices.dtype)
        nf = len(st.frontier)
        front[:nf] = st.frontier
        pile = np.ascontiguousarray(st.pile, dtype=shard.indices.dtype)  # read, then reused for the result
        npile = len(pile)
        w, weighted = _kernel_weights(shard)
        T = num_threads() if shard.num_arcs >= PAR_MIN_ARCS else 1
        par = (np.empty(n + 1, np.int64), np.empty((T, n), np.float64), np.empty((T, n), np.int64),
               np.zeros((T, n), bool), np.empty((T, n), shard.indices.dtype), np.zeros(T, np.int64))
        out = []
        while nf and len(out) < limit:
            sw = startup.Stopwatch()
            steps, nf, pile, npile, st.bound = cpu_sssp.run_steps(
                shard.indptr, shard.indices, w, weighted, st.dist, st.hops, st.pending, front, nf, pile, npile,
                st.bound, self.delta, limit - len(out), st.bd, st.bh, st.mark, st.touched, *rec, PAR_MIN_ARCS,
                *par)
            spent = sw.lap()
            fr, far, bound, improved, edges = (a[:steps].tolist() for a in rec)
            weight = sum(edges) + steps
            for i in range(steps):
                out.append(({"frontier": fr[i], "far": far[i], "bound": bound[i], "improved": improved[i],
                             "edges": edges[i]}, spent * (edges[i] + 1) / weight))
                if ctx.tick is not None:
                    ctx.tick(*out[-1])
        st.frontier = front[:nf].copy()
        st.pile = pile[:npile].copy()
        return out

    # -- merge + filter into near / far ----------------------------------------------
    def receive(self, shard, st, contributions, ctx):
        xp = shard.xp
        if st.fused and len(contributions) == 1:
            return self._cpu_receive(st, contributions[0])
        if st.gpu and shard.whole:
            return self._gpu_receive(shard, st, contributions[0])
        if st.gpu and len(contributions) > 1:  # merged on the GPU into the state the relaxation left
            from ..backend import gpu_sssp  # noqa: PLC0415

            others = [tuple(to_backend(c.arrays[k], xp) for k in ("v", "d", "h"))
                      for i, c in enumerate(contributions) if i != shard.part]
            changed = gpu_sssp.merge(others, st.dist, st.hops, st.scratch).copy()
        elif len(contributions) == 1:
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

    def _cpu_receive(self, st, c):
        """receive() of a single contribution on the numpy backend: the same updates, in one numba pass."""
        from ..backend import cpu_sssp  # noqa: PLC0415

        v = c.arrays["v"]
        frontier, nfar = cpu_sssp.apply_split(v, c.arrays["d"], c.arrays["h"], st.dist, st.hops, st.bound,
                                              st.pending, st.touched)
        if nfar:
            st.pile = np.concatenate([st.pile, st.touched[:nfar]])
        if len(frontier) == 0 and len(st.pile):
            frontier = self._next_bucket(st)
        st.frontier = frontier
        return {"frontier": len(frontier), "far": len(st.pile), "bound": st.bound, "improved": len(v),
                "edges": int(c.counters["edges"])}

    def _gpu_run_steps(self, shard, st, limit):
        """run_steps of the single shard on CuPy: many supersteps in one cooperative launch
        (gpu_sssp_steps) where it can take them, else one host-driven superstep (superstep +
        receive) whose split, when another superstep may follow, launches the next relaxation
        before the host reads the counts (:func:`gpu_sssp.split`'s ``ahead``)."""
        import time  # noqa: PLC0415

        from ..backend import gpu_sssp_steps  # noqa: PLC0415

        if st.scratch is None or st.scratch.ahead is None:
            records = _gpu_launch_steps(shard, st, self.delta, limit)
            if records:
                return records
        t0 = time.perf_counter()
        c = _gpu_relax(shard, st)
        # ahead where the next superstep is likely the host's too: this one was too fat for the launch
        ahead = limit > 1 and not gpu_sssp_steps.takes(c.counters["edges"])
        report = self._gpu_receive(shard, st, c, ahead=ahead)
        return [(report, time.perf_counter() - t0)]

    def _gpu_receive(self, shard, st, c, ahead=False):
        """receive() of the single shard on CuPy: the same updates (relax already wrote dist/hops), the
        near/far split in one launch that also snapshots the next frontier for the relaxation;
        ``ahead``: the caller relaxes the next frontier next (see :func:`gpu_sssp.split`)."""
        from ..backend import gpu_sssp  # noqa: PLC0415

        edges = int(c.counters["edges"])
        improved, frontier, fd, fh, scanned, total, far, skipped, starts = gpu_sssp.split(
            st.dist, st.hops, st.bound, st.pending, shard.indptr, st.scratch, edges,
            ahead=(shard.indices, st.w64, st.skip) if ahead else None)
        if len(far):
            st.pile = shard.xp.concatenate([st.pile, far])
        st.snap = (fd, fh, scanned, total, starts)
        if len(frontier) == 0 and len(st.pile):
            frontier = self._next_bucket(st)
            st.snap = None
        st.frontier = frontier
        return {"frontier": len(frontier), "far": len(st.pile), "bound": st.bound, "improved": improved,
                "edges": edges, "skipped": skipped}

    def _next_bucket(self, st):
        """Near is empty: raise the bound past the closest far vertex; its bucket becomes the frontier."""
        from ..backend import cpu_sssp  # noqa: PLC0415

        xp = array_module(st.dist)
        pile = xp.unique(st.pile)
        pile = pile[st.pending[pile]]
        if len(pile) == 0:
            st.pile = pile
            return pile
        closest = float(st.dist[pile].min())
        st.bound = cpu_sssp.bound_above(closest, st.bound, self.delta)
        near = st.dist[pile] < st.bound
        frontier, st.pile = pile[near], pile[~near]
        st.pending[frontier] = False
        return frontier

    # -- parents, once, from the final distances ----------------------------------------
    def _candidates(self, shard, st):
        """(v, smallest u) over this shard's out-edges u -> v with dist[u] + w == dist[v]."""
        xp = shard.xp
        if st.fused or st.gpu:
            par = (_cpu_tight_parents if st.fused else _gpu_tight_parents)(shard, st, self.source)
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
        if shard.num_parts == 1 or not st.gpu:
            return None
        st.parents = _gpu_tight_parents(shard, st, self.source)
        return st.parents

    def final_receive(self, shard, st, contributions):
        xp = shard.xp
        st.parents = xp.full(shard.n, st.big, dtype=shard.indices.dtype)
        for c in contributions:
            scatter_min(st.parents, to_backend(c.arrays["v"], xp),
                        to_backend(c.arrays["u"], xp).astype(st.parents.dtype, copy=False))

    def finish(self, shard, st):
        xp = shard.xp
        if st.parents is None:  # one shard: every edge is here
            if st.fused or st.gpu:
                st.parents = (_cpu_tight_parents if st.fused else _gpu_tight_parents)(shard, st, self.source)
            else:
                st.parents = xp.full(shard.n, st.big, dtype=shard.indices.dtype)
                v, u = self._candidates(shard, st)
                st.parents[v] = u
        parents = st.parents
        if st.gpu and shard.whole:
            from ..backend import gpu_sssp  # noqa: PLC0415

            return {"distance": st.dist, "parent": gpu_sssp.finish_parents(parents, st.big, self.source)}
        parents[self.source] = self.source
        if shard.num_parts == 1 and shard.num_rows == shard.n:
            dist, par = st.dist, parents
        else:
            owned = shard.global_rows()
            dist, par = st.dist[owned], parents[owned]
        par = xp.where(par == st.big, -1, par)
        return {"distance": dist, "parent": par}


# -- the fused CPU steps (numba; the vectorized code above is their reference) ------------

def _kernel_weights(shard):
    if shard.weights is None:
        return np.empty(0, dtype=np.float64), False
    return shard.weights, True


def _cpu_relax(shard, st):
    """SSSP.superstep on the numpy backend, as one numba pass (same contribution, bit for bit)."""
    from ..backend import cpu_sssp  # noqa: PLC0415

    n = shard.n
    if st.bd is None:  # scratch, once per run
        st.bd = np.empty(n, dtype=np.float64)
        st.bh = np.empty(n, dtype=np.int64)
        st.mark = np.zeros(n, dtype=bool)
        st.touched = np.empty(n, dtype=shard.indices.dtype)
    rows, gids = _owned(shard, st.frontier)
    w, weighted = _kernel_weights(shard)
    v, d, h, edges = cpu_sssp.relax(shard.indptr, shard.indices, w, weighted, rows, gids, st.dist, st.hops,
                                    st.bd, st.bh, st.mark, st.touched)
    return Contribution({"v": v, "d": d, "h": h}, {"edges": int(edges)})


def _cpu_tight_parents(shard, st, source):
    """The smallest tight, one-hop-closer in-neighbor per vertex over this shard's out-edges
    (st.big where none), as SSSP._candidates finds them."""
    from ..backend import cpu_sssp  # noqa: PLC0415

    par = np.full(shard.n, st.big, dtype=shard.indices.dtype)
    w, weighted = _kernel_weights(shard)
    if shard.whole and not shard.directed:
        return cpu_sssp.tight_parents_pull(shard.indptr, shard.indices, w, weighted, st.dist, st.hops, source, par)
    cpu_sssp.tight_parents(shard.indptr, shard.indices, w, weighted, shard.row_base, shard.rows, st.dist,
                           st.hops, source, par)
    return par


# -- the CUDA steps (CuPy; the same states as the vectorized code) --------------------------

def _gpu_relax(shard, st):
    """SSSP.superstep on CuPy: relax in place (gpu_sssp), contribute what changed."""
    from ..backend import gpu_sssp  # noqa: PLC0415

    if st.scratch is None:
        st.scratch = gpu_sssp.Scratch(shard.n, len(shard.indices), shard.indices.dtype)
    rows, gids = _owned(shard, st.frontier)
    starts = None
    if st.snap is not None:  # the single shard's last split (or launch) left the frontier's snapshot
        fd, fh, scanned, total, starts = st.snap
        st.snap = None
    else:
        fd, fh = st.dist[gids], st.hops[gids]
        scanned, total = gpu_sssp.frontier_scan(shard.indptr, rows)
    gpu_sssp.relax(shard.indptr, shard.indices, st.w64, rows, fd, fh, scanned, total, st.dist, st.hops, st.scratch,
                   skip=st.skip, starts=starts)
    if shard.whole:  # received at once by this shard (_gpu_receive): dist/hops are already written
        return Contribution({}, {"edges": int(total)})
    changed = gpu_sssp.changed(st.scratch).copy()  # the queue is scratch: reused by the next superstep
    return Contribution({"v": changed, "d": st.dist[changed], "h": st.hops[changed]}, {"edges": int(total)})


def _gpu_launch_steps(shard, st, delta, limit):
    """Supersteps of one whole shard on CuPy in one cooperative launch (gpu_sssp_steps), the same
    states and records as superstep + receive; None when the launch cannot take the next
    superstep (the host-driven kernels do it)."""
    from ..backend import gpu_sssp, gpu_sssp_steps  # noqa: PLC0415

    if not gpu_sssp_steps.enabled() or st.steps_skip or not gpu_sssp_steps.worth_a_launch(st.snap):
        st.steps_skip = False
        return None
    if st.scratch is None:
        st.scratch = gpu_sssp.Scratch(shard.n, len(shard.indices), shard.indices.dtype)
    if st.steps is None:
        st.steps = gpu_sssp_steps.StepBuffers(shard.n, shard.indices.dtype)
    frontier = st.frontier.astype(shard.indices.dtype, copy=False)
    out = gpu_sssp_steps.run(shard.indptr, shard.indices, st.w64, st.dist, st.hops, st.pending, frontier,
                             st.pile, st.bound, delta, limit, st.scratch, st.steps, skip=st.skip)
    if out is None or out["steps"] == 0:
        return None
    st.frontier, st.snap, st.pile, st.bound = out["frontier"], out["snap"], out["pile"], out["bound"]
    if out["stop"] in ("ties", "pile", "edges"):  # the next superstep is the host's: no empty launch first
        st.steps_skip = True
    return out["records"]


def _gpu_tight_parents(shard, st, source):
    from ..backend import gpu_sssp  # noqa: PLC0415

    xp = shard.xp
    par = xp.full(shard.n, st.big, dtype=shard.indices.dtype)
    return gpu_sssp.tight_parents(shard.indptr, shard.indices, st.w64, shard.row_base, shard.rows, st.dist,
                                  st.hops, source, par)


# -- helpers ------------------------------------------------------------------------------


def _owned(shard, frontier):
    """(local rows, global ids) of the frontier vertices this shard owns."""
    if shard.num_parts == 1 and shard.contiguous and shard.row_base == 0:
        return frontier, frontier
    if shard.contiguous:
        lo, hi = shard.row_base, shard.row_base + shard.num_rows
        g = frontier[(frontier >= lo) & (frontier < hi)]
        return (g - lo).astype(shard.indices.dtype, copy=False), g
    rows = shard.local_rows(frontier)
    return rows, shard.rows[rows]


def _weights(shard, eid):
    """Weights of the given CSR positions (all when None) as float64; 1 for an unweighted graph."""
    if shard.weights is None:
        return 1.0
    w = shard.weights if eid is None else shard.weights[eid]
    return w.astype(np.float64, copy=False)



def weight_summary(shard):
    """(arcs, weight sum, first negative arc as (src, dst, weight) in internal ids, or None)."""
    xp = shard.xp
    m = shard.num_arcs
    if shard.weights is None:
        return m, float(m), None
    w = shard.weights
    with np.errstate(over="ignore"):  # a sum past float64's range is inf (auto_delta then takes 1)
        total = float(w.astype(np.float64, copy=False).sum()) if m else 0.0
    low = float(w.min()) if m else 0.0  # one reduction; the mask below only when it can find something
    if not low < 0 and not math.isnan(low):
        return m, total, None
    neg = xp.flatnonzero(w < 0)
    if len(neg) == 0:
        return m, total, None
    local = xp.searchsorted(shard.indptr, neg, side="right") - 1
    src = (local + shard.row_base) if shard.contiguous else shard.rows[local]
    src = src.astype(np.int64)
    dst = shard.indices[neg].astype(np.int64)
    i = int(xp.argmin(src * max(shard.n, 1) + dst))
    return m, total, (int(src[i]), int(dst[i]), w[neg[i]].item())


def _graph_summary(G):
    """weight_summary over a Graph or a PartitionedGraph (a tiny task per shard when distributed);
    kept on the graph, whose arrays do not change (like its CSC): two reductions and their reads
    over every weight were 0.2-0.3 ms of each GPU run on rmat20."""
    cache = getattr(G, "__dict__", None)
    if cache is None:
        return _summarize(G)
    if "_sssp_weight_summary" not in cache:
        cache["_sssp_weight_summary"] = _summarize(G)
    return cache["_sssp_weight_summary"]


def _summarize(G):
    from ..graph import Graph  # noqa: PLC0415
    from ..partition.partitioned import PartitionedGraph  # noqa: PLC0415
    from ..partition.shard import whole_graph_shard  # noqa: PLC0415

    if isinstance(G, Graph):
        parts = [weight_summary(whole_graph_shard(G))] if G.num_vertices else [(0, 0.0, None)]
    elif isinstance(G, PartitionedGraph):
        if G.distributed:
            G.ensure_shards()
            parts = G.client.gather([G.client.submit(weight_summary, f, pure=False, workers=[G.workers[q]])
                                     for q, f in enumerate(G.shards)])
        else:
            parts = [weight_summary(s) for s in G.shards]
    else:
        return None
    m = sum(p[0] for p in parts)
    total = sum(p[1] for p in parts)
    negs = [p[2] for p in parts if p[2] is not None]
    return m, total, (min(negs) if negs else None), G.num_vertices


def auto_delta(num_arcs, weight_sum, num_vertices, factor=DELTA_FACTOR, power=1):
    """Davidson et al.'s near/far delta, 32 * mean weight / mean out-degree, to the nearest power of
    two (1 when there are no edges or only zero weights); ``factor`` replaces the 32 (CuPy: 256),
    ``power`` is that of the mean degree (a whole graph on numpy: 8 * w / d ** 2).

    The power of two keeps every bucket bound ``k * delta`` exact, and makes the value independent of
    the order the weights were summed in (one sum per shard, then added up), so every partitioning
    of a graph reports the same delta and the same supersteps (a whole numpy Graph takes the
    small-bucket rule instead: pass ``delta=`` to compare it superstep by superstep).
    """
    if num_arcs == 0 or not weight_sum > 0:
        return 1.0
    mean_weight = weight_sum / num_arcs
    mean_degree = num_arcs / max(num_vertices, 1)
    raw = factor * mean_weight / mean_degree ** power
    if not math.isfinite(raw) or raw <= 0:
        return 1.0
    return math.ldexp(1.0, round(math.log2(raw)))


def _check_delta(delta):
    if delta is None:
        return None
    if isinstance(delta, bool) or not isinstance(delta, numbers.Real) or not float(delta) > 0:
        raise InputError(f"delta={delta!r}: expected a number > 0 (the width of a near/far bucket), or None")
    return float(delta)


def sssp(G, source, *, delta=None, backend=None, executor=None, exchange="butterfly", fanout=None,
         transport="auto", kernels="fused", on_step=None, progress=False):
    """Shortest path distances from ``source`` (a user vertex id), by near/far delta-stepping.

    Returns a :class:`~dgraph.engine.result.Result` with columns ``distance``
    (float64, the sum of weights along a shortest path; inf when unreachable)
    and ``parent`` (the smallest-id ``u`` with an edge ``u -> v`` and
    ``distance[u] + w(u, v) == distance[v]`` on a shortest path with the fewest
    edges, i.e. ``u`` one edge closer to the source; the source is its own parent;
    -1 when unreachable), in the user's vertex ids.  An unweighted graph has
    weight 1 on every edge.  Weights must be non-negative: a negative one
    raises :class:`~dgraph.errors.InputError` naming the edge, before any work.

    delta : the width of a near/far bucket, > 0 (inf: Bellman-Ford, no
        priority queue).  None: ``32 * mean weight / mean out-degree`` to the
        nearest power of two (Davidson et al.'s heuristic, as in Gunrock;
        1 without positive weights), with 256 in place of 32 on CuPy, where
        supersteps cost more than relaxations, and ``8 * mean weight / mean
        out-degree ** 2`` for a whole Graph on numpy, where they cost
        microseconds; the value used is in
        ``result.params['delta']``.  Every delta gives the same result.
    kernels : 'fused' (each superstep's relaxation and the final parent
        search run as compiled kernels: numba on numpy,
        :mod:`dgraph.backend.cpu_sssp`; CUDA on CuPy, :mod:`dgraph.backend.gpu_sssp`)
        or 'generic' (the vectorized numpy/CuPy steps, the reference the
        kernels are tested against).  All give the same bits.
    Other keywords as in :func:`dgraph.bfs`.
    """
    from ..engine.run import run_program  # noqa: PLC0415

    if kernels not in ("fused", "generic"):
        raise InputError(f"kernels={kernels!r}: expected 'fused' or 'generic'")
    delta = _check_delta(delta)
    summary = _graph_summary(G)
    if summary is not None:
        m, total, neg, n = summary
        if neg is not None:
            u, v, w = neg
            ids = G.ids
            uu, vv = (x.item() if hasattr(x, "item") else x for x in ids.to_user(np.array([u, v])))
            raise InputError(f"weights: edge {uu!r} -> {vv!r} has weight {w!r}; "
                             f"sssp needs non-negative weights")
        if delta is None:
            on_gpu = (backend or getattr(G, "backend", "numpy")) == "cupy"
            from ..graph import Graph  # noqa: PLC0415

            if on_gpu:
                delta = auto_delta(m, total, n, GPU_DELTA_FACTOR)
            elif isinstance(G, Graph):  # one whole numpy shard: supersteps in numba, small buckets pay
                delta = auto_delta(m, total, n, CPU_DELTA_FACTOR, CPU_DELTA_POWER)
            else:
                delta = auto_delta(m, total, n, DELTA_FACTOR)

    def run(width, dist=None):
        def make(ids):
            return SSSP(ids.to_internal(source, what="source"), width, kernels=kernels, dist=dist)

        return run_program(make, G, backend=backend, executor=executor, exchange=exchange, fanout=fanout,
                           transport=transport, on_step=on_step, progress=progress, vertex_columns=("parent",),
                           missing={"distance": math.inf, "parent": -1},
                           params={"source": source, "delta": delta})

    r = run(1.0 if delta is None else delta)
    if getattr(G, "weighted", True):  # unit weights: whole distances, exact, so no rounded tie (_hop_pass)
        r.amend(lambda cols: _hop_pass(r, cols, run))
    return r


def _orphans(cols):
    """Reached vertices without a parent (none when the hop counts are consistent)."""
    d, par = cols["distance"], cols["parent"]
    if array_module(d) is not np:  # one launch (the three of the expression below cost ~0.2 ms of host time)
        from ..backend import gpu_sssp  # noqa: PLC0415

        return gpu_sssp.orphans(d, par)
    return int(np.count_nonzero((d < np.inf) & (par < 0)))


def _hop_pass(r, cols, run):
    """The hop counts of the relaxation are the (distance, hops) minimum over every candidate it
    made, and a candidate made from a distance that later dropped can tie the final distance after
    rounding (``fl(d_old + w) == fl(d_new + w)`` for a weight far larger than both) with fewer hops
    than any path the final distances allow: that vertex then has no parent one hop closer.  When
    any reached vertex has no parent, a second run from the source with the final distances fixed
    and delta = inf (a breadth-first search over the tight edges, level by level) recomputes every
    hop count, and so every parent, from the final distances alone.  Its supersteps are added to
    ``r.stats`` (``phase`` "hop pass", numbered on from the first run's) and its time to
    ``r.run_time``; ``r.params['hop_pass']`` counts them.  On a Dask result the check runs when the
    columns are first fetched, so its supersteps appear in the stats from then on."""
    if not _orphans(cols):
        return cols
    again = run(math.inf, to_numpy(cols["distance"]))
    r.params["hop_pass"] = again.supersteps
    return r.absorb(again, "hop pass")


__all__ = ["sssp", "SSSP", "auto_delta"]
