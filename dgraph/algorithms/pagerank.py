"""PageRank (and personalized PageRank) with the Graphalytics dangling-vertex rule.

    PR(v) = (1 - d) * t(v) + d * ( sum over in-edges u->v of PR(u) / outdeg(u)  +  D * t(v) )

where ``D`` is the rank held by dangling vertices (no out-edges) and ``t``
the teleport distribution: uniform (Graphalytics) or a personalization
vector (PPR, as NetworkX: dangling mass follows the personalization too).
For an undirected graph in-edges are the edges.  fp64 throughout.

Pull variant (default): every shard computes the new rank of the vertices
it owns by a deterministic gather-sum over their in-edges (a compiled
kernel per backend), then the owned slices are all-gathered into the rank
array every shard keeps.  Each vertex's sum runs in the same order whatever
the partitioning, so every executor and partition count gives the same
bits on the CPU.  Push variant: every shard scatters rank / outdeg along
the out-edges of the vertices it owns into a partial sum over all
vertices, and the partial sums are added up (the exchange delivers each
shard's contribution exactly once, so nothing is counted twice).

On CuPy shards of a partitioned graph (pull) each shard updates the ranks
of the vertices it owns before the exchange, which carries their shares
and two partial sums (dangling mass, L1 change); the partial sums are
added in partition order, so the ranks equal one GPU's to about 1e-15
relative, not bit for bit (every executor gives the same bits for the same
partitioning).

Stops after ``iterations`` when given (Graphalytics: a fixed count),
otherwise when the L1 change falls below ``tol * n`` (NetworkX's test) or
after ``max_iterations``.
"""

from __future__ import annotations

import numpy as np

from ..backend import to_backend
from ..backend.primitives import gather_row_sum, row_ids, row_sum_plan, scatter_add
from ..engine.program import Contribution, Program
from ..errors import InputError


class PageRank(Program):
    name = "pagerank"
    replicated_result = True

    def __init__(self, damping, iterations, tol, max_iterations, teleport=None, variant="pull"):
        self.d = float(damping)
        self.iterations = iterations
        self.tol, self.max_iterations = tol, max_iterations
        self.teleport = teleport          # numpy vector summing to 1, or None (uniform)
        self.variant = variant

    def init(self, shard):
        xp = shard.xp
        n = shard.n
        st = {"rank": xp.full(n, 1.0 / n if n else 0.0, dtype=np.float64)}
        deg = shard.degree.astype(np.float64)
        st["inv_deg"] = xp.where(deg > 0, 1.0 / xp.maximum(deg, 1.0), 0.0)
        st["dangling"] = xp.flatnonzero(shard.degree == 0) if xp is np else None  # CuPy: inv_deg == 0
        st["plan"] = row_sum_plan(shard.csc(edge_ids=False)[0]) if self.variant == "pull" else None
        st["teleport"] = None if self.teleport is None else xp.asarray(self.teleport, dtype=np.float64)
        st["mass"] = None  # CuPy: (rank vector, its dangling mass), summed with its change by _update
        if self._owned_update(shard):
            from ..backend import gpu_pagerank  # noqa: PLC0415

            own = shard.global_rows()
            st["share"] = st["rank"] * st["inv_deg"]
            st["rank_own"], st["spare_own"] = st["rank"][own], xp.empty(shard.num_rows, dtype=np.float64)
            st["inv_own"] = st["inv_deg"][own]
            st["teleport_own"] = None if st["teleport"] is None else st["teleport"][own]
            st["mass"] = gpu_pagerank.sums(st["rank"], st["inv_deg"])[0]
            st["rank"] = None  # only the owned ranks are kept; the whole vector is gathered at the end
        return st

    def _owned_update(self, shard):
        """CuPy shards of a partitioned graph, pull: each shard computes its owned vertices' new ranks
        and shares before the exchange, which then carries the shares (the next iteration's input) and
        two partial sums; the whole rank vector is gathered once, at the end.  Where every shard
        rebuilt the whole rank vector each superstep (four passes over n), 2 GPUs lost 2 ms a
        superstep of 22.8 at rmat26 to it."""
        return shard.xp is not np and shard.num_parts > 1 and self.variant == "pull"

    def initial_report(self, shard, st):
        return {"delta": float("inf")}

    def converged(self, report, step):
        if self.iterations is not None:
            return step >= self.iterations
        n = report.get("n", 1)
        return step >= self.max_iterations or report["delta"] < self.tol * max(n, 1)

    def _base(self, shard, st):
        """(1-d) t + d D t: the part of every new rank that does not come from in-edges (a 0-d
        array, so a GPU never waits for the dangling mass; on CuPy added in gpu_pagerank's fixed
        order, the fused iterations' own)."""
        if shard.xp is np:
            dangling_mass = st["rank"][st["dangling"]].sum()
        elif st["mass"] is not None and st["mass"][0] is st["rank"]:  # the last _update's sum
            dangling_mass = st["mass"][1]
        else:
            from ..backend import gpu_pagerank  # noqa: PLC0415

            dangling_mass = gpu_pagerank.sums(st["rank"], st["inv_deg"])[0]
        if st["teleport"] is None:
            return ((1.0 - self.d) + self.d * dangling_mass) / max(shard.n, 1)
        return ((1.0 - self.d) + self.d * dangling_mass) * st["teleport"]

    def superstep(self, shard, st, ctx):
        xp = shard.xp
        if self._owned_update(shard):
            from ..backend import gpu_pagerank  # noqa: PLC0415

            cindptr, cindices, _ = shard.csc(edge_ids=False)
            share = xp.empty(shard.num_rows, dtype=np.float64)  # fresh: an executor may still read the last one
            sums = gpu_pagerank.owned_update(cindptr, cindices, st["share"], st["plan"], st["rank_own"],
                                             st["inv_own"], st["mass"], st["teleport_own"], self.d, shard.n,
                                             st["spare_own"], share)
            st["rank_own"], st["spare_own"] = st["spare_own"], st["rank_own"]
            return Contribution({"share": share, "sums": sums}, {})
        share = st["rank"] * st["inv_deg"]
        if self.variant == "pull":
            cindptr, cindices, _ = shard.csc(edge_ids=False)
            sums = gather_row_sum(cindptr, cindices, share, plan=st["plan"])
            return Contribution({"sums": sums}, {})
        # push: scatter along the out-edges of the owned vertices into a partial sum over all vertices
        partial = xp.zeros(shard.n, dtype=np.float64)
        src = shard.global_rows()[row_ids(shard.indptr)]
        scatter_add(partial, shard.indices, share[src])
        return Contribution({"partial": partial}, {})

    def receive(self, shard, st, contributions, ctx):
        if self._owned_update(shard):
            import cupy as cp  # noqa: PLC0415

            shard.gather_owned(st["share"], contributions, "share")
            parts = cp.stack([to_backend(c.arrays["sums"], cp) for c in contributions]).get()
            mass, change = 0.0, 0.0
            for m, c in parts:  # in partition order: the same sums on every shard
                mass += float(m)
                change += float(c)
            st["mass"] = cp.full(1, mass, dtype=np.float64)
            return {"delta": change, "n": shard.n}
        return {"delta": float(self._update(shard, st, contributions)), "n": shard.n}

    def _update(self, shard, st, contributions):
        """The new ranks from every shard's contribution; -> their L1 change (a 0-d array)."""
        xp = shard.xp
        base = self._base(shard, st)
        old = st["rank"]
        if self.variant == "pull":
            sums = shard.gather_owned(xp.empty(shard.n, dtype=np.float64), contributions, "sums")
        else:
            sums = xp.zeros(shard.n, dtype=np.float64)
            for c in contributions:  # in partition order: the same sum on every shard
                sums += to_backend(c.arrays["partial"], xp)
        new = base + self.d * sums
        st["rank"] = new
        if xp is np:
            return xp.abs(new - old).sum()
        from ..backend import gpu_pagerank  # noqa: PLC0415

        mass, change = gpu_pagerank.sums(new, st["inv_deg"], old)
        st["mass"] = (new, mass)  # the next _base's dangling mass, already summed
        return change

    def run_steps(self, shard, st, ctx, limit):
        """A fixed iteration count on one GPU shard: every iteration queued on the device at once
        (pull: four kernels an iteration, gpu_pagerank), the L1 changes and per-iteration times (CUDA
        events) read back once at the end.  On numpy (one whole shard, pull): every iteration as one
        fused numba pass over the CPU's threads."""
        if shard.xp is np:
            return self._cpu_steps(shard, st, ctx, limit)
        if shard.num_parts != 1 or self.iterations is None:
            return None
        k = min(limit, self.iterations - ctx.step)
        if k < 2:
            return None
        import cupy as cp  # noqa: PLC0415

        from ..backend.gpu_pagerank import FusedIterations  # noqa: PLC0415

        fused = None
        if self.variant == "pull":
            cindptr, cindices, _ = shard.csc(edge_ids=False)
            fused = FusedIterations(cindptr, cindices, st["rank"], st["inv_deg"], st["teleport"], self.d,
                                    st["plan"])
        marks = [cp.cuda.Event() for _ in range(k + 1)]
        marks[0].record()
        deltas = []
        for i in range(k):
            if fused is not None:
                deltas.append(fused.step())
            else:
                deltas.append(self._update(shard, st, [self.superstep(shard, st, ctx)]))
            marks[i + 1].record()
        if fused is not None:
            st["rank"] = fused.rank
        marks[-1].synchronize()
        deltas = cp.stack(deltas).get()
        return [({"delta": float(deltas[i]), "n": shard.n}, cp.cuda.get_elapsed_time(marks[i], marks[i + 1]) * 1e-3)
                for i in range(k)]

    def _cpu_steps(self, shard, st, ctx, limit):
        """Iterations until converged() on one whole numpy shard, pull variant: each one a
        :func:`~dgraph.backend.cpu_kernels.pagerank_step` (the in-edge sums, the new ranks, their
        change and the next shares in one pass); the dangling mass and the L1 change are still numpy
        sums, so the ranks and the reports are the superstep path's bits."""
        from .. import startup  # noqa: PLC0415

        if self.variant != "pull" or not shard.whole or shard.n == 0:
            return None
        from ..backend import cpu_kernels  # noqa: PLC0415

        n = shard.n
        cindptr, cindices, _ = shard.csc(edge_ids=False)
        inv_deg = st["inv_deg"]
        share = st["rank"] * inv_deg
        nxt = np.empty(n, dtype=np.float64)
        diff = np.empty(n, dtype=np.float64)
        vec = st["teleport"] is not None
        spare = np.empty(n, dtype=np.float64)  # ranks ping-pong between two buffers after the first
        out = []
        step = ctx.step
        report = ctx.report
        while len(out) < limit and not self.converged(report, step):
            sw = startup.Stopwatch()
            base = np.atleast_1d(np.asarray(self._base(shard, st), dtype=np.float64))
            old = st["rank"]
            new = spare
            cpu_kernels.pagerank_step(cindptr, cindices, share, base, vec, self.d, inv_deg, old, new, diff, nxt)
            st["rank"], spare = new, old
            share, nxt = nxt, share
            report = {"delta": float(diff.sum()), "n": n}
            out.append((report, sw.lap()))
            if ctx.tick is not None:
                ctx.tick(*out[-1])
            step += 1
        return out

    def final_contribution(self, shard, st):
        """The owned ranks, when only they were kept (see :meth:`_owned_update`)."""
        return Contribution({"rank": st["rank_own"]}, {}) if self._owned_update(shard) else None

    def final_receive(self, shard, st, contributions):
        st["rank"] = shard.gather_owned(shard.xp.empty(shard.n, dtype=np.float64), contributions, "rank")

    def finish(self, shard, st):
        return {"pagerank": st["rank"]}


def _teleport(ids, n, personalization):
    if personalization is None:
        return None
    vec = np.zeros(n, dtype=np.float64)
    if isinstance(personalization, dict):
        if not personalization:
            raise InputError("personalization: an empty dict; give at least one vertex a positive weight")
        idx = ids.to_internal(list(personalization.keys()), what="personalization vertex")
        vec[idx] = np.asarray(list(personalization.values()), dtype=np.float64)
    else:
        arr = np.asarray(personalization, dtype=np.float64)
        if arr.shape != (n,):
            raise InputError(f"personalization: expected a dict {{vertex: weight}} or {n} values, got shape {arr.shape}")
        vec = arr.copy()
    if not np.all(np.isfinite(vec)) or (vec < 0).any() or vec.sum() <= 0:
        raise InputError("personalization: weights must be finite, non-negative, and not all zero")
    return vec / vec.sum()


def pagerank(G, *, damping=0.85, iterations=None, tol=1e-6, max_iterations=100, personalization=None,
             variant="pull", backend=None, executor=None, exchange="butterfly", fanout=None, transport="auto",
             on_step=None, progress=False):
    """PageRank of every vertex (column ``pagerank``), fp64, summing to 1.

    damping : the probability of following an edge (0.85).
    iterations : a fixed number of iterations (Graphalytics); None iterates
        until the L1 change is below ``tol * n`` or ``max_iterations``.
    personalization : {vertex: weight} or an array over the vertices (PPR).
    variant : 'pull' (gather over in-edges, default) or 'push' (scatter over out-edges).
    Other keywords as in :func:`dgraph.bfs`.
    """
    from ..engine.run import run_program  # noqa: PLC0415

    if not (0.0 <= float(damping) <= 1.0):
        raise InputError(f"damping={damping!r}: expected a number in [0, 1]")
    if iterations is not None and (not isinstance(iterations, (int, np.integer)) or iterations < 0):
        raise InputError(f"iterations={iterations!r}: expected a non-negative integer or None")
    if variant not in ("pull", "push"):
        raise InputError(f"variant={variant!r}: expected 'pull' or 'push'")
    if tol <= 0 or max_iterations < 0:
        raise InputError("tol must be > 0 and max_iterations >= 0")

    def make(ids):
        return PageRank(damping, iterations, tol, max_iterations, _teleport(ids, ids.n, personalization), variant)

    return run_program(make, G, backend=backend, executor=executor, exchange=exchange, fanout=fanout,
                       transport=transport, on_step=on_step, progress=progress,
                       params={"damping": damping, "iterations": iterations, "variant": variant})
