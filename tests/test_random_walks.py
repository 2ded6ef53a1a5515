"""dgraph.random_walks against a walker written from the spec, NetworkX's edges and the distributions.

NetworkX has no random-walk function, so the references are:

- :func:`reference_walks`, a plain-Python walker over NetworkX's adjacency written from the
  documented semantics (its own splitmix64 on Python ints, the draws keyed by (seed, walk, step,
  attempt), the node2vec test as ``H.has_edge(t, x)``): every implementation, backend, executor
  and partition count must give its paths exactly;
- NetworkX's graph: every step of every path is one of its edges, and a walk stops (-1 after)
  exactly at a vertex without out-edges;
- the distributions: chi-square tests of the next step on small graphs with many walks
  (uniform, node2vec's 1/p, 1, 1/q, weights, duplicate edges), fixed seeds, so deterministic.
"""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from graphs import corpus, weighted
from scipy import stats as sps

import dgraph
from dgraph.errors import GraphTooLargeError, InputError, VertexNotFoundError

MASK = (1 << 64) - 1
GOLD = 0x9E3779B97F4A7C15
STREAM = 6  # dgraph.generators.rng.STREAM_WALKS


# -- the reference walker -----------------------------------------------------------------------

def _mix(x):
    x &= MASK
    x ^= x >> 30
    x = (x * 0xBF58476D1CE4E5B9) & MASK
    x ^= x >> 27
    x = (x * 0x94D049BB133111EB) & MASK
    return x ^ (x >> 31)


def _unit(x):
    return (x >> 11) * 2.0 ** -53


def nx_graph(kw):
    """The NetworkX graph of ``dgraph.from_edges(**kw)``: a multigraph with ``dedupe=False``;
    otherwise duplicates collapse keeping the minimum weight, as dgraph's build does."""
    directed = kw.get("directed", False)
    multi = kw.get("dedupe", True) is False
    H = (nx.MultiDiGraph if multi else nx.DiGraph)() if directed else (nx.MultiGraph if multi else nx.Graph)()
    if kw.get("num_vertices") is not None:
        H.add_nodes_from(range(kw["num_vertices"]))
    src, dst = list(kw["src"]), list(kw["dst"])
    H.add_nodes_from(src + dst)
    w = kw.get("weights")
    edges = [(u, v, {} if w is None else {"weight": float(w[i])}) for i, (u, v) in enumerate(zip(src, dst))]
    if w is not None and not multi:  # the last one added wins in NetworkX: add the smallest last
        edges.sort(key=lambda e: -e[2]["weight"])
    H.add_edges_from(edges)
    return H


def _arcs(H, v):
    """Out-arcs of ``v`` as dgraph stores them: (target, weight), sorted by target, one per parallel edge."""
    out = []
    for x, data in sorted(H.adj[v].items(), key=lambda kv: kv[0]):
        copies = list(data.values()) if H.is_multigraph() else [data]
        out.extend((x, c.get("weight", 1.0)) for c in copies)
    return out


def reference_walks(H, starts, length, seed=0, p=1.0, q=1.0, weighted=False, missing=-1, first_walk=0):
    """The walks of the documented semantics, one Python loop a draw (see dgraph.random_walks); the walk
    from ``starts[i]`` is walk number ``first_walk + i``."""
    key = _mix(_mix(seed) ^ _mix(STREAM * GOLD))
    biased = p != 1 or q != 1
    a_ret, a_out = 1.0 / p, 1.0 / q
    a_max = max(a_ret, 1.0, a_out)
    paths = []
    for i, v0 in enumerate(starts):
        path = [v0]
        wkey = _mix(key + (first_walk + i) * GOLD)
        for s in range(length):
            v = path[-1]
            arcs = _arcs(H, v)
            wmax = max((w for _, w in arcs), default=0.0)
            if not arcs or (weighted and not wmax > 0):
                break
            skey = _mix(wkey + s * GOLD)
            a = 0
            while True:
                x, w = arcs[_mix(skey + 3 * a * GOLD) % len(arcs)]
                if len(arcs) == 1:
                    break
                if weighted and not _unit(_mix(skey + (3 * a + 1) * GOLD)) * wmax < w:
                    a += 1
                    continue
                if biased and s > 0:
                    t = path[-2]
                    alpha = a_ret if x == t else 1.0 if H.has_edge(t, x) else a_out
                    if not _unit(_mix(skey + (3 * a + 2) * GOLD)) * a_max < alpha:
                        a += 1
                        continue
                break
            path.append(x)
        paths.append(path + [missing] * (length + 1 - len(path)))
    return paths


def check_valid(H, starts, r):
    """Every step of ``r``'s paths an edge of H, the start first, and a walk cut short (the missing
    value after it) exactly where it stands on a vertex without out-edges."""
    paths, internal, length = r.paths.tolist(), r.raw("paths"), r.length
    assert len(paths) == len(starts)
    for start, path, ids in zip(starts, paths, internal):
        k = int((ids >= 0).sum())                      # the vertices the walk visited (-1s only at its end)
        assert (ids[:k] >= 0).all() and (ids[k:] == -1).all()
        assert len(path) == length + 1 and path[0] == start
        for u, v in zip(path[:k - 1], path[1:k]):
            assert H.has_edge(u, v), (u, v, path)
        if k <= length:
            assert (H.out_degree(path[k - 1]) if H.is_directed() else H.degree(path[k - 1])) == 0, path
            assert all(v == (-1 if r.ids.is_integer else None) for v in path[k:]), path


def _starts(H, rng):
    nodes = sorted(H.nodes)
    if not nodes:
        return []
    extra = [nodes[int(i)] for i in rng.integers(0, len(nodes), 3)]
    return nodes + extra


def _paths_list(r):
    return [list(row) for row in r.paths.tolist()]


# -- (a), (d): the reference and NetworkX's edges on >= 100 graphs, odd ones included -------------

CORPUS = list(corpus(110, seed=23))


@pytest.mark.parametrize("bias", [(1.0, 1.0), (0.5, 2.0), (4.0, 0.25)], ids=["uniform", "p0.5-q2", "p4-q0.25"])
def test_corpus_equals_reference_and_follows_edges(bias):
    p, q = bias
    rng = np.random.default_rng(5)
    compared = 0
    for label, kw in CORPUS:
        G = dgraph.from_edges(**kw)
        H = nx_graph(kw)
        starts = _starts(H, rng)
        missing = None if not G.ids.is_integer else -1
        seed = int(rng.integers(0, 2**63))
        r = dgraph.random_walks(G, starts, 5, seed=seed, p=p, q=q)
        got = _paths_list(r)
        want = reference_walks(H, starts, 5, seed=seed, p=p, q=q, missing=missing)
        assert got == want, label
        check_valid(H, starts, r)
        assert r.params["implementation"] == "cpu-numba"
        generic = dgraph.random_walks(G, starts, 5, seed=seed, p=p, q=q, kernels="generic")
        assert generic.params["implementation"] == "generic"
        assert _paths_list(generic) == want, label
        assert generic.edges_touched == r.edges_touched
        compared += 1
    assert compared >= 100


def test_weighted_corpus_equals_reference():
    rng = np.random.default_rng(11)
    compared = 0
    for label, kw in CORPUS[:60]:
        kw = weighted(kw, rng, low=0.0, high=5.0, integer=compared % 2 == 0)
        G = dgraph.from_edges(**kw)
        H = nx_graph(kw)
        starts = _starts(H, rng)
        missing = None if not G.ids.is_integer else -1
        for p, q in ((1.0, 1.0), (0.5, 2.0)):
            r = dgraph.random_walks(G, starts, 4, seed=compared, p=p, q=q, weighted=True)
            want = reference_walks(H, starts, 4, seed=compared, p=p, q=q, weighted=True, missing=missing)
            assert _paths_list(r) == want, label
            generic = dgraph.random_walks(G, starts, 4, seed=compared, p=p, q=q, weighted=True, kernels="generic")
            assert _paths_list(generic) == want, label
        compared += 1
    assert compared == 60


def test_duplicate_edges_count_twice_when_kept():
    """``dedupe=False`` keeps parallel edges as arcs: each is drawn on its own (a multigraph walk)."""
    kw = dict(src=[0, 0, 0, 1, 1, 2, 2, 2], dst=[1, 1, 2, 2, 2, 0, 3, 3], dedupe=False, directed=True)
    G = dgraph.from_edges(**kw)
    H = nx_graph(kw)
    starts = [0] * 3000
    r = dgraph.random_walks(G, starts, 3, seed=4, p=0.5, q=3.0)
    assert _paths_list(r) == reference_walks(H, starts, 3, seed=4, p=0.5, q=3.0)
    first = r.paths[:, 1]
    twice, once = int((first == 1).sum()), int((first == 2).sum())
    assert sps.chisquare([twice, once], [2000, 1000]).pvalue > 1e-3
    collapsed = dgraph.random_walks(dgraph.from_edges(**dict(kw, dedupe=True)), starts, 1, seed=4).paths[:, 1]
    assert sps.chisquare([int((collapsed == 1).sum()), int((collapsed == 2).sum())], [1500, 1500]).pvalue > 1e-3


def test_odd_inputs():
    G = dgraph.from_edges([0, 1, 3], [1, 2, 3], num_vertices=6)   # 3 has only a self loop; 4, 5 isolated
    r = dgraph.random_walks(G, [], 5)
    assert r.paths.shape == (0, 6) and r.paths.dtype == np.int64 and r.to_lists() == [] and r.supersteps == 0
    r = dgraph.random_walks(G, [2, 4], 0)
    assert r.paths.tolist() == [[2], [4]] and r.supersteps == 0
    r = dgraph.random_walks(G, [4, 5, 3], 3, seed=9)
    assert r.paths.tolist() == [[4, -1, -1, -1], [5, -1, -1, -1], [3, 3, 3, 3]]
    assert r.to_lists() == [[4], [5], [3, 3, 3, 3]]
    r = dgraph.random_walks(G, None, 2, seed=1)   # one walk from every vertex
    assert r.paths[:, 0].tolist() == list(range(6))
    empty = dgraph.from_edges([], [], num_vertices=0)
    assert dgraph.random_walks(empty, None, 4).paths.shape == (0, 5)
    assert dgraph.random_walks(empty, [], 4).paths.shape == (0, 5)
    assert dgraph.random_walks(G, np.array([0, 0]), 2, seed=3).paths.shape == (2, 3)


def test_string_and_renumbered_ids():
    G = dgraph.from_edges(["b", "a", "c"], ["a", "c", "d"], directed=True)
    r = dgraph.random_walks(G, ["b", "d"], 4, seed=2)
    assert r.paths.tolist() == [["b", "a", "c", "d", None], ["d", None, None, None, None]]
    assert r.to_lists() == [["b", "a", "c", "d"], ["d"]]
    assert r.raw("paths").tolist() == [[1, 0, 2, 3, -1], [3, -1, -1, -1, -1]]
    N = dgraph.from_edges([-5, -1, 7], [-1, 7, 100], directed=True)
    assert dgraph.random_walks(N, [-5], 4).paths.tolist() == [[-5, -1, 7, 100, -1]]


# -- (b): the same paths on every executor, partition count and implementation ------------------

def _partitioned_cases():
    rng = np.random.default_rng(31)
    for label, kw in CORPUS[15:35]:
        yield label, kw, rng


def test_partitioned_local_equals_single():
    waited = 0
    for label, kw, rng in _partitioned_cases():
        G = dgraph.from_edges(**kw)
        H = nx_graph(kw)
        starts = _starts(H, rng)
        for p, q in ((1.0, 1.0), (0.5, 2.0)):
            single = dgraph.random_walks(G, starts, 6, seed=17, p=p, q=q)
            for parts in (2, 3, 4):
                if parts > G.num_vertices:
                    continue
                PG = G.partition(parts, method=("range", "hash")[parts % 2], client=False)
                r = dgraph.random_walks(PG, starts, 6, seed=17, p=p, q=q)
                assert r.params["implementation"] == "generic" and r.params["partitions"] == parts
                assert _paths_list(r) == _paths_list(single), (label, parts, p, q)
                assert r.edges_touched == single.edges_touched
                waited += int(r.stats["waiting"].sum()) if len(r.stats) else 0
    assert waited > 0  # some node2vec tests did wait for another shard


@pytest.mark.parametrize("executor", ["tasks", "spmd"])
def test_dask_executors_equal_single(client, executor):
    for kw in (dict(src=np.arange(30), dst=(np.arange(30) * 7 + 3) % 30, num_vertices=32),
               dict(src=[0, 1, 2, 2, 4, 5, 6], dst=[1, 2, 0, 3, 5, 6, 4], directed=True, num_vertices=9)):
        G = dgraph.from_edges(**kw)
        starts = list(range(G.num_vertices)) * 2
        waited = 0
        for p, q in ((1.0, 1.0), (0.25, 4.0)):
            single = dgraph.random_walks(G, starts, 7, seed=5, p=p, q=q)
            for parts in (2, 3):
                PG = G.partition(parts, method=("range", "hash")[parts % 2], client=client)
                r = dgraph.random_walks(PG, starts, 7, seed=5, p=p, q=q, executor=executor)
                assert r.params["executor"] == executor
                assert r.paths.tolist() == single.paths.tolist(), (executor, parts, p, q)
                waited += int(r.stats["waiting"].sum())
                k = len(starts) // 3   # a piece of the starts, numbered where it begins: the same walks
                piece = dgraph.random_walks(PG, starts[k:], 7, seed=5, p=p, q=q, executor=executor, first_walk=k)
                assert piece.paths.tolist() == single.paths.tolist()[k:], (executor, parts, p, q)
        assert waited > 0  # node2vec tests waited for the shard owning the previous vertex


def test_seeds_give_different_walks_and_the_same_seed_the_same():
    G = dgraph.generate("grid", rows=6, cols=6)
    a = dgraph.random_walks(G, [0] * 50, 10, seed=1).paths
    assert (dgraph.random_walks(G, [0] * 50, 10, seed=1).paths == a).all()
    b = dgraph.random_walks(G, [0] * 50, 10, seed=2).paths
    assert (a != b).any(axis=1).sum() >= 45
    assert len({tuple(row) for row in a.tolist()}) >= 45  # the walks of one call differ from each other
    # a walk depends on its number, not on the other walks nor on the length asked for
    short = dgraph.random_walks(G, [0] * 10, 4, seed=1).paths
    assert (short == a[:10, :5]).all()


def _pieces(n, cuts):
    """``[(k0, k1), ...]``: ``range(n)`` cut at ``cuts`` (an empty piece included where two cuts meet)."""
    edges = [0, *cuts, n]
    return list(zip(edges[:-1], edges[1:]))


@pytest.mark.parametrize("bias", [(1.0, 1.0, False), (0.5, 2.0, False), (2.0, 0.5, True)],
                         ids=["uniform", "node2vec", "node2vec-weighted"])
def test_first_walk_pieces_equal_one_call(bias):
    """Starts cut into 2-3 pieces, each called with ``first_walk`` = where it begins: the paths of one call,
    on the numba kernel, the generic step and 2-3 partitions; and the reference walker's numbered walks."""
    p, q, weighted_ = bias
    rng = np.random.default_rng(5)
    kw = weighted(dict(src=rng.integers(0, 60, 240), dst=rng.integers(0, 60, 240), num_vertices=64), rng, low=0.5)
    G = dgraph.from_edges(**kw)   # four vertices without edges: walks that stop at once
    starts = rng.integers(0, G.num_vertices, 40).tolist()
    whole = dgraph.random_walks(G, starts, 8, seed=3, p=p, q=q, weighted=weighted_)
    assert len({tuple(r) for r in whole.paths.tolist()}) > 30   # the walks differ: a wrong number would show
    targets = [("cpu-numba", G), ("generic", G), ("generic", G.partition(2, client=False)),
               ("generic", G.partition(3, method="hash", client=False))]
    for cuts in ([15], [7, 30], [20, 20]):
        for impl, target in targets:
            got = []
            for k0, k1 in _pieces(len(starts), cuts):
                r = dgraph.random_walks(target, starts[k0:k1], 8, seed=3, p=p, q=q, weighted=weighted_,
                                        first_walk=k0, kernels="fused" if impl == "cpu-numba" else "generic")
                assert r.params["implementation"] == impl and r.params["first_walk"] == k0
                got.append(r.paths)
            np.testing.assert_array_equal(np.concatenate(got), whole.paths, err_msg=f"{impl} {cuts}")
    # without the offset the second piece repeats the first walks' numbers: other paths
    unnumbered = dgraph.random_walks(G, starts[15:], 8, seed=3, p=p, q=q, weighted=weighted_)
    assert (unnumbered.paths != whole.paths[15:]).any()
    H = nx_graph(kw)
    assert reference_walks(H, starts[25:], 8, seed=3, p=p, q=q, weighted=weighted_,
                           first_walk=25) == whole.paths[25:].tolist()


# -- (c): the distributions ----------------------------------------------------------------------

def _chi2_ok(counts, expected_share, n):
    expected = np.asarray(expected_share, dtype=float)
    expected = expected / expected.sum() * n
    return sps.chisquare(counts, expected).pvalue > 1e-3


def test_uniform_next_step_distribution():
    G = dgraph.from_edges([0, 0, 0, 0, 1], [1, 2, 3, 4, 2])          # 0 has 4 neighbors
    r = dgraph.random_walks(G, [0] * 8000, 1, seed=12)
    counts = np.bincount(r.paths[:, 1], minlength=5)[1:]
    assert counts.sum() == 8000 and _chi2_ok(counts, [1, 1, 1, 1], 8000)
    wrong = _chi2_ok(counts, [2, 1, 1, 1], 8000)                      # the test can fail
    assert not wrong


@pytest.mark.parametrize("p,q", [(0.5, 2.0), (2.0, 0.5), (0.25, 4.0), (1.0, 1.0)])
@pytest.mark.parametrize("directed", [False, True])
def test_node2vec_second_step_distribution(p, q, directed):
    """From t = 0 through v = 1 the next vertex is 0 (return: 1/p), 2 (t -> 2 is an edge: 1) or 3, 4
    (no edge from t: 1/q).  Directed, 4 -> 0 is an edge but 0 -> 4 is not: 4 counts as 1/q
    (the paper's d(t, x), not the reference code's edge x -> t)."""
    if directed:
        src, dst = [0, 1, 1, 1, 1, 0, 4], [1, 0, 2, 3, 4, 2, 0]
    else:
        src, dst = [0, 1, 1, 1, 0], [1, 2, 3, 4, 2]
    G = dgraph.from_edges(src, dst, directed=directed)
    n = 12000
    r = dgraph.random_walks(G, [0] * n, 2, seed=3, p=p, q=q)
    via = r.paths[r.paths[:, 1] == 1]
    counts = np.bincount(via[:, 2], minlength=5)
    share = [1 / p, 0, 1.0, 1 / q, 1 / q]
    assert counts[1] == 0 and _chi2_ok(counts[[0, 2, 3, 4]], [share[0], share[2], share[3], share[4]], len(via))
    if (p, q) != (1.0, 1.0):
        assert not _chi2_ok(counts[[0, 2, 3, 4]], [1, 1, 1, 1], len(via))


def test_weighted_and_biased_distribution():
    """Weighted node2vec: proportional to weight times alpha."""
    src, dst, w = [0, 1, 1, 1, 0], [1, 2, 3, 4, 2], [1.0, 3.0, 1.0, 0.5, 1.0]
    G = dgraph.from_edges(src, dst, weights=w)
    n = 12000
    r = dgraph.random_walks(G, [0] * n, 2, seed=8, p=2.0, q=0.5, weighted=True)
    first = np.bincount(r.paths[:, 1], minlength=5)
    assert _chi2_ok(first[[1, 2]], [1.0, 1.0], n)                     # from 0: weights 1 and 1
    via = r.paths[r.paths[:, 1] == 1]
    counts = np.bincount(via[:, 2], minlength=5)
    share = [1.0 * 0.5, 3.0 * 1.0, 1.0 * 2.0, 0.5 * 2.0]              # x = 0 (return), 2 (t's neighbor), 3, 4
    assert _chi2_ok(counts[[0, 2, 3, 4]], share, len(via))
    unweighted = dgraph.random_walks(G, [0] * n, 2, seed=8, p=2.0, q=0.5)
    u = unweighted.paths[unweighted.paths[:, 1] == 1]
    assert _chi2_ok(np.bincount(u[:, 2], minlength=5)[[0, 2, 3, 4]], [0.5, 1.0, 2.0, 2.0], len(u))


def test_zero_weights_are_never_taken_and_all_zero_is_a_dead_end():
    G = dgraph.from_edges([0, 0, 1], [1, 2, 3], weights=[0.0, 2.0, 0.0], directed=True)
    r = dgraph.random_walks(G, [0] * 200 + [1], 2, seed=1, weighted=True)
    assert (r.paths[:200, 1] == 2).all() and (r.paths[:200, 2] == -1).all()
    assert r.paths[200].tolist() == [1, -1, -1]


# -- (e): bad input -------------------------------------------------------------------------------

def test_bad_arguments_name_the_argument():
    G = dgraph.from_edges([0, 1], [1, 2])
    with pytest.raises(VertexNotFoundError, match="starts: vertex 7"):
        dgraph.random_walks(G, [0, 7], 3)
    with pytest.raises(VertexNotFoundError, match="starts: vertex -1"):
        dgraph.random_walks(G, [-1], 3)
    with pytest.raises(VertexNotFoundError, match="starts"):
        dgraph.random_walks(G, ["a"], 3)
    for bad in ([True], [1.5]):
        with pytest.raises((InputError, VertexNotFoundError), match="starts"):
            dgraph.random_walks(G, bad, 3)
    for bad in (5, "0", {0: 1}):
        with pytest.raises(InputError, match="starts"):
            dgraph.random_walks(G, bad, 3)
    with pytest.raises(InputError, match="starts"):
        dgraph.random_walks(G, np.zeros((2, 2), dtype=int), 3)
    for bad in (-1, 2.0, True, None, "3"):
        with pytest.raises(InputError, match="length"):
            dgraph.random_walks(G, [0], bad)
    for bad in (-1, 1 << 64, 1.0, True):
        with pytest.raises(InputError, match="seed"):
            dgraph.random_walks(G, [0], 3, seed=bad)
    for bad in (-1, 1 << 63, 2.0, True, None, "1", np.float64(1.0)):
        with pytest.raises(InputError, match=r"^first_walk=.*expected an integer in \[0, 0x8000000000000000\)"):
            dgraph.random_walks(G, [0], 3, first_walk=bad)
    with pytest.raises(InputError, match=r"^first_walk=9223372036854775807: with 2 starts the walk numbers "
                                         r"would pass 2\*\*63; expected first_walk \+ len\(starts\) <= 2\*\*63"):
        dgraph.random_walks(G, [0, 1], 3, first_walk=(1 << 63) - 1)
    last = dgraph.random_walks(G, [0], 3, first_walk=np.int64((1 << 63) - 1))   # the last walk number is fine
    assert last.params["first_walk"] == (1 << 63) - 1 and last.paths[0, 0] == 0
    for name in ("p", "q"):
        for bad in (0, -1.0, 0.0, float("nan"), float("inf"), 1e-9, 1e9, True, "2"):
            with pytest.raises(InputError, match=f"^{name}="):
                dgraph.random_walks(G, [0], 3, **{name: bad})
    with pytest.raises(InputError, match="weighted"):
        dgraph.random_walks(G, [0], 3, weighted="yes")
    with pytest.raises(InputError, match="no edge weights"):
        dgraph.random_walks(G, [0], 3, weighted=True)
    with pytest.raises(InputError, match="kernels"):
        dgraph.random_walks(G, [0], 3, kernels="cuda")
    W = dgraph.from_edges([0, 1], [1, 2], weights=[1.0, -2.0])
    with pytest.raises(InputError, match=r"edge 1 -> 2 has weight -2.0"):
        dgraph.random_walks(W, [0], 3, weighted=True)
    dgraph.random_walks(W, [0], 3)  # the weights are not read unless weighted=True
    with pytest.raises(InputError, match="weight"):
        dgraph.random_walks(W.partition(2, client=False), [0], 3, weighted=True)


def test_too_many_walks_say_what_they_need_first():
    G = dgraph.from_edges([0, 1], [1, 2])
    with pytest.raises(GraphTooLargeError, match=r"random_walks \(1 walk[s]? of length 1,000,000,000,000,000.*"
                                                 r"needs about 7\.1 PiB"):
        dgraph.random_walks(G, [0], 10**15)
    with pytest.raises(GraphTooLargeError, match="needs about"):
        dgraph.random_walks(G, np.zeros(10**6, dtype=np.int64), 10**10)


# -- the result: a table, written, shown ------------------------------------------------------------

def test_result_table_written_and_shown(tmp_path):
    G = dgraph.from_edges([0, 1, 2, 3], [1, 2, 0, 4], directed=True)
    r = dgraph.random_walks(G, [0, 3], 3, seed=1)
    df = r.to_pandas()
    assert df.columns.tolist() == ["vertex", "step1", "step2", "step3"]
    assert df.values.tolist() == [[0, 1, 2, 0], [3, 4, -1, -1]]
    assert r["step2"].tolist() == [2, -1] and r["vertex"].tolist() == [0, 3] and r.vertex.tolist() == [0, 3]
    with pytest.raises(InputError, match="no column 'step9'"):
        r["step9"]
    with pytest.raises(InputError, match="per walk"):
        r.value(0, "step1")
    out = tmp_path / "walks.csv"
    dgraph.write(r, out)
    assert out.read_text().splitlines() == ["vertex,step1,step2,step3", "0,1,2,0", "3,4,-1,-1"]
    dgraph.write(r, tmp_path / "walks.parquet")
    import pandas as pd
    assert pd.read_parquet(tmp_path / "walks.parquet").values.tolist() == df.values.tolist()
    assert repr(r).startswith("<dgraph.Result random_walks: 2 walks of length 3, 3 supersteps")
    html = r._repr_html_()
    assert "0 → 1 → 2 → 0" in html and "3 → 4 (dead end)" in html and "walks" in html
    assert r.plot() is not None
    assert r.to_dask().compute().values.tolist() == df.values.tolist()


# -- CLI and pipeline -------------------------------------------------------------------------------

def test_cli_subcommand(tmp_path, capsys):
    from dgraph import cli

    out = tmp_path / "w.csv"
    rc = cli.main(["random_walks", "--generate", "grid:rows=3,cols=3", "--starts", "0", "4", "--length", "6",
                   "--seed", "7", "--p", "4", "--q", "0.25", "-o", str(out), "--quiet"])
    assert rc == 0
    printed = capsys.readouterr().out
    assert "random_walks 2 walks of length 6" in printed
    assert out.read_text().splitlines()[1:] == ["0,3,6,7,8,5,2", "4,7,8,5,2,1,2"]
    rc = cli.main(["random_walks", "--generate", "grid:rows=3,cols=3", "--length", "2", "--quiet",
                   "--partitions", "2"])
    assert rc == 0 and "9 walks of length 2" in capsys.readouterr().out
    assert cli.main(["random_walks", "--generate", "grid:rows=3,cols=3", "--length", "-1", "--quiet"]) == 2
    assert "length=-1" in capsys.readouterr().err
    rc = cli.main(["random_walks", "--generate", "grid:rows=3,cols=3", "--starts", "4", "--length", "6",
                   "--seed", "7", "--p", "4", "--q", "0.25", "--first-walk", "1", "-o", str(out), "--overwrite",
                   "--quiet"])
    assert rc == 0 and out.read_text().splitlines()[1:] == ["4,7,8,5,2,1,2"]   # walk 1 of the first run
    assert cli.main(["random_walks", "--generate", "grid:rows=3,cols=3", "--length", "2", "--first-walk", "-3",
                     "--quiet"]) == 2
    assert "first_walk=-3" in capsys.readouterr().err


def test_pipeline_step(tmp_path):
    p = dgraph.Pipeline(graph={"source": {"generate": "grid", "rows": 3, "cols": 3}})
    p.step("walks", "random_walks", starts=[0, 4], length=6, seed=7, p=4.0, q=0.25)
    p.output("walks", "walks.csv")
    run = p.run(tmp_path / "res")
    assert run["walks"].to_lists() == [[0, 3, 6, 7, 8, 5, 2], [4, 7, 8, 5, 2, 1, 2]]
    assert (tmp_path / "res" / "walks.csv").read_text().splitlines()[1] == "0,3,6,7,8,5,2"
    second = dgraph.Pipeline(graph={"source": {"generate": "grid", "rows": 3, "cols": 3}})
    second.step("w", "random_walks", starts=[4], length=6, seed=7, p=4.0, q=0.25, first_walk=1)
    assert second.run()["w"].to_lists() == [[4, 7, 8, 5, 2, 1, 2]]
    everyone = dgraph.Pipeline(graph={"source": {"generate": "grid", "rows": 3, "cols": 3}})
    assert everyone.step("w", "random_walks", starts=None, length=2).run()["w"].paths.shape == (9, 3)
    from dgraph.errors import PipelineError
    for options, where in (({"starts": [0]}, "length"), ({"length": 3}, "starts"),
                           ({"starts": [0], "length": -2}, "length"), ({"starts": [0], "length": 2, "p": 0},
                                                                       "p"),
                           ({"starts": [99], "length": 2}, "starts"), ({"starts": 3, "length": 2}, "starts"),
                           ({"starts": [0], "length": 2, "first_walk": -1}, "first_walk"),
                           ({"starts": [0], "length": 2, "first_walk": 1.5}, "first_walk"),
                           ({"starts": [0], "length": 2, "first_walk": True}, "first_walk")):
        bad = dgraph.Pipeline(graph={"source": {"generate": "grid", "rows": 3, "cols": 3}})
        with pytest.raises(PipelineError, match=where):
            bad.step("w", "random_walks", **options)


# -- CuPy (the GPU machine: python3 -m pytest -m gpu tests/test_random_walks.py) -----------------------

def _needs_gpu():
    from dgraph.backend import gpu_available

    if not gpu_available():
        pytest.skip("no usable CUDA GPU / CuPy")


@pytest.mark.gpu
def test_cupy_corpus_equals_reference():
    """The CUDA kernel and the generic step on CuPy arrays: the reference's paths, one GPU, 1-4
    shards in this process."""
    _needs_gpu()
    rng = np.random.default_rng(41)
    for i, (label, kw) in enumerate(CORPUS[:50]):
        kw = weighted(kw, rng, low=0.0, high=5.0) if i % 2 else kw
        G = dgraph.from_edges(**kw)
        H = nx_graph(kw)
        starts = _starts(H, rng)
        missing = None if not G.ids.is_integer else -1
        for p, q in ((1.0, 1.0), (0.5, 2.0)):
            want = reference_walks(H, starts, 5, seed=i, p=p, q=q, weighted=bool(i % 2), missing=missing)
            r = dgraph.random_walks(G.to("cupy"), starts, 5, seed=i, p=p, q=q, weighted=bool(i % 2))
            assert r.backend == "cupy" and r.params["implementation"] == "gpu-cuda"
            assert _paths_list(r) == want, (label, p, q)
            g = dgraph.random_walks(G.to("cupy"), starts, 5, seed=i, p=p, q=q, weighted=bool(i % 2),
                                    kernels="generic")
            assert g.params["implementation"] == "generic"
            assert _paths_list(g) == want, (label, p, q, "generic")
            for parts in (2, 3, 4):
                if parts <= G.num_vertices:
                    PG = G.partition(parts, method=("range", "hash")[parts % 2], client=False, backend="cupy")
                    got = dgraph.random_walks(PG, starts, 5, seed=i, p=p, q=q, weighted=bool(i % 2))
                    assert _paths_list(got) == want, (label, parts, p, q)


@pytest.mark.gpu
@pytest.mark.parametrize("p,q,weighted_", [(1.0, 1.0, False), (0.5, 2.0, False), (2.0, 0.5, True)])
def test_cupy_equals_numba_on_rmat(p, q, weighted_):
    """Many walks on a skewed graph: the CUDA kernel's paths and per-step records are the numba
    kernel's, bit for bit; walks longer than a batch of queued steps too."""
    _needs_gpu()
    G = dgraph.generate("rmat", scale=12, seed=3, weighted=True)
    starts = np.repeat(np.arange(G.num_vertices), 3)
    cpu = dgraph.random_walks(G, starts, 20, seed=9, p=p, q=q, weighted=weighted_)
    gpu = dgraph.random_walks(G.to("cupy"), starts, 20, seed=9, p=p, q=q, weighted=weighted_)
    assert cpu.params["implementation"] == "cpu-numba" and gpu.params["implementation"] == "gpu-cuda"
    np.testing.assert_array_equal(gpu.paths, cpu.paths)
    assert gpu.edges_touched == cpu.edges_touched
    for col in ("walks", "frontier", "edges"):  # the same records, step by step
        assert list(gpu.stats[col]) == list(cpu.stats[col]), col
    short = dgraph.random_walks(G.to("cupy"), starts[:5], 3 * 32 + 7, seed=9, p=p, q=q, weighted=weighted_)
    np.testing.assert_array_equal(short.paths, dgraph.random_walks(G, starts[:5], 3 * 32 + 7, seed=9, p=p, q=q,
                                                                   weighted=weighted_).paths)


@pytest.mark.gpu
def test_cupy_first_walk_pieces_equal_one_call():
    """On CuPy, one shard and 3: starts cut into 3 pieces numbered by ``first_walk`` give the paths of one
    call (and of numpy's)."""
    _needs_gpu()
    G = dgraph.generate("rmat", scale=9, seed=3, weighted=True)
    starts = np.random.default_rng(2).integers(0, G.num_vertices, 600)
    cpu = dgraph.random_walks(G, starts, 12, seed=4, p=0.5, q=2.0, weighted=True).paths
    for target in (G.to("cupy"), G.partition(3, client=False, backend="cupy")):
        pieces = [dgraph.random_walks(target, starts[k0:k1], 12, seed=4, p=0.5, q=2.0, weighted=True,
                                      first_walk=k0).paths for k0, k1 in _pieces(len(starts), [100, 450])]
        np.testing.assert_array_equal(np.concatenate(pieces), cpu)


def test_a_walk_table_too_wide_is_refused_before_it_is_made():
    from dgraph.backend import device_memory

    G = dgraph.from_edges([0], [1])
    r = dgraph.random_walks(G, [0], 1000, seed=1)
    assert r.paths.shape == (1, 1001) and len(r.to_pandas().columns) == 1001
    real = device_memory.host_available
    try:
        device_memory.host_available = lambda: (1 << 16, 1 << 30)   # 64 KiB left: the table needs ~0.5 MiB
        with pytest.raises(GraphTooLargeError, match=r"table of 1 walk of length 1,000.*needs about"):
            r.to_pandas()
        assert r.to_lists()[0][:3] == [0, 1, 0]  # the paths themselves are still there
    finally:
        device_memory.host_available = real


def test_walk_lists_too_big_are_refused_before_they_are_made(monkeypatch):
    """``to_lists()`` makes a Python int a visited vertex (about 40 bytes, five times ``paths``): its size is
    checked first, counting only the vertices the walks visited."""
    from dgraph.algorithms.random_walks.result import LIST_BYTES_PER_VERTEX, LIST_BYTES_PER_WALK
    from dgraph.backend import device_memory

    G = dgraph.from_edges([0, 1, 3], [1, 2, 4], directed=True)   # 0 -> 1 -> 2 and 3 -> 4: dead ends
    r = dgraph.random_walks(G, [0] * 100 + [3] * 100, 50, seed=1)
    need = LIST_BYTES_PER_VERTEX * (100 * 3 + 100 * 2) + LIST_BYTES_PER_WALK * 200
    monkeypatch.setattr(device_memory, "host_available", lambda: (need - 1, 1 << 30))
    with pytest.raises(GraphTooLargeError, match=r"r\.to_lists\(\) of 200 walks of length 50 \(Python lists\) "
                                                 r"needs about .* Read r\.paths"):
        r.to_lists()
    monkeypatch.setattr(device_memory, "host_available", lambda: (need, 1 << 30))
    assert r.to_lists()[:1] + r.to_lists()[-1:] == [[0, 1, 2], [3, 4]]
