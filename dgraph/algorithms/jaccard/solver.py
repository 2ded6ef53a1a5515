"""The pairs at distance two of one whole shard, without a Program run per chunk.

On one shard holding every vertex (a Graph, or a one-partition graph run by
the ``local`` executor) the simple rows of the whole graph are built once
(:func:`.kernels.simple_rows`, 8 bytes an arc and 9 a vertex, kept while the
stream lives), every row's number of pairs is counted once, and each chunk
of rows is then listed straight from them: the work of
:class:`.program.TwoHopProgram` without rebuilding its row table per chunk.
The kernels are the same (:mod:`.kernels`, :mod:`.cpu`), so the pairs and the
coefficients are the same as a partitioned run's.
"""

from __future__ import annotations

import numpy as np

from .kernels import run_two_hop_counts, run_two_hop_pairs, simple_rows


class OneShard:
    """``counts`` (pairs per vertex) and ``degree`` (``|N(v)|``) of a whole shard, on its backend;
    :meth:`window` lists the pairs of a range of rows."""

    def __init__(self, shard, implementation):
        xp, n = shard.xp, shard.n
        self.xp, self.n, self.implementation = xp, n, implementation
        ids = xp.arange(n, dtype=np.int64)
        self.tptr, self.tnbr, tloop = simple_rows(xp, shard.indptr, shard.indices, ids, ids, n)
        self.where = ids
        self.degree = (self.tptr[1:] - self.tptr[:-1]) + tloop.astype(np.int64)
        self.counts = run_two_hop_counts(implementation, xp, self.tptr, self.tnbr, ids, ids, ids, n)

    def window(self, lo, hi):
        """``(u, v, jaccard)`` of the pairs of rows ``[lo, hi)``, by ``u`` then ``v`` (backend arrays)."""
        xp = self.xp
        rows = xp.arange(lo, hi, dtype=np.int64)
        i, w, p = run_two_hop_pairs(self.implementation, xp, self.tptr, self.tnbr, self.where, rows, rows, self.n,
                                    self.counts[lo:hi], self.degree)
        u = rows[i]
        return u, w, p


__all__ = ["OneShard"]
