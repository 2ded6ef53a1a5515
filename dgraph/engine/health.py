"""After a failed spmd or tasks run: check its workers' GPUs, and restart the workers whose GPU is broken.

A run that fails while it uses NCCL has its communicators aborted on every
worker (:func:`dgraph.engine.nccl_transport.abort`).  A kernel that died
mid-collective (an illegal address, say) can leave a worker's CUDA context
broken for good: every later CUDA call in that process fails with the same
"sticky" error, so every later run there would fail too.  Only a new
process helps.

So after an spmd run on CuPy shards fails (never after one that succeeds),
the client checks the run's workers that are still in the cluster, all at
once, each bounded by :data:`PROBE_S`: a worker synchronizes its device and
runs a tiny CuPy op (:func:`probe_cupy`).  A worker whose check raises, or
does not answer in time, is unusable: it is restarted
(``Client.restart_workers``: its nanny starts a fresh process, under a new
address), and the graph is told that its shards there are gone
(:meth:`~dgraph.partition.partitioned.PartitionedGraph.suspect_loss`), so
the next run rebuilds them.  The failed spmd run's error then becomes a
:class:`~dgraph.errors.WorkerRestartedError` that names each restarted
worker and the error its check met; a ``tasks`` run instead starts again on
the rebuilt shards (:func:`dgraph.engine.tasks.run_tasks`), as after a lost
worker.

Shards on numpy have no device to check: :data:`PROBES` has no entry for
them and nothing is sent.
"""

from __future__ import annotations

import asyncio
import threading

from ..errors import WorkerRestartedError

#: seconds a worker's device check may take before the worker counts as unusable
PROBE_S = 10.0
#: seconds to wait for the restarted workers to come back
RESTART_S = 120.0


def probe_cupy(dask_worker):
    """On a worker: synchronize its GPU and run a tiny CuPy op there; raises what CUDA raises.

    A sticky CUDA error left by a failed kernel shows on the first call after it, so the
    synchronize (or the copy, or the kernel) raises it here."""
    import cupy  # noqa: PLC0415

    cupy.cuda.runtime.deviceSynchronize()
    x = cupy.arange(4, dtype=cupy.int64)
    got = cupy.asnumpy(x + x).tolist()
    cupy.cuda.runtime.deviceSynchronize()
    if got != [0, 2, 4, 6]:
        raise RuntimeError(f"the device computed {got} for 2 * [0, 1, 2, 3]")


#: the device check of a shard backend, run on each worker after a failed run; none: nothing to check
PROBES = {"cupy": probe_cupy}


async def _probe_here(probe, timeout_s, dask_worker=None):
    """On a worker (``client.run``): ``probe(dask_worker)`` in a thread of its own, so that a device
    that hangs does not hold up the worker's event loop; -> None when it passed, else what went
    wrong (the error's type and text, or that it did not end in ``timeout_s``)."""
    loop = asyncio.get_running_loop()
    done = loop.create_future()

    def check():
        try:
            probe(dask_worker)
            outcome = None
        except BaseException as exc:  # noqa: BLE001 - every failure of the check is the answer
            outcome = f"{type(exc).__name__}: {exc}"
        loop.call_soon_threadsafe(lambda: done.done() or done.set_result(outcome))

    threading.Thread(target=check, name="dgraph-device-check", daemon=True).start()
    try:
        return await asyncio.wait_for(done, timeout_s)
    except TimeoutError:
        return f"no answer within {timeout_s:g} s"


def check_workers(client, addresses, probe, timeout_s=PROBE_S):
    """Run ``probe`` on each worker of ``addresses`` at once; -> ``{address: what went wrong}`` for
    the unusable ones (a check that raised, or no answer within ``timeout_s``).  A worker the
    scheduler no longer lists is lost, not checked (the run's own error says so)."""
    from .faults import lost_workers_async  # noqa: PLC0415

    async def one(addr):
        try:
            got = await asyncio.wait_for(client._run(_probe_here, probe, timeout_s, workers=[addr],
                                                     on_error="return"), timeout_s + 5.0)
        except TimeoutError:
            return f"no answer within {timeout_s:g} s"
        except Exception as exc:  # noqa: BLE001
            return f"the check could not run: {type(exc).__name__}: {exc}"
        got = got.get(addr)
        if isinstance(got, BaseException):
            return f"the check could not run: {type(got).__name__}: {got}"
        return got

    async def all_of_them():
        try:
            gone = set(await lost_workers_async(client, addresses))
        except Exception:  # noqa: BLE001 - the scheduler unreachable: nothing can be checked
            return {}
        live = sorted(set(addresses) - gone)
        found = await asyncio.gather(*[one(a) for a in live])
        return {a: why for a, why in zip(live, found) if why is not None}

    return client.sync(all_of_them)


def restart(client, addresses, timeout_s=RESTART_S):
    """Restart the workers at ``addresses`` (their nannies start fresh processes); -> ``{address:
    how it went}``: ``"OK"``, or why it was not restarted."""
    try:
        out = client.restart_workers(sorted(addresses), timeout=timeout_s, raise_for_error=False)
    except Exception as exc:  # noqa: BLE001 - e.g. a worker without a nanny: it cannot be restarted
        return {a: f"{type(exc).__name__}: {exc}" for a in addresses}
    return {a: str(out.get(a, "not restarted")) for a in addresses}


def recover(PG, placement):
    """After a failed run on ``PG`` whose partition q ran on ``placement[q]``: check the run's
    workers' devices and restart the unusable ones; -> ``[(address, why, restart status)]`` (empty
    when every device passed, when the shards' backend has nothing to check, or when the check
    itself could not run: it must never hide the run's own error)."""
    probe = PROBES.get(PG.backend)
    if probe is None or PG.client is None:
        return []
    try:
        bad = check_workers(PG.client, sorted(set(placement)), probe)
        if not bad:
            return []
        status = restart(PG.client, bad)
    except Exception:  # noqa: BLE001 - the scheduler unreachable, the client closing
        return []
    PG.suspect_loss()  # the shards on those workers are gone: the next run rebuilds them
    return [(a, bad[a], status[a]) for a in sorted(bad)]


def restarted_error(cause, restarted, placement):
    """The error of a failed run after which workers were restarted (:func:`recover`'s list)."""
    said = []
    for addr, why, status in restarted:
        parts = [q for q, w in enumerate(placement) if w == addr]
        did = ("was restarted" if status == "OK"
               else f"could not be restarted ({status}); restart it, or remove it from the cluster")
        said.append(f"worker {addr} (partitions {parts}) {did}: its GPU failed a check after the run ({why})")
    return WorkerRestartedError(f"{cause}; then {'; '.join(said)}. Run again: the shards it held are rebuilt "
                                f"first")


__all__ = ["PROBE_S", "RESTART_S", "PROBES", "probe_cupy", "check_workers", "restart", "recover",
           "restarted_error"]
