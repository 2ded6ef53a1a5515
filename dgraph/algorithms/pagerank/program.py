"""The PageRank Program (and personalized PageRank), with the Graphalytics dangling-vertex rule.

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

Which code runs is decided once, by :func:`implementation`, and the Program
dispatches on that name: the array code above on numpy (row sums in numba)
or CuPy (sums in :mod:`.gpu`'s fixed order), the owned update on CuPy shards
of a partitioned graph, and the whole-graph loops of :mod:`.solver` (numba
on one CPU shard, fused iterations on one GPU).
"""

from __future__ import annotations

import numpy as np

from ...backend import to_backend
from ...backend.primitives import gather_row_sum, row_ids, row_sum_plan, scatter_add
from ...engine.program import Contribution, Program

#: what :func:`implementation` may choose, and what each runs
IMPLEMENTATIONS = {
    "cpu-fused": "numpy, pull, one whole shard: every iteration one threaded numba pass (solver.cpu_steps)",
    "cpu-pull": "numpy, pull, partitioned: a superstep's in-edge sums in numba, the update in numpy",
    "cpu-push": "numpy, push: scatter-add along the out-edges, partial sums added in partition order",
    "gpu-fused": "CuPy, pull, one shard, a fixed count: four kernels an iteration, queued at once (solver.gpu_steps)",
    "gpu-pull": "CuPy, pull, one shard, until converged: a superstep at a time, row sums and gpu.sums",
    "gpu-owned": "CuPy, pull, partitioned: each shard updates its owned ranks before the exchange (gpu.owned_update)",
    "gpu-push+batched": "CuPy, push, one shard, a fixed count: the push supersteps queued at once (solver.gpu_steps)",
    "gpu-push": "CuPy, push: scatter-add along the out-edges, a superstep at a time",
}


def implementation(backend, num_parts, whole, variant, iterations, local=True):
    """The name of the code that runs a PageRank (a key of :data:`IMPLEMENTATIONS`), decided once a run.

    ``backend``: 'numpy' or 'cupy'; ``num_parts``: the partitions; ``whole``: one shard holding every
    vertex as its rows in order (:attr:`dgraph.partition.shard.Shard.whole`); ``variant``: 'pull' or
    'push'; ``iterations``: a fixed count, or None (until converged); ``local``: the ``local``
    executor runs it (only it runs the one-shard loops of :mod:`.solver`).

    >>> implementation("numpy", 1, True, "pull", None)
    'cpu-fused'
    >>> implementation("cupy", 4, False, "pull", 20)
    'gpu-owned'
    """
    loops = local and num_parts == 1  # the executor hands the run to Program.run_steps
    if backend == "numpy":
        return "cpu-fused" if variant == "pull" and whole and loops else f"cpu-{variant}"
    if variant == "pull":
        if num_parts > 1:  # each shard's owned ranks updated before the exchange (see PageRank.init)
            return "gpu-owned"
        return "gpu-fused" if loops and iterations is not None else "gpu-pull"
    return "gpu-push+batched" if loops and iterations is not None else "gpu-push"


class PageRank(Program):
    """The PageRank Program (see :mod:`dgraph.engine.program`); ``implementation``: a key of
    :data:`IMPLEMENTATIONS`, or None to decide it from the first shard (as if on the local executor)."""

    name = "pagerank"
    replicated_result = True

    def __init__(self, damping, iterations, tol, max_iterations, teleport=None, variant="pull", implementation=None):
        self.d = float(damping)
        self.iterations = iterations
        self.tol, self.max_iterations = tol, max_iterations
        self.teleport = teleport          # numpy vector summing to 1, or None (uniform)
        self.variant = variant
        self.implementation = implementation

    def init(self, shard):
        xp = shard.xp
        n = shard.n
        impl = self.implementation or implementation(shard.backend, shard.num_parts, shard.whole, self.variant,
                                                     self.iterations)
        st = {"impl": impl, "rank": xp.full(n, 1.0 / n if n else 0.0, dtype=np.float64)}
        deg = shard.degree.astype(np.float64)
        st["inv_deg"] = xp.where(deg > 0, 1.0 / xp.maximum(deg, 1.0), 0.0)
        st["dangling"] = xp.flatnonzero(shard.degree == 0) if _on_cpu(st) else None  # CuPy: inv_deg == 0
        st["plan"] = row_sum_plan(shard.csc(edge_ids=False)[0]) if self.variant == "pull" else None
        st["teleport"] = None if self.teleport is None else xp.asarray(self.teleport, dtype=np.float64)
        st["mass"] = None  # CuPy: (rank vector, its dangling mass), summed with its change by _update
        if impl == "gpu-owned":
            # each shard computes its owned vertices' new ranks and shares before the exchange, which
            # then carries the shares (the next iteration's input) and two partial sums; the whole
            # rank vector is gathered once, at the end.  Where every shard rebuilt the whole rank
            # vector each superstep (four passes over n), 2 GPUs lost 2 ms a superstep of 22.8 at
            # rmat26 to it.
            from . import gpu  # noqa: PLC0415

            own = shard.global_rows()
            st["share"] = st["rank"] * st["inv_deg"]
            st["rank_own"], st["spare_own"] = st["rank"][own], xp.empty(shard.num_rows, dtype=np.float64)
            st["inv_own"] = st["inv_deg"][own]
            st["teleport_own"] = None if st["teleport"] is None else st["teleport"][own]
            st["mass"] = gpu.sums(st["rank"], st["inv_deg"])[0]
            st["rank"] = None  # only the owned ranks are kept; the whole vector is gathered at the end
        return st

    def initial_report(self, shard, st):
        return {"delta": float("inf")}

    def converged(self, report, step):
        if self.iterations is not None:
            return step >= self.iterations
        n = report.get("n", 1)
        return step >= self.max_iterations or report["delta"] < self.tol * max(n, 1)

    def _base(self, shard, st):
        """(1-d) t + d D t: the part of every new rank that does not come from in-edges (a 0-d
        array, so a GPU never waits for the dangling mass; on CuPy added in :mod:`.gpu`'s fixed
        order, the fused iterations' own)."""
        if _on_cpu(st):
            dangling_mass = st["rank"][st["dangling"]].sum()
        elif st["mass"] is not None and st["mass"][0] is st["rank"]:  # the last _update's sum
            dangling_mass = st["mass"][1]
        else:
            from . import gpu  # noqa: PLC0415

            dangling_mass = gpu.sums(st["rank"], st["inv_deg"])[0]
        if st["teleport"] is None:
            return ((1.0 - self.d) + self.d * dangling_mass) / max(shard.n, 1)
        return ((1.0 - self.d) + self.d * dangling_mass) * st["teleport"]

    def superstep(self, shard, st, ctx):
        xp = shard.xp
        if st["impl"] == "gpu-owned":
            from . import gpu  # noqa: PLC0415

            cindptr, cindices, _ = shard.csc(edge_ids=False)
            share = xp.empty(shard.num_rows, dtype=np.float64)  # fresh: an executor may still read the last one
            sums = gpu.owned_update(cindptr, cindices, st["share"], st["plan"], st["rank_own"],
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
        if st["impl"] == "gpu-owned":
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
        if _on_cpu(st):
            return xp.abs(new - old).sum()
        from . import gpu  # noqa: PLC0415

        mass, change = gpu.sums(new, st["inv_deg"], old)
        st["mass"] = (new, mass)  # the next _base's dangling mass, already summed
        return change

    def run_steps(self, shard, st, ctx, limit):
        """The whole-graph loops of :mod:`.solver` ('cpu-fused', 'gpu-fused', 'gpu-push+batched');
        None (a superstep at a time) for the other implementations."""
        from . import solver  # noqa: PLC0415

        return solver.run_steps(self, shard, st, ctx, limit)

    def final_contribution(self, shard, st):
        """The owned ranks, when only they were kept ('gpu-owned')."""
        return Contribution({"rank": st["rank_own"]}, {}) if st["impl"] == "gpu-owned" else None

    def final_receive(self, shard, st, contributions):
        st["rank"] = shard.gather_owned(shard.xp.empty(shard.n, dtype=np.float64), contributions, "rank")

    def finish(self, shard, st):
        return {"pagerank": st["rank"]}




def _on_cpu(st):
    """The run's implementation is a numpy one (its sums in numpy, not :mod:`.gpu`'s order)."""
    return st["impl"].startswith("cpu-")


__all__ = ["PageRank", "implementation", "IMPLEMENTATIONS"]
