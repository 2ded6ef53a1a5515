#!/usr/bin/env python3
"""Check that dgraph can use a Dask cluster: connect, list the workers and
their devices, time a task round trip.

Usage (from the repository root, or anywhere dgraph is installed):

    python cluster/check.py                       # local CPU cluster
    python cluster/check.py cuda                  # LocalCUDACluster, one worker per GPU
    python cluster/check.py cuda --protocol ucx   # the same over UCX
    python cluster/check.py tcp://host:8786       # a scheduler started by hand

Exit status 0 when every worker answered, 2 when the cluster could not be
reached (the message says why).
"""

from __future__ import annotations

import argparse
import os
import sys
import time


def main(argv=None):
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, os.path.dirname(here))  # run from a checkout without installing
    from dgraph import cluster

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("target", nargs="?", default=None,
                   help="local (default), cuda, tcp://host:8786, ucx://host:8786, host:8786 "
                        "or a scheduler file")
    p.add_argument("--workers", type=int, default=None,
                   help="local: processes; cuda: GPUs to use; address: workers to wait for")
    p.add_argument("--protocol", default="tcp", choices=["tcp", "ucx"])
    p.add_argument("--timeout", type=float, default=10.0)
    p.add_argument("--rounds", type=int, default=20, help="task round trips to time")
    a = p.parse_args(argv)

    t0 = time.perf_counter()
    try:
        client = cluster.connect(a.target, workers=a.workers, protocol=a.protocol,
                                 timeout=a.timeout)
    except cluster.ClusterError as exc:
        print(f"dgraph cluster check: {exc}", file=sys.stderr)
        return 2
    try:
        t1 = time.perf_counter()
        print(f"connected to {client.scheduler.address} in {t1 - t0:.2f} s")
        devices = cluster.worker_devices(client)
        print(f"{len(devices)} worker(s):")
        for d in devices:
            gpu = f"GPU {d.gpu.index} ({d.gpu.name})" if d.gpu else "no GPU"
            print(f"  {d.address}  host {d.host}  pid {d.pid}  {gpu}")
        env = client.run(lambda: os.environ.get("NCCL_NVLS_ENABLE"))
        if any(d.gpu for d in devices):
            print(f"NCCL_NVLS_ENABLE on the workers: {sorted(set(map(str, env.values())))}")
        address = devices[0].address
        times = []
        for _ in range(max(1, a.rounds)):
            t = time.perf_counter()
            client.submit(os.getpid, workers=[address], pure=False).result()
            times.append(time.perf_counter() - t)
        times.sort()
        print(f"task round trip (client -> {address} -> client): median "
              f"{1e3 * times[len(times) // 2]:.1f} ms over {len(times)}")
    finally:
        cluster.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
