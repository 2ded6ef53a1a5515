"""python-graphblas (SuiteSparse:GraphBLAS) with graphblas-algorithms: the linear-algebra anchors of ``dgraph bench``.

SuiteSparse:GraphBLAS is the fastest general sparse library on one machine
for most of these algorithms (its kernels are OpenMP-parallel, masked and
push/pull aware), so it is the peer dgraph's CPU path is held to beside
scipy, igraph and networkit.  graphblas-algorithms writes NetworkX's
algorithms on it; where it has an algorithm, the anchor calls it:

============== ==============================================================
ALGO           graphblas-algorithms (``graphblas_algorithms.algorithms``)
============== ==============================================================
bfs            ``single_source_shortest_path_length`` (levels by masked
               ``any_pair`` vector-matrix products, one per level)
sssp           ``single_source_bellman_ford_path_length`` (``min_plus``
               products over the improved frontier)
pagerank       its ``pagerank`` loop, run a fixed number of iterations (the
               library stops on its own tolerance, n * 1e-6 on the L1
               change, which on large graphs is after one or two); its
               ``pagerank`` as it is called is timed too
triangle_count ``total_triangles`` (``plus_pair(L @ U.T)`` masked by L)
lcc            ``clustering`` (undirected)
wcc, cdlp, bc  none: graphblas-algorithms has no component labelling (only
               ``is_weakly_connected``), no label propagation and no
               betweenness
============== ==============================================================

The GraphBLAS matrix and the library's graph are built once, untimed, as the
other anchors' graphs are; the properties the library caches on its graph
(the matrix without its diagonal, row degrees) are built in the warm-up run.
Triangle count and LCC take a fresh graph object in every run, so that the
lower and upper triangles they extract are timed, as scipy's anchor times
its ordering and upper triangle.
"""

from __future__ import annotations

import numpy as np

from ..backend import to_numpy

LIBRARY = "graphblas_algorithms"
NAME = "graphblas-algorithms"
NONE = {"wcc": "graphblas-algorithms has no component labelling (is_weakly_connected only)",
        "cdlp": "graphblas-algorithms has no label propagation",
        "bc": "graphblas-algorithms has no betweenness centrality"}


def label(ga, what):
    """``graphblas-algorithms 2023.10.0 <what> (SuiteSparse:GraphBLAS 9.4.5, 2 threads)``."""
    import graphblas as gb  # noqa: PLC0415

    version = ".".join(str(x) for x in gb.ss.about["library_version"])
    return (f"{NAME} {getattr(ga, '__version__', '?')} {what} (SuiteSparse:GraphBLAS {version}, "
            f"{gb.ss.config['nthreads']} threads)")


def matrix(G, *, weighted=False, values=True):
    """G's adjacency (every stored arc: both directions of an undirected edge) as a GraphBLAS Matrix.

    ``weighted``: the edge weights (parallel arcs: the lightest); else 1.0 on
    every arc (parallel arcs summed, as scipy's SpMV counts them), or
    ``values=False``: an iso-valued boolean matrix (structure only).
    """
    import graphblas as gb  # noqa: PLC0415

    n = G.num_vertices
    indptr, indices = to_numpy(G.indptr).astype(np.int64), to_numpy(G.indices).astype(np.int64)
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
    same_row = rows[1:] == rows[:-1]
    step = np.diff(indices)
    clean = not np.any(step[same_row] <= 0)  # sorted rows, no parallel arcs: a plain CSR import
    if weighted and G.weighted:
        w = to_numpy(G.weights).astype(np.float64)
        if clean:
            return gb.Matrix.from_csr(indptr, indices, w, nrows=n, ncols=n)
        return gb.Matrix.from_coo(rows, indices, w, nrows=n, ncols=n, dup_op=gb.binary.min)
    if not values:
        return gb.Matrix.from_coo(rows, indices, True, nrows=n, ncols=n)  # duplicates ignored: structure
    if clean:
        return gb.Matrix.from_csr(indptr, indices, 1.0, nrows=n, ncols=n)
    return gb.Matrix.from_coo(rows, indices, np.ones(len(rows)), nrows=n, ncols=n, dup_op=gb.binary.plus)


def graph(ga, A, directed):
    return ga.DiGraph(A) if directed else ga.Graph(A)


def simple_graph(ga, E):
    """The simple undirected graph of :class:`dgraph.bench.algorithms._SimpleEdges` ``E`` (each edge once)."""
    import graphblas as gb  # noqa: PLC0415

    rows = np.concatenate([E.src, E.dst])
    cols = np.concatenate([E.dst, E.src])
    return ga.Graph(gb.Matrix.from_coo(rows, cols, True, nrows=E.n, ncols=E.n))


def fresh(ga, Gg):
    """A new graph object on the same matrix (no cached properties), sharing the key map (not rebuilt)."""
    return type(Gg)(Gg._A, key_to_id=Gg._key_to_id)


def dense(v, n, fill):
    """A GraphBLAS Vector as a dense numpy array, ``fill`` where it holds no value."""
    return np.asarray(v.to_dense(fill_value=fill))[:n]


def pagerank(Gg, damping, iterations, tol=None):
    """graphblas-algorithms' PageRank loop for a fixed number of iterations (or until its own ``tol``).

    The same GraphBLAS operations as ``graphblas_algorithms.algorithms.
    pagerank`` (dangling rank spread evenly, damping folded into the inverse
    out-degrees, ``plus_first`` on an iso-valued matrix), without the
    convergence test unless ``tol`` is given: that function has no fixed
    iteration count.  Returns (ranks as a Vector, iterations run).
    """
    from graphblas import Vector  # noqa: PLC0415
    from graphblas.semiring import plus_first, plus_times  # noqa: PLC0415

    A = Gg._A
    n = A.nrows
    x = Vector(float, n)
    x[:] = 1.0 / n
    S = (damping / Gg.get_property("plus_rowwise+")).new()
    semiring = plus_first[float] if A.ss.is_iso else plus_times[float]
    dangling = None
    if S.nvals < n:
        dangling = Vector(float, n)
        dangling(mask=~S.S) << damping / n
    p = (1 - damping) / n
    xprev = Vector(float, n)
    w = Vector(float, n)
    for i in range(iterations):
        xprev, x = x, xprev
        x << p
        if dangling is not None:
            x += xprev @ dangling
        w << xprev * S
        x += semiring(w @ A)
        if tol is not None:
            err = (xprev - x).new()
            if float(abs(err).reduce().get(0)) < n * tol:
                return x, i + 1
    return x, iterations
