"""The ``spmd`` executor: one long-running Dask task per shard, direct worker-to-worker exchange.

Each shard's task runs the whole BSP loop on its worker.  Contributions
travel straight to the partitions the exchange schedule names, as messages
to a handler installed on every worker (Dask's worker comm: TCP, or UCX
when the cluster uses it, which moves CuPy arrays GPU to GPU), so no
superstep waits on the scheduler.  Every task computes the same report
from the same contributions, so convergence needs no extra round trip.

The client watches the run: a task that fails, a peer that stops
answering (``timeout``), or a worker that leaves the cluster cancels the
whole run with an :class:`~dgraph.errors.ExecutorError`; running again
starts from the beginning (lost shards are rebuilt first).
"""

from __future__ import annotations

import threading
import time
import uuid

from ..errors import ExecutorError, WorkerLostError
from .program import Contribution, StepContext

HANDLER = "dgraph_spmd_put"


# -- on the workers ------------------------------------------------------------------------

class Mailbox:
    """Messages for the spmd runs on one worker, keyed by (run, step, round, src, dst)."""

    def __init__(self):
        self.cond = threading.Condition()
        self.items = {}

    def put(self, key, payload):
        with self.cond:
            self.items[key] = payload
            self.cond.notify_all()

    def take(self, key, timeout):
        deadline = time.monotonic() + timeout
        with self.cond:
            while key not in self.items:
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self.cond.wait(min(left, 1.0))
            return self.items.pop(key)

    def drop_run(self, run):
        with self.cond:
            for key in [k for k in self.items if k[0] == run]:
                del self.items[key]


def _mailbox(worker):
    box = getattr(worker, "_dgraph_mailbox", None)
    if box is None:
        box = worker._dgraph_mailbox = Mailbox()
    return box


def _install(dask_worker):
    """Install the message handler on a worker (idempotent)."""
    box = _mailbox(dask_worker)

    def put(comm=None, key=None, payload=None):
        box.put(tuple(key), payload)

    dask_worker.handlers[HANDLER] = put
    return dask_worker.address


def _drop_run(dask_worker, run):
    _mailbox(dask_worker).drop_run(run)
    for key in [k for k in _results(dask_worker) if k[0] == run]:
        del _results(dask_worker)[key]


def _to_wire(c):
    # plain dicts of arrays, so Dask's serializers see the arrays (CuPy goes device to device)
    return None if c is None else {"arrays": c.arrays, "counters": c.counters}


def _from_wire(d):
    return None if d is None else Contribution(d["arrays"], d["counters"])


def _spmd_main(program, shard, schedule, placement, run, max_supersteps, timeout, nccl_uid=None):
    from distributed import get_worker, secede  # noqa: PLC0415
    from distributed.protocol import to_serialize  # noqa: PLC0415
    from distributed.utils import sync  # noqa: PLC0415

    from ..exchange import bytes_moved  # noqa: PLC0415

    secede()  # several shards may share a worker: none may hold its thread slot
    worker = get_worker()
    box = _mailbox(worker)
    q, p = shard.part, shard.num_parts
    sends = [[t for t in rnd if t.src == q] for rnd in schedule.rounds]
    recvs = [[t for t in rnd if t.dst == q] for rnd in schedule.rounds]

    async def send_one(addr, key, payload):
        # one-way: the message is written and the connection returned to the pool, no reply awaited
        comm = await worker.rpc.connect(addr)
        try:
            await comm.write({"op": HANDLER, "key": key, "payload": to_serialize(payload), "reply": False})
        finally:
            worker.rpc.reuse(addr, comm)

    async def send_all(msgs):
        import asyncio  # noqa: PLC0415

        await asyncio.gather(*[send_one(*m) for m in msgs])

    def exchange_dask(mine, step):
        """Run the schedule's rounds for one contribution; -> every partition's, in order."""
        held = {q: mine}
        for k in range(schedule.num_rounds):
            msgs = [(placement[t.dst], (run, step, k, t.src, t.dst),
                     {o: _to_wire(held[o]) for o in t.origins}) for t in sends[k]]
            if msgs:
                sync(worker.loop, send_all, msgs)
            for t in recvs[k]:
                got = box.take((run, step, k, t.src, q), timeout)
                if got is None:
                    raise ExecutorError(f"spmd run {run}: partition {q} got nothing from partition {t.src} "
                                        f"(worker {placement[t.src]}) for {timeout:.0f} s in superstep {step}; "
                                        f"that worker may have died. Run again (shards are rebuilt), or raise "
                                        f"timeout= if supersteps are that long")
                held.update({o: _from_wire(v) for o, v in got.items()})
        return [held[i] for i in range(p)]

    if nccl_uid is not None:
        from .nccl_transport import NcclTransport, communicator  # noqa: PLC0415

        exchange = NcclTransport(communicator(nccl_uid, p, q), schedule, q).exchange
    else:
        exchange = exchange_dask

    t_start = time.perf_counter()
    state = program.init(shard)
    report = program.initial_report(shard, state)
    t_init = time.perf_counter()
    records = []
    step = 0
    last = time.perf_counter()
    while not program.converged(report, step):
        if max_supersteps is not None and step >= max_supersteps:
            break
        ctx = StepContext(step, report, p)
        contributions = exchange(program.superstep(shard, state, ctx), step)
        report = program.receive(shard, state, contributions, ctx)
        if q == 0:
            now = time.perf_counter()
            records.append({"superstep": step, **report,
                            "bytes_exchanged": bytes_moved(schedule, [c.nbytes() for c in contributions]),
                            "time_s": now - last})
            last = now
        step += 1
    t_loop = time.perf_counter()
    final = program.final_contribution(shard, state)
    if final is not None:
        program.final_receive(shard, state, exchange(final, "final"))
    if q == 0 or not program.replicated_result:
        _results(worker)[(run, q)] = program.finish(shard, state)
    t_end = time.perf_counter()
    phases = {"init_s": t_init - t_start, "loop_s": t_loop - t_init, "final_s": t_end - t_loop}
    return records, phases


def _results(worker):
    """Finished shards' results on this worker, until their _take_result task picks them up."""
    box = getattr(worker, "_dgraph_results", None)
    if box is None:
        box = worker._dgraph_results = {}
    return box


def _take_result(summary, run, q):
    """The result _spmd_main left for (run, q): a Dask-held value from here on (``summary`` orders
    this task after it)."""
    from distributed import get_worker  # noqa: PLC0415

    return _results(get_worker()).pop((run, q))


# -- on the client -------------------------------------------------------------------------

_NCCL_IDS = {}


def _nccl_uid(client, placement):
    """A NCCL unique id for this placement, made once on its first worker and reused."""
    from .nccl_transport import unique_id  # noqa: PLC0415

    key = tuple(placement)
    if key not in _NCCL_IDS:
        _NCCL_IDS[key] = client.submit(unique_id, workers=[placement[0]], pure=False).result()
    return _NCCL_IDS[key]


def choose_transport(PG, transport):
    """'nccl' for CuPy shards on distinct workers (one GPU each) when asked or by default; else 'dask'."""
    from ..errors import InputError  # noqa: PLC0415

    if transport not in ("auto", "dask", "nccl"):
        raise InputError(f"transport={transport!r}: expected 'auto', 'dask' or 'nccl'")
    one_per_worker = len(set(PG.workers)) == PG.num_parts
    if transport == "nccl" and (PG.backend != "cupy" or not one_per_worker):
        raise InputError("transport='nccl' needs CuPy shards, one per worker (one GPU each)")
    if transport == "auto":
        return "nccl" if (PG.backend == "cupy" and one_per_worker and PG.num_parts > 1) else "dask"
    return transport


def run_spmd(program, PG, schedule, *, on_step=None, max_supersteps=None, timeout=120.0, poll=0.2,
             transport="auto"):
    from distributed import wait  # noqa: PLC0415

    from ..cluster import worker_addresses  # noqa: PLC0415

    t_begin = time.perf_counter()
    client = PG.client
    PG.ensure_shards()
    placement = list(PG.workers)
    installed = getattr(client, "_dgraph_spmd_installed", set())
    if not set(placement) <= installed:  # the message handler, once per worker
        client.run(_install, workers=sorted(set(placement)))
        client._dgraph_spmd_installed = installed | set(placement)
    run = uuid.uuid4().hex[:12]
    p = PG.num_parts
    transport = choose_transport(PG, transport)
    uid = _nccl_uid(client, placement) if transport == "nccl" else None
    futures = [client.submit(_spmd_main, program, PG.shards[q], schedule, placement, run, max_supersteps,
                             timeout, uid, key=f"{program.name}-spmd-p{q}-{run}", workers=[placement[q]],
                             allow_other_workers=False, pure=False, retries=0)
               for q in range(p)]
    # submitted now, so each runs on its worker as soon as its main task ends (no extra round trip)
    parts = [0] if program.replicated_result else range(p)
    results = [client.submit(_take_result, futures[q], run, q, pure=False, workers=[placement[q]],
                             key=f"{program.name}-spmd-result-p{q}-{run}") for q in parts]
    t_submit = time.perf_counter()
    ok = False
    try:
        checked = time.monotonic()
        while True:
            pending = [f for f in futures if not f.done()]
            if pending:
                try:
                    wait(pending, timeout=poll, return_when="FIRST_COMPLETED")
                except Exception:  # noqa: BLE001 - a timeout, or futures cancelled: examined below
                    pass
            pending = [f for f in futures if not f.done()]
            failed = [f for f in futures if f.status in ("error", "cancelled", "lost")]
            if failed or (pending and time.monotonic() - checked > 1.0):
                checked = time.monotonic()
                lost = sorted(set(placement) - set(worker_addresses(client)))
                if lost:
                    _NCCL_IDS.pop(tuple(placement), None)
                    client._dgraph_spmd_installed = set()
                    parts = [q for q in range(p) if placement[q] in lost]
                    raise WorkerLostError(f"worker {', '.join(lost)} (partitions {parts}) left the cluster "
                                          f"during an spmd run; the run was cancelled. Run it again: the lost "
                                          f"shards are rebuilt on the remaining workers first")
            if failed:
                f = failed[0]
                q = futures.index(f)
                exc = f.exception() if f.status == "error" else None
                if isinstance(exc, ExecutorError):
                    raise ExecutorError(str(exc)) from None
                raise ExecutorError(f"spmd run failed on partition {q} (worker {placement[q]}): "
                                    f"{type(exc).__name__ + ': ' + str(exc) if exc else f.status}") from None
            if not pending:
                break
        summaries = client.gather(futures)
        ok = True
    finally:
        if not ok:  # stop the other tasks, drop what they left in the mailboxes and result stashes
            client.cancel([f for f in futures if not f.done()] + results)
            try:
                client.run(_drop_run, run=run)
            except Exception:  # noqa: BLE001 - cleanup must not hide the real error
                pass
    records, phases = summaries[0]
    t_done = time.perf_counter()
    worst = {k: max(s[1][k] for s in summaries) for k in phases}
    timing = {"launch_s": (t_done - t_submit) - worst["init_s"] - worst["loop_s"] - worst["final_s"],
              "submit_s": t_submit - t_begin, **worst}
    for record in records:
        record["transport"] = transport
    if on_step is not None:
        for record in records:
            on_step(record)
    return results, records, timing  # results stay on the workers until the Result is read
