"""Issue 8 on fewer GPUs: BFS with 8 partitions on the GPUs at hand (several shards a GPU), spmd over
Dask's worker comm, butterfly fanout 1, 2, 4 and all-to-all; each run's depth and parent checked against
one GPU, with time, supersteps and bytes exchanged per superstep.  16 roots of degree >= 1 (seeded).

Usage: python3 benchmarks/simulated-8.py SCALE [PARTS]"""

import statistics
import sys

import numpy as np

import dgraph
from dgraph.backend import to_numpy
from dgraph.bench.bfs import traversed_edges
from dgraph.cluster import connect


def main():
    scale = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    parts = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    client = connect("cuda", timeout=120)
    ngpu = len(client.scheduler_info()["workers"])
    G = dgraph.generate("rmat", scale=scale, backend="cupy")
    deg = to_numpy(G.out_degree())
    rng = np.random.default_rng(0)
    roots = rng.choice(np.flatnonzero(deg >= 1), size=16, replace=False)
    PG = G.partition(parts, client=client, backend="cupy")
    print(f"rmat scale {scale}: {G.num_vertices:,} vertices, {G.num_arcs:,} arcs; {parts} partitions on {ngpu} GPUs "
          f"({parts // ngpu} shards a GPU), spmd over Dask worker comm")
    refs = {int(r): dgraph.bfs(G, int(r)) for r in roots}
    for exchange in ("butterfly:1", "butterfly:2", "butterfly:4", "all-to-all"):
        times, teps, per_step, steps, ok = [], [], [], [], 0
        dgraph.bfs(PG, int(roots[0]), exchange=exchange)  # warm-up
        for r in roots:
            res = dgraph.bfs(PG, int(r), exchange=exchange)
            ref = refs[int(r)]
            same = np.array_equal(to_numpy(res.raw("depth")), to_numpy(ref.raw("depth"))) and \
                np.array_equal(to_numpy(res.raw("parent")), to_numpy(ref.raw("parent")))
            ok += same
            times.append(res.run_time)
            teps.append(traversed_edges(G, ref.raw("depth")) / res.run_time)
            per_step.append(float(res.stats["bytes_exchanged"].mean()))
            steps.append(res.supersteps)
        print(f"  {exchange:12s} equal to 1 GPU: {ok}/16 roots | time median {statistics.median(times) * 1e3:8.2f} ms "
              f"| GTEPS median {statistics.median(teps) / 1e9:6.3f} | supersteps {min(steps)}-{max(steps)} "
              f"| exchanged per superstep {statistics.median(per_step) / 2**20:7.2f} MiB (median over roots)")


if __name__ == "__main__":  # the CUDA cluster spawns its workers: keep the script importable
    main()
