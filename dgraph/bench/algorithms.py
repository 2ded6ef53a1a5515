"""``dgraph bench sssp|pagerank|wcc|cdlp|triangle_count|lcc|bc``: time, rate, supersteps and memory, beside anchors.

Every anchor is measured in the same run, on the same graph, in this process:

======== ============================================ ============================== ==============================
ALGO     scipy                                        python-igraph                  networkit
======== ============================================ ============================== ==============================
sssp     ``csgraph.dijkstra`` from the source         ``Graph.distances`` (Dijkstra) ``distance.Dijkstra``
pagerank an SpMV power iteration, same damping,       ``Graph.pagerank`` (PRPACK,    ``centrality.PageRank``, same
         iterations and dangling rule                 run to convergence)            iterations, sinks distributed
wcc      ``csgraph.connected_components`` (weak)      ``connected_components(weak)`` ``(Weakly)ConnectedComponents``
cdlp     (none)                                       not timed: a different         ``community.PLP`` (different
                                                      algorithm                      update and tie rules)
triangle (U @ U) * U summed, U the upper triangle of  ``transitivity_local_          ``sparsification.TriangleEdge
_count   the adjacency ordered by (degree, id), in    undirected`` (triangles per    Score`` (per edge; total = sum
         row blocks of bounded work                   vertex = lcc * d(d-1)/2)       / 3)
lcc      (none)                                       ``transitivity_local_          ``centrality.LocalClustering
                                                      undirected(mode="zero")``      Coefficient(turbo=True)``
bc       (none)                                       ``Graph.betweenness(sources=   not timed: ``centrality.
                                                      S)``, unnormalized             Betweenness`` has no source
                                                                                     subset (all n sources)
======== ============================================ ============================== ==============================

A fourth anchor, python-graphblas (SuiteSparse:GraphBLAS) through
graphblas-algorithms, is described in :mod:`dgraph.bench.graphblas`: its
Bellman-Ford for sssp, its PageRank loop for a fixed number of iterations
(and its ``pagerank`` as called, which stops on its own tolerance),
``total_triangles`` and ``clustering``; it has no wcc, cdlp or bc.

triangle_count and lcc anchors run on the simple undirected graph (self
loops and repeated edges removed, directions dropped: dgraph's semantics),
built once, not timed.  On a directed graph LDBC's LCC counts the arcs
among the in- and out-neighbours, which neither igraph nor networkit
computes: their LCC anchors are then not timed, and say so.  BC is
benchmarked from one source (``--source``, the maximum-degree vertex by
default) or from ``sources=K`` of them (that one and K-1 more sampled
uniformly, seed 0, among the vertices of non-zero degree), unnormalized
(``normalized=False``: raw dependency sums, halved on an undirected graph as
NetworkX and igraph do), so the values compare directly.

An anchor whose library is not installed is reported as such; nothing here
needs igraph, networkit or graphblas.  Times are medians of ``repeat`` runs after one
warm-up run (numba compilation, the CSC build), for dgraph and every anchor
alike; dgraph's memory is read in one more run, untimed (the CPU's
tracemalloc slows every Python allocation: until 2026-11-23 the timed runs
were traced, which cost runs of many supersteps up to 2x).  dgraph's time is the whole call (argument checks included, e.g.
SSSP's pass over the weights); each anchor's is its algorithm call alone:
building the anchor's own graph (an igraph or networkit graph, a transposed
scipy matrix) is done once, before, and is not timed.  Each anchor's output
is checked against dgraph's where the two compute the same thing, and the
report says how they compare.

Rates ("MTEPS", millions of edges per second; an undirected edge counts
once, as in Graph500): SSSP counts the edges of the component the source
reaches; WCC, triangle count and LCC every edge; PageRank and CDLP every
edge once per iteration (edges / time per iteration); BC, per source, the
edges of the component the source reaches, twice (the forward and the
backward pass), summed over the sources.
"""

from __future__ import annotations

import statistics
import time

import numpy as np

from ..backend import array_module, to_numpy
from ..progress import note, tick
from . import graphblas as gbl
from .bfs import _gunrock_key, pick_source
from .memory import graph_bytes, peak_memory
from .report import _bytes, rate

ALGORITHMS = ("sssp", "pagerank", "wcc", "cdlp", "triangle_count", "lcc", "bc")
DEFAULT_ITERATIONS = {"pagerank": 20, "cdlp": 10}

NOT_INSTALLED = "not installed"


# -- timing ---------------------------------------------------------------------------------------

def _timed(fn, repeat):
    """(median ms, min ms, last output) of ``repeat`` runs of fn() after one warm-up run."""
    out = fn()
    tick()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
        tick()
    return statistics.median(times) * 1e3, min(times) * 1e3, out


def _anchor(name, ms=None, ms_min=None, note=""):
    return {"name": name, "ms": ms, "ms_min": ms_min, "note": note}


def _try_import(module):
    try:
        return __import__(module, fromlist=["_"])
    except Exception:  # noqa: BLE001 - an anchor that cannot be imported is simply absent
        return None


def _version(mod):
    return getattr(mod, "__version__", "?")


# -- the anchors' own graphs (built once, not timed) ----------------------------------------------

class _Edges:
    """The graph's edges as numpy arrays for the anchor libraries: each undirected edge once."""

    def __init__(self, G, weighted):
        src, dst, w = (to_numpy(a) for a in G.coo())
        if not G.directed:
            keep = src <= dst
            src, dst = src[keep], dst[keep]
            w = None if w is None else w[keep]
        self.n = G.num_vertices
        self.directed = G.directed
        self.src, self.dst = src, dst
        self.w = w.astype(np.float64, copy=False) if (weighted and w is not None) else None


def _igraph_graph(ig, E):
    g = ig.Graph(n=E.n, edges=np.column_stack([E.src, E.dst]).astype(np.int64), directed=E.directed)
    if E.w is not None:
        g.es["weight"] = E.w.tolist()
    return g


def _networkit_graph(nk, E):
    ij = (E.src.astype(np.uint64), E.dst.astype(np.uint64))
    data = (E.w, ij) if E.w is not None else (np.ones(len(E.src), dtype=np.float64), ij)
    return nk.GraphFromCoo(data, n=E.n, weighted=E.w is not None, directed=E.directed)


def _compare_distances(ref, got, what="distances"):
    big = np.finfo(np.float64).max  # networkit: DBL_MAX when unreachable
    ref, got = (np.asarray(x, dtype=np.float64) for x in (ref, got))
    ref, got = (np.where(x >= big, np.inf, x) for x in (ref, got))
    if not np.array_equal(np.isinf(ref), np.isinf(got)):
        return f"{what} DIFFER: {int((np.isinf(ref) != np.isinf(got)).sum()):,} vertices reached by one only"
    fin = np.isfinite(ref)
    diff = float(np.max(np.abs(ref[fin] - got[fin]))) if fin.any() else 0.0
    return f"same {what}" if diff == 0 else f"{what} within {diff:.1e} (max |diff|)"


def _same_partition(a, b):
    """Whether two labelings group the vertices identically (labels may differ)."""
    a, b = np.asarray(a), np.asarray(b)
    if len(a) != len(b):
        return False
    pairs = np.unique(np.stack([a.astype(np.int64), b.astype(np.int64)]), axis=1)
    return pairs.shape[1] == len(np.unique(a)) == len(np.unique(b))


def reached_edges(G, reached):
    """Edges whose source is reached (an undirected edge once, as ``G.num_edges`` counts it)."""
    indptr, indices = to_numpy(G.indptr), to_numpy(G.indices)
    deg = np.diff(indptr)
    arcs = int(deg[reached].sum())
    if G.directed:
        return arcs
    src = np.repeat(np.arange(len(deg)), deg)
    loops = int(np.count_nonzero((src == indices) & reached[src]))
    return (arcs + loops) // 2


def _run_anchor(name, lib, fn):
    """``fn(module)`` measures one anchor; a library that is missing, or an anchor that fails, is reported."""
    note(f"anchor: {name}")
    mod = None
    if lib is not None:
        mod = _try_import(lib)
        if mod is None:
            return _anchor(name, note=NOT_INSTALLED)
    try:
        return fn(mod)
    except Exception as exc:  # noqa: BLE001 - an anchor must never take the benchmark down
        return _anchor(name, note=f"failed: {type(exc).__name__}: {exc}")


def _threads(nk):
    return f"{nk.getMaxNumberOfThreads()} threads"


# -- SSSP -----------------------------------------------------------------------------------------

def _sssp_anchors(G, s, dist, repeat):
    E = _Edges(G, weighted=True)

    def scipy_dijkstra(_):
        import scipy.sparse.csgraph as cg  # noqa: PLC0415

        A = G.to("numpy").to_scipy()
        ms, mn, d = _timed(lambda: cg.dijkstra(A, directed=True, indices=s), repeat)
        return _anchor("scipy csgraph.dijkstra", ms, mn, _compare_distances(d, dist))

    def igraph_distances(ig):
        g = _igraph_graph(ig, E)
        w = "weight" if E.w is not None else None
        ms, mn, d = _timed(lambda: g.distances(source=[s], weights=w, mode="out")[0], repeat)
        return _anchor(f"igraph {_version(ig)} distances (Dijkstra)", ms, mn,
                       _compare_distances(d, dist) + "; includes igraph's conversion of the weights and of the "
                       "result to and from Python lists")

    def networkit_dijkstra(nk):
        g = _networkit_graph(nk, E)

        def run():
            dj = nk.distance.Dijkstra(g, s, storePaths=False)
            dj.run()
            return dj

        ms, mn, dj = _timed(run, repeat)
        return _anchor(f"networkit {_version(nk)} Dijkstra", ms, mn, _compare_distances(dj.getDistances(), dist))

    def graphblas_bellman_ford(ga):
        Gg = gbl.graph(ga, gbl.matrix(G, weighted=True), G.directed)
        run = lambda: ga.algorithms.single_source_bellman_ford_path_length(Gg, s)  # noqa: E731
        ms, mn, d = _timed(run, repeat)
        return _anchor(gbl.label(ga, "single_source_bellman_ford_path_length"), ms, mn,
                       _compare_distances(gbl.dense(d, G.num_vertices, np.inf), dist))

    return [_run_anchor("scipy csgraph.dijkstra", None, scipy_dijkstra),
            _run_anchor("igraph distances (Dijkstra)", "igraph", igraph_distances),
            _run_anchor("networkit Dijkstra", "networkit", networkit_dijkstra),
            _run_anchor(f"{gbl.NAME} single_source_bellman_ford_path_length", gbl.LIBRARY, graphblas_bellman_ford)]


# -- PageRank -------------------------------------------------------------------------------------

def scipy_pagerank(AT, out_degree, damping, iterations):
    """PageRank by SpMV power iteration, the Graphalytics dangling rule (dgraph's formula).

    ``AT`` is the transposed 0/1 adjacency (row v holds v's in-edges), a scipy
    or a cupyx.scipy.sparse matrix (``out_degree`` then a CuPy array).
    """
    xp = array_module(out_degree)
    n = AT.shape[0]
    deg = out_degree.astype(xp.float64)
    inv = xp.where(deg > 0, 1.0 / xp.maximum(deg, 1.0), 0.0)
    dangling = deg == 0
    rank = xp.full(n, 1.0 / n if n else 0.0)
    for _ in range(iterations):
        base = ((1.0 - damping) + damping * float(rank[dangling].sum())) / max(n, 1)
        rank = base + damping * (AT @ (rank * inv))
    return rank


def _l1(a, b):
    return float(np.abs(np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)).sum())


def _pagerank_anchors(G, rank, damping, iterations, repeat):
    E = _Edges(G, weighted=False)
    Gn = G.to("numpy")
    deg = to_numpy(Gn.out_degree())

    def scipy_spmv(_):
        import scipy.sparse as sps  # noqa: PLC0415

        n = Gn.num_vertices
        A = sps.csr_matrix((np.ones(Gn.num_arcs), to_numpy(Gn.indices), to_numpy(Gn.indptr)), shape=(n, n))
        AT = A.T.tocsr()
        ms, mn, r = _timed(lambda: scipy_pagerank(AT, deg, damping, iterations), repeat)
        return _anchor(f"scipy SpMV power iteration ({iterations} iterations)", ms, mn,
                       f"L1 distance to dgraph's ranks {_l1(r, rank):.1e}")

    def igraph_prpack(ig):
        g = _igraph_graph(ig, E)
        ms, mn, r = _timed(lambda: g.pagerank(directed=E.directed, damping=damping, implementation="prpack"),
                           repeat)
        return _anchor(f"igraph {_version(ig)} pagerank (PRPACK)", ms, mn,
                       f"solved to convergence by PRPACK, not {iterations} iterations; "
                       f"L1 distance to dgraph's ranks {_l1(r, rank):.1e}")

    def networkit_pagerank(nk):
        g = _networkit_graph(nk, E)
        sinks = nk.centrality.SinkHandling.DistributeSinks

        def run():
            pr = nk.centrality.PageRank(g, damp=damping, tol=1e-300, distributeSinks=sinks)
            pr.maxIterations = iterations
            pr.run()
            return pr

        ms, mn, pr = _timed(run, repeat)
        scores = np.asarray(pr.scores(), dtype=np.float64)
        total = float(scores.sum())
        rule = ("sinks distributed" if abs(total - 1.0) < 1e-9 else
                f"its sink rule leaves out the rank of the {int((deg == 0).sum()):,} degree-0 vertices: "
                f"ranks sum to {total:.4f}")
        return _anchor(f"networkit {_version(nk)} PageRank ({_threads(nk)})", ms, mn,
                       f"{pr.numberOfIterations()} iterations, {rule}; "
                       f"L1 distance to dgraph's ranks {_l1(scores, rank):.1e}")

    def graphblas_loop(ga):
        Gg = gbl.graph(ga, gbl.matrix(G), G.directed)
        ms, mn, (r, _) = _timed(lambda: gbl.pagerank(Gg, damping, iterations), repeat)
        return _anchor(gbl.label(ga, f"pagerank loop, {iterations} iterations"), ms, mn,
                       f"{ms / max(iterations, 1):.3f} ms per iteration; "
                       f"L1 distance to dgraph's ranks {_l1(gbl.dense(r, Gn.num_vertices, 0.0), rank):.1e}")

    def graphblas_pagerank(ga):
        Gg = gbl.graph(ga, gbl.matrix(G), G.directed)
        ms, mn, r = _timed(lambda: ga.algorithms.pagerank(Gg, alpha=damping), repeat)
        _, k = gbl.pagerank(Gg, damping, 100, tol=1e-6)
        l1 = _l1(gbl.dense(r, Gn.num_vertices, 0.0), rank)
        return _anchor(gbl.label(ga, "pagerank, as called"), ms, mn,
                       f"stops on its own tolerance (L1 change < n x 1e-6) after {_plural(k, 'iteration')}, not "
                       f"{iterations}; L1 distance to dgraph's ranks {l1:.1e}")

    return [_run_anchor(f"scipy SpMV power iteration ({iterations} iterations)", None, scipy_spmv),
            _run_anchor("igraph pagerank (PRPACK)", "igraph", igraph_prpack),
            _run_anchor("networkit PageRank", "networkit", networkit_pagerank),
            _run_anchor(f"{gbl.NAME} pagerank loop", gbl.LIBRARY, graphblas_loop),
            _run_anchor(f"{gbl.NAME} pagerank", gbl.LIBRARY, graphblas_pagerank)]


# -- WCC ------------------------------------------------------------------------------------------

def _components_note(got, comp):
    k = len(np.unique(np.asarray(got)))
    if _same_partition(got, comp):
        return f"same {_plural(k, 'component')}"
    return f"components DIFFER: {k:,} against dgraph's {len(np.unique(comp)):,}"


def _plural(k, word):
    return f"{k:,} {word}{'' if k == 1 else 's'}"


def _wcc_anchors(G, comp, repeat):
    E = _Edges(G, weighted=False)

    def scipy_cc(_):
        import scipy.sparse.csgraph as cg  # noqa: PLC0415

        A = G.to("numpy").to_scipy()
        ms, mn, (_, labels) = _timed(lambda: cg.connected_components(A, directed=True, connection="weak"),
                                     repeat)
        return _anchor("scipy csgraph.connected_components(weak)", ms, mn, _components_note(labels, comp))

    def igraph_cc(ig):
        g = _igraph_graph(ig, E)
        ms, mn, cc = _timed(lambda: g.connected_components(mode="weak"), repeat)
        return _anchor(f"igraph {_version(ig)} connected_components(weak)", ms, mn,
                       _components_note(cc.membership, comp))

    def networkit_cc(nk):
        g = _networkit_graph(nk, E)
        cls = nk.components.WeaklyConnectedComponents if E.directed else nk.components.ConnectedComponents

        def run():
            c = cls(g)
            c.run()
            return c

        ms, mn, c = _timed(run, repeat)
        return _anchor(f"networkit {_version(nk)} {cls.__name__}", ms, mn,
                       _components_note(c.getPartition().getVector(), comp))

    return [_run_anchor("scipy csgraph.connected_components(weak)", None, scipy_cc),
            _run_anchor("igraph connected_components(weak)", "igraph", igraph_cc),
            _run_anchor("networkit ConnectedComponents", "networkit", networkit_cc),
            _anchor(gbl.NAME, note=gbl.NONE["wcc"])]


# -- CDLP -----------------------------------------------------------------------------------------

def _cdlp_anchors(G, labels, iterations, repeat):
    def igraph_lp(ig):
        return _anchor("igraph community_label_propagation",
                       note="not timed: a different algorithm (asynchronous updates in random order, random "
                            "tie breaks, run to convergence), not LDBC's synchronous smallest-label CDLP")

    def networkit_plp(nk):
        g = _networkit_graph(nk, _Edges(G, weighted=False))

        def run():
            plp = nk.community.PLP(g, updateThreshold=0, maxIterations=iterations)
            plp.run()
            return plp

        ms, mn, plp = _timed(run, repeat)
        k = plp.getPartition().numberOfSubsets()
        return _anchor(f"networkit {_version(nk)} PLP ({_threads(nk)})", ms, mn,
                       f"different rules: asynchronous parallel updates, ties not broken by the smallest label; "
                       f"{plp.numberOfIterations()} iterations (at most {iterations}), {k:,} communities "
                       f"against dgraph's {len(np.unique(labels)):,}")

    return [_anchor("scipy", note="no label propagation in scipy"),
            _run_anchor("igraph community_label_propagation", "igraph", igraph_lp),
            _run_anchor("networkit PLP", "networkit", networkit_plp),
            _anchor(gbl.NAME, note=gbl.NONE["cdlp"])]


# -- triangle count and LCC -----------------------------------------------------------------------

class _SimpleEdges(_Edges):
    """The simple undirected graph: each edge once as (low, high), no self loop, no repeat, no direction."""

    def __init__(self, G):
        src, dst, _ = (to_numpy(a) for a in G.coo())
        lo, hi = np.minimum(src, dst).astype(np.int64), np.maximum(src, dst).astype(np.int64)
        keep = lo != hi
        n = G.num_vertices
        key = np.unique(lo[keep] * n + hi[keep])
        self.n = n
        self.directed = False
        self.src, self.dst = key // n, key % n
        self.w = None
        self.degree = np.bincount(self.src, minlength=n) + np.bincount(self.dst, minlength=n)

    def scipy(self):
        """The symmetric 0/1 adjacency as a scipy CSR matrix."""
        import scipy.sparse as sps  # noqa: PLC0415

        rows = np.concatenate([self.src, self.dst])
        cols = np.concatenate([self.dst, self.src])
        return sps.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(self.n, self.n))


SCIPY_TRIANGLE_BLOCK = 1 << 25  # multiply-adds per block of rows: bounds the product's size (~0.4 GB)


def scipy_triangle_total(A, block=SCIPY_TRIANGLE_BLOCK):
    """Triangles of the simple undirected graph whose symmetric 0/1 CSR adjacency is ``A``.

    Vertices are ordered by (degree, id) and ``U`` is the upper triangle of
    the reordered matrix (each edge oriented to the higher-ranked end, out-
    degrees at most sqrt(2 E)); every triangle is one nonzero of
    ``(U @ U) * U``.  The product is formed block of rows by block of rows,
    each block at most ``block`` multiply-adds, so its size stays bounded.
    """
    import scipy.sparse as sps  # noqa: PLC0415

    n = A.shape[0]
    deg = np.diff(A.indptr)
    order = np.lexsort((np.arange(n), deg))
    U = sps.triu(A[order][:, order], k=1, format="csr")
    outd = np.diff(U.indptr)
    work = np.concatenate([[0], np.cumsum(outd[U.indices], dtype=np.int64)])[U.indptr]
    total = 0
    lo = 0
    while lo < n:
        hi = int(np.searchsorted(work, work[lo] + block, side="right")) - 1
        hi = min(max(hi, lo + 1), n)
        B = U[lo:hi]
        total += int(round((B @ U).multiply(B).sum()))
        lo = hi
    return total


def _triangle_note(total, ref_total, per_vertex=None, ref=None):
    if total != ref_total:
        return f"triangles DIFFER: {total:,} against dgraph's {ref_total:,}"
    note = f"same total, {total:,} triangles"
    if per_vertex is not None:
        bad = int(np.count_nonzero(np.asarray(per_vertex) != np.asarray(ref)))
        note += "; same count at every vertex" if bad == 0 else f"; counts DIFFER at {bad:,} vertices"
    return note


def _values_note(got, ref, what):
    """How float values compare; NaN and inf (BC's float64 path counts can overflow) must match exactly."""
    got, ref = (np.asarray(x, dtype=np.float64) for x in (got, ref))
    if got.shape != ref.shape:
        return f"{what} DIFFER: {len(got):,} values against dgraph's {len(ref):,}"
    bad = ~np.isfinite(ref)
    suffix = ""
    if bad.any() or not np.isfinite(got).all():
        same_bad = (np.isnan(got) & np.isnan(ref)) | (got == ref)
        if not np.array_equal(bad, ~np.isfinite(got)) or not same_bad[bad].all():
            k = int((bad != ~np.isfinite(got)).sum() + (~same_bad[bad]).sum())
            return f"{what} DIFFER: NaN or inf at {k:,} vertices in one only"
        suffix = (f"; {int(bad.sum()):,} values NaN or inf in both (float64 shortest-path counts overflow)")
    got, ref = got[~bad], ref[~bad]
    diff = np.abs(got - ref)
    if not diff.any():
        return f"same {what}" + suffix
    rel = float(np.max(diff / np.maximum(np.abs(ref), 1e-300)))
    close = np.allclose(got, ref, rtol=1e-9, atol=1e-12)
    return (f"{what} within {rel:.1e} (max relative |diff|)" if close else
            f"{what} DIFFER: max relative |diff| {rel:.1e}") + suffix


def _triangle_anchors(G, triangles, total, repeat):
    E = _SimpleEdges(G)

    def scipy_spgemm(_):
        A = E.scipy()
        ms, mn, t = _timed(lambda: scipy_triangle_total(A), repeat)
        return _anchor("scipy (U @ U) * U, degree-ordered", ms, mn,
                       _triangle_note(t, total) + "; the ordering and the upper triangle are timed, the "
                       "symmetric CSR matrix is not")

    def igraph_transitivity(ig):
        g = _igraph_graph(ig, E)
        ms, mn, lcc = _timed(lambda: g.transitivity_local_undirected(mode="zero"), repeat)
        d = E.degree.astype(np.float64)
        t = np.rint(np.asarray(lcc, dtype=np.float64) * d * (d - 1) / 2).astype(np.int64)
        return _anchor(f"igraph {_version(ig)} transitivity_local_undirected", ms, mn,
                       "triangles per vertex recovered as lcc x d(d-1)/2; "
                       + _triangle_note(int(t.sum()) // 3, total, t, triangles)
                       + "; includes igraph's conversion of the result to a Python list")

    def networkit_triangles(nk):
        g = _networkit_graph(nk, E)
        g.indexEdges()

        def run():
            tes = nk.sparsification.TriangleEdgeScore(g)
            tes.run()
            return tes

        ms, mn, tes = _timed(run, repeat)
        t = int(round(float(np.sum(tes.scores())))) // 3
        return _anchor(f"networkit {_version(nk)} TriangleEdgeScore ({_threads(nk)})", ms, mn,
                       "total = sum of the per-edge counts / 3; " + _triangle_note(t, total))

    def graphblas_total(ga):
        Gg = gbl.simple_graph(ga, E)
        ms, mn, t = _timed(lambda: ga.algorithms.total_triangles(gbl.fresh(ga, Gg)), repeat)
        return _anchor(gbl.label(ga, "total_triangles"), ms, mn,
                       _triangle_note(int(t), total) + "; the lower and upper triangles are timed, the symmetric "
                       "matrix is not")

    return [_run_anchor("scipy (U @ U) * U, degree-ordered", None, scipy_spgemm),
            _run_anchor("igraph transitivity_local_undirected", "igraph", igraph_transitivity),
            _run_anchor("networkit TriangleEdgeScore", "networkit", networkit_triangles),
            _run_anchor(f"{gbl.NAME} total_triangles", gbl.LIBRARY, graphblas_total)]


_DIRECTED_LCC = ("not timed: it computes the undirected LCC; LDBC's LCC of a directed graph counts the arcs "
                 "among the in- and out-neighbours (a pair joined both ways counts twice)")


def _lcc_anchors(G, lcc, repeat):
    E = None if G.directed else _SimpleEdges(G)

    def igraph_transitivity(ig):
        if E is None:
            return _anchor("igraph transitivity_local_undirected", note=_DIRECTED_LCC)
        g = _igraph_graph(ig, E)
        ms, mn, got = _timed(lambda: g.transitivity_local_undirected(mode="zero"), repeat)
        return _anchor(f"igraph {_version(ig)} transitivity_local_undirected(zero)", ms, mn,
                       _values_note(got, lcc, "LCC values") + "; includes igraph's conversion of the result to a "
                       "Python list")

    def networkit_lcc(nk):
        if E is None:
            return _anchor("networkit LocalClusteringCoefficient", note=_DIRECTED_LCC)
        g = _networkit_graph(nk, E)

        def run():
            c = nk.centrality.LocalClusteringCoefficient(g, turbo=True)
            c.run()
            return c

        ms, mn, c = _timed(run, repeat)
        return _anchor(f"networkit {_version(nk)} LocalClusteringCoefficient(turbo) ({_threads(nk)})", ms, mn,
                       _values_note(c.scores(), lcc, "LCC values"))

    def graphblas_clustering(ga):
        if E is None:
            return _anchor(gbl.label(ga, "clustering"), note=_DIRECTED_LCC)
        Gg = gbl.simple_graph(ga, E)
        ms, mn, c = _timed(lambda: ga.algorithms.clustering(gbl.fresh(ga, Gg)), repeat)
        return _anchor(gbl.label(ga, "clustering"), ms, mn,
                       _values_note(gbl.dense(c, E.n, 0.0), lcc, "LCC values") + "; the lower and upper triangles "
                       "are timed")

    return [_anchor("scipy", note="no local clustering coefficient in scipy"),
            _run_anchor("igraph transitivity_local_undirected", "igraph", igraph_transitivity),
            _run_anchor("networkit LocalClusteringCoefficient", "networkit", networkit_lcc),
            _run_anchor(f"{gbl.NAME} clustering", gbl.LIBRARY, graphblas_clustering)]


# -- BC -------------------------------------------------------------------------------------------

def bc_sources(G, source, k):
    """User ids of BC's sources: ``pick_source(G, source)`` and k-1 more, sampled (seed 0) among degree > 0."""
    first = pick_source(G, source)
    k = max(int(k or 1), 1)
    if k == 1:
        return [first]
    deg = to_numpy(G.out_degree()) + (to_numpy(G.in_degree()) if G.directed else 0)
    s = int(G.ids.to_internal(first))
    pool = np.flatnonzero(deg > 0)
    pool = pool[pool != s]
    if k - 1 > len(pool):
        from ..errors import InputError  # noqa: PLC0415

        raise InputError(f"sources={k}: the graph has only {len(pool) + 1:,} vertices with edges")
    rest = np.sort(np.random.default_rng(0).choice(pool, size=k - 1, replace=False))
    return [first] + [G.ids.to_user(int(v)).item() for v in rest]


def _bc_reached_edges(G, internal_sources):
    """Per source, the edges of what it reaches; their sum and the vertices reached (per source)."""
    import scipy.sparse.csgraph as cg  # noqa: PLC0415

    A = G.to("numpy").to_scipy()
    edges, reached = 0, []
    for s in internal_sources:
        mask = np.zeros(G.num_vertices, dtype=bool)
        mask[cg.breadth_first_order(A, int(s), directed=True, return_predecessors=False)] = True
        edges += reached_edges(G, mask)
        reached.append(int(mask.sum()))
    return edges, reached


def _bc_anchors(G, internal_sources, bc, repeat):
    E = _Edges(G, weighted=False)
    srcs = [int(s) for s in internal_sources]

    def igraph_bc(ig):
        g = _igraph_graph(ig, E)
        ms, mn, got = _timed(lambda: g.betweenness(directed=E.directed, sources=srcs, targets=None), repeat)
        return _anchor(f"igraph {_version(ig)} betweenness(sources)", ms, mn,
                       _values_note(got, bc, "BC values") + "; includes igraph's conversion of the result to a "
                       "Python list")

    def networkit_bc(nk):
        return _anchor("networkit centrality.Betweenness",
                       note="not timed: it has no source subset (Brandes from all n sources, O(n m))")

    return [_anchor("scipy", note="no betweenness centrality in scipy"),
            _run_anchor("igraph betweenness(sources)", "igraph", igraph_bc),
            _run_anchor("networkit centrality.Betweenness", "networkit", networkit_bc),
            _anchor(gbl.NAME, note=gbl.NONE["bc"])]


# -- GPU anchors (backend cupy) -------------------------------------------------------------------

# Gunrock v2.1 on one H100, as the issue gives them (ms; PageRank per iteration).
GUNROCK_H100_MS = {("sssp", "rmat-scale20"): 5.1, ("sssp", "grid-1000x1000"): 344.0,
                   ("pagerank", "rmat-scale20"): 0.83}


def cupy_spmv_pagerank_ms(G, rank, damping, iterations, repeat):
    """The CuPy SpMV power iteration (cupyx.scipy.sparse), dgraph's formula: the GPU anchor."""
    import cupy as cp  # noqa: PLC0415
    import cupyx.scipy.sparse as csp  # noqa: PLC0415

    Gd = G.to("cupy")
    n = Gd.num_vertices
    indptr, indices, _ = Gd.csc(edge_ids=False)
    AT = csp.csr_matrix((cp.ones(len(indices), dtype=cp.float64), indices, indptr), shape=(n, n))
    deg = Gd.out_degree()

    def run():
        r = scipy_pagerank(AT, deg, damping, iterations)
        cp.cuda.Device().synchronize()
        return r

    ms, mn, r = _timed(run, repeat)
    return _anchor(f"CuPy SpMV power iteration ({iterations} iterations)", ms, mn,
                   f"{ms / max(iterations, 1):.3f} ms per iteration; L1 distance to dgraph's ranks "
                   f"{_l1(to_numpy(r), rank):.1e}")


def _gpu_anchors(G, algorithm, rank, damping, iterations, repeat):
    out = []
    if algorithm == "pagerank":
        out.append(cupy_spmv_pagerank_ms(G, rank, damping, iterations, repeat))
    key = GUNROCK_H100_MS.get((algorithm, _gunrock_key(G)))
    if key is not None:
        per_iter = algorithm == "pagerank"
        ms = key * iterations if per_iter else key
        out.append(_anchor("Gunrock v2.1 (H100, published)", ms, None,
                           f"{key} ms per iteration x {iterations}" if per_iter else "not run here"))
    return out


# -- the benchmark --------------------------------------------------------------------------------

def bench_algorithm(G, algorithm, *, source=None, iterations=None, damping=0.85, delta=None, backend="numpy",
                    repeat=5, anchors=True, graph_name=None, sources=None, partitions=None, executor=None,
                    exchange="butterfly", method="range", client=None, transport="auto", build="cut",
                    generate=None):
    """Run ``dgraph.<algorithm>`` ``repeat`` times after a warm-up; returns a dict of figures.

    algorithm : 'sssp', 'pagerank', 'wcc', 'cdlp', 'triangle_count', 'lcc' or 'bc'.
    source : sssp and bc: 'max-degree' (default), 'corner' (vertex 0) or a vertex id.
    sources : bc only: the number of sources (default 1: ``source`` alone; the others
        are sampled, seed 0, among the vertices of non-zero degree: :func:`bc_sources`).
        BC runs unnormalized (``normalized=False``).
    iterations : pagerank (default 20) and cdlp (default 10): a fixed count.
    partitions : split the graph and run it with ``executor`` ('local' simulates the
        partitions here; 'tasks'/'spmd' on ``client``'s workers); the one-partition run of
        the same call is then the anchor, its answer compared with the partitioned one.
    build : 'cut' (``G.partition``: cut on the client, shards sent to the workers) or
        'stream' (``generate_partitioned`` from ``generate=(kind, params, seed)``: each worker
        makes its own shard); its time and each worker's memory are reported.
    """
    import dgraph  # noqa: PLC0415

    if partitions:
        return _bench_partitioned(G, algorithm, source=source, iterations=iterations, damping=damping, delta=delta,
                                  backend=backend, repeat=repeat, graph_name=graph_name, sources=sources,
                                  partitions=partitions, executor=executor, exchange=exchange, method=method,
                                  client=client, transport=transport, build=build, generate=generate,
                                  anchors=anchors)

    if algorithm not in ALGORITHMS:
        raise ValueError(f"algorithm={algorithm!r}: expected one of {', '.join(ALGORITHMS)}")
    repeat = max(int(repeat), 1)
    G = G.to(backend)
    if iterations is None:
        iterations = DEFAULT_ITERATIONS.get(algorithm)
    if backend == "numpy":
        from ..algorithms.bfs import cpu as bfs_cpu  # noqa: PLC0415

        bfs_cpu.warm_up()  # BFS's numba visits, compiled before the timing
    src = None
    bc_src = None
    if sources is not None and algorithm != "bc":
        raise ValueError(f"sources={sources!r}: only bc takes a number of sources")
    if algorithm == "sssp":
        src = pick_source(G, source)
        call = lambda: dgraph.sssp(G, src, delta=delta)  # noqa: E731
    elif algorithm == "pagerank":
        call = lambda: dgraph.pagerank(G, damping=damping, iterations=iterations)  # noqa: E731
    elif algorithm == "wcc":
        call = lambda: dgraph.wcc(G)  # noqa: E731
    elif algorithm == "triangle_count":
        call = lambda: dgraph.triangle_count(G)  # noqa: E731
    elif algorithm == "lcc":
        call = lambda: dgraph.lcc(G)  # noqa: E731
    elif algorithm == "bc":
        bc_src = bc_sources(G, source, sources)
        call = lambda: dgraph.bc(G, sources=bc_src, normalized=False)  # noqa: E731
    else:
        call = lambda: dgraph.cdlp(G, iterations=iterations)  # noqa: E731

    r = call()  # warm-up: numba compilation, the CSC build
    times, engine = [], []
    for _ in range(repeat):
        t = time.perf_counter()
        r = call()
        times.append(time.perf_counter() - t)
        engine.append(r.run_time)
    # memory in a run of its own: tracemalloc slows every Python allocation (a run of 7,000 supersteps
    # took 285 ms traced, 125 ms not), and the anchors are timed untraced
    with peak_memory(backend) as mem:
        call()
    ms = statistics.median(times) * 1e3
    stats = r.stats
    fig = {
        "algorithm": algorithm,
        "graph": graph_name or G.name or "graph",
        "backend": backend,
        "vertices": G.num_vertices,
        "edges": G.num_edges,
        "directed": G.directed,
        "weighted": G.weighted,
        "repeat": repeat,
        "time_ms": ms,
        "time_ms_min": min(times) * 1e3,
        "engine_ms": statistics.median(engine) * 1e3,
        "supersteps": r.supersteps,
        "per_superstep_ms": ms / max(r.supersteps, 1),
        "peak_run_bytes": mem["peak_bytes"],
        "graph_bytes": graph_bytes(G),
        "anchors": [],
        "stats": r.stats_records,
    }
    if algorithm == "sssp":
        dist = to_numpy(r.raw("distance"))
        edges = reached_edges(G, np.isfinite(dist))
        fig.update(source=src, delta=r.params.get("delta"), rate_edges=edges,
                   reached=int(np.isfinite(dist).sum()),
                   relaxations=int(stats["edges"].sum()) if "edges" in stats else None,
                   rate_note=f"{edges:,} edges of the reached component")
    elif algorithm in ("pagerank", "cdlp"):
        steps = max(r.supersteps, 1)
        edges = G.num_edges * steps
        fig.update(iterations=iterations, rate_edges=edges,
                   rate_note=f"{G.num_edges:,} edges x {r.supersteps} iterations; "
                             f"{ms / steps:.3f} ms per iteration")
        if algorithm == "pagerank":
            fig["damping"] = damping
    elif algorithm == "bc":
        bc_int = [int(G.ids.to_internal(v)) for v in bc_src]
        one, reached = _bc_reached_edges(G, bc_int)
        edges = 2 * one
        k = len(bc_src)
        fig.update(sources=bc_src, source=bc_src[0], normalized=False, reached=reached, rate_edges=edges,
                   rate_note=(f"{one:,} edges of the reached component x 2 passes" if k == 1 else
                              f"{one:,} edges of the components reached, summed over {k} sources, x 2 passes"))
    else:
        edges = G.num_edges
        fig.update(rate_edges=edges, rate_note=f"{edges:,} edges")
    fig["mteps"] = edges / (ms * 1e3) if ms else float("nan")
    if algorithm == "wcc":
        fig["components"] = int(len(np.unique(to_numpy(r.raw("component")))))
    if algorithm == "cdlp":
        fig["communities"] = int(len(np.unique(to_numpy(r.raw("label")))))
    if algorithm in ("triangle_count", "lcc"):
        fig["triangles"] = int(r.params["total"])
    if algorithm == "lcc":
        values = to_numpy(r.raw("lcc"))
        fig["mean_lcc"] = float(values.mean()) if len(values) else 0.0
    if anchors:
        s_int = G.ids.to_internal(src) if src is not None else None
        if algorithm == "sssp":
            fig["anchors"] = _sssp_anchors(G, int(s_int), to_numpy(r.raw("distance")), repeat)
        elif algorithm == "pagerank":
            fig["anchors"] = _pagerank_anchors(G, to_numpy(r.raw("pagerank")), damping, iterations, repeat)
        elif algorithm == "wcc":
            fig["anchors"] = _wcc_anchors(G, to_numpy(r.raw("component")), repeat)
        elif algorithm == "triangle_count":
            fig["anchors"] = _triangle_anchors(G, to_numpy(r.raw("triangles")), fig["triangles"], repeat)
        elif algorithm == "lcc":
            fig["anchors"] = _lcc_anchors(G, to_numpy(r.raw("lcc")), repeat)
        elif algorithm == "bc":
            fig["anchors"] = _bc_anchors(G, bc_int, to_numpy(r.raw("bc")), repeat)
        else:
            fig["anchors"] = _cdlp_anchors(G, to_numpy(r.raw("label")), iterations, repeat)
        if backend == "cupy":
            rank = to_numpy(r.raw("pagerank")) if algorithm == "pagerank" else None
            fig["anchors"] = _gpu_anchors(G, algorithm, rank, damping, iterations, repeat) + fig["anchors"]
    return fig


def _call(algorithm, target, *, src=None, bc_src=None, iterations=None, damping=0.85, delta=None, opts=None):
    """The call a benchmark times: ``dgraph.<algorithm>`` on ``target`` with the bench's options."""
    import dgraph  # noqa: PLC0415

    opts = opts or {}
    if algorithm == "sssp":
        return lambda: dgraph.sssp(target, src, delta=delta, **opts)
    if algorithm == "pagerank":
        return lambda: dgraph.pagerank(target, damping=damping, iterations=iterations, **opts)
    if algorithm == "bc":
        return lambda: dgraph.bc(target, sources=bc_src, normalized=False, **opts)
    if algorithm == "cdlp":
        return lambda: dgraph.cdlp(target, iterations=iterations, **opts)
    if algorithm == "bfs":
        return lambda: dgraph.bfs(target, src, **opts)
    return lambda: getattr(dgraph, algorithm)(target, **opts)


def _timed_calls(call, repeat, sync=None):
    """(last result, wall times, engine times) of ``repeat`` calls after one warm-up."""
    r = call()
    times, engine = [], []
    for _ in range(repeat):
        t = time.perf_counter()
        r = call()
        if sync is not None:
            sync()
        times.append(time.perf_counter() - t)
        engine.append(r.run_time)
    return r, times, engine


def _worker_memory():
    """On a worker: bytes its GPU memory pool holds (CuPy), else its process's resident size."""
    try:
        import cupy as cp  # noqa: PLC0415

        if cp.cuda.runtime.getDeviceCount() > 0:
            return {"gpu_pool_bytes": int(cp.get_default_memory_pool().total_bytes())}
    except Exception:  # noqa: BLE001 - no CuPy or no GPU: the process's memory
        pass
    import psutil  # noqa: PLC0415

    return {"rss_bytes": int(psutil.Process().memory_info().rss)}


def _bench_partitioned(G, algorithm, *, source, iterations, damping, delta, backend, repeat, graph_name, sources,
                       partitions, executor, exchange, method, client, transport, build, generate, anchors):
    """The algorithm on ``partitions`` shards beside the same call on one partition (the anchor)."""
    import dgraph  # noqa: PLC0415

    if algorithm not in (*ALGORITHMS, "bfs"):
        raise ValueError(f"algorithm={algorithm!r}: expected bfs or one of {', '.join(ALGORITHMS)}")
    repeat = max(int(repeat), 1)
    G = G.to(backend)
    iterations = DEFAULT_ITERATIONS.get(algorithm) if iterations is None else iterations
    executor = executor or ("spmd" if client else "local")
    src = pick_source(G, source) if algorithm in ("sssp", "bfs") else None
    bc_src = bc_sources(G, source, sources) if algorithm == "bc" else None
    t = time.perf_counter()
    if build == "stream":
        if generate is None or executor == "local":
            raise ValueError("build='stream' needs a generated graph (--generate rmat:... or uniform:...) and "
                             "a Dask executor (tasks or spmd)")
        kind, params, seed = generate
        target = dgraph.generate_partitioned(kind, partitions, client=client, method=method, backend=backend,
                                             seed=seed, directed=G.directed, weighted=G.weighted, **params)
    else:
        target = G.partition(partitions, method, client=client if executor != "local" else False, backend=backend)
        if target.distributed:
            from distributed import wait  # noqa: PLC0415

            with target.client.as_current():
                wait(list(target.shards))
    build_s = time.perf_counter() - t
    kw = dict(src=src, bc_src=bc_src, iterations=iterations, damping=damping, delta=delta)
    opts = dict(executor=executor, exchange=exchange, transport=transport)
    r, times, engine = _timed_calls(_call(algorithm, target, opts=opts, **kw), repeat)
    ms = statistics.median(times) * 1e3
    fig = {"algorithm": algorithm, "graph": graph_name or G.name or "graph", "backend": backend,
           "vertices": G.num_vertices, "edges": G.num_edges, "directed": G.directed, "weighted": G.weighted,
           "repeat": repeat, "time_ms": ms, "time_ms_min": min(times) * 1e3,
           "engine_ms": statistics.median(engine) * 1e3, "supersteps": r.supersteps,
           "per_superstep_ms": ms / max(r.supersteps, 1), "partitions": partitions, "executor": executor,
           "exchange": r.params.get("exchange"), "fanout": r.params.get("fanout"),
           "transport": r.params.get("transport", "-"), "method": method, "build": build,
           "build_s": build_s, "phases_ms": {k: v * 1e3 for k, v in r.phases.items()}, "anchors": [],
           "bytes_exchanged": int(r.stats["bytes_exchanged"].sum()) if "bytes_exchanged" in r.stats else 0,
           "source": src if src is not None else (bc_src[0] if bc_src else None), "iterations": iterations,
           "damping": damping, "delta": r.params.get("delta"), "sources": bc_src}
    if algorithm == "bfs":
        from .bfs import traversed_edges  # noqa: PLC0415

        edges = traversed_edges(G, r.raw("depth"))
        fig.update(traversed_edges=edges, mteps=edges / (ms * 1e3) if ms else float("nan"),
                   direction=",".join(str(d)[0] for d in r.stats["direction"]) if "direction" in r.stats else "")
    if getattr(target, "build_stats", None):
        fig["build_partitions"] = [{k: v for k, v in s.items() if k != "bounds"}
                                   for s in target.build_stats["partitions"]]
    if target.distributed:
        fig["worker_memory"] = target.client.run(_worker_memory)
    if anchors:
        sync = None
        if backend == "cupy":
            import cupy as cp  # noqa: PLC0415

            sync = cp.cuda.get_current_stream().synchronize
        ref, base, _ = _timed_calls(_call(algorithm, G, **kw), repeat, sync=sync)
        base_ms = statistics.median(base) * 1e3
        equal = all(np.array_equal(to_numpy(r.raw(c)), to_numpy(ref.raw(c)), equal_nan=True) for c in ref.columns)
        fig["anchors"] = [_anchor("dgraph local, 1 partition (same call)", base_ms, min(base) * 1e3,
                                  "answers equal" if equal else "ANSWERS DIFFER")]
        fig["speedup"] = base_ms / ms if ms else float("nan")
        fig["efficiency"] = fig["speedup"] / partitions
        fig["equal"] = equal
    return fig


def format_algorithm_report(fig: dict) -> str:
    if fig.get("partitions"):
        return _format_partitioned(fig)
    algo = fig["algorithm"]
    head = (f"{algo} on {fig['graph']}: {fig['vertices']:,} vertices, {fig['edges']:,} edges"
            f"{' (directed)' if fig['directed'] else ''}{', weighted' if fig['weighted'] else ''}, "
            f"backend {fig['backend']}")
    if algo == "sssp":
        head += f", source {fig['source']}, delta {fig['delta']:g}"
        if not fig["weighted"]:
            head += " (unweighted: every weight 1)"
    elif algo == "pagerank":
        head += f", damping {fig['damping']:g}, {fig['iterations']} iterations"
    elif algo == "cdlp":
        head += f", {fig['iterations']} iterations"
    elif algo == "bc":
        k = len(fig["sources"])
        head += (f", source {fig['source']}" if k == 1 else
                 f", {k} sources ({fig['source']} and {k - 1} sampled, seed 0)")
        head += ", unnormalized"
    if fig.get("implementation"):
        head += f", implementation {fig['implementation']}"
    lines = [
        head,
        f"  time        {fig['time_ms']:10.3f} ms   (median of {fig['repeat']}, min {fig['time_ms_min']:.3f} ms, "
        f"warm-up excluded; the whole call, engine {fig['engine_ms']:.3f} ms)",
        f"  MTEPS       {rate(fig['mteps']):>10}      ({fig['rate_note']})",
    ]
    what = ""
    if algo == "sssp":
        what = f"; {fig['reached']:,} vertices reached"
        if fig.get("relaxations") is not None:
            what += f", {fig['relaxations']:,} edges relaxed"
    elif algo == "wcc":
        what = f"; {_plural(fig['components'], 'component')}"
    elif algo == "cdlp":
        what = f"; {fig['communities']:,} communities"
    elif algo == "triangle_count":
        what = f"; {fig['triangles']:,} triangles"
    elif algo == "lcc":
        what = f"; mean LCC {fig['mean_lcc']:.6f}, {fig['triangles']:,} triangles"
    elif algo == "bc":
        what = (f"; {fig['reached'][0]:,} vertices reached" if len(fig["reached"]) == 1 else
                f"; {sum(fig['reached']):,} vertices reached over the sources")
    elif fig.get("summary"):
        what = f"; {fig['summary']}"
    lines.append(f"  supersteps  {fig['supersteps']:10d}      ({fig['per_superstep_ms']:.3f} ms each{what})")
    if fig.get("peak_run_bytes") is not None:
        lines.append(f"  memory      {_bytes(fig['peak_run_bytes']):>10}    peak during a run; "
                     f"graph {_bytes(fig['graph_bytes'])}")
    for a in fig.get("anchors", []):
        if a["ms"] is None:
            lines.append(f"  anchor      {'-':>10}      {a['name']}: {a['note']}")
            continue
        ratio = a["ms"] / fig["time_ms"] if fig["time_ms"] else float("nan")
        parts = ([f"min {a['ms_min']:.3f} ms"] if a["ms_min"] is not None else []) + ([a["note"]] if a["note"] else [])
        note = "; ".join(parts)
        lines.append(f"  anchor      {a['ms']:10.3f} ms   {a['name']}: dgraph is {ratio:.2f}x its speed ({note})")
    return "\n".join(lines)


def _format_partitioned(fig):
    head = (f"{fig['algorithm']} on {fig['graph']}: {fig['vertices']:,} vertices, {fig['edges']:,} edges"
            f"{' (directed)' if fig['directed'] else ''}{', weighted' if fig['weighted'] else ''}, "
            f"backend {fig['backend']}, {fig['partitions']} partitions ({fig['method']}), {fig['executor']}"
            f"{', ' + fig['transport'] if fig['transport'] not in (None, '-') else ''}")
    lines = [head,
             f"  time        {fig['time_ms']:10.3f} ms   (median of {fig['repeat']}, min {fig['time_ms_min']:.3f} ms, "
             f"warm-up excluded; engine {fig['engine_ms']:.3f} ms)",
             f"  supersteps  {fig['supersteps']:10d}      ({fig['per_superstep_ms']:.3f} ms each)",
             *([f"  GTEPS       {fig['mteps'] / 1e3:10.3f}      ({fig['traversed_edges']:,} edges traversed)"]
               if "mteps" in fig else []),
             f"  build       {fig['build_s'] * 1e3:10.1f} ms   "
             f"({'each worker made its shard' if fig['build'] == 'stream' else 'cut on the client, sent to the workers'})"]
    ex = f"{fig['exchange']}" + (f":{fig['fanout']}" if fig["exchange"] == "butterfly" else "")
    lines.append(f"  exchanged   {_bytes(fig['bytes_exchanged']):>10}    in all ({ex}); "
                 f"{_bytes(fig['bytes_exchanged'] // max(fig['supersteps'], 1))} per superstep")
    ph = fig.get("phases_ms") or {}
    if "loop_s" in ph:  # spmd: where the time outside the supersteps goes
        lines.append(f"  phases      {ph['loop_s']:10.3f} ms   supersteps; outside them: launch and completion "
                     f"{ph['launch_s']:.3f} ms, set-up {ph['init_s']:.3f} ms, final exchange and results "
                     f"{ph['final_s']:.3f} ms, client {ph['submit_s']:.3f} ms"
                     + (f"; start-up {ph['startup_s']:.3f} ms apart" if ph.get("startup_s") else ""))
    for addr, mem in sorted((fig.get("worker_memory") or {}).items()):
        what = ", ".join(f"{k.replace('_bytes', '').replace('_', ' ')} {_bytes(v)}" for k, v in mem.items())
        lines.append(f"  memory      {addr}: {what}")
    for a in fig.get("anchors", []):
        lines.append(f"  anchor      {a['ms']:10.3f} ms   {a['name']}: speed-up {fig['speedup']:.2f}x, "
                     f"efficiency {fig['efficiency'] * 100:.0f}% ({a['note']})")
    return "\n".join(lines)


__all__ = ["bench_algorithm", "format_algorithm_report", "scipy_pagerank", "scipy_triangle_total", "bc_sources",
           "ALGORITHMS"]
