"""Core numbers and k-cores against NetworkX, on every executor and partition count.

``dgraph.core_number`` must equal ``nx.core_number`` (degree = in + out for a directed graph) and
``dgraph.k_core`` must keep exactly the vertices and edges of ``nx.k_core``; multigraphs (kept with
``dedupe=False``, which NetworkX refuses) are checked against a one-vertex-at-a-time peeling written
here.  Every partitioning, executor, backend and kernel gives the same numbers.
"""

import networkx as nx
import numpy as np
import pytest
from graphs import corpus, random_graph

import dgraph
from dgraph import cli
from dgraph.backend import to_numpy
from dgraph.errors import InputError, PipelineError

CASES = list(corpus(112, seed=23))


def _nx_cores(G):
    """NetworkX's core numbers of ``G`` without its self loops, in G's internal order."""
    H = G.to("numpy").to_networkx()
    H.remove_edges_from(list(nx.selfloop_edges(H)))
    ref = nx.core_number(H)
    return np.array([ref[v] for v in G.vertex_ids().tolist()], dtype=np.int64)


def _cores(r):
    return to_numpy(r.raw("core"))


def peel_reference(G):
    """Core numbers by the definition, one vertex at a time: take a vertex of smallest remaining
    degree, its core number is the largest such degree seen so far.  Degrees count stored arcs (a
    multi-edge once a copy; in + out for a directed graph), self loops left out."""
    src, dst, _ = (to_numpy(a) for a in G.to("numpy").coo())
    n = G.num_vertices
    nbrs = [[] for _ in range(n)]
    for u, v in zip(src.tolist(), dst.tolist()):
        if u == v:
            continue
        nbrs[u].append(v)
        if G.directed:
            nbrs[v].append(u)
    deg = [len(x) for x in nbrs]
    alive, core, k = set(range(n)), [0] * n, 0
    while alive:
        v = min(alive, key=lambda x: (deg[x], x))
        k = max(k, deg[v])
        core[v] = k
        alive.discard(v)
        for u in nbrs[v]:
            if u in alive:
                deg[u] -= 1
    return np.array(core, dtype=np.int64)


# -- against NetworkX -----------------------------------------------------------------------------

def test_matches_networkx(backend):
    checked = loops = 0
    for label, kw in CASES:
        G = dgraph.from_edges(**kw).to(backend)
        want = _nx_cores(G)
        if G.num_self_loops:
            with pytest.raises(InputError, match="self loop"):
                dgraph.core_number(G)
            loops += 1
        for kernels in ("fused", "generic"):
            r = dgraph.core_number(G, kernels=kernels, self_loops="ignore")
            np.testing.assert_array_equal(_cores(r), want, err_msg=f"{label} {kernels}")
            assert r.vertex.tolist() == G.vertex_ids().tolist()
        checked += 1
    assert checked >= 100 and loops >= 10
    assert any(kw.get("directed") for _, kw in CASES) and any(not kw.get("directed") for _, kw in CASES)


def test_odd_graphs():
    def cores(*args, **kw):
        return dgraph.core_number(dgraph.from_edges(*args, **kw)).core.tolist()

    assert cores([], [], num_vertices=0) == []
    assert cores([], [], num_vertices=1) == [0]
    assert cores([], [], num_vertices=3) == [0, 0, 0]
    assert cores([0, 0, 0, 1], [1, 1, 1, 2]) == [1, 1, 1]                   # duplicates collapse (dedupe)
    assert cores([0, 1, 2, 3], [1, 2, 0, 4], num_vertices=7) == [2, 2, 2, 1, 1, 0, 0]
    # NetworkX's docstring cases: in + out degree for a directed graph
    assert cores([0, 1, 1, 1, 2, 3], [1, 0, 2, 3, 3, 2], directed=True) == [2, 2, 2, 2]
    assert cores([0, 1], [1, 0], directed=True) == [2, 2]                  # both ways: two edges apart
    H = nx.havel_hakimi_graph([0, 1, 2, 2, 2, 2, 3])
    G = dgraph.from_networkx(H)
    assert dict(zip(G.vertex_ids().tolist(), dgraph.core_number(G).core.tolist())) == nx.core_number(H)
    # string ids, and a clique inside a sparse shell
    r = dgraph.core_number(dgraph.from_edges(["a", "a", "b", "c"], ["b", "c", "c", "d"]))
    assert dict(zip(r.vertex.tolist(), r.core.tolist())) == {"a": 2, "b": 2, "c": 2, "d": 1}
    K = nx.complete_graph(7)
    K.add_edges_from([(6, 7), (7, 8), (8, 9)])
    G = dgraph.from_networkx(K)
    assert dgraph.core_number(G).core.tolist() == [6] * 7 + [1] * 3


def test_multigraphs_count_every_copy():
    """With dedupe=False a multi-edge counts once a copy (NetworkX refuses multigraphs): against the
    one-vertex-at-a-time peeling, every partitioning, both kernels."""
    assert dgraph.core_number(dgraph.from_edges([0, 0], [1, 1], dedupe=False)).core.tolist() == [2, 2]
    checked = 0
    for label, kw in CASES[15:45]:
        G = dgraph.from_edges(**kw, dedupe=False)
        want = peel_reference(G)
        for p in (1, 2, 3):
            if p > max(G.num_vertices, 1):
                continue
            target = G if p == 1 else G.partition(p, method="hash", client=False)
            for kernels in ("fused", "generic"):
                got = _cores(dgraph.core_number(target, kernels=kernels, self_loops="ignore"))
                np.testing.assert_array_equal(got, want, err_msg=f"{label} p={p} {kernels}")
        checked += 1
    assert checked == 30


def test_deep_peeling_and_stats(backend):
    """A path peels from both ends, two vertices a superstep; a clique with a tail: level by level."""
    rng = np.random.default_rng(5)
    n = 3000
    perm = rng.permutation(n)
    G = dgraph.from_edges(perm[:-1], perm[1:], num_vertices=n).to(backend)
    r = dgraph.core_number(G, kernels="generic")
    assert (_cores(r) == 1).all()
    s = r.stats
    assert r.supersteps == n // 2 and (s["k"].iloc[1:] == 1).all()
    assert s["left"].iloc[0] == n and s["frontier"].iloc[0] == 2 and s["frontier"].iloc[-1] == s["left"].iloc[-1]
    assert r.edges_touched == 2 * (n - 1) - 4                                # the last two are never advanced
    K = nx.complete_graph(6)
    K.add_edges_from([(5, 6), (6, 7)])
    G = dgraph.from_networkx(K).to(backend)
    r = dgraph.core_number(G, kernels="generic")
    assert _cores(r).tolist() == [5] * 6 + [1, 1]
    assert r.stats["k"].tolist() == [1, 1, 5] and r.params["implementation"] == "generic"
    r = dgraph.core_number(G)
    assert r.params["implementation"] == {"numpy": "cpu-numba+levels", "cupy": "gpu-peel"}[backend]
    assert r.supersteps == 1 and r.stats["k"].tolist() == [5] and _cores(r).tolist() == [5] * 6 + [1, 1]


def _gpu_peel_graphs():
    """The corpus, each also with its multi-edges kept, then deep, wide and skewed ones: a path and a
    grid (thousands of thin rounds), a star (a hub one warp walks), R-MAT both ways, a clique."""
    for label, kw in CASES:
        for dedupe in (True, False):
            yield f"{label} dedupe={dedupe}", dgraph.from_edges(**kw, dedupe=dedupe)
    perm = np.random.default_rng(6).permutation(5000)
    yield "path", dgraph.from_edges(perm[:-1], perm[1:], num_vertices=5000)
    yield "grid", dgraph.generate("grid", rows=300, cols=200)
    yield "grid-directed", dgraph.generate("grid", rows=100, cols=100, directed=True)
    yield "star", dgraph.from_edges(np.zeros(100_000, int), np.arange(1, 100_001))
    yield "rmat14", dgraph.generate("rmat", scale=14, seed=2)
    yield "rmat14-directed", dgraph.generate("rmat", scale=14, seed=3, directed=True)
    yield "clique", dgraph.from_networkx(nx.complete_graph(300))


@pytest.mark.gpu
def test_gpu_peel_matches_numpy():
    """'gpu-peel' (one cooperative launch) against numpy's level-by-level peeling and CuPy's vectorized
    supersteps: the same core numbers, the same largest level, every arc scanned exactly once."""
    from dgraph.backend import gpu_available

    if not gpu_available():
        pytest.skip("no usable CUDA GPU / CuPy")
    checked = 0
    for label, G in _gpu_peel_graphs():
        want = dgraph.core_number(G, self_loops="ignore")
        C = G.to("cupy")
        r = dgraph.core_number(C, self_loops="ignore")
        assert r.params["implementation"] == "gpu-peel" and r.supersteps == min(G.num_vertices, 1), label
        np.testing.assert_array_equal(_cores(r), _cores(want), err_msg=label)
        if G.num_vertices:
            assert r.stats["k"].tolist() == want.stats["k"].tolist(), label
            assert r.edges_touched == want.edges_touched, label
        generic = dgraph.core_number(C, self_loops="ignore", kernels="generic")
        np.testing.assert_array_equal(_cores(generic), _cores(want), err_msg=label)
        checked += 1
    assert checked >= 200


@pytest.mark.slow
def test_wide_sweep():
    """400 more graphs, each also with its multi-edges kept, on 1-4 partitions and both kernels."""
    rng = np.random.default_rng(99)
    checked = 0
    for label, kw in corpus(400, seed=31):
        for dedupe in (True, False):
            G = dgraph.from_edges(**kw, dedupe=dedupe)
            want = _nx_cores(G) if dedupe else peel_reference(G)
            p = int(rng.integers(1, 5))
            target = G if p == 1 or p > G.num_vertices else G.partition(p, method=("range", "hash")[p % 2],
                                                                          client=False)
            for kernels in ("fused", "generic"):
                got = _cores(dgraph.core_number(target, kernels=kernels, self_loops="ignore"))
                np.testing.assert_array_equal(got, want, err_msg=f"{label} dedupe={dedupe} p={p} {kernels}")
            checked += 1
    assert checked == 800


def test_peel_kernel_direct():
    """The kernel on its own: no vertices; a directed 3-cycle with a loop (the loop read and left out,
    or skipped unread when the caller says there is none); level jumps over empty levels."""
    from dgraph.algorithms.kcore import cpu

    def peel(indptr, indices, cindptr, cindices, directed, loop_free):
        n = len(indptr) - 1
        core = np.full(n, -7, np.int64)
        deg = np.empty(n, cpu.degree_dtype(len(indices)))
        top = cpu.peel_cores(np.asarray(indptr, np.int64), np.asarray(indices, np.int32),
                             np.asarray(cindptr, np.int64), np.asarray(cindices, np.int32), directed, loop_free,
                             deg, core)
        return top, core.tolist()

    assert peel([0], [], [0], [], False, False) == (0, [])
    # a directed 3-cycle 0 -> 1 -> 2 -> 0 plus a loop on 0: in + out = 2 each, the loop left out
    cycle = ([0, 2, 3, 4], [0, 1, 2, 0], [0, 2, 3, 4], [0, 2, 0, 1])
    assert peel(*cycle, True, False) == (2, [2, 2, 2])
    assert peel([0, 1], [0], [0, 1], [0], False, False) == (0, [0])   # one vertex, a loop
    assert peel([0, 1], [0], [0, 1], [0], False, True) == (1, [1])    # told "no loops": its arc counts, unread
    # K5 (core 4) beside an isolated vertex and a K2: levels 0, 1, then a jump to 4
    G = dgraph.from_edges([0, 0, 0, 0, 1, 1, 1, 2, 2, 3, 6], [1, 2, 3, 4, 2, 3, 4, 3, 4, 4, 7], num_vertices=8)
    assert peel(G.indptr, G.indices, G.indptr, G.indices, False, True) == (4, [4, 4, 4, 4, 4, 0, 1, 1])
    assert cpu.degree_dtype(2**30 - 1) == np.int32 and cpu.degree_dtype(2**30) == np.int64


# -- k_core -----------------------------------------------------------------------------------------

def _edge_set(H, directed):
    return {(u, v) if directed else frozenset((u, v)) for u, v in H.edges()}


def test_k_core_matches_networkx(backend):
    checked = 0
    for label, kw in CASES[:60]:
        G = dgraph.from_edges(**kw).drop_self_loops().to(backend)
        H = G.to("numpy").to_networkx()
        top = int(_nx_cores(G).max()) if G.num_vertices else 0
        for k in (None, 0, 1, 2, 3, top, top + 1):
            S = dgraph.k_core(G, k)
            assert S.backend == G.backend and S.directed == G.directed, label
            if G.num_vertices == 0:
                assert S.num_vertices == 0
                continue
            ref = nx.k_core(H, k)
            assert S.vertex_ids().tolist() == [v for v in G.vertex_ids().tolist() if v in ref], (label, k)
            assert _edge_set(S.to("numpy").to_networkx(), G.directed) == _edge_set(ref, G.directed), (label, k)
        checked += 1
    assert checked == 60


def test_k_core_keeps_ids_weights_and_takes_given_cores():
    G = dgraph.from_edges(["a", "a", "b", "c", "c"], ["b", "c", "c", "d", "c"], weights=[1.0, 2.0, 3.0, 4.0, 5.0])
    with pytest.raises(InputError, match="self loop"):
        dgraph.k_core(G)
    S = dgraph.k_core(G, self_loops="ignore")
    assert S.vertex_ids().tolist() == ["a", "b", "c"] and S.num_self_loops == 1 and S.weighted
    assert sorted(S.edges()[2].tolist()) == [1.0, 2.0, 3.0, 5.0]
    PG = G.partition(2, client=False)
    r = dgraph.core_number(PG, self_loops="ignore")
    assert dgraph.k_core(G, 1, core_number=r).num_vertices == 4
    assert dgraph.k_core(G, core_number=r).vertex_ids().tolist() == ["a", "b", "c"]
    assert dgraph.k_core(G, np.int64(2), core_number=r).num_vertices == 3


def test_bad_arguments():
    G = dgraph.from_edges([0, 1], [1, 2])
    for k in (-1, 1.5, True, "2", np.float64(2.0), [2]):
        with pytest.raises(InputError, match="k="):
            dgraph.k_core(G, k)
    for value in ("keep", None, True):
        with pytest.raises(InputError, match="self_loops="):
            dgraph.core_number(G, self_loops=value)
    with pytest.raises(InputError, match="kernels="):
        dgraph.core_number(G, kernels="fast")
    with pytest.raises(InputError, match="PartitionedGraph has no subgraph"):
        dgraph.k_core(G.partition(2, client=False))
    with pytest.raises(InputError, match="Result of dgraph.core_number, got Result of wcc"):
        dgraph.k_core(G, core_number=dgraph.wcc(G))
    with pytest.raises(InputError, match="another graph"):
        dgraph.k_core(G, core_number=dgraph.core_number(dgraph.from_edges([0], [1])))
    with pytest.raises(InputError, match="expected a dgraph.Graph"):
        dgraph.core_number([[0, 1]])
    with pytest.raises(InputError, match="executor='tasks' runs on a partitioned graph"):
        dgraph.core_number(G, executor="tasks")
    looped = dgraph.from_edges([0, 1, 1], [1, 2, 1]).partition(2, client=False)
    with pytest.raises(InputError, match=r"1 self loop \(vertex 1 -> 1"):
        dgraph.core_number(looped)


# -- partitions and executors -----------------------------------------------------------------------

def _graphs():
    yield dgraph.generate("rmat", scale=8, seed=3, directed=True)
    yield dgraph.generate("rmat", scale=8, edgefactor=4, seed=4)
    yield dgraph.generate("grid", rows=9, cols=13)
    rng = np.random.default_rng(8)
    for _ in range(12):
        yield dgraph.from_edges(**random_graph(rng))


def test_partitions_give_the_same_numbers(backend):
    runs = 0
    for G in _graphs():
        G = G.to(backend)
        want = _nx_cores(G)
        for p in (2, 3, 4):
            if p > G.num_vertices:
                continue
            for method in ("range", "hash", "metis"):
                PG = G.partition(p, method=method, client=False)
                r = dgraph.core_number(PG, self_loops="ignore", exchange="all-to-all" if p == 3 else "butterfly")
                np.testing.assert_array_equal(_cores(r), want, err_msg=f"{G} p={p} {method}")
                assert r.params["partitions"] == p and r.params["implementation"] == "generic"
                runs += 1
    assert runs >= 120


def test_executors_equal_local(client):
    graphs = [dgraph.generate("rmat", scale=7, seed=5, directed=True), dgraph.generate("grid", rows=4, cols=9)]
    for G in graphs:
        want = _nx_cores(G)
        for p in (2, 3, 4):
            PG = G.partition(p, method=("range", "hash")[p % 2], client=client)
            for executor, exchange in (("tasks", "butterfly"), ("spmd", "all-to-all"), ("spmd", "butterfly")):
                r = dgraph.core_number(PG, self_loops="ignore", executor=executor, exchange=exchange)
                np.testing.assert_array_equal(_cores(r), want, err_msg=f"{G} p={p} {executor} {exchange}")
                assert r.params["executor"] == executor
    with pytest.raises(InputError, match="self loop"):   # the loops counted on the workers
        dgraph.core_number(graphs[0].partition(2, client=client), executor="spmd")


# -- CLI, pipeline, NetworkX backend ------------------------------------------------------------------

def test_cli(capsys, tmp_path):
    out_path = tmp_path / "cores.csv"
    rc = cli.main(["core_number", "--generate", "rmat:scale=6,seed=2", "--self-loops", "ignore", "-o", str(out_path)])
    out, _ = capsys.readouterr()
    G = dgraph.generate("rmat", scale=6, seed=2)
    want = _nx_cores(G)
    assert rc == 0 and f"largest core number {want.max()}, its {want.max()}-core" in out
    lines = out_path.read_text().splitlines()
    assert lines[0] == "vertex,core" and [int(x.split(",")[1]) for x in lines[1:]] == want.tolist()
    rc = cli.main(["core_number", "--generate", "rmat:scale=6,seed=2"])
    _, err = capsys.readouterr()
    assert rc == 2 and "self loop" in err and "self_loops='ignore'" in err
    rc = cli.main(["core_number", "--generate", "grid:rows=3,cols=4", "--partitions", "2"])
    out, _ = capsys.readouterr()
    assert rc == 0 and "largest core number 2, its 2-core 12 vertices" in out and "2 partitions" in out


def test_pipeline_step_and_main_core_subgraph():
    p = dgraph.Pipeline(graph={"generate": "rmat", "scale": 7, "seed": 7, "self_loops": False},
                        partition={"parts": 2})
    p.core_number("cores").subgraph("top", k_core_of="cores").core_number("inner", graph="top")
    assert "the main core (largest core number) of cores" in p.plan()
    run = p.run()
    G = dgraph.generate("rmat", scale=7, seed=7, self_loops=False)
    want = _nx_cores(G)
    np.testing.assert_array_equal(run["cores"].to_pandas()["core"].to_numpy(), want)
    assert run["top"].num_vertices == int((want == want.max()).sum())
    assert set(run["inner"].to_pandas()["core"]) == {int(want.max())}
    with pytest.raises(PipelineError, match="one of raise, ignore"):
        dgraph.Pipeline(graph={"generate": "grid", "rows": 3, "cols": 3}).core_number("c", self_loops="drop")
    with pytest.raises(PipelineError, match="k_core_of reads a core_number step"):
        dgraph.Pipeline(graph={"generate": "grid", "rows": 3, "cols": 3}).wcc("c").subgraph("s", k_core_of="c")


_K_CORE_YAML = """\
graph: {{source: {{generate: rmat, scale: 7, seed: 7, self_loops: false}}}}
steps:
  - {{name: cores, run: core_number}}
  - {{name: wc, run: wcc}}
  - name: top
    run: subgraph
    k_core_of: {sel}
"""


def _k_core_pipeline(sel, overrides=()):
    from dgraph.pipeline import load_pipeline  # noqa: PLC0415

    return load_pipeline("kc.yaml", overrides, text=_K_CORE_YAML.format(sel=sel))[0]


def test_pipeline_k_core_of_a_given_k():
    """``k_core_of: {step: cores, k: K}`` is ``dgraph.k_core(G, K)``: NetworkX's k-core for every k (0: the
    whole graph, above the largest core number: no vertices); ``k: null`` and the bare name the main core."""
    G = dgraph.generate("rmat", scale=7, seed=7, self_loops=False)
    H = G.to_networkx()
    top = int(_nx_cores(G).max())
    big = 2**63 - 1
    for sel, k in [("{step: cores, k: 2}", 2), ("{step: cores, k: 0}", 0), (f"{{step: cores, k: {top + 1}}}", top + 1),
                   (f"{{step: cores, k: {big}}}", big), ("{step: cores, k: null}", None),
                   ("{step: cores}", None), ("cores", None)]:
        p = _k_core_pipeline(sel)
        sub = p.run()["top"]
        want = set(nx.k_core(H, k).nodes)
        assert set(sub.vertex_ids().tolist()) == want, sel
        assert sub.num_edges == (G.subgraph(sorted(want)).num_edges if want else 0)
        plan = p.plan()
        assert (f"the {k}-core (core number >= {k}) of cores" if k is not None
                else "the main core (largest core number) of cores") in plan, plan
    assert 0 < len(nx.k_core(H, 2)) < G.num_vertices   # the k tried above tell the cores apart
    p = _k_core_pipeline("{step: cores, k: 1}", ["steps.top.k_core_of.k=3"])   # --set reaches into the mapping
    assert set(p.run()["top"].vertex_ids().tolist()) == set(nx.k_core(H, 3).nodes)
    p = dgraph.Pipeline(graph=G).core_number("c").subgraph("s", k_core_of={"step": "c", "k": 2})
    assert set(p.run()["s"].vertex_ids().tolist()) == set(nx.k_core(H, 2).nodes)


@pytest.mark.parametrize("sel, where, message", [
    ("{step: cores, k: -1}", "kc.yaml:7:30: steps[2].k_core_of.k", "expected a non-negative integer"),
    ("{step: cores, k: 2.5}", "kc.yaml:7:30: steps[2].k_core_of.k", "got float 2.5"),
    ("{step: cores, k: true}", "kc.yaml:7:30: steps[2].k_core_of.k", "got true/false True"),
    ("{step: cores, k: '3'}", "kc.yaml:7:30: steps[2].k_core_of.k", "got text '3'"),
    ("{step: cores, k: 9223372036854775808}", "kc.yaml:7:30: steps[2].k_core_of.k", "below 2**63"),
    ("{step: cores, k: [3]}", "kc.yaml:7:30: steps[2].k_core_of.k", "got a list"),
    ("{step: cores, kk: 3}", "kc.yaml:7:30: steps[2].k_core_of.kk", "unknown key in k_core_of; allowed: step, k"),
    ("{k: 3}", "kc.yaml:7:5: steps[2].k_core_of", "k_core_of needs step:"),
    ("{step: wc, k: 3}", "kc.yaml:7:17: steps[2].k_core_of.step", "step 'wc' ran wcc; k_core_of reads a core_number"),
    ("{step: nope, k: 3}", "kc.yaml:7:17: steps[2].k_core_of.step", "no earlier step named 'nope'"),
    ("{step: 3, k: 3}", "kc.yaml:7:17: steps[2].k_core_of.step", "expected the name of an earlier core_number step"),
    ("[cores, 3]", "kc.yaml:7:5: steps[2].k_core_of", "or {step: NAME, k: K}, got a list"),
])
def test_pipeline_k_core_of_bad(sel, where, message):
    with pytest.raises(PipelineError) as e:
        _k_core_pipeline(sel)
    assert str(e.value).startswith(where) and message in str(e.value), str(e.value)


def test_pipeline_k_core_of_a_later_step():
    from dgraph.pipeline import load_pipeline  # noqa: PLC0415

    text = ("graph: {source: {generate: grid, rows: 3, cols: 3}}\nsteps:\n"
            "  - {name: top, run: subgraph, k_core_of: {step: cores, k: 1}}\n  - {name: cores, run: core_number}\n")
    with pytest.raises(PipelineError, match=r"kc.yaml:3:44: steps\[0\].k_core_of.step: refers to step 'cores', which "
                                            r"comes later"):
        load_pipeline("kc.yaml", text=text)


@pytest.fixture
def nx_calls(monkeypatch):
    if "dgraph" not in nx.utils.backends.backends:
        pytest.skip("the dgraph NetworkX backend is not installed (pip install -e .)")
    monkeypatch.setattr(nx.config, "warnings_to_ignore", {"cache"})
    count = {"n": 0}
    real = dgraph.core_number

    def wrapper(*args, **kwargs):
        count["n"] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(dgraph, "core_number", wrapper)
    return count


def _nx_random(seed):
    import random

    r = random.Random(seed)
    n = r.randint(0, 30)
    G = nx.gnp_random_graph(n, r.choice([0.05, 0.15, 0.3, 0.6]), seed=seed, directed=r.random() < 0.5)
    if r.random() < 0.3:
        G = nx.relabel_nodes(G, {v: f"v{v}" for v in G})
    return G


def test_networkx_backend(nx_calls):
    for seed in range(40):
        G = _nx_random(seed)
        got = nx.core_number(G, backend="dgraph")
        assert got == nx.core_number(G) and list(got) == list(G), seed
        assert all(type(c) is int for c in got.values())
        if len(G):
            for k in (None, 1, 2.5):
                K, ref = nx.k_core(G, k, backend="dgraph"), nx.k_core(G, k)
                assert type(K) is type(ref) and list(K.nodes) == list(ref.nodes), (seed, k)
                assert _edge_set(K, G.is_directed()) == _edge_set(ref, G.is_directed()), (seed, k)
    assert nx_calls["n"] >= 40 + 30
    G = nx.havel_hakimi_graph([0, 1, 2, 2, 2, 2, 3])
    G.graph["name"] = "hh"
    G.nodes[1]["colour"] = "red"
    nx.set_edge_attributes(G, 7, "weight")
    K = nx.k_core(G, backend="dgraph")
    assert list(K.nodes(data=True)) == list(nx.k_core(G).nodes(data=True)) and K.graph == {"name": "hh"}
    assert {d["weight"] for _, _, d in K.edges(data=True)} == {7}
    given = {1: 5, 2: 4, 99: 9, 3: 1}                 # as NetworkX: nodes not in G are passed over
    assert list(nx.k_core(G, 4, core_number=given, backend="dgraph")) == [1, 2] == list(nx.k_core(G, 4, given))
    assert list(nx.k_core(G, core_number=given, backend="dgraph")) == [] == list(nx.k_core(G, core_number=given))
    G.add_edge(0, 0)
    for f in (nx.core_number, nx.k_core):
        with pytest.raises(nx.NetworkXNotImplemented, match="self loops"):
            f(G, backend="dgraph")
        with pytest.raises(nx.NetworkXNotImplemented, match="multigraph"):
            f(nx.MultiGraph([(0, 1)]), backend="dgraph")
    assert nx.core_number(nx.Graph(), backend="dgraph") == {}
    with pytest.raises(ValueError):                    # max() of no core numbers, as NetworkX
        nx.k_core(nx.Graph(), backend="dgraph")
    with pytest.raises(NotImplementedError, match="k_core"):
        nx.k_core(nx.path_graph(3), k="2", backend="dgraph")
