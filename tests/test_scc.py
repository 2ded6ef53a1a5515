"""Strongly connected components against scipy and NetworkX, on every executor and partition count.

The label of a vertex is the smallest vertex id of its strongly connected component (in the
user's ids), so every run (backend, kernels, executor, partitions) must give exactly the same
labels.  References: ``scipy.sparse.csgraph.connected_components(connection="strong")`` mapped to
each component's smallest id, and ``networkx.strongly_connected_components`` (``connected_components``
for an undirected graph, whose edges go both ways).
"""

import networkx as nx
import numpy as np
import pytest
import scipy.sparse.csgraph as cg
from graphs import corpus, random_graph

import dgraph
from dgraph.algorithms.scc import implementation
from dgraph.backend import to_numpy


def _directed_odd():
    """Directed graphs where SCC algorithms go wrong: long cycles, DAGs, descending paths, chains
    of cycles (one coloring round per cycle), self loops and duplicate arcs."""
    n = 30
    ring = np.arange(n)
    yield "long-cycle", dict(src=ring, dst=(ring + 1) % n, directed=True)
    yield "long-cycle-desc", dict(src=(ring + 1) % n, dst=ring, directed=True)
    yield "path-desc", dict(src=np.arange(n - 1, 0, -1), dst=np.arange(n - 2, -1, -1), directed=True)
    yield "path-asc", dict(src=np.arange(n - 1), dst=np.arange(1, n), directed=True)
    rng = np.random.default_rng(2)
    a, b = rng.integers(0, n, 80), rng.integers(0, n, 80)
    yield "dag", dict(src=np.minimum(a, b)[a != b], dst=np.maximum(a, b)[a != b], num_vertices=n, directed=True)
    yield "dag-desc", dict(src=np.maximum(a, b)[a != b], dst=np.minimum(a, b)[a != b], num_vertices=n,
                           directed=True)
    # 2-cycles {2k, 2k+1}, each feeding the next: every cycle is reached from all earlier ones
    k = np.arange(10)
    yield "cycle-chain", dict(src=np.concatenate([2 * k, 2 * k + 1, 2 * k[:-1] + 1]),
                              dst=np.concatenate([2 * k + 1, 2 * k, 2 * k[1:]]), directed=True)
    yield "cycle-chain-back", dict(src=np.concatenate([2 * k, 2 * k + 1, 2 * k[1:]]),
                                   dst=np.concatenate([2 * k + 1, 2 * k, 2 * k[:-1] + 1]), directed=True)
    yield "self-loops-dag", dict(src=[0, 0, 1, 1, 2, 2], dst=[0, 1, 1, 2, 2, 2], directed=True)
    yield "duplicates-cycle", dict(src=[0, 0, 1, 1, 2, 2, 2], dst=[1, 1, 2, 2, 0, 0, 3], directed=True,
                                   num_vertices=5)
    yield "figure-eight", dict(src=[0, 1, 2, 2, 3, 4, 5], dst=[1, 2, 0, 3, 4, 2, 5], directed=True)
    yield "two-way-star", dict(src=[0] * 6 + list(range(1, 7)), dst=list(range(1, 7)) + [0] * 6, directed=True)
    yield "string-ids-cycle", dict(src=["b", "c", "a", "a", "x"], dst=["c", "a", "b", "x", "y"], directed=True)
    yield "negative-ids", dict(src=[-5, -1, 7, 100], dst=[-1, 7, -5, 7], directed=True)


def cycle_dag(rng):
    """Cycles of 1-5 vertices joined by random arcs that follow one order of the cycles (a DAG of
    components), the vertex ids shuffled: colors of one round cross many components, and a vertex
    often reaches a root it is not reached from."""
    sizes = rng.integers(1, 6, size=int(rng.integers(1, 12)))
    starts = np.concatenate([[0], np.cumsum(sizes)])
    n = int(starts[-1])
    src, dst = [], []
    for a, b in zip(starts[:-1], starts[1:]):
        ring = np.arange(a, b)
        if b - a > 1 or rng.random() < 0.5:
            src.append(ring)
            dst.append(np.roll(ring, -1))
    k = int(rng.integers(0, 3 * len(sizes) + 1))
    u, v = rng.integers(0, n, k), rng.integers(0, n, k)
    group = np.searchsorted(starts, np.arange(n), side="right") - 1
    forward = group[u] < group[v]
    src.append(u[forward])
    dst.append(v[forward])
    perm = rng.permutation(n)
    return dict(src=perm[np.concatenate(src)], dst=perm[np.concatenate(dst)], num_vertices=n, directed=True)


def _cases():
    yield from corpus(105, seed=23)          # the shared odd ones, then random graphs, both kinds
    yield from _directed_odd()
    rng = np.random.default_rng(31)
    for i in range(40):                      # directed: sparse ones have many small components
        yield f"directed-{i}", random_graph(rng, directed=True)
    for i in range(40):
        yield f"cycle-dag-{i}", cycle_dag(rng)


CASES = list(_cases())


def scipy_labels(G):
    """Internal-id labels from scipy: each strong component's smallest internal id."""
    n = G.num_vertices
    if n == 0:
        return np.empty(0, np.int64)
    _, lab = cg.connected_components(G.to_scipy(), directed=True, connection="strong")
    smallest = np.full(lab.max() + 1, n)
    np.minimum.at(smallest, lab, np.arange(n))
    return smallest[lab]


def nx_labels(G):
    """{user vertex: smallest user id of its component}, from NetworkX."""
    g = G.to("numpy").to_networkx()
    comps = nx.strongly_connected_components(g) if g.is_directed() else nx.connected_components(g)
    return {v: min(c) for c in comps for v in c}


def _labels(r):
    return dict(zip(r.vertex.tolist(), to_numpy(r.component).tolist()))


def test_matches_scipy_and_networkx(backend):
    checked = 0
    for label, kw in CASES:
        G = dgraph.from_edges(**kw).to(backend)
        want = scipy_labels(G)
        want_nx = nx_labels(G)
        for kernels in ("fused", "generic"):
            r = dgraph.scc(G, kernels=kernels)
            what = f"{label}, kernels={kernels}"
            assert len(r.vertex) == G.num_vertices, what
            np.testing.assert_array_equal(to_numpy(r.raw("component")), want, err_msg=what)
            assert _labels(r) == want_nx, what
        checked += 1
    assert checked >= 100


def test_partitioned_equals_single_locally():
    """Every partition count 1-4, range and hash, both kernels, in one process: the same labels."""
    checked = 0
    for label, kw in CASES[::3]:
        G = dgraph.from_edges(**kw)
        want = scipy_labels(G)
        for p in range(1, min(4, max(G.num_vertices, 1)) + 1):
            for method in ("range", "hash"):
                P = G.partition(p, method=method, client=False)
                for kernels in ("fused", "generic"):
                    r = dgraph.scc(P, kernels=kernels)
                    what = f"{label}, p={p} {method}, kernels={kernels}"
                    np.testing.assert_array_equal(to_numpy(r.raw("component")), want, err_msg=what)
                    whole = p == 1 and method == "range"
                    assert r.params["implementation"] == implementation("numpy", kernels, whole), what
        checked += 1
    assert checked >= 50


@pytest.mark.parametrize("executor", ["tasks", "spmd"])
def test_executors_equal_single(client, executor):
    names = {"figure-eight", "path-desc", "dag", "string-ids-cycle"}
    if executor == "spmd":   # 140 supersteps: a chain of cycles takes a coloring round per cycle
        names.add("cycle-chain")
    graphs = [(label, kw) for label, kw in CASES if label in names]
    graphs += [("random", random_graph(np.random.default_rng(41), n=40, directed=True)),
               ("random-undirected", random_graph(np.random.default_rng(50), n=30, directed=False))]
    for label, kw in graphs:
        G = dgraph.from_edges(**kw)
        want = _labels(dgraph.scc(G))
        assert want == nx_labels(G), label
        for p in range(1, min(4, G.num_vertices) + 1):
            method = ("range", "hash")[(p + len(label)) % 2]
            P = G.partition(p, method=method, client=client)
            kernels = ("fused", "generic")[(p + len(label) // 2) % 2]   # both kinds of step, both methods
            r = dgraph.scc(P, executor=executor, kernels=kernels)
            assert _labels(r) == want, f"{label}, {executor}, p={p} {method}, kernels={kernels}"
            assert r.params["executor"] == executor and r.params["partitions"] == p
            assert r.params["implementation"] == implementation("numpy", kernels, p == 1 and method == "range")


def test_odd_cases():
    empty = dgraph.scc(dgraph.from_edges([], [], num_vertices=0, directed=True))
    assert len(empty.component) == 0 and empty.supersteps == 0
    assert dgraph.scc(dgraph.from_edges([], [], num_vertices=1, directed=True)).component.tolist() == [0]
    assert dgraph.scc(dgraph.from_edges([0], [0], directed=True)).component.tolist() == [0]
    r = dgraph.scc(dgraph.from_edges([0, 1, 1, 2], [1, 0, 2, 3], directed=True, num_vertices=6))
    assert r.component.tolist() == [0, 0, 2, 3, 4, 5]
    r = dgraph.scc(dgraph.from_edges(["b", "c", "a", "a", "x"], ["c", "a", "b", "x", "y"], directed=True))
    assert _labels(r) == {"a": "a", "b": "a", "c": "a", "x": "x", "y": "y"}
    # undirected: the connected components, as dgraph.wcc labels them
    U = dgraph.from_edges([0, 1, 3], [1, 2, 4], num_vertices=6)
    for kernels in ("fused", "generic"):
        assert dgraph.scc(U, kernels=kernels).component.tolist() == dgraph.wcc(U).component.tolist() \
            == [0, 0, 0, 3, 3, 5]


def test_trimming_and_stats():
    """A DAG is peeled by trimming alone (no coloring); a cycle needs one coloring round."""
    n = 50
    path = dgraph.from_edges(np.arange(n - 1, 0, -1), np.arange(n - 2, -1, -1), directed=True)
    r = dgraph.scc(path, kernels="generic")
    assert r.component.tolist() == list(range(n))
    s = r.stats
    assert set(s["phase"]) == {"init", "trim"}
    assert s["trimmed"].sum() == n and s["components"].iloc[-1] == n and s["active"].iloc[-1] == 0
    assert r.supersteps <= n // 2 + 2          # two ends peeled a superstep
    cyc = dgraph.from_edges(np.arange(n), (np.arange(n) + 1) % n, directed=True)
    for kernels in ("generic", "fused"):
        r = dgraph.scc(cyc.partition(2, client=False), kernels=kernels)
        assert r.component.tolist() == [0] * n
        s = r.stats
        assert s["trimmed"].sum() == 0 and s["found"].sum() == n and s["components"].iloc[-1] == 1
        assert list(s["phase"].iloc[:2]) == ["init", "color"] and s["phase"].iloc[-1] == "back"
    # self loops do not keep a vertex from being trimmed: a DAG with loops on every vertex
    loops = dgraph.from_edges([0, 0, 1, 1, 2, 2, 3], [0, 1, 1, 2, 2, 3, 3], directed=True)
    for kernels in ("generic", "fused"):
        r = dgraph.scc(loops.partition(2, method="hash", client=False), kernels=kernels)
        assert r.component.tolist() == [0, 1, 2, 3]
        assert set(r.stats["phase"]) == {"init", "trim"} and r.stats["trimmed"].sum() == 4, kernels
    r = dgraph.scc(cyc)
    assert r.params["implementation"] == "cpu-tarjan" and r.supersteps == 1
    assert r.stats["components"].iloc[-1] == 1 and r.stats["phase"].iloc[0] == "tarjan"


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(3))
def test_bigger_graphs_every_partition_count(backend, seed):
    """R-MAT (one big component, many trimmed vertices) and a sparse uniform graph (many small
    components), 1-4 partitions, both kernels, against scipy."""
    graphs = [dgraph.generate("rmat", scale=11, seed=seed, directed=True),
              dgraph.generate("uniform", num_vertices=3000, num_edges=4500, seed=seed, directed=True)]
    for G in graphs:
        want = scipy_labels(G)
        for p in (1, 2, 3, 4):
            T = G.to(backend) if p == 1 else G.partition(p, method=("range", "hash")[p % 2], client=False,
                                                         backend=backend)
            for kernels in ("fused", "generic"):
                got = to_numpy(dgraph.scc(T, kernels=kernels).raw("component"))
                np.testing.assert_array_equal(got, want, err_msg=f"{G.name} p={p} {kernels}")


def test_tarjan_deep_graph():
    """A path of 200,000 vertices inside one cycle: the explicit stack never recurses."""
    n = 200_000
    rng = np.random.default_rng(4)
    perm = rng.permutation(n)
    src = np.concatenate([perm, perm[:1000]])
    dst = np.concatenate([np.roll(perm, -1), perm[1000:2000]])
    r = dgraph.scc(dgraph.from_edges(src, dst, directed=True))
    assert (to_numpy(r.raw("component")) == 0).all()
    G = dgraph.from_edges(perm[:-1], perm[1:], directed=True, num_vertices=n)   # a path: n singletons
    assert (to_numpy(dgraph.scc(G).raw("component")) == np.arange(n)).all()


def test_bad_arguments():
    G = dgraph.from_edges([0, 1], [1, 0], directed=True)
    with pytest.raises(dgraph.InputError, match="kernels"):
        dgraph.scc(G, kernels="tarjan")
    with pytest.raises(dgraph.InputError, match="executor"):
        dgraph.scc(G, executor="threads")
    with pytest.raises(dgraph.InputError, match="executor='tasks' runs on a partitioned graph"):
        dgraph.scc(G, executor="tasks")
    with pytest.raises(dgraph.InputError, match="expected a dgraph.Graph"):
        dgraph.scc([[0, 1]])


def test_cupy_partitioned_equals_numpy(backend):
    """CuPy (``-m gpu``): 'fwbw' on one whole shard, the vectorized supersteps on 2-4 shards in one
    process: scipy's labels."""
    for label, kw in CASES[::4]:
        G = dgraph.from_edges(**kw)
        want = scipy_labels(G)
        for p in range(1, min(4, max(G.num_vertices, 1)) + 1):
            target = G.to(backend) if p == 1 else G.partition(p, method=("range", "hash")[p % 2], client=False,
                                                               backend=backend)
            r = dgraph.scc(target)
            assert r.params["implementation"] == implementation(backend, "fused", p == 1)
            np.testing.assert_array_equal(to_numpy(r.raw("component")), want, err_msg=f"{label}, p={p}")


def test_cli_subcommand(capsys, tmp_path):
    from dgraph.cli import main

    out = tmp_path / "scc.csv"
    rc = main(["scc", "--generate", "rmat:scale=7,seed=3", "--directed", "--partitions", "3", "--method", "hash",
               "-o", str(out)])
    stdout = capsys.readouterr().out
    G = dgraph.generate("rmat", scale=7, seed=3, directed=True)
    want = dgraph.scc(G).to_pandas()
    count = want.component.nunique()
    assert rc == 0 and f"scc {count} strongly connected components" in stdout and "3 partitions" in stdout
    import pandas as pd

    got = pd.read_csv(out)
    np.testing.assert_array_equal(got.vertex, want.vertex)
    np.testing.assert_array_equal(got.component, want.component)
    assert count == len({frozenset(c) for c in nx.strongly_connected_components(G.to_networkx())})


def test_pipeline_step(tmp_path):
    G = dgraph.generate("rmat", scale=6, seed=5, directed=True)
    p = dgraph.Pipeline(graph=G)
    p.scc("strong", kernels="generic").output("strong", "strong.csv")
    assert "scc(kernels='generic')" in p.plan()
    out = p.run(results=tmp_path / "r")
    np.testing.assert_array_equal(to_numpy(out["strong"].raw("component")), scipy_labels(G))
    assert (tmp_path / "r" / "strong.csv").is_file() and (tmp_path / "r" / "plots" / "strong.png").is_file()
    with pytest.raises(dgraph.PipelineError, match="kernels"):
        dgraph.Pipeline(graph=G).scc("s", kernels="tarjan")


# -- the NetworkX backend (cases from NetworkX's test_strongly_connected.py) ----------------------

NX_CASES = [
    (nx.DiGraph([(1, 2), (2, 3), (2, 8), (3, 4), (3, 7), (4, 5), (5, 3), (5, 6), (7, 4), (7, 6), (8, 1), (8, 7)]),
     {frozenset([3, 4, 5, 7]), frozenset([1, 2, 8]), frozenset([6])}),
    (nx.DiGraph([(1, 2), (1, 3), (1, 4), (4, 2), (3, 4), (2, 3)]), {frozenset([2, 3, 4]), frozenset([1])}),
    (nx.DiGraph([(1, 2), (2, 3), (3, 2), (2, 1)]), {frozenset([1, 2, 3])}),
    (nx.DiGraph({0: [1], 1: [2, 3], 2: [4, 5], 3: [4, 5], 4: [6], 5: [], 6: []}), {frozenset([v]) for v in range(7)}),
    (nx.DiGraph({0: [1], 1: [2, 3, 4], 2: [0, 3], 3: [4], 4: [3]}), {frozenset([0, 1, 2]), frozenset([3, 4])}),
]


def _nx_random(seed):
    import random

    r = random.Random(seed)
    n = r.randint(0, 40)
    G = nx.gnp_random_graph(n, r.choice([0.03, 0.06, 0.1, 0.2]), seed=seed, directed=True)
    if n and r.random() < 0.5:
        G.add_edges_from((v, v) for v in r.sample(range(n), min(3, n)))
    if r.random() < 0.3:
        G = nx.relabel_nodes(G, {v: f"v{v}" for v in G})
    nodes, edges = list(G), list(G.edges())
    r.shuffle(nodes)   # NetworkX's order follows the node and neighbor insertion order
    r.shuffle(edges)
    H = nx.MultiDiGraph() if r.random() < 0.2 else nx.DiGraph()
    H.add_nodes_from(nodes)
    H.add_edges_from(edges + edges[:3])
    return H


@pytest.fixture
def nx_dgraph(monkeypatch):
    """NetworkX with the dgraph backend; counts the solver's calls (proof that dispatch reached dgraph)."""
    if "dgraph" not in nx.utils.backends.backends:
        pytest.skip("the dgraph NetworkX backend is not installed (pip install -e .)")
    monkeypatch.setattr(nx.config, "warnings_to_ignore", {"cache"})
    from dgraph.algorithms.scc import cpu

    calls = []
    real = cpu.tarjan_labels
    monkeypatch.setattr(cpu, "tarjan_labels", lambda *a: calls.append(1) or real(*a))
    return calls


def test_networkx_backend_cases(nx_dgraph):
    for G, C in NX_CASES:
        got = nx.strongly_connected_components(G, backend="dgraph")
        assert not isinstance(got, (list, set))          # a generator, as in NetworkX
        got = list(got)
        assert {frozenset(c) for c in got} == C and all(type(c) is set for c in got)
        assert got == list(nx.strongly_connected_components(G))
        assert nx.number_strongly_connected_components(G, backend="dgraph") == len(C)
    assert len(nx_dgraph) == 2 * len(NX_CASES)
    assert list(nx.strongly_connected_components(nx.DiGraph(), backend="dgraph")) == []
    assert nx.number_strongly_connected_components(nx.DiGraph(), backend="dgraph") == 0
    single = nx.DiGraph()
    single.add_node("only")
    assert list(nx.strongly_connected_components(single, backend="dgraph")) == [{"only"}]
    for f in (nx.strongly_connected_components, nx.number_strongly_connected_components):
        with pytest.raises(nx.NetworkXNotImplemented):
            f(nx.Graph([(1, 2)]), backend="dgraph")
    from dgraph.nx_backend import interface

    assert interface.BackendInterface.can_run("strongly_connected_components", (NX_CASES[0][0],), {}) is True


@pytest.mark.parametrize("seed", range(40))
def test_networkx_backend_random(nx_dgraph, seed):
    G = _nx_random(seed)
    got = list(nx.strongly_connected_components(G, backend="dgraph"))
    assert got == list(nx.strongly_connected_components(G))   # the same sets in the same order
    assert nx.number_strongly_connected_components(G, backend="dgraph") == len(got)
    assert nx_dgraph
