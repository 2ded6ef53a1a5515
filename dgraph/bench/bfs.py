"""``dgraph bench bfs``: BFS time, TEPS, supersteps and memory, beside its anchors.

Anchors, measured in the same run on the same graph:
- CPU: scipy.sparse.csgraph.breadth_first_order (the issue's anchor; C code),
  and graphblas-algorithms' single_source_shortest_path_length on
  SuiteSparse:GraphBLAS (its levels checked against dgraph's depths;
  "not installed" without python-graphblas).
- GPU: a level-synchronous BFS by CuPy sparse matrix-vector products (the
  "CuPy SpMV baseline"), and Gunrock v2.1's published H100 time as a constant.
Times exclude the warm-up run (kernel compilation, CSC build, first copies).
TEPS follows Graph500: edges of the traversed component / time, where an
undirected edge counts once.
"""

from __future__ import annotations

import statistics
import time

import numpy as np

from ..backend import to_numpy
from ..progress import tick
from .memory import graph_bytes, peak_memory

GUNROCK_H100_MS = {"rmat-scale20": 2.30, "grid-1000x1000": 285.0}


def pick_source(G, source):
    """'max-degree' (the anchors' choice), 'corner' (vertex 0) or a user vertex id."""
    if source in (None, "max-degree"):
        return G.ids.to_user(int(np.argmax(to_numpy(G.out_degree())))).item()
    if source == "corner":
        return G.ids.to_user(0).item()
    return source


def traversed_edges(G, depth) -> int:
    """Edges with a reached source: Graph500's count for TEPS (undirected edges once)."""
    deg = to_numpy(G.out_degree())
    reached = to_numpy(depth) >= 0
    arcs = int(deg[reached].sum())
    if G.directed:
        return arcs
    return arcs // 2 + 1 if arcs else 0  # self loops are rare enough not to matter here


def run_lengths(items):
    """['push', 'pull', 'pull'] -> 'push x1, pull x2'."""
    out = []
    for item in items:
        if out and out[-1][0] == item:
            out[-1][1] += 1
        else:
            out.append([item, 1])
    return ", ".join(f"{k} x{c}" for k, c in out)


def scipy_bfs_ms(G, source_internal, repeat):
    import scipy.sparse.csgraph as cg  # noqa: PLC0415

    A = G.to("numpy").to_scipy()
    times = []
    for _ in range(repeat + 1):
        t = time.perf_counter()
        cg.breadth_first_order(A, source_internal, directed=True, return_predecessors=True)
        times.append(time.perf_counter() - t)
        tick("anchor: scipy breadth_first_order")
    return statistics.median(times[1:]) * 1e3


def graphblas_bfs(G, source_internal, depth, repeat):
    """(ms or None, label, note): graphblas-algorithms' BFS levels, checked against dgraph's ``depth``."""
    from . import graphblas as gbl  # noqa: PLC0415

    try:
        ga = __import__(gbl.LIBRARY)
    except Exception:  # noqa: BLE001 - the anchor is simply absent
        return None, f"{gbl.NAME} single_source_shortest_path_length", "not installed"
    name = gbl.label(ga, "single_source_shortest_path_length")
    try:
        Gg = gbl.graph(ga, gbl.matrix(G.to("numpy"), values=False), G.directed)
        run = lambda: ga.algorithms.single_source_shortest_path_length(Gg, int(source_internal))  # noqa: E731
        times, levels = [], run()  # warm-up: the library's cached matrix properties
        for _ in range(repeat):
            t = time.perf_counter()
            levels = run()
            times.append(time.perf_counter() - t)
            tick("anchor: graphblas-algorithms BFS")
    except Exception as exc:  # noqa: BLE001 - an anchor must never take the benchmark down
        return None, name, f"failed: {type(exc).__name__}: {exc}"
    got = gbl.dense(levels, G.num_vertices, -1)
    bad = int(np.count_nonzero(got != to_numpy(depth)))
    return statistics.median(times) * 1e3, name, "same depths" if bad == 0 else f"depths DIFFER at {bad:,} vertices"


def spmv_bfs_ms(G, source_internal, repeat):
    """Level-synchronous BFS with cupyx.scipy.sparse SpMV (the GPU anchor)."""
    import cupy as cp  # noqa: PLC0415
    import cupyx.scipy.sparse as csp  # noqa: PLC0415

    Gd = G.to("cupy")
    n = Gd.num_vertices
    indptr, indices, _ = Gd.csc(edge_ids=False)
    AT = csp.csr_matrix((cp.ones(len(indices), dtype=cp.float32), indices, indptr), shape=(n, n))

    def run():
        depth = cp.full(n, -1, cp.int32)
        x = cp.zeros(n, cp.float32)
        x[source_internal] = 1
        depth[source_internal] = 0
        level = 0
        while True:
            level += 1
            y = AT @ x
            new = (y > 0) & (depth < 0)
            if not bool(new.any()):
                return depth
            depth[new] = level
            x = new.astype(cp.float32)

    times = []
    for _ in range(repeat + 1):
        cp.cuda.get_current_stream().synchronize()
        t = time.perf_counter()
        run()
        cp.cuda.get_current_stream().synchronize()
        times.append(time.perf_counter() - t)
        tick("anchor: CuPy SpMV BFS")
    return statistics.median(times[1:]) * 1e3


def bench_bfs(G, *, source=None, backend="numpy", direction="auto", repeat=5, anchors=True, graph_name=None):
    """Run the benchmark on one partition; returns a dict of figures (printed by :func:`format_report`).

    Partitioned runs: :func:`dgraph.bench.algorithms.bench_algorithm` with ``partitions``."""
    import dgraph  # noqa: PLC0415

    G = G.to(backend)
    src = pick_source(G, source)
    src_internal = G.ids.to_internal(src)
    if backend == "numpy":
        from ..algorithms.bfs import cpu as bfs_cpu  # noqa: PLC0415

        bfs_cpu.warm_up()  # BFS's numba visits, compiled before the timing
    graph_before = graph_bytes(G)
    # warm-up: compile, build the CSC (its memory is counted: a first run must fit too)
    with peak_memory(backend) as first:
        r = dgraph.bfs(G, src, direction=direction)
    times = []
    for _ in range(repeat):
        r = dgraph.bfs(G, src, direction=direction)
        times.append(r.run_time)
    # memory in a run of its own, never a timed one (tracemalloc slows every Python allocation)
    with peak_memory(backend) as mem:
        dgraph.bfs(G, src, direction=direction)
    ms = statistics.median(times) * 1e3
    edges = traversed_edges(G, r.raw("depth"))
    stats = r.stats
    out = {
        "graph": graph_name or G.name or "graph",
        "backend": backend,
        "vertices": G.num_vertices,
        "edges": G.num_edges,
        "arcs": G.num_arcs,
        "source": src,
        "direction": direction,
        "repeat": repeat,
        "time_ms": ms,
        "time_ms_min": min(times) * 1e3,
        "traversed_edges": edges,
        "mteps": edges / (ms * 1e3) if ms else float("nan"),
        "supersteps": r.supersteps,
        "directions": run_lengths(list(stats["direction"])) if len(stats) else "",
        "per_superstep_ms": ms / max(r.supersteps, 1),
        "peak_run_bytes": mem["peak_bytes"],
        "graph_bytes": graph_bytes(G),
        "first_run_bytes": None if first["peak_bytes"] is None else graph_before + first["peak_bytes"],
        "anchors": {},
        "anchor_notes": {},
        "stats": r.stats_records,
    }
    if anchors:
        if backend == "numpy":
            out["anchors"]["scipy breadth_first_order"] = scipy_bfs_ms(G, src_internal, repeat)
            ms, name, note = graphblas_bfs(G, src_internal, r.raw("depth"), repeat)
            out["anchors"][name] = ms
            out["anchor_notes"][name] = note
        else:
            out["anchors"]["CuPy SpMV BFS"] = spmv_bfs_ms(G, src_internal, repeat)
            key = _gunrock_key(G)
            if key:
                out["anchors"]["Gunrock v2.1 (H100, published)"] = GUNROCK_H100_MS[key]
    return out


def _gunrock_key(G):
    name = G.name or ""
    if name.startswith("rmat-scale20-ef16") and not G.directed:
        return "rmat-scale20"
    if name.startswith("grid-1000x1000"):
        return "grid-1000x1000"
    return None
