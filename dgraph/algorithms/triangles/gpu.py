"""GPU (CuPy backend) triangle counts per vertex on one whole shard: oriented rows, hashed intersections.

The CUDA side of the ``"gpu-oriented"`` implementation (see
:func:`dgraph.algorithms.triangles.implementation`), wrapping ``triangles.cu``
beside this module.  The counts are NetworkX's ``nx.triangles`` on the simple
undirected graph, the integers :class:`~.program.TriangleProgram` gives, and,
for the directed LCC, per vertex also the triangles whose edge opposite the
vertex has arcs both ways (the Program's ``two``).

1. *Oriented rows*, from a CSR whose rows are sorted and symmetric (an
   undirected graph's own; a directed graph's simple symmetric rows, built by
   the Program): three passes of a thread an arc and two prefix sums.  The
   simple arcs (no self loop, no repeat) give the degree ``d``; each arc then
   goes up or down the rank ``(d, id)``, and the arcs are split into the rows
   ``N+(v)`` (to higher ranks) and ``N-(v)`` (to lower ranks), each still
   sorted by id.  ``d+(v) = |N+(v)| <= sqrt(2 E)`` (Schank and Wagner).
2. *The count*: every triangle ``u < w < y`` (in rank) is found once, at its
   middle corner ``w``: ``u`` in ``N-(w)`` and ``y`` in ``N+(u)`` and in
   ``N+(w)``.  A group of threads takes a pivot ``w`` and a slice of its
   ``N-(w)``, puts ``N+(w)`` in a hash table in shared memory and looks up every
   ``y`` of every ``N+(u)`` of the slice: the work is ``sum over u of d+(u)^2``
   look-ups, each O(1) (on an R-MAT scale-20 graph 2.5e9, against 4.4e9 for the
   usual ``N+(u)`` table probed with every ``N+(w)``, and 1.3e10 membership
   tests for the Program's count per vertex).  The lanes of a warp take the
   ``(u, y)`` pairs of 32 ``u`` at a time, flattened, so short rows (most of
   them) keep every lane busy.  Pivots with a small ``N+(w)`` (at most
   :data:`WARP_MAX`) run a warp each with its own table; larger ones a block of
   256 threads with one table; an ``N+(w)`` too large for the shared memory
   (:data:`TABLE_BYTES`) is binary-searched in its sorted row instead.  Hits
   are added up in shared memory (per slot of the table, per ``u``) and reach
   the global counts once per (unit, vertex), not once per triangle (a scale-20
   R-MAT graph has 4.2e8 triangles).

Hub pivots (large ``N-(w)``) are cut into slices of :data:`WARP_SLICE` or
:data:`BLOCK_SLICE` in-neighbors, so no group walks a hub's whole row.  The
counts are integers, added with atomics in any order: the same numbers as the
numpy path, every run.

:func:`count_rows` is the partitioned Program's count superstep on a CuPy shard
(``"gpu-fused"``): the vectorized count's checks and hits, without expanding them.

Nothing here imports CuPy: the arrays' own module does the array work (the
kernels run on CuPy arrays only).
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from ...backend import array_module
from ...cuda import BLOCK, dtype_suffix, function, source

#: the CUDA source (triangles.cu, a package resource, with common.cuh pasted in)
_SOURCE = source(__package__, "triangles.cu")

#: warps a block (the kernels' TC_WARPS: their per-warp shared arrays are sized for it)
WARPS = 8
assert BLOCK == 32 * WARPS, "triangles.cu sizes its shared arrays for blocks of 256 threads"

#: pivots with at most this many higher-ranked neighbours run a warp each, with a table of WARP_SLOTS
WARP_MAX = 64
WARP_SLOTS = 128
#: in-neighbours u of a pivot that one warp (one block) takes: a hub's row is cut into slices
WARP_SLICE = 128
BLOCK_SLICE = 1024
#: the most shared memory one block's hash table may take (the default limit is 48 KiB a block, of
#: which the kernel's own arrays take 6.4 KiB); larger N+(w) rows are binary-searched instead
TABLE_BYTES = 40 * 1024

#: blocks of the grid-stride kernels, a multiprocessor
BLOCKS_PER_SM = 8


def _kernel(name, dtype):
    return function(_SOURCE, f"{name}_{dtype_suffix(dtype)}")


def _grid(count):
    from ...cuda import multiprocessors  # noqa: PLC0415

    return (max(1, min(-(-int(count) // BLOCK), multiprocessors() * BLOCKS_PER_SM)),)


def table_bytes(slots, itemsize, mult):
    """Shared bytes of one hash table (triangles.cu's ``tc_table_bytes``)."""
    b = slots * (itemsize + 4 + (5 if mult else 0))
    return (b + 15) & ~15


def _exclusive(xp, flags):
    """The exclusive prefix sum of 0/1 flags, length + 1 entries (int64)."""
    out = xp.zeros(len(flags) + 1, dtype=np.int64)
    if len(flags):
        xp.cumsum(flags, dtype=np.int64, out=out[1:])
    return out


def oriented(indptr, indices, mult=None):
    """The oriented rows of a symmetric CSR (rows sorted by id; self loops and repeats are dropped).

    ``mult`` (int8 per arc, or None): a value per arc carried into the rows (the directed LCC's
    1-or-2 arcs between the two vertices).  Returns a namespace: ``deg`` (simple degree, int64),
    ``pptr``/``plus``/``pmult`` (``N+``: row pointers, ids, values) and ``mptr``/``minus``/``mmult``
    (``N-``), ``arcs`` (simple arcs, ``sum deg``) and ``edges`` (``|N+|`` summed, the undirected edges).
    """
    xp = array_module(indices)
    n = len(indptr) - 1
    m = int(indptr[-1]) if n > 0 else 0
    vdt = indices.dtype
    valid = xp.empty(m, dtype=np.uint8)
    up = xp.empty(m, dtype=np.uint8)
    if m:
        _kernel("simple_arcs", vdt)(_grid(m), (BLOCK,), (indptr, indices, np.int64(n), valid))
    pvalid = _exclusive(xp, valid)
    at = pvalid[indptr]
    deg = at[1:] - at[:-1]
    if m:
        _kernel("up_arcs", vdt)(_grid(m), (BLOCK,), (indptr, indices, np.int64(n), valid, deg, up))
    pup = _exclusive(xp, up)
    pptr = pup[indptr]
    mptr = at - pptr
    arcs = int(at[-1])
    edges = int(pptr[-1])
    plus = xp.empty(edges, dtype=vdt)
    minus = xp.empty(arcs - edges, dtype=vdt)
    pmult = mmult = None
    if mult is not None:
        pmult = xp.empty(edges, dtype=np.int8)
        mmult = xp.empty(arcs - edges, dtype=np.int8)
    if m and arcs:
        null = np.uint64(0)  # a null pointer: no values to carry
        _kernel("split_arcs", vdt)(_grid(m), (BLOCK,), (
            np.int64(m), indices, valid, up, pvalid, pup, null if mult is None else mult, plus,
            null if mult is None else pmult, minus, null if mult is None else mmult))
    return SimpleNamespace(n=n, deg=deg, pptr=pptr, plus=plus, pmult=pmult, mptr=mptr, minus=minus, mmult=mmult,
                           arcs=arcs, edges=edges)


def plan(o):
    """The count's launches: a list of ``(kernel, group warps, pivots, uscan, units, slice, slots)``.

    Pivots: the vertices with both higher- and lower-ranked neighbours.  Each is cut into units of
    ``slice`` lower-ranked neighbours; ``uscan`` is the inclusive sum of the pivots' unit counts.
    """
    xp = array_module(o.plus)
    if o.edges == 0:
        return []
    vdt = o.plus.dtype
    mult = o.pmult is not None
    dplus = o.pptr[1:] - o.pptr[:-1]
    dminus = o.mptr[1:] - o.mptr[:-1]
    pivot = (dplus > 0) & (dminus > 0)
    cap = 1
    while table_bytes(cap * 2, vdt.itemsize, mult) <= TABLE_BYTES:
        cap *= 2
    biggest = int(dplus.max())
    slots = 1
    while slots < 2 * min(max(biggest, 1), cap // 2):
        slots *= 2
    name = "count_{}" + ("_mult" if mult else "")
    buckets = [(name.format("block"), WARPS, pivot & (dplus > cap // 2), BLOCK_SLICE, 0),
               (name.format("block"), WARPS, pivot & (dplus > WARP_MAX) & (dplus <= cap // 2), BLOCK_SLICE,
                max(slots, WARP_SLOTS)),
               (name.format("warp"), 1, pivot & (dplus <= WARP_MAX), WARP_SLICE, WARP_SLOTS)]
    out = []
    for kernel, gw, sel, slice_, slots_ in buckets:
        pivots = xp.flatnonzero(sel).astype(vdt)
        if len(pivots) == 0:
            continue
        uscan = xp.cumsum((dminus[pivots] + (slice_ - 1)) // slice_)
        out.append((kernel, gw, pivots, uscan, int(uscan[-1]), slice_, slots_))
    return out


def count(o):
    """(triangles per vertex, both-ways triangles per vertex or None): int64 arrays of ``o.n``."""
    xp = array_module(o.plus)
    vdt = o.plus.dtype
    mult = o.pmult is not None
    tri = xp.zeros(o.n, dtype=np.uint64)
    two = xp.zeros(o.n, dtype=np.uint64) if mult else None
    for kernel, gw, pivots, uscan, units, slice_, slots in plan(o):
        groups = WARPS // gw
        null = np.uint64(0)
        _kernel(kernel, vdt)(
            (-(-units // groups),), (BLOCK,),
            (o.pptr, o.plus, o.pmult if mult else null, o.mptr, o.minus, o.mmult if mult else null, pivots, uscan,
             np.int64(len(pivots)), np.int64(units), np.int64(slice_), np.int32(slots), tri,
             two if mult else tri),
            shared_mem=groups * table_bytes(slots, vdt.itemsize, mult))
    return tri.view(np.int64), None if two is None else two.view(np.int64)


#: owned rows' neighbours one warp takes in the partitioned count (count_rows)
ROW_SLICE = 256


def count_rows(pindptr, pnbr, gindptr, gnbr, gmult, tri, two):
    """The partitioned Program's count superstep on a CuPy shard (``"gpu-fused"``): the edges among
    the neighbours of every owned row, added to ``tri`` (and those with ``gmult == 2`` to ``two``).

    ``pindptr``/``pnbr``: the owned rows (sorted global ids, int64); ``gindptr``/``gnbr``/``gmult``:
    the ghost table (CSR over global ids of the oriented rows, int64; int8 or None).  A warp takes a
    row and a slice of :data:`ROW_SLICE` of its neighbours u, and binary-searches every w of every
    ghost row ``N+(u)`` in the row: the checks of the vectorized count, the same hits, no expansion.
    """
    xp = array_module(pnbr)
    rows = len(pindptr) - 1
    if rows <= 0 or len(pnbr) == 0 or len(gnbr) == 0:
        return
    deg = pindptr[1:] - pindptr[:-1]
    uscan = xp.cumsum((deg + (ROW_SLICE - 1)) // ROW_SLICE)
    units = int(uscan[-1])
    if units == 0:
        return
    function(_SOURCE, "count_rows")(
        (-(-units * 32 // BLOCK),), (BLOCK,),
        (pindptr, pnbr, gindptr, gnbr, np.uint64(0) if gmult is None else gmult, uscan, np.int64(rows),
         np.int64(units), np.int64(ROW_SLICE), tri.view(np.uint64), two.view(np.uint64)))


def counts(indptr, indices, mult=None):
    """Triangle counts of a symmetric CSR on the GPU, and the TriangleProgram's statistics.

    Returns ``(tri, two, deg, arcs, edges, checks)``: the triangles at each vertex (int64), those whose
    opposite edge carries ``mult == 2`` (None without ``mult``), the simple degrees, the simple arcs
    (``2 E``), the undirected edges ``E`` (each oriented once) and the Program's membership checks
    (``sum d * d+``, its count's work, reported for comparison).
    """
    o = oriented(indptr, indices, mult)
    tri, two = count(o)
    dplus = o.pptr[1:] - o.pptr[:-1]
    checks = int((o.deg * dplus).sum()) if o.n else 0
    return tri, two, o.deg, o.arcs, o.edges, checks


__all__ = ["oriented", "plan", "count", "counts", "count_rows", "table_bytes", "WARP_MAX", "WARP_SLOTS", "WARP_SLICE",
           "BLOCK_SLICE", "TABLE_BYTES"]
