"""``dgraph bench core_number|scc|louvain|hits|jaccard|random_walks``: the algorithms issue 23 added,
timed beside the libraries that have them, measured in the same run.

=============  ==========================================  ====================================
algorithm      anchors (when installed)                    what is compared
=============  ==========================================  ====================================
core_number    networkit ``CoreDecomposition``,            core numbers, equal
               igraph ``coreness``
scc            scipy ``connected_components(strong)``,     components (smallest id), equal
               networkit ``StronglyConnectedComponents``,
               igraph ``connected_components("strong")``
louvain        networkit ``PLM``, igraph                   modularity of each partition
               ``community_multilevel``                    (same formula, resolution 1)
hits           scipy SpMV power iteration,                hubs and authorities, L1 distance
               igraph ``hub_score``
jaccard        networkit ``JaccardIndex``,                 the coefficients of the same pairs
               igraph ``similarity_jaccard(pairs=...)``
random_walks   igraph ``random_walk`` (one walk a call:    every step an edge; walks a second
               timed on ``min(walks, 1000)`` walks)
=============  ==========================================  ====================================

The anchors run on the simple graph (self loops and duplicate edges dropped) where the algorithm
is defined on one; for core_number, jaccard and louvain dgraph runs on the graph without its self
loops too (``G.drop_self_loops()``, not timed), so both sides answer the same question.
``jaccard`` times the coefficients of the graph's first ``min(E, 1,000,000)`` undirected edges
as pairs (link prediction's usual query); ``random_walks`` walks ``min(V, 100,000)`` starts
(evenly spaced ids) for 20 steps, seed 0.
"""

from __future__ import annotations

import statistics
import time

import numpy as np

from ..backend import to_numpy
from ..progress import tick
from .algorithms import NOT_INSTALLED, _anchor, _Edges, _igraph_graph, _networkit_graph, _timed, _try_import, _version
from .memory import graph_bytes, peak_memory

ALGORITHMS = ("core_number", "scc", "louvain", "hits", "jaccard", "random_walks")

JACCARD_PAIRS = 1_000_000
WALKS, WALK_LENGTH, IGRAPH_WALKS = 100_000, 20, 1_000


# -- the runs --------------------------------------------------------------------------------------

def _walk_starts(G):
    n = G.num_vertices
    k = min(n, WALKS)
    return np.unique(np.linspace(0, n - 1, k).astype(np.int64)) if n else np.zeros(0, np.int64)


def _pairs(G):
    E = _Edges(G, False)
    keep = E.src != E.dst
    u, v = E.src[keep][:JACCARD_PAIRS], E.dst[keep][:JACCARD_PAIRS]
    return np.column_stack([u, v]).astype(np.int64)


def _call(G, algorithm, extra):
    import dgraph  # noqa: PLC0415

    if algorithm == "core_number":
        return lambda: dgraph.core_number(G, self_loops="ignore")
    if algorithm == "scc":
        return lambda: dgraph.scc(G)
    if algorithm == "louvain":
        return lambda: dgraph.louvain(G, seed=0)
    if algorithm == "hits":
        return lambda: dgraph.hits(G)
    if algorithm == "jaccard":
        return lambda: dgraph.jaccard(G, extra["pairs"])
    return lambda: dgraph.random_walks(G, extra["starts"], WALK_LENGTH, seed=0)


def bench_breadth(G, algorithm, *, backend="numpy", repeat=5, anchors=True, graph_name=None):
    """Run ``dgraph.<algorithm>`` ``repeat`` times after a warm-up; returns a dict of figures in the
    shape :func:`dgraph.bench.algorithms.format_algorithm_report` prints."""
    from ..errors import InputError  # noqa: PLC0415

    if algorithm not in ALGORITHMS:
        raise InputError(f"algorithm={algorithm!r}: expected one of {', '.join(ALGORITHMS)}")
    if algorithm == "scc" and not G.directed:
        raise InputError("bench scc: the graph is undirected (strongly connected components are WCC's "
                         "there); add --directed")
    repeat = max(int(repeat), 1)
    if algorithm in ("core_number", "jaccard", "louvain") and G.num_self_loops:
        G = G.drop_self_loops()  # the anchors' simple graph (NetworkX refuses loops in core_number)
    G = G.to(backend)
    extra = {}
    if algorithm == "jaccard":
        extra["pairs"] = _pairs(G)
    if algorithm == "random_walks":
        extra["starts"] = _walk_starts(G)
    call = _call(G, algorithm, extra)
    r = call()  # warm-up: numba compilation, CSC builds
    tick()
    times, engine = [], []
    for _ in range(repeat):
        t = time.perf_counter()
        r = call()
        if backend == "cupy":
            import cupy as cp  # noqa: PLC0415

            cp.cuda.Device().synchronize()
        times.append(time.perf_counter() - t)
        engine.append(getattr(r, "run_time", None) or times[-1])
        tick()
    with peak_memory(backend) as mem:
        call()
    ms = statistics.median(times) * 1e3
    steps = max(int(getattr(r, "supersteps", 1) or 1), 1)
    fig = {
        "algorithm": algorithm, "graph": graph_name or G.name or "graph", "backend": backend,
        "vertices": G.num_vertices, "edges": G.num_edges, "directed": G.directed, "weighted": G.weighted,
        "repeat": repeat, "time_ms": ms, "time_ms_min": min(times) * 1e3,
        "engine_ms": statistics.median(engine) * 1e3, "supersteps": steps, "per_superstep_ms": ms / steps,
        "peak_run_bytes": mem["peak_bytes"], "graph_bytes": graph_bytes(G), "anchors": [],
        "implementation": getattr(r, "params", {}).get("implementation"),
    }
    edges = G.num_edges
    if algorithm == "jaccard":
        k = len(extra["pairs"])
        fig.update(rate_edges=k, rate_note=f"{k:,} pairs (the first undirected edges) a second: M pairs/s")
        fig["summary"] = f"mean coefficient {float(np.mean(to_numpy(r.jaccard))) if k else 0.0:.6f}"
    elif algorithm == "random_walks":
        k = len(extra["starts"]) * WALK_LENGTH
        fig.update(rate_edges=k, rate_note=f"{len(extra['starts']):,} walks x {WALK_LENGTH} steps: M steps/s")
        fig["summary"] = f"{int((to_numpy(r.paths)[:, -1] >= 0).sum()):,} walks went the whole length"
    elif algorithm == "hits":
        fig.update(rate_edges=edges * steps, rate_note=f"{edges:,} edges x {steps} iterations")
    else:
        fig.update(rate_edges=edges, rate_note=f"{edges:,} edges")
    fig["mteps"] = fig["rate_edges"] / (ms * 1e3) if ms else float("nan")
    if algorithm == "core_number":
        core = to_numpy(r.raw("core"))
        fig["summary"] = f"largest core number {int(core.max()) if len(core) else 0}"
        values = core
    elif algorithm == "scc":
        values = to_numpy(r.raw("component"))
        fig["summary"] = f"{len(np.unique(values)):,} components"
    elif algorithm == "louvain":
        values = to_numpy(r.raw("community"))
        fig["modularity"] = float(r.params["modularity"])
        fig["summary"] = f"{len(np.unique(values)):,} communities, modularity {fig['modularity']:.6f}"
    elif algorithm == "hits":
        values = (to_numpy(r.raw("hubs")), to_numpy(r.raw("authorities")))
    elif algorithm == "jaccard":
        values = to_numpy(r.jaccard)
    else:
        values = to_numpy(r.paths)
    if anchors:
        fig["anchors"] = ANCHORS[algorithm](G, values, extra, repeat)
    return fig


# -- the anchors -----------------------------------------------------------------------------------

def _simple_edges(G):
    """Each undirected edge once (each arc once when directed), no self loops, no duplicates."""
    E = _Edges(G, False)
    keep = E.src != E.dst
    src, dst = E.src[keep], E.dst[keep]
    if not E.directed:
        src, dst = np.minimum(src, dst), np.maximum(src, dst)
    key = np.unique(src.astype(np.int64) * max(E.n, 1) + dst)
    E.src, E.dst = key // max(E.n, 1), key % max(E.n, 1)
    return E


def _run(name, module, body, repeat):
    mod = _try_import(module)
    if mod is None:
        return _anchor(name, note=NOT_INSTALLED)
    try:
        ms, mn, note = body(mod, repeat)
        return _anchor(f"{name} ({module} {_version(mod)})", ms, mn, note)
    except Exception as e:  # noqa: BLE001 - an anchor that fails says so beside the figures
        return _anchor(name, note=f"failed: {type(e).__name__}: {e}")


def _equal_note(ref, got, what):
    ref, got = np.asarray(ref), np.asarray(got)
    if ref.shape == got.shape and np.array_equal(ref, got):
        return f"same {what}"
    return f"{what} DIFFER at {int((ref != got).sum()):,} of {len(got):,} vertices"


def _smallest_label(labels):
    labels = np.asarray(labels, dtype=np.int64)
    n = len(labels)
    if not n:
        return labels
    _, inv = np.unique(labels, return_inverse=True)
    smallest = np.full(inv.max() + 1, n, dtype=np.int64)
    np.minimum.at(smallest, inv, np.arange(n))
    return smallest[inv]


def _core_anchors(G, core, extra, repeat):
    E = _simple_edges(G)

    def networkit(nk, repeat):
        g = _networkit_graph(nk, E)
        ms, mn, out = _timed(lambda: nk.centrality.CoreDecomposition(g).run().scores(), repeat)
        return ms, mn, _equal_note(np.asarray(out, dtype=np.int64), core, "core numbers")

    def igraph(ig, repeat):
        g = _igraph_graph(ig, E)
        ms, mn, out = _timed(lambda: g.coreness(mode="all"), repeat)
        return ms, mn, _equal_note(np.asarray(out, dtype=np.int64), core, "core numbers")

    return [_run("networkit CoreDecomposition", "networkit", networkit, repeat),
            _run("igraph coreness", "igraph", igraph, repeat)]


def _scc_anchors(G, comp, extra, repeat):
    E = _Edges(G, False)

    def scipy(_, repeat):
        import scipy.sparse as sp  # noqa: PLC0415
        from scipy.sparse.csgraph import connected_components  # noqa: PLC0415

        A = sp.csr_matrix((np.ones(len(E.src)), (E.src, E.dst)), shape=(E.n, E.n))
        ms, mn, out = _timed(lambda: connected_components(A, directed=True, connection="strong")[1], repeat)
        return ms, mn, _equal_note(_smallest_label(out), comp, "components") + "; the CSR build not timed"

    def networkit(nk, repeat):
        g = _networkit_graph(nk, E)

        def run():
            c = nk.components.StronglyConnectedComponents(g)
            c.run()
            return c.getPartition().getVector()

        ms, mn, out = _timed(run, repeat)
        return ms, mn, _equal_note(_smallest_label(out), comp, "components")

    def igraph(ig, repeat):
        g = _igraph_graph(ig, E)
        ms, mn, out = _timed(lambda: g.connected_components(mode="strong").membership, repeat)
        return ms, mn, _equal_note(_smallest_label(out), comp, "components")

    return [_run("scipy connected_components(strong)", "scipy", scipy, repeat),
            _run("networkit StronglyConnectedComponents", "networkit", networkit, repeat),
            _run("igraph connected_components(strong)", "igraph", igraph, repeat)]


def modularity(src, dst, w, n, community, resolution=1.0):
    """Newman's modularity of ``community`` on the undirected graph of the edges ``src``-``dst``
    (each once, weights ``w`` or 1), as ``networkx.community.modularity`` defines it."""
    w = np.ones(len(src)) if w is None else np.asarray(w, dtype=np.float64)
    loops = src == dst
    m = w.sum()
    if m == 0:
        return 0.0
    deg = np.bincount(src, w, n) + np.bincount(dst, w, n)  # a self loop adds 2 to its vertex
    c = np.asarray(community, dtype=np.int64)
    inside = w[(c[src] == c[dst]) & ~loops].sum() + w[loops].sum()
    tot = np.bincount(c, deg, c.max() + 1 if n else 0)
    return float(inside / m - resolution * (tot ** 2).sum() / (4 * m * m))


def _louvain_anchors(G, community, extra, repeat):
    E = _simple_edges(G)
    E.directed = False
    mine = modularity(E.src, E.dst, None, E.n, community)

    def networkit(nk, repeat):
        g = _networkit_graph(nk, E)

        def run():
            p = nk.community.PLM(g, refine=False, gamma=1.0)
            p.run()
            return p.getPartition().getVector()

        ms, mn, out = _timed(run, repeat)
        q = modularity(E.src, E.dst, None, E.n, out)
        return ms, mn, f"modularity {q:.6f} against dgraph's {mine:.6f} ({q - mine:+.4f})"

    def igraph(ig, repeat):
        g = _igraph_graph(ig, E)
        ms, mn, out = _timed(lambda: g.community_multilevel().membership, repeat)
        q = modularity(E.src, E.dst, None, E.n, out)
        return ms, mn, f"modularity {q:.6f} against dgraph's {mine:.6f} ({q - mine:+.4f})"

    return [_run("networkit PLM", "networkit", networkit, repeat),
            _run("igraph community_multilevel", "igraph", igraph, repeat)]


def scipy_hits(A, iterations=100, tol=1e-8):
    """HITS by power iteration on a scipy CSR adjacency (hubs, authorities, each summing to 1):
    authorities ``A.T @ h``, hubs ``A @ a``, until the hubs move less than ``n * tol`` in L1."""
    n = A.shape[0]
    h = np.full(n, 1.0 / n)
    AT = A.T.tocsr()
    a = h
    for _ in range(iterations):
        last = h
        a = AT @ h
        h = A @ a
        h = h / h.max()
        a = a / a.max()
        if np.abs(h - last).sum() < n * tol:
            break
    return h / h.sum(), a / a.sum()


def _hits_anchors(G, values, extra, repeat):
    hub, auth = values
    E = _Edges(G, False)

    def l1(h, a):
        return f"L1 distance to dgraph's hubs {np.abs(np.asarray(h) - hub).sum():.1e}, " \
               f"authorities {np.abs(np.asarray(a) - auth).sum():.1e}"

    def scipy(_, repeat):
        import scipy.sparse as sp  # noqa: PLC0415

        src, dst = (E.src, E.dst) if E.directed else (np.r_[E.src, E.dst], np.r_[E.dst, E.src])
        A = sp.csr_matrix((np.ones(len(src)), (src, dst)), shape=(E.n, E.n))
        ms, mn, (h, a) = _timed(lambda: scipy_hits(A), repeat)
        return ms, mn, l1(h, a) + "; the CSR build not timed"

    def igraph(ig, repeat):
        g = _igraph_graph(ig, E)

        def run():
            h = np.asarray(g.hub_score(scale=False))
            a = np.asarray(g.authority_score(scale=False))
            return h / h.sum(), a / a.sum()

        ms, mn, (h, a) = _timed(run, repeat)
        return ms, mn, l1(h, a) + "; two calls (hubs, authorities), each its own ARPACK solve"

    return [_run("scipy SpMV power iteration", "scipy", scipy, repeat),
            _run("igraph hub_score + authority_score", "igraph", igraph, repeat)]


def _jaccard_anchors(G, values, extra, repeat):
    pairs = extra["pairs"]
    E = _simple_edges(G)
    E.directed = False

    def close(ref):
        ref = np.asarray(ref, dtype=np.float64)
        d = np.abs(ref - values).max() if len(ref) else 0.0
        return f"largest difference from dgraph's {d:.1e}"

    def networkit(nk, repeat):
        g = _networkit_graph(nk, E)
        q = [(int(u), int(v)) for u, v in pairs]
        ms, mn, out = _timed(lambda: nk.linkprediction.JaccardIndex(g).runOn(q), repeat)
        return ms, mn, close([s for _, s in out]) + "; the pair list built in Python, not timed"

    def igraph(ig, repeat):
        g = _igraph_graph(ig, E)
        q = [(int(u), int(v)) for u, v in pairs]
        ms, mn, out = _timed(lambda: g.similarity_jaccard(pairs=q), repeat)
        return ms, mn, close(out) + " (igraph's pair mode counts u and v in each other's neighbourhoods when " \
            "they are adjacent, which NetworkX and networkit do not); the pair list built in Python, not timed"

    return [_run("networkit JaccardIndex", "networkit", networkit, repeat),
            _run("igraph similarity_jaccard(pairs)", "igraph", igraph, repeat)]


def _walk_anchors(G, paths, extra, repeat):
    E = _Edges(G, False)
    starts = extra["starts"][:IGRAPH_WALKS]
    walks = len(extra["starts"])

    def igraph(ig, repeat):
        g = _igraph_graph(ig, E)
        mode = "out" if E.directed else "all"
        ms, mn, out = _timed(lambda: [g.random_walk(int(s), WALK_LENGTH + 1, mode=mode, stuck="return")
                                      for s in starts], repeat)
        scaled = ms * walks / max(len(starts), 1)
        return scaled, mn * walks / max(len(starts), 1), \
            f"{len(starts):,} walks timed ({ms:.1f} ms), scaled to {walks:,}; different random numbers"

    return [_run("igraph random_walk, one walk a call", "igraph", igraph, repeat)]


ANCHORS = {"core_number": _core_anchors, "scc": _scc_anchors, "louvain": _louvain_anchors, "hits": _hits_anchors,
           "jaccard": _jaccard_anchors, "random_walks": _walk_anchors}
