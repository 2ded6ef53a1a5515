"""Where an empty superstep of the ``tasks`` executor spends its milliseconds, from Dask's own logs.

    python3 benchmarks/tasks-breakdown.py [--partitions 2 4] [--supersteps 60] [--tune 0|1] [--cuda]

For each p: a local cluster of p worker processes (``dgraph.cluster.connect``), rmat scale 10 in p
range partitions, one warm-up run of the empty program (dgraph/engine/idle.py), then one run with
Dask's task stream on (``distributed.get_task_stream``), whose keys are matched with the
scheduler's transition log (``Scheduler.transition_log``) and each worker's state-machine log
(``WorkerState.log``).  Every process runs on this machine, so their clocks are one clock.

For every step task of superstep s (s >= 2, the run's steady state) on partition q, the critical
path from the last of its inputs to its own end is cut into:

  notify    the input is in memory on its worker (executing->memory) -> on the scheduler
            (worker->scheduler: the worker's batched stream, the message, the scheduler's loop)
  decide    the scheduler marks the input in memory -> marks this task processing (transitions)
  dispatch  processing on the scheduler -> the worker's ``compute-task`` (scheduler->worker stream)
  fetch     the worker has the task -> its inputs from other workers are here (a gather_dep)
  start     inputs here -> the task starts executing
  run       executing -> in memory on the worker (the thread pool hand-off both ways and:)
  compute   the task's own function (merge the empty contributions, run the empty superstep)

Worker-side moments come from the workers' own logs (the task stream's start/stop stamps are
shifted by each worker's estimate of the scheduler's clock; only their durations are used).

and the superstep period (this superstep's last step task end minus the previous one's).  The
medians are printed per p; ``--json FILE`` writes them.  ``--tune 0`` runs the cluster as Dask
starts it (connect(..., tune=False)), ``--tune 1`` with the settings dgraph's connect() applies.
``--cuda`` runs on a LocalCUDACluster (``connect("cuda", workers=p)``, one worker a GPU, p at most
the GPUs) with the graph's shards on the GPUs, as the GPU host's figures in docs/BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import time

import dasklogs

dasklogs.ship()

STEP = re.compile(r"^(?P<name>[a-z_]+)-(?:super)?step-s(?P<s>\d+)-p(?P<q>\d+)-")


def breakdown(client, run, p):
    """Run ``run()`` once with the task stream on; -> per-segment lists of milliseconds."""
    from distributed import get_task_stream

    since = time.time()
    with get_task_stream(client) as ts:
        t0 = time.perf_counter()
        r = run()
        wall = time.perf_counter() - t0
    sched = client.run_on_scheduler(dasklogs.on_scheduler, since=since)
    wlogs = client.run(dasklogs.on_worker, since=since)
    memory_at, processing_at = {}, {}
    for key, start, finish, stamp in sched:
        if finish == "memory":
            memory_at[key] = stamp
        if finish == "processing":
            processing_at[key] = stamp
    at = {}  # (worker, key, what) -> stamp, on the worker's own clock (= this machine's)
    for worker, entries in wlogs.items():
        for key, what, stamp in entries:
            at[worker, key, what] = stamp
    where, duration = {}, {}
    for rec in ts.data:
        where[rec["key"]] = rec["worker"]
        for ss in rec["startstops"]:
            if ss["action"] == "compute":  # a duration: the workers' clock shift cancels
                duration[rec["key"]] = ss["stop"] - ss["start"]
    steps = {}
    for key in duration:
        m = STEP.match(str(key))
        if m:
            steps[int(m["s"]), int(m["q"])] = key
    seg = {k: [] for k in ("notify", "decide", "dispatch", "fetch", "start", "run", "compute", "path")}
    period = []
    S = max(s for s, _ in steps) if steps else 0
    for s in range(2, S + 1):
        ends = []
        for q in range(p):
            key = steps.get((s, q))
            if key is None or any((s - 1, r) not in steps for r in range(p)):
                continue
            inputs = [steps[s - 1, r] for r in range(p)]
            try:
                done = {k: at[where[k], k, "executing->memory"] for k in inputs}
                last = max(inputs, key=done.get)
                w = where[key]
                a = done[last]                                  # input back on its worker's loop
                b = memory_at[last]
                c = processing_at[key]
                d = at[w, key, "compute-task"]
                e = max([d] + [at[w, k, "flight->memory"] for k in inputs if (w, k, "flight->memory") in at])
                f = at[w, key, "ready->executing"]
                g = at[w, key, "executing->memory"]
            except KeyError:
                continue
            for name, x, y in (("notify", a, b), ("decide", b, c), ("dispatch", c, d), ("fetch", d, e),
                               ("start", e, f), ("run", f, g), ("path", a, g)):
                seg[name].append((y - x) * 1e3)
            seg["compute"].append(duration[key] * 1e3)
            ends.append(g)
        prev = [at.get((where[steps[s - 1, q]], steps[s - 1, q], "executing->memory")) for q in range(p)
                if (s - 1, q) in steps]
        prev = [x for x in prev if x is not None]
        if ends and prev:
            period.append((max(ends) - max(prev)) * 1e3)
    out = {k: statistics.median(v) if v else None for k, v in seg.items()}
    out["period"] = statistics.median(period) if period else None
    out["wall_per_superstep"] = wall / max(1, S) * 1e3
    out["samples"] = len(seg["path"])
    out["tasks_in_stream"] = len(ts.data)
    out["supersteps"] = r.supersteps
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--partitions", type=int, nargs="+", default=[2, 4])
    ap.add_argument("--supersteps", type=int, default=60)
    ap.add_argument("--tune", type=int, choices=(0, 1), default=1)
    ap.add_argument("--json", default=None)
    ap.add_argument("--cuda", action="store_true", help="a LocalCUDACluster, shards on the GPUs")
    args = ap.parse_args(argv)

    import dgraph
    from dgraph.engine.idle import Idle
    from dgraph.engine.run import run_program

    G = dgraph.generate("rmat", scale=10, seed=1, backend="cupy" if args.cuda else "numpy")
    figs = []
    for p in args.partitions:
        kw = {} if args.tune else {"tune": False}
        client = dgraph.cluster.connect("cuda" if args.cuda else None, workers=p, dashboard=False, **kw)
        try:
            PG = G.partition(p, client=client)

            def run():
                return run_program(lambda ids: Idle(args.supersteps), PG, executor="tasks")

            run()  # warm-up: imports, connections between the workers
            fig = breakdown(client, run, p)
            fig["partitions"] = p
            fig["tune"] = args.tune
            fig["cluster"] = "cuda" if args.cuda else "cpu"
            figs.append(fig)
        finally:
            dgraph.cluster.close()
    names = ("notify", "decide", "dispatch", "fetch", "start", "run", "compute", "path", "period", "wall_per_superstep")
    print("p  " + "  ".join(f"{n:>9}" for n in names) + "   (ms, medians over step tasks)")
    for fig in figs:
        print(f"{fig['partitions']:<2} " + "  ".join(
            f"{fig[n]:9.3f}" if fig[n] is not None else f"{'-':>9}" for n in names))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figs, f, indent=1)


if __name__ == "__main__":
    main()
