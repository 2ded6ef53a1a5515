"""Noticing a lost worker, for the Dask executors (``tasks`` and ``spmd``).

A worker that dies shows up in three ways, depending on what the client was
doing at that moment: a broken connection (``CommClosedError``, an
``OSError``), futures that Dask cancels (data only that worker held), or
nothing at all (a task pinned to the dead worker waits for it forever, and
a connection to its address is retried for Dask's whole connect timeout,
30 s by default).  The scheduler, though, drops a worker as soon as its
connection closes.  So the executors wait in short slices and ask the
scheduler which of their workers are gone (``lost_workers``), and every
error that a lost worker can cause becomes a
:class:`~dgraph.errors.WorkerLostError` naming the worker and the
partitions it held.  After one, the graph's next run rebuilds the lost
shards first (:meth:`~dgraph.partition.partitioned.PartitionedGraph.ensure_shards`).
"""

from __future__ import annotations

import asyncio
import time

from ..errors import WorkerLostError

#: seconds between two looks at the scheduler's worker list while a run waits
CHECK_EVERY_S = 0.5
#: after a broken connection, seconds to wait for the scheduler to drop the worker it was to
SETTLE_S = 5.0


def connection_error(exc) -> bool:
    """Whether ``exc`` is what a broken or refused connection to a worker raises."""
    from distributed.comm.core import CommClosedError  # noqa: PLC0415

    return isinstance(exc, (CommClosedError, OSError, EOFError, ConnectionError, asyncio.TimeoutError))


def loss_like(exc) -> bool:
    """Whether ``exc`` may come from a lost worker: a broken connection, a future Dask cancelled
    (its data was lost with a worker), or a task whose workers kept dying (``KilledWorker``)."""
    import concurrent.futures  # noqa: PLC0415

    from distributed.scheduler import KilledWorker  # noqa: PLC0415

    return connection_error(exc) or isinstance(exc, (asyncio.CancelledError, concurrent.futures.CancelledError,
                                                     KilledWorker))


def gather_or_lost(client, futures, placement, what, check_every=CHECK_EVERY_S):
    """``client.gather(futures)``, where an error a lost worker caused becomes WorkerLostError.

    A worker that dies after the futures are done but before their data came takes the data with it,
    and a task pinned to it waits for it for ever, and with it the gather: so the gather runs on the
    client's loop while this thread looks at the scheduler's worker list every ``check_every``
    seconds, and a worker of ``placement`` gone is WorkerLostError (the gather goes on meanwhile,
    however long the data takes to come)."""
    import concurrent.futures  # noqa: PLC0415

    try:
        pending = None if client.asynchronous else asyncio.run_coroutine_threadsafe(
            client._gather(futures), client.loop.asyncio_loop)
    except AttributeError:  # (a loop without an asyncio loop behind it)
        pending = None
    try:
        if pending is None:
            return client.gather(futures)
        while True:
            try:
                return pending.result(timeout=check_every)
            except concurrent.futures.TimeoutError:
                lost = lost_workers(client, placement)
                if lost:
                    pending.cancel()
                    raise worker_lost(lost, placement, what) from None
    except WorkerLostError:
        raise
    except Exception as exc:
        loss = _loss(client, placement, what, exc)
        if loss is not None:
            raise loss from None
        raise


def _loss(client, placement, what, exc):
    """WorkerLostError when ``exc`` came of a worker of ``placement`` that is gone, else None."""
    if not loss_like(exc):
        return None
    lost = settle_lost(client, placement)
    return worker_lost(lost, placement, what, exc) if lost else None


def lost_workers(client, addresses):
    """The addresses among ``addresses`` that the scheduler no longer lists (sorted)."""
    alive = set(client.ncores())
    return sorted(set(addresses) - alive)


async def lost_workers_async(client, addresses):
    """:func:`lost_workers` from inside the client's event loop."""
    alive = set(await client.scheduler.ncores())
    return sorted(set(addresses) - alive)


def settle_lost(client, addresses, settle_s=SETTLE_S):
    """After a broken connection: the lost addresses, waiting up to ``settle_s`` for the scheduler
    to see the worker go (it does as soon as the worker's own connection closes)."""
    deadline = time.monotonic() + settle_s
    while True:
        try:
            lost = lost_workers(client, addresses)
        except Exception:  # noqa: BLE001 - the scheduler itself unreachable: nothing more to learn
            return []
        if lost or time.monotonic() >= deadline:
            return lost
        time.sleep(0.1)


def worker_lost(lost, placement, what, cause=None):
    """The WorkerLostError for ``lost`` worker addresses (``placement[q]``: partition q's worker)."""
    parts = [q for q, w in enumerate(placement) if w in set(lost)]
    why = f" ({type(cause).__name__}: {cause})" if cause is not None and str(cause) else ""
    return WorkerLostError(f"worker {', '.join(lost)} (partitions {parts}) left the cluster during {what}{why}; "
                           f"the run was cancelled. Run it again: the lost shards are rebuilt on the remaining "
                           f"workers first")


def connection_lost(address, placement, what, cause):
    """The WorkerLostError for a connection that broke while the scheduler still lists its worker
    (``address``; None when the error does not say which worker of ``placement`` it was)."""
    if address is None:
        who = f"a worker of {sorted(set(placement))}"
    else:
        who = f"worker {address} (partitions {[q for q, w in enumerate(placement) if w == address]})"
    return WorkerLostError(f"lost the connection to {who} during {what} "
                           f"({type(cause).__name__}: {cause}); the run was cancelled. Run it again: shards "
                           f"lost with a worker are rebuilt first")


def wait_or_lost(client, futures, placement, what, check_every=CHECK_EVERY_S):
    """Wait until every future is done; WorkerLostError as soon as a worker of ``placement`` is gone.

    A future pinned to a dead worker would wait for it forever, so the wait
    goes in slices of ``check_every`` seconds with a look at the scheduler's
    worker list between them.  Returns nothing: errors of the tasks
    themselves are raised by the caller's ``gather``.
    """
    from distributed import wait  # noqa: PLC0415

    while True:
        try:
            with client.as_current():  # wait() uses the default client, which this one need not be
                wait(futures, timeout=check_every)
        except TimeoutError:
            lost = lost_workers(client, placement)
            if lost:
                raise worker_lost(lost, placement, what) from None
            continue
        except Exception as exc:  # wait() raises when a future was cancelled (its data lost with a worker)
            loss = _loss(client, placement, what, exc)
            if loss is not None:
                raise loss from None
            raise
        if any(f.status != "finished" for f in futures):  # erred, or lost as wait() returned
            lost = lost_workers(client, placement)
            if lost:
                raise worker_lost(lost, placement, what) from None
        return


def run_quietly(client, function, **kwargs):
    """``client.run(function)`` on the live workers, in the background, errors ignored: cleanup after
    a failed run must neither hide the error nor wait on a dead worker."""
    async def go():
        try:
            await client._run(function, on_error="ignore", **kwargs)
        except Exception:  # noqa: BLE001
            pass

    try:
        client.loop.add_callback(go)
    except Exception:  # noqa: BLE001 - the client is closing
        pass


__all__ = ["connection_error", "loss_like", "gather_or_lost", "lost_workers", "lost_workers_async", "settle_lost", "worker_lost",
           "connection_lost", "wait_or_lost", "run_quietly"]
