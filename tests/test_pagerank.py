"""PageRank against NetworkX and the LDBC reference, on every executor and partition count."""

import networkx as nx
import numpy as np
import pytest
from graphs import corpus
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
