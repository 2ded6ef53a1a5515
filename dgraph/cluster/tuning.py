"""The Dask settings that make a superstep of the ``tasks`` executor cheap.

Dask batches its control messages: a worker sends the scheduler what
finished at most every 2 ms, the scheduler sends each worker its new tasks
at most every 5 ms, and each client its news every 2 ms; a client sends
its graphs every 10 ms.  A superstep of ``tasks`` is one dependent task
level, so it waits for a worker->scheduler and a scheduler->worker message
in a row; on a busy scheduler those waits are most of the superstep.
:func:`tune` sets every such interval to ``BATCH_INTERVAL_S`` (the messages
still go in batches: all that one turn of the event loop produced), and
turns Dask's work stealing off (dgraph pins every task to the worker that
holds its shard, so stealing has nothing to move and only costs the
scheduler time at each transition).

``connect()`` applies both to the clusters it starts (``tune=True``, the
default).  A cluster it joins is left as its owner made it: call
``dgraph.cluster.tune(client)`` for the intervals (it needs dgraph
importable on the scheduler, as on the workers), and start its scheduler
with ``DASK_DISTRIBUTED__SCHEDULER__WORK_STEALING=False`` for the stealing.

This module imports distributed: ``dgraph.cluster`` imports it on first use.
"""

from __future__ import annotations

__all__ = ["tune", "BATCH_INTERVAL_S", "CONFIG", "SchedulerStreams", "WorkerStream"]

#: the batching interval of every Dask control stream of a tuned cluster (seconds)
BATCH_INTERVAL_S = 0.0
#: Dask configuration of the clusters connect() starts
CONFIG = {"distributed.scheduler.work-stealing": False}


def tune(client, interval=BATCH_INTERVAL_S):
    """Shorten the batching of Dask's control messages on ``client``'s cluster.

    Parameters
    ----------
    client : distributed.Client
        A client of the cluster; its own stream to the scheduler is tuned too.
    interval : float
        Seconds between two batches on each stream (Dask's defaults: 2 to 10 ms).

    Returns
    -------
    float
        The interval set.

    Workers that join later (a nanny restarting a lost worker) and clients
    that connect later get the same interval (a worker plugin and a
    scheduler plugin).  Work stealing is a setting of the scheduler's start
    (:data:`CONFIG`), not changed here.
    """
    interval = float(interval)
    if not interval >= 0:
        from ..errors import InputError  # noqa: PLC0415

        raise InputError(f"tune(): interval must be a non-negative number of seconds, got {interval!r}")
    client.register_plugin(SchedulerStreams(interval))
    client.register_plugin(WorkerStream(interval))
    comm = getattr(client, "scheduler_comm", None)
    if comm is not None:
        comm.interval = interval
    return interval


def _tune_scheduler(scheduler, interval):
    for bc in list(scheduler.stream_comms.values()) + list(scheduler.client_comms.values()):
        bc.interval = interval


def _plugin_bases():
    from distributed.diagnostics.plugin import SchedulerPlugin, WorkerPlugin  # noqa: PLC0415

    return SchedulerPlugin, WorkerPlugin


class SchedulerStreams(_plugin_bases()[0]):
    """On the scheduler: its streams to the workers and clients batch every ``interval`` seconds."""

    name = "dgraph-batch-interval"

    def __init__(self, interval):
        self.interval = interval

    async def start(self, scheduler):
        _tune_scheduler(scheduler, self.interval)

    def add_worker(self, scheduler, worker):  # its stream is made just before this call
        bc = scheduler.stream_comms.get(worker)
        if bc is not None:
            bc.interval = self.interval

    def add_client(self, scheduler, client):  # its stream is made just after this call
        scheduler.loop.add_callback(_tune_scheduler, scheduler, self.interval)


class WorkerStream(_plugin_bases()[1]):
    """On a worker: its stream to the scheduler batches every ``interval`` seconds."""

    name = "dgraph-batch-interval"

    def __init__(self, interval):
        self.interval = interval

    def setup(self, worker):
        worker.batched_stream.interval = self.interval
