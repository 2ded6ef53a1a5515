"""One ``tasks`` BFS run's timeline from Dask's own logs: where the time outside the supersteps goes (issue 24).

    python3 benchmarks/tasks-bfs-timeline.py [--scale 16] [--partitions 2] [--runs 5] [--push 1|0]
                                             [--backend numpy|cupy] [--json FILE]

A cluster from ``dgraph.cluster.connect`` (CPU: p worker processes; ``--backend cupy``: the
LocalCUDACluster), rmat ``--scale`` partitioned p ways, BFS from the vertex of largest out-degree
under ``executor="tasks"``: one warm-up run, then ``--runs`` runs, each read from

- the client: when ``run_program`` was called and returned, when ``run_tasks`` returned, and when
  each superstep report (a Dask event) reached the client's inbox;
- the scheduler's transition log (``Scheduler.transition_log``): when each task went to
  ``processing`` and when the scheduler heard it was in ``memory``;
- the workers' state-machine logs (``WorkerState.log``): each task's ``compute-task`` arrival, its
  ``ready->executing`` and ``executing->memory``, and its inputs' ``flight->memory`` (a fetch).

Every process runs on this machine, so their clocks are one clock.  Prints, per run, each step
task (``s<k>``: superstep task k of the run) with its arrival, start and end on its worker in ms
from the ``run_program`` call, and the medians of the phases:

  submit     run_program called -> the first superstep task arrives on a worker
  s0 run     superstep task 0 (state made, superstep 0's kernels) on the slower shard
  loop       s0's end -> the end of the step task that sent the "final" contributions
  final      that task's end -> the "done" tasks' end (the final exchange, final_receive, finish;
             0 where the finals came beside the last superstep and its task finished the shard)
  report     the "done" task's end (shard 0) -> its report in the client's inbox
  return     that report -> run_tasks returned (the client's wait for the results)
  assemble   run_tasks returned -> run_program returned (the Result made)

and ``run_time`` (dgraph's) beside the sum of the supersteps' ``time_s`` (the rest is "outside").

Where the shards run ahead of their tasks (``dgraph.config.tasks_run_ahead``, the default) the step
tasks trail the supersteps and only collect outputs made: these phases then do not describe the
run (its "report" reads negative); ``benchmarks/tasks-trace.py`` stamps the supersteps themselves.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import time

import dasklogs

dasklogs.ship()

STEP = re.compile(r"^(?P<name>[a-z_]+)-superstep-s(?P<s>\d+)-p(?P<q>\d+)-(?P<run>[0-9a-f]+)$")


def timeline(client, run):
    """Run ``run()`` once with the client's moments stamped; -> a dict of phases (ms) and the tasks."""
    from dgraph.engine import tasks

    events, stamps = [], {}
    orig_event, orig_run_tasks, orig_submit = tasks._Inbox.event, tasks.run_tasks, tasks._Graph.submit

    def event(self, msg):
        events.append((msg["step"], msg["kind"], time.time()))
        return orig_event(self, msg)

    def submit(self, *a, **kw):
        t = time.time()
        out = orig_submit(self, *a, **kw)
        stamps.setdefault("submits", []).append((t, time.time()))
        return out

    def run_tasks(*a, **kw):
        stamps["run_tasks_called"] = time.time()
        out = orig_run_tasks(*a, **kw)
        stamps["run_tasks_returned"] = time.time()
        return out

    tasks._Inbox.event = event
    tasks.run_tasks = run_tasks
    tasks._Graph.submit = submit
    try:
        since = time.time()
        stamps["called"] = time.time()
        r = run()
        stamps["returned"] = time.time()
    finally:
        tasks._Inbox.event, tasks.run_tasks, tasks._Graph.submit = orig_event, orig_run_tasks, orig_submit
    time.sleep(0.2)  # the workers' last transitions logged
    sched = client.run_on_scheduler(dasklogs.on_scheduler, since=since)
    wlogs = client.run(dasklogs.on_worker, since=since)
    at = {}
    for worker, entries in wlogs.items():
        for key, what, stamp in entries:
            at.setdefault((key, what), stamp)
    sat = {}
    for key, _start, finish, stamp in sched:
        sat.setdefault((key, finish), stamp)
    seen_at = {}  # a key's first transition on the scheduler (its graph arrived)
    for key, _start, _finish, stamp in sched:
        seen_at.setdefault(key, stamp)
    steps, runs = {}, {}
    for (key, what) in at:
        m = STEP.match(key)
        if m and what == "compute-task" and m["s"] == "0":
            runs[m["run"]] = at[key, what]
    this = max(runs, key=runs.get)  # the newest run (an earlier one's releases may be logged too)
    for (key, what) in at:
        m = STEP.match(key)
        if m and m["run"] == this:
            steps[int(m["s"]), int(m["q"])] = key
    t0 = stamps["called"]

    def ms(x):
        return None if x is None else (x - t0) * 1e3

    rows = []
    for (s, q), key in sorted(steps.items()):
        rows.append({"step": s, "part": q, "arrived": ms(at.get((key, "compute-task"))),
                     "start": ms(at.get((key, "ready->executing"))), "end": ms(at.get((key, "executing->memory"))),
                     "sched_seen": ms(seen_at.get(key)), "sched_processing": ms(sat.get((key, "processing"))), "sched_memory": ms(sat.get((key, "memory")))})
    kinds = {s: k for s, k, _ in events if k != "made"}  # (another shard's "made" shares the step number)
    ev_at = {s: ms(t) for s, k, t in events if k != "made"}
    done = max(s for s, k in kinds.items() if k == "done")
    # a run whose finals came beside its last superstep finishes in that step's task: no "final" level
    final = max((s for s, k in kinds.items() if k == "final"), default=done)

    def end_of(s):
        return max(r["end"] for r in rows if r["step"] == s and r["end"] is not None)

    first = min(r["arrived"] for r in rows if r["step"] == 0)
    sub = stamps["submits"]
    ph = {"to run_tasks": ms(stamps["run_tasks_called"]), "graph 1 made": ms(sub[0][1]) - ms(sub[0][0]),
          "graph 2 made": ms(sub[1][1]) - ms(sub[1][0]) if len(sub) > 1 else 0.0,
          "graph 1 at scheduler": min(r["sched_seen"] for r in rows if r["step"] == 0) - ms(sub[0][1]),
          "s0 processing": min(r["sched_processing"] for r in rows if r["step"] == 0)
          - min(r["sched_seen"] for r in rows if r["step"] == 0),
          "s0 to worker": first - min(r["sched_processing"] for r in rows if r["step"] == 0),
          "submit": first, "s0 run": end_of(0) - first, "loop": end_of(final) - end_of(0),
          "final": end_of(done) - end_of(final),
          "report": ev_at[done] - max(r["end"] for r in rows if r["step"] == done and r["part"] == 0),
          "return": ms(stamps["run_tasks_returned"]) - ev_at[done],
          "assemble": ms(stamps["returned"]) - ms(stamps["run_tasks_returned"])}
    steps_ms = [rec["time_s"] * 1e3 for rec in r.stats_records]
    ph["run_time"] = r.run_time * 1e3
    ph["supersteps_sum"] = sum(steps_ms)
    ph["outside"] = ph["run_time"] - ph["supersteps_sum"]
    ph["wall"] = ms(stamps["returned"])
    return {"phases": ph, "tasks": rows, "events": {s: (kinds[s], ev_at[s]) for s in kinds}, "supersteps_ms": steps_ms}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=int, default=16)
    ap.add_argument("--partitions", type=int, default=2)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--push", type=int, choices=(0, 1), default=1)
    ap.add_argument("--backend", choices=("numpy", "cupy"), default="numpy")
    ap.add_argument("--json", default=None)
    ap.add_argument("--quiet", action="store_true", help="only the medians, not every run's tasks")
    args = ap.parse_args(argv)

    import numpy as np

    import dgraph
    from dgraph.backend import to_numpy
    from dgraph.engine import tasks

    tasks.PUSH = bool(args.push)
    G = dgraph.generate("rmat", scale=args.scale, seed=1, backend=args.backend)
    src = G.ids.to_user(int(np.argmax(to_numpy(G.out_degree())))).item()
    if args.backend == "cupy":
        client = dgraph.cluster.connect("cuda", dashboard=False)
    else:
        client = dgraph.cluster.connect(workers=args.partitions, dashboard=False)
    try:
        PG = G.partition(args.partitions, client=client, backend=args.backend)

        def run():
            return dgraph.bfs(PG, src, executor="tasks")

        run()
        got = []
        for _ in range(args.runs):
            got.append(timeline(client, run))
            time.sleep(0.6)  # the push plugin's sweep between runs
    finally:
        dgraph.cluster.close()
    names = list(got[0]["phases"])
    if not args.quiet:
        for i, g in enumerate(got):
            print(f"run {i}: supersteps " + " ".join(f"{x:.1f}" for x in g["supersteps_ms"]))
            for row in g["tasks"]:
                f = {k: "-" if v is None else f"{v:.1f}" for k, v in row.items()}
                print(f"  s{row['step']:<2} p{row['part']}  arrived {f['arrived']:>7}  start {f['start']:>7}"
                      f"  end {f['end']:>7}  (scheduler: processing {f['sched_processing']:>7}, "
                      f"memory {f['sched_memory']:>7})")
            print("  events: " + ", ".join(f"s{s} {k} {t:.1f}" for s, (k, t) in sorted(g["events"].items())))
    print(f"BFS rmat{args.scale}, p = {args.partitions}, {args.backend}, push={args.push}: medians of "
          f"{args.runs} runs, ms")
    for n in names:
        print(f"  {n:<15} {statistics.median(g['phases'][n] for g in got):8.2f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"args": vars(args), "runs": got}, f, indent=1, default=str)


if __name__ == "__main__":
    main()
