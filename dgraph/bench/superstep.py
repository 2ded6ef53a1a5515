"""``dgraph bench superstep``: the cost of one empty superstep per executor and exchange.

An empty superstep runs no kernel and exchanges empty contributions over
the full schedule; its time is the floor under every superstep of every
algorithm on that executor (Dask's scheduler round trips for ``tasks``,
worker-to-worker messages for ``spmd``).
"""

from __future__ import annotations

import statistics
import time

from ..engine.idle import Idle
from ..engine.run import run_program


def bench_superstep(PG, *, executor="spmd", exchange="butterfly", fanout=None, supersteps=50, repeat=3,
                    transport="auto"):
    """The empty superstep's time; over NCCL also the fixed-size one (:class:`Idle` ``fixed=True``:
    no size round, one read from the device a superstep), the two alternating run by run."""
    def one(fixed):
        t = time.perf_counter()
        r = run_program(lambda ids: Idle(supersteps, fixed=fixed), PG, executor=executor, exchange=exchange,
                        fanout=fanout, transport=transport)
        return time.perf_counter() - t, r

    _, r = one(False)
    nccl = r.params.get("transport") == "nccl"
    if nccl:
        one(True)  # warm-up
    times, fixed_times = [], []
    for _ in range(repeat):
        times.append(one(False)[0])
        if nccl:
            fixed_times.append(one(True)[0])
    per = [t / supersteps for t in times]
    extra = {}
    if nccl:
        fixed_per = [t / supersteps for t in fixed_times]
        extra = {"fixed_per_superstep_ms": statistics.median(fixed_per) * 1e3,
                 "fixed_per_superstep_ms_min": min(fixed_per) * 1e3}
    return {
        "executor": executor,
        "exchange": r.params["exchange"],
        "fanout": r.params["fanout"],
        "partitions": PG.num_parts,
        "transport": r.params.get("transport", "-"),
        "backend": PG.backend,
        "supersteps": supersteps,
        "repeat": repeat,
        "per_superstep_ms": statistics.median(per) * 1e3,
        "per_superstep_ms_min": min(per) * 1e3,
        **extra,
    }


def format_superstep(fig) -> str:
    ex = fig["exchange"] + (f":{fig['fanout']}" if fig["exchange"] == "butterfly" else "")
    return (f"empty superstep, executor {fig['executor']} ({fig['transport']}), exchange {ex}, "
            f"{fig['partitions']} partitions, "
            f"{fig['backend']}:\n"
            f"  per superstep {fig['per_superstep_ms']:9.3f} ms   (median of {fig['repeat']} runs of "
            f"{fig['supersteps']} supersteps; min {fig['per_superstep_ms_min']:.3f} ms)" +
            (f"\n  fixed-size  {fig['fixed_per_superstep_ms']:9.3f} ms   (no size round, one read from the GPU a "
             f"superstep, as BFS's bitmap exchange; min {fig['fixed_per_superstep_ms_min']:.3f} ms)"
             if "fixed_per_superstep_ms" in fig else ""))
