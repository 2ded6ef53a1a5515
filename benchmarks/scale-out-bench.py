"""Every algorithm on P GPUs against one GPU, same call: rmat graphs built on the workers.

Usage: python3 benchmarks/scale-out-bench.py OUT.json --partitions 2 --scales 24 26
       [--algorithms bfs sssp pagerank wcc cdlp] [--repeat 3] [--backend cupy]

One Dask cluster for all (LocalCUDACluster, one worker a GPU; a CPU cluster with --backend numpy).
For each scale and algorithm: dgraph.bench.algorithms.bench_algorithm with --build stream (each
worker generates its shard, generate_partitioned), the one-partition run of the same call on GPU 0
of this process as the anchor (answers compared).  Prints each report; writes every figure."""
import argparse
import json

import dgraph
from dgraph.bench.algorithms import bench_algorithm, format_algorithm_report


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--partitions", type=int, default=2)
    ap.add_argument("--scales", type=int, nargs="+", default=[24])
    ap.add_argument("--algorithms", nargs="+", default=["bfs", "sssp", "pagerank", "wcc", "cdlp"])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--backend", default="cupy")
    args = ap.parse_args()
    from dgraph.cluster import connect

    client = connect("cuda") if args.backend == "cupy" else connect(workers=args.partitions)
    figures = []
    for scale in args.scales:
        for weighted in (False, True):
            algos = [a for a in args.algorithms if (a == "sssp") == weighted]
            if not algos:
                continue
            import time

            t = time.perf_counter()
            G = dgraph.generate("rmat", scale=scale, weighted=weighted, backend=args.backend)
            one_gpu_build_s = time.perf_counter() - t
            print(f"rmat{scale}{' weighted' if weighted else ''}: built on one {args.backend} device in "
                  f"{one_gpu_build_s:.2f} s ({G.num_arcs:,} arcs)", flush=True)
            if args.backend == "cupy":
                import cupy as cp

                cp.get_default_memory_pool().free_all_blocks()
            for algo in algos:
                fig = bench_algorithm(G, algo, backend=args.backend, repeat=args.repeat, partitions=args.partitions,
                                      executor="spmd", client=client, build="stream",
                                      generate=("rmat", {"scale": scale}, 0))
                fig.pop("stats", None)
                fig["one_device_build_s"] = one_gpu_build_s
                print(format_algorithm_report(fig), flush=True)
                figures.append(fig)
                with open(args.out, "w") as f:
                    json.dump(figures, f, indent=1, default=str)
            del G


if __name__ == "__main__":
    main()
