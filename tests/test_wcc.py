"""Weakly connected components against NetworkX and the LDBC reference, on every executor and partition count.

The label of a vertex is the smallest vertex id of its component (in the
user's ids), so every run must give exactly the same labels.
"""

import networkx as nx
import numpy as np
import pytest
from graphs import ISSUE21_12, back_edge_graphs, corpus
from ldbc import load, check_equivalent, reference, written

import dgraph
from dgraph.backend import to_numpy

CASES = [(label, kw) for label, kw in corpus(115, seed=11)]


def _nx_labels(G):
    """{user vertex: smallest user id of its component}, from NetworkX."""
    g = G.to("numpy").to_networkx()
    comps = nx.weakly_connected_components(g) if g.is_directed() else nx.connected_components(g)
    return {v: min(c) for c in comps for v in c}


def _labels(r):
    return dict(zip(r.vertex.tolist(), to_numpy(r.component).tolist()))


def test_matches_networkx(backend):
    checked = 0
    for label, kw in CASES:
        G = dgraph.from_edges(**kw).to(backend)
        r = dgraph.wcc(G)
        assert len(r.vertex) == G.num_vertices, label
        assert _labels(r) == _nx_labels(G), label
        checked += 1
    assert checked >= 100


def test_odd_cases():
    r = dgraph.wcc(dgraph.from_edges([], [], num_vertices=0))
    assert len(r.component) == 0
    assert dgraph.wcc(dgraph.from_edges([], [], num_vertices=1)).component.tolist() == [0]
    assert dgraph.wcc(dgraph.from_edges([0], [0])).component.tolist() == [0]
    assert dgraph.wcc(dgraph.from_edges([], [], num_vertices=3)).component.tolist() == [0, 1, 2]
    # direction ignored: 2 -> 1 <- 0 and 3 -> 4 -> 3
    r = dgraph.wcc(dgraph.from_edges([2, 0, 3, 4], [1, 1, 4, 3], directed=True))
    assert r.component.tolist() == [0, 0, 0, 3, 3]
    r = dgraph.wcc(dgraph.from_edges(["b", "a", "c", "x"], ["a", "c", "d", "y"]))
    assert _labels(r) == {"a": "a", "b": "a", "c": "a", "d": "a", "x": "x", "y": "x"}
    r = dgraph.wcc(dgraph.from_edges([-5, -1, 7, 50], [-1, 7, 100, 60]))
    assert _labels(r) == {-5: -5, -1: -5, 7: -5, 100: -5, 50: 50, 60: 50}
    assert dgraph.cc is dgraph.wcc


def test_long_paths_and_stats(backend):
    rng = np.random.default_rng(3)
    n = 20000
    perm = rng.permutation(n)
    cut = rng.choice(np.arange(1, n - 1), size=5, replace=False)   # 6 random-id paths
    keep = np.ones(n - 1, bool)
    keep[cut] = False
    G = dgraph.from_edges(perm[:-1][keep], perm[1:][keep], num_vertices=n, directed=True).to(backend)
    r = dgraph.wcc(G)
    comp = to_numpy(r.raw("component"))
    groups = np.split(perm, np.sort(cut) + 1)
    assert len(np.unique(comp)) == 6
    for grp in groups:
        assert (comp[grp] == grp.min()).all()
    s = r.stats
    assert s["components"].iloc[-1] == 6
    if r.params["implementation"] == "gpu-union-find":  # one superstep: the forests united at once
        assert r.supersteps == 1 and s["hooks"].iloc[0] == n - 6
    else:
        assert s["hooks"].iloc[-1] == 0 and (s["hooks"].iloc[:-1] > 0).all()
        assert r.supersteps < 40


@pytest.mark.parametrize("kind", ["directed", "undirected"])
def test_ldbc_reference(kind, tmp_path):
    G, _ = load(kind)
    ref = reference(kind, "WCC")
    single = None
    for p in (1, 2, 3, 4):
        target = G if p == 1 else G.partition(p, client=False)
        r = dgraph.wcc(target)
        got = written(r, "component", tmp_path, f"WCC-{kind}-{p}")
        check_equivalent(got, ref)
        # the label is the smallest id of the group
        for v, c in got.items():
            assert int(c) == min(u for u in got if got[u] == c), v
        single = got if single is None else single
        assert got == single


def test_partitions_give_the_same_labels(backend):
    graphs = [dgraph.generate("rmat", scale=9, seed=4, directed=True),
              dgraph.generate("rmat", scale=9, edgefactor=2, seed=5, directed=False),
              dgraph.generate("grid", rows=12, cols=15)]
    graphs += [dgraph.from_edges(**kw) for _, kw in CASES[15:30]]
    for G in graphs:
        G = G.to(backend)
        ref = to_numpy(dgraph.wcc(G).raw("component"))
        for p in (2, 3, 4):
            if p > G.num_vertices:
                continue
            for method in ("range", "hash", "metis"):
                r = dgraph.wcc(G.partition(p, method=method, client=False), exchange="all-to-all" if p == 3 else "butterfly")
                np.testing.assert_array_equal(to_numpy(r.raw("component")), ref, err_msg=f"{G} p={p} {method}")
                assert r.params["partitions"] == p


def test_issue21_12_directed_back_edges_across_the_cut():
    """Edges pointing backwards across the partition cut: every partitioning gives the whole graph's
    labels, on both kernels.  The fused pass once contributed path-halved entries of vertices that
    were not roots, and a smaller hook of the same root from another shard split a component."""
    G = dgraph.from_edges(**ISSUE21_12)
    for kernels in ("fused", "generic"):
        assert dgraph.wcc(G, kernels=kernels).component.tolist() == [0] * 7
        for p, method in ((2, "range"), (2, "hash"), (3, "range"), (4, "hash")):
            r = dgraph.wcc(G.partition(p, method=method, client=False), kernels=kernels)
            assert r.component.tolist() == [0] * 7, (kernels, p, method)
    # more of that shape (a few hundred partitioned runs; the old fused pass failed ~1 in 15)
    runs = 0
    for label, kw in [*back_edge_graphs(40, seed=21), *back_edge_graphs(10, seed=22, directed=False)]:
        G = dgraph.from_edges(**kw)
        ref = _nx_labels(G)
        assert _labels(dgraph.wcc(G)) == ref, label
        for p in (2, 3, 4):
            for method in ("range", "hash"):
                PG = G.partition(p, method=method, client=False)
                for kernels in ("fused", "generic"):
                    assert _labels(dgraph.wcc(PG, kernels=kernels)) == ref, f"{label} p={p} {method} {kernels}"
                    runs += 1
    assert runs == 600


def test_issue21_12_root_hooks_kernel():
    """root_hooks keeps a pass's hooks of the roots of p only, each to its root in new."""
    from dgraph.algorithms.wcc import cpu as cpu_wcc

    for vdt in (np.int32, np.int64):
        p = np.array([0, 1, 2, 1, 2, 1, 0], vdt)          # stars {0,6} {1,3,5} {2,4}
        new = p.copy()
        new[2] = 1                                        # the pass hooked root 2 under 1 ...
        new[4] = 1                                        # ... and path halving lowered 4, not a root
        assert cpu_wcc.root_hooks(p, new) == 1
        assert new.tolist() == [0, 1, 1, 1, 2, 1, 0]      # 4 stays in 2's star; only 2 moves
        new = np.array([0, 0, 1, 2, 3, 4, 5], vdt)        # a chain in new, every vertex a root of p
        assert cpu_wcc.root_hooks(np.arange(7, dtype=vdt), new) == 6
        assert new.tolist() == [0] * 7


# -- Dask executors ------------------------------------------------------------------------

def test_executors_equal_local(client):
    graphs = [dgraph.generate("rmat", scale=8, seed=9, directed=True), dgraph.generate("grid", rows=5, cols=9)]
    graphs += [dgraph.from_edges(**kw) for label, kw in CASES if not label.startswith("empty")][4:12]
    for G in graphs:
        ref = to_numpy(dgraph.wcc(G).raw("component"))
        for p in (2, 3):
            if p > G.num_vertices:
                continue
            PG = G.partition(p, client=client)
            for exchange in ("butterfly", "all-to-all"):
                for executor in ("tasks", "spmd"):
                    r = dgraph.wcc(PG, executor=executor, exchange=exchange)
                    np.testing.assert_array_equal(to_numpy(r.raw("component")), ref,
                                                  err_msg=f"{G} p={p} {exchange} {executor}")
                    assert r.params["executor"] == executor


@pytest.mark.parametrize("directed", [False, True])
def test_shards_built_on_workers(client, directed):
    G = dgraph.generate("rmat", scale=9, edgefactor=2, seed=9, directed=directed)
    ref = to_numpy(dgraph.wcc(G).raw("component"))
    PG = dgraph.generate_partitioned("rmat", 3, client=client, scale=9, edgefactor=2, seed=9, directed=directed,
                                     method="hash", chunks=4)
    assert PG.num_arcs == G.num_arcs
    np.testing.assert_array_equal(to_numpy(dgraph.wcc(PG).raw("component")), ref)


# -- fused (numba union-find) against generic (vectorized hooking) ----------------------------

def test_fused_equals_generic():
    graphs = [dgraph.generate("rmat", scale=10, seed=s, directed=d, edgefactor=ef)
              for s, d, ef in ((1, True, 4), (2, False, 2), (3, False, 16), (4, True, 1))]
    graphs += [dgraph.generate("grid", rows=17, cols=23), dgraph.generate("grid", rows=1, cols=300)]
    graphs += [dgraph.from_edges(**kw) for _, kw in CASES]
    checked = 0
    for G in graphs:
        ref = to_numpy(dgraph.wcc(G, kernels="generic").raw("component"))
        r = dgraph.wcc(G, kernels="fused")
        np.testing.assert_array_equal(to_numpy(r.raw("component")), ref, err_msg=str(G))
        assert len(r.stats) <= 2 or G.num_vertices == 0, str(G)   # one shard: union-find, then an empty check
        for p in (2, 3, 5, 8):
            if p > G.num_vertices:
                continue
            for method in ("range", "hash"):
                PG = G.partition(p, method=method, client=False)
                f = to_numpy(dgraph.wcc(PG, kernels="fused").raw("component"))
                g = to_numpy(dgraph.wcc(PG, kernels="generic").raw("component"))
                np.testing.assert_array_equal(f, ref, err_msg=f"{G} p={p} {method} fused")
                np.testing.assert_array_equal(g, ref, err_msg=f"{G} p={p} {method} generic")
        checked += 1
    assert checked >= 100


def test_fused_long_paths_random_ids():
    rng = np.random.default_rng(17)
    for n, k in ((5000, 1), (5000, 40), (3000, 700)):
        perm = rng.permutation(n)
        cut = rng.choice(np.arange(1, n - 1), size=k - 1, replace=False) if k > 1 else np.empty(0, int)
        keep = np.ones(n - 1, bool)
        keep[cut] = False
        G = dgraph.from_edges(perm[:-1][keep], perm[1:][keep], num_vertices=n, directed=True)
        want = np.empty(n, np.int64)
        for grp in np.split(perm, np.sort(cut) + 1):
            want[grp] = grp.min()
        for p in (1, 2, 4, 7):
            target = G if p == 1 else G.partition(p, method="hash", client=False)
            for kernels in ("fused", "generic"):
                comp = to_numpy(dgraph.wcc(target, kernels=kernels).raw("component"))
                np.testing.assert_array_equal(comp, want, err_msg=f"n={n} k={k} p={p} {kernels}")


def test_kernels_argument():
    G = dgraph.generate("grid", rows=3, cols=3)
    with pytest.raises(dgraph.InputError):
        dgraph.wcc(G, kernels="nope")


def test_cpu_wcc_kernels_direct():
    from dgraph.algorithms.wcc import cpu as cpu_wcc

    for vdt in (np.int32, np.int64):
        p = np.array([0, 0, 2, 2, 4, 5], vdt)              # stars: {0,1} {2,3} {4} {5}
        new = p.copy()
        src = np.array([1, 3, 5, 1], vdt)
        dst = np.array([0, 4, 3, 2], vdt)
        live = cpu_wcc.hook_union_find(p, new, src, dst)
        assert live == 3 and src[:3].tolist() == [3, 5, 1] and dst[:3].tolist() == [4, 3, 2]
        assert (new <= p).all() and (new <= np.arange(6)).all()
        out = np.empty_like(new)
        assert cpu_wcc.jump_to_roots(new, out) == 1
        assert out.tolist() == [0] * 6
        q = np.array([0, 1, 1, 2], vdt)
        cpu_wcc.merge_min(q, np.array([3, 3, 1], vdt), np.array([1, 0, 0], vdt))
        assert q.tolist() == [0, 0, 1, 0]
        cpu_wcc.merge_min_dense(q, np.array([0, 1, 0, 1], vdt))
        assert q.tolist() == [0, 0, 0, 0]


def test_one_function_chooses_the_implementation_and_the_result_records_it(monkeypatch):
    """wcc.implementation() decides once from the backend and ``kernels``; Result.params names it."""
    from dgraph.algorithms.wcc import IMPLEMENTATIONS, WCC, cpu, implementation
    from dgraph.engine.run import run_program

    assert {implementation(b, k) for b in ("numpy", "cupy") for k in ("fused", "generic")} == set(IMPLEMENTATIONS)
    assert implementation("cupy", "generic") == "generic" and implementation("cupy", "fused") == "gpu-union-find"
    calls = []
    real = cpu.hook_csr
    monkeypatch.setattr(cpu, "hook_csr", lambda *a: calls.append(1) or real(*a))
    G = dgraph.generate("rmat", scale=7, seed=5)
    for target in (G, G.partition(3, client=False)):
        fused, generic = dgraph.wcc(target), dgraph.wcc(target, kernels="generic")
        assert fused.params["implementation"] == "cpu-union-find" and generic.params["implementation"] == "generic"
        assert np.array_equal(fused.raw("component"), generic.raw("component"))
    assert len(calls) == 1 + 3  # one first superstep a shard, fused runs only
    plain = run_program(lambda ids: WCC(kernels="generic"), G)
    assert np.array_equal(plain.raw("component"), generic.raw("component")) and len(calls) == 4
