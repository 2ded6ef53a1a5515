"""Dask clusters for dgraph: start a local one, a LocalCUDACluster, or reach
a scheduler started by hand (see ``cluster/README.md`` in the repository).

>>> from dgraph import cluster
>>> client = cluster.connect(workers=2)        # local CPU cluster, 2 processes
>>> cluster.worker_addresses(client)           # doctest: +SKIP
['tcp://127.0.0.1:40123', 'tcp://127.0.0.1:40777']
>>> cluster.close()

Importing this package does not import dask or distributed; ``connect()`` does.
"""

from .connect import close, connect, current_client, dashboard_link
from .errors import ClusterError
from .workers import GPUInfo, WorkerDevice, worker_addresses, worker_devices

__all__ = ["connect", "close", "current_client", "dashboard_link", "ClusterError", "worker_addresses",
           "worker_devices", "WorkerDevice", "GPUInfo"]
