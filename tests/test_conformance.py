"""One conformance body: algorithm x executor x partitions x exchange x direction x graph, each run
checked against an independent reference (scipy, NetworkX, or the LDBC reference written from the
spec in the algorithm's own test file), not against another dgraph run.

The per-algorithm files keep what is particular to each algorithm (odd inputs, errors, options,
kernels); this file is the matrix every algorithm must pass on every executor.  The default run
covers every algorithm on every executor with 1-4 partitions on two small graphs each way (a few
hundred runs on the session's Dask cluster); ``-m slow`` widens it to every graph and both
exchanges.  Ids read ``bfs-spmd-p3-butterfly-undirected-two-parts``.  CuPy runs of the same matrix
are ``-m gpu`` (``backend`` fixture).
"""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as cg
from reference import min_parents, reference_depths
from test_cdlp import ldbc_cdlp
from test_lcc import ldbc_lcc
from test_random_walks import reference_walks
from louvain_reference import reference_louvain

import dgraph
from dgraph.backend import to_numpy

SLOW = pytest.mark.slow


# -- graphs: small and odd ---------------------------------------------------------------------

def _graph(name, directed):
    """Edge kwargs for dgraph.from_edges."""
    rng = np.random.default_rng(7)
    if name == "path-desc":  # ids descend along the path: every frontier is one vertex, parents up
        src = np.arange(9, 0, -1)
        dst = src - 1
        return dict(src=src, dst=dst, num_vertices=10)
    if name == "two-parts":  # two components and an isolated vertex
        src = np.array([0, 1, 2, 0, 5, 6, 7, 5])
        dst = np.array([1, 2, 0, 3, 6, 7, 5, 8])
        return dict(src=src, dst=dst, num_vertices=10)
    if name == "star-loops":  # a hub, self loops, a duplicate edge
        src = np.array([3, 3, 3, 3, 3, 0, 4, 3])
        dst = np.array([0, 1, 2, 4, 5, 0, 4, 1])
        return dict(src=src, dst=dst, num_vertices=6)
    if name == "random-40":
        src, dst = rng.integers(0, 40, 90), rng.integers(0, 40, 90)
        keep = src != dst
        return dict(src=src[keep], dst=dst[keep], num_vertices=40)
    raise KeyError(name)


DEFAULT_GRAPHS = ("two-parts", "random-40")
SLOW_GRAPHS = ("path-desc", "star-loops")
LOOPED = ("star-loops",)  #: graphs with self loops


def _make(name, directed, weighted=False):
    kw = _graph(name, directed)
    if weighted:
        kw = dict(kw, weights=np.random.default_rng(3).uniform(0.5, 4.0, len(kw["src"])))
    return dgraph.from_edges(directed=directed, **kw)


def _source(G):
    return int(np.argmax(to_numpy(G.out_degree())))


# -- the references ----------------------------------------------------------------------------

def _edges(G):
    A = sp.coo_matrix(G.to_scipy())
    return A.row, A.col, A.data


def ref_bfs(G, s):
    depth = reference_depths(G, s)
    parent = np.where(depth >= 0, min_parents(G, depth), -1)
    parent[s] = s
    return {"depth": depth, "parent": parent}


def ref_sssp(G, s):
    dist = cg.dijkstra(G.to_scipy(), directed=True, indices=s)
    return {"distance": dist}


def ref_pagerank(G, s):
    H = G.to_networkx()
    pr = nx.pagerank(H, alpha=0.85, tol=1e-15, max_iter=100000, weight=None)
    return {"pagerank": np.array([pr[v] for v in range(G.num_vertices)])}


def ref_wcc(G, s):
    _, lab = cg.connected_components(G.to_scipy(), directed=True, connection="weak")
    smallest = np.full(lab.max() + 1, G.num_vertices)
    np.minimum.at(smallest, lab, np.arange(G.num_vertices))
    return {"component": smallest[lab]}


def ref_scc(G, s):
    _, lab = cg.connected_components(G.to_scipy(), directed=True, connection="strong")
    smallest = np.full(lab.max() + 1, G.num_vertices)
    np.minimum.at(smallest, lab, np.arange(G.num_vertices))
    return {"component": smallest[lab]}


def ref_cdlp(G, s):
    u, v, _ = _edges(G)
    labels = ldbc_cdlp(list(range(G.num_vertices)), u.tolist(), v.tolist(), directed=G.directed, iterations=4)
    return {"label": np.array(labels)}


def ref_lcc(G, s):
    u, v, _ = _edges(G)
    return {"lcc": ldbc_lcc(list(range(G.num_vertices)), u.tolist(), v.tolist(), directed=G.directed)}


def ref_triangles(G, s):
    tri = nx.triangles(nx.Graph(G.to_networkx()))
    return {"triangles": np.array([tri[v] for v in range(G.num_vertices)])}


def ref_core_number(G, s):
    core = nx.core_number(G.to_networkx())
    return {"core": np.array([core[v] for v in range(G.num_vertices)])}


def ref_random_walks(G, s):
    n = G.num_vertices
    paths = reference_walks(G.to_networkx(), list(range(n)), 5, seed=11, p=0.5, q=2.0)
    return {"paths": np.array(paths, dtype=np.int64).reshape(n, 6)}


def ref_louvain(G, s):
    return {"community": np.array(reference_louvain(G, seed=7, tries=1)[0])}


def ref_bc(G, s):
    H = G.to_networkx()
    bc = nx.betweenness_centrality_subset(H, sources=[s], targets=list(H), normalized=False)
    return {"bc": np.array([bc[v] for v in range(G.num_vertices)])}


def _pairs(n):
    """Every pair (u, v), u <= v, of an n-vertex graph: what the jaccard cases score."""
    u, v = np.triu_indices(n)
    return np.stack([u, v], axis=1)


def ref_jaccard(G, s):
    H = G.to_networkx()
    return {"jaccard": np.array([p for _, _, p in nx.jaccard_coefficient(H, _pairs(G.num_vertices).tolist())])}


def ref_hits(G, s):
    from networkx.algorithms.link_analysis.hits_alg import _hits_python

    hubs, auth = _hits_python(G.to_networkx(), max_iter=20000, tol=1e-13)  # NetworkX's power iteration
    return {"hubs": np.array([hubs[v] for v in range(G.num_vertices)]),
            "authorities": np.array([auth[v] for v in range(G.num_vertices)])}


#: name -> (run(G, source, **executor options), reference(G, source), exact, weighted, undirected only,
#: self loops allowed)
ALGORITHMS = {
    "bfs": (lambda G, s, **kw: dgraph.bfs(G, s, **kw), ref_bfs, True, False, False, True),
    "sssp": (lambda G, s, **kw: dgraph.sssp(G, s, **kw), ref_sssp, False, True, False, True),
    "pagerank": (lambda G, s, **kw: dgraph.pagerank(G, iterations=300, **kw), ref_pagerank, False, False, False,
                 False),
    "wcc": (lambda G, s, **kw: dgraph.wcc(G, **kw), ref_wcc, True, False, False, True),
    "scc": (lambda G, s, **kw: dgraph.scc(G, **kw), ref_scc, True, False, False, True),
    "cdlp": (lambda G, s, **kw: dgraph.cdlp(G, iterations=4, **kw), ref_cdlp, True, False, False, True),
    "lcc": (lambda G, s, **kw: dgraph.lcc(G, **kw), ref_lcc, False, False, False, False),
    "triangle_count": (lambda G, s, **kw: dgraph.triangle_count(G, **kw), ref_triangles, True, False, True, False),
    "bc": (lambda G, s, **kw: dgraph.bc(G, sources=[s], normalized=False, **kw), ref_bc, False, False, False,
           False),
    "core_number": (lambda G, s, **kw: dgraph.core_number(G, **kw), ref_core_number, True, False, False, False),
    "random_walks": (lambda G, s, **kw: dgraph.random_walks(G, None, 5, seed=11, p=0.5, q=2.0, **kw),
                     ref_random_walks, True, False, False, True),
    "jaccard": (lambda G, s, **kw: dgraph.jaccard(G, _pairs(G.num_vertices), **kw), ref_jaccard, True, False, True,
                True),
    "hits": (lambda G, s, **kw: dgraph.hits(G, weight="weight", iterations=20000, tol=1e-13, **kw), ref_hits, False,
             True, False, True),
    "louvain": (lambda G, s, **kw: dgraph.louvain(G, seed=7, tries=1, **kw), ref_louvain, True, True, False, True),
}


def _cases():
    for algo in ALGORITHMS:
        for executor in ("local", "tasks", "spmd"):
            for p in (1, 2, 3, 4):
                if p == 1 and executor != "local":
                    continue
                for exchange in ("butterfly", "all-to-all"):
                    if p == 1 and exchange != "butterfly":
                        continue
                    for directed in (False, True):
                        if directed and ALGORITHMS[algo][4]:
                            continue
                        for graph in DEFAULT_GRAPHS + SLOW_GRAPHS:
                            if graph in LOOPED and not ALGORITHMS[algo][5]:
                                continue  # its reference counts self loops differently (its own file covers them)
                            slow = graph in SLOW_GRAPHS or exchange != "butterfly"
                            cid = f"{algo}-{executor}-p{p}-{exchange}-{'directed' if directed else 'undirected'}-{graph}"
                            marks = ([SLOW] if slow else []) + ([pytest.mark.dask] if executor != "local" else [])
                            yield pytest.param(algo, executor, p, exchange, directed, graph, id=cid, marks=marks)


@pytest.mark.parametrize("algo, executor, p, exchange, directed, graph", list(_cases()))
def test_conformance(request, algo, executor, p, exchange, directed, graph):
    run, reference, exact, weighted, _, _ = ALGORITHMS[algo]
    G = _make(graph, directed, weighted)
    s = _source(G)
    expect = reference(G, s)
    if p == 1:
        target = G
    else:
        client = request.getfixturevalue("client") if executor != "local" else False
        target = G.partition(p, method=("range", "hash")[p % 2], client=client)
    opts = {} if p == 1 else {"executor": executor, "exchange": exchange}
    r = run(target, s, **opts)
    for column, want in expect.items():
        got = to_numpy(r.raw(column))
        what = f"{algo} {column} on {graph}, {executor}, p={p}, {exchange}"
        if exact:
            np.testing.assert_array_equal(got, want, err_msg=what)
        else:
            np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12, err_msg=what)
