"""The one-GPU kernels of issue 23 part 7 against NetworkX and the numpy path, on many odd graphs.

- triangle count and LCC, ``"gpu-oriented"`` (algorithms/triangles/gpu.py + triangles.cu): the
  counts of ``nx.triangles`` and the numpy path's LCC bits, directed LCC included, every bucket
  of the count (a warp's table, a block's table, binary search) and int64 vertex ids; and the
  partitioned count superstep, ``"gpu-fused"``;
- BC, ``"gpu-brandes"`` (algorithms/bc/gpu.py + bc.cu): NetworkX's values and the numpy path's
  superstep records, the same bits for every batch size and run, hubs cut into many segments;
- CDLP, ``"gpu-fused+steps"`` and ``"gpu-fused"`` (algorithms/cdlp/gpu.py + cdlp.cu): the numpy
  path's labels bit for bit, every bucket (shuffles, shared tables, global tables).
"""

import networkx as nx
import numpy as np
import pytest
from graphs import corpus

import dgraph
from dgraph.backend import gpu_available, to_numpy

pytestmark = pytest.mark.gpu


@pytest.fixture(autouse=True)
def _needs_gpu():
    if not gpu_available():  # only reached when `-m gpu` is asked for on a machine without one
        pytest.skip("no usable CUDA GPU / CuPy")


def _graphs(count, seed, dedupe_every=3):
    """The corpus (odd graphs first), every ``dedupe_every``-th also with its multi-edges kept."""
    for i, (label, kw) in enumerate(corpus(count, seed=seed)):
        yield label, dgraph.from_edges(**kw)
        if i % dedupe_every == 0:
            yield label + " dedupe=False", dgraph.from_edges(**dict(kw, dedupe=False))


def _rmats():
    for scale, directed in ((8, False), (8, True), (11, False), (11, True)):
        yield f"rmat{scale} directed={directed}", dgraph.generate("rmat", scale=scale, seed=scale, directed=directed)
    yield "star", dgraph.from_edges(np.zeros(3000, dtype=np.int64), np.arange(1, 3001))
    yield "grid", dgraph.generate("grid", rows=30, cols=31)


def _nx_triangles(G):
    g = nx.Graph(G.to_networkx())
    g.remove_edges_from(list(nx.selfloop_edges(g)))
    t = nx.triangles(g)
    return np.array([t[v] for v in G.vertex_ids().tolist()], dtype=np.int64)


# -- triangle count and LCC ----------------------------------------------------------------------

def test_triangles_and_lcc_match_networkx_and_numpy():
    checked = 0
    for label, G in [*_graphs(150, seed=23), *_rmats()]:
        D = G.to("cupy")
        r = dgraph.triangle_count(D)
        assert r.params["implementation"] == "gpu-oriented", label
        got = to_numpy(r.raw("triangles"))
        assert got.dtype == np.int64
        np.testing.assert_array_equal(got, _nx_triangles(G), err_msg=label)
        ref = dgraph.triangle_count(G)
        assert r.params["total"] == ref.params["total"], label
        for col in ("edges", "oriented", "checks", "replica_arcs", "total"):
            assert r.stats[col].dropna().tolist() == ref.stats[col].dropna().tolist(), (label, col)
        lcc = dgraph.lcc(D)
        assert lcc.params["implementation"] == "gpu-oriented"
        np.testing.assert_array_equal(to_numpy(lcc.raw("lcc")), dgraph.lcc(G, kernels="generic").raw("lcc"),
                                      err_msg=label)  # directed LCC too: the 1-or-2 arcs per pair
        if not G.directed and G.num_vertices:
            g = nx.Graph(G.to_networkx())
            g.remove_edges_from(list(nx.selfloop_edges(g)))
            c = nx.clustering(g)
            np.testing.assert_allclose(to_numpy(lcc.raw("lcc")), [c[v] for v in G.vertex_ids().tolist()],
                                       rtol=1e-12, err_msg=label)
        checked += 1
    assert checked >= 200


@pytest.mark.parametrize("directed", [False, True])
def test_every_bucket_of_the_count(directed, monkeypatch):
    """Tiny thresholds send pivots to all three kernels (a warp's table, a block's table, binary
    search) and cut hubs into many slices: the same counts."""
    from dgraph.algorithms.triangles import gpu

    G = dgraph.generate("rmat", scale=10, seed=4, directed=directed)
    ref_t, ref_l = dgraph.triangle_count(G).raw("triangles"), dgraph.lcc(G).raw("lcc")
    monkeypatch.setattr(gpu, "WARP_MAX", 3)
    monkeypatch.setattr(gpu, "WARP_SLICE", 5)
    monkeypatch.setattr(gpu, "BLOCK_SLICE", 7)
    monkeypatch.setattr(gpu, "TABLE_BYTES", 256)  # rows of N+ over 16 ids: binary search
    D = G.to("cupy")
    o = gpu.oriented(D.indptr, D.indices)
    kinds = {(k, slots > 0) for k, _, _, _, _, _, slots in gpu.plan(o)}
    assert kinds == {("count_warp", True), ("count_block", True), ("count_block", False)}
    np.testing.assert_array_equal(to_numpy(dgraph.triangle_count(D).raw("triangles")), ref_t)
    np.testing.assert_array_equal(to_numpy(dgraph.lcc(D).raw("lcc")), ref_l)


def test_count_kernels_on_int64_ids():
    """The int64 instances of the kernels (graphs past 2**31 vertices) count what the int32 ones do;
    the carried multiplicities reach the both-ways counts (all 2: every triangle, all 1: none)."""
    import cupy as cp

    from dgraph.algorithms.triangles import gpu

    G = dgraph.generate("rmat", scale=9, seed=5)
    S = G.to("cupy")
    ref = dgraph.triangle_count(G).raw("triangles")
    for m in (None, 1, 2):
        mult = None if m is None else cp.full(len(S.indices), m, dtype=cp.int8)
        a = gpu.counts(S.indptr, S.indices, mult)
        b = gpu.counts(S.indptr, S.indices.astype(cp.int64), mult)
        np.testing.assert_array_equal(to_numpy(a[0]), ref)
        np.testing.assert_array_equal(to_numpy(b[0]), ref)
        np.testing.assert_array_equal(to_numpy(a[2]), to_numpy(b[2]))
        assert a[3:] == b[3:]
        if m is None:
            assert a[1] is None and b[1] is None
        else:
            expect = ref if m == 2 else np.zeros_like(ref)
            np.testing.assert_array_equal(to_numpy(a[1]), expect)
            np.testing.assert_array_equal(to_numpy(b[1]), expect)


def test_partitioned_count_superstep_on_the_gpu():
    """Partitioned CuPy graphs count in count_rows ('gpu-fused'): the generic count's hits, checks and
    ghost rows, range and hash, 2-4 shards, directed LCC included."""
    checked = 0
    graphs = [g for g in _graphs(60, seed=37) if g[1].num_vertices >= 4][::2] + list(_rmats())[:4]
    for i, (label, G) in enumerate(graphs):
        for p in (2, 3, 4):
            PG = G.partition(p, method=("range", "hash")[(i + p) % 2], client=False, backend="cupy")
            r = dgraph.triangle_count(PG)
            assert r.params["implementation"] == "gpu-fused"
            np.testing.assert_array_equal(to_numpy(r.raw("triangles")), _nx_triangles(G), err_msg=f"{label} p={p}")
            g = dgraph.triangle_count(PG, kernels="generic")
            for col in ("checks", "replica_arcs", "total"):
                assert r.stats[col].dropna().tolist() == g.stats[col].dropna().tolist(), (label, col)
            np.testing.assert_array_equal(to_numpy(dgraph.lcc(PG).raw("lcc")), dgraph.lcc(G).raw("lcc"),
                                          err_msg=f"{label} p={p}")
            checked += 1
    assert checked >= 60


# -- betweenness -------------------------------------------------------------------------------------

def _bc_ref(G, sources, normalized, endpoints):
    H = G.to_networkx()
    if sources is None:
        d = nx.betweenness_centrality(H, normalized=normalized, endpoints=endpoints)
    else:
        d = nx.betweenness_centrality_subset(H, sources=sources, targets=list(H), normalized=normalized)
    return np.array([d[v] for v in G.ids.user_array().tolist()], dtype=np.float64)


def test_bc_matches_networkx_and_numpy():
    checked = 0
    for i, (label, G) in enumerate(_graphs(120, seed=29, dedupe_every=4)):
        n = G.num_vertices
        D = G.to("cupy")
        user = G.ids.user_array()
        source_sets = [None] + ([[user[n // 2].item()], [user[j].item() for j in range(0, n, 3)]] if n else [])
        for sources in source_sets:
            for normalized, endpoints in ((True, False), (False, True), (False, False)):
                if sources is not None and endpoints:
                    continue  # NetworkX's subset betweenness has no endpoint rule (test_bc.py covers it)
                r = dgraph.bc(D, sources, normalized=normalized, endpoints=endpoints)
                assert r.params["implementation"] == "gpu-brandes", label
                got = to_numpy(r.raw("bc"))
                if "dedupe=False" not in label:  # NetworkX's graph has no parallel edges (paths along each count)
                    np.testing.assert_allclose(got, _bc_ref(G, sources, normalized, endpoints), rtol=1e-9,
                                               atol=1e-12, err_msg=f"{label} {sources is None} {normalized} {endpoints}")
                ref = dgraph.bc(G, sources, normalized=normalized, endpoints=endpoints)
                np.testing.assert_allclose(got, ref.raw("bc"), rtol=1e-12, atol=1e-14, err_msg=label)
                keep = ["phase", "batch", "level", "frontier", "edges", "done"]
                if ref.supersteps:
                    assert r.stats[keep].equals(ref.stats[keep]), label
                checked += 1
    assert checked >= 300


def test_bc_same_bits_for_every_batch_and_run_and_hubs():
    """A hub's row is summed by many warps (segments of 256 edges): still the same bits every run and
    batch size, and NetworkX's values."""
    rng = np.random.default_rng(3)
    hub = dgraph.from_edges(np.concatenate([np.zeros(2000, dtype=np.int64), rng.integers(1, 2001, 3000)]),
                            np.concatenate([np.arange(1, 2001), rng.integers(1, 2001, 3000)]))
    for label, G in [("hub", hub), *_rmats()]:
        D = G.to("cupy")
        some = G.ids.user_array()[:: max(1, G.num_vertices // 7)].tolist()
        for endpoints in (False, True):
            runs = [to_numpy(dgraph.bc(D, some, endpoints=endpoints, batch_size=b).raw("bc")) for b in (None, 1, 3, None)]
            for x in runs[1:]:
                np.testing.assert_array_equal(x, runs[0], err_msg=label)
            ref = dgraph.bc(G, some, endpoints=endpoints).raw("bc")
            np.testing.assert_allclose(runs[0], ref, rtol=1e-12, atol=1e-14, err_msg=label)


# -- CDLP ------------------------------------------------------------------------------------------

def test_cdlp_equals_numpy_single_and_partitioned():
    checked = 0
    for i, (label, G) in enumerate([*_graphs(120, seed=31), *_rmats()]):
        D = G.to("cupy")
        for it in (1, 4, 10):
            ref = dgraph.cdlp(G, iterations=it, kernels="generic")
            r = dgraph.cdlp(D, iterations=it)
            assert r.params["implementation"] == "gpu-fused+steps"
            np.testing.assert_array_equal(to_numpy(r.raw("label")), ref.raw("label"), err_msg=f"{label} it={it}")
            assert r.stats["changed"].tolist() == ref.stats["changed"].tolist(), label
            if it == 4 and G.num_vertices >= 4 and i % 2 == 0:
                for p in (2, 3):
                    PG = G.partition(p, method=("range", "hash")[p % 2], client=False, backend="cupy")
                    r = dgraph.cdlp(PG, iterations=it)
                    assert r.params["implementation"] == "gpu-fused"
                    np.testing.assert_array_equal(to_numpy(r.raw("label")), ref.raw("label"), err_msg=f"{label} p={p}")
            checked += 1
    assert checked >= 400


@pytest.mark.parametrize("directed", [False, True])
def test_cdlp_every_bucket(directed, monkeypatch):
    from dgraph.algorithms.cdlp import gpu

    monkeypatch.setattr(gpu, "WARP_ENTRIES", 40)
    monkeypatch.setattr(gpu, "TABLE_BYTES", 8 * 256)  # rows of more than 64 entries: global tables
    monkeypatch.setattr(gpu, "HUB_SEGMENT", 100)  # a hub's entries over many blocks (the last one partial)
    monkeypatch.setattr(gpu, "HUB_SLOTS_SEGMENT", 300)  # and its table's slots
    rng = np.random.default_rng(7)
    mids = np.repeat(np.arange(3000, 3050), 50)  # rows of 50 entries: a block's shared table
    src = np.concatenate([rng.integers(0, 3000, 20000), mids, np.zeros(5000, dtype=np.int64), np.arange(50)])
    dst = np.concatenate([rng.integers(0, 3000, 20000), rng.integers(0, 3000, len(mids)), np.arange(100, 5100),
                          np.arange(50)])  # a hub of 5000 (a global table) and self loops
    for G in (dgraph.from_edges(src, dst, directed=directed), dgraph.from_edges(src, dst, directed=directed, dedupe=False),
              dgraph.generate("rmat", scale=10, seed=3, directed=directed)):
        D = G.to("cupy")
        from dgraph.partition.shard import whole_graph_shard

        sh = whole_graph_shard(D)
        c = sh.csc(edge_ids=False)
        plan = gpu.Plan(sh.indptr, sh.indices, c[0], c[1], directed, 0, sh.rows)
        kinds = {name for name, *_ in plan.launches}
        assert {"small8", "small32", "table_block", "table_global"} <= kinds
        hubs = next(launch for launch in plan.launches if launch[0] == "table_global")
        assert hubs[3] > hubs[2] and len(hubs[5][6]) > hubs[2]  # more blocks than hub rows: rows cut up
        one, two = gpu.plan_for(sh), gpu.plan_for(sh)  # buckets once a graph, scratch once a run
        assert [b for _, b, *_ in one.launches] == [b for _, b, *_ in two.launches]
        assert all(x[1] is y[1] for x, y in zip(one.launches, two.launches))
        glob = [(x[5], y[5]) for x, y in zip(one.launches, two.launches) if x[0] == "table_global"]
        assert glob and all(all(x is not y for x, y in zip(a[-4:], b[-4:])) for a, b in glob)  # the scratch
        assert one.counters is not two.counters
        for it in (1, 5):
            ref = dgraph.cdlp(G, iterations=it, kernels="generic")
            np.testing.assert_array_equal(to_numpy(dgraph.cdlp(D, iterations=it).raw("label")), ref.raw("label"))
