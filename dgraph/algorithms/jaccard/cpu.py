"""CPU (numpy backend) kernels of the Jaccard coefficient, compiled with numba.

The sequential twins of :mod:`dgraph.algorithms.jaccard.kernels` (the vectorized
``kernels="generic"`` reference, which CuPy runs): the same rows in, the same
integers out, so the same coefficients bit for bit.

Rows are *simple rows* ``S(v)``: the distinct neighbors of ``v`` other than
``v`` itself, sorted, in a CSR (``tptr``, ``tnbr``) over the rows of a table;
``where[x]`` is the table row of vertex ``x`` (see :mod:`.program`).

- :func:`pair_common`: per pair, ``|S(u) & S(v)|`` by a merge of the two
  sorted rows (a binary search of the shorter row in the longer one when
  their lengths differ by more than ``GALLOP`` times), and whether ``v`` is
  in ``S(u)``;
- :func:`pair_coefficients`: the coefficients of pairs of one whole graph straight from its CSR
  (rows sorted, no repeated arc: :func:`rows_sorted_distinct`), with no row table, and a mark
  array per thread for a ``u`` that consecutive pairs share;
- :func:`two_hop_count` / :func:`two_hop_emit`: per row ``u``, the vertices
  ``w > u`` at distance exactly two (reached through a neighbor, not
  adjacent): how many, then which, with their coefficients.
  Rows go to the threads round-robin (hubs spread), each thread with its own
  stamp array of ``n`` int64 (and a count array of ``n`` int64 for emit).
"""

from __future__ import annotations

import types

import numpy as np
from numba import prange

from ...jit import inline as _inline
from ...jit import jit as _jit
from ...jit import pjit as _pjit

#: a shorter row is searched in the longer one (not merged) past this length ratio
GALLOP = 16
#: pair_coefficients marks a ``u`` of at least this many neighbors that the next pair shares
STAMP_MIN = 32
#: pair_coefficients hands its pairs to the threads in blocks of this many
BLOCK = 1024


@_inline
def _sorted_common(nbr, s0, s1, l0, l1, gallop):
    """How many of the sorted ``nbr[s0:s1]`` (the shorter range) are in the sorted ``nbr[l0:l1]``:
    a binary search of the rest of the long range for each (``gallop``, when it is much longer) or
    one merge of the two."""
    c = 0
    if gallop:
        lo = l0
        for e in range(s0, s1):
            x = nbr[e]
            lo = lo + np.searchsorted(nbr[lo:l1], x)
            if lo >= l1:
                break
            if nbr[lo] == x:
                c += 1
        return c
    e = s0
    f = l0
    while e < s1 and f < l1:
        x = nbr[e]
        y = nbr[f]
        if x == y:
            c += 1
            e += 1
            f += 1
        elif x < y:
            e += 1
        else:
            f += 1
    return c


def _pair_common(tptr, tnbr, ru, rv, v, common, adj):
    """``common[i] = |S(ru[i]) & S(rv[i])|`` and ``adj[i] = 1`` when ``v[i]`` is in ``S(ru[i])``."""
    for i in prange(ru.shape[0]):
        a0 = tptr[ru[i]]
        a1 = tptr[ru[i] + 1]
        b0 = tptr[rv[i]]
        b1 = tptr[rv[i] + 1]
        k = a0 + np.searchsorted(tnbr[a0:a1], v[i])
        adj[i] = 1 if k < a1 and tnbr[k] == v[i] else 0
        la = a1 - a0
        lb = b1 - b0
        if la > lb:  # a is the shorter row
            a0, a1, b0, b1 = b0, b1, a0, a1
            la, lb = lb, la
        common[i] = _sorted_common(tnbr, a0, a1, b0, b1, la * GALLOP < lb)


@_inline
def _member(indices, a0, a1, x):
    """1 when ``x`` is in the sorted ``indices[a0:a1]``, else 0."""
    k = a0 + np.searchsorted(indices[a0:a1], x)
    return 1 if k < a1 and indices[k] == x else 0


def _pair_coefficients(indptr, indices, pu, pv, marks, out):
    """``out[i]``: the coefficient of ``(pu[i], pv[i])`` straight from a CSR whose rows are sorted and
    hold no repeats (a row may hold its own vertex: a self loop).  Returns the sum of
    ``min(|S(u)|, |S(v)|)`` (the ``checks`` a pair run reports).

    With no repeats, ``|N(v)|`` is the row's length, self loop included; ``S(v)`` is the row less
    ``v``.  ``|N(u) & N(v)|`` is counted whole, then ``u`` and ``v`` taken out where both rows hold
    them, which leaves ``|S(u) & S(v)|``; then the same integers and the same float64 division as
    :func:`.kernels.coefficients`.  The count is the cheapest of: a merge of the two rows, a binary
    search of the shorter in the longer (past ``GALLOP`` times longer), or, while consecutive pairs
    share their ``u`` of ``STAMP_MIN`` or more neighbors (link prediction's usual query: a vertex's
    candidates in a row), one read a neighbor of ``v`` in ``u``'s marks (``marks``: (threads, n)
    uint8 zeros, each thread's own, left zero).  Pairs go to the threads in blocks of ``BLOCK``.
    """
    T = marks.shape[0]
    P = pu.shape[0]
    checks = 0
    for t in prange(T):
        mk = marks[t]
        mine = 0
        for i0 in range(t * BLOCK, P, T * BLOCK):
            i1 = min(P, i0 + BLOCK)
            marked = -1
            for i in range(i0, i1):
                u = pu[i]
                v = pv[i]
                a0 = indptr[u]
                a1 = indptr[u + 1]
                b0 = indptr[v]
                b1 = indptr[v + 1]
                lu = _member(indices, a0, a1, u)
                va = _member(indices, a0, a1, v)
                lv = _member(indices, b0, b1, v)
                ub = _member(indices, b0, b1, u)
                du = a1 - a0
                dv = b1 - b0
                mine += min(du - lu, dv - lv)
                if marked != u and du >= STAMP_MIN and i + 1 < i1 and pu[i + 1] == u:
                    if marked >= 0:
                        for e in range(indptr[marked], indptr[marked + 1]):
                            mk[indices[e]] = 0
                    for e in range(a0, a1):
                        mk[indices[e]] = 1
                    marked = u
                if du <= dv:
                    s0, s1, l0, l1 = a0, a1, b0, b1
                else:
                    s0, s1, l0, l1 = b0, b1, a0, a1
                short = s1 - s0
                gallop = short * GALLOP < l1 - l0
                c = 0
                if marked == u and dv <= (short * 8 if gallop else du + dv):
                    for f in range(b0, b1):
                        c += mk[indices[f]]
                else:
                    c = _sorted_common(indices, s0, s1, l0, l1, gallop)
                c -= lu * ub                   # u in both rows (a loop on u, and v -> u)
                if u != v:
                    c -= va * lv               # v in both rows
                    union = du + dv - (c + va * (lu + lv))
                else:
                    union = du
                out[i] = np.float64(c) / np.float64(union) if union > 0 else 0.0
            if marked >= 0:
                for e in range(indptr[marked], indptr[marked + 1]):
                    mk[indices[e]] = 0
        checks += mine
    return checks


def _rows_sorted_distinct(indptr, indices):
    """Whether every row of the CSR is strictly increasing (sorted, no repeated arc).  A row's
    failures are counted, not searched for (a loop without an exit, which the compiler vectorizes)."""
    n = indptr.shape[0] - 1
    for v in range(n):
        bad = 0
        for e in range(indptr[v] + 1, indptr[v + 1]):
            bad += indices[e] <= indices[e - 1]
        if bad:
            return False
    return True


def _two_hop_count(tptr, tnbr, where, urows, ugid, stamp, counts):
    """``counts[i]``: the vertices ``w > ugid[i]`` not adjacent to it and sharing a neighbor with it.

    ``urows[i]``: the table row of vertex ``ugid[i]``; every neighbor ``x`` of it has its row at
    ``where[x]``.  ``stamp``: (threads, n) int64 scratch filled with -1 (``2u`` marks a neighbor
    of row ``u``, ``2u + 1`` a vertex counted for it)."""
    T = stamp.shape[0]
    m = urows.shape[0]
    for t in prange(T):
        st = stamp[t]
        for i in range(t, m, T):
            r = urows[i]
            g = ugid[i]
            near = 2 * g
            seen = near + 1
            a0 = tptr[r]
            a1 = tptr[r + 1]
            for e in range(a0, a1):
                st[tnbr[e]] = near
            k = 0
            for e in range(a0, a1):
                rx = where[tnbr[e]]
                for f in range(tptr[rx], tptr[rx + 1]):
                    w = tnbr[f]
                    if w > g:
                        s = st[w]
                        if s != near and s != seen:
                            st[w] = seen
                            k += 1
            counts[i] = k


def _two_hop_emit(tptr, tnbr, where, urows, ugid, degree, offsets, stamp, cnt, out_v, out_p):
    """The pairs :func:`two_hop_count` counts: row ``i``'s partners ``w`` (ascending) into
    ``out_v[offsets[i]:offsets[i + 1]]`` and their coefficients into ``out_p``: ``c / (degree[u] +
    degree[w] - c)``, ``c`` the number of common neighbors (``degree``: ``|N|`` of every vertex).

    ``stamp`` as in :func:`two_hop_count`; ``cnt``: (threads, n) int64 scratch (any values)."""
    T = stamp.shape[0]
    m = urows.shape[0]
    for t in prange(T):
        st = stamp[t]
        ct = cnt[t]
        for i in range(t, m, T):
            r = urows[i]
            g = ugid[i]
            near = 2 * g
            seen = near + 1
            a0 = tptr[r]
            a1 = tptr[r + 1]
            for e in range(a0, a1):
                st[tnbr[e]] = near
            o0 = offsets[i]
            k = o0
            for e in range(a0, a1):
                rx = where[tnbr[e]]
                for f in range(tptr[rx], tptr[rx + 1]):
                    w = tnbr[f]
                    if w > g:
                        s = st[w]
                        if s == seen:
                            ct[w] += 1
                        elif s != near:
                            st[w] = seen
                            ct[w] = 1
                            out_v[k] = w
                            k += 1
            out_v[o0:k].sort()
            dg = degree[g]
            for j in range(o0, k):
                w = out_v[j]
                c = ct[w]
                out_p[j] = np.float64(c) / np.float64(dg + degree[w] - c)


#: the kernels over the CPU's threads, and the same code in one thread (work too small to wake them up)
pair_common = _pjit(_pair_common)
pair_coefficients = _pjit(_pair_coefficients)
rows_sorted_distinct = _jit(_rows_sorted_distinct)
two_hop_count = _pjit(_two_hop_count)
two_hop_emit = _pjit(_two_hop_emit)


def _serial(fn):
    """``fn`` again under its own name: numba's on-disk cache keys a function by its name and types,
    not by ``parallel``, so the serial build must not share the threaded one's name."""
    twin = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__ + "_serial", fn.__defaults__, fn.__closure__)
    twin.__qualname__ = fn.__qualname__ + "_serial"
    return _jit(twin)


pair_common_serial = _serial(_pair_common)
pair_coefficients_serial = _serial(_pair_coefficients)
two_hop_count_serial = _serial(_two_hop_count)
two_hop_emit_serial = _serial(_two_hop_emit)

#: below this many arcs in the rows a call reads, the serial twin runs
SERIAL_ARCS = 1 << 14


def kernel(name, arcs):
    """The threaded kernel ``name``, or its serial twin when the call reads fewer than SERIAL_ARCS arcs."""
    return globals()[name + ("_serial" if arcs < SERIAL_ARCS else "")]


__all__ = ["pair_common", "pair_coefficients", "rows_sorted_distinct", "two_hop_count", "two_hop_emit", "kernel",
           "GALLOP", "STAMP_MIN", "BLOCK", "SERIAL_ARCS"]
