"""What the GPUs and the CUDA API do in a run: 1 GPU against P, from CUPTI traces (PyTorch's profiler).

Usage: python3 benchmarks/gpu-trace.py OUT_DIR --scale 26 [--partitions 2] [--algorithm bfs] [--runs 2]

The 1-GPU run (``dgraph.generate(..., backend="cupy")``, local executor, this process) and the
P-GPU spmd run (``generate_partitioned``, one worker a GPU) are each warmed up, then traced for
``--runs`` runs with ``torch.profiler`` (CUPTI: every kernel, copy, memset and CUDA API call of
the process, CuPy's and NCCL's included; nothing of PyTorch is used but its profiler).  Writes
OUT_DIR/one.json.gz and OUT_DIR/worker-Q.json.gz (Chrome traces, open them in Perfetto) and prints,
for the last traced run of each: the GPU's busy time by kernel, the gaps in which the GPU idled,
and the API calls that took longer than 20 us (allocations, synchronizations, copies).

This is a profiling aid for docs/BENCHMARKS.md; the figures it prints are those of a traced run
(CUPTI adds a little to each launch), so time runs with spmd-profile.py.
"""
import argparse
import gzip
import json
import os
import statistics
import time

import numpy as np

import dgraph

_PROF = {}


def _run(name, G, src):
    if name == "bfs":
        return dgraph.bfs(G, src)
    if name == "wcc":
        return dgraph.wcc(G)
    if name == "sssp":
        return dgraph.sssp(G, src)
    if name == "pagerank":
        return dgraph.pagerank(G, iterations=20)
    raise SystemExit(f"unknown algorithm {name}")


def start_trace(dask_worker=None):
    """Start CUPTI tracing in this process (a worker, through ``client.run``, or the client)."""
    import torch  # noqa: PLC0415

    prof = torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU,
                                              torch.profiler.ProfilerActivity.CUDA])
    prof.start()
    # on a worker, kept on the worker: client.run ships this module's functions by value, globals and all
    store = dask_worker.__dict__ if dask_worker is not None else _PROF
    store["_dgraph_trace"] = prof
    return os.getpid()


def stop_trace(path, dask_worker=None):
    """Stop tracing and write the Chrome trace to ``path`` (gzipped)."""
    prof = (dask_worker.__dict__ if dask_worker is not None else _PROF).pop("_dgraph_trace")
    prof.stop()
    raw = path + ".tmp.json"
    prof.export_chrome_trace(raw)
    with open(raw, "rb") as f, gzip.open(path, "wb") as g:
        g.write(f.read())
    os.remove(raw)
    return path


def summarize(path, marks=None, label=""):
    """Busy time by kernel, idle gaps and slow API calls of the last run in a trace."""
    with gzip.open(path, "rt") as f:
        events = json.load(f)["traceEvents"]
    gpu = [e for e in events if e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")]
    api = [e for e in events if e.get("ph") == "X" and e.get("cat") in ("cuda_runtime", "cuda_driver")]
    if not gpu:
        print(f"{label}: no GPU events in {path}")
        return {}
    gpu.sort(key=lambda e: e["ts"])
    api.sort(key=lambda e: e["ts"])
    # the last run: from the first API call after the largest host gap between API calls
    gaps = [(api[i + 1]["ts"] - (api[i]["ts"] + api[i]["dur"]), i + 1) for i in range(len(api) - 1)]
    start = api[max(gaps)[1]]["ts"] if gaps else gpu[0]["ts"]
    run_gpu = [e for e in gpu if e["ts"] >= start]
    run_api = [e for e in api if e["ts"] >= start]
    t0 = start
    end = max(max(e["ts"] + e["dur"] for e in run_gpu), max(e["ts"] + e["dur"] for e in run_api))
    by_kernel = {}
    for e in run_gpu:
        k = e["name"][:60]
        n, d = by_kernel.get(k, (0, 0.0))
        by_kernel[k] = (n + 1, d + e["dur"])
    busy = sum(d for _, d in by_kernel.values())
    print(f"\n== {label}: last run {end - t0:.0f} us from its first API call, GPU busy {busy:.0f} us")
    for k, (n, d) in sorted(by_kernel.items(), key=lambda kv: -kv[1][1])[:18]:
        print(f"  {d:9.1f} us  {n:4d}x  {k}")
    print("  GPU timeline (us from the run's start; gaps over 30 us marked):")
    last = t0
    for e in run_gpu:
        gap = e["ts"] - last
        if gap > 30:
            print(f"    -- idle {gap:8.1f} us")
        if e["dur"] > 15 or gap > 30:
            print(f"    {e['ts'] - t0:9.1f} +{e['dur']:8.1f}  {e['name'][:70]}")
        last = max(last, e["ts"] + e["dur"])
    slow = [e for e in run_api if e["dur"] > 20]
    print(f"  API calls over 20 us ({len(slow)} of {len(run_api)}):")
    for e in slow[:60]:
        print(f"    {e['ts'] - t0:9.1f} +{e['dur']:8.1f}  {e['name']}")
    api_sum = {}
    for e in run_api:
        n, d = api_sum.get(e["name"], (0, 0.0))
        api_sum[e["name"]] = (n + 1, d + e["dur"])
    print("  API time by call: " + ", ".join(f"{k} {d:.0f} us/{n}x" for k, (n, d) in
                                             sorted(api_sum.items(), key=lambda kv: -kv[1][1])[:10]))
    return {"run_us": end - t0, "busy_us": busy}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out_dir")
    ap.add_argument("--scale", type=int, default=26)
    ap.add_argument("--partitions", type=int, default=2)
    ap.add_argument("--algorithm", default="bfs")
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--warm", type=int, default=3)
    args = ap.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    import cupy as cp

    from dgraph.backend import to_numpy
    from dgraph.cluster import connect

    client = connect("cuda")
    sync = cp.cuda.get_current_stream().synchronize
    weighted = args.algorithm == "sssp"
    G = dgraph.generate("rmat", scale=args.scale, weighted=weighted, backend="cupy")
    src = int(np.argmax(to_numpy(G.out_degree())))
    times = []
    for _ in range(args.warm):
        t = time.perf_counter()
        r = _run(args.algorithm, G, src)
        sync()
        times.append(time.perf_counter() - t)
    print(f"1 GPU untraced: {statistics.median(times) * 1e3:.2f} ms (median of {args.warm})", flush=True)
    start_trace()
    for _ in range(args.runs):
        time.sleep(0.05)  # the gap summarize() finds the last run by
        r = _run(args.algorithm, G, src)
        sync()
    one = stop_trace(os.path.join(args.out_dir, "one.json.gz"))
    del r, G
    cp.get_default_memory_pool().free_all_blocks()
    PG = dgraph.generate_partitioned("rmat", args.partitions, client=client, scale=args.scale, weighted=weighted,
                                     backend="cupy")
    times = []
    for _ in range(args.warm):
        t = time.perf_counter()
        r = _run(args.algorithm, PG, src)
        times.append(time.perf_counter() - t)
    print(f"{args.partitions} GPUs untraced: {statistics.median(times) * 1e3:.2f} ms; phases (ms) "
          + ", ".join(f"{k} {v * 1e3:.2f}" for k, v in r.phases.items()), flush=True)
    client.run(start_trace)
    for _ in range(args.runs):
        time.sleep(0.05)
        r = _run(args.algorithm, PG, src)
    print(f"{args.partitions} GPUs traced, last: {r.run_time * 1e3:.2f} ms; phases (ms) "
          + ", ".join(f"{k} {v * 1e3:.2f}" for k, v in r.phases.items()), flush=True)
    workers = sorted(client.scheduler_info()["workers"])
    paths = {}
    for i, w in enumerate(workers):
        paths[w] = client.run(stop_trace, os.path.join(args.out_dir, f"worker-{i}.json.gz"), workers=[w])[w]
    summarize(one, label="1 GPU")
    for i, w in enumerate(workers):
        summarize(paths[w], label=f"worker {i} of {args.partitions} ({w})")


if __name__ == "__main__":
    main()
