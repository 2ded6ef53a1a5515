"""Jaccard coefficients against nx.jaccard_coefficient, on every executor and partition count.

With pairs: the very floats NetworkX gives (the same division of the same integers).  Without
pairs: dgraph lists the pairs at distance two, which are exactly NetworkX's non-edges of non-zero
coefficient (NetworkX's ebunch=None also yields every other non-edge, with 0).
"""

import networkx as nx
import numpy as np
import pytest
from graphs import corpus

import dgraph
import dgraph.algorithms.jaccard.kernels as jkernels
from dgraph.algorithms.jaccard.result import windows
from dgraph.backend import gpu_available, to_numpy

#: the shared corpus made undirected (jaccard is defined there), the odd graphs first
CASES = [(label, dict(kw, directed=False)) for label, kw in corpus(112, seed=23)]


def _nx(G):
    """The nx.Graph of G's edges (user ids): duplicates collapse, self loops stay, as NetworkX sees them."""
    H = nx.Graph()
    H.add_nodes_from(G.vertex_ids().tolist())
    src, dst, _ = G.to("numpy").edges()
    H.add_edges_from(zip(src.tolist(), dst.tolist()))
    return H


def _pairs(G, rng):
    """Every ordered pair (u == v too) on a small graph; a sample, with u == v ones, on a larger one."""
    ids = G.vertex_ids()
    n = len(ids)
    if n == 0:
        return []
    if n <= 12:
        return [(a, b) for a in ids.tolist() for b in ids.tolist()]
    i, j = rng.integers(0, n, 150), rng.integers(0, n, 150)
    j[:10] = i[:10]
    return list(zip(ids[i].tolist(), ids[j].tolist()))


def _ref_pairs(H, pairs):
    return np.array([p for _, _, p in nx.jaccard_coefficient(H, pairs)], dtype=np.float64)


def _ref_all(H, order):
    """{(u, v): p} of NetworkX's non-edges with p != 0, u before v in dgraph's vertex order."""
    out = {}
    for u, v, p in nx.jaccard_coefficient(H):
        if p != 0:
            key = (u, v) if order[u] < order[v] else (v, u)
            out[key] = p
    return out


def _got_all(s):
    got = {}
    for chunk in s:
        for u, v, p in zip(chunk.u.tolist(), chunk.v.tolist(), chunk.jaccard.tolist()):
            assert (u, v) not in got
            got[(u, v)] = p
    return got


def _check_stream(s, G, H, what):
    order = {v: i for i, v in enumerate(G.vertex_ids().tolist())}
    want = _ref_all(H, order)
    got = _got_all(s)
    assert got == want, what
    assert s.total == len(want) and s.nbytes == 24 * len(want), what
    assert s.counts.sum() == len(want)


def test_pairs_match_networkx():
    rng = np.random.default_rng(5)
    checked = 0
    for i, (name, kw) in enumerate(CASES):
        variants = [kw] if i % 3 else [kw, dict(kw, dedupe=False)]   # duplicate arcs kept in the CSR
        for kwv in variants:
            G = dgraph.from_edges(**kwv)
            H = _nx(G)
            pairs = _pairs(G, rng)
            kernels = ("fused", "generic") if i % 4 == 0 else ("fused",)
            for k in kernels:
                r = dgraph.jaccard(G, pairs, kernels=k)
                what = f"{name} dedupe={kwv.get('dedupe', True)} kernels={k}"
                got = to_numpy(r.jaccard)
                np.testing.assert_array_equal(got, _ref_pairs(H, pairs), err_msg=what)
                assert [(u, v) for u, v, _ in r] == [tuple(p) for p in pairs], what
                assert len(r) == len(pairs)
            checked += 1
    assert checked >= 100


def test_direct_pairs_equal_the_row_table(monkeypatch):
    """A whole graph of simple rows (loops allowed) takes the CSR straight ('cpu.pair_coefficients'):
    the same bits and the same records as the row-table path; repeated arcs take the table."""
    from dgraph.algorithms.jaccard import cpu, program

    calls = []
    for name in ("pair_coefficients", "pair_coefficients_serial"):
        real = getattr(cpu, name)
        monkeypatch.setattr(cpu, name, lambda *a, real=real: calls.append(1) or real(*a))
    rng = np.random.default_rng(8)
    direct = 0
    for name, kw in CASES[:50]:
        G = dgraph.from_edges(**kw)
        pairs = _pairs(G, rng)
        del calls[:]
        r = dgraph.jaccard(G, pairs)
        assert len(calls) == (1 if len(pairs) else 0), name
        direct += bool(calls)
        with monkeypatch.context() as m:
            m.setattr(program, "rows_simple", lambda shard: False)
            t = dgraph.jaccard(G, pairs)
        np.testing.assert_array_equal(to_numpy(r.jaccard), to_numpy(t.jaccard), err_msg=name)
        cols = ["phase", "pairs", "checks"]
        assert r.stats.reindex(columns=cols).fillna(0).values.tolist() == \
            t.stats.reindex(columns=cols).fillna(0).values.tolist(), name
    assert direct >= 40
    M = dgraph.from_edges([0, 0, 1, 1], [1, 1, 2, 2], dedupe=False)   # 0-1 twice: the table path
    del calls[:]
    assert dgraph.jaccard(M, [(0, 2)]).jaccard.tolist() == [1.0] and not calls


def test_direct_pairs_threads_and_marks():
    """The direct kernel over the threads, in blocks, marking hubs that consecutive pairs share
    (and merging or searching where that is cheaper): the same bits as the vectorized reference,
    self loops and ``u == v`` pairs included."""
    from dgraph.algorithms.jaccard import cpu

    rng = np.random.default_rng(3)
    R = dgraph.generate("rmat", scale=10, edgefactor=16, seed=4)
    src, dst, _ = R.edges()
    loops = rng.choice(R.num_vertices, 60, replace=False)
    G = dgraph.from_edges(np.r_[src, loops], np.r_[dst, loops], num_vertices=R.num_vertices)
    s, d, _ = G.edges()
    order = np.lexsort((d, s))
    pairs = np.column_stack([s[order], d[order]])                       # every edge, grouped by u
    extra = rng.integers(0, G.num_vertices, (3000, 2))
    extra[:500, 1] = extra[:500, 0]                                     # u == v
    hubs = np.repeat(np.argsort(-G.out_degree())[:5], 400)              # hubs against many v, in runs
    runs = np.column_stack([hubs, rng.integers(0, G.num_vertices, len(hubs))])
    pairs = np.concatenate([pairs, extra, runs, runs[:, ::-1]])
    assert len(pairs) > cpu.BLOCK * 4 and G.out_degree().max() >= 4 * cpu.STAMP_MIN
    got = to_numpy(dgraph.jaccard(G, pairs).jaccard)
    want = to_numpy(dgraph.jaccard(G, pairs, kernels="generic").jaccard)
    np.testing.assert_array_equal(got, want)
    assert (got > 0).sum() > len(pairs) // 4


def test_all_pairs_match_networkx():
    checked = 0
    for i, (name, kw) in enumerate(CASES):
        G = dgraph.from_edges(**kw)
        H = _nx(G)
        for k in (("fused", "generic") if i % 2 == 0 else ("fused",)):
            s = dgraph.jaccard(G, kernels=k, chunk_size=1 + i % 7)
            _check_stream(s, G, H, f"{name} kernels={k}")
        checked += 1
    assert checked >= 100


def test_known_values():
    G = dgraph.from_edges([0, 0, 1, 2, 3, 4], [1, 2, 2, 3, 3, 4])   # triangle, pendant 3 with a loop, loop at 4
    r = dgraph.jaccard(G, [(0, 1), (0, 3), (3, 3), (4, 4), (2, 2), (1, 4)])
    # (0,1): common {2}, union {0,1,2}; (0,3): common {2}, union {1,2,3}; (3,3): N(3)={2,3} -> 1/2;
    # (4,4): only a loop -> 0/1; (2,2): 3/3; (1,4): union {0,2,4}, nothing common
    assert to_numpy(r.jaccard).tolist() == [1 / 3, 1 / 3, 0.5, 0.0, 1.0, 0.0]
    assert r[1] == (0, 3, 1 / 3)
    s = dgraph.jaccard(G)
    got = s.to_pandas()
    assert list(zip(got.u, got.v)) == [(0, 3), (1, 3)]
    assert got.jaccard.tolist() == [1 / 3, 1 / 3]


def test_string_ids_and_frames():
    G = dgraph.from_edges(["a", "b", "c", "c"], ["b", "c", "d", "a"])
    H = _nx(G)
    pairs = [("a", "c"), ("b", "d"), ("d", "d")]
    r = dgraph.jaccard(G, pairs)
    np.testing.assert_array_equal(to_numpy(r.jaccard), _ref_pairs(H, pairs))
    assert r.u.tolist() == ["a", "b", "d"]
    import pandas as pd

    r2 = dgraph.jaccard(G, pd.DataFrame(pairs, columns=["x", "y"]))
    np.testing.assert_array_equal(to_numpy(r2.jaccard), to_numpy(r.jaccard))
    r3 = dgraph.jaccard(G, iter(pairs))                 # any iterable of pairs
    np.testing.assert_array_equal(to_numpy(r3.jaccard), to_numpy(r.jaccard))
    _check_stream(dgraph.jaccard(G), G, H, "string ids")


def test_bad_input():
    G = dgraph.from_edges([0, 1, 2], [1, 2, 3])
    with pytest.raises(dgraph.InputError, match=r"pairs\[2\] = \(1, 9\)"):
        dgraph.jaccard(G, [(0, 1), (1, 2), (1, 9), (0, 0)])
    with pytest.raises(dgraph.InputError, match=r"pairs\[1\] = \(-1, 0\)"):
        dgraph.jaccard(G, np.array([[0, 1], [-1, 0]]))
    with pytest.raises(dgraph.InputError, match=r"pairs\[0\] = \('a', 1\)"):
        dgraph.jaccard(G, [("a", 1)])
    with pytest.raises(dgraph.InputError, match=r"pairs\[1\] = \(0, 1, 2\)"):
        dgraph.jaccard(G, [(0, 1), (0, 1, 2)])
    with pytest.raises(dgraph.InputError, match="shape"):
        dgraph.jaccard(G, np.zeros((3, 3), dtype=int))
    with pytest.raises(dgraph.InputError, match="pairs"):
        dgraph.jaccard(G, "01")
    with pytest.raises(dgraph.InputError, match="pairs"):
        dgraph.jaccard(G, 5)
    with pytest.raises(dgraph.InputError, match="directed"):
        dgraph.jaccard(dgraph.from_edges([0], [1], directed=True), [(0, 1)])
    with pytest.raises(dgraph.InputError, match="directed"):
        dgraph.jaccard(dgraph.from_edges([0], [1], directed=True))
    with pytest.raises(dgraph.InputError, match="kernels"):
        dgraph.jaccard(G, kernels="nope")
    for bad in (0, -3, 1.5, True):
        with pytest.raises(dgraph.InputError, match="chunk_size"):
            dgraph.jaccard(G, chunk_size=bad)
    S = dgraph.from_edges(["a"], ["b"])
    with pytest.raises(dgraph.InputError, match=r"pairs\[0\] = \('a', 'z'\)"):
        dgraph.jaccard(S, [("a", "z")])
    assert len(dgraph.jaccard(G, [])) == 0
    assert len(dgraph.jaccard(G, np.zeros((0, 2), dtype=int))) == 0
    for bad, where in (([(0, 1), (True, 2)], r"pairs\[1\] = \(True, 2\): True is not a vertex id"),
                       ([(0, np.False_)], r"pairs\[0\] = \(0, .*False_?\): .*False_? is not a vertex id"),
                       (np.ones((2, 2), dtype=bool), "pairs: a boolean array")):
        with pytest.raises(dgraph.InputError, match=where):   # numpy would have made them vertices 1 and 0
            dgraph.jaccard(G, bad)
    E = dgraph.from_edges([], [], num_vertices=0)
    assert dgraph.jaccard(E).total == 0 and list(dgraph.jaccard(E)) == []
    assert len(dgraph.jaccard(E, [])) == 0


@pytest.mark.parametrize("parts", [1, 2])
def test_a_stream_chunk_too_big_is_refused_before_it_is_made(monkeypatch, parts):
    """Iterating (or writing) a stream checks its largest chunk against the memory first and names
    chunk_size; counting the pairs (s.total) still works."""
    from dgraph.backend import device_memory
    from dgraph.errors import GraphTooLargeError

    G = dgraph.generate("rmat", scale=7, seed=3)
    target = G if parts == 1 else G.partition(parts, client=False)
    s = dgraph.jaccard(target, chunk_size=1 << 40)
    assert s.num_chunks == 1 and s.largest_chunk == s.total > 1000
    calls = []
    monkeypatch.setattr(device_memory, "host_available", lambda: (48 * s.total - 1, 1 << 30))
    monkeypatch.setattr(s, "_make", lambda lo, hi: calls.append((lo, hi)))
    with pytest.raises(GraphTooLargeError, match=rf"jaccard: a chunk of {s.total:,} pairs \(chunk_size="
                                                 rf"1,099,511,627,776\) needs about .* Pass a smaller chunk_size"):
        iter(s)
    with pytest.raises(GraphTooLargeError, match="chunk_size"):
        s.to_pandas()
    assert calls == []     # no chunk was made
    monkeypatch.undo()
    small = dgraph.jaccard(target, chunk_size=64)
    assert small.largest_chunk <= max(64, int(small.counts.max()))
    assert sum(len(c) for c in small) == small.total


def test_partitioned_equal_single():
    """Partitions simulated in one process (local executor), 2-4 parts, range and hash: the same bits."""
    rng = np.random.default_rng(11)
    checked = 0
    for i, (name, kw) in enumerate(CASES[::2]):
        G = dgraph.from_edges(**kw)
        if G.num_vertices < 2:
            continue
        pairs = _pairs(G, rng)
        ref = to_numpy(dgraph.jaccard(G, pairs).jaccard)
        ref_all = dgraph.jaccard(G).to_numpy()
        p = min(2 + i % 3, G.num_vertices)
        method = ("range", "hash")[i % 2]
        PG = G.partition(p, method=method, client=False)
        k = ("fused", "generic")[i % 2]
        r = dgraph.jaccard(PG, pairs, kernels=k)
        np.testing.assert_array_equal(to_numpy(r.jaccard), ref, err_msg=f"{name} p={p} {method}")
        assert r.params["partitions"] == p
        s = dgraph.jaccard(PG, kernels=k, chunk_size=1 + i % 5)
        assert s.params["implementation"] == ("cpu-numba", "generic")[i % 2]
        got = s.to_numpy()
        for col in ("u", "v", "jaccard"):
            np.testing.assert_array_equal(got[col], ref_all[col], err_msg=f"{name} p={p} {method} {col}")
        checked += 1
    assert checked >= 40


def test_rmat_partitions_and_chunks(monkeypatch):
    G = dgraph.generate("rmat", scale=8, seed=3)
    H = _nx(G)
    rng = np.random.default_rng(2)
    pairs = rng.integers(0, G.num_vertices, (500, 2))
    ref = _ref_pairs(H, [tuple(p) for p in pairs.tolist()])
    single = dgraph.jaccard(G)
    _check_stream(single, G, H, "rmat8")
    want = single.to_numpy()
    monkeypatch.setattr(jkernels, "CHUNK", 97)           # the vectorized kernels' expansion in small pieces
    for p in (1, 3, 4):
        for exchange in ("butterfly", "all-to-all"):
            target = G if p == 1 else G.partition(p, method="hash", client=False)
            for k in ("fused", "generic"):
                r = dgraph.jaccard(target, pairs, kernels=k, exchange=exchange)
                np.testing.assert_array_equal(to_numpy(r.jaccard), ref, err_msg=f"p={p} {k}")
                s = dgraph.jaccard(target, kernels=k, chunk_size=5000, exchange=exchange)
                assert s.num_chunks > 1
                got = s.to_numpy()
                for col in ("u", "v", "jaccard"):
                    np.testing.assert_array_equal(got[col], want[col], err_msg=f"p={p} {k} {col}")


def test_windows():
    assert windows(np.array([0, 2, 0, 3, 1, 0]), 3) == [(0, 3), (3, 4), (4, 6)]
    assert windows(np.array([5, 0, 0]), 2) == [(0, 1)]            # a vertex over the size is a chunk alone
    assert windows(np.array([0, 0, 5, 1]), 2) == [(2, 3), (3, 4)]            # rows without pairs left out
    assert windows(np.array([0, 0]), 4) == []
    assert windows(np.array([], dtype=np.int64), 4) == []


def test_stream_is_lazy_and_says_its_size(monkeypatch):
    import dgraph.backend.device_memory as dm

    G = dgraph.generate("grid", rows=20, cols=20)
    s = dgraph.jaccard(G, chunk_size=100)
    assert s.total > 0 and s.nbytes == 24 * s.total
    assert s.supersteps == 1                          # counted, nothing listed yet
    sizes = [len(c) for c in s]
    assert sum(sizes) == s.total and max(sizes) <= 100 and len(sizes) == s.num_chunks
    assert s.supersteps == 1 + s.num_chunks
    monkeypatch.setattr(dm, "host_available", lambda: (1000, 10_000))
    with pytest.raises(dgraph.GraphTooLargeError, match="pairs at distance two"):
        s.to_pandas()


def test_write(tmp_path):
    import pandas as pd

    G = dgraph.from_edges(["a", "b", "c", "c", "e"], ["b", "c", "d", "a", "a"])
    s = dgraph.jaccard(G, chunk_size=1)
    want = s.to_pandas()
    assert len(want) > 2
    for ext in ("csv", "parquet", "npz"):
        path = tmp_path / f"pairs.{ext}"
        assert dgraph.write(s, path) == path
        if ext == "csv":
            got = pd.read_csv(path)
        elif ext == "parquet":
            got = pd.read_parquet(path)
        else:
            with np.load(path) as z:
                got = pd.DataFrame({k: z[k] for k in ("u", "v", "jaccard")})
        pd.testing.assert_frame_equal(got.reset_index(drop=True), want, check_dtype=False)
        with pytest.raises(dgraph.OutputExistsError):
            s.write(path)
    r = dgraph.jaccard(G, [("a", "c"), ("b", "d")])
    r.write(tmp_path / "given.csv", columns=["jaccard"])
    assert pd.read_csv(tmp_path / "given.csv").columns.tolist() == ["u", "v", "jaccard"]
    with pytest.raises(dgraph.InputError, match="one value per vertex"):
        dgraph.write(r, tmp_path / "x.txt", format="graphalytics")
    with pytest.raises(dgraph.InputError, match="not a column"):
        r.write(tmp_path / "y.csv", columns=["nope"])
    assert not (tmp_path / "y.csv").exists()
    empty = dgraph.jaccard(dgraph.from_edges([0], [1]))
    empty.write(tmp_path / "empty.parquet")
    assert len(pd.read_parquet(tmp_path / "empty.parquet")) == 0


def test_records():
    G = dgraph.generate("rmat", scale=6, seed=1)
    r = dgraph.jaccard(G, [(0, 1), (2, 3)])
    assert r.supersteps == 2 and r.stats.phase.tolist() == ["rows", "intersect"]
    assert r.params["implementation"] == "cpu-numba" and r.run_time >= 0
    PG = G.partition(3, client=False)
    s = dgraph.jaccard(PG, chunk_size=50)
    assert s.params["implementation"] == "cpu-numba" and s.params["partitions"] == 3
    assert s.stats.phase.tolist() == ["rows", "count"]
    list(s)
    assert s.supersteps == 2 + 2 * s.num_chunks
    assert "PairStream" in repr(s) and "PairResult" in repr(r)


@pytest.mark.slow
def test_rmat_against_scipy():
    """Every pair at distance two of rmat 12 (2.2 M pairs) against scipy: S @ S on the simple graph."""
    import scipy.sparse as sp

    G = dgraph.generate("rmat", scale=12, seed=1)
    A = (G.to_scipy().tocsr() > 0).astype(np.int64)
    loops = A.diagonal()
    S = A.tolil()
    S.setdiag(0)
    S = S.tocsr()
    S.eliminate_zeros()
    C = sp.triu(S @ S, k=1).tocsr()
    C = (C - C.multiply(sp.triu(S, k=1))).tocoo()
    C.eliminate_zeros()
    deg = np.asarray(S.sum(1)).ravel() + loops
    order = np.lexsort((C.col, C.row))
    u, v, c = C.row[order], C.col[order], C.data[order]
    want = {"u": u, "v": v, "jaccard": c / (deg[u] + deg[v] - c)}
    for k in ("fused", "generic"):
        for target in (G, G.partition(3, method="hash", client=False)):
            got = dgraph.jaccard(target, kernels=k, chunk_size=300_000).to_numpy()
            for col in ("u", "v", "jaccard"):
                np.testing.assert_array_equal(got[col], want[col], err_msg=f"{k} {col}")


# -- on a Dask cluster -----------------------------------------------------------------------------

def test_executors_equal_local(client):
    rng = np.random.default_rng(3)
    graphs = [kw for _, kw in CASES[6:40] if dgraph.from_edges(**kw).num_vertices >= 4][:4]
    assert len(graphs) == 4
    for kw in graphs:
        G = dgraph.from_edges(**kw)
        H = _nx(G)
        pairs = _pairs(G, rng)
        ref = _ref_pairs(H, pairs)
        want = dgraph.jaccard(G).to_numpy()
        for p in (2, 3):
            PG = G.partition(p, method="hash" if p == 3 else "range", client=client)
            for executor in ("tasks", "spmd"):
                r = dgraph.jaccard(PG, pairs, executor=executor)
                np.testing.assert_array_equal(to_numpy(r.jaccard), ref, err_msg=f"{kw} p={p} {executor}")
                assert r.params["executor"] == executor
                got = dgraph.jaccard(PG, executor=executor, chunk_size=25).to_numpy()
                for col in ("u", "v", "jaccard"):
                    np.testing.assert_array_equal(got[col], want[col], err_msg=f"{kw} p={p} {executor} {col}")


# -- CuPy ------------------------------------------------------------------------------------------

@pytest.mark.gpu
def test_gpu_matches_networkx():
    """CuPy (the vectorized kernels) against NetworkX, and its all-pairs stream against numpy's, single and
    partitioned (shards in this process)."""
    if not gpu_available():
        pytest.skip("no usable CUDA GPU / CuPy")
    backend = "cupy"
    rng = np.random.default_rng(7)
    checked = 0
    for i, (name, kw) in enumerate(CASES):
        G = dgraph.from_edges(**kw).to(backend)
        H = _nx(G)
        pairs = _pairs(G, rng)
        r = dgraph.jaccard(G, pairs)
        assert r.params["implementation"] == "generic"
        np.testing.assert_array_equal(to_numpy(r.jaccard), _ref_pairs(H, pairs), err_msg=name)
        _check_stream(dgraph.jaccard(G, chunk_size=1 + i % 5), G, H, name)
        checked += 1
    assert checked >= 100
    G = dgraph.generate("rmat", scale=10, seed=4, backend=backend)
    ref = dgraph.jaccard(G.to("numpy")).to_numpy()
    pairs = rng.integers(0, G.num_vertices, (3000, 2))
    want = to_numpy(dgraph.jaccard(G.to("numpy"), pairs).jaccard)
    for target in (G, G.partition(3, method="hash", client=False)):
        got = dgraph.jaccard(target, chunk_size=10_000).to_numpy()
        for col in ("u", "v", "jaccard"):
            np.testing.assert_array_equal(got[col], ref[col], err_msg=col)
        np.testing.assert_array_equal(to_numpy(dgraph.jaccard(target, pairs).jaccard), want)
