"""The ``local`` executor: the whole BSP loop in one process, no Dask.

With one shard it is the fastest path on one GPU or CPU: between
supersteps only the small report dict comes back to Python (one device
sync per superstep).  With several shards it simulates a partitioned run
in one process (every shard receives every contribution, as an exchange
schedule would deliver them), which is how the partitioned logic is tested
without a cluster.
"""

from __future__ import annotations

import time

import numpy as np

from .. import startup
from .program import StepContext
from .records import Records, StepBatch

_MANY = 1 << 30


def run_local(program, shards, *, max_supersteps=None, on_step=None, sync=None):
    """Run ``program`` over ``shards``; returns ``(per-shard results, stats records)`` (the records a
    :class:`~dgraph.engine.records.Records`: a batch returned as a ``StepBatch`` stays columns).

    ``on_step(record)`` is called after every superstep (progress display), also inside a
    ``run_steps`` batch whose program reports its supersteps as they end (``ctx.tick``);
    ``sync()`` is called before reading the clock so GPU time is real time (not after a
    ``run_steps`` batch of a program with ``steps_timed``: it timed its steps by its own reads).
    Start-up time spent inside a superstep (kernel compilation or cache loads,
    :mod:`dgraph.startup`) is taken out of that superstep's ``time_s``.
    """
    p = len(shards)
    states = [program.init(s) for s in shards]
    report = program.initial_report(shards[0], states[0])
    records = Records()
    step = 0
    while not program.converged(report, step):
        if max_supersteps is not None and step >= max_supersteps:
            break
        t0 = time.perf_counter()
        c0 = startup.seconds()
        live = []
        ctx = StepContext(step, report, p, tick=_ticker(step, live, on_step) if on_step is not None else None)
        batch = None
        if p == 1:
            left = _MANY if max_supersteps is None else max_supersteps - step
            batch = program.run_steps(shards[0], states[0], ctx, left)
        if batch:
            if sync is not None and not getattr(program, "steps_timed", False):
                sync()
            spent = startup.seconds() - c0
            columns = isinstance(batch, StepBatch)
            times = _batch_times(batch.seconds if columns else [t for _, t in batch], time.perf_counter() - t0, spent)
            if columns and not live and on_step is None:  # nobody saw them: their dicts are made when read
                records.add_batch(step, batch, times)
                step += len(batch)
                report = batch.report(len(batch) - 1)
                continue
            for i, seconds in enumerate(times):
                record = live[i] if i < len(live) else {"superstep": step}
                record.update(batch[i][0], time_s=float(seconds))
                records.append(record)
                if on_step is not None and i >= len(live):
                    on_step(record)
                step += 1
            report = batch[-1][0]
            continue
        contribs = [program.superstep(s, st, ctx) for s, st in zip(shards, states)]
        reports = [program.receive(s, st, contribs, ctx) for s, st in zip(shards, states)]
        report = reports[0]
        if sync is not None:
            sync()
        record = {"superstep": step, **report, "time_s": time.perf_counter() - t0 - (startup.seconds() - c0)}
        if p > 1:
            record["bytes_exchanged"] = sum(c.nbytes() for c in contribs) * (p - 1)
        records.append(record)
        if on_step is not None:
            on_step(record)
        step += 1
    finals = [program.final_contribution(s, st) for s, st in zip(shards, states)]
    if finals[0] is not None:
        for s, st in zip(shards, states):
            program.final_receive(s, st, finals)
    return [program.finish(s, st) for s, st in zip(shards, states)], records


def _ticker(step, live, on_step):
    """``ctx.tick(report, seconds)`` for a batch starting at superstep ``step``: a record per
    superstep as it ends, shown at once (the batch's own times replace ``time_s`` at its end)."""
    def tick(report, seconds):
        record = {"superstep": step + len(live), **report, "time_s": seconds}
        live.append(record)
        on_step(record)
    return tick


def _batch_times(times, wall, spent):
    """A batch's per-superstep times: what the program timed itself, plus the time it did not see
    (the launch, the read back) on the first superstep, less the start-up ``spent`` inside the
    batch (kernels compiled or loaded).  A program that times its steps with
    :class:`dgraph.startup.Stopwatch` has left start-up out already; from one that has not, the
    start-up comes off the first supersteps (where kernels load), none below zero.  ``times`` a
    list gives a list; a numpy array (a ``StepBatch``'s) gives a new array.
    """
    if isinstance(times, np.ndarray):
        out = np.array(times, dtype=np.float64)
        spare = wall - spent - float(out.sum())
    else:
        out = list(times)
        spare = wall - spent - sum(out)
    if spare >= 0:
        out[0] += spare
        return out
    excess = min(-spare, spent)
    for i, t in enumerate(out):
        cut = min(t, excess)
        out[i] = t - cut
        excess -= cut
        if excess <= 0:
            break
    return out
