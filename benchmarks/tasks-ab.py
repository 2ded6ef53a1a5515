"""The ``tasks`` executor before and after a change, in one process: the empty superstep, interleaved.

Usage: python3 benchmarks/tasks-ab.py [--before fcd3bf1] [--partitions 2 4] [--supersteps 50]
       [--rounds 5] [--tuned-only] [--json FILE]

``--before`` names a commit of this repository; its dgraph/engine/tasks.py is copied into a
temporary module (``_tasks_before``, imports made absolute) that the client and the workers import
(the workers inherit this process's sys.path).  For each p, and for a cluster started by
``dgraph.cluster.connect`` untuned (``tune=False``) and tuned: runs of the empty program
(dgraph/engine/idle.py, rmat scale 10) under the before and the current executor, alternating,
``--rounds`` each after a warm-up; prints the median milliseconds a superstep (the whole run over
its supersteps, as ``dgraph bench superstep``) and the CPU milliseconds a superstep that the
worker processes and this one (client and scheduler) used together (psutil: user + system), the
cost that does not depend on what else the box runs.  The box is shared and noisy: compare the
columns of one line, not lines of different calls.

``--bfs SCALE``: instead of the empty program, BFS on rmat SCALE from the vertex of largest
out-degree (tuned clusters only), the same alternation; prints dgraph's ``run_time`` (median ms),
the part of it outside the supersteps (``run_time`` minus the supersteps' ``time_s``), the CPU ms a
run, and checks that both executors give the same depth and parent arrays.  ``--backend cupy``
(with ``--bfs``): CuPy shards on the LocalCUDACluster ``connect("cuda")`` starts (one worker a GPU),
for the GPU host:

    python3 benchmarks/tasks-ab.py --before bb4d9c6 --bfs 22 --partitions 2 --rounds 5 --backend cupy
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

import psutil


def _cpu(procs):
    """CPU seconds (user + system) the processes have used so far."""
    return sum(sum(pr.cpu_times()[:2]) for pr in procs)


def _absolute(src):
    src = re.sub(r"from \.\. import", "from dgraph import", src)
    src = re.sub(r"from \.\.(\w+)", r"from dgraph.\1", src)
    return re.sub(r"from \.(\w+)", r"from dgraph.engine.\1", src)


def load_before(commit):
    """The tasks module of ``commit`` as an importable module ``_tasks_before``; with the commit's
    dgraph/engine/push.py (when it has one) as ``_push_before``, its worker plugin and handler renamed
    so that both versions' plugins live on the workers side by side."""
    root = subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True, text=True,
                          check=True, cwd=os.path.dirname(os.path.abspath(__file__))).stdout.strip()

    def show(path):
        got = subprocess.run(["git", "show", f"{commit}:{path}"], capture_output=True, text=True, cwd=root)
        return got.stdout if got.returncode == 0 else None

    src = show("dgraph/engine/tasks.py")
    push = show("dgraph/engine/push.py")
    if src is None:
        raise SystemExit(f"--before {commit}: no dgraph/engine/tasks.py there")
    if push is not None:
        src = re.sub(r"from \.push import", "from _push_before import", src)
        push = _absolute(push).replace('NAME = "dgraph-push"', 'NAME = "dgraph-push-before"')
        push = push.replace('OP = "dgraph_push"', 'OP = "dgraph_push_before"')
    src = _absolute(src).replace('TOPIC = "dgraph-superstep"', 'TOPIC = "dgraph-superstep-before"')
    folder = tempfile.mkdtemp(prefix="tasks-ab-")
    with open(os.path.join(folder, "_tasks_before.py"), "w") as f:
        f.write(src)
    if push is not None:
        with open(os.path.join(folder, "_push_before.py"), "w") as f:
            f.write(push)
    sys.path.insert(0, folder)
    import _tasks_before

    return _tasks_before


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", default="fcd3bf1")
    ap.add_argument("--partitions", type=int, nargs="+", default=[2, 4])
    ap.add_argument("--supersteps", type=int, default=50)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--tuned-only", action="store_true", help="skip the untuned clusters")
    ap.add_argument("--json", default=None)
    ap.add_argument("--bfs", type=int, default=None, metavar="SCALE", help="BFS on rmat SCALE, not the empty program")
    ap.add_argument("--backend", choices=("numpy", "cupy"), default="numpy", help="with --bfs: the shards' backend")
    args = ap.parse_args(argv)
    if args.bfs is not None:
        return bfs_ab(args)
    before = load_before(args.before)

    import dgraph
    import dgraph.engine.tasks as current
    from dgraph.engine.idle import Idle
    from dgraph.engine.run import run_program

    def before_run_tasks(*a, **k):
        out, records = before.run_tasks(*a, **k)
        if callable(out):
            return out, records
        return (lambda out=out: out), records  # older executors returned the futures themselves

    G = dgraph.generate("rmat", scale=10, seed=1)
    impls = {f"before ({args.before})": before_run_tasks, "now": current.run_tasks}
    real = current.run_tasks
    figs = []
    print(f"empty superstep, executor tasks, ms a superstep (median of {args.rounds} runs of {args.supersteps})")
    try:
        for p in args.partitions:
            for tune in (True,) if args.tuned_only else (False, True):
                client = dgraph.cluster.connect(workers=p, dashboard=False, tune=tune)
                try:
                    PG = G.partition(p, client=client)
                    procs = [psutil.Process(pid) for pid in client.run(os.getpid).values()] + [psutil.Process()]
                    times = {name: [] for name in impls}
                    cpu = {name: [] for name in impls}
                    for r in range(args.rounds + 1):
                        for name, fn in impls.items():
                            current.run_tasks = fn
                            c0 = _cpu(procs)
                            t = time.perf_counter()
                            run_program(lambda ids: Idle(args.supersteps), PG, executor="tasks")
                            if r:  # the first round warms up
                                times[name].append((time.perf_counter() - t) / args.supersteps * 1e3)
                                cpu[name].append((_cpu(procs) - c0) / args.supersteps * 1e3)
                    current.run_tasks = real
                finally:
                    dgraph.cluster.close()
                line = {"partitions": p, "tuned": tune,
                        **{name: statistics.median(v) for name, v in times.items()},
                        **{f"{name} min": min(v) for name, v in times.items()},
                        **{f"{name} cpu": statistics.median(v) for name, v in cpu.items()}}
                figs.append(line)
                print(f"p={p} {'tuned  ' if tune else 'untuned'}  " + "  ".join(
                    f"{name}: {statistics.median(v):7.2f} (min {min(v):.2f}, cpu {statistics.median(cpu[name]):.2f})"
                    for name, v in times.items()), flush=True)
    finally:
        current.run_tasks = real
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figs, f, indent=1)


def bfs_ab(args):
    """``--bfs``: BFS run_time and its part outside the supersteps, before and now alternating."""
    import numpy as np

    import dgraph
    import dgraph.engine.tasks as current
    from dgraph.backend import to_numpy

    before = load_before(args.before)

    def before_run_tasks(*a, **k):
        out, records = before.run_tasks(*a, **k)
        return (out if callable(out) else (lambda out=out: out)), records

    G = dgraph.generate("rmat", scale=args.bfs, seed=1, backend=args.backend)
    src = G.ids.to_user(int(np.argmax(to_numpy(G.out_degree())))).item()
    impls = {f"before ({args.before})": before_run_tasks, "now": current.run_tasks}
    real = current.run_tasks
    figs = []
    print(f"BFS rmat{args.bfs} ({args.backend}) under tasks, tuned cluster: ms a run (median of {args.rounds}), "
          f"outside the supersteps, CPU ms a run")
    try:
        for p in args.partitions:
            if args.backend == "cupy":
                client = dgraph.cluster.connect("cuda", dashboard=False)
            else:
                client = dgraph.cluster.connect(workers=p, dashboard=False)
            try:
                PG = G.partition(p, client=client, backend=args.backend)
                procs = [psutil.Process(pid) for pid in client.run(os.getpid).values()] + [psutil.Process()]
                got = {name: [] for name in impls}
                answers = {}
                for r in range(args.rounds + 1):
                    for name, fn in impls.items():
                        current.run_tasks = fn
                        c0 = _cpu(procs)
                        res = dgraph.bfs(PG, src, executor="tasks")
                        cpu = (_cpu(procs) - c0) * 1e3
                        if r:
                            steps = sum(rec["time_s"] for rec in res.stats_records) * 1e3
                            got[name].append((res.run_time * 1e3, res.run_time * 1e3 - steps, cpu))
                        else:
                            answers[name] = (to_numpy(res.raw("depth")), to_numpy(res.raw("parent")))
                current.run_tasks = real
            finally:
                dgraph.cluster.close()
            (d0, p0), (d1, p1) = answers.values()
            line = {"partitions": p, "scale": args.bfs, "backend": args.backend,
                    "equal": bool(np.array_equal(d0, d1) and np.array_equal(p0, p1))}
            for name, v in got.items():
                line[name] = statistics.median(x[0] for x in v)
                line[f"{name} min"] = min(x[0] for x in v)
                line[f"{name} outside"] = statistics.median(x[1] for x in v)
                line[f"{name} cpu"] = statistics.median(x[2] for x in v)
            figs.append(line)
            print(f"p={p} " + "  ".join(f"{name}: {line[name]:7.2f} (min {line[name + ' min']:.2f}, outside "
                                        f"{line[name + ' outside']:.2f}, cpu {line[name + ' cpu']:.1f})"
                                        for name in got) + f"  equal: {line['equal']}", flush=True)
    finally:
        current.run_tasks = real
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figs, f, indent=1)


if __name__ == "__main__":
    main()
