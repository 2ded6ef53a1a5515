"""The HITS Program (hubs and authorities, Kleinberg), by power iteration as NetworkX runs it.

An iteration, from the hub scores ``h`` (the start: uniform, or ``nstart``; scaled to sum to 1):

    a_raw = A^T h        a = a_raw / max(a_raw)
    h_raw = A a          h' = h_raw / max(h_raw)         change = sum |h' - h|

where ``A[u, v]`` is the weight of the edge u -> v (1 unweighted; parallel edges add up; an
undirected graph's edges go both ways).  The run stops once the change is below ``tol``
(NetworkX's test: the L1 change of the max-scaled hub vector, absolute), and the scores are
then scaled to sum to 1 (``normalized``).  A graph with no edge of positive weight (or a start
that reaches none) has every score 0.

Each product is a pull: ``A^T h`` sums over a vertex's in-edges (its CSC row, with the in-edge
weights of :mod:`dgraph.algorithms.edge_weights`), ``A a`` over its out-edges (its CSR row).  On
one shard an iteration is one superstep.  On several, each product needs the whole of the
previous vector, so an iteration is two supersteps: every shard sums ``A^T h`` for the vertices it
owns and the owned slices are all-gathered (report key ``half``), then the same for ``A a`` (the
iteration's report).  A directed weighted graph first exchanges every partition's arcs once, for
the in-edge weights (report key ``setup``).  Every shard keeps both vectors whole, so the maxima
and the change are the same on every shard, and each vertex's sum runs in one order whatever the
partitioning: every executor and partition count gives the same bits (on one backend).

Which code runs is decided once, by :func:`implementation`: numba row sums on numpy
('cpu-pull'), CuPy's segment-tree row sums ('gpu-pull'); :data:`WEIGHTED` marks edge weights.
"""

from __future__ import annotations

import numpy as np

from ...backend.primitives import row_sum_plan
from ...engine.program import Contribution, Program

#: what :func:`implementation` may choose, and what each runs
IMPLEMENTATIONS = {
    "cpu-pull": "numpy: both products as numba row sums (in edge order, threaded on big shards), the scaling in numpy",
    "gpu-pull": "CuPy: both products as segment-tree row sums (dgraph.backend.primitives.gather_row_sum)",
}
#: the suffix of a weighted run's implementation: each product's terms times the edge's weight
WEIGHTED = "+weighted"


def implementation(backend, weighted=False):
    """The name of the code that runs a HITS (a key of :data:`IMPLEMENTATIONS`, with :data:`WEIGHTED`
    after it for edge weights), decided once a run.

    >>> implementation("numpy"), implementation("cupy", weighted=True)
    ('cpu-pull', 'gpu-pull+weighted')
    """
    return ("cpu-pull" if backend == "numpy" else "gpu-pull") + (WEIGHTED if weighted else "")


class HITS(Program):
    """The HITS Program (see :mod:`dgraph.engine.program`); ``iterations``: the most iterations (with
    ``tol``) or exactly that many (``tol`` None); ``start``: the first hub scores (a numpy vector
    summing to 1) or None (uniform); ``implementation``: see :func:`implementation` (None: decided
    from the shard)."""

    name = "hits"
    replicated_result = True

    def __init__(self, iterations, tol, start=None, normalized=True, weighted=False, implementation=None):
        self.iterations, self.tol = int(iterations), tol
        self.start = start
        self.normalized = bool(normalized)
        self.implementation = implementation
        self.weighted = bool(weighted) or (implementation or "").endswith(WEIGHTED)

    def init(self, shard):
        from .. import edge_weights  # noqa: PLC0415

        xp = shard.xp
        n = shard.n
        impl = self.implementation or implementation(shard.backend, self.weighted)
        weighted = impl.endswith(WEIGHTED)
        st = {"impl": impl, "weighted": weighted, "iteration": 0, "delta": float("inf")}
        st["h"] = (xp.full(n, 1.0 / n if n else 0.0, dtype=np.float64) if self.start is None
                   else xp.asarray(self.start, dtype=np.float64))
        st["a"] = xp.zeros(n, dtype=np.float64)
        st["w_out"] = edge_weights.float_weights(shard) if weighted else None
        st["w_in"] = None
        st["phase"] = "a"      # the product the next superstep computes ('a': A^T h, 'h': A a)
        if weighted:
            st["w_in"] = edge_weights.whole_in_weights(shard) if shard.num_parts == 1 else (
                edge_weights.float_weights(shard) if not shard.directed else None)
            if st["w_in"] is None and shard.num_parts == 1:
                st["w_in"] = edge_weights.match_in_weights(shard, [edge_weights.arcs(shard)])
            if st["w_in"] is None:
                st["phase"] = "setup"  # the in-edge weights come from every partition's arcs first
        cindptr = shard.csc(edge_ids=False)[0]
        gpu = xp is not np
        st["plan_in"] = row_sum_plan(cindptr) if gpu else None
        st["plan_out"] = row_sum_plan(shard.indptr) if gpu else None
        st["ident_in"] = st["ident_out"] = None
        if gpu and weighted:
            st["ident_out"] = edge_weights.identity(shard.indices)
            st["ident_in"] = st["ident_out"] if not shard.directed else edge_weights.identity(
                shard.csc(edge_ids=False)[1])
        return st

    def initial_report(self, shard, st):
        return {"iteration": 0, "delta": float("inf")}

    def converged(self, report, step):
        if report.get("half") or report.get("setup"):
            return False  # within an iteration (several partitions), or the exchange of weights
        if report["iteration"] >= self.iterations:
            return True
        return self.tol is not None and report["delta"] < self.tol

    # -- the two products -----------------------------------------------------------------------
    def _authorities(self, shard, st):
        """(A^T h) of the owned vertices: the sum over each one's in-edges."""
        from .. import edge_weights  # noqa: PLC0415

        cindptr, cindices, _ = shard.csc(edge_ids=False)
        return edge_weights.row_sum(cindptr, cindices, st["h"], st["w_in"], plan=st["plan_in"], ident=st["ident_in"])

    def _hubs(self, shard, st):
        """(A a) of the owned vertices: the sum over each one's out-edges."""
        from .. import edge_weights  # noqa: PLC0415

        return edge_weights.row_sum(shard.indptr, shard.indices, st["a"], st["w_out"], plan=st["plan_out"],
                                    ident=st["ident_out"])

    @staticmethod
    def _scaled(xp, raw):
        """``raw / max(raw)`` (NetworkX: times 1 / max); all zeros stay zeros."""
        top = float(raw.max()) if len(raw) else 0.0
        return raw * (1.0 / top) if top > 0 else xp.zeros_like(raw)

    def superstep(self, shard, st, ctx):
        from .. import edge_weights  # noqa: PLC0415

        xp = shard.xp
        phase = st["phase"]
        if phase == "setup":
            return Contribution(edge_weights.arcs(shard), {})
        if phase == "a" and shard.num_parts == 1:  # one shard: both products, no exchange between them
            st["a"] = self._scaled(xp, self._authorities(shard, st))
            return Contribution({"h": self._hubs(shard, st)}, {})
        if phase == "a":
            return Contribution({"a": self._authorities(shard, st)}, {})
        return Contribution({"h": self._hubs(shard, st)}, {})

    def receive(self, shard, st, contributions, ctx):
        from .. import edge_weights  # noqa: PLC0415

        xp = shard.xp
        n = shard.n
        phase = st["phase"]
        if phase == "setup":
            st["w_in"] = edge_weights.match_in_weights(shard, [c.arrays for c in contributions])
            if xp is not np:
                st["ident_in"] = edge_weights.identity(shard.csc(edge_ids=False)[1])
            st["phase"] = "a"
            return {"iteration": 0, "delta": float("inf"), "setup": 1}
        if phase == "a" and shard.num_parts > 1:
            raw = shard.gather_owned(xp.empty(n, dtype=np.float64), contributions, "a")
            st["a"] = self._scaled(xp, raw)
            st["phase"] = "h"
            return {"iteration": st["iteration"], "delta": st["delta"], "half": 1}
        raw = shard.gather_owned(xp.empty(n, dtype=np.float64), contributions, "h")
        h = self._scaled(xp, raw)
        st["delta"] = float(xp.abs(h - st["h"]).sum())
        st["h"] = h
        st["iteration"] += 1
        st["phase"] = "a"
        return {"iteration": st["iteration"], "delta": st["delta"]}

    def finish(self, shard, st):
        h, a = st["h"], st["a"]
        if self.normalized:
            h, a = _sum_scaled(h), _sum_scaled(a)
        return {"hubs": h, "authorities": a}


def _sum_scaled(x):
    """``x / sum(x)`` (NetworkX: times 1 / sum); all zeros stay zeros."""
    total = float(x.sum()) if len(x) else 0.0
    return x * (1.0 / total) if total > 0 else x


__all__ = ["HITS", "implementation", "IMPLEMENTATIONS", "WEIGHTED"]
