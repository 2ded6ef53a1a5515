"""Where a ``tasks`` superstep's milliseconds go on the workers when the shards run ahead (issue 24).

    python3 benchmarks/tasks-trace.py [--scale 16] [--partitions 2] [--runs 3] [--backend numpy|cupy]
                                      [--json FILE]

A cluster from ``dgraph.cluster.connect`` (CPU: p worker processes; ``--backend cupy``: the
LocalCUDACluster), rmat ``--scale`` partitioned p ways, BFS from the vertex of largest out-degree
under ``executor="tasks"``: one warm-up run, then ``--runs`` traced runs.  On every worker the
executor's own steps are wrapped to stamp when they begin and end (``time.time()``: every process
runs on this machine, one clock), with the thread they ran on:

  body      a superstep's work (tasks._step_body: receive, the kernels, the contribution)
  task      a superstep task (tasks._step), and whether it found its step run ahead
  ahead     a step run ahead (tasks._run_ahead), from its decision to its output's push
  ser       a push's serialization (Push.send), and each send's end (Push._send)
  recv      a pushed output's handler (Push.receive: in memory, then arrived())
  deser     a message of more than 4 KiB read from a TCP comm: its deserialization (from_frames)
  toframes  one to be written: its framing (to_frames)
  event     a report published as a Dask event (Worker.log_event)
  report    a report published (tasks._publish: on the lane where the client watches the run, else
            as an event)

and on the client: each graph sent (``graph``), each report in the run's inbox (``inbox``) and
``bfs()`` returning (``return``).
and a probe on each worker's event loop (a 1 ms sleep, again and again) stamps every wake-up that
came more than ``--lag`` ms late (the loop was busy; the timer itself is ~1 ms coarse).  Prints each traced run's events in time order (ms from the run's call) and
the client's moments, and writes them to --json.
"""

from __future__ import annotations

import argparse
import json
import time

import dasklogs

dasklogs.ship()


def install(dask_worker, lag_ms):
    """Wrap the executor's steps on this worker (once) and start the loop probe."""
    import asyncio
    import inspect
    import threading

    from dgraph.engine import push, tasks

    if getattr(dask_worker, "_trace", None) is not None:
        return
    log = dask_worker._trace = []

    def stamp(what, t0, **kw):
        log.append((what, t0, time.time(), threading.current_thread().name, kw))

    body = tasks._step_body

    def step_body(worker, token, part, step, *a):
        t = time.time()
        try:
            return body(worker, token, part, step, *a)
        finally:
            stamp("body", t, step=step, part=part)

    tasks._step_body = step_body
    ahead = tasks._run_ahead
    signature = inspect.signature(ahead)

    async def run_ahead(*a):
        t = time.time()
        try:
            return await ahead(*a)
        finally:
            got = signature.bind(*a).arguments
            stamp("ahead", t, step=got["step"], part=got["part"])

    tasks._run_ahead = run_ahead
    stepf = tasks._step

    async def step_task(token, part, step, *a):
        t = time.time()
        claimed = (token, tasks.AHEAD, part, step) in tasks._box()
        try:
            return await stepf(token, part, step, *a)
        finally:
            stamp("task", t, step=step, part=part, claimed=claimed)

    tasks._step = step_task  # (the graph names the function: only graphs made after this see it)
    send, send1, receive = push.Push.send, push.Push._send, push.Push.receive

    def psend(self, key, *a, **kw):
        t = time.time()
        try:
            return send(self, key, *a, **kw)
        finally:
            stamp("ser", t, key=key)

    async def psend1(self, address, msg):
        t = time.time()
        try:
            return await send1(self, address, msg)
        finally:
            stamp("sent", t, key=msg.get("key"))

    def precv(self, key=None, *a, **kw):
        t = time.time()
        try:
            return receive(self, key, *a, **kw)
        finally:
            stamp("recv", t, key=key)

    push.Push.send, push.Push._send, push.Push.receive = psend, psend1, precv
    plugin = dask_worker.plugins[push.NAME]

    def dgraph_push(key=None, pickled=None, value=None):  # (the handler the plugin registered is bound)
        return precv(plugin, key, pickled=pickled, value=value)

    dask_worker.handlers[push.OP] = dgraph_push
    orig_log = dask_worker.log_event

    def log_event(topic, msg):
        t = time.time()
        try:
            return orig_log(topic, msg)
        finally:
            if topic == tasks.TOPIC:
                stamp("event", t, step=msg.get("step"), kind=msg.get("kind"), part=msg.get("part", 0))

    dask_worker.log_event = log_event
    from distributed.comm import tcp

    frames_in, frames_out = tcp.from_frames, tcp.to_frames

    async def from_frames(frames, *a, **kw):  # a message read: its deserialization
        t = time.time()
        try:
            return await frames_in(frames, *a, **kw)
        finally:
            n = sum(len(f) for f in frames)
            if n > 4096:
                stamp("deser", t, bytes=n)

    async def to_frames(msg, *a, **kw):  # a message to write: its serialization
        t = time.time()
        out = await frames_out(msg, *a, **kw)
        n = sum(len(memoryview(f).cast("B")) for f in out)
        if n > 4096:
            stamp("toframes", t, bytes=n)
        return out

    tcp.from_frames, tcp.to_frames = from_frames, to_frames
    publish = getattr(tasks, "_publish", None)
    if publish is not None:  # reports over the lane, or as events

        def publish_(worker, msg):
            t = time.time()
            try:
                return publish(worker, msg)
            finally:
                stamp("report", t, step=msg.get("step"), kind=msg.get("kind"), part=msg.get("part", 0))

        tasks._publish = publish_

    async def probe():
        period = 0.001
        while True:
            t = time.time()
            await asyncio.sleep(period)
            late = time.time() - t - period
            if late > lag_ms / 1e3:
                log.append(("busy", t + period, time.time(), "loop", {}))

    if lag_ms > 0:
        dask_worker.loop.add_callback(probe)


def collect(dask_worker, since):
    out = [e for e in getattr(dask_worker, "_trace", []) if e[2] >= since]
    return [(w, t0, t1, th, {k: str(v) if not isinstance(v, (int, float, bool)) else v for k, v in kw.items()})
            for w, t0, t1, th, kw in out]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=int, default=16)
    ap.add_argument("--partitions", type=int, default=2)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--backend", choices=("numpy", "cupy"), default="numpy")
    ap.add_argument("--lag", type=float, default=1.5,
                    help="a 1 ms sleep on a worker's loop this many ms late is stamped busy (0: no probe)")
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)

    import numpy as np

    import dgraph
    from dgraph.backend import to_numpy

    G = dgraph.generate("rmat", scale=args.scale, seed=1, backend=args.backend)
    src = G.ids.to_user(int(np.argmax(to_numpy(G.out_degree())))).item()
    if args.backend == "cupy":
        client = dgraph.cluster.connect("cuda", dashboard=False)
    else:
        client = dgraph.cluster.connect(workers=args.partitions, dashboard=False)
    got = []
    try:
        PG = G.partition(args.partitions, client=client, backend=args.backend)
        dgraph.bfs(PG, src, executor="tasks")  # warm-up: the push plugin installed, kernels loaded
        client.run(install, lag_ms=args.lag)
        dgraph.bfs(PG, src, executor="tasks")
        names = {w: f"w{i}" for i, w in enumerate(PG.workers)}
        names["client"] = "cl"
        from dgraph.engine import tasks

        mine, orig_event, orig_submit = [], tasks._Inbox.event, tasks._Graph.submit

        def event(self, msg):  # a report reaching the client's inbox
            mine.append(("inbox", time.time(), time.time(), "client", {"step": msg["step"], "kind": msg["kind"],
                                                                       "part": msg.get("part", 0)}))
            return orig_event(self, msg)

        def submit(self, *a, **kw):
            t = time.time()
            try:
                return orig_submit(self, *a, **kw)
            finally:
                mine.append(("graph", t, time.time(), "client", {"tasks": sum(len(s) for s in self.specs)}))

        tasks._Inbox.event, tasks._Graph.submit = event, submit
        for _ in range(args.runs):
            time.sleep(0.6)
            mine.clear()
            t0 = time.time()
            r = dgraph.bfs(PG, src, executor="tasks")
            t1 = time.time()
            mine.append(("return", t1, t1, "client", {}))
            time.sleep(0.2)
            logs = client.run(collect, since=t0)
            logs["client"] = list(mine)
            rows = sorted(((t0e - t0) * 1e3, (t1e - t0) * 1e3, names.get(w, w), what, th, kw)
                          for w, es in logs.items() for what, t0e, t1e, th, kw in es)
            got.append({"run_time_ms": r.run_time * 1e3, "wall_ms": (t1 - t0) * 1e3,
                        "supersteps_ms": [rec["time_s"] * 1e3 for rec in r.stats_records], "rows": rows})
    finally:
        dgraph.cluster.close()
    for i, g in enumerate(got):
        print(f"run {i}: run_time {g['run_time_ms']:.2f} ms, wall {g['wall_ms']:.2f}, supersteps "
              + " ".join(f"{x:.1f}" for x in g["supersteps_ms"]))
        for a, b, w, what, th, kw in g["rows"]:
            th = "loop" if th in ("loop", "MainThread") or "IO loop" in th else th[-12:]
            desc = " ".join(f"{k}={v}" for k, v in kw.items() if k != "key")
            if "key" in kw:
                desc += " " + "-".join(str(kw["key"]).split("-")[1:4])
            print(f"  {a:8.2f} {b:8.2f} {b - a:6.2f}  {w} {what:<6} {th:<12} {desc}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"args": vars(args), "runs": got}, f, indent=1, default=str)


if __name__ == "__main__":
    main()
