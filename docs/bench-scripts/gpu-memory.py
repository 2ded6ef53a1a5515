"""Device memory of building a graph on the GPU and of a BFS on it, per generated edge, stored arc
and vertex (CuPy pool high-water marks): the figures behind dgraph/backend/device_memory.py."""

import cupy as cp

import dgraph
from dgraph.bench.memory import graph_bytes

pool = cp.get_default_memory_pool()


def peak(fn):
    cp.cuda.get_current_stream().synchronize()
    pool.free_all_blocks()
    base = pool.used_bytes()
    out = fn()
    cp.cuda.get_current_stream().synchronize()
    return out, pool.total_bytes() - base


for spec in [dict(kind="rmat", scale=20), dict(kind="rmat", scale=22), dict(kind="rmat", scale=22, directed=True),
             dict(kind="grid", rows=1000, cols=1000), dict(kind="rmat", scale=20, weighted=True)]:
    kw = dict(spec)
    kind = kw.pop("kind")
    G, gen = peak(lambda: dgraph.generate(kind, backend="cupy", **kw))
    made = kw.get("scale") and 16 * 2 ** kw["scale"] or 2 * 1000 * 999
    n, arcs = G.num_vertices, G.num_arcs
    _, run = peak(lambda: dgraph.bfs(G, source=0, direction="auto"))
    gb = graph_bytes(G)
    print(f"{G.name}: n={n:,} arcs={arcs:,} generated={made:,} | generate peak {gen / 2**20:.1f} MiB = "
          f"{gen / made:.1f} B/generated edge, {gen / arcs:.1f} B/arc | graph {gb / 2**20:.1f} MiB "
          f"(CSC built: {G._csc is not None}) | first BFS peak {run / 2**20:.1f} MiB | graph+run "
          f"{(gb + run) / arcs:.2f} B/arc")
    del G
    pool.free_all_blocks()
