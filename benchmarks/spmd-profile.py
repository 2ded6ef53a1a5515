"""Where a partitioned run's time goes: 1 GPU against P GPUs, same call, with the spmd phases.

Usage: python3 benchmarks/spmd-profile.py OUT.json --scale 26 [--partitions 2]
       [--algorithms bfs wcc pagerank cdlp] [--repeat 3] [--launches lane direct]
       [--variants "bfs_bitmap_exchange=on" "bfs_bitmap_exchange=off"]

For each algorithm: the 1-GPU run (``dgraph.generate(..., backend="cupy")``, local executor, this
process's GPU 0) and the P-GPU spmd run on shards built by ``generate_partitioned`` (one worker a
GPU), medians of ``--repeat`` after a warm-up, answers compared.  Then one more P-GPU run with the
workers' superstep profile on (``dgraph.config.profile_supersteps``: each superstep split into kernel, exchange and
receive, every phase waited for), printed superstep by superstep beside the 1-GPU run's records.
With several ``--launches`` (``dgraph.config.spmd_launch``), the P-GPU runs are timed under each, the
modes alternating run by run; the first mode gives the main figure and the profiled run.
``--variants`` does the same for any ``dgraph.config`` settings (each variant ``name=value[,name=value]``,
values as the DGRAPH_* variables take them); every variant's answers are compared with the 1-GPU run.
"""
import argparse
import json
import statistics
import time

import numpy as np

import dgraph


def _run(name, G, src, **kw):
    if name == "bfs":
        return dgraph.bfs(G, src, **kw)
    if name == "wcc":
        return dgraph.wcc(G, **kw)
    if name == "pagerank":
        return dgraph.pagerank(G, iterations=20, **kw)
    if name == "cdlp":
        return dgraph.cdlp(G, iterations=10, **kw)
    if name == "sssp":
        return dgraph.sssp(G, src, **kw)
    raise SystemExit(f"unknown algorithm {name}")


def _timed(name, G, src, repeat, sync):
    times, r = [], None
    for _ in range(repeat + 1):
        t = time.perf_counter()
        r = _run(name, G, src)
        sync()
        times.append(time.perf_counter() - t)
    return statistics.median(times[1:]), r


def _to_pandas_s(r, repeat):
    """The time of ``r.to_pandas()``, the first call on a fresh result (every column to one pandas
    frame on this process; a Result keeps the columns it fetched, so only the first call moves them)."""
    t = time.perf_counter()
    r.to_pandas()
    return time.perf_counter() - t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--scale", type=int, default=26)
    ap.add_argument("--partitions", type=int, default=2)
    ap.add_argument("--algorithms", nargs="+", default=["bfs", "wcc", "pagerank", "cdlp"])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--launches", nargs="+", default=None, help="spmd_launch modes, alternating")
    ap.add_argument("--variants", nargs="+", default=None, help="config settings name=value[,...], alternating")
    args = ap.parse_args()
    if args.variants:
        from dgraph.config import _option

        variants = {v: {k: _option(k).parse(x) for k, x in (kv.split("=", 1) for kv in v.split(","))}
                    for v in args.variants}
    else:
        variants = {m: {"spmd_launch": m} for m in (args.launches or ["lane"])}
    import cupy as cp

    from dgraph.backend import to_numpy
    from dgraph.cluster import connect

    client = connect("cuda")
    sync = cp.cuda.get_current_stream().synchronize
    figures = []
    for weighted in (False, True):
        algos = [a for a in args.algorithms if (a == "sssp") == weighted]
        if not algos:
            continue
        # one GPU first, alone on GPU 0 (worker 0 shares that GPU): answers kept on the host
        G = dgraph.generate("rmat", scale=args.scale, weighted=weighted, backend="cupy")
        src = int(np.argmax(to_numpy(G.out_degree())))
        one = {}
        for name in algos:
            one_s, r = _timed(name, G, src, args.repeat, sync)
            one[name] = (one_s, {c: to_numpy(r.raw(c)) for c in r.columns},
                         [{k: v for k, v in s.items() if not isinstance(v, (list, dict))} for s in r.stats_records],
                         _to_pandas_s(r, args.repeat))
            del r
            cp.get_default_memory_pool().free_all_blocks()
        arcs = G.num_arcs
        del G
        cp.get_default_memory_pool().free_all_blocks()
        t = time.perf_counter()
        PG = dgraph.generate_partitioned("rmat", args.partitions, client=client, scale=args.scale, weighted=weighted,
                                         backend="cupy")
        print(f"rmat{args.scale}{' weighted' if weighted else ''}: {arcs:,} arcs; "
              f"{args.partitions}-GPU build {time.perf_counter() - t:.2f} s", flush=True)
        for name in algos:
            one_s, ref, one_steps, one_pd = one[name]
            first = next(iter(variants))
            by_launch, many, others_same = {m: [] for m in variants}, None, True
            for i in range(args.repeat + 1):  # the variants alternate run by run; the first round warms up
                for mode, settings in variants.items():
                    with dgraph.config.override(**settings):
                        t = time.perf_counter()
                        r = _run(name, PG, src)
                        sync()
                        if i:
                            by_launch[mode].append(time.perf_counter() - t)
                    if mode == first:
                        many = r
                    elif i == 0 and name in ("bfs", "wcc", "cdlp", "sssp"):
                        others_same &= all(np.array_equal(ref[c], to_numpy(r.raw(c))) for c in ref)
            by_launch = {m: statistics.median(v) for m, v in by_launch.items()}
            many_s = by_launch[first]
            many_pd = _to_pandas_s(many, args.repeat)
            exact = name in ("bfs", "wcc", "cdlp", "sssp")
            same = others_same and all(np.array_equal(ref[c], to_numpy(many.raw(c))) if exact else
                                       np.allclose(ref[c], to_numpy(many.raw(c)), rtol=1e-9, atol=1e-12) for c in ref)
            with dgraph.config.override(profile_supersteps=True, **variants[first]):  # to the workers
                prof = _run(name, PG, src)
            fig = {"algorithm": name, "scale": args.scale, "partitions": args.partitions, "one_gpu_ms": one_s * 1e3,
                   "many_gpu_ms": many_s * 1e3, "speedup": one_s / many_s, "same": bool(same),
                   "by_launch_ms": {m: v * 1e3 for m, v in by_launch.items()},
                   "phases_ms": {k: v * 1e3 for k, v in many.phases.items()}, "one_gpu_steps": one_steps,
                   "to_pandas_one_gpu_s": one_pd, "to_pandas_many_gpu_s": many_pd,
                   "profile_steps": [{k: v for k, v in s.items() if not isinstance(v, (list, dict))}
                                     for s in prof.stats_records],
                   "profile_phases_ms": {k: v * 1e3 for k, v in prof.phases.items()}}
            figures.append(fig)
            print(f"\n{name}: 1 GPU {fig['one_gpu_ms']:.2f} ms, {args.partitions} GPUs {fig['many_gpu_ms']:.2f} ms, "
                  f"speed-up {fig['speedup']:.2f}x, same answers: {same}", flush=True)
            if len(by_launch) > 1:
                print("  by variant: " + ", ".join(f"{m} {v * 1e3:.2f} ms ({one_s / v:.2f}x)" for m, v in by_launch.items()))
            print("  phases (ms): " + ", ".join(f"{k} {v:.2f}" for k, v in fig["phases_ms"].items()))
            print("  profiled run's phases (ms): " + ", ".join(f"{k} {v:.2f}" for k, v in fig["profile_phases_ms"].items()))
            print(f"  to_pandas(): 1 GPU {one_pd:.3f} s, {args.partitions} GPUs {many_pd:.3f} s "
                  f"({many_pd / one_pd:.2f}x the 1-GPU time)")
            for s in fig["profile_steps"]:
                parts = [f"{k}={s[k] * 1e3:.3f}" for k in ("time_s", "kernel_s", "exchange_s", "receive_s") if k in s]
                extra = [f"{k}={s[k]}" for k in ("direction", "frontier", "hooks", "bytes_exchanged", "batch_stop") if k in s]
                print(f"  step {s['superstep']}: " + " ".join(parts + extra))
            one_times = [f"{s.get('time_s', 0) * 1e3:.3f}" for s in one_steps]
            print("  1-GPU step times (ms): " + " ".join(one_times))
            with open(args.out, "w") as f:
                json.dump(figures, f, indent=1, default=str)
        del PG
        cp.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main()
