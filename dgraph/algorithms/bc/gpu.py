"""GPU (CuPy backend) betweenness on one whole shard: Brandes' two passes, a batch of sources at once.

The CUDA side of the ``"gpu-brandes"`` implementation (see
:func:`dgraph.algorithms.bc.implementation`), wrapping ``bc.cu`` beside this
module.  As in the BC Program every array is indexed by the key ``b * n + v``
(source slot ``b`` of the batch, vertex ``v``), and the batch's keys are
advanced together, level by level; what changes is that a level is a few
kernel launches over device queues instead of a superstep of array code:

- forward, level ``L``: the out-degrees of the frontier's keys and their
  prefix sum, then one kernel of a thread per frontier edge (BFS's
  load-balanced push): an edge to a key not yet reached claims it for depth
  ``L + 1`` and appends it to the one queue that holds every level in turn
  (no copies: level ``L`` is a slice of it), and every edge into a key of
  depth ``L + 1`` adds its source's path count ``sigma`` with an atomic --
  integers, so the sum is exact (below 2^53) in any order.  One read of two
  counters a level (the new frontier's size and out-degree sum) is the only
  wait for the device.
- backward, from the deepest level up: each key's out-edges are cut into
  segments of :data:`SEG`; a warp a segment adds ``coef`` over the segment's
  edges into the next level (lanes then a shuffle tree), and a thread a key
  adds its segments in order, then ``delta = sigma * sum`` and
  ``coef = (1 + delta) / sigma``.  A hub's row is spread over many warps and
  no atomics add floats, so the sums are the same bits every run (and for
  every batch size); not the numpy path's bits, whose sums run in edge order
  (they agree to about 1e-15 relative).  Nothing is read back.
- ``bc`` gets each source's dependencies source by source, in slot order, as
  the Program adds them (NetworkX's endpoint terms too).

The Program's superstep records are rebuilt from the levels (vertices, out-
and, directed, in-arcs per level), so the Result reads as the other
implementations' does.
"""

from __future__ import annotations

import numpy as np

from ...backend import array_module, to_numpy
from ...cuda import BLOCK, dtype_suffix, function, source

#: the CUDA source (bc.cu, a package resource, with common.cuh pasted in)
_SOURCE = source(__package__, "bc.cu")

#: out-edges of a key one warp adds up in the backward pass (bc.cu's BC_SEG)
SEG = 256

#: blocks of the grid-stride kernels, a multiprocessor
BLOCKS_PER_SM = 8


def kernel(name, dtype=None):
    """A kernel of this module; ``dtype``: the vertex ids' (for the kernels made for both widths)."""
    return function(_SOURCE, name if dtype is None else f"{name}_{dtype_suffix(dtype)}")


def _grid(count):
    from ...cuda import multiprocessors  # noqa: PLC0415

    return (max(1, min(-(-int(count) // BLOCK), multiprocessors() * BLOCKS_PER_SM)),)


class Runner:
    """Brandes for batches of sources on one whole CuPy shard: the device arrays of a batch of up to
    ``batch`` sources (28 bytes a key, as the Program's, plus the level queue), made once a run."""

    def __init__(self, indptr, indices, n, batch, directed):
        xp = self.xp = array_module(indices)
        self.indptr, self.indices, self.n = indptr, indices, int(n)
        size = max(1, int(batch)) * self.n
        self.depth = xp.empty(size, dtype=xp.int32)
        self.sigma = xp.empty(size, dtype=xp.float64)
        self.delta = xp.empty(size, dtype=xp.float64)
        self.coef = xp.empty(size, dtype=xp.float64)
        self.order = xp.empty(size, dtype=xp.int64)
        self.counters = xp.zeros(4, dtype=xp.uint64)
        self.indeg = None
        if directed:  # the in-arcs per level, for the records (the Program pulls sigma over them)
            m = len(indices)
            self.indeg = (xp.bincount(indices, minlength=self.n) if m else xp.zeros(self.n, dtype=xp.int64))

    def run(self, srcs, bc, endpoints):
        """One batch: ``srcs`` (host int64, sorted) into ``bc`` (in place).  Returns the per-level
        (vertices, out-arcs, in-arcs) the Program's records give, as host int64 arrays of D + 1."""
        xp = self.xp
        n, B = self.n, len(srcs)
        size = B * n
        depth, sigma, delta, coef, order = (a[:size] for a in (self.depth, self.sigma, self.delta, self.coef,
                                                                 self.order))
        depth.fill(-1)
        sigma.fill(0)
        delta.fill(0)
        coef.fill(0)
        keys = xp.asarray(np.arange(B, dtype=np.int64) * n + np.asarray(srcs, dtype=np.int64))
        order[:B] = keys
        depth[keys] = 0
        sigma[keys] = 1.0
        lptr, degs, totals = [0, B], [], []
        vdt = self.indices.dtype
        level = 0
        total = None  # the frontier's out-arcs: counted by the kernel that found it, read with its size
        while True:
            a, b = lptr[level], lptr[level + 1]
            deg = xp.empty(b - a, dtype=xp.int64)
            kernel("degrees")(_grid(b - a), (BLOCK,), (self.indptr, order[a:b], np.int64(b - a), np.int64(n), deg))
            scanned = xp.cumsum(deg)
            if total is None:
                total = int(scanned[-1])
            degs.append(deg)
            totals.append(total)
            if total == 0:
                break
            self.counters.fill(0)
            kernel("forward", vdt)(
                (-(-total // BLOCK),), (BLOCK,),
                (self.indptr, self.indices, order[a:b], scanned, np.int32(b - a), np.int64(total), np.int64(n),
                 depth, sigma, np.int32(level), order[b:], self.counters))
            count, total = (int(x) for x in to_numpy(self.counters[:2]))
            if count == 0:
                break
            lptr.append(b + count)
            level += 1
        D = level
        last = order[lptr[D]:lptr[D + 1]]
        coef[last] = 1.0 / sigma[last]
        for L in range(D - 1, 0, -1):
            a, b = lptr[L], lptr[L + 1]
            segscan = xp.cumsum((degs[L] + (SEG - 1)) // SEG)
            bound = totals[L] // SEG + (b - a)  # segments, at most
            partial = xp.empty(bound, dtype=xp.float64)
            kernel("partials", vdt)((-(-bound * 32 // BLOCK),), (BLOCK,),
                                    (self.indptr, self.indices, order[a:b], segscan, np.int64(b - a), np.int64(n),
                                     depth, coef, np.int32(L), partial))
            kernel("finish")(_grid(b - a), (BLOCK,),
                             (order[a:b], segscan, np.int64(b - a), partial, sigma, coef, delta))
        reach = order[:lptr[D + 1]]
        reached = (xp.bincount(reach // n, minlength=B) if endpoints else xp.zeros(B, dtype=xp.int64))
        kernel("accumulate")(_grid(n), (BLOCK,), (bc, delta, depth, xp.asarray(np.asarray(srcs, dtype=np.int64)),
                                                   reached.astype(xp.int64, copy=False), np.int32(B), np.int64(n),
                                                   np.int32(bool(endpoints))))
        cnt = np.diff(np.asarray(lptr[:D + 2], dtype=np.int64))
        oute = np.asarray(totals[:D + 1], dtype=np.int64)
        ine = np.zeros(D + 1, dtype=np.int64)
        if self.indeg is not None and D > 0:
            csum = xp.cumsum(self.indeg[reach % n])
            ends = to_numpy(csum[xp.asarray(np.asarray(lptr[1:D + 2], dtype=np.int64) - 1)])
            ine[1:] = np.diff(ends)
        if xp is not np:
            xp.cuda.get_current_stream().synchronize()  # the batch's time includes its backward pass
        return cnt, oute, ine


__all__ = ["Runner", "SEG"]
