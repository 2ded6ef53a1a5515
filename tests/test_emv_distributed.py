"""EMV programs on the tasks and spmd executors (a LocalCluster of 2 processes) equal the local run."""

import numpy as np
import pytest
from graphs import corpus, weighted

import dgraph
from dgraph.emv import examples as ex

CASES = [(label, kw) for label, kw in corpus(18, seed=31) if len(kw["src"]) > 1]


@pytest.mark.parametrize("executor", ["tasks", "spmd"])
def test_examples_on_dask_executors(client, executor):
    rng = np.random.default_rng(7)
    for i, (label, kw) in enumerate(CASES[:6]):
        G = dgraph.from_edges(**weighted(kw, rng))
        src = G.vertex_ids()[0]
        p = 2 + i % 3
        if p > G.num_vertices:
            continue
        hops = 1 + i % 2
        PG = G.partition(p, method="hash" if i % 2 else "range", client=client)
        what = f"{label} p={p} hops={hops} {executor}"
        np.testing.assert_allclose(ex.pagerank(PG, iterations=12, executor=executor).rank,
                                   dgraph.pagerank(G, iterations=12).pagerank, rtol=0, atol=1e-9, err_msg=what)
        np.testing.assert_array_equal(ex.bfs(PG, src, executor=executor, hops=hops).depth,
                                      dgraph.bfs(G, src).depth, err_msg=what)
        np.testing.assert_array_equal(ex.sssp(PG, src, executor=executor, hops=hops).dist,
                                      dgraph.sssp(G, src).distance, err_msg=what)


@pytest.mark.parametrize("executor", ["tasks", "spmd"])
def test_matching_and_auto_hops_on_dask_executors(client, executor):
    rng = np.random.default_rng(2)
    G = dgraph.from_edges(rng.integers(0, 30, 90), 30 + rng.integers(0, 25, 90), num_vertices=55)
    ref = dgraph.maximal_matching(G, seed=4).mate
    PG = G.partition(3, client=client)
    r = dgraph.maximal_matching(PG, left=list(range(30)), seed=4, executor=executor, hops="auto")
    np.testing.assert_array_equal(r.mate, ref)
    grid = dgraph.generate("grid", rows=12, cols=12)
    r = ex.bfs(grid.partition(4, client=client), 0, executor=executor, hops="auto")
    np.testing.assert_array_equal(r.depth, dgraph.bfs(grid, 0).depth)
    assert r.stats["hops"].iloc[-1] >= 2  # an exchange costs milliseconds on Dask: the model goes deeper
