"""Independent references (scipy / NetworkX) and result validators for the tests."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
import scipy.sparse.csgraph as cg


def reference_depths(G, source_internal):
    """BFS depths by scipy's breadth_first_order on the CSR (-1 when unreachable)."""
    n = G.num_vertices
    depth = np.full(n, -1, dtype=np.int64)
    if n == 0:
        return depth
    A = G.to_scipy()
    A.data[:] = 1.0
    order, pred = cg.breadth_first_order(A, source_internal, directed=True, return_predecessors=True)
    depth[source_internal] = 0
    for v in order[1:]:  # order is BFS order, so the predecessor's depth is known
        depth[v] = depth[pred[v]] + 1
    return depth


def min_parents(G, depth):
    """The smallest-id in-neighbor one level up, for every reached vertex but the root."""
    n = G.num_vertices
    A = sp.coo_matrix(G.to_scipy())
    u, v = A.row, A.col
    ok = (depth[u] >= 0) & (depth[v] == depth[u] + 1)
    best = np.full(n, np.iinfo(np.int64).max)
    np.minimum.at(best, v[ok], u[ok])
    return best


def check_bfs_tree(G, source, depth, parent):
    """Graph500's BFS validation (on internal ids); raises AssertionError with the reason."""
    n = G.num_vertices
    depth = np.asarray(depth, dtype=np.int64)
    parent = np.asarray(parent, dtype=np.int64)
    assert depth.shape == (n,) and parent.shape == (n,)
    assert depth[source] == 0 and parent[source] == source, "the root is its own parent at depth 0"
    reached = depth >= 0
    assert np.all((parent >= 0) == reached), "parent set exactly for reached vertices"
    others = reached.copy()
    others[source] = False
    p = parent[others]
    assert np.all(depth[p] == depth[others] - 1), "each tree edge spans one level"
    A = sp.coo_matrix(G.to_scipy())
    u, v = A.row, A.col
    lookup = set(zip(u.tolist(), v.tolist()))
    for child, par in zip(np.flatnonzero(others).tolist(), p.tolist()):
        assert (par, child) in lookup, f"tree edge {par}->{child} is a graph edge"
    # every edge out of a reached vertex reaches a vertex at most one level deeper
    ru = reached[u]
    assert np.all(reached[v[ru]]), "all vertices adjacent to the tree are in the tree"
    assert np.all(depth[v[ru]] <= depth[u[ru]] + 1), "no edge skips a level"
