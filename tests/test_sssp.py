"""SSSP (near/far delta-stepping) against scipy's Dijkstra, the LDBC reference, and itself across
deltas, partitions and executors."""

import math

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as cg
from graphs import corpus, weighted
from ldbc import load, check_epsilon, reference, written

import dgraph
from dgraph.backend import to_numpy
from dgraph.errors import InputError, VertexNotFoundError

CASES = list(corpus(110, seed=11))


def _weighted_cases(seed=3):
    """Every corpus graph twice: float weights in [0, 10) and integer weights 0..10 (10% zeros each)."""
    rng = np.random.default_rng(seed)
    for label, kw in CASES:
        yield f"{label}-float", weighted(kw, rng), False
        yield f"{label}-int", weighted(kw, rng, integer=True), True


def _sources(G, rng):
    n = G.num_vertices
    if n == 0:
        return []
    deg = to_numpy(G.out_degree())
    return sorted({int(rng.integers(0, n)), int(np.argmax(deg))})


def _user(G, v):
    u = G.ids.to_user(v)
    return u.item() if hasattr(u, "item") else u


def reference_distances(G, source):
    """scipy's Dijkstra on the deduplicated (minimum weight) CSR; explicit zero weights are edges."""
    return cg.dijkstra(G.to_scipy(), directed=True, indices=source)


def min_tight_parents(G, dist, source):
    """For every vertex, the smallest u with a tight edge u -> v (dist[u] + w == dist[v]) that is one
    hop closer to the source on the fewest-hop shortest paths (else -1): the parents form a tree."""
    A = sp.coo_matrix(G.to_scipy())
    u, v, w = A.row, A.col, A.data.astype(np.float64)
    tight = np.isfinite(dist[v]) & (dist[u] + w == dist[v]) & (v != source)
    n = G.num_vertices
    T = sp.csr_matrix((np.ones(int(tight.sum())), (u[tight], v[tight])), shape=(n, n))
    order, pred = cg.breadth_first_order(T, source, directed=True, return_predecessors=True)
    hops = np.full(n, -1)
    hops[source] = 0
    for x in order[1:]:
        hops[x] = hops[pred[x]] + 1
    tight &= (hops[u] + 1 == hops[v]) & (hops[u] >= 0)
    best = np.full(n, np.iinfo(np.int64).max)
    np.minimum.at(best, v[tight], u[tight])
    best[best == np.iinfo(np.int64).max] = -1
    best[source] = source
    return best


def _check(G, source, r, integer):
    dist = to_numpy(r.raw("distance"))
    parent = to_numpy(r.raw("parent")).astype(np.int64)
    assert dist.dtype == np.float64
    ref = reference_distances(G, source)
    if integer:
        np.testing.assert_array_equal(dist, ref)
    else:
        np.testing.assert_allclose(dist, ref, rtol=1e-12, atol=0)
        np.testing.assert_array_equal(np.isinf(dist), np.isinf(ref))
    reached = np.isfinite(dist)
    assert np.all((parent >= 0) == reached), "a parent exactly for the reached vertices"
    best = min_tight_parents(G, dist, source)
    assert np.all(best[reached] >= 0), "every reached vertex has a tight in-edge"
    np.testing.assert_array_equal(parent, best)


def test_matches_scipy_dijkstra(backend):
    rng = np.random.default_rng(5)
    graphs = checked = 0
    for label, kw, integer in _weighted_cases():
        G = dgraph.from_edges(**kw).to(backend)
        H = G.to("numpy")
        srcs = _sources(H, rng)
        graphs += bool(srcs)
        for s in srcs:
            r = dgraph.sssp(G, _user(G, s))
            try:
                _check(H, s, r, integer)
            except AssertionError as exc:
                raise AssertionError(f"graph {label}, source {s}: {exc}") from None
            checked += 1
    assert graphs >= 200 and checked >= 300


def test_scipy_reference_agrees_with_networkx():
    """The reference itself: scipy counts explicit zero weights as edges, as NetworkX does."""
    checked = 0
    for label, kw, _ in list(_weighted_cases(seed=4))[:80]:
        G = dgraph.from_edges(**kw)
        if G.num_vertices == 0:
            continue
        s = int(np.argmax(to_numpy(G.out_degree())))
        ref = reference_distances(G, s)
        lengths = nx.single_source_dijkstra_path_length(G.to_networkx(), _user(G, s), weight="weight")
        user = G.vertex_ids().tolist()
        expect = np.array([lengths.get(v, np.inf) for v in user], dtype=np.float64)
        np.testing.assert_allclose(ref, expect, rtol=1e-12, err_msg=label)
        checked += 1
    assert checked >= 70
    zero = dgraph.from_edges([0, 1], [1, 2], weights=[0.0, 0.0], directed=True)
    np.testing.assert_array_equal(reference_distances(zero, 0), [0.0, 0.0, 0.0])


def test_unweighted_is_bfs():
    """Weight 1 everywhere: distance = BFS depth, and the parent rule is BFS's (smallest id one level up)."""
    checked = 0
    for label, kw in CASES[:60]:
        G = dgraph.from_edges(**kw)
        if G.num_vertices == 0:
            continue
        s = _user(G, int(np.argmax(to_numpy(G.out_degree()))))
        r, b = dgraph.sssp(G, s), dgraph.bfs(G, s)
        depth = b.raw("depth").astype(np.float64)
        depth[depth < 0] = np.inf
        np.testing.assert_array_equal(r.raw("distance"), depth, err_msg=label)
        np.testing.assert_array_equal(r.raw("parent").astype(np.int64), b.raw("parent").astype(np.int64),
                                      err_msg=label)
        checked += 1
    assert checked >= 50


@pytest.mark.parametrize("kind", ["directed", "undirected"])
def test_ldbc_reference(kind, tmp_path):
    G, source = load(kind, weighted=True)
    ref = reference(kind, "SSSP")
    assert "Infinity" in ref.values() or kind == "undirected"
    for p in (1, 2, 3, 4):
        target = G if p == 1 else G.partition(p, client=False)
        r = dgraph.sssp(target, source)
        check_epsilon(written(r, "distance", tmp_path, f"SSSP-{kind}-{p}"), ref)


def _delta_graphs():
    rng = np.random.default_rng(12)
    yield "rmat-float", dgraph.generate("rmat", scale=9, seed=2, directed=True, weighted=True)
    yield "rmat-int", dgraph.generate("rmat", scale=9, seed=3, weighted=True, weights="int")
    yield "grid", dgraph.generate("grid", rows=15, cols=17, weighted=True, seed=4)
    for label, kw, _ in list(_weighted_cases(seed=8))[40:60]:
        yield label, dgraph.from_edges(**kw)
    yield "unweighted", dgraph.from_edges(**dict(CASES[30][1]))
    yield "zero-weights", dgraph.from_edges(**weighted(CASES[31][1], rng, zero_fraction=0.7))


def test_every_delta_gives_the_same_result():
    for label, G in _delta_graphs():
        s = _user(G, int(np.argmax(to_numpy(G.out_degree()))))
        auto = dgraph.sssp(G, s)
        assert auto.params["delta"] > 0
        for delta in (1e-3, 0.25, 1, 3, 100, math.inf):
            r = dgraph.sssp(G, s, delta=delta)
            assert r.params["delta"] == delta
            np.testing.assert_array_equal(r.raw("distance"), auto.raw("distance"), err_msg=f"{label} {delta}")
            np.testing.assert_array_equal(r.raw("parent"), auto.raw("parent"), err_msg=f"{label} {delta}")


def test_priority_queue_orders_the_work():
    """A small delta takes more supersteps and fewer relaxations than Bellman-Ford (delta = inf)."""
    G = dgraph.generate("grid", rows=20, cols=20, weighted=True, seed=1)
    small, bf = dgraph.sssp(G, 0, delta=0.05), dgraph.sssp(G, 0, delta=math.inf)
    assert small.supersteps > bf.supersteps
    assert small.edges_touched < bf.edges_touched
    s = small.stats
    assert {"frontier", "far", "bound", "improved", "edges"} <= set(s.columns)
    assert s["bound"].is_monotonic_increasing and s["frontier"].iloc[-1] == 0


def test_auto_delta_is_davidsons_heuristic():
    from dgraph.algorithms.sssp import auto_delta

    G = dgraph.from_edges([0, 0, 1, 2], [1, 2, 3, 3], weights=[1.0, 2.0, 3.0, 6.0], directed=True)
    # partitioned (supersteps cost an exchange): mean weight 3, mean out-degree 4 arcs / 4 vertices = 1:
    # 32 * 3 / 1 = 96 -> 128
    assert dgraph.sssp(G.partition(2, client=False), 0).params["delta"] == 128.0
    # a whole Graph on numpy: 8 * 3 / 1 ** 2 = 24 -> 32
    assert dgraph.sssp(G, 0).params["delta"] == 32.0
    # unweighted (weight 1), 1 arc / 2 vertices: 32 * 1 / 0.5 = 64; whole: 8 * 1 / 0.25 = 32
    H = dgraph.from_edges([0], [1], directed=True)
    assert dgraph.sssp(H.partition(2, client=False), 0).params["delta"] == 64.0
    assert dgraph.sssp(H, 0).params["delta"] == 32.0
    assert auto_delta(1000, 1000 * 0.5, 100, factor=8.0, power=2) == 0.03125  # 8 * 0.5 / 100 = 0.04
    assert auto_delta(0, 0.0, 5) == 1.0 and auto_delta(4, 0.0, 2) == 1.0
    assert auto_delta(1000, 1000 * 0.5, 100) == 2.0  # 32 * 0.5 / 10 = 1.6
    assert auto_delta(1000, 1000 * 0.5, 100, factor=256.0) == 16.0  # the CuPy constant: 12.8


@pytest.mark.parametrize("method", ["range", "hash", "metis"])
def test_partitions_equal_single_exactly(method):
    checked = 0
    for label, G in list(_delta_graphs())[:12]:
        s = _user(G, int(np.argmax(to_numpy(G.out_degree()))))
        ref = dgraph.sssp(G, s)  # the whole graph's own auto delta (the small-bucket rule)
        for p in (2, 3, 4):
            if p > G.num_vertices:
                continue
            PG = G.partition(p, method=method, client=False)
            r = dgraph.sssp(PG, s)  # Davidson's rule: another delta, the same answer
            np.testing.assert_array_equal(r.raw("distance"), ref.raw("distance"), err_msg=f"{label} p={p}")
            np.testing.assert_array_equal(r.raw("parent"), ref.raw("parent"), err_msg=f"{label} p={p}")
            same = dgraph.sssp(G, s, delta=r.params["delta"])  # the same delta: the same supersteps
            assert r.supersteps == same.supersteps
            checked += 1
    assert checked >= 30


def test_string_ids_and_user_parents():
    G = dgraph.from_edges(["a", "b", "a", "c", "x"], ["b", "c", "c", "d", "y"], weights=[1, 1, 3, 2, 1],
                          directed=True)
    r = dgraph.sssp(G, "a")
    dist = dict(zip(r.vertex.tolist(), r.distance.tolist()))
    assert dist == {"a": 0.0, "b": 1.0, "c": 2.0, "d": 4.0, "x": math.inf, "y": math.inf}
    par = dict(zip(r.vertex.tolist(), r.parent.tolist()))
    assert par == {"a": "a", "b": "a", "c": "b", "d": "c", "x": None, "y": None}
    assert list(r.to_pandas().columns) == ["vertex", "distance", "parent"]


def test_zero_weight_cycles_still_give_a_tree():
    # 0 -> 3 (1), then a zero-weight cycle 3 -> 1 -> 2 -> 1: every parent chain must reach 0
    G = dgraph.from_edges([0, 3, 1, 2], [3, 1, 2, 1], weights=[1.0, 0.0, 0.0, 0.0], directed=True)
    for target in (G, G.partition(2, method="hash", client=False)):
        r = dgraph.sssp(target, 0)
        assert r.distance.tolist() == [0, 1, 1, 1]
        assert r.parent.tolist() == [0, 3, 1, 0]


def test_ties_take_the_smallest_parent():
    # 0 -> 3 costs 2 through 1 and through 2, and 2 directly; a zero-weight self loop changes nothing
    G = dgraph.from_edges([0, 0, 1, 2, 0, 3], [1, 2, 3, 3, 3, 3], weights=[1, 1, 1, 1, 2, 0], directed=True)
    r = dgraph.sssp(G, 0)
    assert r.distance.tolist() == [0, 1, 1, 2] and r.parent.tolist() == [0, 0, 0, 0]
    r = dgraph.sssp(G.partition(2, method="hash", client=False), 0)
    assert r.parent.tolist() == [0, 0, 0, 0]


def test_rounded_ties_get_a_hop_pass(backend):
    """0 -> 1 costs 1 directly and 0.5 through 2; 1 -> 3 weighs 2^60, so both distances of 1 round
    to the same distance of 3.  The relaxation met 3 from 1 at distance 1 (2 hops) before 1 dropped
    to 0.5 (2 hops, so 3 hops through it): 3's hop count was one no final path has, and 3 had no
    parent.  The hop pass recomputes the hops from the final distances: every delta, kernel set and
    partitioning gives parent 1."""
    G = dgraph.from_edges([0, 0, 2, 1], [1, 2, 1, 3], weights=[1.0, 0.25, 0.25, 2.0 ** 60], directed=True)
    G = G.to(backend)
    runs = 0
    for target in (G, G.partition(2, client=False), G.partition(3, method="hash", client=False)):
        for kernels in ("fused", "generic"):
            for delta in (None, 0.1, 1e30, math.inf):
                r = dgraph.sssp(target, 0, delta=delta, kernels=kernels)
                assert r.distance.tolist() == [0.0, 0.5, 0.25, 2.0 ** 60]
                assert r.parent.tolist() == [0, 2, 0, 1], (kernels, delta)
                if delta != 0.1:  # 0.1: 1 drops to 0.5 before 3 is met
                    assert r.params["hop_pass"] >= 3, (kernels, delta)
                    st = r.stats
                    hop = st[st["phase"] == "hop pass"]
                    assert len(hop) == r.params["hop_pass"] and len(st) > len(hop)
                    assert st["superstep"].tolist() == list(range(len(st)))
                runs += 1
    assert runs == 24


def test_overflowing_paths_are_no_paths(backend):
    """Finite weights whose sum overflows float64: the far vertex is unreached (inf, parent -1), the
    run ends (it looped on an infinite bucket bound), and no overflow warning reaches the user."""
    import warnings

    G = dgraph.from_edges([0, 1, 0], [1, 2, 3], weights=[1.7e308, 1.7e308, 1.0], directed=True).to(backend)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for target in (G, G.partition(2, client=False)):
            for kernels in ("fused", "generic"):
                for delta in (None, 1.0, math.inf):
                    r = dgraph.sssp(target, 0, delta=delta, kernels=kernels)
                    assert r.distance.tolist() == [0.0, 1.7e308, math.inf, 1.0]
                    assert r.parent.tolist() == [0, 0, -1, 0]


def test_negative_weight_is_an_input_error_before_any_work():
    steps = []
    G = dgraph.from_edges(["p", "q", "r", "s"], ["q", "r", "s", "p"], weights=[1.0, -2.5, 3.0, -1.0],
                          directed=True)
    for target in (G, G.partition(2, client=False)):
        with pytest.raises(InputError, match=r"edge 'q' -> 'r' has weight -2\.5"):
            dgraph.sssp(target, "p", on_step=steps.append)
    H = dgraph.from_edges([5, 7, 9], [7, 9, 5], weights=[2, 0, -4])
    with pytest.raises(InputError, match="edge 5 -> 9 has weight -4"):  # undirected: the smaller end first
        dgraph.sssp(H, 5, on_step=steps.append)
    assert steps == []


@pytest.mark.parametrize("delta", [0, -1.0, float("nan"), "big", True, [1]])
def test_bad_delta(delta):
    G = dgraph.from_edges([0], [1], weights=[1.0])
    with pytest.raises(InputError, match="delta="):
        dgraph.sssp(G, 0, delta=delta)


def test_missing_source_and_empty_graph():
    with pytest.raises(VertexNotFoundError, match="source 7"):
        dgraph.sssp(dgraph.from_edges([0, 1], [1, 2], weights=[1, 1]), 7)
    with pytest.raises(VertexNotFoundError):
        dgraph.sssp(dgraph.from_edges([], [], num_vertices=0), 0)
    r = dgraph.sssp(dgraph.from_edges([], [], num_vertices=1), 0)
    assert r.distance.tolist() == [0.0] and r.parent.tolist() == [0]


# -- tasks and spmd on a LocalCluster ------------------------------------------------------------

def _distributed_graphs():
    rng = np.random.default_rng(21)
    picks = [kw for _, kw in CASES[15:] if 12 <= kw["num_vertices"]][:6]
    for i, kw in enumerate(picks):
        yield f"random-{i}", dgraph.from_edges(**weighted(kw, rng, integer=bool(i % 2)))
    yield "grid", dgraph.generate("grid", rows=6, cols=7, weighted=True, seed=2)
    yield "rmat", dgraph.generate("rmat", scale=6, seed=5, directed=True, weighted=True, weights="int")


def test_executors_equal_local(client):
    graphs = 0
    for label, G in _distributed_graphs():
        s = _user(G, int(np.argmax(to_numpy(G.out_degree()))))
        ref = dgraph.sssp(G, s)
        local = dgraph.sssp(G.partition(2, client=False), s)  # a partitioned run's delta, in one process
        for p in (2, 3):
            PG = G.partition(p, client=client)
            for executor, exchange in (("tasks", "butterfly"), ("spmd", "butterfly"), ("spmd", "all-to-all")):
                r = dgraph.sssp(PG, s, executor=executor, exchange=exchange)
                what = f"{label} p={p} {executor} {exchange}"
                np.testing.assert_array_equal(r.raw("distance"), ref.raw("distance"), err_msg=what)
                np.testing.assert_array_equal(r.raw("parent"), ref.raw("parent"), err_msg=what)
                assert r.params["executor"] == executor and r.params["delta"] == local.params["delta"]
                assert r.supersteps == local.supersteps, what
        graphs += 1
    assert graphs == 8


def test_distributed_hop_pass(client):
    """The hop pass on a Dask cluster: the check runs when the deferred result is fetched."""
    G = dgraph.from_edges([0, 0, 2, 1], [1, 2, 1, 3], weights=[1.0, 0.25, 0.25, 2.0 ** 60], directed=True)
    PG = G.partition(2, client=client)
    for executor in ("tasks", "spmd"):
        r = dgraph.sssp(PG, 0, delta=math.inf, executor=executor)
        assert "check_s" not in r.phases  # the shards counted the orphan in the run
        assert r.parent.tolist() == [0, 2, 0, 1], executor
        assert r.distance.tolist() == [0.0, 0.5, 0.25, 2.0 ** 60]
        assert r.params["hop_pass"] >= 3 and r.supersteps > r.params["hop_pass"]


def test_distributed_result_without_orphans_stays_on_the_workers(client):
    """The parents' check runs on the workers after the run: a result that needs no hop pass is not
    brought to the client until it is read (issue 20 part 4), and reads the same."""
    G = dgraph.from_edges([0, 0, 2, 1], [1, 2, 1, 3], weights=[1.0, 0.25, 0.25, 2.0], directed=True)
    ref = dgraph.sssp(G, 0)
    PG = G.partition(2, client=client)
    for executor in ("tasks", "spmd"):
        r = dgraph.sssp(PG, 0, executor=executor)
        assert r.on_workers and "hop_pass" not in r.params, executor
        # the shards count the orphans as they finish (SSSP.tally): no check task after the run
        assert "check_s" not in r.phases and r._remote.tallies == {"orphans": 0}, (executor, r.phases)
        assert r.parent.tolist() == ref.parent.tolist() == [0, 2, 0, 1]
        assert r.distance.tolist() == ref.distance.tolist()


def test_distributed_negative_weight(client):
    G = dgraph.from_edges([0, 1, 2], [1, 2, 0], weights=[1, -1, 2], directed=True)
    with pytest.raises(InputError, match="edge 1 -> 2 has weight -1"):
        dgraph.sssp(G.partition(2, client=client), 0, executor="spmd")


def test_fused_kernels_equal_generic_exactly(backend, monkeypatch):
    """The fused kernels (numba on numpy, CUDA on CuPy) give the vectorized reference's bits, the
    supersteps and per-superstep counters included, on one shard and on 2..5 of every method (on
    CuPy with the skip of stale frontier rows off: tests/test_gpu_sssp_steps.py checks it)."""
    monkeypatch.setattr(dgraph.config, "sssp_skip_stale", False)
    rng = np.random.default_rng(21)
    graphs = [(label, dgraph.from_edges(**kw)) for label, kw, _ in list(_weighted_cases(seed=17))[::3]]
    graphs += list(_delta_graphs())
    graphs.append(("rmat-int64", dgraph.generate("rmat", scale=8, seed=5, weighted=True, weights="int")))
    src, dst = rng.integers(0, 300, 3000), rng.integers(0, 300, 3000)
    w32 = (rng.random(3000) * 4).astype(np.float32)
    w32[::7] = 0
    graphs.append(("float32", dgraph.from_edges(src, dst, weights=w32, directed=True)))
    checked = 0
    for i, (label, G) in enumerate(graphs):
        n = G.num_vertices
        if n == 0:
            continue
        s = _user(G, int(rng.integers(0, n)))
        G = G.to(backend)
        variants = [(G, "p=1")]
        if i % 4 == 0 and n >= 2:
            for p in (2, 3, 5):
                if p <= n:
                    method = ("range", "hash", "metis")[(i // 4 + p) % 3]
                    variants.append((G.partition(p, method=method, client=False), f"p={p} {method}"))
        for delta in (None, 0.5, math.inf):
            for H, what in variants:
                ref = dgraph.sssp(H, s, delta=delta, kernels="generic")
                got = dgraph.sssp(H, s, delta=delta, kernels="fused")
                msg = f"{label} {what} delta={delta}"
                assert got.backend == ref.backend == backend
                for col in ("distance", "parent"):
                    np.testing.assert_array_equal(to_numpy(got.raw(col)), to_numpy(ref.raw(col)), err_msg=msg)
                assert got.supersteps == ref.supersteps, msg
                assert got.edges_touched == ref.edges_touched, msg
                for col in ("frontier", "far", "improved", "edges"):
                    np.testing.assert_array_equal(got.stats[col].to_numpy(), ref.stats[col].to_numpy(),
                                                  err_msg=f"{msg} {col}")
                checked += 1
    assert checked >= 250


def test_bad_kernels():
    with pytest.raises(InputError, match="kernels"):
        dgraph.sssp(dgraph.from_edges([0], [1]), 0, kernels="numba")


def test_one_function_chooses_the_implementation(client):
    """dgraph.sssp picks its kernels and loop once (program.implementation), records the choice in
    r.params["implementation"], and every choice gives the reference's bits; a Program handed a
    shard its choice was not made for refuses to run."""
    from dgraph.algorithms.sssp import IMPLEMENTATIONS, SSSP, implementation
    from dgraph.partition.shard import whole_graph_shard

    G = dgraph.generate("grid", rows=6, cols=7, weighted=True, seed=2)
    ref = dgraph.sssp(G, 0, kernels="generic")
    cases = [(G, {}, "cpu-numba+steps"), (G, {"kernels": "generic"}, "generic"),
             (G.partition(1, client=False), {}, "cpu-numba+steps"),
             (G.partition(1, method="hash", client=False), {}, "cpu-numba"),
             (G.partition(3, client=False), {}, "cpu-numba"),
             (G.partition(1, client=client), {}, "cpu-numba+whole"),
             (G.partition(1, client=client), {"executor": "local"}, "cpu-numba+steps")]
    for H, kw, want in cases:
        r = dgraph.sssp(H, 0, **kw)
        assert r.params["implementation"] == want, (H, kw)
        for col in ("distance", "parent"):
            np.testing.assert_array_equal(to_numpy(r.raw(col)), to_numpy(ref.raw(col)), err_msg=want)
    assert implementation("cupy", True, "fused", "local") == "gpu-cuda+steps"
    with dgraph.config.override(sssp_steps=False):
        assert implementation("cupy", True, "fused", "local") == "gpu-cuda+host-steps"
    assert implementation("cupy", True, "fused", "spmd") == "gpu-cuda+whole"
    assert implementation("cupy", False, "fused", "local") == "gpu-cuda"
    assert implementation("cupy", True, "generic", "local") == "generic"
    chosen = {implementation(b, w, k, e) for b in ("numpy", "cupy") for w in (True, False)
              for k in ("fused", "generic") for e in ("local", "spmd")}
    with dgraph.config.override(sssp_steps=False):
        chosen.add(implementation("cupy", True, "fused", "local"))
    assert chosen == set(IMPLEMENTATIONS)
    part = G.partition(2, client=False).local_shards()[0]
    with pytest.raises(RuntimeError, match="chosen for one whole shard, run on a partition"):
        SSSP(0, 1.0, "cpu-numba+steps").init(part)
    with pytest.raises(RuntimeError, match="chosen for a partition, run on one whole shard"):
        SSSP(0, 1.0, "cpu-numba").init(whole_graph_shard(G))
    with pytest.raises(RuntimeError, match="'gpu-cuda' run on a numpy shard"):
        SSSP(0, 1.0, "gpu-cuda").init(part)
    with pytest.raises(ValueError, match="implementation='numba'"):
        SSSP(0, 1.0, "numba")


@pytest.mark.parametrize("delta", [0.01, 0.07])
def test_fused_many_buckets_and_batches(delta):
    """Small deltas: hundreds of next buckets (the far pile's window moves many times) and more
    supersteps than one numba call records (1,024), so the run is handed back and resumed; the
    fused run gives the generic one's distances, parents and every per-superstep record."""
    rng = np.random.default_rng(8)
    chain = dgraph.from_edges(np.arange(1500), np.arange(1, 1501), weights=rng.uniform(0, 1, 1500))
    grid = dgraph.generate("grid", rows=30, cols=30, weighted=True, seed=5)
    rmat = dgraph.generate("rmat", scale=9, seed=6, weighted=True, directed=True)
    # 50x50 at delta/2: ~1,800 supersteps, a far pile of ~80 when the first numba call hands back
    wide = dgraph.generate("grid", rows=50, cols=50, weighted=True, seed=5)
    for label, G, d in (("chain", chain, delta), ("grid", grid, delta), ("rmat", rmat, delta),
                        ("wide", wide, delta / 2)):
        s = _user(G, 0)
        ref = dgraph.sssp(G, s, delta=d, kernels="generic")
        got = dgraph.sssp(G, s, delta=d, kernels="fused")
        for col in ("distance", "parent"):
            np.testing.assert_array_equal(got.raw(col), ref.raw(col), err_msg=f"{label} {col}")
        assert got.supersteps == ref.supersteps > 25, label
        for col in ("frontier", "far", "bound", "improved", "edges"):
            np.testing.assert_array_equal(got.stats[col].to_numpy(), ref.stats[col].to_numpy(),
                                          err_msg=f"{label} {col}")
    assert dgraph.sssp(chain, 0, delta=delta).supersteps > 1024
    if delta == 0.01:
        r = dgraph.sssp(wide, 0, delta=0.005)
        assert r.supersteps > 1024 and r.stats["far"].iloc[1023] > 0  # resumed with a far pile
