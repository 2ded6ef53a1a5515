import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

from dgraph.backend import gpu_available  # noqa: E402

GRAPHALYTICS = os.environ.get("DGRAPH_GRAPHALYTICS",
                              os.path.join(os.path.dirname(__file__), "data", "graphalytics"))

BACKENDS = ["numpy", pytest.param("cupy", marks=pytest.mark.gpu)]


@pytest.fixture(params=BACKENDS)
def backend(request):
    if request.param == "cupy" and not gpu_available():
        pytest.skip("no usable CUDA GPU / CuPy")
    return request.param


@pytest.fixture(scope="session")
def dask_client():
    """One LocalCluster of 2 worker processes for every test module that needs Dask.

    Made here rather than by ``dgraph.cluster.connect()``, and not the default client, so that
    connect()/close() tests and ``current_client()`` see nothing of it; modules used to start (and
    JIT-warm) a cluster each.  Tests that kill workers have their own (test_faults.py)."""
    import logging

    from distributed import Client, LocalCluster

    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                           scheduler_kwargs={"dashboard": False}, silence_logs=logging.WARNING)
    c = Client(cluster, set_as_default=False)
    yield c
    c.close()
    cluster.close()


@pytest.fixture(scope="module")
def client(dask_client):
    """The shared cluster's client, with both workers up and no spmd result of an earlier module
    stashed on them."""
    dask_client.wait_for_workers(2, timeout=120)
    dask_client.run(_clear_stashes)
    return dask_client


def _clear_stashes(dask_worker):
    for name in ("_dgraph_results", "_dgraph_task_states"):
        getattr(dask_worker, name, {}).clear()
