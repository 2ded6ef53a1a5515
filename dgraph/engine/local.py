"""The ``local`` executor: the whole BSP loop in one process, no Dask.

The fastest path on one GPU or one CPU: between supersteps only the small
report dict comes back to Python (one device sync per superstep).
"""

from __future__ import annotations

import time

from .program import StepContext, combine_reports


def run_local(program, shards, *, max_supersteps=None, on_step=None, sync=None):
    """Run ``program`` over ``shards``; returns ``(per-shard results, stats records)``.

    ``on_step(record)`` is called after every superstep (progress display);
    ``sync()`` is called before reading the clock so GPU time is real time.
    """
    states = [program.init(s) for s in shards]
    totals = combine_reports(program, [program.initial_totals(s, st) for s, st in zip(shards, states)])
    records = []
    step = 0
    while not program.converged(totals, step):
        if max_supersteps is not None and step >= max_supersteps:
            break
        t0 = time.perf_counter()
        ctx = StepContext(step, totals)
        reports = [program.superstep(s, st, ctx) for s, st in zip(shards, states)]
        totals = combine_reports(program, reports)
        if sync is not None:
            sync()
        record = {"superstep": step, **totals, "time_s": time.perf_counter() - t0}
        records.append(record)
        if on_step is not None:
            on_step(record)
        step += 1
    return [program.finish(s, st) for s, st in zip(shards, states)], records
