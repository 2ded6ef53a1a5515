"""Louvain: bit for bit against its plain reference (tests/louvain_reference.py) on every kernel,
partition count and executor; its modularity against NetworkX's, and its quality against NetworkX's
``louvain_communities`` on the graphs of the issue (karate club, Les Miserables, Davis, random
partition and planted partition graphs, LFR, Erdos-Renyi, odd ones)."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from graphs import corpus, weighted
from louvain_reference import reference_louvain

import dgraph
from dgraph.backend import to_numpy
from dgraph.errors import DGraphError, InputError

CASES = list(corpus(110, seed=23))


def _variants(i, kw, rng):
    """The corpus graph, and every third one weighted (float or integer) or with its duplicates kept."""
    out = [kw]
    if i % 3 == 0:
        out.append(weighted(kw, rng))
    elif i % 3 == 1:
        out.append(weighted(kw, rng, integer=True))
    else:
        out.append(dict(kw, dedupe=False))
    return out


def _communities(r):
    return to_numpy(r.raw("community")).tolist()


def _check(r, G, what, **kw):
    comm, q, levels = reference_louvain(G, **kw)
    assert _communities(r) == comm, what
    assert r.params["modularity"] == q, what
    assert r.params["levels"] == levels, what


def test_matches_reference(backend):
    rng = np.random.default_rng(1)
    checked = 0
    for i, (name, kw) in enumerate(CASES):
        for kwv in _variants(i, kw, rng):
            G = dgraph.from_edges(**kwv).to(backend)
            seed = i % 5
            tries = None if i % 10 == 0 else 1    # one run (the method), or the default best of several
            r = dgraph.louvain(G, seed=seed, tries=tries)
            assert list(r.vertex.tolist()) == G.vertex_ids().tolist()
            _check(r, G, f"{name} {sorted(kwv)}", seed=seed, tries=tries)
            checked += 1
    assert checked >= 200


def test_generic_kernels_match_reference():
    rng = np.random.default_rng(2)
    for i, (name, kw) in enumerate(CASES[::2]):
        for kwv in _variants(i, kw, rng):
            G = dgraph.from_edges(**kwv)
            r = dgraph.louvain(G, seed=3, kernels="generic", tries=1)
            assert r.params["implementation"] == "generic"
            _check(r, G, name, seed=3, tries=1)


def test_partitioned_matches_reference():
    """Partitioned (simulated in one process): every decision from replicated state and exact sums."""
    rng = np.random.default_rng(3)
    checked = 0
    for i, (name, kw) in enumerate(CASES):
        for kwv in _variants(i, kw, rng):
            G = dgraph.from_edges(**kwv)
            if G.num_vertices < 2:
                continue
            p = min(2 + i % 3, G.num_vertices)
            method = ("range", "hash", "metis")[i % 3]
            tries = None if i % 20 == 0 else 1
            r = dgraph.louvain(G.partition(p, method=method, client=False), seed=i, kernels=("fused", "generic")[i % 2],
                               tries=tries)
            _check(r, G, f"{name} p={p} {method}", seed=i, tries=tries)
            checked += 1
    assert checked >= 150


@pytest.mark.parametrize("resolution", [0.0, 0.5, 2.0])
def test_resolution_matches_reference_and_networkx(resolution):
    rng = np.random.default_rng(4)
    for i, (name, kw) in enumerate(CASES[15:45]):
        G = dgraph.from_edges(**(weighted(kw, rng) if i % 2 else kw))
        r = dgraph.louvain(G, resolution=resolution, seed=i, tries=1 + i % 2)
        _check(r, G, name, resolution=resolution, seed=i, tries=1 + i % 2)
        if G.num_arcs and float(to_numpy(G.weights).sum() if G.weighted else 1) > 0:
            H = _nx(G)
            want = nx.community.modularity(H, _sets(r), resolution=resolution)
            assert r.params["modularity"] == pytest.approx(want, abs=1e-9), name


# -- against NetworkX --------------------------------------------------------------------------

def _nx(G):
    """G as a NetworkX multigraph on internal ids (duplicates and loops as stored, weights as 'weight')."""
    H = nx.MultiDiGraph() if G.directed else nx.MultiGraph()
    H.add_nodes_from(range(G.num_vertices))
    src, dst, w = (to_numpy(a) for a in G.coo())
    w = np.ones(len(src)) if w is None else w
    for u, v, x in zip(src.tolist(), dst.tolist(), w.tolist()):
        if G.directed or u <= v:
            H.add_edge(u, v, weight=x)
    return H


def _sets(r):
    groups = {}
    for v, c in enumerate(_communities(r)):
        groups.setdefault(c, set()).add(v)
    return list(groups.values())


def _quality_graphs():
    """The issue's graphs, tiny, NetworkX graphs on 0..n-1."""
    yield "karate", nx.karate_club_graph()                      # weighted
    yield "les_miserables", nx.les_miserables_graph()           # weighted
    yield "davis", nx.davis_southern_women_graph()
    yield "florentine", nx.florentine_families_graph()
    yield "petersen", nx.petersen_graph()
    yield "lfr", nx.LFR_benchmark_graph(250, 3, 1.5, 0.1, average_degree=5, min_community=20, seed=10)
    rng = np.random.default_rng(5)
    for i in range(120):
        s = int(rng.integers(1 << 30))
        kind = i % 6
        if kind == 0:
            sizes = rng.integers(3, 15, size=int(rng.integers(2, 6))).tolist()
            H = nx.random_partition_graph(sizes, float(rng.uniform(0.3, 0.9)), float(rng.uniform(0.01, 0.1)), seed=s)
        elif kind == 1:
            H = nx.planted_partition_graph(int(rng.integers(2, 5)), int(rng.integers(4, 12)), 0.6, 0.05, seed=s)
        elif kind in (2, 3):
            H = nx.gnp_random_graph(int(rng.integers(5, 60)), float(rng.uniform(0.05, 0.3)), seed=s)
            if kind == 3:
                for u, v in H.edges:
                    H[u][v]["weight"] = float(rng.uniform(0.1, 5))
        elif kind == 4:
            H = nx.gnp_random_graph(int(rng.integers(5, 40)), float(rng.uniform(0.05, 0.3)), seed=s, directed=True)
        else:
            H = nx.barabasi_albert_graph(int(rng.integers(5, 60)), int(rng.integers(1, 4)), seed=s)
        yield f"{('rpg', 'planted', 'er', 'er-weighted', 'er-directed', 'ba')[kind]}-{i}", H


def _from_nx(H):
    H = nx.convert_node_labels_to_integers(H)
    H = nx.Graph(H) if not H.is_directed() and H.is_multigraph() else H
    edges = list(H.edges(data=True))
    w = None
    if edges and all("weight" in d for _, _, d in edges):
        w = [float(d["weight"]) for _, _, d in edges]
    return H, dgraph.from_edges([u for u, _, _ in edges], [v for _, v, _ in edges], w, directed=H.is_directed(),
                                num_vertices=H.number_of_nodes())


def _quality_sweep(seeds):
    """``[(graph, seed, dgraph's modularity, NetworkX's louvain_communities' with the same seed)]`` over the
    quality graphs (those with an edge) and ``seeds``, dgraph with its default tries."""
    rows = []
    for name, H0 in _quality_graphs():
        H, G = _from_nx(H0)
        for seed in seeds:
            r = dgraph.louvain(G, seed=seed)
            assert r.params["tries"] == 16, name
            if H.number_of_edges() == 0:   # no modularity (NetworkX divides by zero)
                assert r.params["modularity"] == 0.0 and len(_sets(r)) == H.number_of_nodes()
                continue
            mine = nx.community.modularity(H, _sets(r))
            assert r.params["modularity"] == pytest.approx(mine, abs=1e-9), name
            rows.append((name, seed, mine, nx.community.modularity(H, nx.community.louvain_communities(H, seed=seed))))
    return rows


def test_quality_against_networkx():
    """Modularity at least NetworkX's louvain_communities (same resolution and seed) minus 0.01, on
    every graph, and higher on average.

    Both are randomized heuristics, and on these small graphs one run's modularity is mostly which
    local optimum it falls into: NetworkX with other seeds falls below NetworkX with seeds 0 and 1 by
    more than 0.01 in about 9% of the runs (down to -0.05), one try of dgraph below NetworkX with
    the same seed in about 3.5% of them (down to -0.051).  The best of 8 tries missed one of 2,480
    runs (seeds 0-19, the slow test below: er-104, seed 14, -0.015); the 16 that small graphs get by
    default (``tries=None``) missed none."""
    rows = _quality_sweep((0,))
    diffs = np.array([mine - theirs for _, _, mine, theirs in rows])
    assert len(diffs) >= 120
    assert not [row for row in rows if row[2] < row[3] - 0.01], sorted(rows, key=lambda x: x[2] - x[3])[:5]
    assert diffs.mean() > 0.0, diffs.mean()


@pytest.mark.slow
def test_quality_against_networkx_many_seeds():
    """As above over seeds 0-19 (2,480 runs): no run below NetworkX's with the same seed minus 0.01."""
    rows = _quality_sweep(range(20))
    assert len(rows) >= 2400
    assert not [row for row in rows if row[2] < row[3] - 0.01], sorted(rows, key=lambda x: x[2] - x[3])[:5]
    assert np.mean([mine - theirs for _, _, mine, theirs in rows]) > 0.0


def test_tries():
    """tries=1 is one run of the method; more keep the best run, the same on every partition count."""
    H, G = _from_nx(nx.LFR_benchmark_graph(250, 3, 1.5, 0.1, average_degree=5, min_community=20, seed=10))
    one = dgraph.louvain(G, seed=5, tries=1)
    assert one.params["tries"] == 1 and one.params["best_try"] == 0
    runs = [dgraph.louvain(G, seed=dgraph.algorithms.louvain.try_seed(5, t), tries=1) for t in range(16)]
    np.testing.assert_array_equal(runs[0].community, one.community)
    best = max(range(16), key=lambda t: (runs[t].params["modularity"], -t))
    r = dgraph.louvain(G, seed=5)   # 250 vertices: the default tries=16
    assert r.params["tries"] == 16 and r.params["best_try"] == best and r.params["seed"] == 5
    np.testing.assert_array_equal(r.community, runs[best].community)
    assert r.params["modularity"] == max(x.params["modularity"] for x in runs)
    assert r.run_time >= runs[best].run_time
    _check(r, G, "lfr", seed=5)
    p3 = dgraph.louvain(G.partition(3, method="hash", client=False), seed=5)
    np.testing.assert_array_equal(p3.community, r.community)
    assert dgraph.algorithms.louvain.default_tries(4097) == 1
    assert len({dgraph.algorithms.louvain.try_seed(5, t) for t in range(64)}) == 64


def test_planted_communities_are_found():
    """Four cliques of 8 joined by a ring of single edges: the cliques, on every seed."""
    src, dst = [], []
    for b in range(4):
        for i in range(8):
            for j in range(i + 1, 8):
                src.append(8 * b + i)
                dst.append(8 * b + j)
        src.append(8 * b)
        dst.append((8 * b + 11) % 32)
    G = dgraph.from_edges(src, dst)
    for seed in range(5):
        r = dgraph.louvain(G, seed=seed)
        assert r.community.tolist() == [8 * (v // 8) for v in range(32)]


def test_directed_uses_directed_modularity():
    H = nx.gnp_random_graph(30, 0.15, seed=4, directed=True)
    H, G = _from_nx(H)
    r = dgraph.louvain(G, seed=2)
    assert r.params["modularity"] == pytest.approx(nx.community.modularity(H, _sets(r)), abs=1e-12)
    undirected = dgraph.louvain(dgraph.from_edges(*G.edges()[:2], num_vertices=30), seed=2)
    assert undirected.params["modularity"] != r.params["modularity"]


# -- odd input ---------------------------------------------------------------------------------

def test_odd_graphs():
    r = dgraph.louvain(dgraph.from_edges([], [], num_vertices=0), seed=0)
    assert len(r.community) == 0 and r.params["modularity"] == 0.0 and r.supersteps == 0
    r = dgraph.louvain(dgraph.from_edges([], [], num_vertices=3), seed=0)   # no edges: no weight, each alone
    assert r.community.tolist() == [0, 1, 2] and r.params["modularity"] == 0.0
    r = dgraph.louvain(dgraph.from_edges([0, 1], [1, 2], [0.0, 0.0]), seed=0)   # zero weights too
    assert r.community.tolist() == [0, 1, 2] and r.params["modularity"] == 0.0
    r = dgraph.louvain(dgraph.from_edges([0, 1, 1], [0, 1, 2], num_vertices=4), seed=0)
    H = nx.MultiGraph([(0, 0), (1, 1), (1, 2)])
    H.add_node(3)
    assert r.params["modularity"] == pytest.approx(nx.community.modularity(H, _sets(r)), abs=1e-12)
    assert r.community.tolist()[3] == 3   # isolated: alone


def test_ids_are_the_smallest_user_id():
    G = dgraph.from_edges(["b", "a", "c", "x", "y", "x"], ["a", "c", "b", "y", "z", "z"])
    r = dgraph.louvain(G, seed=0)
    assert dict(zip(r.vertex.tolist(), r.community.tolist())) == {"a": "a", "b": "a", "c": "a", "x": "x", "y": "x",
                                                                   "z": "x"}
    big = 10 ** 12
    G = dgraph.from_edges([big, big + 5, big + 7, 3, 3, 4], [big + 5, big + 7, big, 4, 9, 9], renumber=True)
    r = dgraph.louvain(G, seed=0)
    assert r.value(big + 7, "community") == big and r.value(9, "community") == 3


def test_seed():
    G = dgraph.generate("rmat", scale=8, seed=3)
    a, b = dgraph.louvain(G, seed=11), dgraph.louvain(G, seed=11)
    np.testing.assert_array_equal(a.community, b.community)
    assert a.stats_records[-1]["modularity"] == b.stats_records[-1]["modularity"]
    drawn = dgraph.louvain(G)
    assert isinstance(drawn.params["seed"], int)
    np.testing.assert_array_equal(dgraph.louvain(G, seed=drawn.params["seed"]).community, drawn.community)
    others = {tuple(dgraph.louvain(G, seed=s).community.tolist()) for s in range(4)}
    assert len(others) > 1   # the seed matters


def test_weights():
    rng = np.random.default_rng(6)
    src, dst = rng.integers(0, 40, 120), rng.integers(0, 40, 120)
    w = rng.integers(1, 9, 120)
    G = dgraph.from_edges(src, dst, w, num_vertices=40)
    plain = dgraph.louvain(dgraph.from_edges(src, dst, num_vertices=40), seed=1)
    ignored = dgraph.louvain(G, seed=1, weight=False)
    np.testing.assert_array_equal(ignored.community, plain.community)
    assert ignored.params["weighted"] is False and ignored.params["modularity"] == plain.params["modularity"]
    used = dgraph.louvain(G, seed=1)
    assert used.params["weighted"] is True
    # weights times a power of two are the same integers once scaled: the same answer, bit for bit
    for scale in (2.0 ** -30, 0.5, 2.0 ** 40):
        again = dgraph.louvain(dgraph.from_edges(src, dst, w * scale, num_vertices=40), seed=1)
        np.testing.assert_array_equal(again.community, used.community)
        assert again.params["modularity"] == used.params["modularity"]


def test_levels_threshold_and_max_level():
    G = dgraph.generate("rmat", scale=9, seed=5)
    full = dgraph.louvain(G, seed=2, tries=2)
    assert full.params["levels"] >= 2
    one = dgraph.louvain(G, seed=2, max_level=1, tries=1)
    assert one.params["levels"] == 1 and one.params["modularity"] < full.params["modularity"]
    _check(one, G, "max_level=1", seed=2, max_level=1, tries=1)
    coarse = dgraph.louvain(G, seed=2, threshold=1.0, tries=1)   # the first level's gain is below 1
    assert coarse.params["levels"] == 1
    levels = []
    reference_louvain(G, seed=2, history=levels, tries=2)   # the kept try's levels
    for target in (G, G.partition(3, method="hash", client=False)):
        kept = dgraph.louvain(target, seed=2, keep_levels=True, tries=2)
        assert kept.columns == ["community"] + [f"level_{i + 1}" for i in range(len(levels))]
        assert [kept.raw(f"level_{i + 1}").tolist() for i in range(len(levels))] == levels
        np.testing.assert_array_equal(kept.community, full.community)
    stages = full.stats["stage"].tolist()
    assert stages[0] == "strengths" and stages.count("aggregate") == full.params["levels"] + 1
    assert "refine" in stages and full.stats_records[-1]["done"]
    kept = full.stats[(full.stats.stage == "aggregate")]["modularity"].tolist()
    assert kept == sorted(kept)


def test_bad_arguments():
    G = dgraph.from_edges([0, 1], [1, 2])
    for key, bad in [("resolution", -1.0), ("resolution", float("nan")), ("resolution", True), ("resolution", "1"),
                     ("threshold", float("inf")), ("threshold", None), ("max_level", 0), ("max_level", 1.5),
                     ("max_level", True), ("seed", "x"), ("seed", 1.5), ("weight", "w"), ("kernels", "cuda"),
                     ("keep_levels", 1), ("seed", -1), ("seed", 1 << 64), ("seed", True), ("tries", 0),
                     ("tries", 1.5), ("tries", 65), ("tries", True)]:
        with pytest.raises(InputError, match=key):
            dgraph.louvain(G, **{key: bad})
    with pytest.raises(InputError, match=r"^seed=-1: expected an integer in \[0, 2\*\*64\)"):
        dgraph.louvain(G, seed=-1)   # it would alias seed 2**64 - 1
    assert dgraph.louvain(G, seed=(1 << 64) - 1).params["seed"] == (1 << 64) - 1
    with pytest.raises(DGraphError, match="executor"):
        dgraph.louvain(G, executor="spmd")
    with pytest.raises(InputError, match=r"edge 1 -> 2 has weight -2.0; louvain needs non-negative"):
        dgraph.louvain(dgraph.from_edges([0, 1], [1, 2], [1.0, -2.0], directed=True))
    PG = dgraph.from_edges([0, 1, 2], [1, 2, 3], [1.0, 2.0, -1.0]).partition(2, client=False)
    with pytest.raises(InputError, match="has weight -1.0"):
        dgraph.louvain(PG)


# -- on a Dask cluster -----------------------------------------------------------------------------

def test_executors_equal_reference(client):
    rng = np.random.default_rng(7)
    graphs = [kw for _, kw in CASES[6:40] if dgraph.from_edges(**kw).num_vertices >= 3][:6]
    graphs += [weighted(dict(kw, directed=True), rng) for kw in graphs[:2]]   # the in-arcs' weights exchanged
    assert len(graphs) >= 8
    for i, kw in enumerate(graphs):
        G = dgraph.from_edges(**kw)
        tries = 2 if i == 0 else 1   # graph 0: the better of two tries
        comm, q, _ = reference_louvain(G, seed=i, tries=tries)
        for p in ((3,) if i == 0 else (2, 3)):
            PG = G.partition(p, method="hash" if p == 3 else "range", client=client)
            for executor in ("tasks", "spmd"):
                r = dgraph.louvain(PG, seed=i, executor=executor, tries=tries)
                assert _communities(r) == comm, f"{kw} p={p} {executor}"
                assert r.params["modularity"] == q and r.params["executor"] == executor
    G = dgraph.generate("rmat", scale=8, seed=5, directed=True, weighted=True)
    ref = dgraph.louvain(G, seed=4, tries=1)
    PG = G.partition(3, method="metis", client=client)
    for executor in ("tasks", "spmd"):
        for exchange in ("butterfly", "all-to-all"):
            r = dgraph.louvain(PG, seed=4, executor=executor, exchange=exchange, tries=1)
            np.testing.assert_array_equal(r.community, ref.community, err_msg=f"{executor} {exchange}")
            assert r.params["modularity"] == ref.params["modularity"]
    # shards built on the workers hold no in-arc edge ids: the in-arcs' weights travel (transpose stage)
    for p in (1, 2):
        PG = dgraph.generate_partitioned("rmat", p, client=client, scale=8, seed=5, directed=True, weighted=True)
        r = dgraph.louvain(PG, seed=4, tries=1)
        np.testing.assert_array_equal(r.community, ref.community, err_msg=f"generate_partitioned p={p}")
        assert r.stats_records[0]["stage"] == "transpose"


@pytest.mark.slow
def test_partitions_equal_single_on_bigger_graphs():
    for directed in (False, True):
        G = dgraph.generate("rmat", scale=11, seed=3, directed=directed, weighted=True)
        ref = dgraph.louvain(G, seed=9)
        for p in (2, 3, 4):
            for method in ("range", "hash", "metis"):
                r = dgraph.louvain(G.partition(p, method=method, client=False), seed=9)
                np.testing.assert_array_equal(r.community, ref.community, err_msg=f"{directed} p={p} {method}")
