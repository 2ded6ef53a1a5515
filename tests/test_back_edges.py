"""Every algorithm on graphs whose edges point backwards across the partition cut (issue 21, item 12).

WCC once split components on such a directed graph with two range partitions, on every executor,
while the equality tests (random graphs, mostly forward or symmetric across the cut) passed.  Here
every algorithm runs on the issue's graph and on ``graphs.back_edge_graphs`` (edges mostly from a
higher id to a lower one), partitioned 2, 3 and 4 ways by range and hash, and must return exactly
what it returns on the whole graph: in one process (the ``local`` executor simulating the
partitions) and on the Dask executors.
"""

import numpy as np
import pytest
from graphs import ISSUE21_12, back_edge_graphs

import dgraph
from dgraph.backend import to_numpy
from dgraph.emv import examples as ex


def _first(G):
    return G.vertex_ids()[0]


#: name -> run(target, G, **executor keywords) -> Result; every column is compared exactly but
#: EMV PageRank's ranks, whose sums run in the order the partitions' messages arrive (rtol 1e-12)
ALGORITHMS = {
    "bfs": lambda T, G, **k: dgraph.bfs(T, _first(G), **k),
    "sssp": lambda T, G, **k: dgraph.sssp(T, _first(G), **k),
    "pagerank": lambda T, G, **k: dgraph.pagerank(T, iterations=12, **k),
    "wcc-fused": lambda T, G, **k: dgraph.wcc(T, kernels="fused", **k),
    "wcc-generic": lambda T, G, **k: dgraph.wcc(T, kernels="generic", **k),
    "scc-fused": lambda T, G, **k: dgraph.scc(T, kernels="fused", **k),
    "scc-generic": lambda T, G, **k: dgraph.scc(T, kernels="generic", **k),
    "cdlp": lambda T, G, **k: dgraph.cdlp(T, iterations=6, **k),
    "lcc": lambda T, G, **k: dgraph.lcc(T, **k),
    "triangles": lambda T, G, **k: dgraph.triangle_count(T, **k),
    "bc": lambda T, G, **k: dgraph.bc(T, G.vertex_ids()[:5].tolist(), **k),
    "emv-bfs": lambda T, G, **k: ex.bfs(T, _first(G), hops=2, **k),
    "emv-sssp": lambda T, G, **k: ex.sssp(T, _first(G), **k),
    "emv-pagerank": lambda T, G, **k: ex.pagerank(T, iterations=8, **k),
}


def _graphs(directed_count, undirected_count, seed):
    yield "issue21-12", dgraph.from_edges(**ISSUE21_12, weights=[1.0, 2.0, 0.0, 1.0, 3.0, 1.0])
    for label, kw in [*back_edge_graphs(directed_count, seed=seed),
                      *back_edge_graphs(undirected_count, seed=seed + 1, directed=False)]:
        yield label, dgraph.from_edges(**kw)


def _check_same(r, ref, what):
    assert r.columns == ref.columns, what
    for name in ref.columns:
        got, want = to_numpy(r.raw(name)), to_numpy(ref.raw(name))
        if what.startswith("emv-pagerank"):
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=0, err_msg=f"{what}: column {name}")
        else:
            np.testing.assert_array_equal(got, want, err_msg=f"{what}: column {name}")


@pytest.mark.parametrize("algorithm", sorted(ALGORITHMS))
def test_issue21_12_every_algorithm_local_partitions(algorithm):
    run = ALGORITHMS[algorithm]
    runs = 0
    for label, G in _graphs(6, 2, seed=12):
        ref = run(G, G)
        for p in (2, 3, 4):
            for method in ("range", "hash"):
                exchange = "all-to-all" if p == 3 and method == "hash" else "butterfly"
                r = run(G.partition(p, method=method, client=False), G, exchange=exchange)
                _check_same(r, ref, f"{algorithm} {label} p={p} {method} {exchange}")
                runs += 1
    assert runs == 9 * 6


SLOW = pytest.mark.slow


@pytest.mark.parametrize("executor, graph, p, method", [
    ("spmd", "issue21-12", 2, "range"), ("spmd", "issue21-12", 3, "hash"), ("tasks", "issue21-12", 2, "range"),
    pytest.param("tasks", "issue21-12", 3, "hash", marks=SLOW),
    *[pytest.param(e, "back-40-0", p, m, marks=SLOW) for e in ("spmd", "tasks") for p, m in ((2, "range"), (3, "hash"))],
])
def test_issue21_12_every_algorithm_dask_executors(client, executor, graph, p, method):
    G = dict(_graphs(1, 0, seed=40))[graph]
    PG = G.partition(p, method=method, client=client)
    for a, run in ALGORITHMS.items():
        _check_same(run(PG, G, executor=executor), run(G, G), f"{a} {graph} p={p} {method} {executor}")
