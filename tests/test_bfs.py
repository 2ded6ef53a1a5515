"""BFS against scipy on a corpus of random and odd graphs, every direction and kernel set."""

import numpy as np
import pytest
from graphs import corpus
from reference import check_bfs_tree, min_parents, reference_depths

import dgraph
from dgraph.backend import to_numpy
from dgraph.errors import BackendError, DGraphError, InputError, VertexNotFoundError

CASES = list(corpus(210, seed=2))


def _sources(G, rng):
    n = G.num_vertices
    if n == 0:
        return []
    deg = to_numpy(G.out_degree())
    picks = {int(rng.integers(0, n)), int(np.argmax(deg))}
    isolated = np.flatnonzero(deg == 0)
    if len(isolated):
        picks.add(int(isolated[0]))
    return sorted(picks)


def _check(G, src_internal, r):
    depth = to_numpy(r.raw("depth")).astype(np.int64)
    parent = to_numpy(r.raw("parent")).astype(np.int64)
    ref = reference_depths(G, src_internal)
    np.testing.assert_array_equal(depth, ref)
    check_bfs_tree(G, src_internal, depth, parent)
    best = min_parents(G, depth)
    others = (depth > 0)
    np.testing.assert_array_equal(parent[others], best[others])


@pytest.mark.parametrize("direction", ["push", "pull", "auto"])
@pytest.mark.parametrize("kernels", ["fused", "generic"])
def test_bfs_matches_scipy(backend, direction, kernels):
    rng = np.random.default_rng(7)
    checked = 0
    for label, kw in CASES:
        G = dgraph.from_edges(**kw)
        for s in _sources(G, rng):
            user = G.ids.to_user(s)
            r = dgraph.bfs(G, source=user.item() if hasattr(user, "item") else user, direction=direction,
                           kernels=kernels, backend=backend)
            try:
                _check(G, s, r)
            except AssertionError as exc:
                raise AssertionError(f"graph {label}, source {s}: {exc}") from None
            checked += 1
    assert checked >= 300


def test_directions_agree_exactly_on_rmat(backend):
    G = dgraph.from_edges(*_rmat_edges(12, seed=3), num_vertices=1 << 12)
    src = int(np.argmax(to_numpy(G.out_degree())))
    results = [dgraph.bfs(G, src, direction=d, kernels=k, backend=backend)
               for d in ("push", "pull", "auto") for k in ("fused", "generic")]
    for r in results[1:]:
        np.testing.assert_array_equal(to_numpy(r.raw("depth")), to_numpy(results[0].raw("depth")))
        np.testing.assert_array_equal(to_numpy(r.raw("parent")), to_numpy(results[0].raw("parent")))
    _check(G, src, results[0])
    auto = results[4]
    assert {"push", "pull"} <= set(auto.stats["direction"]), "auto switches direction on a skewed graph"


def _rmat_edges(scale, seed):
    rng = np.random.default_rng(seed)
    m = 16 << scale
    src = np.zeros(m, np.int64)
    dst = np.zeros(m, np.int64)
    for level in range(scale):
        r = rng.random(m)
        src += (r >= 0.76) << level
        dst += (((r >= 0.57) & (r < 0.76)) | (r >= 0.95)) << level
    return src, dst


def test_string_ids_map_back():
    G = dgraph.from_edges(["a", "b", "c", "q"], ["b", "c", "a", "r"], directed=True)
    r = dgraph.bfs(G, source="b")
    got = dict(zip(r.vertex.tolist(), r.depth.tolist()))
    assert got == {"a": 2, "b": 0, "c": 1, "q": -1, "r": -1}
    parents = dict(zip(r.vertex.tolist(), r.parent.tolist()))
    assert parents == {"a": "c", "b": "b", "c": "b", "q": None, "r": None}
    df = r.to_pandas()
    assert list(df.columns) == ["vertex", "depth", "parent"]
    assert df.set_index("vertex").loc["a", "parent"] == "c"


def test_stats_record_every_superstep():
    G = dgraph.from_edges([0, 1, 2, 3], [1, 2, 3, 4])
    r = dgraph.bfs(G, source=0, direction="push")
    s = r.stats
    assert list(s["frontier"]) == [1, 1, 1, 1, 0]
    assert list(s["direction"]) == ["push"] * 5
    assert s["edges"].sum() == r.edges_touched == 8
    assert (s["time_s"] >= 0).all()


def test_source_not_in_graph():
    G = dgraph.from_edges([0, 1], [1, 2])
    with pytest.raises(VertexNotFoundError, match="source 7"):
        dgraph.bfs(G, source=7)
    H = dgraph.from_edges(["a"], ["b"])
    with pytest.raises(VertexNotFoundError, match="source 'z'"):
        dgraph.bfs(H, source="z")


def test_bad_options():
    G = dgraph.from_edges([0], [1])
    with pytest.raises(InputError, match="direction='sideways'"):
        dgraph.bfs(G, 0, direction="sideways")
    with pytest.raises(InputError, match="backend='tpu'"):
        dgraph.bfs(G, 0, backend="tpu")
    with pytest.raises(DGraphError, match="expected a dgraph.Graph"):
        dgraph.bfs([[0, 1]], 0)


def test_cupy_without_gpu_is_a_clear_error():
    from dgraph.backend import gpu_available

    if gpu_available():
        pytest.skip("a GPU is present here")
    G = dgraph.from_edges([0], [1])
    with pytest.raises(BackendError, match="backend='cupy'"):
        dgraph.bfs(G, 0, backend="cupy")


@pytest.mark.parametrize("backend,parts,kernels,direction,levels,expected", [
    ("numpy", 1, "fused", "auto", True, "cpu-numba+levels"),
    ("numpy", 1, "fused", "pull", True, "cpu-numba+levels"),
    ("numpy", 1, "fused", "auto", False, "cpu-numba"),
    ("numpy", 3, "fused", "pull", True, "cpu-numba"),
    ("numpy", 1, "generic", "auto", True, "generic"),
    ("cupy", 2, "generic", "push", True, "generic"),
    ("cupy", 1, "fused", "auto", True, "gpu-fused+levels"),
    ("cupy", 1, "fused", "push", True, "gpu-fused+levels"),
    ("cupy", 1, "fused", "pull", True, "gpu-fused"),
    ("cupy", 1, "fused", "auto", False, "gpu-fused"),
    ("cupy", 4, "fused", "auto", True, "gpu-fused+union"),
])
def test_one_function_chooses_the_implementation(backend, parts, kernels, direction, levels, expected):
    from dgraph.algorithms.bfs import IMPLEMENTATIONS, implementation

    assert implementation(backend, parts, kernels, direction, levels=levels) == expected
    with dgraph.config.override(bfs_levels=levels):  # None: dgraph.config decides
        assert implementation(backend, parts, kernels, direction) == expected
    assert expected in IMPLEMENTATIONS


def test_the_choice_is_recorded_and_the_program_follows_it(monkeypatch):
    """r.params["implementation"] names what ran: the other implementations' visit steps are not called."""
    from dgraph.algorithms.bfs import cpu, kernels

    G = dgraph.generate("grid", rows=5, cols=6)
    ref = dgraph.bfs(G, 0)
    assert ref.params["implementation"] == "cpu-numba+levels"

    def refuse(*args):
        raise AssertionError("an implementation that was not chosen ran")

    with monkeypatch.context() as m:  # the whole traversal in one numba call: no visit step a superstep
        m.setattr(cpu, "push", refuse)
        assert dgraph.bfs(G, 0).parent.tolist() == ref.parent.tolist()
    assert dgraph.bfs(G.partition(1, client=False), 0).params["implementation"] == "cpu-numba+levels"

    for direction in ("push", "pull"):
        with monkeypatch.context() as m:
            m.setattr(cpu, direction, refuse)
            r = dgraph.bfs(G, 0, direction=direction, kernels="generic")
        assert r.params["implementation"] == "generic" and r.depth.tolist() == ref.depth.tolist()
        with monkeypatch.context() as m:
            m.setattr(kernels, direction, refuse)
            r = dgraph.bfs(G.partition(2, client=False), 0, direction=direction)
        assert r.params["implementation"] == "cpu-numba" and r.parent.tolist() == ref.parent.tolist()


@pytest.mark.parametrize("kernels", ["fused", "generic"])
def test_final_pairs_fit_the_push_levels_bound(monkeypatch, kernels):
    """The parents a shard found for other shards' vertices are never more than the source plus the
    push levels' frontiers (``st.pushed``): the GPU path sends them in buffers of that size."""
    from dgraph.algorithms.bfs.program import BFS

    seen = []
    final = BFS.final_contribution

    def checked(self, shard, st):
        c = final(self, shard, st)
        if c is not None:  # None: one whole shard
            seen.append((len(c.arrays["v"]), st.pushed))
        return c

    monkeypatch.setattr(BFS, "final_contribution", checked)
    graphs = [dgraph.generate("rmat", scale=9, seed=3), dgraph.generate("rmat", scale=8, seed=4, directed=True),
              dgraph.generate("grid", rows=9, cols=11)]
    graphs += [dgraph.from_edges(**kw) for _, kw in list(corpus(24, seed=7))]
    for G in graphs:
        if G.num_vertices < 3:
            continue
        src = G.ids.to_user(int(np.argmax(to_numpy(G.out_degree())))).item()
        for p in range(2, min(4, G.num_vertices) + 1):
            PG = G.partition(p, client=False)
            for direction in ("auto", "push", "pull"):
                ref = dgraph.bfs(G, src, direction=direction)
                r = dgraph.bfs(PG, src, direction=direction, kernels=kernels)
                assert r.parent.tolist() == ref.parent.tolist()
    assert seen and all(found <= bound for found, bound in seen), [s for s in seen if s[0] > s[1]][:5]
    assert any(found for found, _ in seen)  # pushes found parents elsewhere: the bound was tested


@pytest.mark.parametrize("method", ["range", "metis", "hash"])
def test_peer_levels_know_which_vertices_each_gpu_owns(method):
    """A pull's union reads a peer's bitmap word only where that peer owns some of the word's
    vertices (``peers.cu``'s spans): they must be every shard's range, or all of [0, n) where the
    shards are not ranges."""
    from dgraph.algorithms.bfs.peers import owner_spans

    G = dgraph.generate("rmat", scale=9, seed=3)
    for p in (1, 2, 3, 4):
        shards = G.partition(p, method, client=False).local_shards()
        for shard in shards:
            spans = owner_spans(shard).reshape(p, 2).tolist()
            if all(s.contiguous for s in shards):
                assert spans == [[s.row_base, s.row_base + s.num_rows] for s in shards]
            else:
                assert spans == [[0, G.num_vertices]] * p


def test_implementation_errors():
    from dgraph.algorithms.bfs import BFS, implementation

    with pytest.raises(InputError, match="kernels='numba': expected 'fused' or 'generic'"):
        dgraph.bfs(dgraph.from_edges([0], [1]), 0, kernels="numba")
    with pytest.raises(InputError, match="backend='tpu': expected 'numpy' or 'cupy'"):
        implementation("tpu", 1)
    with pytest.raises(InputError, match="implementation='fast': expected one of generic, cpu-numba, "):
        BFS(0, implementation="fast")
    G = dgraph.from_edges([0, 1], [1, 2])
    from dgraph.engine.run import run_program

    with pytest.raises(InputError, match=r"implementation='gpu-fused' does not run on a numpy shard of 1 partition"):
        run_program(lambda ids: BFS(0, implementation="gpu-fused"), G)
    with pytest.raises(InputError, match=r"'gpu-fused\+union' does not run on a numpy shard of 1 partition"):
        run_program(lambda ids: BFS(0, implementation="gpu-fused+union"), G)
    r = run_program(lambda ids: BFS(0, implementation="generic"), G.partition(2, client=False))
    assert r.depth.tolist() == [0, 1, 2]


# -- cpu-numba+levels: the whole traversal in one numba call -------------------------------------------
def _same_run(a, b):
    np.testing.assert_array_equal(a.raw("depth"), b.raw("depth"))
    np.testing.assert_array_equal(a.raw("parent"), b.raw("parent"))
    assert a.supersteps == b.supersteps
    for c in ("direction", "frontier", "edges", "frontier_edges"):
        assert list(a.stats[c]) == list(b.stats[c]), c


@pytest.mark.parametrize("direction", ["auto", "push", "pull"])
def test_levels_loop_equals_the_superstep_path(direction):
    """Depths, parents and every superstep's record equal the level-by-level numba path, on the corpus."""
    rng = np.random.default_rng(11)
    checked = 0
    for label, kw in CASES[::3]:
        G = dgraph.from_edges(**kw)
        for s in _sources(G, rng):
            user = G.ids.to_user(s)
            user = user.item() if hasattr(user, "item") else user
            a = dgraph.bfs(G, user, direction=direction)
            with dgraph.config.override(bfs_levels=False):
                b = dgraph.bfs(G, user, direction=direction)
            assert a.params["implementation"] == "cpu-numba+levels" and b.params["implementation"] == "cpu-numba"
            try:
                _same_run(a, b)
            except AssertionError as exc:
                raise AssertionError(f"graph {label}, source {s}: {exc}") from None
            checked += 1
    assert checked >= 100


def test_levels_loop_switches_direction_and_chunks(monkeypatch):
    """Beamer's switches inside the loop, calls of a few levels each, a superstep limit, ticks per level."""
    from dgraph.algorithms.bfs import solver
    from dgraph.engine.run import run_program
    from dgraph.algorithms.bfs import BFS

    G = dgraph.from_edges(*_rmat_edges(10, seed=5), num_vertices=1 << 10)
    src = int(np.argmax(to_numpy(G.out_degree())))
    with dgraph.config.override(bfs_levels=False):
        ref = dgraph.bfs(G, src)
    assert {"push", "pull"} <= set(ref.stats["direction"])
    monkeypatch.setattr(solver, "CPU_MAX_LEVELS", 2)
    seen = []
    r = dgraph.bfs(G, src, on_step=seen.append)
    _same_run(r, ref)
    assert [x["frontier"] for x in seen] == list(ref.stats["frontier"])
    grid = dgraph.generate("grid", rows=7, cols=9)
    with dgraph.config.override(bfs_levels=False):
        full = dgraph.bfs(grid, 0)
    cut = run_program(lambda ids: BFS(0, implementation="cpu-numba+levels"), grid, max_supersteps=5)
    assert cut.supersteps == 5 and list(cut.stats["frontier"]) == list(full.stats["frontier"][:5])
    assert (cut.raw("depth") <= 5).all() and (cut.raw("depth") == 5).sum() == full.stats["frontier"][4]


def test_prefetch_compiles_and_changes_nothing():
    """dgraph.jit.prefetch in a compiled loop: any array and integer index, past the end included
    (a prefetch never faults), and the loop's answer is the one without it."""
    import numba

    from dgraph.jit import prefetch

    @numba.njit
    def total(a, ahead):
        s = a[0] * 0
        for i in range(a.shape[0]):
            prefetch(a, np.uint64(i + ahead))
            prefetch(a, i + ahead)
            s += a[i]
        return s

    for dt in (np.int32, np.int64, np.float64):
        a = np.arange(1, 1001, dtype=dt)
        assert total(a, 8) == total(a, 0) == a.sum()
        assert total(a, 1 << 20) == a.sum()


def test_packed_words_round_trip():
    """cpu.pack / cpu.unpack: 0 is unvisited (a zeroed array is every vertex unvisited), the largest
    depth and parent a packed graph can have survive, and packed() is pack's word."""
    from dgraph.algorithms.bfs import cpu

    rng = np.random.default_rng(3)
    for pdt in (np.int32, np.int64):
        labels = rng.integers(-1, 50, 1000).astype(np.int32)
        parents = rng.integers(0, 1000, 1000).astype(pdt)
        labels[:3] = [0, cpu.PACKED_MAX_N - 2, -1]
        parents[:3] = [0, cpu.PACKED_MAX_N - 2, 5]
        parents[labels < 0] = -1
        word = np.empty(1000, np.int64)
        cpu.pack(labels, parents, word)
        assert (word[labels < 0] == 0).all() and (word[labels >= 0] > 0).all()
        assert word[1] == cpu.packed(cpu.PACKED_MAX_N - 2, cpu.PACKED_MAX_N - 2)
        got_l, got_p = np.empty_like(labels), np.empty_like(parents)
        cpu.unpack(word, got_l, got_p)
        np.testing.assert_array_equal(got_l, labels)
        np.testing.assert_array_equal(got_p, parents)
        cpu.unpack(np.zeros(4, np.int64), got_l[:4], got_p[:4])
        assert got_l[:4].tolist() == got_p[:4].tolist() == [-1] * 4


def test_levels_loop_leaves_huge_graphs_to_the_supersteps(monkeypatch):
    """A graph too large for the packed (depth, parent) words runs a superstep at a time, same answers."""
    from dgraph.algorithms.bfs import cpu

    G = dgraph.generate("grid", rows=6, cols=8)
    ref = dgraph.bfs(G, 3)
    monkeypatch.setattr(cpu, "PACKED_MAX_N", G.num_vertices)
    monkeypatch.setattr(cpu, "run_levels", None)  # never called
    r = dgraph.bfs(G, 3)
    assert r.params["implementation"] == "cpu-numba+levels"
    _same_run(r, ref)


def test_levels_loop_needs_one_whole_shard():
    from dgraph.algorithms.bfs import BFS
    from dgraph.engine.run import run_program

    G = dgraph.from_edges([0, 1], [1, 2])
    with pytest.raises(InputError, match=r"'cpu-numba\+levels' does not run on a numpy shard of 2 partition"):
        run_program(lambda ids: BFS(0, implementation="cpu-numba+levels"), G.partition(2, client=False))
