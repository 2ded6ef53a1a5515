"""The kernel interface of one SCC superstep, and its vectorized reference (numpy or CuPy).

A shard's part of each phase of :class:`~dgraph.algorithms.scc.program.SCC` is one of four
functions of the shard and its state (:class:`~dgraph.algorithms.scc.program.SCCState`: ``rows``
the global id of every owned row, and the replicated ``label``, ``color``, ``visited``,
``removed``, ``frontier``), which they only read; each returns ``(a, b, arcs)``: two arrays (what
the shard contributes, global vertex ids unless said) and the number of arcs it scanned:

- :func:`owned_counts`: per owned row, its in- and out-arcs that are not self loops (the trimming
  counters' start);
- :func:`decrements`: for the owned vertices just removed, their active out-neighbors (whose
  in-count drops) and active in-neighbors (whose out-count drops), one entry per arc;
- :func:`color_step`: forward min-color propagation from the owned frontier vertices: the active
  out-neighbors whose color falls, with their new (smallest offered) color;
- :func:`back_step`: backward reachability from the owned frontier vertices, inside their color:
  the active, unvisited in-neighbors of the same color.

The vectorized versions here (array code on the shard's ``xp``: what CuPy runs, and
``kernels="generic"`` on numpy) are the reference; :mod:`dgraph.algorithms.scc.cpu` has numba
twins that return the same sets.  ``active`` is ``label < 0``; self loops never count (a vertex is
trimmed when it has no *other* active in- or out-neighbor).
"""

from __future__ import annotations

import numpy as np

from ...backend import array_module
from ...backend.primitives import MASK_CHUNK, expand, row_ids_of, scatter_min


def owned_counts(shard, st):
    """``(in_count, out_count, arcs)``: int64 per owned row (local order), arcs that are not self loops.

    A bounded run of arcs at a time (a shard may hold billions).  An undirected graph's two counts
    are one: ``out_count`` is empty.
    """
    out_count = _row_counts(shard.indptr, shard.indices, st.rows)
    if not shard.directed:
        return out_count, out_count[:0], shard.num_arcs
    cindptr, csrc, _ = shard.csc(edge_ids=False)
    return _row_counts(cindptr, csrc, st.rows), out_count, shard.num_arcs + int(cindptr[-1])


def _row_counts(indptr, ends, rows):
    """Entries per CSR row, less the row's self loops (``ends`` equal to the row's global id)."""
    xp = array_module(indptr)
    n = len(indptr) - 1
    counts = (indptr[1:] - indptr[:-1]).astype(np.int64)
    total = int(indptr[-1]) if n else 0
    for a in range(0, total, MASK_CHUNK):
        b = min(total, a + MASK_CHUNK)
        r = row_ids_of(indptr, a, b)
        loops = r[ends[a:b] == rows[r]]
        if len(loops):
            counts -= xp.bincount(loops, minlength=n).astype(np.int64)
    return counts


def decrements(shard, st):
    """``(to_in, to_out, arcs)`` for the owned vertices among ``st.removed`` (just labelled):
    ``to_in`` the targets of their arcs to other active vertices (each loses one in-arc a copy),
    ``to_out`` the sources of their in-arcs from other active vertices (each loses one out-arc).
    An undirected graph's two counters are one: ``to_out`` is empty."""
    loc = shard.local_rows(st.removed)
    to_in, a1 = _active_ends(shard.indptr, shard.indices, loc, st.label)
    if not shard.directed:
        return to_in, to_in[:0], a1
    cindptr, csrc, _ = shard.csc(edge_ids=False)
    to_out, a2 = _active_ends(cindptr, csrc, loc, st.label)
    return to_in, to_out, a1 + a2


def _active_ends(indptr, ends, loc, label):
    """The active ends of the rows ``loc``'s entries (a removed vertex's self loop ends at a labelled
    vertex: it drops out with the inactive ones)."""
    _, eid = expand(indptr, loc)
    far = ends[eid]
    return far[label[far] < 0], len(eid)


def color_step(shard, st):
    """``(ids, vals, arcs)``: the active out-neighbors of the owned ``st.frontier`` vertices that are
    offered a color below their own (ids sorted, each once) and the smallest color offered to each."""
    xp = shard.xp
    rows, label, color = st.rows, st.label, st.color
    loc = shard.local_rows(st.frontier)
    seg, eid = expand(shard.indptr, loc)
    w = shard.indices[eid]
    c = color[rows[loc]][seg]
    keep = (label[w] < 0) & (color[w] > c)
    w, c = w[keep], c[keep]
    ids = xp.unique(w)
    vals = xp.full(len(ids), np.iinfo(color.dtype).max, dtype=color.dtype)
    scatter_min(vals, xp.searchsorted(ids, w), c)
    return ids, vals, len(eid)


def back_step(shard, st):
    """``(ids, empty, arcs)``: the active, unvisited in-neighbors of the owned ``st.frontier``
    vertices that have the same color as the vertex they reach (ids sorted, each once)."""
    xp = shard.xp
    rows, label, color = st.rows, st.label, st.color
    cindptr, csrc, _ = shard.csc(edge_ids=False)
    loc = shard.local_rows(st.frontier)
    seg, eid = expand(cindptr, loc)
    u = csrc[eid]
    keep = (label[u] < 0) & ~st.visited[u] & (color[u] == color[rows[loc]][seg])
    return xp.unique(u[keep]), u[:0], len(eid)


__all__ = ["owned_counts", "decrements", "color_step", "back_step"]
