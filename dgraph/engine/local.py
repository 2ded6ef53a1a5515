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

from .program import StepContext

_MANY = 1 << 30


def run_local(program, shards, *, max_supersteps=None, on_step=None, sync=None):
    """Run ``program`` over ``shards``; returns ``(per-shard results, stats records)``.

    ``on_step(record)`` is called after every superstep (progress display);
    ``sync()`` is called before reading the clock so GPU time is real time (not after a
    ``run_steps`` batch of a program with ``steps_timed``: it timed its steps by its own reads).
    """
    p = len(shards)
    states = [program.init(s) for s in shards]
    report = program.initial_report(shards[0], states[0])
    records = []
    step = 0
    while not program.converged(report, step):
        if max_supersteps is not None and step >= max_supersteps:
            break
        t0 = time.perf_counter()
        ctx = StepContext(step, report, p)
        batch = None
        if p == 1:
            left = _MANY if max_supersteps is None else max_supersteps - step
            batch = program.run_steps(shards[0], states[0], ctx, left)
        if batch:
            if sync is not None and not getattr(program, "steps_timed", False):
                sync()
            spare = max(0.0, time.perf_counter() - t0 - sum(t for _, t in batch))  # launch and read-back
            for i, (rep, seconds) in enumerate(batch):
                record = {"superstep": step, **rep, "time_s": seconds + (spare if i == 0 else 0.0)}
                records.append(record)
                if on_step is not None:
                    on_step(record)
                step += 1
            report = batch[-1][0]
            continue
        contribs = [program.superstep(s, st, ctx) for s, st in zip(shards, states)]
        reports = [program.receive(s, st, contribs, ctx) for s, st in zip(shards, states)]
        report = reports[0]
        if sync is not None:
            sync()
        record = {"superstep": step, **report, "time_s": time.perf_counter() - t0}
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
