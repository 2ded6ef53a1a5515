"""The in-edge index (CSC) of a CSR graph, built in bounded memory.

Pull traversals scan a vertex's in-edges in increasing source order (the
first hit is the smallest parent), so the CSC is the CSR's arcs stably
sorted by target.  On a GPU a single stable argsort of every arc holds the
keys, a 64-bit order, the sort's double buffers and a gathered row id at
once: about 40 bytes an arc on top of the graph, far more than the graph
itself (a directed R-MAT scale 22 graph peaked at 3 GB for a 0.5 GB index).
Here the targets are cut into ranges of about ``chunk_arcs`` arcs and each
range is sorted on its own, into its slice of the output, so the scratch is
bounded by the chunk, not the graph.  Rows come from a binary search in the
CSR's row pointers instead of a per-arc row-id array.
"""

from __future__ import annotations

import numpy as np

from ..backend import array_module, to_numpy

#: on a GPU, sort at most this share of the arcs at once (the scratch is ~40 bytes an arc of a chunk)
GPU_CHUNKS = 16
#: ... but never chunks smaller than this (each chunk is a pass over every arc)
MIN_CHUNK_ARCS = 1 << 22


def chunk_arcs_for(num_arcs, gpu):
    """Arcs sorted at once: all of them on the CPU, about 1/GPU_CHUNKS of them on a GPU."""
    if not gpu:
        return max(1, num_arcs)
    return max(MIN_CHUNK_ARCS, -(-num_arcs // GPU_CHUNKS))


def build_csc(indptr, indices, num_vertices, edge_ids=True, chunk_arcs=None):
    """``(indptr, sources, edge ids or None)`` of the in-edges, each target's sources ascending.

    ``sources`` and ``edge ids`` (positions in the CSR arrays) have ``indices``' dtype."""
    xp = array_module(indices)
    n, m = int(num_vertices), len(indices)
    vdt = indices.dtype
    counts = xp.bincount(indices, minlength=n) if m else xp.zeros(n, dtype=np.int64)
    cindptr = xp.zeros(n + 1, dtype=np.int64)
    xp.cumsum(counts, out=cindptr[1:])
    del counts
    sources = xp.empty(m, dtype=vdt)
    eids = xp.empty(m, dtype=vdt) if edge_ids else None
    chunk = chunk_arcs or chunk_arcs_for(m, gpu=xp is not np)
    if m <= chunk:
        ranges = [(0, n)]
    else:  # target ranges [lo, hi) of about `chunk` arcs each (a vertex of more in-edges is a range alone)
        cuts = np.unique(np.concatenate([[0], to_numpy(xp.searchsorted(
            cindptr, xp.arange(chunk, m, chunk, dtype=np.int64), side="right")) - 1, [n]]))
        cuts = cuts[(cuts >= 0) & (cuts <= n)]
        ranges = [(int(a), int(b)) for a, b in zip(cuts[:-1], cuts[1:]) if b > a]
    host_ptr = to_numpy(cindptr[[lo for lo, _ in ranges] + [n]])
    for (lo, hi), a, b in zip(ranges, host_ptr[:-1], host_ptr[1:]):
        if b == a:
            continue
        if (lo, hi) == (0, n):
            pos = _stable_argsort(indices, xp)
        else:
            pos = xp.flatnonzero((indices >= lo) & (indices < hi))  # CSR order: sources ascending
            pos = pos[_stable_argsort(indices[pos], xp)]
        sources[a:b] = (xp.searchsorted(indptr, pos, side="right") - 1).astype(vdt, copy=False)
        if eids is not None:
            eids[a:b] = pos.astype(vdt, copy=False)
        del pos
    return cindptr, sources, eids


def _stable_argsort(keys, xp):
    # CuPy's argsort is a radix sort, which is stable; numpy needs to be asked
    return np.argsort(keys, kind="stable") if xp is np else xp.argsort(keys)




__all__ = ["build_csc", "chunk_arcs_for"]
