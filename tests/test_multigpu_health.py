"""Issue 20 on two GPUs: after a failed spmd run the workers' GPUs are checked for real (the device
check of dgraph.engine.health); healthy ones are left alone, one left with a sticky CUDA error is
restarted, and the next run on the same PartitionedGraph is exact with no user action.

Its own LocalCUDACluster (these tests restart workers)."""

import os

import numpy as np
import pytest
from killers import Failing, Poisoning, SickProbe, checked, run_killing

import dgraph
from dgraph.backend import gpu_available, to_numpy
from dgraph.errors import ExecutorError, WorkerRestartedError

pytestmark = pytest.mark.multigpu


def _gpus():
    if not gpu_available():
        return 0
    import cupy

    return cupy.cuda.runtime.getDeviceCount()


@pytest.fixture(scope="module")
def client():
    if _gpus() < 2:
        pytest.skip("needs two or more GPUs")
    from dgraph.cluster import close, connect

    c = connect("cuda", workers=2, timeout=120)
    yield c
    close()


def _graph():
    G = dgraph.generate("rmat", scale=11, seed=3)
    return G, int(np.argmax(to_numpy(G.out_degree())))


def _same(r, ref, exact=True):
    for c in ref.columns:
        a, b = to_numpy(r.raw(c)), to_numpy(ref.raw(c))
        if exact:
            np.testing.assert_array_equal(a, b, err_msg=c)
        else:
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-15, err_msg=c)


@pytest.mark.parametrize("transport", ["nccl", "dask"])
def test_failed_run_on_healthy_gpus_restarts_nobody(client, transport, tmp_path, monkeypatch):
    """Partition 1 raises at superstep 2 (its peer, in NCCL, has its communicator aborted): the real
    device check runs on both workers (a spy notes each) and passes, so the run's own
    ExecutorError comes unchanged, no worker process changes, and the next run is exact."""
    from dgraph.engine import health

    G, src = _graph()
    ref = dgraph.bfs(G.to("cupy"), src)
    PG = G.partition(2, client=client, backend="cupy")
    before = client.run(os.getpid)
    log = tmp_path / "checked"
    monkeypatch.setitem(health.PROBES, "cupy", SickProbe("tcp://nobody:1", log, inner=health.probe_cupy))
    with pytest.raises(ExecutorError, match=r"partition 1 fails at \('superstep', 2\)") as err:
        run_killing(monkeypatch, lambda: dgraph.bfs(PG, src, executor="spmd", transport=transport), 1,
                    ("superstep", 2), None, wrapper=Failing)
    assert not isinstance(err.value, WorkerRestartedError), str(err.value)
    assert sorted(checked(log)) == sorted(set(PG.workers))
    assert client.run(os.getpid) == before
    r = dgraph.bfs(PG, src, executor="spmd", transport=transport)
    assert r.params["transport"] == transport
    _same(r, ref)
    assert len(checked(log)) == 2  # a run that succeeds checks nothing


def test_worker_left_with_a_sticky_cuda_error_is_restarted(client):
    """Partition 1's kernel writes through a null pointer mid-run (NCCL transport): its worker's
    CUDA context is broken for good.  The error names that worker and the CUDA error, the worker
    is a new process, and the next BFS and PageRank on the same graph equal the single GPU's."""
    G, src = _graph()
    ref_bfs, ref_pr = dgraph.bfs(G.to("cupy"), src), dgraph.pagerank(G.to("cupy"), iterations=10)
    PG = G.partition(2, client=client, backend="cupy")
    sick = PG.workers[1]
    before = client.run(os.getpid)
    with pytest.MonkeyPatch.context() as m, pytest.raises(WorkerRestartedError) as err:
        run_killing(m, lambda: dgraph.bfs(PG, src, executor="spmd", transport="nccl"), 1, ("superstep", 1), None,
                    wrapper=Poisoning)
    said = str(err.value)
    assert f"worker {sick} (partitions [1]) was restarted" in said, said
    assert "cudaErrorIllegalAddress" in said, said
    after = client.run(os.getpid)
    assert sick not in after and len(after) == len(before)
    assert before[PG.workers[0]] in after.values() or f"worker {PG.workers[0]}" in said  # the healthy one stays
    r = dgraph.bfs(PG, src, executor="spmd")
    assert r.params["transport"] == "nccl"  # the rebuilt shard has a GPU of its own
    _same(r, ref_bfs)
    _same(dgraph.pagerank(PG, iterations=10, executor="spmd"), ref_pr, exact=False)
