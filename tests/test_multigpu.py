"""Partitioned BFS with CuPy shards on a LocalCUDACluster (tcp and ucx) equals the single-GPU run."""

import time

import numpy as np
import pytest
from graphs import corpus

import dgraph
from dgraph.backend import gpu_available, to_numpy

pytestmark = pytest.mark.multigpu


def _gpus():
    if not gpu_available():
        return 0
    import cupy

    return cupy.cuda.runtime.getDeviceCount()


@pytest.fixture(scope="module", params=["tcp", "ucx"])
def client(request):
    if _gpus() < 2:
        pytest.skip("needs two or more GPUs")
    if request.param == "ucx":
        pytest.importorskip("distributed_ucxx")
    from dgraph.cluster import close, connect

    c = connect("cuda", protocol=request.param, timeout=120)
    yield c
    close()


def _check_same(r, ref, what):
    np.testing.assert_array_equal(to_numpy(r.raw("depth")), to_numpy(ref.raw("depth")), err_msg=what)
    np.testing.assert_array_equal(to_numpy(r.raw("parent")), to_numpy(ref.raw("parent")), err_msg=what)


def _levels(r):
    """A run's levels as the user sees them in its records."""
    return [(s["direction"], s["frontier"], s["frontier_edges"], s["edges"]) for s in r.stats_records]


def test_cupy_shards_equal_single_gpu(client):
    graphs = [dgraph.generate("rmat", scale=14, seed=1), dgraph.generate("rmat", scale=12, seed=2, directed=True),
              dgraph.generate("grid", rows=30, cols=40)]
    graphs += [dgraph.from_edges(**kw) for _, kw in list(corpus(40, seed=31))[15:]]
    batched = 0  # levels the peer-levels path ran (dgraph.config.bfs_peer_levels)
    pulled = 0  # of them, pulls (dgraph.config.bfs_peer_pull)
    for i, G in enumerate(graphs):
        if G.num_vertices < 4:
            continue
        src = G.ids.to_user(int(np.argmax(to_numpy(G.out_degree())))).item()
        ref = dgraph.bfs(G.to("cupy"), src)
        for p in (2, 4):
            PG = G.partition(p, client=client, backend="cupy")
            runs = [("tasks", "auto"), ("spmd", "auto")] + ([("spmd", "dask")] if p == 2 else [])
            for exchange in ("butterfly", "all-to-all"):
                for executor, transport in runs:
                    r = dgraph.bfs(PG, src, executor=executor, exchange=exchange, transport=transport)
                    assert r.backend == "cupy"
                    if executor == "spmd":
                        expected = "nccl" if (p <= _gpus() and transport == "auto") else "dask"
                        assert r.params["transport"] == expected
                    _check_same(r, ref, f"graph {i} p={p} {exchange} {executor} {transport}")
                    if executor == "spmd" and r.params["transport"] == "nccl":
                        batched += sum(bool(s.get("batched")) for s in r.stats_records)
                        pulled += sum(bool(s.get("batched")) and s["direction"] == "pull" for s in r.stats_records)
                        levels = _levels(r)
                        # peer levels that only push
                        with dgraph.config.override(bfs_peer_pull=False):
                            r = dgraph.bfs(PG, src, executor=executor, exchange=exchange)
                        _check_same(r, ref, f"graph {i} p={p} {exchange} peer levels without pulls")
                        assert not any(s.get("batched") and s["direction"] == "pull" for s in r.stats_records)
                        assert _levels(r) == levels, f"graph {i} p={p} {exchange} peer levels without pulls"
                        # the sized exchange, a superstep a level: the path before the bitmaps and peer levels
                        with dgraph.config.override(bfs_bitmap_exchange=False, bfs_peer_levels=False):
                            r = dgraph.bfs(PG, src, executor=executor, exchange=exchange)
                        _check_same(r, ref, f"graph {i} p={p} {exchange} sized exchange")
                        assert not any(s.get("batched") for s in r.stats_records)
                        # every level the same: direction, frontier, its edges, the edges scanned
                        assert _levels(r) == levels, f"graph {i} p={p} {exchange} levels"
            # a source of small degree: peer levels from the first superstep on (its rows found on the host)
            deg = to_numpy(G.out_degree())
            if (deg > 0).any():
                least = deg[deg > 0].min()
                low = G.ids.to_user(int(np.flatnonzero(deg == least)[-1])).item()
                r = dgraph.bfs(PG, low, executor="spmd")
                _check_same(r, dgraph.bfs(G.to("cupy"), low), f"graph {i} p={p} source {low} of degree {least}")
    assert batched > 0  # the rmat graphs' and the grid's small levels ran as peer levels
    assert pulled > 0  # and the rmat graphs' pulls


def test_scattered_shards_equal_single_gpu(client):
    """Shards that are not vertex ranges (a hash plan): BFS's and SSSP's parents reconciled over the
    whole array (no range a shard owns), results gathered row by row."""
    G = dgraph.generate("rmat", scale=12, seed=6, weighted=True)
    src = G.ids.to_user(int(np.argmax(to_numpy(G.out_degree())))).item()
    PG = G.partition(2, method="hash", client=client, backend="cupy")
    bfs_ref, sssp_ref = dgraph.bfs(G.to("cupy"), src), dgraph.sssp(G.to("cupy"), src)
    for executor in ("tasks", "spmd"):
        _check_same(dgraph.bfs(PG, src, executor=executor), bfs_ref, f"bfs hash {executor}")
        r = dgraph.sssp(PG, src, executor=executor)
        for c in ("distance", "parent"):
            np.testing.assert_array_equal(to_numpy(r.raw(c)), to_numpy(sssp_ref.raw(c)), err_msg=f"sssp hash {executor} {c}")


def test_sssp_routed_equals_single_gpu(client):
    """GPU SSSP partitions over NCCL keep each vertex's state on the shard that owns it
    (``dgraph.config.sssp_routed``): the same distances and parents as one GPU and as every shard
    merging everything, with many buckets (small deltas: the far piles agreed across shards), on
    odd graphs too, and the records' counts the same as the replicated merge's."""
    from graphs import weighted
    from scipy.sparse.csgraph import dijkstra

    rng = np.random.default_rng(10)
    graphs = [dgraph.generate("rmat", scale=12, seed=7, weighted=True),
              dgraph.generate("rmat", scale=11, seed=8, directed=True, weighted=True),
              dgraph.generate("grid", rows=13, cols=21, weighted=True, seed=3)]
    graphs += [dgraph.from_edges(**weighted(kw, rng, integer=bool(i % 2))) for i, (_, kw) in enumerate(corpus(16, seed=41))]
    routed_runs = 0
    for i, G in enumerate(graphs):
        if G.num_vertices < 2:
            continue
        src = G.ids.to_user(int(np.argmax(to_numpy(G.out_degree())))).item()
        for delta in (None, 0.5):
            ref = dgraph.sssp(G.to("cupy"), src, delta=delta)
            expected = dijkstra(G.to_scipy(), directed=True, indices=int(G.ids.to_internal(src)))
            np.testing.assert_allclose(to_numpy(ref.raw("distance")), expected, err_msg=f"graph {i} scipy")
            for p in sorted({2, 3, min(4, _gpus())}):
                if p > G.num_vertices:
                    continue
                PG = G.partition(p, client=client, backend="cupy")
                records = {}
                for routed in (True, False):
                    for skip in ((True, False) if i < 3 else (True,)):
                        with dgraph.config.override(sssp_routed=routed, sssp_skip_stale=skip):
                            r = dgraph.sssp(PG, src, delta=delta, executor="spmd")
                        what = f"graph {i} p={p} delta={delta} routed={routed} skip={skip}"
                        for c in ("distance", "parent"):
                            np.testing.assert_array_equal(to_numpy(r.raw(c)), to_numpy(ref.raw(c)), err_msg=what)
                        routed_runs += routed and r.params["transport"] == "nccl"
                        if not skip:  # without skipping, the supersteps do not depend on the GPU's order
                            keys = ("superstep", "frontier", "far", "bound", "improved", "edges")
                            records[routed] = [[s.get(k) for k in keys] for s in r.stats_records]
                if records:  # each vertex's improvements counted where they land: the same supersteps
                    assert records[True] == records[False], f"graph {i} p={p} delta={delta} records"
    assert routed_runs > 0


ALGORITHMS = [
    ("sssp", lambda G, s, **kw: dgraph.sssp(G, s, **kw), ("distance", "parent"), True),
    ("wcc", lambda G, s, **kw: dgraph.wcc(G, **kw), ("component",), True),
    ("cdlp", lambda G, s, **kw: dgraph.cdlp(G, iterations=5, **kw), ("label",), True),
    ("lcc", lambda G, s, **kw: dgraph.lcc(G, **kw), ("lcc",), True),
    ("triangle_count", lambda G, s, **kw: dgraph.triangle_count(G, **kw), ("triangles",), True),
    ("pagerank", lambda G, s, **kw: dgraph.pagerank(G, iterations=10, **kw), ("pagerank",), False),
    ("bc", lambda G, s, **kw: dgraph.bc(G, sources=[s], **kw), ("bc",), False),
]


@pytest.mark.parametrize("name,fn,columns,exact", ALGORITHMS, ids=[a[0] for a in ALGORITHMS])
def test_algorithms_on_gpu_workers_equal_single_gpu(client, name, fn, columns, exact):
    graphs = [dgraph.generate("rmat", scale=11, seed=4, directed=True, weighted=True),
              dgraph.generate("grid", rows=16, cols=19, weighted=True, seed=2)]
    for i, G in enumerate(graphs):
        src = G.ids.to_user(int(np.argmax(to_numpy(G.out_degree())))).item()
        ref = fn(G.to("cupy"), src)
        for p in sorted({2, min(4, _gpus())}):
            PG = G.partition(p, client=client, backend="cupy")
            for executor in ("tasks", "spmd"):
                r = fn(PG, src, executor=executor)
                assert r.backend == "cupy"
                for c in columns:
                    a, b = to_numpy(r.raw(c)), to_numpy(ref.raw(c))
                    what = f"{name} graph {i} p={p} {executor} {c}"
                    if exact:
                        np.testing.assert_array_equal(a, b, err_msg=what)
                    else:
                        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14, err_msg=what)


BUILD_ALGORITHMS = [("bfs", {}), ("sssp", {}), ("pagerank", {"iterations": 10}), ("wcc", {}),
                    ("cdlp", {"iterations": 4}), ("lcc", {}), ("triangle_count", {})]


@pytest.mark.parametrize("directed", [False, True])
def test_shards_built_on_the_gpus_equal_single_gpu(client, directed):
    """generate_partitioned(backend='cupy'): each GPU generates, cuts and sorts its edges, NCCL moves them;
    the shards give the single-GPU answers (weighted builds included)."""
    from dgraph.partition.verify import verify_bfs, verify_pagerank, verify_wcc, violations

    G = dgraph.generate("rmat", scale=13, edgefactor=8, seed=5, directed=directed, weighted=True, backend="cupy")
    src = int(np.argmax(to_numpy(G.out_degree())))
    for p, method in sorted({(2, "range"), (min(4, _gpus()), "hash")}):
        PG = dgraph.generate_partitioned("rmat", p, client=client, scale=13, edgefactor=8, seed=5, directed=directed,
                                         weighted=True, backend="cupy", method=method, chunks=3)
        assert PG.build_stats["transport"] == "nccl" and PG.num_arcs == G.num_arcs
        for name, opts in BUILD_ALGORITHMS:
            if name == "triangle_count" and directed:
                continue
            kw = dict(opts, **({"source": src} if name in ("bfs", "sssp") else {}))
            ref = getattr(dgraph, name)(G, **kw)
            r = getattr(dgraph, name)(PG, **kw)
            for c in ref.columns:
                a, b, what = to_numpy(r.raw(c)), to_numpy(ref.raw(c)), f"{name} {c} p={p} {method}"
                if name == "pagerank":  # the dangling mass is summed per shard, then across: not the same bits
                    np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-15, err_msg=what)
                else:
                    np.testing.assert_array_equal(a, b, err_msg=what)
        assert violations(verify_bfs(PG, dgraph.bfs(PG, src), src)) == {}
        assert violations(verify_pagerank(PG, dgraph.pagerank(PG, iterations=20))) == {}
        assert violations(verify_wcc(PG, dgraph.wcc(PG))) == {}
        df = dgraph.bfs(PG, src).to_dask().compute()
        assert len(df) == G.num_vertices


def _exported_buffers():
    from dgraph.engine import ipc

    return len(ipc._EXPORTED)


def test_results_are_read_through_cuda_ipc(client, monkeypatch):
    """A partitioned GPU result comes to the client by CUDA IPC (same host), as CuPy arrays, equal to
    the single-GPU run's; the workers' exported buffers are freed after."""
    import cupy

    from dgraph.engine import ipc

    used = []
    fetch = ipc.fetch

    def spy(*args):
        out = fetch(*args)
        used.append(out is not None)
        return out

    monkeypatch.setattr(ipc, "fetch", spy)
    G = dgraph.generate("rmat", scale=12, seed=7, weighted=True)
    src = int(np.argmax(G.out_degree()))
    PG = G.partition(2, client=client, backend="cupy")
    for name, run in [("bfs", lambda g: dgraph.bfs(g, src)), ("sssp", lambda g: dgraph.sssp(g, src)),
                      ("pagerank", lambda g: dgraph.pagerank(g, iterations=5))]:
        ref, r = run(G.to("cupy")), run(PG)
        for c in ref.columns:
            assert isinstance(r.raw(c), cupy.ndarray), f"{name} {c}"
            np.testing.assert_allclose(to_numpy(r.raw(c)), to_numpy(ref.raw(c)), rtol=1e-12, err_msg=f"{name} {c}")
    assert used == [True, True, True]
    deadline = time.monotonic() + 10  # the buffers are let go without waiting for the workers' answer
    while set(client.run(_exported_buffers).values()) != {0} and time.monotonic() < deadline:
        time.sleep(0.05)
    assert set(client.run(_exported_buffers).values()) == {0}
