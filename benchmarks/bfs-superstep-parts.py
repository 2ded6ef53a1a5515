"""Where a partitioned BFS superstep's GPU time goes, function by function (one GPU, no Dask).

Usage: python3 benchmarks/bfs-superstep-parts.py OUT.txt --scale 26 [--partitions 2]

The graph is cut into P shards held by this process on one GPU and run with the local executor,
which calls the same superstep and receive code as the spmd executor on each shard (only the
transport differs).  Each wrapped function waits for the GPU before and after, so the figures are
each call's own time (the run is slower than an unwrapped one).  Prints a table per superstep.
"""
import argparse
import collections
import time

import numpy as np

import dgraph


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--scale", type=int, default=26)
    ap.add_argument("--partitions", type=int, default=2)
    args = ap.parse_args()
    import cupy as cp

    from dgraph.algorithms.bfs import gpu as bfs_gpu
    from dgraph.algorithms.bfs import program as B
    from dgraph.algorithms.bfs import union as gpu_frontier
    from dgraph.backend import to_numpy

    sync = cp.cuda.get_current_stream().synchronize
    spent = collections.defaultdict(float)
    calls = collections.Counter()

    def wrap(owner, name, label):
        fn = getattr(owner, name)

        def timed(*a, **k):
            sync()
            t = time.perf_counter()
            out = fn(*a, **k)
            sync()
            spent[label] += time.perf_counter() - t
            calls[label] += 1
            return out
        setattr(owner, name, timed)

    G = dgraph.generate("rmat", scale=args.scale, backend="cupy")
    src = int(np.argmax(to_numpy(G.out_degree())))
    PG = G.partition(args.partitions, client=False)
    del G
    dgraph.bfs(PG, src)  # compile and warm
    for owner, name, label in [(B.BFS, "init", "init"), (B.BFS, "superstep", "superstep (all)"),
                               (B.BFS, "receive", "receive (all)"), (B.BFS, "final_contribution", "final pairs"),
                               (B.BFS, "final_receive", "final merge"),
                               (bfs_gpu, "push", "  push visit"), (bfs_gpu, "pull", "  pull visit"),
                               (B, "_frontier_payload", "  payload"),
                               (gpu_frontier.FrontierUnion, "union", "  union")]:
        wrap(owner, name, label)
    lines = []
    for rep in range(3):
        spent.clear()
        calls.clear()
        t = time.perf_counter()
        r = dgraph.bfs(PG, src)
        sync()
        total = time.perf_counter() - t
        lines.append(f"run {rep}: {total * 1e3:.2f} ms wall (wrapped), {r.supersteps} supersteps, "
                     f"{args.partitions} shards on one GPU")
        for label in spent:
            lines.append(f"  {label:18s} {spent[label] * 1e3:8.3f} ms in {calls[label]} calls")
    lines.append("steps: " + "; ".join(f"{s['direction']} {s['frontier']}" for s in r.stats_records))
    text = "\n".join(lines)
    print(text)
    with open(args.out, "w") as f:
        f.write(text + "\n")


if __name__ == "__main__":
    main()
