"""Every algorithm on CuPy: the same answers as numpy, single and partitioned, and the LDBC outputs.

The numpy results are themselves checked against NetworkX / scipy / the LDBC
spec in each algorithm's own test module; here the CuPy runs (one GPU, shards
in this process, 1-4 partitions) must give the numpy bits where the algorithm
is exact (BFS, SSSP, WCC, CDLP, LCC, triangles, core numbers) and agree to 1e-12 where a
floating sum's order may differ (PageRank, BC: atomics add in any order).
"""

import numpy as np
import pytest
from graphs import corpus, weighted
from ldbc import check_epsilon, check_equivalent, check_exact, load, reference, written

import dgraph
from dgraph.backend import gpu_available, to_numpy

pytestmark = pytest.mark.gpu



@pytest.fixture(autouse=True)
def _needs_gpu():
    if not gpu_available():  # only reached when `-m gpu` is asked for on a machine without one
        pytest.skip("no usable CUDA GPU / CuPy")

EXACT = {
    "bfs": (lambda G, s: dgraph.bfs(G, s), ("depth", "parent")),
    "sssp": (lambda G, s: dgraph.sssp(G, s), ("distance", "parent")),
    "wcc": (lambda G, s: dgraph.wcc(G), ("component",)),
    "scc": (lambda G, s: dgraph.scc(G), ("component",)),
    "cdlp": (lambda G, s: dgraph.cdlp(G, iterations=5), ("label",)),
    "lcc": (lambda G, s: dgraph.lcc(G), ("lcc",)),
    "triangle_count": (lambda G, s: dgraph.triangle_count(G), ("triangles",)),
    "core_number": (lambda G, s: dgraph.core_number(G, self_loops="ignore"), ("core",)),
    "louvain": (lambda G, s: dgraph.louvain(G, seed=3), ("community",)),
}
CLOSE = {
    "pagerank": (lambda G, s: dgraph.pagerank(G, iterations=15), ("pagerank",)),
    "bc": (lambda G, s: dgraph.bc(G, sources=[s]), ("bc",)),
    "pagerank_weighted": (lambda G, s: dgraph.pagerank(G, iterations=15, weight="weight"), ("pagerank",)),
    "hits": (lambda G, s: dgraph.hits(G, iterations=15, tol=None), ("hubs", "authorities")),
    "hits_weighted": (lambda G, s: dgraph.hits(G, iterations=15, tol=None, weight="weight"),
                      ("hubs", "authorities")),
}


def _graphs():
    rng = np.random.default_rng(5)
    yield "rmat-directed", dgraph.generate("rmat", scale=10, seed=1, directed=True, weighted=True)
    yield "rmat-undirected", dgraph.generate("rmat", scale=10, seed=2, weighted=True, weights="int")
    yield "grid", dgraph.generate("grid", rows=20, cols=23, weighted=True, seed=3)
    for label, kw in list(corpus(36, seed=17)):
        kw = weighted(kw, rng)
        yield label, dgraph.from_edges(**kw)


def _source(G):
    if G.num_vertices == 0:
        return None
    return G.ids.to_user(int(np.argmax(to_numpy(G.out_degree())))).item()


def _compare(name, columns, got, ref, exact, what):
    for c in columns:
        a, b = to_numpy(got.raw(c)), to_numpy(ref.raw(c))
        if exact:
            np.testing.assert_array_equal(a, b, err_msg=f"{name} {c} {what}")
        else:
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14, err_msg=f"{name} {c} {what}")


@pytest.mark.parametrize("name", sorted(EXACT) + sorted(CLOSE))
def test_cupy_equals_numpy(name):
    fn, columns = EXACT.get(name) or CLOSE[name]
    exact = name in EXACT
    checked = 0
    for label, G in _graphs():
        s = _source(G)
        if s is None and name in ("bfs", "sssp", "bc"):
            continue
        ref = fn(G, s)
        got = fn(G.to("cupy"), s)
        assert got.backend == "cupy"
        _compare(name, columns, got, ref, exact, label)
        if G.num_vertices >= 4 and checked % 3 == 0:
            for p in (2, 3, 4):
                PG = G.partition(p, method=("range", "hash")[p % 2], client=False, backend="cupy")
                _compare(name, columns, fn(PG, s), ref, exact, f"{label} p={p}")
        checked += 1
    assert checked >= 30


LDBC = [("BFS", "depth", lambda G, s: dgraph.bfs(G, s), check_exact, False),
        ("SSSP", "distance", lambda G, s: dgraph.sssp(G, s), check_epsilon, True),
        ("WCC", "component", lambda G, s: dgraph.wcc(G), check_equivalent, False),
        ("CDLP", "label", lambda G, s: dgraph.cdlp(G, iterations=2), check_exact, False),
        ("PR", "pagerank", lambda G, s: dgraph.pagerank(G, damping=0.85, iterations=2), check_epsilon, False),
        ("LCC", "lcc", lambda G, s: dgraph.lcc(G), check_epsilon, False)]


@pytest.mark.parametrize("kind", ["directed", "undirected"])
@pytest.mark.parametrize("algo,column,fn,check,weights", LDBC, ids=[a[0] for a in LDBC])
def test_ldbc_on_cupy(kind, algo, column, fn, check, weights, tmp_path):
    G, source = load(kind, weighted=weights)
    ref = reference(kind, algo)
    G = G.to("cupy")
    for p in (1, 2, 3, 4):
        target = G if p == 1 else G.partition(p, client=False)
        r = fn(target, source)
        assert r.backend == "cupy"
        check(written(r, column, tmp_path, f"{algo}-{kind}-{p}"), ref)


def test_sssp_auto_delta_on_cupy_uses_the_gpu_constant():
    from dgraph.algorithms.sssp import GPU_DELTA_FACTOR, auto_delta

    G = dgraph.generate("rmat", scale=10, seed=1, weighted=True)
    s = _source(G)
    cpu, gpu = dgraph.sssp(G, s), dgraph.sssp(G.to("cupy"), s)
    w = to_numpy(G.weights)
    assert gpu.params["delta"] == auto_delta(G.num_arcs, float(w.sum()), G.num_vertices, GPU_DELTA_FACTOR)
    assert gpu.params["delta"] > cpu.params["delta"]
    np.testing.assert_array_equal(to_numpy(gpu.raw("distance")), cpu.raw("distance"))
    np.testing.assert_array_equal(to_numpy(gpu.raw("parent")), cpu.raw("parent"))


def _scipy_components(G):
    """Component labels = the smallest vertex id of each component (scipy finds them; relabel)."""
    import scipy.sparse as sp
    from scipy.sparse.csgraph import connected_components

    src, dst = (to_numpy(a) for a in G.coo()[:2])
    n = G.num_vertices
    A = sp.coo_matrix((np.ones(len(src)), (src, dst)), shape=(n, n)).tocsr()
    _, lab = connected_components(A, directed=True, connection="weak")
    smallest = np.full(lab.max() + 1 if n else 0, n, dtype=np.int64)
    np.minimum.at(smallest, lab, np.arange(n))
    return smallest[lab]


@pytest.mark.parametrize("directed", [False, True])
def test_wcc_union_find_on_the_gpu_against_scipy(directed):
    """The GPU union-find (algorithms/wcc/gpu.py): many components, long chains with descending ids
    (every hook races down a path), a star, 1-4 shards; labels are the component minima."""
    rng = np.random.default_rng(11)
    n = 20000
    chain = np.arange(n - 1, 0, -1)
    cases = [
        ("sparse-random", rng.integers(0, n, 12000), rng.integers(0, n, 12000), n),
        ("chain-descending", chain, chain - 1, n),
        ("star", np.full(n - 1, n // 2), np.delete(np.arange(n), n // 2), n),
        ("rmat", None, None, None),
    ]
    for label, src, dst, nv in cases:
        if src is None:
            G = dgraph.generate("rmat", scale=15, edgefactor=2, seed=3, directed=directed)
        else:
            G = dgraph.from_edges(src, dst, num_vertices=nv, directed=directed)
        ref = _scipy_components(G)
        Gc = G.to("cupy")
        for p in (1, 2, 3, 4):
            target = Gc if p == 1 else Gc.partition(p, method=("range", "hash")[p % 2], client=False)
            r = dgraph.wcc(target)
            np.testing.assert_array_equal(to_numpy(r.raw("component")), ref, err_msg=f"{label} p={p}")
            assert r.supersteps == 1 and r.stats_records[-1]["components"] == len(np.unique(ref))


def test_gpu_union_find_kernels_on_int64_ids():
    import cupy as cp

    from dgraph.algorithms.wcc import gpu as gpu_wcc

    indptr = cp.asarray([0, 2, 3, 3, 4, 5], dtype=cp.int64)       # rows 0..4
    indices = cp.asarray([3, 1, 0, 1, 2], dtype=cp.int64)
    parent = cp.arange(6, dtype=cp.int64)
    assert gpu_wcc.hook_csr(indptr, indices, 0, cp.empty(0, cp.int64), True, parent) == 5
    out = cp.empty_like(parent)
    assert gpu_wcc.flatten(parent, out) == 3                        # {0, 1, 3}, {2, 4}, {5}
    assert out.tolist() == [0, 0, 2, 0, 2, 5]
    ids, vals = gpu_wcc.changed_pairs(out, 6 - 3)                   # the vertices that are not roots
    assert sorted(zip(ids.tolist(), vals.tolist())) == [(1, 0), (3, 0), (4, 2)]
    undirected = cp.arange(6, dtype=cp.int64)                       # each edge stored both ways: once
    both = cp.asarray([0, 1, 2, 3, 3, 4], dtype=cp.int64)          # 0-1 and 2-4, both ways
    assert gpu_wcc.hook_csr(both, cp.asarray([1, 0, 4, 2], cp.int64), 0, cp.empty(0, cp.int64), False,
                            undirected) == 2
    assert gpu_wcc.flatten(undirected, undirected) == 4 and undirected.tolist() == [0, 0, 2, 3, 2, 5]
    p = cp.arange(6, dtype=cp.int64)
    gpu_wcc.unite_pairs(p, cp.asarray([5, 4], cp.int64), cp.asarray([4, 2], cp.int64))
    assert gpu_wcc.flatten(p, p) == 4 and p.tolist() == [0, 1, 2, 3, 2, 2]


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_gpu_changed_pairs_of_a_flattened_forest(dtype):
    """changed_pairs: every ``x`` with ``out[x] != x`` once, with ``out[x]``, over many blocks (a
    partial last block, blocks with no pair and full ones)."""
    import cupy as cp

    from dgraph.algorithms.wcc import gpu as gpu_wcc

    rng = np.random.default_rng(5)
    for n, share in ((1, 0.0), (300, 0.0), (300, 1.0), (1_000_003, 0.3), (700_000, 0.97)):
        out = np.arange(n, dtype=dtype)
        hit = np.flatnonzero(rng.random(n) < share)
        hit = hit[hit > 0]
        if len(hit):
            out[hit] = rng.integers(0, hit, dtype=dtype)                  # a smaller id
        roots = np.flatnonzero(out == np.arange(n))
        d = cp.asarray(out)
        got_ids, got_vals = gpu_wcc.changed_pairs(d, n - len(roots))
        order = cp.argsort(got_ids).get()
        want = np.flatnonzero(out != np.arange(n))
        np.testing.assert_array_equal(got_ids.get()[order], want, err_msg=f"n={n}")
        np.testing.assert_array_equal(got_vals.get()[order], out[want], err_msg=f"n={n}")
        assert got_ids.dtype == d.dtype and got_vals.dtype == d.dtype
