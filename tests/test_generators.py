"""dgraph.generators: determinism, Graph500 sizes, exact grid structure, weights, errors, numpy == CuPy."""

from __future__ import annotations

import numpy as np
import pytest

import dgraph
from dgraph.errors import InputError
from dgraph.generators import generate, rmat_edges, uniform_edges, vertex_permutation
from dgraph.generators import rng


def same_graph(g, h):
    from dgraph.backend import to_numpy

    assert g.num_vertices == h.num_vertices and g.directed == h.directed
    np.testing.assert_array_equal(to_numpy(g.indptr), to_numpy(h.indptr))
    np.testing.assert_array_equal(to_numpy(g.indices), to_numpy(h.indices))
    assert (g.weights is None) == (h.weights is None)
    if g.weights is not None:
        a, b = to_numpy(g.weights), to_numpy(h.weights)
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a.view(np.uint64) if a.dtype == np.float64 else a,
                                      b.view(np.uint64) if b.dtype == np.float64 else b)


# -- the hash --------------------------------------------------------------------------------------

def test_mix64_array_matches_python_ints():
    x = np.array([0, 1, 2, 2**63, 2**64 - 1, 0x123456789ABCDEF], dtype=np.uint64)
    out = rng.mix64(np, x.copy())
    assert [int(v) for v in out] == [rng.mix64_int(int(v)) for v in x]
    # splitmix64's published first output for state 0 -> 0x9E3779B97F4A7C15
    assert rng.mix64_int(rng.GOLDEN) == 0xE220A8397B1DCDAF


def test_random_bits_are_counter_based():
    a = rng.random_bits(np, 7, 1, 0, 1000)
    b = rng.random_bits(np, 7, 1, 300, 700)
    np.testing.assert_array_equal(a[300:700], b)
    assert not np.array_equal(a, rng.random_bits(np, 8, 1, 0, 1000))
    assert not np.array_equal(a, rng.random_bits(np, 7, 2, 0, 1000))
    u = rng.bits_to_unit(np, a)
    assert u.min() >= 0.0 and u.max() < 1.0 and abs(u.mean() - 0.5) < 0.05


def test_permutation_is_a_permutation():
    p = rng.permutation(np, 3, rng.STREAM_PERMUTE, 5000)
    assert np.array_equal(np.sort(p), np.arange(5000))
    assert not np.array_equal(p, np.arange(5000))
    perm = vertex_permutation(np, 12, seed=1)
    assert perm.dtype == np.int32 and np.array_equal(np.sort(perm), np.arange(4096))


# -- R-MAT -------------------------------------------------------------------------------------------

def test_rmat_same_seed_same_graph_other_seed_other_graph():
    g1 = generate("rmat", scale=10, seed=5, weighted=True)
    g2 = generate("kron", scale=10, seed=5, weighted=True)
    same_graph(g1, g2)
    g3 = generate("rmat", scale=10, seed=6, weighted=True)
    assert not np.array_equal(g1.indptr, g3.indptr)


def test_rmat_graph500_edge_count_and_sizes():
    src, dst = rmat_edges(np, 10, seed=0)
    assert len(src) == len(dst) == 16 * 1024
    assert src.dtype == np.int32 and src.min() >= 0 and src.max() < 1024 and dst.max() < 1024
    g = generate("rmat", scale=10, seed=0)
    assert g.num_vertices == 1024 and not g.directed
    assert 0 < g.num_arcs <= 2 * 16 * 1024
    # cleaned: no duplicate arcs, undirected graph stored symmetrically
    s, d, _ = g.coo()
    key = s.astype(np.int64) * 1024 + d
    assert len(np.unique(key)) == len(key)
    assert set(key.tolist()) == set((d.astype(np.int64) * 1024 + s).tolist())
    g8 = generate("rmat", scale=10, edgefactor=8, seed=0)
    assert g8.num_arcs < g.num_arcs


def test_rmat_degree_skew():
    g = generate("rmat", scale=12, seed=1)
    deg = g.out_degree()
    assert deg.max() > 20 * deg.mean()
    # uniform graph of the same size has no such hub
    u = generate("uniform", scale=12, seed=1)
    assert u.out_degree().max() < 3 * u.out_degree().mean()


def test_rmat_permutation_relabels_only():
    s0, d0 = rmat_edges(np, 9, seed=3, permute=False)
    s1, d1 = rmat_edges(np, 9, seed=3, permute=True)
    perm = vertex_permutation(np, 9, seed=3)
    np.testing.assert_array_equal(perm[s0], s1)
    np.testing.assert_array_equal(perm[d0], d1)
    # unpermuted: vertex 0 (all bits 0: quadrant a) is the hub, as in R-MAT
    deg = np.bincount(np.concatenate([s0, d0]), minlength=512)
    assert deg.argmax() == 0


def test_rmat_chunks_and_slices_do_not_change_edges():
    s, d = rmat_edges(np, 11, seed=9, chunk=1 << 16)
    for chunk in (1000, 4096, 7):
        if chunk == 7:
            s2, d2 = rmat_edges(np, 11, seed=9, chunk=chunk, start=100, stop=400)
            np.testing.assert_array_equal(s[100:400], s2)
            np.testing.assert_array_equal(d[100:400], d2)
        else:
            s2, d2 = rmat_edges(np, 11, seed=9, chunk=chunk)
            np.testing.assert_array_equal(s, s2)
            np.testing.assert_array_equal(d, d2)
    same_graph(generate("rmat", scale=8, seed=2, weighted=True, chunk=100),
               generate("rmat", scale=8, seed=2, weighted=True))


def test_rmat_quadrant_probabilities():
    # scale 1: each edge is one draw of the quadrant
    s, d = rmat_edges(np, 1, edgefactor=50_000, seed=4, permute=False)
    counts = np.bincount(s * 2 + d, minlength=4) / len(s)
    np.testing.assert_allclose(counts, [0.57, 0.19, 0.19, 0.05], atol=0.01)
    s, d = rmat_edges(np, 1, edgefactor=1000, a=1.0, b=0.0, c=0.0, seed=4, permute=False)
    assert not s.any() and not d.any()
    s, d = rmat_edges(np, 1, edgefactor=1000, a=0.0, b=0.0, c=0.0, seed=4, permute=False)
    assert s.all() and d.all()


def test_rmat_scale0_and_self_loops():
    g = generate("rmat", scale=0)
    assert g.num_vertices == 1 and g.num_arcs == 1 and g.num_self_loops == 1
    g = generate("rmat", scale=6, self_loops=False)
    assert g.num_self_loops == 0


def test_rmat_directed():
    src, dst = rmat_edges(np, 9, seed=0)
    g = generate("rmat", scale=9, directed=True)
    assert g.directed
    key = np.unique(src.astype(np.int64) * 512 + dst)
    assert g.num_arcs == len(key)
    u = generate("rmat", scale=9)
    assert u.num_arcs > g.num_arcs


# -- uniform -------------------------------------------------------------------------------------

def test_uniform_counts_and_determinism():
    s, d = uniform_edges(np, 1000, 5000, seed=1)
    assert len(s) == 5000 and s.min() >= 0 and s.max() < 1000 and d.max() < 1000
    g = generate("uniform", num_vertices=1000, num_edges=5000, seed=1)
    assert g.num_vertices == 1000 and g.num_edges <= 5000 and g.num_edges > 4900
    same_graph(g, generate("er", num_vertices=1000, num_edges=5000, seed=1))
    assert not np.array_equal(g.indices, generate("random", num_vertices=1000, num_edges=5000, seed=2).indices)
    assert generate("uniform", scale=8, edgefactor=4).num_vertices == 256
    assert generate("uniform", num_vertices=100).name == "uniform-n100-m1600-seed0"  # edgefactor 16 by default
    gd = generate("uniform", num_vertices=1000, num_edges=5000, seed=1, directed=True)
    assert gd.directed and gd.num_arcs <= 5000
    e = generate("uniform", num_vertices=0, num_edges=0)
    assert e.num_vertices == 0 and e.num_arcs == 0
    s2, _ = uniform_edges(np, 1000, 5000, seed=1, chunk=333)
    np.testing.assert_array_equal(s, s2)


# -- grid ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("rows,cols", [(1, 1), (1, 5), (4, 1), (3, 4), (7, 5)])
def test_grid_structure_exact(rows, cols):
    g = generate("grid", rows=rows, cols=cols)
    n = rows * cols
    assert g.num_vertices == n and g.num_edges == 2 * rows * cols - rows - cols
    ref = set()
    for r in range(rows):
        for c in range(cols):
            v = r * cols + c
            for rr, cc in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
                if 0 <= rr < rows and 0 <= cc < cols:
                    ref.add((v, rr * cols + cc))
    s, d, _ = g.coo()
    assert set(zip(s.tolist(), d.tolist())) == ref


def test_grid_degrees_and_corner():
    g = generate("grid", shape=(5, 6))
    deg = g.out_degree().reshape(5, 6)
    assert deg[0, 0] == deg[0, -1] == deg[-1, 0] == deg[-1, -1] == 2
    assert (deg[0, 1:-1] == 3).all() and (deg[1:-1, 0] == 3).all() and (deg[1:-1, 1:-1] == 4).all()
    assert g.indices[g.indptr[0]:g.indptr[1]].tolist() == [1, 6]
    assert g.indices[g.indptr[29]:g.indptr[30]].tolist() == [23, 28]
    sq = generate("grid", n=4)
    assert sq.num_vertices == 16 and sq.num_edges == 24
    d = generate("grid", rows=3, cols=3, directed=True)
    s, t, _ = d.coo()
    assert d.num_arcs == 12 and (t > s).all()
    same_graph(generate("grid", rows=3, cols=4, seed=1), generate("grid", rows=3, cols=4, seed=2))


# -- weights -------------------------------------------------------------------------------------

def test_weights_uniform_and_int():
    g = generate("rmat", scale=9, weighted=True)
    assert g.weights.dtype == np.float64 and g.weights.min() >= 0.0 and g.weights.max() < 1.0
    g = generate("uniform", num_vertices=500, weighted=True, w_min=2.0, w_max=5.0)
    assert g.weights.min() >= 2.0 and g.weights.max() < 5.0 and g.weights.max() > 4.5
    g = generate("grid", rows=10, cols=10, weighted=True, weights="int", max_weight=7)
    w = g.weights
    assert w.dtype == np.int64 and w.min() >= 1 and w.max() <= 7 and len(np.unique(w)) == 7
    # undirected: both directions of an edge carry the same weight
    s, d, _ = g.coo()
    fwd = dict(zip(zip(s.tolist(), d.tolist()), w.tolist()))
    assert all(fwd[(b, a)] == x for (a, b), x in fwd.items())
    # weights do not change the structure
    u = generate("rmat", scale=9, seed=3)
    wg = generate("rmat", scale=9, seed=3, weighted=True, weights="int")
    np.testing.assert_array_equal(u.indptr, wg.indptr)
    np.testing.assert_array_equal(u.indices, wg.indices)
    g1 = generate("grid", rows=3, cols=3, weighted=True, seed=1)
    g2 = generate("grid", rows=3, cols=3, weighted=True, seed=2)
    assert not np.array_equal(g1.weights, g2.weights)


def test_lazy_export_and_names():
    g = dgraph.generate("rmat", scale=5, seed=2)
    assert g.name == "rmat-scale5-ef16-seed2"
    assert generate("grid", rows=2, cols=3, name="g").name == "g"


# -- errors --------------------------------------------------------------------------------------

@pytest.mark.parametrize("kind,params,words", [
    ("nope", {}, ["kind", "rmat", "uniform", "grid"]),
    (3, {}, ["kind", "rmat"]),
    ("rmat", {}, ["scale"]),
    ("rmat", {"scale": -1}, ["scale", "[0, 40]"]),
    ("rmat", {"scale": 41}, ["scale", "[0, 40]"]),
    ("rmat", {"scale": 2.5}, ["scale", "integer"]),
    ("rmat", {"scale": True}, ["scale", "integer"]),
    ("rmat", {"scale": 5, "edgefactor": -1}, ["edgefactor"]),
    ("rmat", {"scale": 5, "a": -0.1}, ["a="]),
    ("rmat", {"scale": 5, "b": 1.5}, ["b="]),
    ("rmat", {"scale": 5, "c": float("nan")}, ["c="]),
    ("rmat", {"scale": 5, "a": 0.6, "b": 0.3, "c": 0.3}, ["a, b, c", "sum"]),
    ("rmat", {"scale": 5, "d": 0.5}, ["d=", "1"]),
    ("rmat", {"scale": 5, "permute": "yes"}, ["permute"]),
    ("rmat", {"scale": 5, "rows": 3}, ["'rows'", "scale", "edgefactor"]),
    ("rmat", {"scale": 5, "seed": "x"}, ["seed"]),
    ("rmat", {"scale": 5, "directed": "no"}, ["directed"]),
    ("rmat", {"scale": 5, "weights": "int"}, ["weights", "weighted=True"]),
    ("rmat", {"scale": 5, "weighted": True, "weights": "gauss"}, ["weights", "uniform", "int"]),
    ("rmat", {"scale": 5, "weighted": True, "weights": "int", "max_weight": 0}, ["max_weight"]),
    ("rmat", {"scale": 5, "weighted": True, "w_min": 3.0, "w_max": 1.0}, ["w_max"]),
    ("rmat", {"scale": 5, "weighted": True, "max_weight": 4}, ["max_weight", "weights='int'"]),
    ("rmat", {"scale": 5, "chunk": 0}, ["chunk"]),
    ("rmat", {"scale": 5, "backend": "tpu"}, ["backend"]),
    ("uniform", {}, ["num_vertices"]),
    ("uniform", {"num_vertices": 10, "scale": 3}, ["num_vertices", "scale"]),
    ("uniform", {"num_vertices": -3}, ["num_vertices"]),
    ("uniform", {"num_vertices": 10, "num_edges": 5, "edgefactor": 2}, ["num_edges", "edgefactor"]),
    ("uniform", {"num_vertices": 10, "num_edges": -5}, ["num_edges"]),
    ("uniform", {"num_vertices": 0, "num_edges": 5}, ["num_edges"]),
    ("grid", {}, ["rows"]),
    ("grid", {"rows": 0, "cols": 3}, ["rows", ">= 1"]),
    ("grid", {"rows": 3, "cols": -1}, ["cols", ">= 1"]),
    ("grid", {"rows": 3}, ["cols"]),
    ("grid", {"shape": (3,)}, ["shape"]),
    ("grid", {"shape": (3, 0)}, ["shape[1]"]),
    ("grid", {"n": 0}, ["n="]),
    ("grid", {"n": 3, "rows": 2}, ["n", "rows"]),
    ("grid", {"rows": 2, "cols": 2, "scale": 3}, ["'scale'", "rows", "cols"]),
])
def test_input_errors_name_the_parameter(kind, params, words):
    with pytest.raises(InputError) as exc:
        generate(kind, **params)
    msg = str(exc.value)
    for w in words:
        assert w in msg, (w, msg)


# -- numpy == CuPy -------------------------------------------------------------------------------

def _cupy():
    cupy = pytest.importorskip("cupy")
    from dgraph.backend import gpu_available

    if not gpu_available():
        pytest.skip("no CUDA GPU")
    return cupy


@pytest.mark.gpu
def test_numpy_and_cupy_give_the_same_edges_and_weights():
    """The generator's own output (before the graph is built) is bit-identical."""
    cupy = _cupy()
    from dgraph.generators import edge_weights, grid_edges

    for seed in (0, 12345):
        for args in [dict(scale=12), dict(scale=13, a=0.45, b=0.15, c=0.15, permute=False, edgefactor=5)]:
            s, d = rmat_edges(np, seed=seed, **args)
            s2, d2 = rmat_edges(cupy, seed=seed, chunk=5000, **args)  # other chunking on purpose
            np.testing.assert_array_equal(s, cupy.asnumpy(s2))
            np.testing.assert_array_equal(d, cupy.asnumpy(d2))
        s, d = uniform_edges(np, 3001, 40_000, seed=seed)
        s2, d2 = uniform_edges(cupy, 3001, 40_000, seed=seed)
        np.testing.assert_array_equal(s, cupy.asnumpy(s2))
        np.testing.assert_array_equal(d, cupy.asnumpy(d2))
        for a, b in zip(grid_edges(np, 37, 53), grid_edges(cupy, 37, 53)):
            np.testing.assert_array_equal(a, cupy.asnumpy(b))
        for spec in ({"kind": "uniform", "w_min": 0.0, "w_max": 1.0}, {"kind": "uniform", "w_min": 1.0, "w_max": 64.0},
                     {"kind": "int", "max_weight": 100}):
            w = edge_weights(np, seed, 70_000, spec, 1 << 16)
            w2 = cupy.asnumpy(edge_weights(cupy, seed, 70_000, spec, 1 << 24))
            assert w.dtype == w2.dtype
            np.testing.assert_array_equal(w.view(np.uint64), w2.view(np.uint64))


@pytest.mark.gpu
@pytest.mark.parametrize("kind,params", [
    pytest.param("rmat", dict(scale=12), id="rmat"),
    pytest.param("rmat", dict(scale=12, weighted=True), id="rmat-w"),
    pytest.param("rmat", dict(scale=12, weighted=True, weights="int", max_weight=100, directed=True), id="rmat-int-dir"),
    pytest.param("rmat", dict(scale=12, weighted=True, weights="int", max_weight=100), id="rmat-int"),
    pytest.param("rmat", dict(scale=11, a=0.45, b=0.15, c=0.15, permute=False, weighted=True, w_min=1.0, w_max=64.0),
                 id="rmat-abc-w"),
    pytest.param("grid", dict(rows=37, cols=53, weighted=True), id="grid-w"),
    pytest.param("uniform", dict(num_vertices=3001, num_edges=40_000, weighted=True, weights="int"), id="uniform-int"),
])
def test_numpy_and_cupy_give_the_same_graph(kind, params):
    _cupy()
    for seed in (0, 12345):
        g = generate(kind, backend="numpy", seed=seed, **params)
        h = generate(kind, backend="cupy", seed=seed, **params)
        assert h.backend == "cupy"
        same_graph(g, h)
