"""Where ``Result.to_pandas()`` of a partitioned GPU result spends its time, against one GPU's.

Usage: python3 benchmarks/to-pandas-profile.py [--scale 25] [--algorithm sssp] [--partitions 2]

One GPU: the columns' copies to the host, the vertex column, the DataFrame. P GPUs (spmd, one
worker a GPU): waiting for the result futures, the CUDA IPC read (``engine/ipc.py``: the workers'
exports, the client's opens and copies, the release), the assembly of the owned parts on the
client's GPU (``engine/remote.assemble``), the copies to the host, the vertex column, the
DataFrame; then ``to_pandas()`` whole on a fresh result of each, for the ratio issue 20 asks.
"""
import argparse
import time
import uuid

import numpy as np

import dgraph


def _run(name, G, src):
    runs = {"sssp": lambda: dgraph.sssp(G, src), "bfs": lambda: dgraph.bfs(G, src), "wcc": lambda: dgraph.wcc(G),
            "pagerank": lambda: dgraph.pagerank(G, iterations=20), "cdlp": lambda: dgraph.cdlp(G, iterations=10)}
    return runs[name]()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", type=int, default=25)
    ap.add_argument("--algorithm", default="sssp", choices=["sssp", "bfs", "wcc", "pagerank", "cdlp"])
    ap.add_argument("--partitions", type=int, default=2)
    args = ap.parse_args()
    import cupy as cp
    import pandas as pd

    from dgraph.backend import to_numpy
    from dgraph.cluster import connect
    from dgraph.engine import ipc
    from dgraph.engine.faults import wait_or_lost
    from dgraph.engine.remote import assemble

    client = connect("cuda")
    weighted = args.algorithm == "sssp"
    G = dgraph.generate("rmat", scale=args.scale, weighted=weighted, backend="cupy")
    src = int(np.argmax(to_numpy(G.out_degree())))

    def split(label, r):
        t = [time.perf_counter()]
        cols = {k: r.raw(k) for k in r.columns}
        cp.cuda.get_current_stream().synchronize()
        t.append(time.perf_counter())
        host = {k: to_numpy(v) for k, v in cols.items()}
        t.append(time.perf_counter())
        vertex = r.vertex
        t.append(time.perf_counter())
        pd.DataFrame({"vertex": vertex, **host})
        t.append(time.perf_counter())
        d = np.diff(t) * 1e3
        print(f"{label}: columns {d[0]:.1f} ms, to host {d[1]:.1f}, vertex {d[2]:.1f}, DataFrame {d[3]:.1f} "
              f"({', '.join(f'{k} {v.dtype} {v.nbytes / 1e6:.0f} MB' for k, v in host.items())})", flush=True)

    for _ in range(2):
        r = _run(args.algorithm, G, src)
        cp.cuda.get_current_stream().synchronize()
        split("1 GPU", r)
    whole = []
    for _ in range(3):
        r = _run(args.algorithm, G, src)
        cp.cuda.get_current_stream().synchronize()
        t = time.perf_counter()
        r.to_pandas()
        whole.append(time.perf_counter() - t)
    del r, G
    cp.get_default_memory_pool().free_all_blocks()
    PG = dgraph.generate_partitioned("rmat", args.partitions, client=client, scale=args.scale, weighted=weighted,
                                     backend="cupy")
    for _ in range(2):
        r = _run(args.algorithm, PG, src)
        remote = r._remote
        if remote is None:
            print(f"{args.partitions} GPUs: the result was amended (SSSP's hop pass runs at the first read): "
                  f"params {r.params}", flush=True)
            break
        t = [time.perf_counter()]
        futures = remote.futures()
        where = remote.workers[:len(futures)]
        wait_or_lost(client, futures, where, "profile")
        t.append(time.perf_counter())
        token = uuid.uuid4().hex  # ipc.fetch, step by step
        exports = [client.submit(ipc._export, f, token, workers=[w], pure=False) for f, w in zip(futures, where)]
        handles = client.gather(exports)
        t.append(time.perf_counter())
        got = [{name: (ipc._open(*v[1:4]) if v[0] == "ipc" else v[1]) for name, v in cols.items()}
               for _, cols in handles]
        cp.cuda.get_current_stream().synchronize()
        t.append(time.perf_counter())
        client.run(ipc._release, token, workers=sorted(set(where)))
        t.append(time.perf_counter())
        cols = got[0] if remote.replicated else assemble(remote.plan, got)
        cp.cuda.get_current_stream().synchronize()
        t.append(time.perf_counter())
        host = {k: to_numpy(v) for k, v in cols.items()}
        t.append(time.perf_counter())
        vertex = r.vertex
        pd.DataFrame({"vertex": vertex, **host})
        t.append(time.perf_counter())
        d = np.diff(t) * 1e3
        print(f"{args.partitions} GPUs: futures {d[0]:.1f} ms, exports {d[1]:.1f}, opens and copies {d[2]:.1f}, "
              f"release {d[3]:.1f}, assemble {d[4]:.1f}, to host {d[5]:.1f}, vertex + DataFrame {d[6]:.1f}", flush=True)
    many = []
    for _ in range(3):
        r = _run(args.algorithm, PG, src)
        t = time.perf_counter()
        r.to_pandas()
        many.append(time.perf_counter() - t)
    print(f"to_pandas(), rmat{args.scale} {args.algorithm}: 1 GPU {min(whole):.3f} s, {args.partitions} GPUs "
          f"{min(many):.3f} s ({min(many) / min(whole):.2f}x)")


if __name__ == "__main__":
    main()
