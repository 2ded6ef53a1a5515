"""CPU (numpy backend) kernel of Louvain's local moving: one superstep of a shard's owned rows.

The fused twin ('cpu-numba') of :func:`dgraph.algorithms.louvain.kernels.move_step` ('generic'),
with the same moves bit for bit: the same exact int64 sums, the same float expression for each
score, ties to the smallest community id, the same counter-based coins.  Instead of sorting one
int64 key per arc (the generic step), each row sums its neighbors' weights per community in an
open-addressing hash table of at least twice the row's length (a thread's own, stamped per row so it
is never cleared), then scores the communities it found.  Rows are split over the CPU's threads in
contiguous blocks of about equal arc counts (:func:`dgraph.jit.row_block`); a row's result does not
depend on the thread that computes it, and the counts are integers, so any thread count gives the
same answer.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from ...jit import inline as _inline
from ...jit import jit as _jit
from ...jit import pjit as _pjit
from ...jit import row_block

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


@_inline
def _coin(key, v, shift):
    """:func:`dgraph.algorithms.louvain.kernels.coins` for one vertex (uint64 arithmetic throughout)."""
    if shift == 0:
        return True
    x = np.uint64(v) * _GOLDEN + key
    x ^= x >> np.uint64(30)
    x *= _M1
    x ^= x >> np.uint64(27)
    x *= _M2
    x ^= x >> np.uint64(31)
    return (x >> np.uint64(64 - shift)) == (np.uint64(1) << np.uint64(shift)) - np.uint64(1)


@_inline
def _rows(ptr, nbr, w, rows, comm, sout, sin, loop, tot_out, tot_in, res_d, key, shift, active, kown, cmask, out,
          kt, su, st, sl, tick, r0, r1, counts):
    """Rows ``r0..r1`` of :func:`move_rows` with one thread's tables; -> its last tick."""
    cand = 0
    moved = 0
    inner = 0
    for r in range(r0, r1):
        v = rows[r]
        own = comm[v]
        out[r] = own
        cmask[r] = False
        if not active[r]:
            inner += kown[r] + 2 * loop[v]
            continue
        best_c = own
        lo = ptr[r]
        hi = ptr[r + 1]
        k_own = 0
        nd = 0
        if hi > lo:
            tick += 1
            m = 1
            while m < 2 * (hi - lo):
                m *= 2
            mask = m - 1
            for e in range(lo, hi):
                c = comm[nbr[e]]
                if c == own:
                    k_own += w[e]
                    continue
                h = (c * np.int64(0x9E3779B1)) & mask
                while st[h] == tick and kt[h] != c:
                    h = (h + 1) & mask
                if st[h] != tick:
                    st[h] = tick
                    kt[h] = c
                    su[h] = w[e]
                    sl[nd] = h
                    nd += 1
                else:
                    su[h] += w[e]
        if nd > 0:
            so = np.float64(sout[v])
            si = np.float64(sin[v])
            stay = np.float64(k_own) - res_d * (so * np.float64(tot_in[own] - sin[v])
                                                + si * np.float64(tot_out[own] - sout[v]))
            best = -np.inf
            bc = own
            for i in range(nd):
                h = sl[i]
                c = kt[h]
                s = np.float64(su[h]) - res_d * (so * np.float64(tot_in[c]) + si * np.float64(tot_out[c]))
                if s > best or (s == best and c < bc):
                    best = s
                    bc = c
            if best > stay:
                cand += 1
                cmask[r] = True
                if _coin(key, v, shift):
                    best_c = bc
                    moved += 1
        kown[r] = k_own
        inner += k_own + 2 * loop[v]
        out[r] = best_c
    counts[0] = cand
    counts[1] = moved
    counts[2] = inner
    return tick


@_jit
def move_rows(ptr, nbr, w, rows, comm, sout, sin, loop, tot_out, tot_in, res_d, key, shift, active, kown, cmask, out,
              keys, sums, stamps, slots, ticks, counts):
    """out[r] = the community of local row r after this superstep; ``counts[0] = (candidates, moved,
    inner)`` over the rows (see :func:`~dgraph.algorithms.louvain.kernels.move_step`): only the rows
    where ``active`` is set are evaluated (their ``kown[r] = K(v, own)`` updated, ``cmask[r]`` set when
    they want to move); the others stay, with their ``kown``.  ``keys``,
    ``sums``, ``stamps`` (rows of a power of two at least twice the longest row), ``slots`` (the
    longest row) and ``ticks``: a hash table, kept between calls (row 0 of each).  One thread."""
    ticks[0] = _rows(ptr, nbr, w, rows, comm, sout, sin, loop, tot_out, tot_in, res_d, key, shift, active, kown, cmask,
                     out, keys[0], sums[0], stamps[0], slots[0], ticks[0], 0, ptr.shape[0] - 1, counts[0])


@_pjit
def move_rows_par(ptr, nbr, w, rows, comm, sout, sin, loop, tot_out, tot_in, res_d, key, shift, active, kown, cmask,
                  out, keys, sums, stamps, slots, ticks, counts):
    """:func:`move_rows` over ``T = len(counts)`` threads, thread ``t`` on a contiguous block of rows
    with about 1/T of the arcs and row ``t`` of the tables; ``counts[t]`` its counts."""
    T = counts.shape[0]
    for t in prange(T):
        r0, r1 = row_block(ptr, t, T)
        ticks[t] = _rows(ptr, nbr, w, rows, comm, sout, sin, loop, tot_out, tot_in, res_d, key, shift, active, kown,
                         cmask, out, keys[t], sums[t], stamps[t], slots[t], ticks[t], r0, r1, counts[t])


@_inline
def _active_row(ptr, nbr, cand, moved, r):
    if cand[r]:
        return True
    for e in range(ptr[r], ptr[r + 1]):
        if moved[nbr[e]]:
            return True
    return False


@_jit
def next_active_rows(ptr, nbr, cand, moved, out):
    """``out[r]``: row ``r`` wanted to move (``cand[r]``) or a neighbor moved (``moved``, per vertex of
    the level): :func:`dgraph.algorithms.louvain.kernels.next_active`, a row's scan stopping at its
    first moved neighbor.  One thread."""
    for r in range(ptr.shape[0] - 1):
        out[r] = _active_row(ptr, nbr, cand, moved, r)


@_pjit
def next_active_rows_par(ptr, nbr, cand, moved, out):
    """:func:`next_active_rows` over the CPU's threads."""
    for r in prange(ptr.shape[0] - 1):
        out[r] = _active_row(ptr, nbr, cand, moved, r)


@_jit
def next_active_push(ptr, nbr, cand, moved, out):
    """:func:`next_active_rows` when the shard owns every vertex of the level (row ``r`` is vertex ``r``):
    from the ``moved`` vertices (their ids) along their own lists, the level's lists being symmetric
    (``u`` in ``v``'s list when ``v`` is in ``u``'s); the work is the moved vertices' arcs."""
    for r in range(out.shape[0]):
        out[r] = cand[r]
    for i in range(moved.shape[0]):
        u = moved[i]
        for e in range(ptr[u], ptr[u + 1]):
            out[nbr[e]] = True


__all__ = ["move_rows", "move_rows_par", "next_active_rows", "next_active_rows_par", "next_active_push"]
