"""spmd runs in the Dask dashboard's task stream, without a Dask task on the hot path.

A direct spmd run is not a Dask task (its launch is one call from the client to each worker:
a task launch costs some 10 ms), so Dask knows nothing of it.  To show it anyway:

- when a shard's loop ends, its worker logs one event, topic ``dgraph-spmd``
  (``Worker.log_event``: a message on the worker's batched stream to the scheduler; no round
  trip, nothing per superstep): the run's key, the worker, the loop's start and end;
- a scheduler plugin (:class:`SpmdTaskStream`, registered once per client on its first spmd
  run) hands each such event to the scheduler's task stream as a finished task: a bar on that
  worker from the loop's start to its end, key ``bfs-spmd-p0-<run>``, grouped and coloured as
  ``bfs-spmd`` (Dask's key_split), black when the shard failed or was cancelled.  The task
  launch's tasks (``launch="task"``) have the same keys.

As for tasks, the task stream keeps what ends while someone watches it (the dashboard's status or
task-stream page, ``Client.get_task_stream()``, a ``performance_report``).  The events stay
readable as they are: ``client.get_events("dgraph-spmd")``.  A scheduler that cannot import dgraph
refuses the plugin: runs then work as before, and are not shown (said once on the dgraph logger).
"""

from __future__ import annotations

from distributed.diagnostics.plugin import SchedulerPlugin

#: the event topic of finished spmd shards
TOPIC = "dgraph-spmd"


def run_key(name, part, run):
    """The key an spmd shard shows under: ``bfs-spmd-p0-<run>`` (as the task launch names its tasks)."""
    return f"{name}-spmd-p{part}-{run}"


def log_shard(worker, *, name, part, run, start, stop, status, supersteps=None):
    """Tell the scheduler that a shard's loop ran on ``worker`` from ``start`` to ``stop`` (Dask's
    wall clock, distributed.metrics.time); best effort, from any thread of the worker."""
    msg = {"key": run_key(name, part, run), "part": part, "run": run, "worker": worker.address,
           "start": start, "stop": stop, "status": status, "supersteps": supersteps}
    try:
        # on the worker's event loop: log_event writes to its batched stream, whose wake-up is not
        # thread-safe (from a loop thread the event could sit unsent until the stream's next write;
        # the task-stream test waited 60 s for one under load)
        worker.loop.add_callback(worker.log_event, TOPIC, msg)
    except Exception:  # noqa: BLE001 - the dashboard is not worth a failed run
        pass


class SpmdTaskStream(SchedulerPlugin):
    """On the scheduler: each ``dgraph-spmd`` event becomes a task-stream record (see the module
    docstring), while the task stream is on."""

    name = "dgraph-spmd-task-stream"
    idempotent = True

    def __init__(self):
        self.scheduler = None

    async def start(self, scheduler):
        self.scheduler = scheduler

    def log_event(self, topic, msg):
        if topic != TOPIC or self.scheduler is None:
            return
        stream = self.scheduler.plugins.get("task-stream")
        if stream is None:  # nobody watches the task stream: nothing is kept, as for tasks
            return
        ok = msg.get("status") == "OK"
        stream.transition(msg["key"], "processing", "memory" if ok else "erred", worker=msg["worker"],
                          thread=f"spmd-p{msg['part']}", status="OK" if ok else "error", nbytes=0, type=None,
                          typename=None, metadata={},
                          startstops=[{"action": "compute", "start": msg["start"], "stop": msg["stop"]}])


def register(client):
    """Put the plugin on ``client``'s scheduler, once per client (one round trip, at the first run)."""
    if getattr(client, "_dgraph_task_stream", False):
        return
    client._dgraph_task_stream = True
    try:
        client.register_plugin(SpmdTaskStream())
    except Exception as exc:  # noqa: BLE001 - e.g. a scheduler without dgraph installed
        from ..log import logger  # noqa: PLC0415

        logger.info("spmd runs will not show in the Dask dashboard: the scheduler refused dgraph's task-stream "
                    "plugin (%s: %s)", type(exc).__name__, exc)
