"""The EMV examples against the built-in algorithms and NetworkX, on odd and random graphs, with
1-4 partitions (range and hash) and 1-3 hops of replicas (local executor; tasks/spmd in
test_emv_distributed.py)."""

import networkx as nx
import numpy as np
import pytest
from graphs import corpus, partition_targets, weighted

import dgraph
from dgraph.emv import examples as ex

CASES = list(corpus(40, seed=11))



def test_pagerank_matches_builtin_1e9():
    checked = 0
    for label, kw in CASES:
        G = dgraph.from_edges(**kw)
        ref = dgraph.pagerank(G, iterations=30).pagerank
        for where, T, _ in partition_targets(G):
            r = ex.pagerank(T, iterations=30)
            np.testing.assert_allclose(r.rank, ref, rtol=0, atol=1e-9, err_msg=f"{label} {where}")
        checked += 1
    assert checked == 40


@pytest.mark.parametrize("queue", [True, False], ids=["bfs-q", "bfs-n"])
def test_bfs_matches_builtin(queue):
    for label, kw in CASES:
        G = dgraph.from_edges(**kw)
        if G.num_vertices == 0:
            continue
        src = G.vertex_ids()[G.num_vertices // 2]
        ref = dgraph.bfs(G, src).depth
        for where, T, hops in partition_targets(G):
            r = ex.bfs(T, src, queue=queue, hops=hops)
            np.testing.assert_array_equal(r.depth, ref, err_msg=f"{label} {where}")


@pytest.mark.parametrize("queue", [True, False], ids=["sssp-q", "sssp-n"])
def test_sssp_matches_builtin(queue):
    rng = np.random.default_rng(3)
    for label, kw in CASES[:30]:
        if not len(kw["src"]):
            continue
        G = dgraph.from_edges(**weighted(kw, rng))
        src = G.vertex_ids()[0]
        ref = dgraph.sssp(G, src).distance
        for where, T, hops in partition_targets(G):
            r = ex.sssp(T, src, queue=queue, hops=hops)
            np.testing.assert_array_equal(r.dist, ref, err_msg=f"{label} {where}")


def _bipartite(rng, nl, nr, m, directed=False):
    src = rng.integers(0, nl, m)
    dst = nl + rng.integers(0, nr, m)
    return dgraph.from_edges(src, dst, num_vertices=nl + nr + 2, directed=directed)


def test_maximal_matching_is_a_maximal_matching_for_networkx():
    rng = np.random.default_rng(5)
    for i in range(12):
        nl, nr = int(rng.integers(1, 40)), int(rng.integers(1, 40))
        G = _bipartite(rng, nl, nr, int(rng.integers(0, 3 * (nl + nr))), directed=bool(i % 2))
        r = dgraph.maximal_matching(G, seed=i)
        mate = dict(zip(r.vertex.tolist(), r.mate.tolist()))
        pairs = {(u, v) for u, v in mate.items() if v != -1 and u < v}
        assert all(mate[v] == u for u, v in pairs)
        nxg = G.to_networkx().to_undirected()
        assert nx.is_maximal_matching(nxg, pairs), i
        left = list(range(nl))
        for where, T, hops in partition_targets(G.symmetrize() if G.directed else G, parts=(2, 3, 4)):
            r2 = dgraph.maximal_matching(T, left=left, seed=i, hops=hops)
            np.testing.assert_array_equal(r2.mate, r.mate, err_msg=where)


def test_matching_errors_and_string_ids():
    with pytest.raises(dgraph.InputError, match="not bipartite"):
        dgraph.maximal_matching(dgraph.from_edges([0, 1, 2], [1, 2, 0]))
    with pytest.raises(dgraph.InputError, match="self loop"):
        dgraph.maximal_matching(dgraph.from_edges([0], [0]))
    with pytest.raises(dgraph.InputError, match="seed"):
        dgraph.maximal_matching(dgraph.from_edges([0], [1]), seed=-1)
    with pytest.raises(dgraph.DGraphError, match="left vertex"):
        dgraph.maximal_matching(dgraph.from_edges([0], [1]), left=[7])
    H = dgraph.from_edges(["x", "y"], ["p", "q"])
    r = dgraph.maximal_matching(H)
    assert dict(zip(r.vertex, r.mate)) == {"x": "p", "p": "x", "y": "q", "q": "y"}
    assert r.to_pandas().columns.tolist() == ["vertex", "mate"]


def test_multi_hop_on_a_grid_exchanges_less_and_gives_the_same_answer():
    G = dgraph.generate("grid", rows=20, cols=20)
    PG = G.partition(4, client=False)
    ref = dgraph.bfs(G, 0).depth
    rounds = {}
    for hops in (1, 2, 3, "auto"):
        r = ex.bfs(PG, 0, queue=True, hops=hops)
        np.testing.assert_array_equal(r.depth, ref)
        rounds[hops] = len(r.stats)
        assert int(r.stats["hops"].iloc[-1]) == (hops if hops != "auto" else r.stats["hops"].iloc[-1])
    assert rounds[1] > rounds[2] > rounds[3]
    prog = ex.pagerank_program(iterations=7)
    with pytest.raises(dgraph.EMVError, match="aggregates"):
        prog.run(PG, hops=2)


def test_multi_hop_rolls_back_to_the_halting_iteration():
    """With 3 hops a round covers 3 iterations; BFS-N halts mid-round and the state is the halting one."""
    G = dgraph.generate("grid", rows=5, cols=9)
    ref = dgraph.bfs(G, 0).depth
    for hops in (2, 3):
        r = ex.bfs(G.partition(3, client=False), 0, queue=False, hops=hops)
        np.testing.assert_array_equal(r.depth, ref)
        assert r.stats["iterations"].iloc[-1] == ex.bfs(G, 0, queue=False).stats["iterations"].iloc[-1]
