"""The ``tasks`` executor: every superstep is a Dask task graph.

Per superstep, one step task per shard (``bfs-step-s7-p3``): it merges what
every shard contributed in the previous superstep (the receive of superstep
6, producing its report) and runs this superstep's frontier kernels (the
advance of superstep 7), returning its report and its contribution.  Between
the step tasks of two supersteps sit the exchange tasks of the schedule: a
merge task per receiver for every round but the last
(``bfs-merge-s7-r0-p3``), and a select task on a sender only when it
forwards part of what it holds (``bfs-send-s7-r0-p3to1``).  At p = 2, or with
all-to-all, a superstep is one task level: one scheduler round trip, the
floor of this executor.  All of it is visible in the dashboard, grouped by
name (``bfs-step``, ``bfs-merge``, ...; Dask's key_split, which drops any
8-letter word that starts like a hex token: "exchange" grouped as a bare
"bfs").

A shard's state never leaves its worker: the first task of a run (``init``)
keeps it in the worker's memory under the run's token, every later task of
that shard (pinned to the same worker) reads and updates it there, and the
``finish`` task removes it.  Only reports and contributions travel.  Every
shard computes the same report; the client fetches shard 0's through a tiny
task.  Several supersteps are submitted per round trip (``lookahead``): a
step that finds the program already converged does nothing.

A lost worker costs a retry, not the run.  Dask cannot redo a superstep on
its own (a shard's state lives on its worker), so every wait also watches
the scheduler's worker list (:mod:`dgraph.engine.faults`); when a worker of
the run is gone, the run is dropped, the lost shards are rebuilt on the
workers left (:meth:`~dgraph.partition.partitioned.PartitionedGraph.ensure_shards`)
and the run starts again from superstep 0, up to ``retries`` times (the
supersteps already reported to ``on_step`` are not reported twice).  Then
:class:`~dgraph.errors.WorkerLostError`, and the graph's next run rebuilds.

The client's :mod:`dgraph.config` (the options it changed) goes with every task that calls the
program, which runs under it on the worker (:meth:`~dgraph.config.Config.applied`).
"""

from __future__ import annotations

import time
import uuid
from collections import deque

from .. import startup
from ..config import config
from ..errors import WorkerLostError
from .faults import gather_or_lost, run_quietly, wait_or_lost
from .program import StepContext


def _states():
    from distributed import get_worker  # noqa: PLC0415

    w = get_worker()
    box = getattr(w, "_dgraph_task_states", None)
    if box is None:
        box = w._dgraph_task_states = {}
    return box


def _init(program, shard, token, settings):
    """Keep the shard's state on its worker; -> the report before superstep 0 (no contribution yet)."""
    c0 = startup.seconds()
    if shard.backend == "numpy" and shard.n:
        startup.import_timed("dgraph.backend.cpu_kernels")  # numba, once a worker process: start-up
    with config.applied(settings):
        state = program.init(shard)
        report = program.initial_report(shard, state)
    _states()[token, shard.part] = state
    return {"report": report, "parts": None, "startup_s": startup.seconds() - c0}


def _step(program, shard, token, step, p, schedule, receive_only, settings, mine, *received):
    """:func:`_step_under` under the client's config ``settings``."""
    with config.applied(settings):
        return _step_under(program, shard, token, step, p, schedule, receive_only, mine, *received)


def _step_under(program, shard, token, step, p, schedule, receive_only, mine, *received):
    """Receive superstep ``step - 1`` (when there was one), then run superstep ``step`` (unless
    ``receive_only``: the run stops at max_supersteps).

    -> {"report": the report the superstep ran with (after the receive), "parts": {part: contribution}};
    parts is None once the program has converged (later steps then do nothing)."""
    report = mine["report"]
    if mine["parts"] is None and step > 0:  # converged before: nothing to do (the state may be gone)
        return {"report": dict(report, _skipped=True), "parts": None}
    # start-up (numba import, kernels loaded or compiled) in this task and the one before, taken out of
    # the superstep it happened in by the client (shard 0's: every worker starts up alike, at once)
    spent = mine.get("startup_s", 0.0) - startup.seconds()
    state = _states()[token, shard.part]
    if mine["parts"] is not None:  # superstep step-1 ran: merge every shard's contribution
        held = _merge(mine, *received)
        contributions = [held[q] for q in range(p)]
        from ..exchange import bytes_moved  # noqa: PLC0415

        report = program.receive(shard, state, contributions, StepContext(step - 1, report, p))
        report["bytes_exchanged"] = bytes_moved(schedule, [c.nbytes() for c in contributions])
        report["_finished_at"] = time.time()
        report["_startup_s"], spent = spent + startup.seconds(), -startup.seconds()
    if receive_only or program.converged(report, step):
        return {"report": report, "parts": None}
    parts = {shard.part: program.superstep(shard, state, StepContext(step, report, p))}
    return {"report": report, "parts": parts, "startup_s": spent + startup.seconds()}


def _select(held, origins):
    """The part of what a sender holds that one transfer forwards.

    ``parts`` is None after the program converged (a step submitted ahead of the convergence
    test did nothing): then there is nothing to forward, and the receivers' steps skip too."""
    parts = held["parts"]
    return {"report": None, "parts": None if parts is None else {o: parts[o] for o in origins}}


def _merge(*outs):
    merged = {}
    for out in outs:
        merged.update(out["parts"] or {})
    return merged


def _merge_task(*outs):
    """A round's merge on a receiver; None (converged, nothing sent) stays None for the next round's
    selects (issue 21, item 13: a forwarding select of a converged step raised KeyError)."""
    if all(out["parts"] is None for out in outs):
        return {"report": None, "parts": None}
    return {"report": None, "parts": _merge(*outs)}


def _report(out):
    return out["report"]


def _final(program, shard, token, settings):
    with config.applied(settings):
        part = program.final_contribution(shard, _states()[token, shard.part])
    return {"report": None, "parts": {shard.part: part}}


def _finish(program, shard, token, p, settings, *outs):
    state = _states().pop((token, shard.part))
    held = _merge(*outs)
    finals = [held[q] for q in range(p)]
    with config.applied(settings):
        if finals[shard.part] is not None:
            program.final_receive(shard, state, finals)
        return program.finish(shard, state)


def _drop_state(shard, token, after):
    _states().pop((token, shard.part), None)


def _forget(dask_worker, token):
    box = getattr(dask_worker, "_dgraph_task_states", {})
    for key in [k for k in box if k[0] == token]:
        del box[key]


def run_tasks(program, PG, schedule, *, on_step=None, max_supersteps=None, lookahead=8, retries=2):
    """Run ``program`` over ``PG``'s shards as Dask tasks; -> (result futures, stats records).

    A worker lost during the run costs a retry from superstep 0 on rebuilt
    shards, at most ``retries`` times; then WorkerLostError (see the module
    docstring)."""
    reported = [0]  # supersteps passed to on_step so far, over every attempt

    def on_record(rec):
        if rec["superstep"] >= reported[0]:
            reported[0] = rec["superstep"] + 1
            if on_step is not None:
                on_step(rec)

    for attempt in range(retries + 1):
        PG.ensure_shards(check=attempt > 0 or None)
        try:
            return _run_once(program, PG, schedule, on_record, max_supersteps, lookahead)
        except WorkerLostError:
            PG.suspect_loss()
            if attempt == retries:
                raise


def _run_once(program, PG, schedule, on_step, max_supersteps, lookahead):
    client = PG.client
    p = PG.num_parts
    token = uuid.uuid4().hex[:8]
    name = program.name
    shards, workers = list(PG.shards), list(PG.workers)
    settings = config.snapshot(changed=True)  # the program runs under the client's config on the workers

    def gather(futures):
        """The futures' values; WorkerLostError as soon as a worker of the run is gone (no hang)."""
        wait_or_lost(client, futures, workers, f"the {name} run")
        return gather_or_lost(client, futures, workers, f"the {name} run")

    def submit(fn, *args, key, q):
        return client.submit(fn, *args, key=f"{key}-{token}", workers=[workers[q]], allow_other_workers=False,
                             pure=False, retries=0)

    def exchange(own, tag):
        """The schedule as tasks; -> per partition, the futures its consumer merges (its own first)."""
        held = list(own)
        holds = [{q} for q in range(p)]
        parts = [[own[q]] for q in range(p)]
        for k, rnd in enumerate(schedule.rounds):
            incoming = {dst: [] for dst in range(p)}
            for t in rnd:
                whole = set(t.origins) == holds[t.src]
                incoming[t.dst].append(held[t.src] if whole else submit(
                    _select, held[t.src], t.origins, key=f"{name}-send-{tag}-r{k}-p{t.src}to{t.dst}", q=t.src))
            for t in rnd:
                holds[t.dst] |= set(t.origins)
            last = k == len(schedule.rounds) - 1
            for q in range(p):
                if incoming[q]:
                    parts[q] = [held[q], *incoming[q]]
                    if not last:
                        held[q] = submit(_merge_task, *parts[q], key=f"{name}-merge-{tag}-r{k}-p{q}", q=q)
                        parts[q] = [held[q]]
        return parts

    ok = False
    try:
        outs = [submit(_init, program, shards[q], token, settings, key=f"{name}-init-p{q}", q=q) for q in range(p)]
        received = [[] for _ in range(p)]
        records = []
        last_finish = time.time()

        def submit_step(step, receive_only=False):
            nonlocal outs, received
            outs = [submit(_step, program, shards[q], token, step, p, schedule, receive_only, settings, outs[q],
                           *received[q], key=f"{name}-step-s{step}-p{q}", q=q) for q in range(p)]
            received = exchange(outs, f"s{step}")  # per shard: its own output or a merge holding it, then the rest
            return submit(_report, outs[0], key=f"{name}-report-s{step}", q=0)

        def record(superstep, rep):
            nonlocal last_finish
            finished, spent = rep.pop("_finished_at"), rep.pop("_startup_s", 0.0)
            startup.charge(spent)  # a phase of its own (engine/run.py), not run time
            rec = {"superstep": superstep, **rep, "time_s": finished - last_finish - spent}
            last_finish = finished
            records.append(rec)
            if on_step is not None:
                on_step(rec)

        step = 0
        done = False
        in_flight = deque()  # (first step, report futures): two batches ahead of the one being read
        while not done:
            while len(in_flight) < 2 and (max_supersteps is None or step < max_supersteps):
                first, batch = step, []
                while len(batch) < lookahead and (max_supersteps is None or step < max_supersteps):
                    batch.append(submit_step(step))
                    step += 1
                in_flight.append((first, batch))
            if not in_flight:
                break
            first, batch = in_flight.popleft()
            # the report of step task s is superstep s-1's, received at the start of step s
            for s, rep in zip(range(first, first + len(batch)), gather(batch)):
                if rep.get("_skipped"):
                    done = True
                    break
                if s > 0:
                    record(s - 1, rep)
                if program.converged(rep, s):
                    done = True
                    break
        if not done:  # stopped at max_supersteps: receive the last superstep that ran
            [rep] = gather([submit_step(step, receive_only=True)])
            if not rep.get("_skipped") and step > 0:
                record(step - 1, rep)
        finals = [submit(_final, program, shards[q], token, settings, key=f"{name}-final-p{q}", q=q) for q in range(p)]
        parts = exchange(finals, "final")
        qs = [0] if program.replicated_result else list(range(p))
        results = [submit(_finish, program, shards[q], token, p, settings, *parts[q], key=f"{name}-finish-p{q}",
                          q=q)
                   for q in qs]
        from distributed import fire_and_forget  # noqa: PLC0415

        for q in range(p):
            if q not in qs:  # shards whose result is not needed: drop their state
                fire_and_forget(submit(_drop_state, shards[q], token, finals[q], key=f"{name}-drop-p{q}", q=q))
        wait_or_lost(client, results, workers, f"the {name} run")  # they stay on the workers until read
        for f in results:
            if f.status != "finished":
                gather([f])  # raises the task's own error
        ok = True
    finally:
        if not ok:  # drop every shard's state of this run (in the background: a worker may be dead)
            run_quietly(client, _forget, token=token)
    return results, records
