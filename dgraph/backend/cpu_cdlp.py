"""CPU (numpy backend) kernel for CDLP: one synchronous label update of a shard's owned rows.

The fused twin of the vectorized step in :mod:`dgraph.algorithms.cdlp`
(``kernels="generic"``), with the same neighbor multiset and the same
result, bit for bit: per owned row, the labels of its out-neighbors (every
stored arc, so a multi-edge counts once per copy), of its in-neighbors for
a directed graph, and, for an undirected graph, of its own self loops once
more (a loop counts twice); the most frequent label wins, the smallest on a
tie; a row with no neighbor keeps its label.

Instead of sorting one int64 key per arc of the shard every iteration (the
generic path: O(arcs) memory and a global sort), each row gathers its
neighbor labels into a scratch buffer of the shard's largest row size and
finds their mode there: a short row (at most ``_SMALL`` labels) by an
insertion sort and a scan of its runs, a longer one by counting in an
open-addressing hash table of at least twice its size (a comparison sort of
a hub's mostly-equal labels was the slow part).  Memory is that buffer, the
table (at most 4x the largest row) and the output.  Row and dtype conventions as in :mod:`dgraph.backend.cpu_kernels`.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from .cpu_kernels import _inline, _jit, _pjit, row_block


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
def _mode(sc, k, keys, counts):
    """The most frequent of sc[:k] (k >= 1), the smallest on a tie; sc may be reordered."""
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
    # count in an open-addressing table of at least 2k slots, then the most frequent, smallest on a tie
    m = 1
    while m < 2 * k:
        m *= 2
    mask = m - 1
    for i in range(m):
        keys[i] = -1
    for i in range(k):
        x = np.int64(sc[i])
        h = (x * np.int64(0x9E3779B1)) & mask
        while keys[h] != -1 and keys[h] != x:
            h = (h + 1) & mask
        if keys[h] == -1:
            keys[h] = x
            counts[h] = 1
        else:
            counts[h] += 1
    best_key = np.int64(-1)
    best_count = 0
    for i in range(m):
        x = keys[i]
        if x != -1:
            c = counts[i]
            if c > best_count or (c == best_count and x < best_key):
                best_count = c
                best_key = x
    return best_key


@_jit
def scratch_size(indptr, indices, cindptr, use_in, loops_twice, row_base, rows):
    """The largest neighbor count of any row (the scratch buffer ``cdlp_step_par`` needs); no per-arc arrays."""
    size = 0
    identity = rows.shape[0] == 0
    for r in range(indptr.shape[0] - 1):
        k = indptr[r + 1] - indptr[r]
        if use_in:
            k += cindptr[r + 1] - cindptr[r]
        if loops_twice:
            v = r + row_base if identity else rows[r]
            for e in range(indptr[r], indptr[r + 1]):
                if indices[e] == v:
                    k += 1
        if k > size:
            size = k
    return size


# -- the threaded step: rows spread over the CPU's threads, rows with no changed neighbor skipped --------



@_pjit
def mark_changed(label, prev, dirty):
    """dirty[v] = label[v] != prev[v]; then prev = label."""
    for v in prange(label.shape[0]):
        dirty[v] = label[v] != prev[v]
        prev[v] = label[v]


@_pjit
def cdlp_step_par(indptr, indices, cindptr, cindices, use_in, loops_twice, row_base, rows, label, dirty, has_dirty,
                  scratch, keys, counts, out, changed_by):
    """out[r] = the new label of local row r, over ``T = len(changed_by)`` threads (thread t: a contiguous block of rows with
    about 1/T of the out-arcs; its own rows of ``scratch``, ``keys``, ``counts``), the same labels; returns
    how many owned labels changed.

    ``has_dirty``: ``dirty[u]`` says whether ``label[u]`` changed in the last superstep, and ``label``
    of every owned vertex is what its row computed then; a row none of whose counted neighbors is
    dirty has the same neighbor multiset, so the same mode: it keeps its label without counting.
    """
    T = changed_by.shape[0]
    identity = rows.shape[0] == 0
    for t in prange(T):
        sc = scratch[t]
        kt = keys[t]
        ct = counts[t]
        changed = 0
        # a contiguous block of rows holding about 1/T of the arcs (no two threads write one cache line)
        r0, r1 = row_block(indptr, t, T)
        for r in range(r0, r1):
            v = r + row_base if identity else rows[r]
            old = label[v]
            if has_dirty:
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
            k = _row_labels(indptr, indices, cindptr, cindices, use_in, loops_twice, r, v, label, sc)
            if k == 0:
                out[r] = old
                continue
            best = _mode(sc, k, kt, ct)
            out[r] = best
            if best != old:
                changed += 1
        changed_by[t] = changed
    return changed_by.sum()
