"""HITS against NetworkX (its ARPACK hits and its power iteration), on every partition count and
executor; the options, the errors, and the odd graphs."""

import networkx as nx
import numpy as np
import pytest
from graphs import corpus, weighted
from networkx.algorithms.link_analysis.hits_alg import _hits_python

import dgraph
from dgraph.backend import to_numpy
from dgraph.errors import ConvergenceError, DGraphError

TIGHT = {"iterations": 20000, "tol": 1e-13}


def _simple_top(G):
    """The largest singular value of A is simple (a gap of 0.1 %): NetworkX's ARPACK answer is then
    the power iteration's; where it is not, the scores are not unique and ARPACK picks any."""
    A = G.to_scipy().toarray()
    if A.shape[0] < 2:
        return False
    s = np.linalg.svd(A, compute_uv=False)
    return bool(s[0] > 0 and (s[0] - s[1]) / s[0] > 1e-3)


def _vec(d, ids):
    return np.array([d[v] for v in ids])


def _check(G, r, label, counts):
    """r (dgraph's hits of G) against NetworkX: its power iteration always, ARPACK where the answer is
    unique."""
    Gn = G.to("numpy")
    H = Gn.to_networkx()
    ids = Gn.vertex_ids().tolist()
    hubs, auth = to_numpy(r.raw("hubs")), to_numpy(r.raw("authorities"))
    A = Gn.to_scipy()
    if A.nnz == 0 or A.max() <= 0:  # nothing to iterate on: every score 0 (NetworkX divides by zero)
        assert not hubs.any() and not auth.any(), label
        counts["zero"] += 1
        return
    ph, pa = _hits_python(H, max_iter=TIGHT["iterations"], tol=TIGHT["tol"])
    np.testing.assert_allclose(hubs, _vec(ph, ids), rtol=1e-9, atol=1e-12, err_msg=label)
    np.testing.assert_allclose(auth, _vec(pa, ids), rtol=1e-9, atol=1e-12, err_msg=label)
    counts["power"] += 1
    if _simple_top(Gn):
        nh, na = nx.hits(H, max_iter=10000, tol=1e-14)
        # atol: a score decaying to 0 is still ~1e-12 when the iteration's change falls below 1e-13
        np.testing.assert_allclose(hubs, _vec(nh, ids), rtol=1e-9, atol=1e-11, err_msg=label)
        np.testing.assert_allclose(auth, _vec(na, ids), rtol=1e-9, atol=1e-11, err_msg=label)
        counts["arpack"] += 1
    assert abs(hubs.sum() - 1) < 1e-12 and abs(auth.sum() - 1) < 1e-12, label


def test_matches_networkx(backend):
    """>= 100 random and odd graphs, unweighted: nx.hits where its answer is unique, NetworkX's power
    iteration (the same iteration and test) on every graph with an edge."""
    counts = {"power": 0, "arpack": 0, "zero": 0}
    for label, kw in corpus(140, seed=7):
        G = dgraph.from_edges(**kw).to(backend)
        r = dgraph.hits(G, **TIGHT)
        if G.num_vertices == 0:
            assert len(r.vertex) == 0
            continue
        assert r.params["implementation"] == ("cpu-pull" if backend == "numpy" else "gpu-pull")
        _check(G, r, label, counts)
    assert counts["arpack"] >= 100 and counts["power"] >= 120 and counts["zero"] >= 3, counts


def test_weighted_matches_networkx(backend):
    """Edge weights (some 0) as the entries of A, as nx.hits reads 'weight'."""
    counts = {"power": 0, "arpack": 0, "zero": 0}
    rng = np.random.default_rng(12)
    for label, kw in corpus(140, seed=9):
        G = dgraph.from_edges(**weighted(kw, rng, low=0.0, high=4.0, zero_fraction=0.2)).to(backend)
        r = dgraph.hits(G, weight="weight", **TIGHT)
        if G.num_vertices:
            assert r.params["implementation"].endswith("+weighted")
            _check(G, r, label, counts)
    assert counts["arpack"] >= 100 and counts["power"] >= 120, counts


@pytest.mark.parametrize("directed", [True, False])
def test_parallel_edges_add_up(directed):
    """dedupe=False: parallel edges add their weights (or count 1 each unweighted), as NetworkX's
    adjacency matrix of a multigraph."""
    rng = np.random.default_rng(4 + directed)
    for i in range(25):
        n = int(rng.integers(2, 12))
        m = int(rng.integers(1, 3 * n))
        src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
        dup = rng.integers(0, m, m // 2 + 1)
        src, dst = np.concatenate([src, src[dup]]), np.concatenate([dst, dst[dup]])
        w = rng.uniform(0.2, 3.0, len(src))
        G = dgraph.from_edges(src, dst, w, directed=directed, num_vertices=n, dedupe=False)
        for use in ("weight", None):
            H = (nx.DiGraph if directed else nx.Graph)()  # parallel edges summed into one
            H.add_nodes_from(range(n))
            for u, v, x in zip(src.tolist(), dst.tolist(), w.tolist()):
                old = H[u][v]["weight"] if H.has_edge(u, v) else 0.0
                H.add_edge(u, v, weight=old + (x if use else 1.0))
            ph, pa = _hits_python(H, max_iter=20000, tol=1e-10)  # the same test: the same iterations
            for target in (G, G.partition(min(3, n), method="hash", client=False)):
                r = dgraph.hits(target, weight=use, iterations=20000, tol=1e-10)
                np.testing.assert_allclose(r.hubs, _vec(ph, range(n)), rtol=1e-9, atol=1e-12, err_msg=f"{i} {use}")
                np.testing.assert_allclose(r.authorities, _vec(pa, range(n)), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("use", [None, "weight"])
def test_partitions_give_the_same_bits(backend, directed, use):
    rng = np.random.default_rng(6)
    G = dgraph.generate("rmat", scale=8, seed=4, directed=directed)
    src, dst, _ = G.coo()
    W = dgraph.from_edges(src, dst, rng.integers(0, 5, len(src)), directed=directed, num_vertices=G.num_vertices)
    ref = dgraph.hits(W.to(backend), weight=use, iterations=25, tol=None)
    assert ref.supersteps == 25
    if backend == "cupy":  # the GPU's sums in another order than numba's: equal to rounding
        cpu = dgraph.hits(W, weight=use, iterations=25, tol=None)
        for col in ("hubs", "authorities"):
            np.testing.assert_allclose(to_numpy(ref.raw(col)), cpu.raw(col), rtol=1e-12, atol=1e-15)
    for p in (1, 2, 3, 4):
        for method in ("range", "hash", "metis"):
            target = W.partition(p, method=method, client=False, backend=backend)
            r = dgraph.hits(target, weight=use, iterations=25, tol=None)
            for col in ("hubs", "authorities"):
                np.testing.assert_array_equal(to_numpy(r.raw(col)), to_numpy(ref.raw(col)),
                                              err_msg=f"p={p} {method} {col}")
            setup = p > 1 and directed and use is not None  # the arcs' exchange, for the in-edge weights
            assert r.supersteps == (25 if p == 1 else 50) + setup
            assert (r.stats_records[0].get("setup") == 1) == setup
    conv = dgraph.hits(W.to(backend), weight=use, tol=1e-10)
    part = dgraph.hits(W.partition(3, client=False, backend=backend), weight=use, tol=1e-10)
    np.testing.assert_array_equal(to_numpy(part.raw("hubs")), to_numpy(conv.raw("hubs")))
    assert part.stats_records[-1]["iteration"] == conv.stats_records[-1]["iteration"] == conv.supersteps


@pytest.mark.parametrize("executor", ["tasks", "spmd"])
def test_on_a_cluster_and_streamed_shards(client, executor):
    """Shards built on the workers (no in-edge ids): the same bits as one shard, weighted or not."""
    G = dgraph.generate("rmat", scale=7, seed=9, directed=True, weighted=True)
    PG = dgraph.generate_partitioned("rmat", 2, scale=7, seed=9, directed=True, weighted=True, client=client)
    for use in (None, "weight"):
        ref = dgraph.hits(G, weight=use, tol=1e-10)
        r = dgraph.hits(PG, weight=use, tol=1e-10, executor=executor)
        np.testing.assert_array_equal(r.hubs, ref.hubs)
        np.testing.assert_array_equal(r.authorities, ref.authorities)
        assert r.params["executor"] == executor


def test_options():
    G = dgraph.from_edges([0, 0, 1, 3, 2], [1, 2, 2, 2, 4], directed=True)
    H = G.to_networkx()
    ids = list(range(G.num_vertices))
    # normalized=False: scaled to a maximum of 1, as NetworkX's power iteration leaves them
    r = dgraph.hits(G, normalized=False, **TIGHT)
    ph, pa = _hits_python(H, normalized=False, max_iter=20000, tol=1e-13)
    np.testing.assert_allclose(r.hubs, _vec(ph, ids), rtol=1e-12)
    np.testing.assert_allclose(r.authorities, _vec(pa, ids), rtol=1e-12)
    assert r.hubs.max() == 1.0 and r.authorities.max() == 1.0
    # nstart: the same iterations from another start, as NetworkX (dict or one value a vertex)
    start = {0: 1.0, 1: 2.0, 2: 0.0, 3: 5.0, 4: 1.0}
    ph, pa = _hits_python(H, nstart=dict(start))
    for given in (start, [start[v] for v in ids]):
        r = dgraph.hits(G, nstart=given)
        np.testing.assert_allclose(r.hubs, _vec(ph, ids), rtol=1e-12)
        np.testing.assert_allclose(r.authorities, _vec(pa, ids), rtol=1e-12)
    # the same number of iterations as NetworkX's test stops at (its tol is absolute)
    for tol in (1e-4, 1e-8):
        loose = _hits_python(H, tol=tol)
        r = dgraph.hits(G, tol=tol)
        np.testing.assert_allclose(r.hubs, _vec(loose[0], ids), rtol=1e-13)
        assert r.stats_records[-1]["delta"] < tol <= r.stats_records[-2]["delta"]
    # tol=None: exactly `iterations`, no test and no error
    r = dgraph.hits(G, iterations=3, tol=None)
    assert r.supersteps == 3 and [s["iteration"] for s in r.stats_records] == [1, 2, 3]


def test_non_convergence_raises_naming_the_iterations():
    G = dgraph.generate("rmat", scale=7, seed=1, directed=True)
    with pytest.raises(nx.PowerIterationFailedConvergence):
        _hits_python(G.to_networkx(), max_iter=3)
    with pytest.raises(ConvergenceError, match="no convergence in 3 iterations") as info:
        dgraph.hits(G, iterations=3)
    assert info.value.iterations == 3 and info.value.delta >= 1e-8
    with pytest.raises(ConvergenceError, match="in 0 iterations"):  # NetworkX raises for max_iter=0 too
        dgraph.hits(G, iterations=0)
    with pytest.raises(ConvergenceError):
        dgraph.hits(G.partition(2, client=False), iterations=3)
    assert isinstance(info.value, DGraphError)


def test_odd_graphs():
    assert len(dgraph.hits(dgraph.from_edges([], [], num_vertices=0)).vertex) == 0
    for G in (dgraph.from_edges([], [], num_vertices=3), dgraph.from_edges([0, 1], [1, 2], [0.0, 0.0]),
              dgraph.from_edges([0], [1], directed=True, num_vertices=3)):
        r = dgraph.hits(G, weight="weight") if G.weighted else None
        if r is not None:  # every weight 0: no edge to iterate on
            assert not r.hubs.any() and not r.authorities.any()
    r = dgraph.hits(dgraph.from_edges([], [], num_vertices=3))
    assert not r.hubs.any() and not r.authorities.any()
    # a start on vertices without out-edges reaches nothing
    r = dgraph.hits(dgraph.from_edges([0], [1], directed=True), nstart={1: 1.0})
    assert not r.hubs.any() and not r.authorities.any()
    # one self loop: hub and authority of itself
    r = dgraph.hits(dgraph.from_edges([0], [0], directed=True, num_vertices=2))
    assert r.hubs.tolist() == [1.0, 0.0] and r.authorities.tolist() == [1.0, 0.0]
    # undirected: hubs equal authorities
    r = dgraph.hits(dgraph.generate("rmat", scale=6, seed=2))
    np.testing.assert_allclose(r.hubs, r.authorities, rtol=1e-6)


def test_bad_arguments():
    G = dgraph.from_edges([0, 1, 2], [1, 2, 0], weights=[1.0, -2.0, 1.0], directed=True)
    for kw, what in [({"iterations": -1}, "iterations"), ({"iterations": 2.5}, "iterations"),
                     ({"tol": 0}, "tol"), ({"tol": float("nan")}, "tol"), ({"normalized": "yes"}, "normalized"),
                     ({"nstart": {0: -1.0}}, "nstart"), ({"nstart": {9: 1.0}}, "nstart vertex 9"),
                     ({"nstart": [1.0]}, "nstart"), ({"weight": "cost"}, "weight='cost'"),
                     ({"weight": "weight"}, r"edge 1 -> 2 has weight -2\.0")]:
        with pytest.raises(DGraphError, match=what):
            dgraph.hits(G, **kw)
    dgraph.hits(G)  # unweighted: the weights are not read


def test_one_function_chooses_the_implementation():
    from dgraph.algorithms.hits import HITS, IMPLEMENTATIONS, implementation
    from dgraph.engine.run import run_program

    assert {implementation("numpy"), implementation("cupy")} == set(IMPLEMENTATIONS)
    G = dgraph.generate("rmat", scale=6, seed=3, directed=True, weighted=True)
    ref = dgraph.hits(G, weight="weight", iterations=8, tol=None)
    assert ref.params["implementation"] == "cpu-pull+weighted"
    plain = run_program(lambda ids: HITS(8, None, weighted=True), G)  # decided from the shard
    np.testing.assert_array_equal(plain.raw("hubs"), ref.raw("hubs"))
