"""Check a partitioned run's answer on the workers, each over its own shard's edges.

For graphs too large to gather anywhere, the result is checked where the
graph is: every worker gets the per-vertex result (it is O(n): a replicated
result, or every shard's part of a partitioned one, as BFS's is; the edges
are O(m) and stay put) and checks the arcs of its shard, a bounded block of
rows at a time.  The checks are the ones that prove the answer, not a comparison
with another implementation:

- BFS: the five Graph500 validation checks (the source is its own parent at
  depth 0; every other reached vertex's parent is one level up; every tree
  edge is an edge of the graph; no edge spans more than one level; no edge
  leaves the reached set), and the edges the search traversed (for TEPS);
- PageRank: the ranks are non-negative and sum to 1 (within ``tol``);
- WCC: both ends of every edge carry the same label, and each label is the
  smallest vertex id of its component (it labels itself and is no larger
  than any vertex it labels).

Each returns a dict of violation counts (all 0 when the answer is right)
and a few totals.
"""

from __future__ import annotations

import numpy as np

from ..engine.program import sum_counts
from ..errors import InputError

#: rows of a shard checked at once: their arcs are expanded into per-arc arrays
ROW_BLOCK_ARCS = 1 << 26


def _result_parts(PG, r):
    """The futures of ``r``'s per-shard results on the workers (one, shard 0's, when replicated)."""
    remote = getattr(r, "_remote", None)
    if remote is None or r._cols is not None:
        raise InputError("verify: the result is not on the workers any more (it was read); run it again and "
                         "verify before reading it")
    return remote.futures()


def _result_future(PG, r):
    """The future of a replicated result (every vertex's values on shard 0's worker)."""
    futures = _result_parts(PG, r)
    if len(futures) != 1:
        raise InputError("verify: this check needs the whole per-vertex result on one worker (a replicated result)")
    return futures[0]


def _per_shard(PG, fn, result, *args):
    futs = [PG.client.submit(fn, shard, result, *args, workers=[w], pure=False)
            for shard, w in zip(PG.shards, PG.workers)]
    return PG.client.gather(futs)


def _whole(shard, parts):
    """Every vertex's columns from ``parts``: one replicated result, or each shard's own vertices
    (the other shards' parts come to this worker: O(n), as a replicated result does), each part
    copied into its place in one array a column."""
    if len(parts) == 1:
        return parts[0]
    return {name: shard.place_owned(shard.xp.empty(shard.n, dtype=parts[0][name].dtype),
                                    [part[name] for part in parts])
            for name in parts[0]}


def _blocks(shard):
    """``(row lo, row hi, arc lo, arc hi)`` blocks of at most ROW_BLOCK_ARCS arcs (at least one row)."""
    indptr = shard.indptr.get() if shard.backend == "cupy" else shard.indptr
    r0, rows = 0, shard.num_rows
    while r0 < rows:
        r1 = int(np.searchsorted(indptr, indptr[r0] + ROW_BLOCK_ARCS, side="right")) - 1
        r1 = min(max(r1, r0 + 1), rows)
        yield r0, r1, int(indptr[r0]), int(indptr[r1])
        r0 = r1


def _arc_rows(xp, shard, r0, r1, a, b):
    """Global source vertex of each arc in ``[a, b)`` (rows ``[r0, r1)``)."""
    local = xp.searchsorted(shard.indptr[r0:r1 + 1] - a, xp.arange(b - a, dtype=np.int64), side="right") - 1 + r0
    return shard.global_rows()[local].astype(np.int64)


# -- BFS ------------------------------------------------------------------------------------------

def verify_bfs(PG, r, source):
    """Graph500's five checks of a BFS result ``r`` of ``PG`` from internal vertex ``source``."""
    return sum_counts(_per_shard(PG, _bfs_parts, _result_parts(PG, r), int(source)))


def _bfs_parts(shard, parts, source):
    return _bfs_shard(shard, _whole(shard, parts), source)


def _bfs_shard(shard, columns, source):
    xp = shard.xp
    depth = xp.asarray(columns["depth"]).astype(np.int64)
    parent = xp.asarray(columns["parent"]).astype(np.int64)
    rows = shard.global_rows().astype(np.int64)
    out = {"root": 0, "tree_level": 0, "tree_edge_missing": 0, "edge_span": 0, "edge_leaves_reached": 0,
           "reached": 0, "traversed_arcs": 0}
    if shard.part == 0:
        out["root"] = int(not (int(depth[source]) == 0 and int(parent[source]) == source))
    mine_d, mine_p = depth[rows], parent[rows]
    reached = mine_d >= 0
    out["reached"] = int(reached.sum())
    # 2: a reached vertex other than the source has a parent one level up (so the parents form a tree)
    other = reached & (rows != source)
    good = (mine_p >= 0) & (depth[xp.maximum(mine_p, 0)] == mine_d - 1)
    out["tree_level"] = int((other & ~good).sum()) + int((~reached & (mine_p != -1)).sum())
    # 5: the tree edge (parent, v) is an edge: parent is in v's in-neighbors (its row when undirected)
    indptr, nbrs, _ = shard.csc(edge_ids=False)
    want = xp.where(other, mine_p, -1)
    lo, hi = indptr[:-1].copy(), indptr[1:].copy()
    for _ in range(64):  # binary search in the sorted rows, every vertex at once
        active = lo < hi
        if not bool(active.any()):
            break
        mid = (lo + hi) // 2
        go_right = active & (nbrs[xp.minimum(mid, max(len(nbrs) - 1, 0))].astype(np.int64) < want)
        lo = xp.where(go_right, mid + 1, lo)
        hi = xp.where(active & ~go_right, mid, hi)
    found = (lo < indptr[1:]) & (nbrs[xp.minimum(lo, max(len(nbrs) - 1, 0))].astype(np.int64) == want) \
        if len(nbrs) else xp.zeros(len(rows), dtype=bool)
    out["tree_edge_missing"] = int((other & ~found).sum())
    # 3, 4: over the out-arcs (u, v): no arc spans more than a level; none leaves the reached set
    for r0, r1, a, b in _blocks(shard):
        if b == a:
            continue
        u = _arc_rows(xp, shard, r0, r1, a, b)
        v = shard.indices[a:b].astype(np.int64)
        du, dv = depth[u], depth[v]
        both = (du >= 0) & (dv >= 0)
        if shard.directed:
            out["edge_span"] += int((both & (dv > du + 1)).sum())
            out["edge_leaves_reached"] += int(((du >= 0) & (dv < 0)).sum())
        else:
            out["edge_span"] += int((both & (xp.abs(du - dv) > 1)).sum())
            out["edge_leaves_reached"] += int(((du >= 0) != (dv >= 0)).sum())
        out["traversed_arcs"] += int((du >= 0).sum())
    return out


# -- PageRank -----------------------------------------------------------------------------------------

def verify_pagerank(PG, r, tol=1e-9):
    """The ranks are finite, non-negative and sum to 1 within ``tol``."""
    f = _result_future(PG, r)
    rep = PG.client.submit(_pagerank_sums, f, workers=[PG.workers[0]], pure=False).result()
    rep["mass_off"] = int(abs(rep["sum"] - 1.0) > tol)
    return rep


def _pagerank_sums(columns):
    x = columns["pagerank"]
    xp = np if isinstance(x, np.ndarray) else __import__("cupy")
    return {"sum": float(xp.sum(x, dtype=np.float64)), "negative": int((x < 0).sum()),
            "not_finite": int((~xp.isfinite(x)).sum())}


# -- WCC ------------------------------------------------------------------------------------------------

def verify_wcc(PG, r):
    """Both ends of every arc have the same label; a label is the smallest id of its component."""
    return sum_counts(_per_shard(PG, _wcc_shard, _result_future(PG, r)))


def _wcc_shard(shard, columns):
    xp = shard.xp
    label = xp.asarray(columns["component"]).astype(np.int64)
    rows = shard.global_rows().astype(np.int64)
    mine = label[rows]
    out = {"edge_labels_differ": 0,
           "label_above_vertex": int((mine > rows).sum()),
           "label_not_own": int((label[mine] != mine).sum()),
           "components_rooted_here": int((mine == rows).sum())}
    for r0, r1, a, b in _blocks(shard):
        if b > a:
            u = _arc_rows(xp, shard, r0, r1, a, b)
            out["edge_labels_differ"] += int((label[u] != label[shard.indices[a:b].astype(np.int64)]).sum())
    return out


def violations(report):
    """The checks of a report that failed (counts above 0), ignoring its totals."""
    totals = ("reached", "traversed_arcs", "components_rooted_here", "sum")
    return {k: v for k, v in report.items() if k not in totals and v}
