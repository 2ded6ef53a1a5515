"""CPU (numpy backend) kernel for CDLP: one synchronous label update of a shard's owned rows.

The fused twin ('cpu-numba') of the vectorized step in
:mod:`dgraph.algorithms.cdlp.program` ('generic'), with the same neighbor multiset and the same
result, bit for bit: per owned row, the labels of its out-neighbors (every
stored arc, so a multi-edge counts once per copy), of its in-neighbors for
a directed graph, and, for an undirected graph, of its own self loops once
more (a loop counts twice); the most frequent label wins, the smallest on a
tie; a row with no neighbor keeps its label.

Instead of sorting one int64 key per arc of the shard every iteration (the
generic path: O(arcs) memory and a global sort), each row gathers its
neighbor labels into a scratch buffer (sized by a bound on the largest row,
from the degrees) and finds their mode there: a row of at most four labels (a grid's, most of a
sparse graph's) by a sorting network and a few comparisons, with no branch
on the data until the end (the insertion sort it replaces mispredicted on
every row: the 1000x1000 grid's step 5.4 -> 3.2 ms on 2 threads), a short
row (at most ``_SMALL`` labels) by an insertion sort and a scan of its runs,
a longer one by counting in an open-addressing hash table of at least twice
its size (a comparison sort of a hub's mostly-equal labels was the slow
part).  Memory is that buffer, the table (at most 4x the largest row) and
the output.  Row and dtype conventions as in :mod:`dgraph.backend.cpu_kernels`.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from ...jit import inline as _inline
from ...jit import pjit as _pjit
from ...jit import row_block


_SMALL = 8  # rows with at most this many neighbors sort them (insertion sort); larger ones count in a hash table


@_inline
def _row_labels(indptr, indices, cindptr, cindices, use_in, loops_twice, r, v, label, sc):
    """The labels row r counts, into sc; -> how many (see the module docstring for which)."""
    k = 0
    for e in range(indptr[r], indptr[r + 1]):
        u = indices[e]
        sc[k] = label[u]
        k += 1
        if loops_twice and u == v:
            sc[k] = label[u]
            k += 1
    if use_in:
        for e in range(cindptr[r], cindptr[r + 1]):
            sc[k] = label[cindices[e]]
            k += 1
    return k


@_inline
def _mode4(a, b, c, d):
    """The most frequent of four labels, the smallest on a tie."""
    a, b = min(a, b), max(a, b)  # a sorting network: a <= b <= c <= d
    c, d = min(c, d), max(c, d)
    a, c = min(a, c), max(a, c)
    b, d = min(b, d), max(b, d)
    b, c = min(b, c), max(b, c)
    # the first label of the longest run: b == c makes a run of 2 or more at a (if a == b) or b, which
    # no other run beats (a run of c/d after it is shorter or equal and larger); else the runs are
    # pairs or singles and the first pair (or a) wins
    if b == c:
        return a if a == b else b
    if a == b:
        return a
    if c == d:
        return c
    return a


@_inline
def _mode3(a, b, c):
    """The most frequent of three labels, the smallest on a tie."""
    a, b = min(a, b), max(a, b)
    b, c = min(b, c), max(b, c)
    a, b = min(a, b), max(a, b)
    return b if (b == c and a != b) else a


@_inline
def _mode_small(k, a, b, c, d):
    """The most frequent of the first k (1..4) of a, b, c, d, the smallest on a tie."""
    if k == 4:
        return _mode4(a, b, c, d)
    if k == 3:
        return _mode3(a, b, c)
    return min(a, b) if k == 2 else a  # two labels: each once (the smaller wins) or one twice


@_inline
def _mode(sc, k, keys, counts, stamps, tag):
    """The most frequent of sc[:k] (k >= 1), the smallest on a tie; sc (at least 4 slots) may be
    reordered.  ``keys``, ``counts``, ``stamps``: a hash table of at least 2k slots; ``tag``: a
    value no stamp holds yet (a thread's rows take 1, 2, 3, ...; the stamps start at 0)."""
    if k <= 4:
        return _mode_small(k, sc[0], sc[1], sc[2], sc[3])
    if k <= _SMALL:
        # insertion sort, then the first longest run (runs ascend by label: the smallest wins a tie)
        for i in range(1, k):
            x = sc[i]
            j = i - 1
            while j >= 0 and sc[j] > x:
                sc[j + 1] = sc[j]
                j -= 1
            sc[j + 1] = x
        best = sc[0]
        best_count = 0
        run = 1
        for i in range(1, k):
            if sc[i] == sc[i - 1]:
                run += 1
            else:
                if run > best_count:  # strictly more: an equal count later is a larger label
                    best_count = run
                    best = sc[i - 1]
                run = 1
        if run > best_count:
            best = sc[k - 1]
        return best
    # count in an open-addressing table of at least 2k slots, keeping the most frequent (the smallest
    # on a tie) as the counts grow; a slot is in use when its stamp is this row's ``tag``, so the table
    # is neither cleared before a row nor scanned after it (a hub's row cost 3-4x its length that way)
    m = 1
    while m < 2 * k:
        m *= 2
    mask = m - 1
    best_key = np.int64(-1)
    best_count = 0
    for i in range(k):
        x = np.int64(sc[i])
        h = (x * np.int64(0x9E3779B1)) & mask
        while stamps[h] == tag and keys[h] != x:
            h = (h + 1) & mask
        if stamps[h] != tag:
            stamps[h] = tag
            keys[h] = x
            counts[h] = 1
            c = 1
        else:
            c = counts[h] + 1
            counts[h] = c
        if c > best_count or (c == best_count and x < best_key):
            best_count = c
            best_key = x
    return best_key


# -- the threaded step: rows spread over the CPU's threads, rows with no changed neighbor skipped --------


@_pjit
def mark_changed(label, prev, dirty):
    """dirty[v] = label[v] != prev[v]."""
    for v in prange(label.shape[0]):
        dirty[v] = label[v] != prev[v]


@_pjit
def mark_rows(label, prev, indptr, indices, cindptr, cindices, use_in, dirty):
    """One whole shard: dirty[w] = some vertex that row w counts changed (label != prev), found from the
    changed vertices' own arcs (out-arcs; in-arcs too where ``use_in``): the rows to count again, in
    time of the changed vertices' degrees, not of every arc."""
    n = label.shape[0]
    for v in prange(n):
        dirty[v] = False
    for v in prange(n):
        if label[v] != prev[v]:
            for e in range(indptr[v], indptr[v + 1]):
                dirty[indices[e]] = True  # threads may both write True to one flag: the same byte
            if use_in:
                for e in range(cindptr[v], cindptr[v + 1]):
                    dirty[cindices[e]] = True


@_pjit
def cdlp_step_par(indptr, indices, cindptr, cindices, use_in, loops_twice, row_base, rows, label, dirty, has_dirty,
                  scratch, keys, counts, stamps, ticks, out, changed_by):
    """out[r] = the new label of local row r, over ``T = len(changed_by)`` threads (thread t: a contiguous block of rows with
    about 1/T of the out-arcs; its own rows of ``scratch``, ``keys``, ``counts``, ``stamps``, and its
    counter ``ticks[t]`` of hashed rows, kept between calls), the same labels; returns how many owned
    labels changed.

    ``has_dirty`` 1: ``dirty[u]`` says whether ``label[u]`` changed in the last superstep, and ``label``
    of every owned vertex is what its row computed then; a row none of whose counted neighbors is
    dirty has the same neighbor multiset, so the same mode: it keeps its label without counting.
    2: ``dirty[v]`` says whether row v counts a changed vertex (:func:`mark_rows`); 0: no flags.
    """
    T = changed_by.shape[0]
    identity = rows.shape[0] == 0
    for t in prange(T):
        sc = scratch[t]
        kt = keys[t]
        ct = counts[t]
        st = stamps[t]
        tick = ticks[t]
        changed = 0
        # a contiguous block of rows holding about 1/T of the arcs (no two threads write one cache line)
        r0, r1 = row_block(indptr, t, T)
        for r in range(r0, r1):
            v = r + row_base if identity else rows[r]
            old = label[v]
            if has_dirty == 2:
                if not dirty[v]:
                    out[r] = old
                    continue
            elif has_dirty == 1:
                hit = False
                for e in range(indptr[r], indptr[r + 1]):
                    if dirty[indices[e]]:
                        hit = True
                        break
                if not hit and use_in:
                    for e in range(cindptr[r], cindptr[r + 1]):
                        if dirty[cindices[e]]:
                            hit = True
                            break
                if not hit:
                    out[r] = old
                    continue
            # best is set on every path before the branches: numba 0.68.0's parfor pass took a
            # variable set only in branches for a reduction across the prange and recursed forever
            best = old  # a row with no neighbor keeps its label
            lo = indptr[r]
            deg = indptr[r + 1] - lo
            counted = False
            if not use_in and 0 < deg <= 4:  # one to four out-neighbors, no loop: in registers
                u0 = indices[lo]
                u1 = indices[lo + 1] if deg > 1 else u0
                u2 = indices[lo + 2] if deg > 2 else u0
                u3 = indices[lo + 3] if deg > 3 else u0
                if not (loops_twice and (u0 == v or u1 == v or u2 == v or u3 == v)):
                    best = _mode_small(deg, label[u0], label[u1], label[u2], label[u3])
                    counted = True
            if not counted:
                k = _row_labels(indptr, indices, cindptr, cindices, use_in, loops_twice, r, v, label, sc)
                if k > 0:
                    tick += 1
                    best = _mode(sc, k, kt, ct, st, tick)
            out[r] = best
            if best != old:
                changed += 1
        changed_by[t] = changed
        ticks[t] = tick
    return changed_by.sum()
