"""The random-walk CPU kernel (numba): one step of every walk on one whole numpy shard.

The fused twin of a superstep of :class:`~dgraph.algorithms.random_walks.program.RandomWalks`
('generic'): the same draws (:mod:`.kernels`: the splitmix64 finalizer on uint64, ``unit`` the
top 53 bits), the same tests in the same order and the same float64 comparisons, so the same
paths bit for bit; one pass over the walks on the CPU's threads (each walk is one thread's)
instead of a dozen numpy passes an attempt.  Run by ``RandomWalks.run_steps`` ('cpu-numba').
"""

from __future__ import annotations

import numpy as np
from numba import prange

from ...generators.rng import GOLDEN
from ...jit import inline as _inline
from ...jit import jit as _jit
from ...jit import pjit as _pjit

_G = np.uint64(GOLDEN)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S11, _S27, _S30, _S31 = np.uint64(11), np.uint64(27), np.uint64(30), np.uint64(31)
_UNIT = 2.0 ** -53


@_inline
def _mix(x):
    """:func:`dgraph.generators.rng.mix64` on one uint64."""
    x = x ^ (x >> _S30)
    x = x * _M1
    x = x ^ (x >> _S27)
    x = x * _M2
    return x ^ (x >> _S31)


@_inline
def _draw(skey, j):
    """``D_wsj`` from the step key (see :mod:`.kernels`)."""
    return _mix(skey + np.uint64(j) * _G)


@_inline
def _unit(bits):
    return np.float64(bits >> _S11) * _UNIT


@_inline
def _in_row(indptr, indices, r, x):
    """Whether ``x`` is among the sorted targets of row ``r``."""
    lo = indptr[r]
    end = indptr[r + 1]
    hi = end
    while lo < hi:
        mid = (lo + hi) >> 1
        if indices[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo < end and indices[lo] == x


@_inline
def _walk_block(indptr, indices, weights, wmax, weighted, biased, a_ret, a_out, a_max, paths, wkeys, s, w0, w1):
    """Step ``s`` of walks ``w0 .. w1 - 1``; returns ``(walks moved, arcs drawn)``."""
    moved = 0
    drawn = 0
    for w in range(w0, w1):
        v = paths[w, s]
        if v < 0:
            continue
        start = indptr[v]
        deg = indptr[v + 1] - start
        if deg == 0 or (weighted and not wmax[v] > 0.0):
            continue
        t = paths[w, s - 1] if s > 0 else -1
        skey = _mix(wkeys[w] + np.uint64(s) * _G)
        a = 0
        x = indices[start]
        while True:
            drawn += 1
            e = start + np.int64(_draw(skey, 3 * a) % np.uint64(deg))
            x = indices[e]
            if deg == 1:
                break
            if weighted and not _unit(_draw(skey, 3 * a + 1)) * wmax[v] < weights[e]:
                a += 1
                continue
            if biased and s > 0:
                if x == t:
                    alpha = a_ret
                elif _in_row(indptr, indices, t, x):
                    alpha = 1.0
                else:
                    alpha = a_out
                if not _unit(_draw(skey, 3 * a + 2)) * a_max < alpha:
                    a += 1
                    continue
            break
        paths[w, s + 1] = x
        moved += 1
    return moved, drawn


@_pjit
def walk_step(indptr, indices, weights, wmax, weighted, biased, a_ret, a_out, a_max, paths, wkeys, s, moved_by,
              drawn_by):
    """Step ``s`` of every walk still going (``paths[w, s] >= 0``): ``paths[w, s + 1]`` = the next
    vertex, left -1 at a dead end.  The walks are cut into ``T = len(moved_by)`` contiguous blocks,
    one a thread; block ``b`` counts its walks that moved in ``moved_by[b]`` and its arcs drawn in
    ``drawn_by[b]``.  Returns ``(walks moved, arcs drawn)``."""
    W = paths.shape[0]
    T = moved_by.shape[0]
    for b in prange(T):
        moved_by[b], drawn_by[b] = _walk_block(indptr, indices, weights, wmax, weighted, biased, a_ret, a_out,
                                               a_max, paths, wkeys, s, W * b // T, W * (b + 1) // T)
    return moved_by.sum(), drawn_by.sum()


@_jit
def walk_step_serial(indptr, indices, weights, wmax, weighted, biased, a_ret, a_out, a_max, paths, wkeys, s):
    """:func:`walk_step` on this thread alone (few walks: waking the thread pool would cost more)."""
    return _walk_block(indptr, indices, weights, wmax, weighted, biased, a_ret, a_out, a_max, paths, wkeys, s,
                       0, paths.shape[0])


__all__ = ["walk_step", "walk_step_serial"]
