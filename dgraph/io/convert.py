"""Graphs from in-memory objects: scipy.sparse matrices/arrays and networkx graphs.

Both go through :func:`dgraph.graph.from_edges`, like every reader.
"""

from __future__ import annotations

import numbers

import numpy as np

from ..errors import InputError
from ..graph import from_edges

_DEFAULT = object()


def from_scipy(matrix, directed=None, weighted=None, **options):
    """A Graph from a square scipy.sparse matrix or array (or a dense 2-D numpy array).

    Every stored entry ``(i, j)`` is an edge ``i -> j`` (explicitly stored
    zeros included).  ``directed=None``: undirected when the matrix is
    symmetric (pattern and values), directed otherwise.  ``weighted=None``:
    the values are weights unless the matrix is boolean or all of them are 1.
    An asymmetric matrix read with ``directed=False`` keeps an edge wherever
    either direction has one (the smaller weight when both do).
    ``options`` go to from_edges (``self_loops``, ``dedupe``, ``name``).
    """
    import scipy.sparse as sp  # noqa: PLC0415

    if isinstance(matrix, np.ndarray):
        if matrix.ndim != 2:
            raise InputError(f"from_scipy: expected a 2-D matrix, got an array of shape {matrix.shape}")
        matrix = sp.coo_array(matrix)
    if not sp.issparse(matrix):
        raise InputError(f"from_scipy: expected a scipy.sparse matrix or array, got {type(matrix).__name__}")
    n, m = matrix.shape
    if n != m:
        raise InputError(f"from_scipy: the matrix must be square (one row and one column per vertex), got {n}x{m}")
    coo = sp.coo_array(matrix)
    coo.sum_duplicates()
    rows, cols, data = coo.row.astype(np.int64), coo.col.astype(np.int64), coo.data
    if data.dtype.kind == "c":
        raise InputError("from_scipy: complex values cannot be edge weights")
    symmetric = _symmetric(coo)
    if directed is None:
        directed = not symmetric
    if weighted is None:
        weighted = data.dtype.kind != "b" and not bool(np.all(data == 1))
    weights = None
    if weighted:
        if data.dtype.kind not in "iuf":
            raise InputError(f"from_scipy: weighted=True needs numeric values, got dtype {data.dtype}")
        weights = data.astype(np.int64) if data.dtype.kind in "iu" else data.astype(np.float64, copy=False)
    if not directed and symmetric:  # both triangles hold each edge: keep one copy
        keep = rows <= cols
        rows, cols = rows[keep], cols[keep]
        weights = None if weights is None else weights[keep]
    return from_edges(rows, cols, weights, directed=directed, num_vertices=n, **options)


def _symmetric(coo) -> bool:
    t = coo.T.tocsr()
    a = coo.tocsr()
    if a.nnz != t.nnz:
        return False
    a.sort_indices()
    t.sort_indices()
    return (np.array_equal(a.indptr, t.indptr) and np.array_equal(a.indices, t.indices)
            and np.array_equal(a.data, t.data))


def from_networkx(g, weight=_DEFAULT, **options):
    """A Graph from a networkx Graph/DiGraph (multigraphs: parallel edges merge, min weight).

    Node labels (integers or strings) are kept: results come back in them, and
    isolated nodes stay.  ``weight`` names the edge attribute holding weights:
    by default ``"weight"``, used only when every edge has it; given
    explicitly, every edge must have it; ``None`` ignores weights.
    ``options`` go to from_edges (``self_loops``, ``dedupe``, ``name``).
    """
    try:
        import networkx as nx  # noqa: PLC0415
    except ImportError:  # pragma: no cover - networkx is a dependency
        raise InputError("from_networkx needs networkx installed") from None
    if not isinstance(g, nx.Graph):
        raise InputError(f"from_networkx: expected a networkx graph, got {type(g).__name__}")
    explicit = weight is not _DEFAULT
    attr = "weight" if weight is _DEFAULT else weight
    nodes = list(g.nodes)
    edges = list(g.edges(data=True))
    src = [u for u, _, _ in edges]
    dst = [v for _, v, _ in edges]
    weights = None
    if attr is not None and edges:
        have = [attr in d for _, _, d in edges]
        if all(have):
            values = [d[attr] for _, _, d in edges]
            for (u, v, _), x in zip(edges, values):
                if isinstance(x, bool) or not isinstance(x, numbers.Real):
                    raise InputError(f"from_networkx: edge ({u!r}, {v!r}) has {attr}={x!r}; weights must be numbers")
            weights = np.asarray(values)
            if weights.dtype.kind == "O":
                weights = weights.astype(np.float64)
        elif explicit:
            u, v, _ = edges[have.index(False)]
            raise InputError(f"from_networkx: weight={attr!r} but edge ({u!r}, {v!r}) has no {attr!r} attribute")
    options.setdefault("name", g.name or None)
    return from_edges(_ids(src, nodes), _ids(dst, nodes), weights, directed=g.is_directed(),
                      vertices=_ids(nodes, nodes), **options)


def _ids(values, nodes):
    """Endpoint/node lists as arrays of one kind (ints, or str) for from_edges."""
    if nodes and all(isinstance(x, (int, np.integer)) and not isinstance(x, bool) for x in nodes):
        return np.asarray(values, dtype=np.int64) if values else np.empty(0, np.int64)
    if all(isinstance(x, str) for x in nodes):
        return np.asarray(values, dtype=object) if values else np.empty(0, dtype=object)
    kinds = sorted({type(x).__name__ for x in nodes})
    raise InputError(f"from_networkx: node labels must be all integers or all strings, got {kinds}")
