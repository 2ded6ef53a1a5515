"""Edge list -> CSR: the one place where a graph's arrays are made.

Cleaning rules, applied in this order: ids are mapped to 0..n-1 (see
:mod:`dgraph.graph.ids`); self loops are dropped when asked; an undirected
graph gets both directions of every edge; duplicate edges are collapsed into
one that keeps the *minimum* weight; rows are sorted by target id.
"""

from __future__ import annotations

import numpy as np

from ..backend import array_module, vertex_dtype
from ..backend.primitives import group_starts
from ..errors import InputError
from .ids import build_ids


def as_array(a, name):
    """Lists, tuples, pandas/arrow columns -> numpy; numpy/cupy pass through."""
    if a is None:
        return None
    if type(a).__module__.startswith("cupy"):
        return a
    if hasattr(a, "to_numpy"):
        a = a.to_numpy()
    arr = np.asarray(a)
    if arr.ndim != 1:
        raise InputError(f"{name}: expected a 1-D array, got shape {arr.shape}")
    return arr


def check_weights(xp, weights, m):
    if weights is None:
        return None
    if len(weights) != m:
        raise InputError(f"weights: expected {m} values (one per edge), got {len(weights)}")
    if weights.dtype.kind not in "iuf":
        if weights.dtype.kind == "b":
            weights = weights.astype(np.int64)
        else:
            raise InputError(f"weights: expected numbers, got dtype {weights.dtype}")
    if weights.dtype.kind == "f":
        bad = ~xp.isfinite(weights)
        if bool(bad.any()):
            i = int(xp.argmax(bad))
            raise InputError(f"weights: edge {i} has weight {float(weights[i])}; weights must be finite numbers")
    return weights


def build_csr(xp, n, src, dst, weights, *, directed, self_loops=True, dedupe=True):
    """Sorted, cleaned CSR arrays ``(indptr int64, indices, weights or None)``."""
    vdt = vertex_dtype(n)
    src = src.astype(np.int64, copy=False)
    dst = dst.astype(np.int64, copy=False)
    if not self_loops:
        keep = src != dst
        src, dst = src[keep], dst[keep]
        weights = None if weights is None else weights[keep]
    if not directed:
        off = src != dst  # a self loop is its own mirror
        src, dst = xp.concatenate([src, dst[off]]), xp.concatenate([dst, src[off]])
        if weights is not None:
            weights = xp.concatenate([weights, weights[off]])
    if n >= 3_000_000_000:
        raise InputError(f"{n} vertices: graphs past 3e9 vertices are not supported yet")
    # One int64 key per edge orders rows by source, then target.  Without
    # weights a plain sort of the keys is enough (and much faster than argsort).
    key = src * n + dst
    if weights is None:
        key = xp.sort(key)
    elif xp is np:
        order = np.argsort(key)
        key, weights = key[order], weights[order]
    else:
        # two stable radix sorts: by weight, then by key, so each run of equal
        # keys starts with its minimum weight (exact; no float atomics)
        order = xp.argsort(weights)
        order = order[xp.argsort(key[order])]
        key, weights = key[order], weights[order]
    if dedupe and len(key) > 1:
        first = group_starts(key)
        if not bool(first.all()):
            if weights is not None:
                if xp is np:
                    weights = np.minimum.reduceat(weights, np.flatnonzero(first))
                else:
                    weights = weights[first]
            key = key[first]
    src = key // max(n, 1)
    dst = key - src * n
    indptr = xp.searchsorted(key, xp.arange(n + 1, dtype=np.int64) * n).astype(np.int64)
    return indptr, dst.astype(vdt), weights


def from_edges(src, dst, weights=None, *, directed=False, num_vertices=None, vertices=None,
               renumber=None, self_loops=True, dedupe=True, name=None):
    """Build a :class:`~dgraph.Graph` from edge arrays (numpy, CuPy, lists, pandas columns).

    Parameters
    ----------
    src, dst : arrays of vertex ids: non-negative integers are used as they are;
        negative integers, strings or ``renumber=True`` map the ids to 0..n-1 and
        every result maps them back.
    weights : optional per-edge numbers (finite; NaN and inf are rejected).
    directed : an undirected graph stores both directions of every edge.
    num_vertices : vertex count when the ids are 0..n-1 and the last ones are isolated.
    vertices : the full vertex id list (isolated vertices included), e.g. from a ``.v`` file.
    self_loops : keep (default) or drop edges ``v -> v``.
    dedupe : collapse duplicate edges into one, keeping the minimum weight.
    The arrays stay on the backend they came on: CuPy arrays give a GPU graph.
    """
    from .graph import Graph  # noqa: PLC0415

    src, dst = as_array(src, "src"), as_array(dst, "dst")
    weights = as_array(weights, "weights")
    if len(src) != len(dst):
        raise InputError(f"src and dst must have the same length, got {len(src)} and {len(dst)}")
    xp = array_module(src, dst, weights)
    if len(src) == 0:  # [] parses as float64; an empty edge list has integer ids
        src, dst = src.astype(np.int64), dst.astype(np.int64)
    if xp is not np:
        src, dst = xp.asarray(src), xp.asarray(dst)
        weights = None if weights is None else xp.asarray(weights)
    weights = check_weights(xp, weights, len(src))
    if num_vertices is not None and (not isinstance(num_vertices, (int, np.integer)) or num_vertices < 0):
        raise InputError(f"num_vertices={num_vertices!r}: expected a non-negative integer")
    ids, s, d = build_ids(xp, src, dst, vertices=vertices, num_vertices=num_vertices, renumber=renumber)
    indptr, indices, w = build_csr(xp, ids.n, s, d, weights, directed=directed,
                                   self_loops=self_loops, dedupe=dedupe)
    return Graph(indptr, indices, w, directed=directed, ids=ids, name=name)
