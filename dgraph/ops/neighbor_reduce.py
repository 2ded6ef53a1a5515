"""neighbor_reduce: combine a value over each vertex's neighbors (sum, min or max).

The gather half of gather-apply-scatter, as Gunrock's neighbor-reduce: for
every vertex of a frontier (all vertices by default), reduce
``edge_value(src, dst, eid)`` over its out-edges (``direction='out'``) or
in-edges (``'in'``).  Vertices with no edges get the reduction's identity.
"""

from __future__ import annotations

import numpy as np

from ..backend.primitives import expand, scatter_add, scatter_max, scatter_min
from ..errors import InputError
from .frontier import Frontier

_REDUCERS = {"sum": scatter_add, "min": scatter_min, "max": scatter_max}


def _identity(op, dtype):
    if op == "sum":
        return 0
    big = np.inf if np.dtype(dtype).kind == "f" else np.iinfo(dtype).max
    return big if op == "min" else -big if np.dtype(dtype).kind == "f" else np.iinfo(dtype).min


def neighbor_reduce(G, edge_value, op="sum", *, frontier: Frontier | None = None, direction="out",
                    dtype=np.float64):
    """Per-vertex reduction; returns an array over the frontier's vertices (in its order).

    ``edge_value(src, dst, eid)`` is vectorized; for ``direction='out'`` the
    reduced vertex is ``src``, for ``'in'`` it is ``dst``.
    """
    if op not in _REDUCERS:
        raise InputError(f"op={op!r}: expected one of {sorted(_REDUCERS)}")
    xp = G.xp
    if frontier is None:
        frontier = Frontier(G.num_vertices, ids=xp.arange(G.num_vertices, dtype=np.int64))
    ids = frontier.ids
    if direction == "out":
        seg, eid = expand(G.indptr, ids)
        src, dst = ids[seg], G.indices[eid]
    elif direction == "in":
        indptr, indices, edge_ids = G.csc()
        seg, pos = expand(indptr, ids)
        src, dst = indices[pos], ids[seg]
        eid = pos if edge_ids is None else edge_ids[pos]
    else:
        raise InputError(f"direction={direction!r}: expected 'out' or 'in'")
    values = xp.asarray(edge_value(src, dst, eid), dtype=dtype)
    out = xp.full(len(ids), _identity(op, dtype), dtype=dtype)
    _REDUCERS[op](out, seg, values)
    return out
