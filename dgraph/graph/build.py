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
from .ids import SPARSE_FACTOR, build_ids, id_array, plan_ids, same_kind

#: the one int64 sort key per edge (source * n + target) limits a graph to this many vertices
MAX_VERTICES = 3_000_000_000


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
    if weights.dtype.kind == "u":  # exactly as int64, or refused (a cast would wrap)
        if m and int(weights.max()) > np.iinfo(np.int64).max:
            i = int(xp.argmax(weights > np.uint64(np.iinfo(np.int64).max)))
            raise InputError(f"weights: edge {i} has weight {int(weights[i])}, past the int64 range; "
                             "give float weights to use values this large")
        weights = weights.astype(np.int64)
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
    if n >= MAX_VERTICES:
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
    indptr = xp.searchsorted(key, xp.arange(n + 1, dtype=np.int64) * n).astype(np.int64, copy=False)
    return indptr, dst.astype(vdt), weights


def from_edges(src, dst, weights=None, *, directed=False, num_vertices=None, vertices=None,
               renumber=None, self_loops=True, dedupe=True, name=None):
    """Build a :class:`~dgraph.Graph` from edge arrays (numpy, CuPy, lists, pandas columns).

    Parameters
    ----------
    src, dst : arrays of vertex ids, all integers (int64 exactly: integral floats and
        uint64 within int64 too) or all strings.  Non-negative integers are used as
        they are unless they are sparse (the largest is at least 2**20 and at least
        8 times the edge count); sparse or negative integers, strings, or
        ``renumber=True`` map the ids to 0..n-1 and every result maps them back.
        ``renumber=False`` keeps them as they are, however sparse.
    weights : optional per-edge numbers (finite; NaN and inf are rejected).
    directed : an undirected graph stores both directions of every edge.
    num_vertices : vertex count when the ids are 0..n-1 and the last ones are isolated.

    Raises GraphTooLargeError, before the graph's arrays are made, when building it would
    not fit in host memory (numpy) or on the GPU (CuPy), saying how much it needs.
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
    if xp is not np:
        src, dst = xp.asarray(src), xp.asarray(dst)
        weights = None if weights is None else xp.asarray(weights)
    src, dst = id_array(xp, src, "src"), id_array(xp, dst, "dst")
    same_kind([("src", src), ("dst", dst)])
    if len(src) == 0 and src.dtype.kind != "i" and dst.dtype.kind != "i":  # [] parses as float64
        src, dst = src.astype(np.int64), dst.astype(np.int64)
    weights = check_weights(xp, weights, len(src))
    if num_vertices is not None and (isinstance(num_vertices, (bool, np.bool_))
                                     or not isinstance(num_vertices, (int, np.integer)) or num_vertices < 0):
        raise InputError(f"num_vertices={num_vertices!r}: expected a non-negative integer")
    plan = plan_ids(xp, src, dst, vertices=vertices, num_vertices=num_vertices, renumber=renumber)
    if not plan.renumber and plan.n >= MAX_VERTICES:
        raise InputError(f"{plan.n:,} vertices (ids up to {plan.max_id:,}): graphs past 3e9 vertices are not "
                         "supported yet; renumber=True keeps only the ids the edges use")
    require_build_memory(xp, src, dst, weights, plan, directed=directed, name=name)
    ids, s, d = build_ids(xp, src, dst, vertices=vertices, num_vertices=num_vertices, renumber=renumber, plan=plan)
    indptr, indices, w = build_csr(xp, ids.n, s, d, weights, directed=directed,
                                   self_loops=self_loops, dedupe=dedupe)
    return Graph(indptr, indices, w, directed=directed, ids=ids, name=name)


def require_build_memory(xp, src, dst, weights, plan, *, directed, name=None):
    """GraphTooLargeError unless building the graph fits in host memory (numpy) or on the GPU.

    Runs before the ids are renumbered or any array of the graph is made: the estimate
    (:func:`dgraph.backend.device_memory.build_bytes`) counts the edges and the vertices the ids
    ask for, so a tiny file whose ids go up to 2e9 is refused here, with the size, rather than
    killed by the OOM killer."""
    from ..backend import device_memory  # noqa: PLC0415

    m = len(src)
    device = "host" if xp is np else "gpu"
    need = device_memory.build_bytes(m, directed, weights is not None, plan.n, renumber=plan.renumber,
                                     device=device)
    if device == "gpu":  # the GPU figures count the input edges, which are already made
        need -= sum(a.nbytes for a in (src, dst, weights) if a is not None)
    advice = None
    if not plan.renumber and plan.max_id is not None and plan.n > max(1, SPARSE_FACTOR * m):
        advice = (f"its vertex ids go up to {plan.max_id:,} for {device_memory.count(m, 'edge')}: renumber=True "
                  "keeps only the ids the edges use")
    what = (f"building graph {name + ' ' if name else ''}({device_memory.count(plan.n, 'vertex', 'vertices')}, "
            f"{device_memory.count(m, 'edge')})")
    device_memory.require(max(0, need), what, device=device, advice=advice)
