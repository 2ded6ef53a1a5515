"""Device memory of building a graph on the GPU and of a BFS on it, per generated edge, stored arc
and vertex (high-water marks of the bytes taken from CuPy's pool, by a memory hook): the figures
behind dgraph/backend/device_memory.py, and the BFS budget of issue 5 (12 B/arc + 16 B/vertex)."""

import cupy as cp

import dgraph
from dgraph.bench.memory import graph_bytes, peak_memory

pool = cp.get_default_memory_pool()


def peak(fn):
    """(fn(), high-water mark of pool bytes in use during fn, net of frees)."""
    with peak_memory("cupy") as box:
        out = fn()
    return out, box["peak_bytes"]


for spec in [dict(kind="rmat", scale=20), dict(kind="rmat", scale=22), dict(kind="rmat", scale=22, directed=True),
             dict(kind="grid", rows=1000, cols=1000), dict(kind="rmat", scale=20, weighted=True)]:
    kw = dict(spec)
    kind = kw.pop("kind")
    G, gen = peak(lambda: dgraph.generate(kind, backend="cupy", **kw))
    made = kw.get("scale") and 16 * 2 ** kw["scale"] or 2 * 1000 * 999
    n, arcs = G.num_vertices, G.num_arcs
    gb0 = graph_bytes(G)  # before the first BFS builds a directed graph's CSC
    _, run = peak(lambda: dgraph.bfs(G, source=0, direction="auto"))
    _, again = peak(lambda: dgraph.bfs(G, source=0, direction="auto"))
    gb = graph_bytes(G)
    print(f"{G.name}: n={n:,} arcs={arcs:,} generated={made:,} | generate peak {gen / 2**20:.1f} MiB = "
          f"{gen / made:.1f} B/generated edge, {gen / arcs:.1f} B/arc | graph {gb / 2**20:.1f} MiB "
          f"(CSC built: {G._csc is not None}) | first BFS peak {run / 2**20:.1f} MiB, second {again / 2**20:.1f} MiB "
          f"| graph+first run {(gb0 + run) / arcs:.2f} B/arc, graph+second {(gb + again) / arcs:.2f} B/arc; "
          f"budget {(12 * arcs + 16 * n) / 2**20:.1f} MiB: {max(gb0 + run, gb + again) / (12 * arcs + 16 * n):.2f}x")
    del G
    pool.free_all_blocks()


# where the first BFS on the grid allocates (CuPy's per-line allocation profile, dgraph's lines only)
import io  # noqa: E402
import contextlib  # noqa: E402

from cupy.cuda.memory_hooks import LineProfileHook  # noqa: E402

G = dgraph.generate("grid", rows=1000, cols=1000, backend="cupy")
pool.free_all_blocks()
hook = LineProfileHook(max_depth=12)
with hook:
    dgraph.bfs(G, source=0, direction="auto")
buf = io.StringIO()
with contextlib.redirect_stdout(buf):
    hook.print_report(file=buf)
lines = [ln for ln in buf.getvalue().splitlines() if "dgraph" in ln and ("MB" in ln or "GB" in ln)]
print("grid first BFS, allocations by line (MB):")
print("\n".join(lines[:40]))
