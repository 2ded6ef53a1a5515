"""A graph bigger than one GPU: built on several, run there, and checked there.

    python3 docs/scale_out_check.py --scale 28 --gpus 2 --out rmat28.json     # 2 x H100 (80 GB)
    python3 docs/scale_out_check.py --scale 29 --gpus 4 --out rmat29.json     # 4 x H100
    python3 docs/scale_out_check.py --scale 12 --gpus 2 --backend numpy       # the same on CPU workers

1. One worker asks ``dgraph.generate`` for the whole graph on its GPU: the
   answer must be a GraphTooLargeError naming how many GPUs would hold it
   (skipped when the graph fits on one GPU, as small test scales do).
2. ``dgraph.generate_partitioned`` builds it across the GPUs (each generates
   its slice of the edge list; NCCL moves the edges).
3. BFS from the highest-degree vertex, PageRank (20 iterations) and WCC run
   there (spmd), and each answer is checked on the workers without gathering
   the graph (:mod:`dgraph.partition.verify`): Graph500's five BFS checks, the
   PageRank mass, every edge's two WCC labels.

Every figure goes to ``--out`` (JSON) and to stdout; the exit status is 1 when
any check fails (the failing checks are printed), so a run that proves
nothing cannot pass for one that does.
"""

from __future__ import annotations

import argparse
import json
import sys
import time


def _one_gpu_refusal(scale, edgefactor):
    """On a worker: what dgraph.generate of the whole graph on its GPU says -> (refused, text).

    generate() checks before it allocates: when it would refuse, it is called (and raises at once);
    when it would build (by the one-sort build, or the streaming one), it is not run, and the text
    says how much of the GPU it would take."""
    import dgraph
    from dgraph.backend.device_memory import available, build_bytes, partitioned_build_bytes

    n, m = 1 << scale, edgefactor << scale
    free, total = available()
    one_sort, streamed = build_bytes(m, False, False), partitioned_build_bytes(n, m, False, False, 1)
    if one_sort <= free or streamed <= free:
        how = "one-sort" if one_sort <= free else "streaming"
        return False, (f"fits on one GPU of this size: the {how} build needs about "
                       f"{min(one_sort if one_sort <= free else streamed, streamed) / 2**30:.1f} GiB of "
                       f"{free / 2**30:.1f} GiB free ({total / 2**30:.1f} GiB)")
    try:
        dgraph.generate("rmat", scale=scale, edgefactor=edgefactor, backend="cupy")
    except dgraph.GraphTooLargeError as exc:
        return True, str(exc)
    return False, "generate() built it"


def _hub(shard):
    return int(shard.degree.argmax())


def _pool_bytes():
    import cupy as cp

    pool = cp.get_default_memory_pool()
    free, total = cp.cuda.runtime.memGetInfo()
    return {"pool_used": int(pool.used_bytes()), "pool_total": int(pool.total_bytes()), "device_free": int(free),
            "device_total": int(total)}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scale", type=int, default=28)
    ap.add_argument("--edgefactor", type=int, default=16)
    ap.add_argument("--gpus", type=int, default=2, help="partitions: one per GPU (one per worker on the CPU)")
    ap.add_argument("--backend", default="cupy", choices=["cupy", "numpy"])
    ap.add_argument("--protocol", default="tcp", choices=["tcp", "ucx"])
    ap.add_argument("--repeat", type=int, default=3, help="timed BFS runs (the last is checked)")
    ap.add_argument("--out", help="write the figures here (JSON)")
    args = ap.parse_args(argv)

    import dgraph
    from dgraph.cluster import connect
    from dgraph.partition.verify import verify_bfs, verify_pagerank, verify_wcc, violations

    report = {"scale": args.scale, "edgefactor": args.edgefactor, "partitions": args.gpus, "backend": args.backend,
              "date": time.strftime("%Y-%m-%d %H:%M:%S")}
    failed = {}

    t_start = time.perf_counter()

    def say(key, value):
        report[key] = value
        print(f"[{time.perf_counter() - t_start:7.1f} s] {key}: {json.dumps(value) if not isinstance(value, str) else value}",
              flush=True)

    t = time.perf_counter()
    if args.backend == "cupy":
        client = connect("cuda", protocol=args.protocol)
    else:
        client = connect(workers=args.gpus)
    say("cluster_s", round(time.perf_counter() - t, 2))
    workers = sorted(client.scheduler_info()["workers"])
    if args.backend == "cupy":
        refused, text = client.submit(_one_gpu_refusal, args.scale, args.edgefactor, workers=[workers[0]],
                                      pure=False).result()
        say("one_gpu", {"refused": refused, "message": text})
        if refused and "GPUs of this size" not in text:
            failed["one_gpu"] = text

    t = time.perf_counter()
    PG = dgraph.generate_partitioned("rmat", args.gpus, scale=args.scale, edgefactor=args.edgefactor,
                                     backend=args.backend, client=client)
    build_s = time.perf_counter() - t
    say("build_s", round(build_s, 3))
    say("build", {"transport": PG.build_stats["transport"],
                  "partitions": [{k: v for k, v in s.items() if k != "bounds"} for s in PG.build_stats["partitions"]]})
    say("vertices", PG.num_vertices)
    say("arcs", PG.num_arcs)
    if args.backend == "cupy":
        say("memory_after_build", client.run(_pool_bytes))

    src = client.submit(_hub, PG.shards[0], workers=[PG.workers[0]], pure=False).result()
    say("bfs_source", src)
    times = []
    for _ in range(args.repeat):
        r = dgraph.bfs(PG, src)
        times.append(r.run_time)
    t = time.perf_counter()
    rep = verify_bfs(PG, r, src)
    report["bfs_verify_s"] = round(time.perf_counter() - t, 2)
    edges = rep["traversed_arcs"] // 2      # undirected: each edge is stored as two arcs
    best = min(times)
    say("bfs", {"times_s": [round(x, 5) for x in times], "supersteps": r.supersteps, "reached": rep["reached"],
                "traversed_edges": edges, "gteps_best": round(edges / best / 1e9, 2),
                "gteps_median": round(edges / sorted(times)[len(times) // 2] / 1e9, 2), "checks": rep,
                "verify_s": report["bfs_verify_s"]})
    if violations(rep):
        failed["bfs"] = violations(rep)

    r = dgraph.pagerank(PG, iterations=20)
    t = time.perf_counter()
    rep = verify_pagerank(PG, r)
    say("pagerank", {"time_s": round(r.run_time, 4), "supersteps": r.supersteps, "checks": rep,
                     "verify_s": round(time.perf_counter() - t, 2), "phases": r.phases})
    if violations(rep):
        failed["pagerank"] = violations(rep)

    r = dgraph.wcc(PG)
    say("wcc_run", {"time_s": round(r.run_time, 4), "supersteps": r.supersteps, "phases": r.phases})
    t = time.perf_counter()
    rep = verify_wcc(PG, r)
    say("wcc", {"time_s": round(r.run_time, 4), "supersteps": r.supersteps, "checks": rep,
                "verify_s": round(time.perf_counter() - t, 2)})
    if violations(rep):
        failed["wcc"] = violations(rep)
    if args.backend == "cupy":
        say("memory_after_runs", client.run(_pool_bytes))

    report["failed"] = failed
    if args.out:
        with open(args.out, "w") as f:
            json.dump(report, f, indent=1)
    if failed:
        print(f"CHECKS FAILED: {json.dumps(failed)}", file=sys.stderr, flush=True)
        return 1
    print("all checks passed", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
