"""LCC against NetworkX (undirected) and an LDBC-spec reference (directed), on every executor and partition count."""

import networkx as nx
import numpy as np
import pytest
from graphs import corpus
from ldbc import load, check_epsilon, reference, written

import dgraph
from dgraph.backend import to_numpy

CASES = [(label, kw) for label, kw in corpus(110, seed=17)]


def _py(v):
    return v.item() if hasattr(v, "item") else v


def ldbc_lcc(vertices, src, dst, *, directed):
    """LDBC Graphalytics LCC, written from the specification.

    N(v): the vertices joined to v by an edge in either direction, v itself
    excluded.  |N(v)| <= 1: 0.  Otherwise the number of directed edges (u, w)
    with u, w in N(v), u != w, over |N(v)| (|N(v)| - 1); an undirected edge
    is a directed edge both ways.  Duplicate edges count once (a set).
    """
    vertices = [_py(v) for v in vertices]
    arcs = {(_py(u), _py(v)) for u, v in zip(src, dst) if _py(u) != _py(v)}
    if not directed:
        arcs |= {(v, u) for u, v in arcs}
    nbrs = {v: set() for v in vertices}
    for u, v in arcs:
        nbrs[u].add(v)
        nbrs[v].add(u)
    out = []
    for v in vertices:
        n = nbrs[v]
        k = len(n)
        if k <= 1:
            out.append(0.0)
            continue
        count = sum(1 for u in n for w in n if u != w and (u, w) in arcs)
        out.append(count / (k * (k - 1)))
    return np.array(out, dtype=np.float64)


def _reference(G, kw):
    if kw.get("directed", False):
        return ldbc_lcc(G.vertex_ids().tolist(), list(kw["src"]), list(kw["dst"]), directed=True)
    g = nx.Graph(G.to("numpy").to_networkx())
    c = nx.clustering(g)  # ignores self loops
    return np.array([c[v] for v in G.vertex_ids().tolist()], dtype=np.float64)


def _check(r, ref, what):
    got = to_numpy(r.raw("lcc"))
    assert got.dtype == np.float64, what
    np.testing.assert_allclose(got, ref, rtol=0, atol=1e-12, err_msg=what)


def test_matches_reference(backend):
    checked = directed = 0
    for i, (name, kw) in enumerate(CASES):
        variants = [kw] if i % 3 else [kw, dict(kw, dedupe=False)]  # multi-edges count once
        for kwv in variants:
            G = dgraph.from_edges(**kwv).to(backend)
            r = dgraph.lcc(G)
            assert list(r.vertex.tolist()) == G.vertex_ids().tolist()
            _check(r, _reference(G, kwv), f"{name} dedupe={kwv.get('dedupe', True)}")
            checked += 1
            directed += bool(kwv.get("directed", False))
    assert checked >= 100 and directed >= 40


def test_undirected_reference_is_networkx():
    """The spec reference and nx.clustering agree on undirected graphs (the reference is not a tautology)."""
    for name, kw in CASES[:60]:
        if kw.get("directed", False):
            continue
        G = dgraph.from_edges(**kw)
        spec = ldbc_lcc(G.vertex_ids().tolist(), list(kw["src"]), list(kw["dst"]), directed=False)
        np.testing.assert_allclose(spec, _reference(G, kw), rtol=0, atol=1e-12, err_msg=name)


def test_partitioned_matches_reference():
    checked = 0
    for i, (name, kw) in enumerate(CASES):
        G = dgraph.from_edges(**kw)
        if G.num_vertices < 2:
            continue
        p = min(2 + i % 3, G.num_vertices)
        method = ("range", "hash")[i % 2]
        _check(dgraph.lcc(G.partition(p, method=method, client=False)), _reference(G, kw), f"{name} p={p} {method}")
        checked += 1
    assert checked >= 100


@pytest.mark.parametrize("kind", ["directed", "undirected"])
def test_ldbc_reference(kind, tmp_path):
    G, _ = load(kind)
    ref = reference(kind, "LCC")
    for p in (1, 2, 3, 4):
        for method in ("range", "hash"):
            target = G if p == 1 else G.partition(p, method=method, client=False)
            r = dgraph.lcc(target)
            check_epsilon(written(r, "lcc", tmp_path, f"LCC-{kind}-{p}-{method}"), ref)


def test_partitions_equal_single():
    for directed in (True, False):
        G = dgraph.generate("rmat", scale=9, seed=3, directed=directed)
        ref = dgraph.lcc(G).lcc
        assert (ref > 0).any()
        for p in (2, 3, 4):
            for method in ("range", "hash", "metis"):
                for exchange in ("butterfly", "all-to-all"):
                    r = dgraph.lcc(G.partition(p, method=method, client=False), exchange=exchange)
                    np.testing.assert_array_equal(r.lcc, ref, err_msg=f"directed={directed} p={p} {method}")


def test_directed_rule():
    # v = 0 with neighbors 1 and 2 (as out- or in-neighbors); the arcs between 1 and 2 decide
    for arcs_12, want in (([], 0.0), ([(1, 2)], 0.5), ([(2, 1)], 0.5), ([(1, 2), (2, 1)], 1.0)):
        for spokes in ([(0, 1), (0, 2)], [(1, 0), (2, 0)], [(0, 1), (2, 0)], [(0, 1), (1, 0), (2, 0)]):
            edges = spokes + arcs_12 + [(0, 0), *arcs_12]          # a self loop and duplicates: ignored
            s, d = zip(*edges)
            r = dgraph.lcc(dgraph.from_edges(s, d, directed=True, dedupe=False))
            assert r.value(0, "lcc") == want, (spokes, arcs_12)
    # NetworkX's directed clustering is another formula: it gives 0.1 here where LDBC gives 1/6
    s, d = [0, 1, 2, 2, 3], [1, 0, 0, 3, 0]
    assert dgraph.lcc(dgraph.from_edges(s, d, directed=True)).value(0, "lcc") == 1 / 6
    assert abs(nx.clustering(nx.DiGraph(list(zip(s, d))))[0] - 0.1) < 1e-12
    # a vertex with one neighbor (reached both ways) has 0; a vertex whose only neighbor is itself has 0
    r = dgraph.lcc(dgraph.from_edges([0, 1, 2], [1, 0, 2], directed=True))
    assert r.lcc.tolist() == [0.0, 0.0, 0.0]


def test_undirected_known():
    # a 4-clique minus the edge 2-3: 0 and 1 see two of their three neighbor pairs joined, 2 and 3 their one pair
    G = dgraph.from_edges([0, 0, 0, 1, 1], [1, 2, 3, 2, 3])
    r = dgraph.lcc(G)
    np.testing.assert_allclose(r.lcc, [2 / 3, 2 / 3, 1.0, 1.0], rtol=0, atol=0)
    assert r.params["total"] == 2
    r = dgraph.lcc(dgraph.from_edges([], [], num_vertices=0))
    assert len(r.lcc) == 0


def test_fused_equals_generic():
    """The numba counting kernel gives the same LCC bits as the vectorized reference (directed 1-or-2 arcs too)."""
    checked = 0
    graphs = [(name, dgraph.from_edges(**kw)) for name, kw in CASES]
    graphs += [(name, dgraph.from_edges(**dict(kw, dedupe=False))) for name, kw in CASES[::5]]
    graphs += [(f"rmat{s} d={d}", dgraph.generate("rmat", scale=s, seed=s + 1, directed=d))
               for s in (6, 8, 10) for d in (False, True)]
    for i, (name, G) in enumerate(graphs):
        targets = [(1, None, G)]
        for p in (2, 3, 4):
            if G.num_vertices >= p:
                method = ("hash", "range")[(i + p) % 2]
                targets.append((p, method, G.partition(p, method=method, client=False)))
        for p, method, T in targets:
            f = to_numpy(dgraph.lcc(T, kernels="fused").raw("lcc"))
            g = to_numpy(dgraph.lcc(T, kernels="generic").raw("lcc"))
            assert f.dtype == g.dtype == np.float64
            np.testing.assert_array_equal(f.view(np.int64), g.view(np.int64), err_msg=f"{name} p={p} {method}")
            checked += 1
    assert checked >= 300


# -- on a Dask cluster -----------------------------------------------------------------------------

def test_executors_equal_local(client):
    graphs = [kw for _, kw in CASES[6:40] if dgraph.from_edges(**kw).num_vertices >= 3]
    graphs = [kw for kw in graphs if kw.get("directed")][:4] + [kw for kw in graphs if not kw.get("directed")][:4]
    assert len(graphs) == 8
    for kw in graphs:
        G = dgraph.from_edges(**kw)
        ref = dgraph.lcc(G).lcc
        _check(dgraph.lcc(G), _reference(G, kw), str(kw))
        for p in (2, 3):
            PG = G.partition(p, method="hash" if p == 3 else "range", client=client)
            for executor in ("tasks", "spmd"):
                r = dgraph.lcc(PG, executor=executor)
                np.testing.assert_array_equal(r.lcc, ref, err_msg=f"{kw} p={p} {executor}")
                assert r.params["executor"] == executor
    G = dgraph.generate("rmat", scale=8, seed=5, directed=True)
    ref = dgraph.lcc(G).lcc
    PG = G.partition(3, method="metis", client=client)
    for executor in ("tasks", "spmd"):
        for exchange in ("butterfly", "all-to-all"):
            r = dgraph.lcc(PG, executor=executor, exchange=exchange)
            np.testing.assert_array_equal(r.lcc, ref, err_msg=f"{executor} {exchange}")
