"""tasks and spmd executors on a LocalCluster of processes equal the local result, and fail clearly."""

import os
import time

import numpy as np
import pytest
from graphs import corpus

import dgraph
from dgraph.backend import to_numpy
from dgraph.errors import ExecutorError

CASES = [(label, kw) for label, kw in corpus(60, seed=23)]


def _source(G):
    return G.ids.to_user(int(np.argmax(to_numpy(G.out_degree())))).item()


def _check_same(r, ref, what):
    np.testing.assert_array_equal(to_numpy(r.raw("depth")), to_numpy(ref.raw("depth")), err_msg=what)
    np.testing.assert_array_equal(to_numpy(r.raw("parent")), to_numpy(ref.raw("parent")), err_msg=what)


def test_executors_equal_local(client):
    graphs = 0
    for label, kw in CASES:
        G = dgraph.from_edges(**kw)
        if G.num_vertices == 0:
            continue
        graphs += 1
        src = _source(G)
        ref = dgraph.bfs(G, src)
        for p in range(1, min(4, G.num_vertices) + 1):
            PG = G.partition(p, client=client)
            for exchange in ("butterfly", "all-to-all"):
                for executor in ("tasks", "spmd"):
                    r = dgraph.bfs(PG, src, executor=executor, exchange=exchange)
                    _check_same(r, ref, f"{label} p={p} {exchange} {executor}")
    assert graphs >= 50


def test_fanouts_and_directions(client):
    G = dgraph.generate("rmat", scale=10, seed=4, directed=True)
    src = _source(G)
    ref = dgraph.bfs(G, src)
    PG = G.partition(4, method="hash", client=client)
    for fanout in (1, 2, 3, 4):
        for direction in ("push", "pull", "auto"):
            r = dgraph.bfs(PG, src, executor="spmd", exchange="butterfly", fanout=fanout, direction=direction)
            _check_same(r, ref, f"fanout {fanout} {direction}")
    r = dgraph.bfs(PG, src, executor="tasks", exchange="butterfly:2")
    _check_same(r, ref, "tasks butterfly:2")
    assert r.params["executor"] == "tasks" and r.params["fanout"] == 2
    assert r.stats["bytes_exchanged"].sum() > 0


def test_more_partitions_than_workers(client):
    G = dgraph.generate("grid", rows=6, cols=7)
    PG = G.partition(5, client=client)
    assert len(set(PG.workers)) == 2
    _check_same(dgraph.bfs(PG, 0, executor="spmd"), dgraph.bfs(G, 0), "5 shards on 2 workers")


def test_default_executor_is_spmd(client):
    G = dgraph.generate("grid", rows=4, cols=4)
    r = dgraph.bfs(G.partition(2, client=client), 0)
    assert r.params["executor"] == "spmd"


def test_spmd_phases_add_up_and_leave_nothing_on_the_workers(client):
    G = dgraph.generate("rmat", scale=7, seed=3)
    PG = G.partition(2, client=client)
    r = dgraph.bfs(PG, 0, executor="spmd")
    ph = r.phases
    assert set(ph) == {"startup_s", "submit_s", "init_s", "loop_s", "final_s", "launch_s"}
    assert all(v >= 0 for v in ph.values()), ph  # launch_s too: no remainder of other workers' phases
    assert ph["loop_s"] >= 0.9 * sum(r.stats["time_s"])  # the slowest worker's loop holds every superstep
    assert sum(v for k, v in ph.items() if k != "startup_s") <= r.run_time * 1.01 + 1e-3
    assert len(r.depth) == G.num_vertices  # the results were picked up ...
    left = client.run(lambda dask_worker: len(getattr(dask_worker, "_dgraph_results", {})))
    assert set(left.values()) == {0}, left  # ... and nothing stays stashed on a worker
    assert set(dgraph.bfs(G, 0).phases) == {"startup_s"}  # the local executor: start-up alone


def test_bench_bfs_spmd_prints_the_phases(client):
    from dgraph.bench.algorithms import bench_algorithm, format_algorithm_report

    fig = bench_algorithm(dgraph.generate("rmat", scale=7, seed=3), "bfs", partitions=2, executor="spmd",
                          client=client, repeat=2)
    assert set(fig["phases_ms"]) == {"startup_s", "submit_s", "init_s", "loop_s", "final_s", "launch_s"}
    assert "Dask launch and completion" in format_algorithm_report(fig) and fig["equal"]


def _exit_soon(dask_worker):
    import threading

    threading.Timer(1.5, os._exit, args=(1,)).start()
    return dask_worker.address


def test_worker_lost_during_spmd_then_retry_succeeds():
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as c:
        G = dgraph.generate("grid", rows=1, cols=4000)  # a path: 4,000 supersteps, long enough to be interrupted
        PG = G.partition(2, client=c)
        ref = dgraph.bfs(G, 0)
        victim = PG.workers[1]
        c.run(_exit_soon, workers=[victim])
        t = time.perf_counter()
        with pytest.raises(ExecutorError, match="left the cluster|got nothing|failed"):
            dgraph.bfs(PG, 0, executor="spmd", direction="push")
        assert time.perf_counter() - t < 60
        c.wait_for_workers(2, timeout=60)  # the nanny restarts the worker under a new address
        r = dgraph.bfs(PG, 0, executor="spmd", direction="push")
        _check_same(r, ref, "retry after a lost worker")


@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("method", ["range", "hash"])
def test_parallel_build_equals_client_side_build(client, directed, method):
    """Shards built on the workers from generated slices: same arcs and same BFS as the whole graph."""
    G = dgraph.generate("rmat", scale=10, seed=9, directed=directed)
    src = _source(G)
    ref = dgraph.bfs(G, src)
    for p in (1, 3):
        PG = dgraph.generate_partitioned("rmat", p, client=client, scale=10, seed=9, directed=directed,
                                         method=method, chunks=4)
        assert PG.num_arcs == G.num_arcs
        _check_same(dgraph.bfs(PG, src), ref, f"p={p}")


def test_from_dask_dataframe(client):
    import dask.dataframe as dd
    import pandas as pd

    G = dgraph.generate("uniform", num_vertices=500, num_edges=3000, seed=3, directed=True)
    s, d, _ = G.edges()
    df = dd.from_pandas(pd.DataFrame({"a": s, "b": d}), npartitions=5)
    PG = dgraph.from_dask_dataframe(df, 3, src="a", dst="b", directed=True, num_vertices=500, client=client)
    assert PG.num_arcs == G.num_arcs
    _check_same(dgraph.bfs(PG, _source(G)), dgraph.bfs(G, _source(G)), "dask dataframe build")
    with pytest.raises(dgraph.DGraphError, match="column 'x'"):
        dgraph.from_dask_dataframe(df, 2, src="x", dst="b", client=client)


def test_scheduler_and_workers_started_by_hand(tmp_path):
    """The multi-node shape: `dask scheduler` and two `dask worker` processes joined by address."""
    from procs import connect_when_ready, free_port, spawner

    gen = spawner(tmp_path)
    spawn = next(gen)
    try:
        port = free_port()
        address = f"tcp://127.0.0.1:{port}"
        spawn("distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard")
        for _ in range(2):
            spawn("distributed.cli.dask_worker", address, "--nthreads", "1", "--no-dashboard", "--host",
                  "127.0.0.1", "--death-timeout", "60")
        c = connect_when_ready(address, timeout=5)
        c.wait_for_workers(2, timeout=60)
        for label, kw in list(corpus(30, seed=41))[15:]:
            G = dgraph.from_edges(**kw)
            src = _source(G)
            ref = dgraph.bfs(G, src)
            for p in range(1, min(4, G.num_vertices) + 1):
                PG = G.partition(p, client=c)
                for exchange in ("butterfly", "all-to-all"):
                    for executor in ("tasks", "spmd"):
                        _check_same(dgraph.bfs(PG, src, executor=executor, exchange=exchange), ref,
                              f"{label} p={p} {exchange} {executor}")
    finally:
        gen.close()
