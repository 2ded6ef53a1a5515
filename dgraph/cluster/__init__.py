"""Dask clusters for dgraph: start a local one, a LocalCUDACluster, or reach
a scheduler started by hand (see ``cluster/README.md`` in the repository).
The lines marked +SKIP start a local CPU cluster of 2 processes, which the
docs test (tests/test_docs.py) does not; the dashboard link is None where
bokeh is not installed.

>>> from dgraph import cluster
>>> client = cluster.connect(workers=2)        # doctest: +SKIP
>>> cluster.worker_addresses(client)           # doctest: +SKIP
['tcp://127.0.0.1:40123', 'tcp://127.0.0.1:40777']
>>> cluster.dashboard_link(client)             # doctest: +SKIP
'http://127.0.0.1:8787/status'
>>> cluster.close()

Importing this package does not import dask or distributed; ``connect()`` does.
"""

from .connect import close, connect, current_client, dashboard_link
from .errors import ClusterError
from .workers import GPUInfo, WorkerDevice, worker_addresses, worker_devices


def tune(client, interval=None):
    """Dask's control messages on ``client``'s cluster batched every ``interval`` seconds (default
    :data:`dgraph.cluster.tuning.BATCH_INTERVAL_S`); what ``connect()`` does to the clusters it
    starts.  See :mod:`dgraph.cluster.tuning`."""
    from . import tuning  # noqa: PLC0415 - imports distributed

    return tuning.tune(client) if interval is None else tuning.tune(client, interval)


__all__ = ["connect", "close", "current_client", "dashboard_link", "tune", "ClusterError", "worker_addresses",
           "worker_devices", "WorkerDevice", "GPUInfo"]
