"""CDLP against an LDBC reference written from the spec, on every executor and partition count."""

from collections import Counter, defaultdict

import numpy as np
import pytest
from graphs import corpus
from ldbc import load, check_exact, reference, written

import dgraph
from dgraph.backend import to_numpy
from dgraph.errors import DGraphError

CASES = [(label, kw) for label, kw in corpus(110, seed=11)]


def _py(v):
    return v.item() if hasattr(v, "item") else v


def ldbc_cdlp(vertices, src, dst, *, directed, iterations, dedupe=True):
    """LDBC Graphalytics CDLP, following the reference implementation's graph model.

    The graph is built as the LDBC reference platform builds it: an
    undirected edge is loaded as two arcs u->v and v->u; every arc is added
    to its source's outgoing list and to its destination's incoming list,
    except that a self loop lands in its vertex's outgoing list twice (the
    Java PropertyGraph adds an edge to each endpoint, and a loop's endpoints
    are one vertex whose outgoing side it is).  A vertex counts the labels of
    the destinations of its outgoing arcs and of the sources of its incoming
    arcs; the most frequent wins, the smallest on a tie.  A vertex with no
    arcs keeps its label (the spec; the Java code would set it to 0).
    Duplicate edges collapse first when ``dedupe`` (dgraph's default).
    """
    vertices = [_py(v) for v in vertices]
    edges = [(_py(u), _py(v)) for u, v in zip(src, dst)]
    if dedupe:
        seen, unique = set(), []
        for u, v in edges:
            k = (u, v) if directed else (min(u, v), max(u, v))
            if k not in seen:
                seen.add(k)
                unique.append(k)
        edges = unique
    arcs = edges if directed else [a for u, v in edges for a in ((u, v), (v, u))]
    outgoing, incoming = defaultdict(list), defaultdict(list)
    for u, v in arcs:
        outgoing[u].append(v)
        if u == v:
            outgoing[v].append(u)
        else:
            incoming[v].append(u)
    labels = {v: v for v in vertices}
    for _ in range(iterations):
        new = {}
        for v in vertices:
            hist = Counter(labels[w] for w in outgoing[v] + incoming[v])
            if not hist:
                new[v] = labels[v]
                continue
            best = max(hist.values())
            new[v] = min(lab for lab, c in hist.items() if c == best)
        labels = new
    return [labels[v] for v in vertices]


def _reference(G, kw, iterations):
    return ldbc_cdlp(G.vertex_ids().tolist(), list(kw["src"]), list(kw["dst"]),
                     directed=kw.get("directed", False), iterations=iterations, dedupe=kw.get("dedupe", True))


def _labels(r):
    return [_py(x) for x in to_numpy(r.label).tolist()]


def test_matches_reference(backend):
    checked = 0
    for i, (name, kw) in enumerate(CASES):
        variants = [kw] if i % 3 else [kw, dict(kw, dedupe=False)]  # multi-edges count once per copy
        for kwv in variants:
            G = dgraph.from_edges(**kwv).to(backend)
            for it in range(1, 6):
                r = dgraph.cdlp(G, iterations=it)
                assert list(r.vertex.tolist()) == G.vertex_ids().tolist()
                assert _labels(r) == _reference(G, kwv, it), f"{name} dedupe={kwv.get('dedupe', True)} it={it}"
            checked += 1
    assert checked >= 100


def test_partitioned_matches_reference():
    """Partitioned (simulated in one process) on the odd and random graphs, against the reference."""
    for i, (name, kw) in enumerate(CASES):
        G = dgraph.from_edges(**kw)
        if G.num_vertices < 2:
            continue
        p = 2 + i % 3
        method = ("range", "hash")[i % 2]
        r = dgraph.cdlp(G.partition(min(p, G.num_vertices), method=method, client=False), iterations=3)
        assert _labels(r) == _reference(G, kw, 3), f"{name} p={p} {method}"


@pytest.mark.parametrize("kind", ["directed", "undirected"])
def test_ldbc_reference(kind, tmp_path):
    G, _ = load(kind)
    ref = reference(kind, "CDLP")
    for p in (1, 2, 3, 4):
        target = G if p == 1 else G.partition(p, client=False)
        r = dgraph.cdlp(target, iterations=2)
        check_exact(written(r, "label", tmp_path, f"CDLP-{kind}-{p}"), ref)


def test_partitions_equal_single():
    for directed in (True, False):
        G = dgraph.generate("rmat", scale=9, seed=3, directed=directed)
        ref = dgraph.cdlp(G, iterations=10).label
        for p in (2, 3, 4):
            for method in ("range", "hash", "metis"):
                for exchange in ("butterfly", "all-to-all"):
                    r = dgraph.cdlp(G.partition(p, method=method, client=False), iterations=10, exchange=exchange)
                    np.testing.assert_array_equal(r.label, ref, err_msg=f"directed={directed} p={p} {method}")


def test_tie_goes_to_smallest_user_id():
    """Sparse ids are renumbered; the smallest label is the smallest *user* id."""
    big = 10**12
    # hub 50 has leaves big+3, 7, big: one of each label, so it takes the smallest user id, 7
    G = dgraph.from_edges([50, 50, 50], [big + 3, 7, big], renumber=True)
    r = dgraph.cdlp(G, iterations=1)
    assert r.value(50, "label") == 7
    assert r.value(big + 3, "label") == 50 and r.value(big, "label") == 50
    # negative ids: -9 is smallest
    G = dgraph.from_edges([0, 0, 0], [-9, 4, -2])
    assert dgraph.cdlp(G, iterations=1).value(0, "label") == -9
    # strings: "apple" < "pear" < "zebra"
    G = dgraph.from_edges(["hub"] * 3, ["pear", "zebra", "apple"])
    assert dgraph.cdlp(G, iterations=1).value("hub", "label") == "apple"


@pytest.mark.parametrize("directed", [True, False])
def test_relabeling_maps_labels(directed):
    """An order-preserving relabeling maps the labels through; any relabeling matches the reference."""
    rng = np.random.default_rng(7)
    src, dst = rng.integers(0, 40, 150), rng.integers(0, 40, 150)
    base = dgraph.cdlp(dgraph.from_edges(src, dst, directed=directed, num_vertices=40), iterations=4)
    f = lambda v: 10**12 + 1000 * np.asarray(v, dtype=np.int64)  # noqa: E731
    G = dgraph.from_edges(f(src), f(dst), directed=directed, vertices=f(np.arange(40)))
    r = dgraph.cdlp(G, iterations=4)
    np.testing.assert_array_equal(r.vertex, f(base.vertex))
    np.testing.assert_array_equal(r.label, f(base.label))
    perm = rng.permutation(40) * 13 + 5  # not order-preserving
    kw = dict(src=perm[src], dst=perm[dst], directed=directed, vertices=perm, renumber=True)
    G = dgraph.from_edges(**kw)
    assert _labels(dgraph.cdlp(G, iterations=4)) == _reference(G, kw, 4)


@pytest.mark.parametrize("directed", [True, False])
def test_self_loop_counts_twice(directed):
    # vertex 2: neighbors 0 and 1 once each, and itself through the loop twice -> keeps label 2
    kw = dict(src=[0, 1, 2], dst=[2, 2, 2], directed=directed)
    G = dgraph.from_edges(**kw)
    r = dgraph.cdlp(G, iterations=1)
    assert r.value(2, "label") == 2
    assert _labels(r) == _reference(G, kw, 1)
    # a second iteration, where neighbors' labels may tie with the loop's double count
    kw = dict(src=[0, 1, 3, 2, 4, 4], dst=[2, 2, 2, 2, 1, 3], directed=directed)
    G = dgraph.from_edges(**kw)
    assert _labels(dgraph.cdlp(G, iterations=2)) == _reference(G, kw, 2)
    # an undirected loop listed twice (dedupe=False) counts four times
    kw = dict(src=[0, 0, 1, 1, 1], dst=[0, 0, 0, 2, 3], directed=directed, dedupe=False)
    G = dgraph.from_edges(**kw)
    assert _labels(dgraph.cdlp(G, iterations=3)) == _reference(G, kw, 3)


def test_both_directions_count_twice():
    # 0 <-> 1 and 2 -> 0, 3 -> 0: for vertex 0, label 1 counts twice, 2 and 3 once -> 1
    G = dgraph.from_edges([0, 1, 2, 3], [1, 0, 0, 0], directed=True)
    assert dgraph.cdlp(G, iterations=1).value(0, "label") == 1
    # only one direction: all once, smallest wins
    G = dgraph.from_edges([0, 2, 3], [1, 0, 0], directed=True)
    assert dgraph.cdlp(G, iterations=1).value(0, "label") == 1
    G = dgraph.from_edges([1, 2, 3, 0], [0, 0, 0, 3], directed=True)
    assert dgraph.cdlp(G, iterations=1).value(0, "label") == 3


def test_iterations_zero_isolated_and_fixed_point():
    # a triangle and two isolated vertices
    G = dgraph.from_edges([0, 1, 2], [1, 2, 0], num_vertices=5)
    r = dgraph.cdlp(G, iterations=0)
    np.testing.assert_array_equal(r.label, np.arange(5))
    assert r.supersteps == 0
    # [1, 0, 0] -> [0, 0, 0] -> unchanged: the run stops at the fixed point
    r = dgraph.cdlp(G, iterations=50)
    np.testing.assert_array_equal(r.label, [0, 0, 0, 3, 4])  # isolated vertices keep their own label
    assert r.supersteps == 3
    assert r.stats["changed"].tolist() == [3, 1, 0]
    assert r.params["iterations"] == 50
    # a path is bipartite: synchronous updates oscillate and every iteration runs
    G = dgraph.from_edges([0, 1], [1, 2])
    for it, want in ((1, [1, 0, 1]), (2, [0, 1, 0]), (7, [1, 0, 1])):
        steps = []
        np.testing.assert_array_equal(dgraph.cdlp(G, iterations=it, on_step=steps.append).label, want)
        assert len(steps) == it


def test_empty_graph():
    r = dgraph.cdlp(dgraph.from_edges([], [], num_vertices=0), iterations=3)
    assert len(r.vertex) == 0 and len(r.label) == 0


def test_bad_arguments():
    G = dgraph.from_edges([0, 1], [1, 2])
    for bad in (-1, 1.5, "3", True, None):
        with pytest.raises(DGraphError, match="iterations"):
            dgraph.cdlp(G, iterations=bad)
    with pytest.raises(DGraphError, match="executor"):
        dgraph.cdlp(G, executor="spmd")


# -- on a Dask cluster -----------------------------------------------------------------------------

def test_executors_equal_local(client):
    # the odd graphs with 3+ vertices (duplicates, self loops, string/negative/sparse ids...) and random ones
    graphs = [kw for _, kw in CASES[6:20] if dgraph.from_edges(**kw).num_vertices >= 3]
    assert len(graphs) >= 12
    for kw in graphs:
        G = dgraph.from_edges(**kw)
        ref = dgraph.cdlp(G, iterations=4)
        for p in (2, 3):
            PG = G.partition(p, method="hash" if p == 3 else "range", client=client)
            for executor in ("tasks", "spmd"):
                r = dgraph.cdlp(PG, iterations=4, executor=executor)
                assert _labels(r) == _labels(ref), f"{kw} p={p} {executor}"
                assert r.params["executor"] == executor
    G = dgraph.generate("rmat", scale=8, seed=5, directed=True)
    ref = dgraph.cdlp(G, iterations=6).label
    PG = G.partition(3, method="metis", client=client)
    for executor in ("tasks", "spmd"):
        for exchange in ("butterfly", "all-to-all"):
            r = dgraph.cdlp(PG, iterations=6, executor=executor, exchange=exchange)
            np.testing.assert_array_equal(r.label, ref, err_msg=f"{executor} {exchange}")


# -- fused numba kernel against the vectorized (generic) step ---------------------------------------

def _fused_generic(target, it):
    f = dgraph.cdlp(target, iterations=it, kernels="fused")
    g = dgraph.cdlp(target, iterations=it, kernels="generic")
    return f, g


def _assert_same(f, g, msg):
    np.testing.assert_array_equal(f.raw("label"), g.raw("label"), err_msg=msg)
    assert f.raw("label").dtype == g.raw("label").dtype, msg
    assert f.supersteps == g.supersteps, msg
    assert f.stats["changed"].tolist() == g.stats["changed"].tolist(), msg


def _loopy(rng, directed):
    """A random multigraph heavy in self loops and duplicate edges."""
    n = int(rng.integers(2, 40))
    m = int(rng.integers(1, 6 * n))
    src = rng.integers(0, n, m)
    dst = np.where(rng.random(m) < 0.3, src, rng.integers(0, n, m))
    rep = rng.integers(1, 4, m)
    return dict(src=np.repeat(src, rep), dst=np.repeat(dst, rep), directed=directed, num_vertices=n + 2)


def test_fused_equals_generic():
    rng = np.random.default_rng(23)
    graphs = [(name, kw) for name, kw in corpus(90, seed=29)]
    graphs += [(f"loopy-{i}", _loopy(rng, bool(i % 2))) for i in range(30)]
    checked = 0
    for i, (name, kw) in enumerate(graphs):
        for dedupe in (True, False):
            G = dgraph.from_edges(**dict(kw, dedupe=dedupe))
            for it in (1, 2, 5, 12):
                f, g = _fused_generic(G, it)
                _assert_same(f, g, f"{name} dedupe={dedupe} it={it}")
            if G.num_vertices >= 2:
                p = min(2 + i % 3, G.num_vertices)
                method = ("range", "hash")[i % 2]
                f, g = _fused_generic(G.partition(p, method=method, client=False), 4)
                _assert_same(f, g, f"{name} dedupe={dedupe} p={p} {method}")
                np.testing.assert_array_equal(f.raw("label"), dgraph.cdlp(G, iterations=4).raw("label"))
            checked += 1
    assert checked >= 200


@pytest.mark.parametrize("directed", [True, False])
def test_fused_equals_generic_rmat(directed):
    for scale, seed in ((8, 1), (10, 2), (11, 3)):
        G = dgraph.generate("rmat", scale=scale, seed=seed, directed=directed)
        f, g = _fused_generic(G, 10)
        _assert_same(f, g, f"rmat {scale} directed={directed}")
        for p, method in ((3, "range"), (4, "hash"), (2, "metis")):
            f, g = _fused_generic(G.partition(p, method=method, client=False), 6)
            _assert_same(f, g, f"rmat {scale} directed={directed} p={p} {method}")


def test_fused_self_loops_and_hub():
    """A hub whose loop (twice), multi-edges and in/out arcs decide ties: fused and generic agree."""
    for directed in (True, False):
        src = [0, 0, 0, 0, 0, 1, 2, 3, 3, 4, 5]
        dst = [0, 0, 1, 2, 3, 0, 0, 0, 4, 0, 5]
        for dedupe in (True, False):
            G = dgraph.from_edges(src, dst, directed=directed, dedupe=dedupe, num_vertices=7)
            for it in range(1, 6):
                f, g = _fused_generic(G, it)
                _assert_same(f, g, f"directed={directed} dedupe={dedupe} it={it}")


def test_bad_kernels():
    with pytest.raises(DGraphError, match="kernels"):
        dgraph.cdlp(dgraph.from_edges([0], [1]), kernels="cuda")


def test_small_row_modes_exhaustive():
    """The fused kernel's mode of a row of 1..4 labels (sorting networks, and the register path for
    rows of at most four out-neighbors) against counting, on every tuple over four values, and the
    insertion-sort / hash paths on random rows of 5..40 labels with many repeats."""
    import itertools

    from dgraph.algorithms.cdlp import cpu as cpu_cdlp

    def ref(xs):
        c = Counter(xs)
        top = max(c.values())
        return min(x for x in c if c[x] == top)

    keys, counts, stamps = np.empty(128, np.int64), np.empty(128, np.int64), np.zeros(128, np.int64)
    tag = 0

    def mode(sc, k):
        nonlocal tag
        tag += 1  # each row a new tag: the table is never cleared
        return cpu_cdlp._mode(sc, k, keys, counts, stamps, tag)

    checked = 0
    for k in range(1, 5):
        for xs in itertools.product(range(4), repeat=k):
            sc = np.array(xs + (0,) * (8 - k), np.int32)
            assert mode(sc, k) == ref(xs), xs
            checked += 1
    for xs in itertools.product(range(4), repeat=4):
        assert cpu_cdlp._mode4(*(np.int32(x) for x in xs)) == ref(xs), xs
    for xs in itertools.product(range(3), repeat=3):
        assert cpu_cdlp._mode3(*(np.int64(x) for x in xs)) == ref(xs), xs
    rng = np.random.default_rng(7)
    for _ in range(300):
        k = int(rng.integers(5, 41))
        xs = rng.integers(0, int(rng.integers(1, 12)), k).astype(np.int32)
        assert mode(xs.copy(), k) == ref(xs.tolist())
        checked += 1
    assert checked == 4 + 16 + 64 + 256 + 300


def test_register_rows_with_loops_and_degree_one_to_four():
    """Rows of one to four out-neighbors take the register path unless one is a loop (which counts
    twice): a graph of such rows, with loops and multi-edges placed on them, equals the generic path."""
    rng = np.random.default_rng(41)
    for trial in range(40):
        n = int(rng.integers(2, 60))
        deg = rng.integers(0, 5, n)
        src = np.repeat(np.arange(n), deg)
        dst = rng.integers(0, n, len(src))
        loops = rng.random(len(src)) < 0.1
        dst[loops] = src[loops]
        G = dgraph.from_edges(src, dst, directed=bool(trial % 2), dedupe=False, num_vertices=n)
        for it in (1, 3, 7):
            f, g = _fused_generic(G, it)
            _assert_same(f, g, f"trial {trial} it={it}")


def test_one_function_chooses_the_implementation_and_the_result_records_it(monkeypatch):
    """cdlp.implementation() decides once; Result.params names it; the solver loop runs only when chosen."""
    from dgraph.algorithms.cdlp import CDLP, IMPLEMENTATIONS, implementation, solver
    from dgraph.engine.run import run_program

    table = {("numpy", "fused", True): "cpu-numba+steps", ("numpy", "fused", False): "cpu-numba",
             ("numpy", "generic", True): "generic", ("cupy", "fused", True): "gpu-fused+steps",
             ("cupy", "fused", False): "gpu-fused", ("cupy", "generic", True): "generic"}
    for args, name in table.items():
        assert implementation(*args) == name, args
    assert set(table.values()) == set(IMPLEMENTATIONS)
    assert implementation("numpy", "fused", True, local=False) == "cpu-numba"  # tasks/spmd: no run_steps
    looped = []
    real = solver.run_steps
    monkeypatch.setattr(solver, "run_steps", lambda *a: (lambda out: looped.append(out is not None) or out)(real(*a)))
    G = dgraph.generate("rmat", scale=7, seed=7)
    runs = {name: dgraph.cdlp(target, iterations=4, kernels=k) for name, target, k in
            [("cpu-numba+steps", G, "fused"), ("cpu-numba", G.partition(2, client=False), "fused"),
             ("generic", G, "generic")]}
    for name, r in runs.items():
        assert r.params["implementation"] == name
        assert np.array_equal(r.raw("label"), runs["generic"].raw("label"))
    assert looped[0] and not any(looped[1:])  # one batch, of the whole-shard run only
    plain = run_program(lambda ids: CDLP(4), G)
    assert np.array_equal(plain.raw("label"), runs["generic"].raw("label")) and looped.count(True) == 2


def test_one_partition_on_dask_records_the_superstep_kernel(client):
    """spmd and tasks never call run_steps, so one whole shard there is 'cpu-numba' (same labels)."""
    G = dgraph.generate("rmat", scale=7, seed=7)
    ref = dgraph.cdlp(G, iterations=4)
    PG = G.partition(1, client=client)
    for executor in ("spmd", "tasks"):
        r = dgraph.cdlp(PG, iterations=4, executor=executor)
        assert r.params["implementation"] == "cpu-numba" and r.params["executor"] == executor
        np.testing.assert_array_equal(to_numpy(r.raw("label")), ref.raw("label"))
    assert ref.params["implementation"] == "cpu-numba+steps"
    assert dgraph.cdlp(PG, iterations=4, executor="local").params["implementation"] == "cpu-numba+steps"


def test_gpu_table_sizes_are_the_powers_of_two_the_loop_gave():
    """cdlp/gpu.py sizes the hub rows' global tables in one vectorized pass, not a Python call a hub
    row: the same sizes as the loop."""
    from dgraph.algorithms.cdlp.gpu import pow2_at_least

    def _pow2_at_least(x):
        p = 1
        while p < x:
            p *= 2
        return p

    xs = np.concatenate([np.arange(1, 5000), 2 ** np.arange(0, 52), 2 ** np.arange(1, 52) + 1,
                         2 ** np.arange(2, 52) - 1]).astype(np.int64)
    assert pow2_at_least(xs).tolist() == [_pow2_at_least(int(x)) for x in xs]


def test_graphs_and_shards_pickle_without_what_runs_cached_on_them():
    """A GPU run keeps CDLP's plan (and BFS its peer memory) on the graph or shard; pickling either
    (a user saving a graph, Dask moving a shard) leaves the cache behind, to be made again there."""
    import pickle

    from dgraph.algorithms.cdlp.gpu import Plan
    from dgraph.partition.shard import whole_graph_shard

    G = dgraph.from_edges(np.concatenate([np.zeros(3000, dtype=np.int64), np.arange(1, 60)]),
                          np.concatenate([np.arange(1, 3001), np.arange(2, 61)]))
    sh = whole_graph_shard(G)
    plan = sh.cached("cdlp-plan", lambda: Plan(sh.indptr, sh.indices, None, None, False, 0, sh.rows))
    assert any(name == "table_global" for name, *_ in plan.launches)  # the hub's offsets, on numpy here
    assert pickle.loads(pickle.dumps(plan)).launches[0][0] == plan.launches[0][0]
    H = pickle.loads(pickle.dumps(G))
    assert H.memo("cdlp-plan", None) is None and G.memo("cdlp-plan", None) is plan
    assert H.indptr.tolist() == G.indptr.tolist()
    part = G.partition(2, client=False).local_shards()[0]
    part.cached("thing", lambda: (lambda: None))  # a lambda: does not pickle
    back = pickle.loads(pickle.dumps(part))
    assert back.cached("thing", None) is None and back.num_rows == part.num_rows
