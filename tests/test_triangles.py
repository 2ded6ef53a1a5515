"""Triangle counts against nx.triangles on the undirected simple view, on every executor and partition count."""

import networkx as nx
import numpy as np
import pytest
from graphs import corpus

import dgraph
import dgraph.algorithms.triangles.program as triangles_module
from dgraph.backend import to_numpy

CASES = [(label, kw) for label, kw in corpus(110, seed=13)]


def _nx_triangles(G):
    """nx.triangles on the simple undirected view of G (directions, self loops and multi-edges dropped)."""
    g = nx.Graph(G.to("numpy").to_networkx())   # a DiGraph loses its directions; parallel arcs collapse
    g.remove_edges_from(list(nx.selfloop_edges(g)))
    t = nx.triangles(g)
    return np.array([t[v] for v in G.vertex_ids().tolist()], dtype=np.int64)


def _check(r, ref, what):
    got = to_numpy(r.raw("triangles"))
    assert got.dtype == np.int64, what
    np.testing.assert_array_equal(got, ref, err_msg=what)
    assert int(ref.sum()) % 3 == 0
    assert r.params["total"] == int(ref.sum()) // 3, what


def test_matches_networkx(backend):
    checked = 0
    for i, (name, kw) in enumerate(CASES):
        variants = [kw] if i % 3 else [kw, dict(kw, dedupe=False)]  # multi-edges count once
        for kwv in variants:
            G = dgraph.from_edges(**kwv).to(backend)
            r = dgraph.triangle_count(G)
            assert list(r.vertex.tolist()) == G.vertex_ids().tolist()
            _check(r, _nx_triangles(G), f"{name} dedupe={kwv.get('dedupe', True)}")
            checked += 1
    assert checked >= 100


def test_partitioned_matches_networkx():
    """Partitioned (simulated in one process), range and hash, 2-4 parts, against NetworkX."""
    checked = 0
    for i, (name, kw) in enumerate(CASES):
        G = dgraph.from_edges(**kw)
        if G.num_vertices < 2:
            continue
        p = min(2 + i % 3, G.num_vertices)
        method = ("range", "hash")[i % 2]
        r = dgraph.triangle_count(G.partition(p, method=method, client=False))
        _check(r, _nx_triangles(G), f"{name} p={p} {method}")
        assert r.params["partitions"] == p
        checked += 1
    assert checked >= 100


def test_partitions_equal_single():
    for directed in (True, False):
        G = dgraph.generate("rmat", scale=9, seed=3, directed=directed)
        ref = dgraph.triangle_count(G)
        assert ref.params["total"] > 0
        for p in (2, 3, 4):
            for method in ("range", "hash", "metis"):
                for exchange in ("butterfly", "all-to-all"):
                    r = dgraph.triangle_count(G.partition(p, method=method, client=False), exchange=exchange)
                    np.testing.assert_array_equal(r.triangles, ref.triangles,
                                                  err_msg=f"directed={directed} p={p} {method} {exchange}")
                    assert r.params["total"] == ref.params["total"]


def test_chunked_counting_is_the_same(monkeypatch):
    """The counting superstep expands at most CHUNK checks at once; tiny chunks give the same counts."""
    G = dgraph.generate("rmat", scale=8, seed=4)
    ref = _nx_triangles(G)
    for chunk in (1, 7, 100):
        monkeypatch.setattr(triangles_module, "CHUNK", chunk)
        _check(dgraph.triangle_count(G, kernels="generic"), ref, f"chunk={chunk}")
        _check(dgraph.triangle_count(G.partition(3, method="hash", client=False), kernels="generic"), ref,
               f"chunk={chunk} p=3")


def test_known_graphs():
    # K5: every vertex is in C(4, 2) = 6 triangles, 10 in all
    src, dst = zip(*[(a, b) for a in range(5) for b in range(a + 1, 5)])
    r = dgraph.triangle_count(dgraph.from_edges(src, dst))
    assert r.triangles.tolist() == [6] * 5 and r.params["total"] == 10
    # a directed 3-cycle, the same with arcs both ways, self loops and duplicates: one triangle
    for s, d in (([0, 1, 2], [1, 2, 0]), ([0, 1, 2, 1, 2, 0], [1, 2, 0, 0, 1, 2]),
                 ([0, 1, 2, 0, 0, 1, 1], [1, 2, 0, 0, 1, 2, 1])):
        for directed in (True, False):
            r = dgraph.triangle_count(dgraph.from_edges(s, d, directed=directed, dedupe=False))
            assert r.triangles.tolist() == [1, 1, 1] and r.params["total"] == 1, (s, d, directed)
    # two triangles sharing the edge a-b, an isolated vertex e, string ids mapped through
    G = dgraph.from_edges(["a", "a", "b", "b", "a"], ["b", "c", "c", "d", "d"], vertices=["a", "b", "c", "d", "e"])
    r = dgraph.triangle_count(G)
    assert dict(zip(r.vertex.tolist(), r.triangles.tolist())) == {"a": 2, "b": 2, "c": 1, "d": 1, "e": 0}
    assert r.params["total"] == 2


def test_stats_and_empty():
    G = dgraph.generate("rmat", scale=7, seed=1)
    steps = []
    r = dgraph.triangle_count(G, on_step=steps.append)
    assert r.supersteps == 3 and len(steps) == 3
    assert r.stats["phase"].tolist() == ["degrees", "replicate", "count"]
    assert int(r.stats["total"].iloc[-1]) == r.params["total"]
    assert int(r.stats["replica_arcs"].iloc[-1]) == int(r.stats["oriented"].iloc[1])  # one shard keeps every row
    for n in (0, 1, 3):
        r = dgraph.triangle_count(dgraph.from_edges([], [], num_vertices=n))
        assert to_numpy(r.triangles).tolist() == [0] * n and r.params["total"] == 0


def test_fused_equals_generic():
    """The numba counting kernel (numpy default) gives exactly the vectorized reference's counts and stats."""
    checked = 0
    graphs = [(name, dgraph.from_edges(**kw)) for name, kw in CASES]
    graphs += [(f"rmat{s} d={d}", dgraph.generate("rmat", scale=s, seed=s, directed=d))
               for s in (6, 8, 10) for d in (False, True)]
    for i, (name, G) in enumerate(graphs):
        targets = [(1, None, G)]
        for p in (2, 3, 5):
            if G.num_vertices >= p:
                method = ("range", "hash")[(i + p) % 2]
                targets.append((p, method, G.partition(p, method=method, client=False)))
        for p, method, T in targets:
            f = dgraph.triangle_count(T, kernels="fused")
            g = dgraph.triangle_count(T, kernels="generic")
            what = f"{name} p={p} {method}"
            got, ref = to_numpy(f.raw("triangles")), to_numpy(g.raw("triangles"))
            assert got.dtype == ref.dtype == np.int64, what
            np.testing.assert_array_equal(got, ref, err_msg=what)
            assert f.params["total"] == g.params["total"], what
            for col in ("checks", "replica_arcs", "total"):
                assert int(f.stats[col].iloc[-1]) == int(g.stats[col].iloc[-1]), (what, col)
            checked += 1
    assert checked >= 300
    with pytest.raises(dgraph.InputError):
        dgraph.triangle_count(graphs[0][1], kernels="nope")


# -- on a Dask cluster -----------------------------------------------------------------------------

def test_executors_equal_local(client):
    graphs = [kw for _, kw in CASES[6:30] if dgraph.from_edges(**kw).num_vertices >= 3][:8]
    assert len(graphs) == 8
    for kw in graphs:
        G = dgraph.from_edges(**kw)
        ref = _nx_triangles(G)
        for p in (2, 3):
            PG = G.partition(p, method="hash" if p == 3 else "range", client=client)
            for executor in ("tasks", "spmd"):
                r = dgraph.triangle_count(PG, executor=executor)
                _check(r, ref, f"{kw} p={p} {executor}")
                assert r.params["executor"] == executor
    G = dgraph.generate("rmat", scale=8, seed=5, directed=True)
    ref = dgraph.triangle_count(G)
    PG = G.partition(3, method="metis", client=client)
    for executor in ("tasks", "spmd"):
        for exchange in ("butterfly", "all-to-all"):
            r = dgraph.triangle_count(PG, executor=executor, exchange=exchange)
            np.testing.assert_array_equal(r.triangles, ref.triangles, err_msg=f"{executor} {exchange}")
            assert r.params["total"] == ref.params["total"]


def test_one_shard_path_simple_or_not(monkeypatch):
    """The one-shard count orients a simple CSR in one pass, a CSR with self loops or repeats after its
    simple degrees, with 32- or 64-bit per-thread counts by the largest degree: the reference's counts,
    LCC values and stats every way."""
    from dgraph.algorithms.triangles import cpu

    calls = []
    real = cpu.simple_degrees
    monkeypatch.setattr(cpu, "simple_degrees", lambda *a: (calls.append(1), real(*a))[1])
    hub = 70_000  # 70,000 * 69,999 / 2 > 2**31: 64-bit counts
    leaves = np.arange(1, hub + 1)
    star = (np.concatenate([np.zeros(hub, np.int64), leaves[:-1]]), np.concatenate([leaves, leaves[1:]]))
    cases = [("grid", dgraph.generate("grid", rows=9, cols=11), False),
             ("rmat", dgraph.generate("rmat", scale=9, seed=4), True),  # rmat keeps its self loops
             ("repeats", dgraph.from_edges([0, 1, 2, 0, 1], [1, 2, 0, 1, 2], dedupe=False), True),
             ("star+path", dgraph.from_edges(*star), False)]
    for name, G, fallback in cases:
        calls.clear()
        f, g = dgraph.triangle_count(G), dgraph.triangle_count(G, kernels="generic")
        assert f.params["implementation"] == "cpu-numba-oriented" and bool(calls) == fallback, name
        np.testing.assert_array_equal(f.raw("triangles"), g.raw("triangles"), err_msg=name)
        assert f.stats.drop(columns="time_s").equals(g.stats.drop(columns="time_s")), name
        lf, lg = dgraph.lcc(G), dgraph.lcc(G, kernels="generic")
        np.testing.assert_array_equal(lf.raw("lcc"), lg.raw("lcc"), err_msg=name)
    assert f.params["total"] == hub - 1 and int(f.raw("triangles")[0]) == hub - 1
