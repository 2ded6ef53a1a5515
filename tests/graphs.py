"""Random test graphs, odd ones included: the shared corpus of the correctness tests.

``corpus(count, seed)`` yields ``(label, kwargs)`` where kwargs go to
``dgraph.from_edges``.  The first cases are the odd ones (empty, single
vertex, self loops only, duplicates, disconnected, isolated vertices, string
ids); the rest are seeded random graphs of mixed size, density and
directedness.
"""

from __future__ import annotations

import numpy as np

ODD = [
    ("empty", dict(src=[], dst=[], num_vertices=0)),
    ("one-vertex", dict(src=[], dst=[], num_vertices=1)),
    ("one-self-loop", dict(src=[0], dst=[0])),
    ("two-isolated", dict(src=[], dst=[], num_vertices=2)),
    ("one-edge", dict(src=[0], dst=[1])),
    ("one-edge-directed-back", dict(src=[1], dst=[0], directed=True)),
    ("duplicates", dict(src=[0, 0, 0, 1, 1], dst=[1, 1, 1, 2, 2])),
    ("self-loops-and-path", dict(src=[0, 0, 1, 1, 2], dst=[0, 1, 1, 2, 2])),
    ("disconnected", dict(src=[0, 1, 3, 4, 6], dst=[1, 2, 4, 5, 6], num_vertices=9)),
    ("directed-cycle", dict(src=[0, 1, 2, 3], dst=[1, 2, 3, 0], directed=True)),
    ("directed-star-in", dict(src=[1, 2, 3, 4], dst=[0, 0, 0, 0], directed=True)),
    ("star", dict(src=[0] * 20, dst=list(range(1, 21)))),
    ("string-ids", dict(src=["b", "a", "c", "x"], dst=["a", "c", "d", "y"])),
    ("negative-ids", dict(src=[-5, -1, 7], dst=[-1, 7, 100])),
    ("big-sparse-ids", dict(src=[10**12, 5, 3], dst=[5, 3, 10**12 + 1], renumber=True)),
]


def random_graph(rng, n=None, directed=None):
    n = int(rng.integers(1, 60)) if n is None else n
    kind = rng.integers(0, 3)
    if kind == 0:      # sparse, often disconnected
        m = int(rng.integers(0, 2 * n + 1))
    elif kind == 1:    # dense
        m = int(rng.integers(n, n * n // 2 + n + 1))
    else:              # skewed: a few hubs
        m = int(rng.integers(n, 4 * n + 1))
    if kind == 2:
        hubs = rng.integers(0, n, size=max(1, n // 10))
        src = np.where(rng.random(m) < 0.5, rng.choice(hubs, m), rng.integers(0, n, m))
    else:
        src = rng.integers(0, n, m)
    dst = rng.integers(0, n, m)
    directed = bool(rng.integers(0, 2)) if directed is None else directed
    extra = int(rng.integers(0, 3))  # isolated vertices at the end
    return dict(src=src, dst=dst, directed=directed, num_vertices=n + extra)


def corpus(count, seed=0):
    yield from ODD
    rng = np.random.default_rng(seed)
    for i in range(max(0, count - len(ODD))):
        yield f"random-{seed}-{i}", random_graph(rng)


def weighted(kwargs, rng, low=0.0, high=10.0, integer=False, zero_fraction=0.1):
    """The same graph with random weights (some exactly zero)."""
    m = len(kwargs["src"])
    w = rng.integers(int(low), int(high) + 1, m) if integer else rng.uniform(low, high, m)
    w = np.where(rng.random(m) < zero_fraction, 0, w)
    return dict(kwargs, weights=w)


def partition_targets(G, parts=(1, 2, 3, 4)):
    """(label, G or a local PartitionedGraph of it, replica hops) for each partition count: range
    partitions for even counts, hash for odd ones, 1-3 hops (the EMV tests' spread)."""
    for p in parts:
        if p > max(G.num_vertices, 1):
            continue
        if p == 1:
            yield "p1", G, 1
        else:
            method = "range" if p % 2 == 0 else "hash"
            hops = 1 + p % 3
            yield f"p{p}-{method}-hops{hops}", G.partition(p, method=method, client=False), hops


#: issue 21 item 12: directed, 7 vertices; two range partitions once gave WCC labels [0 1 0 1 1 1 0]
ISSUE21_12 = dict(src=[2, 2, 4, 4, 5, 6], dst=[4, 6, 3, 5, 1, 0], num_vertices=7, directed=True)


def back_edge_graphs(count, seed=0, directed=True):
    """Sparse graphs whose edges mostly point from a higher id to a lower one: backwards across every
    range cut (and across hash cuts at random), near the size where components start to join.

    The shape that found issue 21 item 12: a partitioned WCC that merged one shard's path-halved
    entries with another shard's hooks split components in about one run in 15 of these graphs (at
    n = 200, m = 0.7 n, p = 2..4), where the random corpus above almost never did.
    """
    rng = np.random.default_rng(seed)
    for i in range(count):
        n = int(rng.integers(60, 240))
        m = int(rng.uniform(0.5, 1.0) * n)
        a, b = rng.integers(0, n, m), rng.integers(0, n, m)
        src, dst = np.maximum(a, b), np.minimum(a, b)
        forward = rng.random(m) < 0.2
        src, dst = np.where(forward, dst, src), np.where(forward, src, dst)
        yield f"back-{seed}-{i}", dict(src=src, dst=dst, num_vertices=n, directed=directed,
                                       weights=rng.integers(0, 8, m).astype(np.float64))
