"""PageRank against NetworkX and the LDBC reference, on every executor and partition count."""

import networkx as nx
import numpy as np
import pytest
from graphs import corpus, weighted
from ldbc import load, check_epsilon, reference, written

import dgraph
from dgraph.backend import to_numpy
from dgraph.errors import DGraphError

CASES = [(label, kw) for label, kw in corpus(110, seed=5)]


def _nx_pagerank(G, **kw):
    if G.num_vertices == 0:
        return np.zeros(0)
    ref = nx.pagerank(G.to_networkx(), weight=None, **kw)
    return np.array([ref[v] for v in G.vertex_ids().tolist()])


@pytest.mark.parametrize("variant", ["pull", "push"])
def test_matches_networkx(backend, variant):
    checked = 0
    for label, kw in CASES:
        G = dgraph.from_edges(**kw).to(backend)
        if G.num_vertices == 0:
            r = dgraph.pagerank(G)
            assert len(r.vertex) == 0
            continue
        r = dgraph.pagerank(G, tol=1e-13, max_iterations=1000, variant=variant)
        ref = _nx_pagerank(G.to("numpy"), alpha=0.85, tol=1e-13, max_iter=1000)
        np.testing.assert_allclose(to_numpy(r.raw("pagerank")), ref, rtol=1e-9, atol=1e-12, err_msg=label)
        assert abs(float(to_numpy(r.raw("pagerank")).sum()) - 1.0) < 1e-9
        checked += 1
    assert checked >= 100


def test_personalization_matches_networkx():
    G = dgraph.generate("rmat", scale=7, seed=2, directed=True)
    pers = {0: 1.0, 5: 3.0, 17: 0.5}
    r = dgraph.pagerank(G, personalization=pers, tol=1e-13, max_iterations=1000)
    ref = _nx_pagerank(G, alpha=0.85, personalization=pers, tol=1e-13, max_iter=1000)
    np.testing.assert_allclose(r.pagerank, ref, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("kind", ["directed", "undirected"])
def test_ldbc_reference(kind, tmp_path):
    G, _ = load(kind)
    ref = reference(kind, "PR")
    for p in (1, 2, 3, 4):
        target = G if p == 1 else G.partition(p, client=False)
        r = dgraph.pagerank(target, damping=0.85, iterations=2)
        check_epsilon(written(r, "pagerank", tmp_path, f"PR-{kind}-{p}"), ref)


def test_partitions_give_the_same_bits():
    G = dgraph.generate("rmat", scale=9, seed=4, directed=True)
    ref = dgraph.pagerank(G, iterations=15).pagerank
    for p in (2, 3, 4):
        for method in ("range", "hash", "metis"):
            r = dgraph.pagerank(G.partition(p, method=method, client=False), iterations=15)
            np.testing.assert_array_equal(r.pagerank, ref)


def test_bad_arguments():
    G = dgraph.from_edges([0, 1], [1, 2])
    with pytest.raises(DGraphError, match="damping"):
        dgraph.pagerank(G, damping=1.5)
    with pytest.raises(DGraphError, match="iterations"):
        dgraph.pagerank(G, iterations=-1)
    with pytest.raises(DGraphError, match="personalization vertex 9"):
        dgraph.pagerank(G, personalization={9: 1.0})
    with pytest.raises(DGraphError, match="variant"):
        dgraph.pagerank(G, variant="sideways")


def test_one_function_chooses_the_implementation_and_the_result_records_it(monkeypatch):
    """pagerank.implementation() decides once; Result.params names it; the solver runs only when chosen."""
    from dgraph.algorithms.pagerank import IMPLEMENTATIONS, PageRank, implementation, solver
    from dgraph.engine.run import run_program

    table = {("numpy", 1, True, "pull", None): "cpu-fused", ("numpy", 1, False, "pull", 5): "cpu-pull",
             ("numpy", 3, False, "pull", 5): "cpu-pull", ("numpy", 1, True, "push", 5): "cpu-push",
             ("cupy", 1, True, "pull", 5): "gpu-fused", ("cupy", 1, True, "pull", None): "gpu-pull",
             ("cupy", 2, False, "pull", 5): "gpu-owned", ("cupy", 1, True, "push", 5): "gpu-push+batched",
             ("cupy", 1, True, "push", None): "gpu-push", ("cupy", 4, False, "push", 5): "gpu-push"}
    for args, name in table.items():
        assert implementation(*args) == name, args
    assert set(table.values()) == set(IMPLEMENTATIONS)
    # tasks and spmd never call run_steps: one whole shard there runs a superstep at a time
    remote = {("numpy", 1, True, "pull", 5): "cpu-pull", ("cupy", 1, True, "pull", 5): "gpu-pull",
              ("cupy", 1, True, "push", 5): "gpu-push", ("cupy", 2, False, "pull", 5): "gpu-owned"}
    for args, name in remote.items():
        assert implementation(*args, local=False) == name, args

    calls = []
    real = solver.cpu_steps
    monkeypatch.setattr(solver, "cpu_steps", lambda *a: calls.append(1) or real(*a))
    G = dgraph.generate("rmat", scale=7, seed=3, directed=True)
    whole = dgraph.pagerank(G, iterations=6)
    assert whole.params["implementation"] == "cpu-fused" and calls
    calls.clear()
    parts = dgraph.pagerank(G.partition(2, client=False), iterations=6)
    push = dgraph.pagerank(G, iterations=6, variant="push")
    assert (parts.params["implementation"], push.params["implementation"]) == ("cpu-pull", "cpu-push")
    assert not calls
    np.testing.assert_array_equal(parts.pagerank, whole.pagerank)
    # a Program built without a choice makes the same one from its shard
    plain = run_program(lambda ids: PageRank(0.85, 6, 1e-6, 100), G)
    assert calls and np.array_equal(plain.raw("pagerank"), whole.raw("pagerank"))


# -- weighted PageRank (issue 23 part 5) ----------------------------------------------------------

def _weighted_cases(count=110, seed=11):
    """The corpus with random weights (some exactly zero), every graph."""
    rng = np.random.default_rng(seed)
    for label, kw in corpus(count, seed=seed):
        yield label, weighted(kw, rng, low=0.0, high=5.0, zero_fraction=0.15)


WEIGHTED_CASES = list(_weighted_cases())


def _nx_weighted(H, vertex_ids, **kw):
    ref = nx.pagerank(H, weight="weight", **kw)
    return np.array([ref[v] for v in vertex_ids])


@pytest.mark.parametrize("variant", ["pull", "push"])
def test_weighted_matches_networkx(backend, variant):
    """Edge weights as transition weights: nx.pagerank(weight='weight') on >= 100 random and odd graphs
    (zero weights: a vertex whose out-edges weigh 0 in all is dangling)."""
    checked = 0
    for label, kw in WEIGHTED_CASES:
        G = dgraph.from_edges(**kw).to(backend)
        r = dgraph.pagerank(G, weight="weight", tol=1e-13, max_iterations=1000, variant=variant)
        if G.num_vertices == 0:
            assert len(r.vertex) == 0
            continue
        Gn = G.to("numpy")
        ref = _nx_weighted(Gn.to_networkx(), Gn.vertex_ids().tolist(), tol=1e-13, max_iter=1000)
        got = to_numpy(r.raw("pagerank"))
        np.testing.assert_allclose(got, ref, rtol=1e-9, atol=1e-12, err_msg=label)
        assert abs(float(got.sum()) - 1.0) < 1e-9, label
        assert r.params["implementation"].endswith("+weighted"), label
        checked += 1
    assert checked >= 100


def _multi_edges(rng, directed):
    n = int(rng.integers(1, 12))
    m = int(rng.integers(0, 3 * n + 1))
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    dup = rng.integers(0, max(m, 1), m // 2) if m else np.zeros(0, dtype=np.int64)  # repeat some edges
    src, dst = np.concatenate([src, src[dup]]), np.concatenate([dst, dst[dup]])
    w = np.where(rng.random(len(src)) < 0.1, 0.0, rng.uniform(0.1, 4.0, len(src)))
    return n, src, dst, w


@pytest.mark.parametrize("directed", [True, False])
def test_parallel_edges_add_up_as_in_a_networkx_multigraph(directed):
    """dedupe=False keeps parallel edges: their weights add up, as nx.pagerank sums a multigraph's."""
    rng = np.random.default_rng(3 + directed)
    conv = dict(tol=1e-12, max_iter=1000, alpha=0.5)  # damping 0.5: few iterations to 1e-12
    for i in range(30):
        n, src, dst, w = _multi_edges(rng, directed)
        G = dgraph.from_edges(src, dst, w, directed=directed, num_vertices=n, dedupe=False)
        H = (nx.MultiDiGraph if directed else nx.MultiGraph)()
        H.add_nodes_from(range(n))
        H.add_weighted_edges_from(zip(src.tolist(), dst.tolist(), w.tolist()))
        ref = _nx_weighted(H, list(range(n)), **conv)
        targets = [G] + ([G.partition(min(3, n), method="hash", client=False)] if i % 2 else [])
        for target in targets:
            r = dgraph.pagerank(target, weight="weight", damping=0.5, tol=1e-12, max_iterations=1000)
            np.testing.assert_allclose(r.pagerank, ref, rtol=1e-9, atol=1e-12, err_msg=f"graph {i}")
        # unweighted on the same multigraph: each parallel edge counts 1, as nx's weight=None
        unw = nx.pagerank(H, weight=None, **conv)
        np.testing.assert_allclose(dgraph.pagerank(G, damping=0.5, tol=1e-12, max_iterations=1000).pagerank,
                                   [unw[v] for v in range(n)], rtol=1e-9, atol=1e-12)


def test_weighted_personalization_and_nstart_match_networkx():
    rng = np.random.default_rng(8)
    for directed in (True, False):
        G = dgraph.generate("rmat", scale=7, seed=2, directed=directed)
        src, dst, _ = G.coo()
        W = dgraph.from_edges(src, dst, rng.uniform(0.0, 3.0, len(src)), directed=directed,
                              num_vertices=G.num_vertices)
        H = W.to_networkx()
        ids = list(range(W.num_vertices))
        pers = {0: 1.0, 5: 3.0, 17: 0.5}
        start = {v: float(1 + v % 5) for v in ids}
        for kw in ({"personalization": pers}, {"nstart": start}, {"personalization": pers, "nstart": start}):
            ref = _nx_weighted(H, ids, tol=1e-13, max_iter=1000, **kw)
            r = dgraph.pagerank(W, weight="weight", tol=1e-13, max_iterations=1000, **kw)
            np.testing.assert_allclose(r.pagerank, ref, rtol=1e-9, atol=1e-12, err_msg=str(kw))
            # NetworkX's own tolerance: the same iterations, so the same ranks to rounding
            loose = _nx_weighted(H, ids, **kw)
            r = dgraph.pagerank(W, weight="weight", **kw)
            np.testing.assert_allclose(r.pagerank, loose, rtol=1e-11, atol=1e-14, err_msg=str(kw))
    with pytest.raises(nx.PowerIterationFailedConvergence):  # nx's ranks with nstart are a start, not an answer
        nx.pagerank(H, max_iter=1, nstart=start)
    r = dgraph.pagerank(W, weight="weight", iterations=0, nstart=start)
    np.testing.assert_allclose(r.pagerank, np.array([start[v] for v in ids]) / sum(start.values()), rtol=1e-15)


def test_unweighted_graph_with_weight_counts_every_edge_once():
    G = dgraph.generate("rmat", scale=6, seed=1, directed=True)
    plain = dgraph.pagerank(G, iterations=10)
    assert not G.weighted
    same = dgraph.pagerank(G, iterations=10, weight="weight")
    np.testing.assert_array_equal(same.pagerank, plain.pagerank)
    assert same.params["implementation"] == "cpu-fused" and same.params["weight"] is None
    ones = dgraph.from_edges(*G.coo()[:2], np.ones(G.num_arcs), directed=True, num_vertices=G.num_vertices)
    np.testing.assert_allclose(dgraph.pagerank(ones, iterations=10, weight="weight").pagerank, plain.pagerank,
                               rtol=1e-14)


@pytest.mark.parametrize("directed", [True, False])
def test_weighted_partitions_give_the_same_bits(directed):
    rng = np.random.default_rng(5)
    G = dgraph.generate("rmat", scale=8, seed=4, directed=directed)
    src, dst, _ = G.coo()
    W = dgraph.from_edges(src, dst, rng.integers(0, 6, len(src)), directed=directed, num_vertices=G.num_vertices)
    ref = dgraph.pagerank(W, weight="weight", iterations=15)
    assert ref.params["implementation"] == "cpu-fused+weighted" and ref.supersteps == 15
    push_ref = dgraph.pagerank(W, weight="weight", iterations=15, variant="push").pagerank
    np.testing.assert_allclose(push_ref, ref.pagerank, rtol=1e-13)
    for p in (1, 2, 3, 4):
        for method in ("range", "hash", "metis"):
            r = dgraph.pagerank(W.partition(p, method=method, client=False), weight="weight", iterations=15)
            np.testing.assert_array_equal(r.pagerank, ref.pagerank, err_msg=f"p={p} {method}")
            whole = p == 1 and method == "range"  # one shard of every vertex in order: the fused loop
            assert r.params["implementation"] == ("cpu-fused+weighted" if whole else "cpu-pull+weighted")
            # one superstep more on several partitions: the exchange of weights, marked in its report
            assert r.supersteps == 15 + (p > 1)
            assert (r.stats_records[0].get("setup") == 1) == (p > 1)
            push = dgraph.pagerank(W.partition(p, method=method, client=False), weight="weight", iterations=15,
                                   variant="push")
            np.testing.assert_allclose(push.pagerank, ref.pagerank, rtol=1e-13, err_msg=f"push p={p} {method}")
    # a run to convergence stops after the same iterations on every partition count
    conv = dgraph.pagerank(W, weight="weight", tol=1e-10)
    for p in (2, 4):
        r = dgraph.pagerank(W.partition(p, client=False), weight="weight", tol=1e-10)
        np.testing.assert_array_equal(r.pagerank, conv.pagerank)
        assert r.supersteps == conv.supersteps + 1
    # nothing to iterate: the start, also where the exchange of weights never runs
    zero = dgraph.pagerank(W.partition(3, client=False), weight="weight", iterations=0)
    np.testing.assert_array_equal(zero.pagerank, np.full(W.num_vertices, 1.0 / W.num_vertices))


@pytest.mark.parametrize("executor", ["tasks", "spmd"])
def test_weighted_pagerank_on_a_streamed_partitioned_graph(client, executor):
    """Shards built on their workers (no in-edge ids) find their in-edge weights from the arcs exchanged."""
    G = dgraph.generate("rmat", scale=7, seed=9, directed=True, weighted=True)
    ref = dgraph.pagerank(G, weight="weight", iterations=12).pagerank
    PG = dgraph.generate_partitioned("rmat", 2, scale=7, seed=9, directed=True, weighted=True, client=client)
    r = dgraph.pagerank(PG, weight="weight", iterations=12, executor=executor)
    np.testing.assert_array_equal(r.pagerank, ref)
    # shards cut on the client (hash, 3 partitions), both directions, to convergence
    for directed in (True, False):
        W = dgraph.generate("rmat", scale=6, seed=2, directed=directed, weighted=True)
        want = dgraph.pagerank(W, weight="weight", tol=1e-10)
        got = dgraph.pagerank(W.partition(3, method="hash", client=client), weight="weight", tol=1e-10,
                              executor=executor)
        np.testing.assert_array_equal(got.pagerank, want.pagerank)
        assert got.supersteps == want.supersteps + 1 and got.params["executor"] == executor


def test_weighted_bad_arguments():
    G = dgraph.from_edges([0, 1, 2], [1, 2, 0], weights=[1.0, -2.0, 1.0], directed=True)
    with pytest.raises(DGraphError, match=r"edge 1 -> 2 has weight -2\.0"):
        dgraph.pagerank(G, weight="weight")
    dgraph.pagerank(G)  # unweighted: the weights are not read
    with pytest.raises(DGraphError, match="weight='cost'"):
        dgraph.pagerank(G, weight="cost")
    with pytest.raises(DGraphError, match="nstart"):
        dgraph.pagerank(G, nstart={0: -1.0})
    with pytest.raises(DGraphError, match="nstart vertex 7"):
        dgraph.pagerank(G, nstart={7: 1.0})
    with pytest.raises(DGraphError, match="nstart"):
        dgraph.pagerank(G, nstart=[1.0, 2.0])


def test_weighted_implementation_names():
    from dgraph.algorithms.pagerank import IMPLEMENTATIONS, WEIGHTED, implementation

    for args in [("numpy", 1, True, "pull", None), ("numpy", 3, False, "pull", 5), ("cupy", 1, True, "pull", 5),
                 ("cupy", 2, False, "pull", 5), ("cupy", 1, True, "push", 5)]:
        plain = implementation(*args)
        assert plain in IMPLEMENTATIONS and implementation(*args, weighted=True) == plain + WEIGHTED


def test_weighted_program_without_a_choice_decides_from_its_shard():
    from dgraph.algorithms.pagerank import PageRank
    from dgraph.engine.run import run_program

    G = dgraph.generate("rmat", scale=6, seed=3, directed=True, weighted=True)
    ref = dgraph.pagerank(G, weight="weight", iterations=6)
    plain = run_program(lambda ids: PageRank(0.85, 6, 1e-6, 100, weighted=True), G)
    np.testing.assert_array_equal(plain.raw("pagerank"), ref.raw("pagerank"))


@pytest.mark.gpu
@pytest.mark.parametrize("directed", [True, False])
def test_weighted_on_cupy_every_implementation(backend, directed):
    """The weighted GPU paths (fused, a superstep at a time, owned updates on partitions, push) against
    numpy: the same ranks to rounding; partitions against one GPU to about 1e-15."""
    if backend != "cupy":
        pytest.skip("the CuPy paths")
    rng = np.random.default_rng(2)
    G = dgraph.generate("rmat", scale=9, seed=6, directed=directed)
    src, dst, _ = G.coo()
    W = dgraph.from_edges(src, dst, rng.uniform(0.0, 3.0, len(src)), directed=directed, num_vertices=G.num_vertices)
    cpu = dgraph.pagerank(W, weight="weight", iterations=20).pagerank
    pers = {0: 1.0, 3: 2.0}
    cpu_p = dgraph.pagerank(W, weight="weight", iterations=20, personalization=pers).pagerank
    Wc = W.to("cupy")
    runs = {
        "gpu-fused+weighted": dgraph.pagerank(Wc, weight="weight", iterations=20),
        "gpu-push+batched+weighted": dgraph.pagerank(Wc, weight="weight", iterations=20, variant="push"),
    }
    for p in (2, 3):
        runs[f"gpu-owned+weighted p{p}"] = dgraph.pagerank(W.partition(p, method="hash", client=False,
                                                                       backend="cupy"), weight="weight",
                                                           iterations=20)
        runs[f"gpu-push+weighted p{p}"] = dgraph.pagerank(W.partition(p, client=False, backend="cupy"),
                                                          weight="weight", iterations=20, variant="push")
    for name, r in runs.items():
        assert r.params["implementation"] == name.split(" ")[0], name
        np.testing.assert_allclose(to_numpy(r.raw("pagerank")), cpu, rtol=1e-12, atol=1e-15, err_msg=name)
    one = to_numpy(runs["gpu-fused+weighted"].raw("pagerank"))
    for p in (2, 3):
        np.testing.assert_allclose(to_numpy(runs[f"gpu-owned+weighted p{p}"].raw("pagerank")), one, rtol=1e-13)
    conv = dgraph.pagerank(Wc, weight="weight", tol=1e-10, personalization=pers, iterations=None)
    assert conv.params["implementation"] == "gpu-pull+weighted"
    ref = _nx_weighted(W.to_networkx(), list(range(W.num_vertices)), tol=1e-10, personalization=pers)
    np.testing.assert_allclose(to_numpy(conv.raw("pagerank")), ref, rtol=1e-8, atol=1e-12)
    fused_p = dgraph.pagerank(Wc, weight="weight", iterations=20, personalization=pers)
    np.testing.assert_allclose(to_numpy(fused_p.raw("pagerank")), cpu_p, rtol=1e-12, atol=1e-15)


@pytest.mark.gpu
@pytest.mark.parametrize("directed", [True, False])
def test_owned_updates_sum_the_local_half_beside_the_exchange(backend, directed):
    """'gpu-owned' cuts each shard's in-edges by where the source lives (the local half summed on a
    side stream during the exchange): the cut keeps every arc once, in row order, and the ranks of
    2-4 range or hash partitions (personalized too) equal one GPU's to about 1e-15."""
    if backend != "cupy":
        pytest.skip("the CuPy paths")
    from dgraph.algorithms.pagerank import gpu
    from dgraph.partition.methods import partition_plan
    from dgraph.partition.shard import shard_from_graph

    graphs = [dgraph.generate("rmat", scale=10, seed=4, directed=directed)]
    graphs += [dgraph.from_edges(**kw) for _, kw in list(corpus(24, seed=9))[::3]]
    for i, G in enumerate(graphs):
        if G.num_vertices < 4:  # at most one partition a vertex
            continue
        one = to_numpy(dgraph.pagerank(G.to("cupy"), iterations=15).raw("pagerank"))
        pers = {G.ids.to_user(0).item(): 1.0}
        one_p = to_numpy(dgraph.pagerank(G.to("cupy"), iterations=15, personalization=pers).raw("pagerank"))
        for p, method in ((2, "range"), (3, "hash"), (4, "range")):
            PG = G.partition(p, method=method, client=False, backend="cupy")
            r = dgraph.pagerank(PG, iterations=15)
            assert r.params["implementation"] == "gpu-owned"
            np.testing.assert_allclose(to_numpy(r.raw("pagerank")), one, rtol=1e-12, atol=1e-15,
                                       err_msg=f"graph {i} p={p} {method}")
            rp = dgraph.pagerank(PG, iterations=15, personalization=pers)
            np.testing.assert_allclose(to_numpy(rp.raw("pagerank")), one_p, rtol=1e-12, atol=1e-15)
        Gc = G.to("cupy")
        for method in ("range", "hash"):
            plan = partition_plan(G, 3, method)
            for q in range(3):
                shard = shard_from_graph(Gc, plan, q)
                split = gpu.SplitInEdges(shard)
                cindptr, cindices = (to_numpy(a) for a in shard.csc(edge_ids=False)[:2])
                local_of = {int(v): k for k, v in enumerate(to_numpy(shard.global_rows()))}
                lptr, lidx = (to_numpy(a) for a in split.local[:2])
                rptr, ridx = (to_numpy(a) for a in split.remote[:2])
                for row in range(shard.num_rows):
                    sources = cindices[cindptr[row]:cindptr[row + 1]].tolist()
                    assert lidx[lptr[row]:lptr[row + 1]].tolist() == [local_of[s] for s in sources if s in local_of]
                    assert ridx[rptr[row]:rptr[row + 1]].tolist() == [s for s in sources if s not in local_of]
