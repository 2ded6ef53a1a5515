"""Replicas of cross-partition head vertices, n hops deep, and the cost model that picks n.

Medusa (section 4.3) stores every edge in the partition of its *tail* and
keeps there a replica of its head, so each partition computes its messages
locally and only replica values cross partitions, once per superstep.  With
n hops of replicas (the heads of the replicas' in-edges, and so on n deep)
a partition can run n supersteps between refreshes: superstep k of a round
recomputes every vertex within n-1-k hops (owned ones and replicas alike,
the replicas redundantly) from vertices within n-k hops, which are still
exact; after n supersteps only the owned vertices are, and the replicas are
refreshed from their owners.  Fewer exchanges, more edges computed.

``hop_sets`` gives, for one partition, its local vertices level by level
(backwards along in-edges).  ``choose_hops`` is the cost model: per
superstep, the slowest partition's compute (edges and vertices of each
stage, averaged over the round) plus the exchange (a fixed latency per
exchange of the executor, plus bytes) divided by n, for every n whose
local edge count stays within ``STORAGE_FACTOR`` times the one-hop layout's;
the cheapest n wins.  (Medusa's appendix model weighs the same two terms:
replica update cost against extra computation.)
"""

from __future__ import annotations

import numpy as np

#: seconds per exchange (fixed part), by executor: local simulates, spmd is worker-to-worker, tasks goes
#: through the scheduler (DESIGN.md: milliseconds per dependent task level)
LATENCY = {"local": 2e-5, "spmd": 2e-3, "tasks": 2e-2}
EDGE_S = 3e-9     # seconds per buffered message (gather + combine), CPU
VERTEX_S = 2e-9   # seconds per vertex update
BYTE_S = 1e-9     # seconds per exchanged byte
MAX_HOPS = 4
STORAGE_FACTOR = 4.0


def hop_sets(cindptr, cindices, owned_ids, n, max_hops):
    """Levels of local vertices for a partition: ``[owned, hop 1, hop 2, ...]`` (global ids, each level
    sorted but the first) and the in-edge counts of each level, from a global CSC (numpy)."""
    seen = np.zeros(n, dtype=bool)
    seen[owned_ids] = True
    levels = [np.asarray(owned_ids)]
    edges = []
    cur = levels[0]
    for _ in range(max_hops):
        starts, ends = cindptr[cur], cindptr[cur + 1]
        edges.append(int((ends - starts).sum()))
        heads = cindices[_ranges(starts, ends)]
        nxt = np.unique(heads[~seen[heads]])
        seen[nxt] = True
        levels.append(nxt)
        cur = nxt
    return levels, edges


def _ranges(starts, ends):
    """Concatenated aranges [starts[i], ends[i])."""
    lens = ends - starts
    total = int(lens.sum())
    if total == 0:
        return np.empty(0, dtype=np.int64)
    rep = np.repeat(starts - np.concatenate([[0], np.cumsum(lens)[:-1]]), lens)
    return np.arange(total, dtype=np.int64) + rep


def round_cost(levels, edges, hops, row_bytes, executor, p):
    """Estimated seconds per superstep for one partition with ``hops`` hops of replicas."""
    compute = 0.0
    for k in range(hops):
        h = hops - 1 - k  # tails of hop <= h are computed at stage k
        compute += sum(edges[: h + 1]) * EDGE_S + sum(len(lv) for lv in levels[: h + 1]) * VERTEX_S
    replicas = sum(len(lv) for lv in levels[1: hops + 1])
    exchange = LATENCY.get(executor, LATENCY["spmd"]) + replicas * row_bytes * BYTE_S * max(p - 1, 1)
    return (compute + exchange) / hops


def choose_hops(per_part, row_bytes, executor, p, max_hops=MAX_HOPS):
    """The n with the cheapest estimated superstep (the slowest partition counts), within storage.

    ``per_part``: for each partition, (levels, edges) from :func:`hop_sets` with ``max_hops``.
    Returns (n, {n: seconds})."""
    costs = {}
    for hops in range(1, max_hops + 1):
        if any(sum(e[:hops]) > STORAGE_FACTOR * max(e[0], 1) for _, e in per_part):
            break
        costs[hops] = max(round_cost(lv, e, hops, row_bytes, executor, p) for lv, e in per_part)
    best = min(costs, key=lambda h: (costs[h], h))
    return best, costs
