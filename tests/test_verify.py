"""On-worker checks of partitioned results (dgraph.partition.verify): right answers pass, wrong ones fail."""

import numpy as np
import pytest

import dgraph
from dgraph.backend import to_numpy
from dgraph.engine.program import sum_counts as _sum
from dgraph.partition.verify import _bfs_shard, _wcc_shard, verify_bfs, verify_pagerank, verify_wcc, violations


def _graphs():
    yield dgraph.generate("rmat", scale=8, edgefactor=4, seed=1)
    yield dgraph.generate("rmat", scale=8, edgefactor=4, seed=2, directed=True)
    yield dgraph.from_edges([0, 1, 2, 4], [1, 2, 0, 5], num_vertices=7)   # isolated vertices, two components


def _bfs_report(G, p, columns, source):
    PG = G.partition(p, client=False)
    return _sum(_bfs_shard(s, columns, source) for s in PG.local_shards())


@pytest.mark.parametrize("p", [1, 2, 3])
def test_bfs_checks_pass_on_right_answers_and_catch_wrong_ones(p):
    for G in _graphs():
        src = int(np.argmax(to_numpy(G.out_degree())))
        r = dgraph.bfs(G, src)
        cols = {"depth": to_numpy(r.raw("depth")).copy(), "parent": to_numpy(r.raw("parent")).copy()}
        rep = _bfs_report(G, p, cols, src)
        assert violations(rep) == {}, (G, rep)
        assert rep["reached"] == int((cols["depth"] >= 0).sum())
        far = int(np.argmax(cols["depth"]))
        if cols["depth"][far] >= 2:
            bad = {k: v.copy() for k, v in cols.items()}
            bad["depth"][far] += 1                    # a vertex one level too deep
            assert violations(_bfs_report(G, p, bad, src)), "depth off by one"
            bad = {k: v.copy() for k, v in cols.items()}
            bad["parent"][far] = far                  # a vertex its own parent
            assert "tree_level" in violations(_bfs_report(G, p, bad, src))
        unreached = np.flatnonzero(cols["depth"] < 0)
        if len(unreached):
            bad = {k: v.copy() for k, v in cols.items()}
            bad["parent"][unreached[0]] = src
            assert violations(_bfs_report(G, p, bad, src)), "an unreached vertex with a parent"
        bad = {k: v.copy() for k, v in cols.items()}
        bad["depth"][src] = 1
        assert "root" in violations(_bfs_report(G, p, bad, src))


def test_bfs_tree_edge_must_be_an_edge():
    G = dgraph.from_edges([0, 0, 1, 2], [1, 2, 3, 3])   # 3 has parents 1 and 2 possible; not 0
    r = dgraph.bfs(G, 0)
    cols = {"depth": to_numpy(r.raw("depth")).copy(), "parent": to_numpy(r.raw("parent")).copy()}
    assert violations(_bfs_report(G, 2, cols, 0)) == {}
    cols["depth"][3] = 1
    cols["parent"][3] = 0                                  # one level up, but (0, 3) is no edge
    assert violations(_bfs_report(G, 2, cols, 0)).get("tree_edge_missing") == 1


def test_wcc_checks():
    for G in _graphs():
        comp = to_numpy(dgraph.wcc(G).raw("component")).copy()
        shards = G.partition(2, client=False).local_shards()
        rep = _sum(_wcc_shard(s, {"component": comp}) for s in shards)
        assert violations(rep) == {} and rep["components_rooted_here"] == len(np.unique(comp))
        bad = comp.copy()
        v = int(np.flatnonzero(to_numpy(G.out_degree()) > 0)[-1])
        bad[v] = v                                          # split a vertex off its component
        assert violations(_sum(_wcc_shard(s, {"component": bad}) for s in shards))


def test_on_the_workers(client):
    G = dgraph.generate("rmat", scale=9, seed=4)
    PG = dgraph.generate_partitioned("rmat", 2, client=client, scale=9, seed=4)
    src = int(np.argmax(to_numpy(G.out_degree())))
    rep = verify_bfs(PG, dgraph.bfs(PG, src), src)
    assert violations(rep) == {} and rep["reached"] == int((to_numpy(dgraph.bfs(G, src).raw("depth")) >= 0).sum())
    scattered = G.partition(3, method="hash", client=client)  # BFS results per shard, not vertex ranges
    rep = verify_bfs(scattered, dgraph.bfs(scattered, src), src)
    assert violations(rep) == {} and rep["reached"] == int((to_numpy(dgraph.bfs(G, src).raw("depth")) >= 0).sum())
    rep = verify_pagerank(PG, dgraph.pagerank(PG, iterations=20))
    assert violations(rep) == {} and abs(rep["sum"] - 1) < 1e-9
    assert violations(verify_wcc(PG, dgraph.wcc(PG))) == {}
    r = dgraph.wcc(PG)
    r.to_pandas()
    with pytest.raises(dgraph.InputError, match="was read"):
        verify_wcc(PG, r)
