"""The core decomposition on one GPU in one launch ('gpu-peel'): every level and every round of the
peeling of :mod:`.program` run inside one cooperative kernel (``peel.cu``), with a grid-wide barrier
between rounds, so a run costs one launch instead of a few CuPy calls a superstep.

The peeling is the Program's: level ``k`` starts at the smallest degree left, its first frontier is
every vertex left of degree ``k`` or less; a round removes the frontier (core number ``k``) and
lowers its neighbors' degrees, and the neighbors that fall to ``k`` (``atomicAdd`` tells the one
thread that takes a degree from ``k + 1`` to ``k``) are the next frontier.  A 1000 x 1000 grid peels
in about 2,000 thin rounds, which the vectorized step ran as 2,000 supersteps of a few launches each.

Load: a warp per frontier vertex, its lanes over the vertex's arcs (out-arcs, then in-arcs for a
directed graph), as BFS's cooperative levels (:mod:`dgraph.algorithms.bfs.solver`); a hub's arcs
are walked by one warp.
"""

from __future__ import annotations

import numpy as np

from ...cuda import BLOCK, cooperative_grid, dtype_suffix, function, source

#: this module's CUDA (peel.cu, with dgraph/cuda/common.cuh after the cooperative groups header)
_SOURCE = source(__package__, "peel.cu")

#: blocks a multiprocessor in the cooperative launch
BLOCKS_PER_SM = 2

#: ``ctl[0]`` on entry (peel.cu's NO_DEGREE)
NO_DEGREE = np.iinfo(np.int64).max


def kernel(name):
    """A kernel of this module (:func:`dgraph.cuda.function`)."""
    return function(_SOURCE, name, cooperative=True)


def peel(indptr, indices, cindptr, cindices, directed, deg, core):
    """Core numbers into ``core`` (int64, -1 on entry) from the loop-free degrees ``deg`` (int64,
    lowered in place); ``cindptr``/``cindices``: the in-CSC of a directed graph (the CSR again
    otherwise).  Returns ``(largest core number or -1, rounds, levels, arcs scanned)``."""
    import cupy as cp  # noqa: PLC0415

    n = len(indptr) - 1
    vdt = indices.dtype
    qa, qb = cp.empty(max(n, 1), dtype=vdt), cp.empty(max(n, 1), dtype=vdt)
    cnt = cp.zeros(12, dtype=cp.uint64)
    ctl = cp.zeros(5, dtype=cp.int64)
    ctl[0] = NO_DEGREE
    kern = kernel("peel_" + dtype_suffix(vdt))
    i64 = lambda a: a.astype(cp.int64, copy=False)  # noqa: E731
    kern((cooperative_grid(kern, BLOCKS_PER_SM),), (BLOCK,),
         (i64(indptr), indices, i64(cindptr), cindices.astype(vdt, copy=False), cp.int32(bool(directed)),
          cp.int64(n), deg, core, qa, qb, cnt, ctl))
    _, rounds, levels, arcs, top = (int(x) for x in ctl.get())
    return top, rounds, levels, arcs


__all__ = ["peel", "kernel", "BLOCKS_PER_SM"]
