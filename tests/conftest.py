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


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Every test that uses the session's Dask cluster is marked ``dask``: ``-m 'not dask'`` is the
    fast inner loop (no cluster started)."""
    for item in items:
        if {"client", "dask_client"} & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.dask)


@pytest.fixture(scope="session")
def dask_client():
    """One Dask cluster for every test module that needs one: the cluster ``SCHEDULER_FILE`` names
    when that variable is set (a cluster started by hand, e.g. ``dask scheduler --scheduler-file``
    and workers, as cuGraph's tests do: the suite then runs on it and leaves it up), else a
    LocalCluster of 2 worker processes.

    Made here rather than by ``dgraph.cluster.connect()``, and not the default client, so that
    connect()/close() tests and ``current_client()`` see nothing of it; modules used to start (and
    JIT-warm) a cluster each.  Tests that kill workers have their own (test_faults.py)."""
    import logging

    from distributed import Client, LocalCluster

    if os.environ.get("SCHEDULER_FILE"):
        c = Client(scheduler_file=os.environ["SCHEDULER_FILE"], set_as_default=False)
        yield c
        c.close()
        return
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
