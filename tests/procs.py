"""Processes the tests start by hand: a Dask scheduler and workers on loopback (the multi-node shape)."""

import os
import socket
import subprocess
import sys
import time

from dgraph import cluster
from dgraph.cluster import ClusterError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stop(proc):
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


def spawner(tmp_path):
    """spawn(*args) starts `python -m <args>` in the background; all are killed at the end."""
    procs = []
    env = {**os.environ, "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}

    def start(*args):
        log = open(tmp_path / f"proc{len(procs)}.log", "wb")
        procs.append(subprocess.Popen([sys.executable, "-m", *args], cwd=tmp_path, env=env,
                                      stdout=log, stderr=subprocess.STDOUT))
        log.close()
        return procs[-1]

    try:
        yield start
    finally:
        cluster.close()
        for p in reversed(procs):
            stop(p)


def connect_when_ready(address, deadline_s=30, **kw):
    """connect() to ``address`` once the scheduler answers and its workers joined.

    connect() itself waits on those events (Dask retries the connection, then waits for
    ``workers``, up to ``timeout`` s: give it a generous one, a worker joins in seconds on a quiet
    box and much later on a loaded one); a ClusterError is tried again until ``deadline_s``."""
    deadline = time.monotonic() + deadline_s
    while True:
        try:
            return cluster.connect(address, **kw)
        except ClusterError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


