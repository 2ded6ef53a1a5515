"""The ``spmd`` executor: one long-running Dask task per shard, direct worker-to-worker exchange.

Each shard's task runs the whole BSP loop on its worker.  Contributions
travel straight to the partitions the exchange schedule names, as messages
to a handler installed on every worker (Dask's worker comm: TCP, or UCX
when the cluster uses it, which moves CuPy arrays GPU to GPU), so no
superstep waits on the scheduler.  Every task computes the same report
from the same contributions, so convergence needs no extra round trip.

How a run starts (``dgraph.config.spmd_launch``, or ``launch=``):

- ``lane`` (the default): as ``direct``, but the request and the reply go
  over the client's own connection to a resident thread on each worker
  (:mod:`dgraph.engine.lane`), which runs the loop itself: no event loop
  of the client's or the worker's on the way.  Where a cluster has no lane
  (``tls://``, a host the client cannot reach) the run goes ``direct``.
- ``direct``: the client calls every shard's worker straight
  (Dask's worker RPC, no scheduler); the worker runs the loop in a thread of
  its own beside the shard it already holds and answers with the records.
  A run then costs the supersteps plus about one client-worker round trip,
  instead of the scheduler's task launch and completion messages (some
  10 ms: Dask batches them).  The results stay on the workers until the
  Result is read.  Each shard still shows in the dashboard's task stream,
  as ``bfs-spmd-p0-<run>``, once its loop ends (:mod:`dgraph.engine.dashboard`:
  one event per shard and run, nothing per superstep).
- ``task``: one Dask task per shard (in the dashboard as
  ``bfs-spmd-p0-<run>``), results picked up by tasks queued behind them.

With an ``on_step`` callback (a progress bar), shard 0 keeps its superstep
records in a small buffer on its worker as they end, and the client, while
it waits, fetches the new ones every ``poll`` s (the ``dgraph_spmd_records``
handler) and passes each to ``on_step`` once, in order, on its own thread.
Without one, nothing of that runs: no buffer, no call.

Either way, the client's :mod:`dgraph.config` travels with the run (the options it changed from
their defaults) and each shard's loop runs under it (:meth:`~dgraph.config.Config.applied`), so
``dgraph.config.override(profile_supersteps=True)`` on the client profiles the workers' supersteps.

Either way, a failure on one shard, a peer that stops answering
(``timeout``), or a worker that leaves the cluster cancels the whole run
with an :class:`~dgraph.errors.ExecutorError`
(:class:`~dgraph.errors.WorkerLostError` for a lost worker); running again
starts from the beginning (lost shards are rebuilt first).  A lost worker is
noticed within about a second, whatever the shards were doing: while it
waits, the client reads the scheduler's worker list every
``faults.CHECK_EVERY_S`` (a call to a dead worker, or a shard's send to a
dead peer, would retry its connection for Dask's 30 s connect timeout), and
a shard's sends give up as soon as the run is cancelled.

After a failed run on CuPy shards, the run's workers' GPUs are checked and
a worker whose CUDA context the failure broke (a sticky CUDA error) is
restarted; the error is then a :class:`~dgraph.errors.WorkerRestartedError`
that names it (:mod:`dgraph.engine.health`).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
import uuid
import weakref

from ..config import config
from ..errors import ExecutorError, InputError, WorkerLostError
from . import faults, health
from .program import Contribution, StepContext, sum_counts
from .worker_state import kept

#: how a run may start (``dgraph.config.spmd_launch``; the module docstring says what each is)
LAUNCHES = ("lane", "direct", "task")
HANDLER = "dgraph_spmd_put"
RUN, DROP = "dgraph_spmd_run", "dgraph_spmd_drop"
#: the cheap handler the client polls while a run goes, for shard 0's new superstep records (on_step)
RECORDS = "dgraph_spmd_records"


# -- on the workers ------------------------------------------------------------------------

class Mailbox:
    """Messages for the spmd runs on one worker, keyed by (run, step, round, src, dst)."""

    def __init__(self):
        self.cond = threading.Condition()
        self.items = {}
        self.cancelled = set()

    def put(self, key, payload):
        with self.cond:
            self.items[key] = payload
            self.cond.notify_all()

    def take(self, key, timeout):
        """The message under ``key``; None after ``timeout`` s; Cancelled once its run is cancelled."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while key not in self.items:
                if key[0] in self.cancelled:
                    raise Cancelled(key[0])
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self.cond.wait(min(left, 1.0))
            return self.items.pop(key)

    def cancel(self, run):
        with self.cond:
            self.cancelled.add(run)
            self.cond.notify_all()

    def drop_run(self, run):
        with self.cond:
            for key in [k for k in self.items if k[0] == run]:
                del self.items[key]


class Cancelled(Exception):
    """The run was cancelled while this shard waited for a peer (another shard failed)."""


def _mailbox(worker):
    return kept(worker, "_dgraph_mailbox", Mailbox)


def _install(dask_worker):
    """Install the message and direct-launch handlers on a worker (idempotent)."""
    box = _mailbox(dask_worker)

    def put(comm=None, key=None, payload=None):
        box.put(tuple(key), payload)

    async def run(comm=None, key=None, **kw):
        return await _run_here(dask_worker, key, **kw)

    def drop(comm=None, run=None):
        _drop_run(dask_worker, run)

    def records(comm=None, run=None, start=0):
        from distributed.protocol import to_serialize  # noqa: PLC0415

        return to_serialize(_live(dask_worker).get(run, [])[start:])

    dask_worker.handlers[HANDLER] = put
    dask_worker.handlers[RUN] = run
    dask_worker.handlers[DROP] = drop
    dask_worker.handlers[RECORDS] = records
    return dask_worker.address


def _drop_run(dask_worker, run):
    """Cancel ``run`` here: its mailbox waits end, what it left is dropped, and a NCCL communicator it
    is blocked in is aborted (a peer failed and will never send)."""
    from .nccl_transport import abort  # noqa: PLC0415

    box = _mailbox(dask_worker)
    box.cancel(run)  # before the abort: whatever the abort unblocks sees the run cancelled
    abort(run)
    box.drop_run(run)
    _drop_results(dask_worker, run)
    _live(dask_worker).pop(run, None)


def _drop_results(dask_worker, run):
    """Drop what ``run`` left in this worker's result stash (:func:`_results`)."""
    stash = _results(dask_worker)
    for key in [k for k in stash if k[0] == run]:
        del stash[key]


def _live(worker):
    """Shard 0's superstep records of the runs going on this worker whose client watches them
    (``on_step``), by run: the client fetches the new ones through the RECORDS handler."""
    return kept(worker, "_dgraph_live")


async def _run_here(worker, key, *, job, shard_key, placement, run, part, max_supersteps, timeout, live=False):
    """The direct launch on a worker: the loop in a thread of its own (several shards of one run may
    share this worker and must run at once); -> the reply the client reads.  ``job``: the pickled
    (program, schedule, NCCL id, the client's config); see :func:`_launch_direct`."""
    t_in = time.perf_counter()  # the host's monotonic clock: comparable with the client's on one host
    shard = worker.data[shard_key] if shard_key in worker.data else None
    if shard is None:
        return _not_held(worker, part)
    loop = asyncio.get_running_loop()
    done = loop.create_future()

    def work():
        run_job(worker, shard, job=job, placement=placement, run=run, part=part,
                        max_supersteps=max_supersteps, timeout=timeout, live=live, t_in=t_in,
                        on_reply=lambda r: loop.call_soon_threadsafe(done.set_result, r))

    _threads().submit(work)
    return await done


def _not_held(worker, part):
    return {"status": "error", "type": "ExecutorError",
            "message": f"partition {part} is not held by worker {worker.address} (its shard moved or was "
                       f"released); partition the graph again"}


def run_job(worker, shard, *, job, placement, run, part, max_supersteps, timeout, live, t_in, on_reply):
    """One shard's run, on the thread that calls it (a loop thread of the direct launch, or a lane's
    connection thread, :mod:`dgraph.engine.lane`): the loop under the client's config, then
    ``on_reply(reply)`` with the reply the client reads, then the run's dashboard event."""
    import pickle  # noqa: PLC0415

    from distributed.metrics import time as dask_time  # noqa: PLC0415

    from .dashboard import log_shard  # noqa: PLC0415

    started, t_thread = dask_time(), time.perf_counter()
    program = out = None
    try:
        program, schedule, nccl_uid, settings = pickle.loads(job)
        with config.applied(settings):  # the client's settings, in this loop's thread only
            out = _spmd_loop(worker, program, shard, schedule, placement, run, max_supersteps, timeout,
                             nccl_uid, live)
            profiled = config.profile_supersteps
        reply = {"status": "OK", "records": pickle.dumps(out[0], protocol=5), "phases": out[1], "tallies": out[2]}
        if profiled:  # where the launch goes: handler entry, loop thread, reply
            reply["clock"] = {"in": t_in, "thread": t_thread, "loop_end": t_thread + _spent(out[1]),
                              "out": time.perf_counter()}
    except Cancelled:
        reply = {"status": "cancelled"}
    except Exception as exc:  # noqa: BLE001 - sent back to the client, which raises it as ExecutorError
        reply = {"status": "error", "type": type(exc).__name__, "message": str(exc)}
    finally:
        if part == 0:
            _live(worker).pop(run, None)  # the reply carries every record
    stopped = dask_time()
    on_reply(reply)
    # after the reply is on its way: the event goes to the scheduler, which may share the
    # client's event loop (a LocalCluster) and would handle it before the reply
    log_shard(worker, name=getattr(program, "name", "spmd"), part=part, run=run, start=started, stop=stopped, status=reply["status"],
              supersteps=len(out[0]) if reply["status"] == "OK" and part == 0 else None)
    return reply


def _serve_lane(server, request, reply):
    """A lane's request (:mod:`dgraph.engine.lane`), on its connection thread: the shard's run;
    ``reply`` sends the answer back on the connection (before the dashboard event)."""
    t_in = time.perf_counter()
    shard = server.shard(request.pop("shard_key"))
    if shard is None:
        reply(_not_held(server.worker, request["part"]))
        return
    run_job(server.worker, shard, t_in=t_in, on_reply=reply, **request)


class _Threads:
    """Daemon threads that run the spmd loops of this worker process, kept between runs (starting a
    thread was part of every run's launch).  Every shard of a run needs a thread at once (they wait
    for each other), so a job finding no idle thread starts another.  Daemon: a loop stuck in a
    collective must not hold up the worker's exit."""

    def __init__(self):
        import queue  # noqa: PLC0415

        self.jobs = queue.SimpleQueue()
        self.lock = threading.Lock()
        self.idle = 0

    def submit(self, fn):
        with self.lock:
            if self.idle:
                self.idle -= 1
            else:
                threading.Thread(target=self._serve, name="dgraph-spmd", daemon=True).start()
        self.jobs.put(fn)

    def _serve(self):
        while True:
            fn = self.jobs.get()
            try:
                fn()
            finally:
                with self.lock:
                    self.idle += 1


_POOL = None


def _threads():
    global _POOL
    if _POOL is None:
        _POOL = _Threads()
    return _POOL


def _send_or_cancel(worker, box, run, coro, check_s=0.25):
    """Run the sends ``coro`` on the worker's event loop and wait for them, unless ``run`` is
    cancelled first: a send to a peer that died retries its connection for Dask's whole connect
    timeout (30 s), and the other shards must not wait that long to stop (issue 21, item 14)."""
    import concurrent.futures  # noqa: PLC0415

    fut = asyncio.run_coroutine_threadsafe(coro, worker.loop.asyncio_loop)
    while True:
        try:
            return fut.result(timeout=check_s)
        except concurrent.futures.TimeoutError:
            if run in box.cancelled:
                fut.cancel()
                raise Cancelled(run) from None


def _to_wire(c):
    # plain dicts of arrays, so Dask's serializers see the arrays (CuPy goes device to device)
    return None if c is None else {"arrays": c.arrays, "counters": c.counters}


def _from_wire(d):
    return None if d is None else Contribution(d["arrays"], d["counters"])


def _spmd_main(program, shard, schedule, placement, run, max_supersteps, timeout, nccl_uid=None, live=False,
               settings=None):
    """The task launch: one Dask task per shard runs the loop (under the client's config ``settings``)."""
    from distributed import get_worker, secede  # noqa: PLC0415

    secede()  # several shards may share a worker: none may hold its thread slot
    try:
        with config.applied(settings):
            return _spmd_loop(get_worker(), program, shard, schedule, placement, run, max_supersteps, timeout,
                              nccl_uid, live)
    finally:
        if shard.part == 0:
            _live(get_worker()).pop(run, None)  # the task's value carries every record


def send_messages(worker, msgs, run=None):
    """Put each ``(address, key, payload)`` in the mailbox of the worker at ``address``; from a thread
    of ``worker`` (not its event loop).  One-way: written, no reply awaited.  With ``run``, the sends
    are given up as soon as that run is cancelled (see :func:`_send_or_cancel`)."""
    from distributed.protocol import to_serialize  # noqa: PLC0415
    from distributed.utils import sync  # noqa: PLC0415

    async def send_one(addr, key, payload):
        comm = await worker.rpc.connect(addr)
        try:
            await comm.write({"op": HANDLER, "key": key, "payload": to_serialize(payload), "reply": False})
        finally:
            worker.rpc.reuse(addr, comm)

    async def send_all():
        await asyncio.gather(*[send_one(*m) for m in msgs])

    if not msgs:
        return
    if run is None:
        sync(worker.loop, send_all)
    else:
        _send_or_cancel(worker, _mailbox(worker), run, send_all())


def _spmd_loop(worker, program, shard, schedule, placement, run, max_supersteps, timeout, nccl_uid, live=False):
    """One shard's whole BSP loop on its worker; -> (records (shard 0), phases, the shard's
    ``Program.tally``).  The result is left in the worker's stash under (run, part).  With ``live``,
    shard 0 also puts each record in the run's buffer on its worker as the superstep ends, for the
    client to fetch (RECORDS)."""
    box = _mailbox(worker)
    q, p = shard.part, shard.num_parts
    sends = [[t for t in rnd if t.src == q] for rnd in schedule.rounds]
    recvs = [[t for t in rnd if t.dst == q] for rnd in schedule.rounds]

    def exchange_dask(mine, step):
        """Run the schedule's rounds for one contribution; -> every partition's, in order."""
        held = {q: mine}
        for k in range(schedule.num_rounds):
            msgs = [(placement[t.dst], (run, step, k, t.src, t.dst),
                     {o: _to_wire(held[o]) for o in t.origins}) for t in sends[k]]
            if msgs:
                send_messages(worker, msgs, run=run)
            for t in recvs[k]:
                got = box.take((run, step, k, t.src, q), timeout)
                if got is None:
                    raise ExecutorError(f"spmd run {run}: partition {q} got nothing from partition {t.src} "
                                        f"(worker {placement[t.src]}) for {timeout:.0f} s in superstep {step}; "
                                        f"that worker may have died. Run again (shards are rebuilt), or raise "
                                        f"timeout= if supersteps are that long")
                held.update({o: _from_wire(v) for o, v in got.items()})
        return [held[i] for i in range(p)]

    def gather_dask(mine):
        """Every contribution on shard 0 (None on the others): the final exchange of a replicated
        result, whose other copies nobody reads."""
        if q != 0:
            send_messages(worker, [(placement[0], (run, "final", 0, q, 0), {q: _to_wire(mine)})], run=run)
            return None
        held = {0: mine}
        for src in range(1, p):
            got = box.take((run, "final", 0, src, 0), timeout)
            if got is None:
                raise ExecutorError(f"spmd run {run}: partition 0 got no final contribution from partition "
                                    f"{src} (worker {placement[src]}) for {timeout:.0f} s; that worker may have "
                                    f"died. Run again")
            held.update({o: _from_wire(v) for o, v in got.items()})
        return [held[i] for i in range(p)]

    if nccl_uid is not None:
        from .nccl_transport import NcclTransport, communicator  # noqa: PLC0415

        transport = NcclTransport(communicator(nccl_uid, p, q, job=run), schedule, q)
        exchange, gather, share = transport.exchange, transport.gather, transport.share
        bounds = shard.range_bounds()
        gather_ranges = (lambda array: transport.gather_ranges(array, bounds)) if bounds is not None else None
    else:
        exchange, gather, share, gather_ranges = exchange_dask, gather_dask, None, None
    steps_too = share is not None and getattr(program, "partitioned_steps", False)

    if config.profile_supersteps:  # each superstep's time split into kernel_s, exchange_s, receive_s
        wait = shard.xp.cuda.get_current_stream().synchronize if shard.backend == "cupy" else (lambda: None)

        def profile():
            wait()
            return time.perf_counter()
    else:
        def profile():
            return None

    from ..startup import import_timed, seconds as startup_seconds  # noqa: PLC0415

    c_start, t_start = startup_seconds(), time.perf_counter()
    if shard.backend == "numpy" and shard.n:
        import_timed("dgraph.jit")  # numba, once a worker process: start-up
    state = program.init(shard)
    report = program.initial_report(shard, state)
    c_init, t_init = startup_seconds(), time.perf_counter()
    records = []
    feed = _live(worker).setdefault(run, []) if live and q == 0 else None
    step = 0
    busy = 0.0  # profiling: this shard's own time in its kernels (the load balance across shards)
    last, c_last = time.perf_counter(), startup_seconds()
    while not program.converged(report, step):
        if max_supersteps is not None and step >= max_supersteps:
            break
        ctx = StepContext(step, report, p, fixed_exchange=nccl_uid is not None, share=share,
                          routed_exchange=nccl_uid is not None, gather_ranges=gather_ranges)
        batch = None
        if steps_too:  # levels run on every shard at once, meeting on the devices
            batch = program.run_steps(shard, state, ctx, (1 << 30) if max_supersteps is None else max_supersteps - step)
        if batch:
            busy += sum(got.get("kernel_s", 0.0) for got, _ in batch)
            for got, seconds in batch:
                if q == 0:
                    records.append({"superstep": step, **got, "bytes_exchanged": 0, "time_s": seconds,
                                    "batched": True})
                    if feed is not None:
                        feed.append(records[-1])
                step += 1
            report = batch[-1][0]
            last, c_last = time.perf_counter(), startup_seconds()
            if run in box.cancelled:
                raise Cancelled(run)
            continue
        t_go = profile()
        mine = program.superstep(shard, state, ctx)
        t_kernel = profile()
        if t_kernel is not None:
            busy += t_kernel - t_go
        contributions = exchange(mine, step)
        t_exchange = profile()
        try:
            report = program.receive(shard, state, contributions, ctx)
        except Exception:  # a collective in the receive (ctx.share) on an aborted communicator
            if run in box.cancelled:
                raise Cancelled(run) from None
            raise
        if run in box.cancelled:  # an aborted NCCL exchange returns what never came: stop before using it
            raise Cancelled(run)
        if q == 0:
            now, c_now = time.perf_counter(), startup_seconds()  # kernels loaded in the superstep: not its time
            records.append({"superstep": step, **report,
                            "bytes_exchanged": _moved(schedule, contributions),
                            "time_s": now - last - (c_now - c_last)})
            c_last = c_now
            if t_kernel is not None:  # where the superstep's time went (each phase waited for)
                records[-1].update(kernel_s=t_kernel - last, exchange_s=t_exchange - t_kernel,
                                   receive_s=profile() - t_exchange)
            if feed is not None:
                feed.append(records[-1])
            last = now
        step += 1
    c_loop, t_loop = startup_seconds(), time.perf_counter()
    dense = getattr(program, "final_min", None)
    dense = dense(shard, state) if (dense is not None and nccl_uid is not None and p > 1) else None
    final = program.final_contribution(shard, state) if dense is None else None
    if dense is not None:  # reconciled by minimum: NCCL reductions (onto shard 0 for a replicated result,
        # each shard's own range onto it where the shards are vertex ranges, else onto every shard)
        if program.replicated_result:
            transport.reduce_min(dense, root=0)
        else:
            transport.reduce_min(dense, bounds=shard.range_bounds())
    elif final is not None:
        if program.replicated_result:  # only shard 0's result is read: gather there
            everyone = gather(final) if p > 1 else [final]
            if everyone is not None:
                program.final_receive(shard, state, everyone)
        else:
            program.final_receive(shard, state, exchange(final, "final"))
    tallies = {}
    if q == 0 or not program.replicated_result:
        result = program.finish(shard, state)
        tallies = program.tally(shard, state, result)
        if shard.backend == "cupy":  # done means the results are made: the last kernels and the final
            shard.xp.cuda.get_current_stream().synchronize()  # reduction count in the run's time
        _results(worker)[(run, q)] = result
    if nccl_uid is not None:
        from .nccl_transport import release  # noqa: PLC0415

        release(run)
    c_end, t_end = startup_seconds(), time.perf_counter()
    # each phase without the start-up spent in it (kernels loaded or compiled), which is a phase of its own
    phases = {"init_s": (t_init - t_start) - (c_init - c_start), "loop_s": (t_loop - t_init) - (c_loop - c_init),
              "final_s": (t_end - t_loop) - (c_end - c_loop), "startup_s": c_end - c_start}
    if config.profile_supersteps:
        phases["kernel_s"] = busy
    return records, phases, tallies


def _moved(schedule, contributions):
    """The bytes a superstep's exchange moved: what the routed contributions' shards sent, else the
    schedule's traffic for contributions of these sizes."""
    from ..exchange import bytes_moved  # noqa: PLC0415

    if any(c.sent is not None for c in contributions):
        return sum(int(c.sent or 0) for c in contributions)
    return bytes_moved(schedule, [c.nbytes() for c in contributions])


def _spent(phases):
    """A shard's seconds in its loop: its phases' sum (``kernel_s``, the kernels' part of the
    supersteps when profiling, is within ``loop_s``)."""
    return sum(v for k, v in phases.items() if k != "kernel_s")


def _results(worker):
    """Finished shards' results on this worker, until their _take_result task picks them up."""
    return kept(worker, "_dgraph_results")


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


class _Turns:
    """Runs over NCCL on one placement take turns: they share its communicator, whose collectives
    must not interleave, and BFS's peer memory on each shard.  Runs from several threads of this
    client wait for each other; a run started from inside another on the same workers (its
    ``on_step``) is refused, where it would wait forever."""

    def __init__(self):
        self.lock = threading.Lock()
        self.turns = {}  # placement -> [lock, the thread holding it]

    @contextlib.contextmanager
    def take(self, placement, transport):
        if transport != "nccl":
            yield
            return
        with self.lock:
            turn = self.turns.setdefault(tuple(placement), [threading.Lock(), None])
        if turn[1] == threading.get_ident():
            raise ExecutorError("an spmd run over NCCL started inside another on the same workers (from its "
                                "on_step?): they share one communicator; start it after the run returns")
        with turn[0]:
            turn[1] = threading.get_ident()
            try:
                yield
            finally:
                turn[1] = None


_TURNS = _Turns()


def choose_transport(PG, transport):
    """'nccl' for CuPy shards on distinct workers (one GPU each) when asked or by default; else 'dask'."""
    if transport not in ("auto", "dask", "nccl"):
        raise InputError(f"transport={transport!r}: expected 'auto', 'dask' or 'nccl'")
    one_per_worker = len(set(PG.workers)) == PG.num_parts
    if transport == "nccl" and (PG.backend != "cupy" or not one_per_worker):
        raise InputError("transport='nccl' needs CuPy shards, one per worker (one GPU each)")
    if transport == "auto":
        return "nccl" if (PG.backend == "cupy" and one_per_worker and PG.num_parts > 1) else "dask"
    return transport


def run_spmd(program, PG, schedule, *, on_step=None, max_supersteps=None, timeout=120.0, poll=0.2,
             transport="auto", launch=None):
    """Run ``program`` over the shards of ``PG``; -> (fetch, records, phases).

    ``fetch()`` returns futures of every shard's result (shard 0's alone for a replicated result),
    on the shards' workers."""
    try:
        return _run_spmd(program, PG, schedule, on_step=on_step, max_supersteps=max_supersteps, timeout=timeout,
                         poll=poll, transport=transport, launch=launch)
    except ExecutorError as exc:
        if isinstance(exc, WorkerLostError):
            PG.suspect_loss()  # the next run looks up every shard and rebuilds the lost ones
        placement = list(PG.workers)  # where the run ran (ensure_shards may have moved shards first)
        restarted = _recover(PG, placement)
        if restarted:
            raise health.restarted_error(exc, restarted, placement) from exc
        raise


def _recover(PG, placement):
    """After a failed run: the run's workers whose GPU no longer works, restarted (see
    :mod:`dgraph.engine.health`), and their handlers and communicators forgotten; -> what
    :func:`health.recover` found."""
    restarted = health.recover(PG, placement)
    if restarted:
        _forget_workers(PG.client, placement)  # new processes: no handlers, no communicators
    return restarted


def _install_handlers(client, placement, lanes=False):
    """The handlers, once per worker; a worker that died before (or while) they went in is a
    WorkerLostError (issue 25: it was a raw CommClosedError).  With ``lanes``, the workers' launch
    lanes too (:func:`_install_lanes`)."""
    installed = getattr(client, "_dgraph_spmd_installed", set())
    if set(placement) <= installed:
        if lanes:
            _install_lanes(client, placement)
        return
    lost = _lost_worker(client, placement)  # a broadcast to a dead address retries its connection for 30 s
    if lost is not None:
        raise lost
    try:
        client.run(_install, workers=sorted(set(placement)))
        from .dashboard import register  # noqa: PLC0415

        register(client)  # direct runs in the dashboard's task stream
    except Exception as exc:
        if not faults.connection_error(exc):
            raise
        lost = _lost_worker(client, placement, faults.SETTLE_S, cause=exc)
        if lost is not None:
            raise lost from None
        raise faults.connection_lost(None, placement, "the spmd run's start", exc) from None
    client._dgraph_spmd_installed = installed | set(placement)
    if lanes:
        _install_lanes(client, placement)


def _install_lane(dask_worker, key):
    from .lane import open_server  # noqa: PLC0415

    return open_server(dask_worker, key, _serve_lane)


def _install_lanes(client, placement):
    """Each worker's lane for this client (:mod:`dgraph.engine.lane`), once; a worker where none
    opens (an encrypted cluster, a refused bind) keeps the RPC launch, and says why in the log."""
    from .lane import Lanes  # noqa: PLC0415

    lanes = getattr(client, "_dgraph_lanes", None)
    if lanes is None:
        lanes = client._dgraph_lanes = Lanes()
    missing = sorted({w for w in placement if w not in lanes.endpoints})
    if not missing:
        return
    try:
        got = client.run(_install_lane, key=lanes.key, workers=missing)
    except Exception as exc:  # noqa: BLE001 - no lane: the run goes through the RPC launch
        from ..log import logger  # noqa: PLC0415

        logger.debug("no spmd launch lane on %s (%s: %s)", missing, type(exc).__name__, exc)
        got = {}
    for w in missing:
        lanes.endpoints[w] = got.get(w)


def _run_spmd(program, PG, schedule, *, on_step, max_supersteps, timeout, poll, transport, launch):
    launch = launch or config.spmd_launch
    if launch not in LAUNCHES:
        raise InputError(f"launch={launch!r}: expected one of {', '.join(map(repr, LAUNCHES))} "
                         f"(dgraph.config.spmd_launch)")
    t_begin = time.perf_counter()
    client = PG.client
    PG.ensure_shards()
    placement = list(PG.workers)
    _install_handlers(client, placement, lanes=launch == "lane")
    run = uuid.uuid4().hex[:12]
    transport = choose_transport(PG, transport)
    uid = _nccl_uid(client, placement) if transport == "nccl" else None
    parts = [0] if program.replicated_result else list(range(PG.num_parts))
    args = (program, schedule, placement, run, max_supersteps, timeout, uid)
    go = {"lane": _launch_lane, "direct": _launch_direct, "task": _launch_tasks}[launch]
    feed = _Feed(client, placement[0], run, on_step, transport) if on_step is not None else None
    settings = config.snapshot(changed=True)  # the workers run under the client's config
    with _TURNS.take(placement, transport):
        fetch, summaries, t_submit = go(client, PG, parts, poll, *args, feed=feed, settings=settings)
    records, phases = summaries[0]
    t_done = time.perf_counter()
    split = {k: phases.pop(k) for k in list(phases) if k.startswith("launch_")}  # profiling: see _launch_direct
    for q, (_, theirs) in enumerate(summaries):  # profiling: each shard's own time in its kernels
        if "kernel_s" in theirs:
            split[f"kernel_s_{q}"] = theirs.pop("kernel_s")
    worst = {k: max(s[1][k] for s in summaries) for k in phases}
    # launch: the wall time from submit to the last reply less the busiest worker's own time.  (Not
    # less the sum of each phase's worst, whose parts can come from different workers and add up to
    # more than any one of them spent: that gave negative launch times.)
    busiest = max(_spent(s[1]) for s in summaries)
    timing = {"launch_s": max(0.0, (t_done - t_submit) - busiest), "submit_s": t_submit - t_begin, **worst, **split}
    for record in records:
        record["transport"] = transport
    if feed is not None:
        feed.finish(records)  # those not passed on while the run went
    return fetch, records, timing  # results stay on the workers until the Result is read


class _Feed:
    """Shard 0's superstep records passed to ``on_step`` while the run goes, each once, in order.

    Only when ``on_step`` is set: shard 0 then keeps its records in a buffer on its worker (no
    message per superstep), and the client, while it waits for the run, fetches the new ones every
    ``poll`` s through the RECORDS handler (one small call to one worker); what is left when the
    run ends comes from its final reply.  ``on_step`` runs on the thread that started the run."""

    #: seconds a fetch may take before it is skipped (a dead worker's connection retries for 30 s)
    FETCH_S = 2.0

    def __init__(self, client, address, run, on_step, transport):
        self.client, self.address, self.run, self.on_step, self.transport = client, address, run, on_step, transport
        self.seen = 0

    def fetch(self):
        """Pass on the records shard 0 finished since the last fetch; none when its worker does not
        answer (the run's own wait notices a lost worker)."""
        async def new_records():
            call = self.client.rpc(self.address).dgraph_spmd_records(run=self.run, start=self.seen)
            return await asyncio.wait_for(call, self.FETCH_S)

        try:
            new = self.client.sync(new_records)
        except Exception:  # noqa: BLE001 - progress only: the run decides what failed
            return
        self._pass(new)

    def finish(self, records):
        self._pass(records[self.seen:])

    def _pass(self, new):
        for record in new:
            record["transport"] = self.transport
            self.seen += 1
            self.on_step(record)

    def wait(self, coro, poll):
        """``coro`` run on the client's event loop to its end (-> its value), fetching the new
        records every ``poll`` s meanwhile; it is cancelled if this thread stops (on_step raised)."""
        import concurrent.futures  # noqa: PLC0415

        fut = asyncio.run_coroutine_threadsafe(coro, self.client.loop.asyncio_loop)
        try:
            while True:
                try:
                    return fut.result(timeout=poll)
                except concurrent.futures.TimeoutError:
                    self.fetch()
        except BaseException:
            fut.cancel()
            raise


def _lost_worker(client, placement, settle_s=0.0, cause=None):
    """WorkerLostError when a worker of ``placement`` left the cluster, else None (after waiting up
    to ``settle_s`` for the scheduler to see a worker go whose connection broke)."""
    try:
        lost = faults.settle_lost(client, placement, settle_s) if settle_s else faults.lost_workers(client, placement)
    except Exception:  # noqa: BLE001 - the scheduler unreachable: no more to learn
        lost = []
    if not lost:
        return None
    _forget_workers(client, placement)
    return faults.worker_lost(lost, placement, "an spmd run", cause)


def _forget_workers(client, placement):
    """A worker of ``placement`` is gone: its NCCL id and handler bookkeeping are stale."""
    _NCCL_IDS.pop(tuple(placement), None)
    client._dgraph_spmd_installed = set()
    lanes = getattr(client, "_dgraph_lanes", None)
    if lanes is not None:
        lanes.forget()


def _drop_everywhere(client, run):
    """Cancel ``run`` on every live worker and drop what it left, in the background (a dead worker
    must not hold up the error)."""
    faults.run_quietly(client, _drop_run, run=run)


# -- direct launch: client -> worker RPC ------------------------------------------------------

def _request(client, PG, program, schedule, placement, run, max_supersteps, timeout, uid, feed, settings):
    """What every shard's worker is sent to start a direct (or lane) run, once the shards are built:
    the run's arguments, with the program, schedule, NCCL id and settings as one pickled blob (not
    three to_serialize objects: Dask's serializer dispatch per object cost 0.8 ms of a 2 ms launch,
    2-core box, benchmarks/spmd-launch.py).  cloudpickle, as Dask's own pickling: a program may
    hold local functions (EMV programs do)."""
    if not all(f.status == "finished" for f in PG.shards):
        faults.wait_or_lost(client, list(PG.shards), placement, "the spmd run's start")
    import cloudpickle  # noqa: PLC0415

    job = cloudpickle.dumps((program, schedule, uid, settings), protocol=5)
    return dict(job=job, placement=placement, run=run, max_supersteps=max_supersteps, timeout=timeout,
                live=feed is not None)


def _launch_direct(client, PG, parts, poll, program, schedule, placement, run, max_supersteps, timeout, uid,
                   feed=None, settings=None):
    p = PG.num_parts
    common = _request(client, PG, program, schedule, placement, run, max_supersteps, timeout, uid, feed, settings)

    async def call(q):
        return await client.rpc(placement[q]).dgraph_spmd_run(shard_key=PG.shards[q].key, part=q, **common)

    async def all_parts():
        """Every shard's reply (or the exception its call raised), and the workers seen lost.

        While nothing answers, the scheduler's worker list is read every CHECK_EVERY_S: a worker
        that died while its peers wait for it (or while they retry a connection to it) ends the
        run at once.  After the first failure the run is cancelled everywhere and the others get
        DRAIN_S to answer before their calls are given up."""
        tasks = [asyncio.ensure_future(call(q)) for q in range(p)]
        failure, lost, deadline, first = None, [], None, None
        pending = set(tasks)
        while pending:
            wait_s = faults.CHECK_EVERY_S if deadline is None else max(0.0, deadline - time.monotonic())
            done, pending = await asyncio.wait(pending, timeout=wait_s, return_when=asyncio.FIRST_COMPLETED)
            if deadline is not None and time.monotonic() >= deadline:
                break
            if not done and failure is None:
                try:
                    lost = await faults.lost_workers_async(client, placement)
                except Exception:  # noqa: BLE001 - the scheduler unreachable: keep waiting on the workers
                    lost = []
                if not lost:
                    continue
            if failure is None and (lost or any(not _ok(t) for t in done)):
                failure = True
                first = next((q for q, t in enumerate(tasks) if t in done and not _ok(t)), None)
                dead = set(lost) | {placement[q] for q, t in enumerate(tasks)
                                    if t in done and t.exception() is not None}
                await _drop_async(client, set(placement) - dead, run)  # release the peers waiting on it
                for q, t in enumerate(tasks):
                    if placement[q] in dead and not t.done():
                        t.cancel()  # a call to a dead worker may retry its connection for 30 s
                pending = {t for t in pending if not t.cancelled()}
                deadline = time.monotonic() + DRAIN_S
        for t in pending:
            t.cancel()
        return [_outcome(t) for t in tasks], lost, first

    t_submit = time.perf_counter()
    if feed is None:
        replies, seen_lost, first = client.sync(all_parts)
    else:
        try:
            replies, seen_lost, first = feed.wait(all_parts(), poll)
        except BaseException:  # on_step raised (or the user interrupted): stop the run everywhere
            _drop_everywhere(client, run)
            raise
    return _direct_outcome(client, placement, parts, run, uid, replies, seen_lost, first, t_submit)


def _direct_outcome(client, placement, parts, run, uid, replies, seen_lost, first, t_submit):
    """A direct (or lane) launch's replies -> (results, summaries, t_submit); raises the run's error."""
    import pickle  # noqa: PLC0415

    failed = [(q, r) for q, r in enumerate(replies) if not isinstance(r, dict) or r.get("status") != "OK"]
    failed.sort(key=lambda f: f[0] != first)  # the part that failed first-hand: the others stopped for it
    if failed or seen_lost:
        _drop_everywhere(client, run)
        if uid is not None:  # its communicators were aborted: the next run makes new ones
            _NCCL_IDS.pop(tuple(placement), None)
        broken = [(q, r) for q, r in failed if not isinstance(r, dict)]
        cause = broken[0][1] if broken else None
        lost = _lost_worker(client, placement, faults.SETTLE_S if broken else 0.0, cause=cause)
        if lost is not None:
            raise lost
        if broken and faults.connection_error(cause):
            _forget_workers(client, placement)
            raise faults.connection_lost(placement[broken[0][0]], placement, "an spmd run", cause)
        q, r = next(((q, r) for q, r in failed if isinstance(r, dict) and r.get("status") == "error"), failed[0])
        if isinstance(r, dict) and r.get("type") == "ExecutorError":
            raise ExecutorError(r["message"])
        what = f"{r['type']}: {r['message']}" if isinstance(r, dict) and "type" in r else f"{type(r).__name__}: {r}"
        raise ExecutorError(f"spmd run failed on partition {q} (worker {placement[q]}): {what}")
    summaries = [(pickle.loads(r["records"]), r["phases"]) for r in replies]
    fetch = _DirectResults(client, placement, run, parts, sum_counts([r.get("tallies") or {} for r in replies]))
    if all("clock" in r for r in replies):  # profiling: the launch split (one host's clock), on shard 0's phases
        t_done, clocks = time.perf_counter(), [r["clock"] for r in replies]
        summaries[0][1].update(
            launch_request_s=max(c["in"] for c in clocks) - t_submit,
            launch_dispatch_s=max(c["thread"] - c["in"] for c in clocks),
            launch_return_s=max(c["out"] - c["loop_end"] for c in clocks),
            launch_reply_s=t_done - max(c["out"] for c in clocks))
    return fetch, summaries, t_submit


#: after one shard of a direct run failed, seconds the others get to answer the cancellation
DRAIN_S = 5.0


# -- lane launch: the client's own sockets to resident threads on the workers --------------------

def _launch_lane(client, PG, parts, poll, program, schedule, placement, run, max_supersteps, timeout, uid,
                 feed=None, settings=None):
    """The direct launch through the lanes (:mod:`dgraph.engine.lane`); the RPC launch where the
    cluster has none, or one cannot be opened now."""
    import pickle  # noqa: PLC0415

    from .lane import LaneError, send_frame  # noqa: PLC0415

    lanes = getattr(client, "_dgraph_lanes", None)
    args = (client, PG, parts, poll, program, schedule, placement, run, max_supersteps, timeout, uid)
    if lanes is None or not lanes.ready(placement):
        return _launch_direct(*args, feed=feed, settings=settings)
    common = _request(client, PG, program, schedule, placement, run, max_supersteps, timeout, uid, feed, settings)
    try:
        socks = lanes.take(placement)
    except LaneError as exc:
        from ..log import logger  # noqa: PLC0415

        logger.debug("spmd run %s: %s; launching through Dask's RPC", run, exc)
        lanes.forget(placement)
        return _launch_direct(*args, feed=feed, settings=settings)
    replies = [None] * PG.num_parts
    t_submit = time.perf_counter()
    try:
        for q, sock in enumerate(socks):
            send_frame(sock, pickle.dumps({"shard_key": PG.shards[q].key, "part": q, **common}, protocol=5))
        seen_lost, first = _lane_wait(client, placement, run, dict(zip(socks, range(len(socks)))), replies,
                                      feed, poll)
    except BaseException:  # on_step raised, a send failed, or the user interrupted: stop it everywhere
        lanes.discard(socks)
        _drop_everywhere(client, run)
        raise
    whole = [isinstance(r, dict) for r in replies]  # a reply read in full: its lane can take the next run
    lanes.give_back([w for w, ok in zip(placement, whole) if ok], [s for s, ok in zip(socks, whole) if ok])
    lanes.discard([s for s, ok in zip(socks, whole) if not ok])
    return _direct_outcome(client, placement, parts, run, uid, replies, seen_lost, first, t_submit)


def _lane_wait(client, placement, run, pending, replies, feed, poll):
    """Every shard's reply read from its lane (``pending``: socket -> part) into ``replies`` (the
    exception where a lane broke); -> (workers seen lost, the part that failed first).  As the RPC
    launch's wait: the scheduler's worker list read every CHECK_EVERY_S while nothing answers, the
    others cancelled at the first failure and given DRAIN_S to answer."""
    import pickle  # noqa: PLC0415

    from .lane import recv_frame, wait_readable  # noqa: PLC0415

    failure, lost, deadline, first = False, [], None, None
    next_check = time.monotonic() + faults.CHECK_EVERY_S
    next_poll = time.monotonic() + poll if feed is not None else None
    while pending:
        now = time.monotonic()
        wake = [next_check] + ([next_poll] if next_poll is not None else []) + ([deadline] if deadline else [])
        ready = wait_readable(list(pending), max(0.0, min(wake) - now))
        fresh = []
        for sock in ready:
            q = pending.pop(sock)
            try:
                replies[q] = pickle.loads(recv_frame(sock))
            except Exception as exc:  # noqa: BLE001 - the worker died or closed the lane mid-run
                replies[q] = exc
            fresh.append(q)
        now = time.monotonic()
        if next_poll is not None and now >= next_poll:
            feed.fetch()
            next_poll = now + poll
        if deadline is not None and now >= deadline:
            break
        if not fresh and not failure and now >= next_check:
            next_check = now + faults.CHECK_EVERY_S
            try:
                lost = faults.lost_workers(client, placement)
            except Exception:  # noqa: BLE001 - the scheduler unreachable: keep waiting on the workers
                lost = []
        bad = [q for q in fresh if not (isinstance(replies[q], dict) and replies[q].get("status") == "OK")]
        if not failure and (lost or bad):
            failure, first = True, (bad[0] if bad else None)
            dead = set(lost) | {placement[q] for q in fresh if isinstance(replies[q], BaseException)}
            client.sync(_drop_async, client, set(placement) - dead, run)  # release the peers waiting on it
            for sock, q in list(pending.items()):
                if placement[q] in dead:
                    del pending[sock]  # a dead worker never answers
                    replies[q] = asyncio.CancelledError("no answer from a lost worker")
            deadline = time.monotonic() + DRAIN_S
    for sock, q in pending.items():
        replies[q] = asyncio.CancelledError("no answer after the run was cancelled")
    return lost, first


def _ok(task):
    return task.exception() is None and task.result().get("status") == "OK"


def _outcome(task):
    """A finished call's reply, the exception it raised, or CancelledError when it was given up."""
    if task.cancelled():
        return asyncio.CancelledError("no answer after the run was cancelled")
    return task.exception() or task.result()


class _DirectResults:
    """A direct run's results, left in its workers' stashes: ``()`` makes them Dask futures there
    (one small task per part, no data through the client); dropped there if never asked for."""

    def __init__(self, client, placement, run, parts, tallies=None):
        self.client, self.placement, self.run, self.parts = client, placement, run, parts
        self.tallies = tallies or {}  # Program.tally over the shards
        self._finalizer = weakref.finalize(self, _forget, client, sorted({placement[q] for q in parts}), run)

    def __call__(self):
        futures = [self.client.submit(_claim_result, self.run, q, workers=[self.placement[q]], pure=False,
                                      key=f"dgraph-result-p{q}-{self.run}") for q in self.parts]
        self._finalizer.detach()
        return futures


class _Claimed:
    """A task launch's results: Dask futures already, and the shards' summed tallies."""

    def __init__(self, futures, tallies):
        self.futures, self.tallies = futures, tallies

    def __call__(self):
        return self.futures


def _claim_result(run, q):
    """The result a run left on this worker's stash for part ``q`` (a direct spmd run; a ``tasks`` run
    that finished in a step task): a Dask-held value from here on."""
    from distributed import get_worker  # noqa: PLC0415

    stash = _results(get_worker())
    if (run, q) not in stash:
        raise ExecutorError(f"the results of run {run} are gone from worker {get_worker().address} "
                            f"(partition {q}): that worker restarted; run it again")
    return stash.pop((run, q))


async def _drop_async(client, addresses, run, wait_s=5.0):
    """Tell ``addresses`` to cancel ``run`` and drop what it left; a worker that does not answer
    within ``wait_s`` (it may be the one that died) is skipped."""
    async def one(addr):
        try:
            await asyncio.wait_for(client.rpc(addr).dgraph_spmd_drop(run=run), wait_s)
        except Exception:  # noqa: BLE001
            pass

    await asyncio.gather(*[one(a) for a in addresses])


def _forget(client, addresses, run):
    """A direct run's Result was dropped unread: tell its workers to drop the results (best effort)."""
    try:
        if client.status != "running":
            return

        client.loop.add_callback(_drop_async, client, addresses, run)
    except Exception:  # noqa: BLE001 - at interpreter exit the loop may be gone
        pass


# -- task launch: a Dask task per shard --------------------------------------------------------

def _launch_tasks(client, PG, parts, poll, program, schedule, placement, run, max_supersteps, timeout, uid,
                  feed=None, settings=None):
    from distributed import wait  # noqa: PLC0415

    p = PG.num_parts
    futures = [client.submit(_spmd_main, program, PG.shards[q], schedule, placement, run, max_supersteps,
                             timeout, uid, feed is not None, settings, key=f"{program.name}-spmd-p{q}-{run}",
                             workers=[placement[q]],
                             allow_other_workers=False, pure=False, retries=0)
               for q in range(p)]
    # submitted now, so each runs on its worker as soon as its main task ends (no extra round trip)
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
                    with client.as_current():  # wait() uses the default client
                        wait(pending, timeout=poll, return_when="FIRST_COMPLETED")
                except Exception:  # noqa: BLE001 - a timeout, or futures cancelled: examined below
                    pass
            pending = [f for f in futures if not f.done()]
            if feed is not None and pending:
                feed.fetch()
            failed = [f for f in futures if f.status in ("error", "cancelled", "lost")]
            if failed or (pending and time.monotonic() - checked > 1.0):
                checked = time.monotonic()
                lost = _lost_worker(client, placement)
                if lost is not None:
                    raise lost
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
        tallies = sum_counts([s[2] for s in summaries])
        summaries = [s[:2] for s in summaries]
    finally:
        if not ok:  # stop the other tasks, drop what they left in the mailboxes and result stashes
            client.cancel([f for f in futures if not f.done()] + results)
            _drop_everywhere(client, run)
    fetch = _Claimed(results, tallies)
    return fetch, summaries, t_submit
