"""The ``tasks`` executor's floor (issue 24): the empty superstep at p = 2 and 4, and BFS on P devices
against one, in one call.

Usage: python3 benchmarks/tasks-floor.py OUT_DIR [--scale 22] [--partitions 2]
       [--supersteps 50] [--repeat 5] [--backend auto|cupy|numpy]

``--backend auto`` (the default) runs on the GPUs when CuPy sees one, else on the CPU.

1. Empty superstep (``dgraph bench superstep``'s figure: the whole run of the empty program,
   dgraph/engine/idle.py, over rmat scale 10, divided by its supersteps; the median of --repeat
   runs after a warm-up) under ``tasks`` at p = 2 and p = 4:
   - on a CPU LocalCluster of p worker processes, started by ``dgraph.cluster.connect`` tuned (the
     default) and untuned (``tune=False``: Dask's own batching intervals and work stealing);
   - with GPUs: on the LocalCUDACluster (one worker a GPU; p = 4 on 2 GPUs puts 2 partitions on each),
     CuPy shards, tuned and untuned.
2. BFS on rmat --scale (``dgraph.generate(..., backend=...)``), source the vertex of largest
   out-degree: the one-device local run (the anchor) and ``G.partition(P, client=...)`` under
   ``tasks`` and ``spmd`` on the same cluster (LocalCUDACluster with GPUs, else a CPU LocalCluster of P
   processes), each the median of --repeat timed runs after a warm-up, answers compared with the
   anchor (depth and parent arrays).  ``run_time`` is dgraph's (start-up excluded); the ratio is the
   partitioned time over the anchor's (issue 24 asks tasks on 2 GPUs within 20x of one GPU).

Prints one table and writes OUT_DIR/tasks-floor.json (the folder is made if missing; a file of that
name there is replaced).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time


def _gpus():
    try:
        import cupy

        return cupy.cuda.runtime.getDeviceCount()
    except Exception:  # noqa: BLE001 - no CuPy, no driver, no device
        return 0


def _connect(backend, workers, tune):
    import dgraph

    if backend == "cupy":
        return dgraph.cluster.connect("cuda", tune=tune, dashboard=False)
    return dgraph.cluster.connect(workers=workers, tune=tune, dashboard=False)


def empty_superstep(backend, p, *, tune, supersteps, repeat, workers=None):
    import dgraph
    from dgraph.bench.superstep import bench_superstep

    client = _connect(backend, workers or p, tune)
    try:
        G = dgraph.generate("rmat", scale=10, seed=1, backend=backend)
        PG = G.partition(p, client=client, backend=backend)
        fig = bench_superstep(PG, executor="tasks", supersteps=supersteps, repeat=repeat)
        fig["tuned"] = tune
        fig["workers"] = len(client.scheduler_info(n_workers=-1)["workers"])
        return fig
    finally:
        dgraph.cluster.close()


def _same(r, ref):
    import numpy as np

    from dgraph.backend import to_numpy

    return all(np.array_equal(to_numpy(r.raw(c)), to_numpy(ref.raw(c))) for c in ("depth", "parent"))


def bfs_figures(backend, scale, partitions, repeat):
    import numpy as np

    import dgraph
    from dgraph.backend import to_numpy

    t = time.perf_counter()
    G = dgraph.generate("rmat", scale=scale, seed=1, backend=backend)
    build_s = time.perf_counter() - t
    src = G.ids.to_user(int(np.argmax(to_numpy(G.out_degree())))).item()

    def timed(run):
        run()  # warm-up: kernels compiled or loaded, connections made
        times, r = [], None
        for _ in range(repeat):
            r = run()
            times.append(r.run_time)
        return r, statistics.median(times), min(times)

    ref, local_s, local_min = timed(lambda: dgraph.bfs(G, src))
    rows = [{"run": "1 device, local (anchor)", "time_s": local_s, "min_s": local_min, "supersteps": ref.supersteps,
             "equal": True}]
    client = _connect(backend, partitions, True)
    try:
        PG = G.partition(partitions, client=client, backend=backend)
        for executor in ("tasks", "spmd"):
            r, med, mn = timed(lambda: dgraph.bfs(PG, src, executor=executor))
            rows.append({"run": f"{partitions} {'GPUs' if backend == 'cupy' else 'processes'}, {executor}",
                         "time_s": med, "min_s": mn, "supersteps": r.supersteps, "equal": _same(r, ref),
                         "ratio": med / local_s,
                         "per_superstep_ms": [(rec.get("time_s") or 0) * 1e3 for rec in r.stats_records]})
    finally:
        dgraph.cluster.close()
    return {"scale": scale, "vertices": G.num_vertices, "arcs": G.num_arcs, "source": src, "build_s": build_s,
            "backend": backend, "partitions": partitions, "rows": rows}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out_dir")
    ap.add_argument("--scale", type=int, default=22)
    ap.add_argument("--partitions", type=int, default=2)
    ap.add_argument("--supersteps", type=int, default=50)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--backend", choices=("auto", "cupy", "numpy"), default="auto")
    args = ap.parse_args(argv)
    gpus = _gpus()
    backend = args.backend if args.backend != "auto" else ("cupy" if gpus else "numpy")
    if backend == "cupy" and not gpus:
        sys.exit("--backend cupy: CuPy sees no GPU here")
    os.makedirs(args.out_dir, exist_ok=True)
    out = {"backend": backend, "gpus": gpus, "host_cpus": os.cpu_count(), "empty": [], "bfs": None}

    def save():
        with open(os.path.join(args.out_dir, "tasks-floor.json"), "w") as f:
            json.dump(out, f, indent=1, default=str)

    for tune in (False, True):
        for p in (2, 4):
            fig = empty_superstep("numpy", p, tune=tune, supersteps=args.supersteps, repeat=args.repeat)
            fig["cluster"] = f"CPU LocalCluster, {p} processes"
            out["empty"].append(fig)
            save()
            if backend == "cupy":
                fig = empty_superstep("cupy", p, tune=tune, supersteps=args.supersteps, repeat=args.repeat)
                fig["cluster"] = f"LocalCUDACluster, {gpus} GPUs"
                out["empty"].append(fig)
                save()
    out["bfs"] = bfs_figures(backend, args.scale, args.partitions, args.repeat)
    save()

    print("empty superstep, executor tasks (median of %d runs of %d supersteps)" % (args.repeat, args.supersteps))
    print(f"{'cluster':<34} {'tuned':>5} {'p':>2} {'ms a superstep':>15} {'min':>8}")
    for fig in out["empty"]:
        print(f"{fig['cluster']:<34} {str(fig['tuned']):>5} {fig['partitions']:>2} "
              f"{fig['per_superstep_ms']:15.3f} {fig['per_superstep_ms_min']:8.3f}")
    for tune in (False, True):
        for cl in sorted({f["cluster"].split(",")[0] for f in out["empty"]}):
            by_p = {f["partitions"]: f["per_superstep_ms"] for f in out["empty"]
                    if f["tuned"] == tune and f["cluster"].startswith(cl)}
            if 2 in by_p and 4 in by_p:
                print(f"  {cl}, tuned={tune}: p=4 / p=2 = {by_p[4] / by_p[2]:.2f}")
    b = out["bfs"]
    print(f"\nBFS rmat{b['scale']} ({b['vertices']:,} vertices, {b['arcs']:,} arcs), {b['backend']}, "
          f"source {b['source']}")
    print(f"{'run':<34} {'time':>10} {'min':>10} {'supersteps':>10} {'equal':>6} {'vs anchor':>10}")
    for row in b["rows"]:
        ratio = f"{row['ratio']:.1f}x" if "ratio" in row else "-"
        print(f"{row['run']:<34} {row['time_s'] * 1e3:8.2f}ms {row['min_s'] * 1e3:8.2f}ms {row['supersteps']:>10} "
              f"{str(row['equal']):>6} {ratio:>10}")
    print(f"\nwritten: {os.path.join(args.out_dir, 'tasks-floor.json')}")


if __name__ == "__main__":
    main()
