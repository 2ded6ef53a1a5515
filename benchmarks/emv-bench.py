"""EMV programs against the built-in algorithms (issue 7), and multi-hop replication on a grid.

    python3 benchmarks/emv-bench.py rmat --scale 20 [--backend cupy] [--repeat 3]
    python3 benchmarks/emv-bench.py grid --rows 1000 --parts 4 [--executor local|spmd|tasks]

rmat: best-of-repeat wall time of dgraph.pagerank (30 iterations) vs the EMV PageRank, dgraph.bfs
(direction-optimizing default, and push-only) vs EMV BFS-Q and BFS-N, from the max-degree vertex;
every EMV answer is checked against the built-in one.  grid: the issue's plain PageRank (no dangling
vertices on a grid) and BFS-Q with n = 1, 2, 3 (and auto) hops of replicas on P range partitions:
exchanges (rounds) and time.
"""

import argparse
import time

import numpy as np

import dgraph
from dgraph.backend import to_numpy
from dgraph.emv import examples as ex


def best(fn, repeat):
    out, times = None, []
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        to_numpy(out.raw(out.columns[0]))
        times.append(time.perf_counter() - t)
    return out, min(times)


def rmat(args):
    G = dgraph.generate("rmat", scale=args.scale, seed=1, backend=args.backend)
    src = int(np.argmax(to_numpy(G.out_degree())))
    print(f"rmat scale {args.scale}: {G.num_vertices:,} vertices, {G.num_arcs:,} arcs, {args.backend}, "
          f"best of {args.repeat}")
    ex.pagerank(G, iterations=2), ex.bfs(G, src), ex.bfs(G, src, queue=False)  # compile the kernels
    dgraph.pagerank(G, iterations=2), dgraph.bfs(G, src)
    rows = []
    ref, t_ref = best(lambda: dgraph.pagerank(G, iterations=30), args.repeat)
    r, t = best(lambda: ex.pagerank(G, iterations=30), args.repeat)
    err = float(np.abs(to_numpy(r.raw("rank")) - to_numpy(ref.raw("pagerank"))).max())
    rows.append(("PageRank 30 it", t_ref, t, f"max |diff| {err:.1e}"))
    bref, tb = best(lambda: dgraph.bfs(G, src), args.repeat)
    _, tb_push = best(lambda: dgraph.bfs(G, src, direction="push"), args.repeat)
    depth = to_numpy(bref.raw("depth"))
    for name, q in (("BFS-Q", True), ("BFS-N", False)):
        r, t = best(lambda q=q: ex.bfs(G, src, queue=q), args.repeat)
        same = np.array_equal(to_numpy(r.raw("depth")), depth)
        rows.append((f"{name} vs bfs (auto)", tb, t, f"equal {same}, {len(r.stats)} iterations"))
        rows.append((f"{name} vs bfs (push)", tb_push, t, ""))
    print(f"{'':26s} {'built-in':>10s} {'EMV':>10s} {'ratio':>7s}")
    for name, a, b, note in rows:
        print(f"{name:26s} {a * 1e3:8.1f} ms {b * 1e3:8.1f} ms {b / a:6.2f}x  {note}")


def grid(args):
    client = None
    if args.executor != "local":
        client = dgraph.cluster.connect(workers=args.parts)
    G = dgraph.generate("grid", rows=args.rows, cols=args.rows)
    PG = G.partition(args.parts, client=client or False)
    n = G.num_vertices

    @dgraph.emv.edge_list
    def send_rank(v, edges):
        edges.send(v.rank / v.out_degree)

    @dgraph.emv.vertex
    def update(v, msg):
        v.rank = 0.15 / v.graph.num_vertices + 0.85 * msg

    pr = dgraph.emv.Program(vertex_state={"rank": "f8"}, steps=[send_rank, update], max_iterations=args.iterations)
    ref_pr = pr.run(G, init={"rank": 1.0 / n}).rank
    ref_bfs = dgraph.bfs(G, 0).depth
    print(f"grid {args.rows}x{args.rows}, {args.parts} range partitions, executor {args.executor}")
    print(f"{'':10s} {'hops':>5s} {'exchanges':>10s} {'time':>10s} {'bytes':>12s}  check  (bytes: the loop's,"
          " not the one-time setup exchange of arcs that n > 1 and auto need)")
    for hops in (1, 2, 3, "auto"):
        for name in args.algos.split(","):
            if name == "PageRank":
                run = lambda h=hops: pr.run(PG, init={"rank": 1.0 / n}, hops=h, executor=args.executor)  # noqa: E731
            else:
                run = lambda h=hops: ex.bfs(PG, 0, hops=h, executor=args.executor)  # noqa: E731
            r, t = best(run, args.repeat)
            col = r.raw("rank") if name == "PageRank" else r.raw("depth")
            ok = np.array_equal(to_numpy(col), ref_pr if name == "PageRank" else ref_bfs)
            st = r.stats
            loop = st[st["setup"] != 1] if "setup" in st else st
            rounds = len(loop)
            nbytes = int(loop["bytes_exchanged"].sum()) if "bytes_exchanged" in loop else 0
            print(f"{name:10s} {str(st['hops'].iloc[-1]) + ('*' if hops == 'auto' else ''):>5s} {rounds:10d} "
                  f"{t * 1e3:8.1f} ms {nbytes:12,d}  {'same bits' if ok else 'DIFFERENT'}")
    if client is not None:
        dgraph.cluster.close()


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=["rmat", "grid"])
    ap.add_argument("--scale", type=int, default=20)
    ap.add_argument("--rows", type=int, default=1000)
    ap.add_argument("--parts", type=int, default=4)
    ap.add_argument("--iterations", type=int, default=30)
    ap.add_argument("--executor", default="local", choices=["local", "tasks", "spmd"])
    ap.add_argument("--backend", default="numpy")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--algos", default="PageRank,BFS-Q", help="grid: PageRank, BFS-Q or both")
    a = ap.parse_args()
    rmat(a) if a.what == "rmat" else grid(a)
