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
partitioning).  Each shard's in-edges from sources it owns are summed on a
side stream while the exchange runs (:class:`.gpu.SplitInEdges`), so only
the other half waits for the others' shares.

Stops after ``iterations`` when given (Graphalytics: a fixed count),
otherwise when the L1 change falls below ``tol * n`` (NetworkX's test) or
after ``max_iterations``.

Weighted PageRank (``weight=``, NetworkX's ``weight="weight"``): an edge's weight is its share of
its tail's out-weight sum, ``PR(u) * w(u, v) / W(u)`` in place of ``PR(u) / outdeg(u)``, and a
vertex whose out-weight sum is 0 is dangling.  Parallel edges (a graph built with ``dedupe=False``)
add up, as NetworkX's multigraphs do.  One partition finds its in-edge weights and out-weight sums
alone; several exchange them once, in a first superstep (report key ``setup``) that does no
iteration: the out-weight sums of the vertices each owns, and for a pull over a directed graph the
arcs each holds (:mod:`dgraph.algorithms.edge_weights`).

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
    "gpu-owned": ("CuPy, pull, partitioned: each shard updates its owned ranks before the exchange (gpu.owned_update), "
                  "its local in-edges summed during the exchange (gpu.SplitInEdges)"),
    "gpu-push+batched": "CuPy, push, one shard, a fixed count: the push supersteps queued at once (solver.gpu_steps)",
    "gpu-push": "CuPy, push: scatter-add along the out-edges, a superstep at a time",
}
#: the suffix a weighted run's implementation carries: the same loops, each in-edge's share times its weight
WEIGHTED = "+weighted"


def implementation(backend, num_parts, whole, variant, iterations, local=True, weighted=False):
    """The name of the code that runs a PageRank (a key of :data:`IMPLEMENTATIONS`, with
    :data:`WEIGHTED` after it for edge weights), decided once a run.

    ``backend``: 'numpy' or 'cupy'; ``num_parts``: the partitions; ``whole``: one shard holding every
    vertex as its rows in order (:attr:`dgraph.partition.shard.Shard.whole`); ``variant``: 'pull' or
    'push'; ``iterations``: a fixed count, or None (until converged); ``local``: the ``local``
    executor runs it (only it runs the one-shard loops of :mod:`.solver`); ``weighted``: edge
    weights as transition weights.

    >>> implementation("numpy", 1, True, "pull", None)
    'cpu-fused'
    >>> implementation("cupy", 4, False, "pull", 20)
    'gpu-owned'
    >>> implementation("numpy", 1, True, "pull", None, weighted=True)
    'cpu-fused+weighted'
    """
    return _implementation(backend, num_parts, whole, variant, iterations, local) + (WEIGHTED if weighted else "")


def _implementation(backend, num_parts, whole, variant, iterations, local):
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
    :data:`IMPLEMENTATIONS` (with :data:`WEIGHTED` after it for edge weights), or None to decide it
    from the first shard (as if on the local executor); ``start``: the first ranks (a numpy vector
    summing to 1), or None (uniform)."""

    name = "pagerank"
    replicated_result = True

    def __init__(self, damping, iterations, tol, max_iterations, teleport=None, variant="pull", implementation=None,
                 weighted=False, start=None):
        self.d = float(damping)
        self.iterations = iterations
        self.tol, self.max_iterations = tol, max_iterations
        self.teleport = teleport          # numpy vector summing to 1, or None (uniform)
        self.variant = variant
        self.implementation = implementation
        self.weighted = bool(weighted) or (implementation or "").endswith(WEIGHTED)
        self.start = start

    def init(self, shard):
        xp = shard.xp
        n = shard.n
        impl = self.implementation or implementation(shard.backend, shard.num_parts, shard.whole, self.variant,
                                                     self.iterations, weighted=self.weighted)
        weighted = impl.endswith(WEIGHTED)
        st = {"impl": impl.removesuffix(WEIGHTED), "weighted": weighted}
        st["rank"] = (xp.full(n, 1.0 / n if n else 0.0, dtype=np.float64) if self.start is None
                      else xp.asarray(self.start, dtype=np.float64))
        st["teleport"] = None if self.teleport is None else xp.asarray(self.teleport, dtype=np.float64)
        st["mass"] = None  # CuPy: (rank vector, its dangling mass), summed with its change by _update
        st["w_in"] = st["ident"] = None  # weighted: in-edge weights (aligned with the CSC), CuPy's index for them
        st["setup"] = 0    # 1 once a weighted run's exchange of weights took a superstep (reports say so)
        st["pending"] = weighted and shard.num_parts > 1  # that exchange is still to come
        st["rank_own"] = None
        if st["pending"]:
            return st      # the out-weight sums and in-edge weights come from every shard first
        wsum = None
        if weighted:
            from .. import edge_weights  # noqa: PLC0415

            wsum = xp.zeros(n, dtype=np.float64)
            wsum[shard.global_rows()] = edge_weights.row_sums(shard.indptr, shard.weights)
            if self.variant == "pull":
                st["w_in"] = edge_weights.whole_in_weights(shard)
                if st["w_in"] is None:
                    st["w_in"] = edge_weights.match_in_weights(shard, [edge_weights.arcs(shard)])
        self._ready(shard, st, wsum)
        return st

    def _ready(self, shard, st, wsum=None):
        """The per-vertex arrays an iteration reads: ``inv_deg`` (1 / out-degree, or 1 / out-weight
        sum ``wsum`` when weighted; 0 for a dangling vertex), the dangling vertices, the row-sum plan,
        and the owned slices of 'gpu-owned'."""
        xp = shard.xp
        if wsum is None:
            deg = shard.degree.astype(np.float64)
            st["inv_deg"] = xp.where(deg > 0, 1.0 / xp.maximum(deg, 1.0), 0.0)
            st["dangling"] = xp.flatnonzero(shard.degree == 0) if _on_cpu(st) else None  # CuPy: inv_deg == 0
        else:
            st["inv_deg"] = xp.where(wsum > 0, 1.0 / xp.where(wsum > 0, wsum, 1.0), 0.0)
            st["dangling"] = xp.flatnonzero(wsum == 0) if _on_cpu(st) else None
        split = None
        if st["impl"] == "gpu-owned" and st["w_in"] is None:  # the local half summed during the exchange
            from . import gpu  # noqa: PLC0415

            split = gpu.split_in_edges(shard)
        st["split"] = split
        st["plan"] = row_sum_plan(shard.csc(edge_ids=False)[0]) if self.variant == "pull" and not split else None
        if st["w_in"] is not None and not _on_cpu(st):
            from .. import edge_weights  # noqa: PLC0415

            st["ident"] = edge_weights.identity(shard.csc(edge_ids=False)[1])
        if st["impl"] == "gpu-owned":
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
            if split is not None:
                split.start(st["share"][own])
            st["rank"] = None  # only the owned ranks are kept; the whole vector is gathered at the end

    def _setup_contribution(self, shard):
        """A weighted run's first superstep on a partition: the out-weight sums of its vertices, and
        (pull, directed) its arcs, for every shard to find its in-edge weights."""
        from .. import edge_weights  # noqa: PLC0415

        arrays = {"wsum": edge_weights.row_sums(shard.indptr, shard.weights)}
        if self.variant == "pull" and shard.directed:
            arrays.update(edge_weights.arcs(shard))
        return Contribution(arrays, {})

    def _setup_receive(self, shard, st, contributions):
        from .. import edge_weights  # noqa: PLC0415

        xp = shard.xp
        wsum = shard.gather_owned(xp.zeros(shard.n, dtype=np.float64), contributions, "wsum")
        if self.variant == "pull":
            st["w_in"] = (edge_weights.match_in_weights(shard, [c.arrays for c in contributions]) if shard.directed
                          else edge_weights.float_weights(shard))
        st["pending"], st["setup"] = False, 1
        self._ready(shard, st, wsum)
        return {"delta": float("inf"), "n": shard.n, "setup": 1}

    def initial_report(self, shard, st):
        return {"delta": float("inf")}

    def converged(self, report, step):
        step -= report.get("setup", 0)  # iterations run: a weighted partitioned run's first superstep is none
        if self.iterations is not None:
            return step >= self.iterations
        n = report.get("n", 1)
        return step >= self.max_iterations or report["delta"] < self.tol * max(n, 1)

    def _report(self, st, delta, n):
        return {"delta": delta, "n": n, "setup": 1} if st["setup"] else {"delta": delta, "n": n}

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

    def _in_sums(self, cindptr, cindices, share, st):
        """Per owned vertex, the sum of its in-edges' shares (times their weights when weighted)."""
        if st["w_in"] is None:
            return gather_row_sum(cindptr, cindices, share, plan=st["plan"])
        from .. import edge_weights  # noqa: PLC0415

        return edge_weights.weighted_row_sum(cindptr, cindices, st["w_in"], share, plan=st["plan"], ident=st["ident"])

    def superstep(self, shard, st, ctx):
        xp = shard.xp
        if st["pending"]:
            return self._setup_contribution(shard)
        if st["impl"] == "gpu-owned":
            from . import gpu  # noqa: PLC0415

            cindptr, cindices, _ = shard.csc(edge_ids=False)
            x = st["share"]
            if st["w_in"] is not None:  # the products w * share as an edge array, summed in the same tree
                cindices, x = st["ident"], st["w_in"] * x[cindices]
            share = xp.empty(shard.num_rows, dtype=np.float64)  # fresh: an executor may still read the last one
            sums = gpu.owned_update(cindptr, cindices, x, st["plan"], st["rank_own"],
                                    st["inv_own"], st["mass"], st["teleport_own"], self.d, shard.n,
                                    st["spare_own"], share, split=st["split"])
            st["rank_own"], st["spare_own"] = st["spare_own"], st["rank_own"]
            if st["split"] is not None:  # the local sums of these shares run in receive, beside the exchange
                st["split"].mark_written(share)
            return Contribution({"share": share, "sums": sums}, {})
        share = st["rank"] * st["inv_deg"]
        if self.variant == "pull":
            cindptr, cindices, _ = shard.csc(edge_ids=False)
            sums = self._in_sums(cindptr, cindices, share, st)
            return Contribution({"sums": sums}, {})
        # push: scatter along the out-edges of the owned vertices into a partial sum over all vertices
        partial = xp.zeros(shard.n, dtype=np.float64)
        src = shard.global_rows()[row_ids(shard.indptr)]
        vals = share[src]
        if st["weighted"]:
            vals = vals * shard.weights.astype(np.float64, copy=False)
        scatter_add(partial, shard.indices, vals)
        return Contribution({"partial": partial}, {})

    def receive(self, shard, st, contributions, ctx):
        if st["pending"]:
            return self._setup_receive(shard, st, contributions)
        if st["impl"] == "gpu-owned":
            import cupy as cp  # noqa: PLC0415

            if st["split"] is not None:
                st["split"].queue_local()
            shard.gather_owned(st["share"], contributions, "share")
            parts = cp.stack([to_backend(c.arrays["sums"], cp) for c in contributions]).get()
            mass, change = 0.0, 0.0
            for m, c in parts:  # in partition order: the same sums on every shard
                mass += float(m)
                change += float(c)
            st["mass"] = cp.full(1, mass, dtype=np.float64)
            return self._report(st, change, shard.n)
        return self._report(st, float(self._update(shard, st, contributions)), shard.n)

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
        return Contribution({"rank": st["rank_own"]}, {}) if st["rank_own"] is not None else None

    def final_receive(self, shard, st, contributions):
        st["rank"] = shard.gather_owned(shard.xp.empty(shard.n, dtype=np.float64), contributions, "rank")

    def finish(self, shard, st):
        return {"pagerank": st["rank"]}




def _on_cpu(st):
    """The run's implementation is a numpy one (its sums in numpy, not :mod:`.gpu`'s order)."""
    return st["impl"].startswith("cpu-")


__all__ = ["PageRank", "implementation", "IMPLEMENTATIONS", "WEIGHTED"]
