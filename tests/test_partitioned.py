"""Partitioned BFS in one process (the local executor simulating p shards) equals the unpartitioned run."""

import numpy as np
import pytest
from graphs import corpus

import dgraph
from dgraph.backend import to_numpy
from dgraph.errors import DGraphError

CASES = [(label, kw) for label, kw in corpus(120, seed=11) if (kw.get("num_vertices") or 1) > 0]


def _source(G):
    deg = to_numpy(G.out_degree())
    return G.ids.to_user(int(np.argmax(deg))).item() if G.num_vertices else None


def _check_same(r, ref, what):
    np.testing.assert_array_equal(to_numpy(r.raw("depth")), to_numpy(ref.raw("depth")), err_msg=what)
    np.testing.assert_array_equal(to_numpy(r.raw("parent")), to_numpy(ref.raw("parent")), err_msg=what)


@pytest.mark.parametrize("method", ["range", "hash", "metis"])
def test_local_partitions_equal_single(method, backend):
    checked = 0
    for label, kw in CASES:
        G = dgraph.from_edges(**kw).to(backend)
        if G.num_vertices == 0:
            continue
        src = _source(G)
        ref = dgraph.bfs(G, src)
        for p in range(1, min(4, G.num_vertices) + 1):
            PG = G.partition(p, method=method, client=False)
            for direction in ("push", "pull", "auto"):
                r = dgraph.bfs(PG, src, direction=direction, executor="local")
                _check_same(r, ref, f"{label} p={p} {direction}")
                checked += 1
    assert checked > 300


def test_generic_kernels_on_shards():
    G = dgraph.generate("rmat", scale=9, seed=5, directed=True)
    src = _source(G)
    ref = dgraph.bfs(G, src)
    for p in (2, 3):
        for method in ("range", "hash"):
            PG = G.partition(p, method=method, client=False)
            for direction in ("push", "pull", "auto"):
                _check_same(dgraph.bfs(PG, src, direction=direction, kernels="generic"), ref, f"{p} {method} {direction}")


def test_exchange_bytes_are_counted():
    G = dgraph.generate("rmat", scale=8, seed=1)
    PG = G.partition(3, client=False)
    r = dgraph.bfs(PG, _source(G))
    assert (r.stats["bytes_exchanged"] > 0).any()
    assert r.params["partitions"] == 3 and r.params["executor"] == "local"


def test_too_many_partitions():
    G = dgraph.from_edges([0, 1], [1, 2])
    with pytest.raises(DGraphError, match="3 vertices"):
        G.partition(4, client=False)


def test_distributed_executor_needs_a_cluster():
    G = dgraph.from_edges([0, 1], [1, 2])
    with pytest.raises(DGraphError, match="partition"):
        dgraph.bfs(G, 0, executor="spmd")
    PG = G.partition(2, client=False)
    with pytest.raises(DGraphError, match="Dask cluster"):
        dgraph.bfs(PG, 0, executor="tasks")


def test_plan_is_reused(tmp_path):
    G = dgraph.generate("rmat", scale=8, seed=2)
    PG = G.partition(3, method="hash", client=False)
    path = tmp_path / "plan.npz"
    PG.plan.save(path)
    PG2 = G.partition(None, plan=str(path), client=False)
    assert PG2.plan == PG.plan
    _check_same(dgraph.bfs(PG2, 0), dgraph.bfs(G, 0), "plan reuse")
