"""Which workers a cluster has, and what each one runs on.

``worker_addresses`` gives the workers in a fixed order (shard ``i`` goes to
worker ``i``); ``worker_devices`` asks each worker where it is: host, process
and GPU. A partitioned graph pins one shard per worker with these.
"""

from __future__ import annotations

import os
import socket
from typing import NamedTuple

from .errors import ClusterError

__all__ = ["GPUInfo", "WorkerDevice", "worker_addresses", "worker_devices"]


class GPUInfo(NamedTuple):
    """The GPU a worker uses: its index as ``nvidia-smi`` numbers it (taken
    from ``CUDA_VISIBLE_DEVICES`` when that is set; a UUID string if that is
    how it was named) and its name."""

    index: int | str
    name: str


class WorkerDevice(NamedTuple):
    address: str
    host: str
    pid: int
    gpu: GPUInfo | None


def _client_or_current(client):
    if client is not None:
        return client
    from .connect import current_client
    client = current_client()
    if client is None:
        raise ClusterError("no Dask client: call dgraph.cluster.connect() first")
    return client


def _address_key(address):
    """Sort key: scheme and host as text, then the port as a number."""
    head, sep, port = address.rpartition(":")
    return (head, int(port)) if sep and port.isdigit() else (address, -1)


#: how long a build waits for a worker when the scheduler lists none (seconds)
RECONNECT_WAIT_S = 2.0


def worker_addresses(client=None, wait=0.0):
    """Addresses of the workers connected to the scheduler, sorted (by host,
    then port number).

    ``wait``: when the scheduler lists none, wait up to that many seconds for
    one to connect and ask again (a worker restarted by its nanny reconnects
    under a new address; in that moment the list can be empty).  Empty if
    none came."""
    client = _client_or_current(client)

    def ask():
        try:
            info = client.scheduler_info(n_workers=-1)
        except TypeError:  # distributed before the n_workers argument
            info = client.scheduler_info()
        return sorted(info["workers"], key=_address_key)

    workers = ask()
    if workers or wait <= 0:
        return workers
    try:
        client.wait_for_workers(1, timeout=wait)
    except (TimeoutError, OSError):
        return []
    return ask()


def _probe():
    """Runs on a worker: (address, host, pid, (gpu index, name) or None)."""
    from distributed import get_worker

    address = get_worker().address
    gpu = None
    try:
        import cupy

        runtime = cupy.cuda.runtime
        if runtime.getDeviceCount() > 0:
            device = runtime.getDevice()
            name = runtime.getDeviceProperties(device)["name"]
            if isinstance(name, bytes):
                name = name.decode(errors="replace")
            visible = [v.strip() for v in os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",")
                       if v.strip()]
            index = visible[device] if device < len(visible) else str(device)
            gpu = (int(index) if index.isdigit() else index, str(name))
    except Exception:  # no CuPy, no driver, no GPU: a CPU worker
        gpu = None
    return address, socket.gethostname(), os.getpid(), gpu


def worker_devices(client=None):
    """One ``WorkerDevice(address, host, pid, gpu)`` per worker, in the order
    of ``worker_addresses``; ``gpu`` is ``GPUInfo(index, name)`` or ``None``.

    Runs one small task pinned to each worker (it imports CuPy there if
    CuPy is installed).
    """
    client = _client_or_current(client)
    addresses = worker_addresses(client)
    futures = [client.submit(_probe, workers=[a], allow_other_workers=False, pure=False,
                             key=f"dgraph-worker-probe-{i}-{os.urandom(4).hex()}")
               for i, a in enumerate(addresses)]
    out = []
    for address, (seen, host, pid, gpu) in zip(addresses, client.gather(futures)):
        if seen != address:  # pragma: no cover - pinned tasks run where asked
            raise ClusterError(f"the probe task for worker {address} ran on {seen}")
        out.append(WorkerDevice(address, host, pid, GPUInfo(*gpu) if gpu else None))
    return out
