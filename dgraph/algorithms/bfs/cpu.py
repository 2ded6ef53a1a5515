"""BFS visits on the CPU, compiled with numba: the sequential reference of :mod:`.gpu`.

The fused steps vectorized numpy cannot express efficiently: a bottom-up (pull) step must stop
scanning a vertex's in-edges at the first one in the frontier, and a top-down (push) step should
claim each vertex once without sorting all candidate edges.  Same inputs, same outputs and the same
tie rule as the CUDA kernels (a vertex's parent is its smallest-id neighbor in the previous level);
shard layout as in :mod:`~dgraph.algorithms.bfs.kernels`.  :func:`push` and :func:`pull` are the
superstep's visit steps on these kernels.

:func:`run_levels` is the whole traversal of one whole shard in one call (``cpu-numba+levels``,
driven by :func:`dgraph.algorithms.bfs.solver.cpu_run_levels`): Beamer's switch and the same two
visits, level after level, one record a level.  A deep graph (the 1000x1000 grid: 2,000 levels of
about 500 vertices) otherwise spends its time between levels, in Python, not in them.
"""

from __future__ import annotations

import numpy as np

from ...jit import inline, jit, prefetch
from . import kernels

#: the push visit prefetches the row of the frontier vertex this many ahead, and the words of the
#: targets of the one half as many ahead (:func:`_push_packed`)
PREFETCH_AHEAD = 8
#: ... the targets' words only of a vertex of at most this many edges (a hub's would crowd out the cache)
PREFETCH_DEGREE = 32


@inline
def _push(indptr, indices, frontier_rows, row_base, rows, labels, parents, level, out, degree):
    """Top-down step over the frontier (local rows, any order): claim unvisited targets.

    The first claimer of a vertex sets its parent; a later frontier vertex
    of the same level lowers it if smaller, so the parent is the smallest-id
    frontier neighbor whatever the order.  Claimed vertices (global ids) go
    to ``out``; returns ``(count, edges_scanned, degree_sum_of_claimed)``.
    """
    k = 0
    touched = 0
    degsum = 0
    identity = rows.shape[0] == 0
    for i in range(frontier_rows.shape[0]):
        r = frontier_rows[i]
        u = r + row_base if identity else rows[r]
        lo = indptr[r]
        hi = indptr[r + 1]
        touched += hi - lo
        for e in range(lo, hi):
            v = indices[e]
            lab = labels[v]
            if lab < 0:
                labels[v] = level
                parents[v] = u
                out[k] = v
                k += 1
                degsum += degree[v]
            elif lab == level and u < parents[v]:
                parents[v] = u
    return k, touched, degsum


@inline
def _pull(cindptr, cindices, fmask, row_base, rows, labels, parents, level, out, degree):
    """Bottom-up step: every unvisited owned vertex looks for its first in-neighbor in the frontier.

    In-neighbor lists are sorted, so the first hit is the smallest-id parent.
    Found vertices (global ids, ascending) go to ``out``; returns
    ``(count, edges_scanned, degree_sum_of_found)``.
    """
    found = 0
    touched = 0
    degsum = 0
    identity = rows.shape[0] == 0
    for r in range(cindptr.shape[0] - 1):
        v = r + row_base if identity else rows[r]
        if labels[v] < 0:
            for e in range(cindptr[r], cindptr[r + 1]):
                touched += 1
                u = cindices[e]
                if fmask[u]:
                    labels[v] = level
                    parents[v] = u
                    out[found] = v
                    found += 1
                    degsum += degree[v]
                    break
    return found, touched, degsum


@jit
def visit_push(indptr, indices, frontier_rows, row_base, rows, labels, parents, level, out, degree):
    """:func:`_push`, one level: the frontier's out-edges claim their unvisited targets."""
    return _push(indptr, indices, frontier_rows, row_base, rows, labels, parents, level, out, degree)


@jit
def visit_pull(cindptr, cindices, fmask, row_base, rows, labels, parents, level, out, degree):
    """:func:`_pull`, one level: unvisited vertices look for an in-neighbor in the frontier."""
    return _pull(cindptr, cindices, fmask, row_base, rows, labels, parents, level, out, degree)


@inline
def _push_packed(indptr, indices, front, nf, word, level, out):
    """:func:`_push` on a whole shard (row = vertex) over packed words ``word[v] = (level + 1) << 32 |
    (parent + 1)`` (0: unvisited, see :func:`pack`); the claimed degrees are read off ``indptr`` after
    the visit.

    One word a vertex: a visit reads and writes one cache line where the depth and parent arrays
    are two (the 1000x1000 grid's traversal, warm: 19.4 -> 12.2 ms with the pack and unpack
    passes, scipy's breadth_first_order 11.1).  Indexes through ``np.uint64``: numba checks every
    signed index for a negative (Python's wraparound), which cost the traversal a third.  The
    degree sum is a pass over the claimed vertices after the visit (their rows are read again by
    the next level): 9 % less than reading them while claiming.  A word claimed at an earlier level
    is below this level's ``tag``, so ``mine < w`` alone says a larger frontier vertex claimed it
    this level.

    The visit is a chain of dependent reads a vertex (its id, its row bounds, its targets, their
    words), most of them cache misses on a big graph; it prefetches the row of the frontier vertex
    :data:`PREFETCH_AHEAD` ahead and the words of the one half as far ahead, so those misses
    overlap (the 1000x1000 grid's traversal: about a fifth less time).
    """
    k = 0
    touched = 0
    one = np.uint64(1)
    tag = np.int64(level + 1) << 32
    half = PREFETCH_AHEAD // 2
    for i in range(nf):
        j = i + PREFETCH_AHEAD
        if j < nf:
            prefetch(indices, np.uint64(indptr[np.uint64(front[j])]))
        j = i + half
        if j < nf:  # its row was asked for ``half`` vertices ago: now its targets' words
            r = np.uint64(front[j])
            lo = indptr[r]
            hi = indptr[r + one]
            if hi - lo <= PREFETCH_DEGREE:
                for e in range(lo, hi):
                    prefetch(word, np.uint64(indices[np.uint64(e)]))
        u = front[i]
        r = np.uint64(u)
        lo = indptr[r]
        hi = indptr[r + one]
        touched += hi - lo
        mine = tag | np.int64(u + 1)
        for e in range(lo, hi):
            v = indices[np.uint64(e)]
            x = np.uint64(v)
            w = word[x]
            if w == 0:
                word[x] = mine
                out[k] = v
                k += 1
            elif mine < w:  # claimed this level by a larger frontier vertex
                word[x] = mine
    degsum = 0
    for i in range(k):
        x = np.uint64(out[i])
        degsum += indptr[x + one] - indptr[x]
    return k, touched, degsum


@inline
def _pull_packed(indptr, cindptr, cindices, fmask, word, level, out):
    """:func:`_pull` on a whole shard over the packed words of :func:`_push_packed`."""
    found = 0
    touched = 0
    degsum = 0
    one = np.uint64(1)
    tag = np.int64(level + 1) << 32
    for v in range(cindptr.shape[0] - 1):
        x = np.uint64(v)
        if word[x] == 0:
            for e in range(cindptr[x], cindptr[x + one]):
                touched += 1
                u = cindices[np.uint64(e)]
                if fmask[np.uint64(u)]:
                    word[x] = tag | np.int64(u + 1)
                    out[found] = v
                    found += 1
                    degsum += indptr[x + one] - indptr[x]
                    break
    return found, touched, degsum


PUSH, PULL = 0, 1                 #: directions in run_levels' records
AUTO, ONLY_PUSH, ONLY_PULL = 0, 1, 2  #: the user's direction, as run_levels takes it

#: run_levels packs a vertex's depth and parent into one int64: graphs of fewer vertices than this
PACKED_MAX_N = 2**31


def packed(depth, parent):
    """One vertex's packed word (see :func:`pack`): the source's, ``packed(0, source)``."""
    return (int(depth) + 1) << 32 | (int(parent) + 1)


@jit
def pack(labels, parents, word):
    """word[v] = (labels[v] + 1) << 32 | (parents[v] + 1), or 0 where unvisited (labels[v] < 0).

    Zero for unvisited: the level loop's words start as ``np.zeros`` (fresh zero pages, no fill
    pass), and :func:`unpack` is two subtractions a vertex with no branch (-1 where unvisited comes
    out of them).
    """
    for v in range(word.shape[0]):
        lab = labels[v]
        word[v] = 0 if lab < 0 else (np.int64(lab + 1) << 32) | np.int64(parents[v] + 1)


@jit
def unpack(word, labels, parents):
    """The inverse of :func:`pack`: every entry of the depth and parent arrays, -1 where unvisited."""
    mask = np.int64(0xFFFFFFFF)
    one = np.int64(1)
    for v in range(word.shape[0]):
        w = word[v]
        labels[v] = (w >> 32) - one
        parents[v] = (w & mask) - one


@jit
def run_levels(indptr, indices, cindptr, cindices, word, front, nxt, fmask, nf, m_f, level, m_u, prev_nf, cur,
               mode, alpha, beta, limit, rec):
    """Levels of a BFS on one whole shard (local row = vertex id) until the frontier empties or ``limit``.

    Each level is what one superstep of :class:`~dgraph.algorithms.bfs.program.BFS` does with
    :func:`visit_push` / :func:`visit_pull` (here :func:`_push_packed`, :func:`_pull_packed`, the
    same claims in the same order, on packed words, see :func:`pack`): Beamer's choice from the
    frontier's size ``nf``, its out-edges ``m_f``, the unvisited edges ``m_u`` and the previous
    frontier's size (``cur``: the last direction; ``mode``: AUTO, ONLY_PUSH or ONLY_PULL), then the
    visit.  The frontier is in ``front[:nf]``; ``nxt`` (n slots) takes the next one and the two swap;
    ``fmask`` (n bools, all False) marks a pulled level's frontier and is all False again on return.
    Record ``i`` of ``rec`` (a (limit, 4) int64 array) is level i's (direction, vertices claimed,
    edges scanned, claimed degree sum).  Returns ``(levels, nf, m_f, level, m_u, prev_nf, cur)``;
    the frontier is then in ``front[:nf]``.
    """
    n = word.shape[0]
    a, b = front, nxt
    steps = 0
    while nf > 0 and steps < limit:
        if mode == ONLY_PUSH:
            cur = PUSH
        elif mode == ONLY_PULL:
            cur = PULL
        elif cur == PUSH:
            if m_f > m_u / alpha and nf > prev_nf:
                cur = PULL
        elif nf < n / beta and nf < prev_nf:
            cur = PUSH
        level += 1
        if cur == PUSH:
            k, touched, degsum = _push_packed(indptr, indices, a, nf, word, level, b)
        else:
            for i in range(nf):
                fmask[a[i]] = True
            k, touched, degsum = _pull_packed(indptr, cindptr, cindices, fmask, word, level, b)
            for i in range(nf):
                fmask[a[i]] = False
        rec[steps, 0] = cur
        rec[steps, 1] = k
        rec[steps, 2] = touched
        rec[steps, 3] = degsum
        steps += 1
        prev_nf = nf
        m_u -= degsum
        nf = k
        m_f = degsum
        a, b = b, a
    if nf > 0 and steps % 2 == 1:  # the frontier is in nxt: back to front
        for i in range(nf):
            front[i] = nxt[i]
    return steps, nf, m_f, level, m_u, prev_nf, cur


def warm_up():
    """Compile both visits once for the common dtypes (benchmarks call this before timing)."""
    indptr = np.array([0, 1, 2], np.int64)
    deg = np.array([1, 1], np.int64)
    for vdt in (np.int32, np.int64):
        indices = np.array([1, 0], vdt)
        none = np.empty(0, vdt)
        labels = np.array([0, -1], np.int32)
        parents = np.array([0, -1], vdt)
        visit_push(indptr, indices, np.array([0], vdt), 0, none, labels.copy(), parents.copy(), 1,
                   np.empty(2, vdt), deg)
        visit_pull(indptr, indices, np.array([True, False]), 0, none, labels.copy(), parents.copy(), 1,
                   np.empty(2, vdt), deg)
        word = np.empty(2, np.int64)
        pack(labels, parents, word)
        run_levels(indptr, indices, indptr, indices, word, np.array([0, 0], vdt), np.empty(2, vdt),
                   np.zeros(2, bool), 1, 1, 0, 1, 0, PUSH, AUTO, 15.0, 18.0, 4, np.empty((4, 4), np.int64))
        unpack(word, labels.copy(), parents.copy())


# -- the visit steps (shard, state, frontier edges when known) -> (claimed, scanned, degree sum) ------

def _out(shard, st):
    if st.out is None:
        st.out = np.empty(shard.n, dtype=shard.indices.dtype)
    return st.out


def push(shard, st, m_f):
    """Top-down visit of the frontier's out-edges."""
    out = _out(shard, st)
    # no sorting: the kernel keeps the smallest parent in any frontier order
    k, touched, degsum = visit_push(shard.indptr, shard.indices, kernels.frontier_rows(shard, st),
                                    shard.row_base, shard.rows, st.labels, st.parents, st.level,
                                    out, shard.degree)
    return out[:k].copy(), int(touched), int(degsum)


def pull(shard, st, m_f):
    """Bottom-up visit: every unvisited owned vertex against the frontier mask."""
    out = _out(shard, st)
    cindptr, cindices, _ = shard.csc(edge_ids=False)
    k, touched, degsum = visit_pull(cindptr, cindices, st.frontier.mask, shard.row_base, shard.rows,
                                    st.labels, st.parents, st.level, out, shard.degree)
    return out[:k].copy(), int(touched), int(degsum)


__all__ = ["visit_push", "visit_pull", "run_levels", "pack", "packed", "unpack", "PACKED_MAX_N", "warm_up", "push", "pull",
           "PUSH", "PULL", "AUTO", "ONLY_PUSH", "ONLY_PULL"]
