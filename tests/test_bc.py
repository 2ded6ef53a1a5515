"""Betweenness centrality (Brandes) against NetworkX, and itself across batches, partitions and executors."""

import random

import networkx as nx
import numpy as np
import pytest
from graphs import corpus, weighted

import dgraph
from dgraph.backend import to_numpy
from dgraph.errors import InputError, VertexNotFoundError

CASES = list(corpus(110, seed=17))
RTOL = 1e-9


def _values(G, r):
    return to_numpy(r.raw("bc"))


def _expect(G, ref):
    """A NetworkX dict in the Result's vertex order."""
    return np.array([ref[v] for v in G.ids.user_array().tolist()], dtype=np.float64)


def _check_close(got, expect, what):
    np.testing.assert_allclose(got, expect, rtol=RTOL, atol=0, err_msg=what)


# -- against NetworkX -----------------------------------------------------------------------

def test_all_sources_match_networkx(backend):
    graphs = 0
    kinds = set()
    for label, kw in CASES:
        G = dgraph.from_edges(**kw)
        H = G.to_networkx()
        kinds.add(G.directed)
        Gb = G.to(backend)
        for normalized in (True, False):
            for endpoints in (False, True):
                r = dgraph.bc(Gb, normalized=normalized, endpoints=endpoints)
                assert r.raw("bc").dtype == np.float64
                ref = nx.betweenness_centrality(H, normalized=normalized, endpoints=endpoints)
                _check_close(_values(G, r), _expect(G, ref), f"{label} normalized={normalized} endpoints={endpoints}")
        graphs += 1
    assert graphs >= 100 and kinds == {True, False}


def _source_sets(G, rng):
    """A scalar source, a few random lists (user ids), and every vertex."""
    n = G.num_vertices
    user = G.ids.user_array()
    if n == 0:
        return [[]]
    out = [user[int(rng.integers(0, n))].item(), []]
    for size in {1, max(1, n // 3), max(1, n - 1)}:
        pick = rng.choice(n, size=size, replace=False)
        out.append([user[i].item() for i in pick])
    out.append(user.tolist())
    return out


def test_sources_match_betweenness_centrality_subset(backend):
    """bc(G, sources=S) == nx.betweenness_centrality_subset(H, S, targets=every vertex)."""
    rng = np.random.default_rng(3)
    checked = 0
    for label, kw in CASES[:70]:
        G = dgraph.from_edges(**kw)
        H = G.to_networkx()
        Gb = G.to(backend)
        for S in _source_sets(G, rng):
            listed = [S] if np.ndim(S) == 0 else S
            for normalized in (True, False):
                r = dgraph.bc(Gb, S, normalized=normalized)
                ref = nx.betweenness_centrality_subset(H, sources=listed, targets=list(H), normalized=normalized)
                _check_close(_values(G, r), _expect(G, ref), f"{label} sources={S} normalized={normalized}")
                checked += 1
    assert checked >= 500


def test_sources_match_sampled_networkx():
    """NetworkX's k-sample estimate is the exact sum over its sample, rescaled: with endpoints by n / k
    everywhere; without, by (n-1) / k off the sample and (n-1) / (k-1) on it."""
    checked = 0
    for label, kw in CASES:
        G = dgraph.from_edges(**kw)
        H = G.to_networkx()
        n = G.num_vertices
        if n < 4:
            continue
        for k in sorted({2, n // 2, n - 1}):
            seed = 1000 + checked
            S = random.Random(seed).sample(list(H.nodes()), k)  # the sample NetworkX draws with seed=seed
            inside = np.isin(G.ids.user_array(), np.asarray(S))
            for normalized in (True, False):
                got = _values(G, dgraph.bc(G, S, endpoints=True, normalized=normalized)) * (n / k)
                ref = nx.betweenness_centrality(H, k=k, seed=seed, endpoints=True, normalized=normalized)
                _check_close(got, _expect(G, ref), f"{label} k={k} endpoints normalized={normalized}")
                got = _values(G, dgraph.bc(G, S, endpoints=False, normalized=normalized))
                got = got * np.where(inside, (n - 1) / (k - 1), (n - 1) / k)
                ref = nx.betweenness_centrality(H, k=k, seed=seed, endpoints=False, normalized=normalized)
                _check_close(got, _expect(G, ref), f"{label} k={k} normalized={normalized}")
            checked += 1
    assert checked >= 150


def test_known_values():
    path = dgraph.from_edges([0, 1, 2], [1, 2, 3])
    assert dgraph.bc(path).bc.tolist() == pytest.approx([0, 2 / 3, 2 / 3, 0])
    assert dgraph.bc(path, normalized=False).bc.tolist() == [0, 2, 2, 0]
    assert dgraph.bc(path, normalized=False, endpoints=True).bc.tolist() == [3, 5, 5, 3]
    # directed: two shortest paths 0 -> 3, through 1 and through 2
    diamond = dgraph.from_edges([0, 0, 1, 2], [1, 2, 3, 3], directed=True)
    assert dgraph.bc(diamond, normalized=False).bc.tolist() == [0, 0.5, 0.5, 0]
    assert dgraph.bc(diamond, 0, normalized=False).bc.tolist() == [0, 0.5, 0.5, 0]
    assert dgraph.bc(diamond, [1, 2, 3], normalized=False).bc.tolist() == [0, 0, 0, 0]
    star = dgraph.from_edges([0] * 5, [1, 2, 3, 4, 5])
    assert dgraph.bc(star).bc.tolist() == [1, 0, 0, 0, 0, 0]
    assert dgraph.betweenness_centrality is dgraph.bc


def test_weights_are_ignored():
    rng = np.random.default_rng(2)
    for label, kw in CASES[20:30]:
        G = dgraph.from_edges(**weighted(kw, rng))
        H = G.to_networkx()
        _check_close(_values(G, dgraph.bc(G)), _expect(G, nx.betweenness_centrality(H)), label)


def test_string_ids_and_odd_graphs():
    G = dgraph.from_edges(["a", "b", "c", "x"], ["b", "c", "d", "y"])
    r = dgraph.bc(G, normalized=False)
    assert dict(zip(r.vertex.tolist(), r.bc.tolist())) == {"a": 0, "b": 2, "c": 2, "d": 0, "x": 0, "y": 0}
    r = dgraph.bc(G, "a", normalized=False)
    assert dict(zip(r.vertex.tolist(), r.bc.tolist())) == {"a": 0, "b": 1, "c": 0.5, "d": 0, "x": 0, "y": 0}
    assert list(r.to_pandas().columns) == ["vertex", "bc"]
    empty = dgraph.bc(dgraph.from_edges([], [], num_vertices=0))
    assert len(empty.bc) == 0 and empty.supersteps == 0
    one = dgraph.bc(dgraph.from_edges([], [], num_vertices=1), endpoints=True)
    assert one.bc.tolist() == [0.0]
    assert dgraph.bc(dgraph.from_edges([0, 1], [1, 2]), []).bc.tolist() == [0, 0, 0]


def test_stats_and_supersteps():
    G = dgraph.generate("grid", rows=4, cols=5)  # diameter 7: from a corner, 7 levels
    r = dgraph.bc(G, 0)
    assert r.supersteps == 2 * 7  # forward levels 0..7 (the last finds nothing), backward 6..1
    s = r.stats
    assert list(s["phase"]) == ["forward"] * 8 + ["backward"] * 6
    assert s["level"].tolist() == list(range(8)) + list(range(6, 0, -1))
    assert r.edges_touched > 0


# -- the same bits: sources, batches, partitions --------------------------------------------

def test_batches_and_source_lists_give_the_same_bits():
    for label, kw in CASES[15:45]:
        G = dgraph.from_edges(**kw)
        n = G.num_vertices
        for endpoints in (False, True):
            ref = _values(G, dgraph.bc(G, endpoints=endpoints))
            for b in (1, 2, 5):
                got = _values(G, dgraph.bc(G, endpoints=endpoints, batch_size=b))
                np.testing.assert_array_equal(got, ref, err_msg=f"{label} batch {b}")
            every = list(G.ids.user_array().tolist())[::-1]
            np.testing.assert_array_equal(_values(G, dgraph.bc(G, every, endpoints=endpoints)), ref, err_msg=label)
        one = dgraph.bc(G, [G.ids.user_array()[n // 2].item()])
        scalar = dgraph.bc(G, G.ids.user_array()[n // 2].item())
        np.testing.assert_array_equal(_values(G, one), _values(G, scalar), err_msg=label)


def _partition_graphs():
    yield "grid", dgraph.generate("grid", rows=5, cols=6)
    yield "rmat-directed", dgraph.generate("rmat", scale=6, seed=2, directed=True)
    yield "rmat", dgraph.generate("rmat", scale=6, seed=3)
    for label, kw in CASES:
        if kw.get("num_vertices", 0) and kw["num_vertices"] >= 8:
            yield label, dgraph.from_edges(**kw)


@pytest.mark.parametrize("method", ["range", "hash", "metis"])
def test_partitions_equal_single_exactly(method):
    checked = 0
    for label, G in list(_partition_graphs())[:14]:
        n = G.num_vertices
        some = G.ids.user_array()[: max(1, n // 3)].tolist()
        for sources, endpoints, normalized in ((None, False, True), (None, True, False), (some, False, False)):
            ref = dgraph.bc(G, sources, endpoints=endpoints, normalized=normalized, batch_size=7)
            for p in (2, 3, 4):
                r = dgraph.bc(G.partition(p, method=method, client=False), sources, endpoints=endpoints,
                              normalized=normalized, batch_size=7)
                what = f"{label} p={p} sources={sources is not None} endpoints={endpoints}"
                np.testing.assert_array_equal(_values(G, r), _values(G, ref), err_msg=what)
                assert r.supersteps == ref.supersteps, what
                checked += 1
    assert checked >= 120


# -- bad arguments ----------------------------------------------------------------------------

def test_missing_sources():
    G = dgraph.from_edges([0, 1], [1, 2])
    with pytest.raises(VertexNotFoundError, match="source 7"):
        dgraph.bc(G, 7)
    with pytest.raises(VertexNotFoundError, match="source 9"):
        dgraph.bc(G, [0, 9])
    with pytest.raises(VertexNotFoundError, match="source 'a'"):
        dgraph.bc(G, "a")
    S = dgraph.from_edges(["a", "b"], ["b", "c"])
    with pytest.raises(VertexNotFoundError, match="source 'z'"):
        dgraph.bc(S, ["a", "z"])
    with pytest.raises(VertexNotFoundError):
        dgraph.bc(S, 0)
    with pytest.raises(VertexNotFoundError):
        dgraph.bc(dgraph.from_edges([], [], num_vertices=0), 0)
    with pytest.raises(VertexNotFoundError, match="source 5"):
        dgraph.bc(G.partition(2, client=False), [5])


@pytest.mark.parametrize("kwargs, match", [
    (dict(sources=1.5), "sources="),
    (dict(sources=[0, 1.0]), "sources: 1.0 is not a vertex id"),
    (dict(sources=True), "sources="),
    (dict(sources=[True]), "sources: True"),
    (dict(sources={0: 1}), "sources="),
    (dict(sources=[[0]]), r"sources: \[0\]"),
    (dict(sources=[0, "a"]), "a mix of integer and string"),
    (dict(sources=np.array([0.0, 1.0])), "dtype float64"),
    (dict(sources=np.zeros((2, 2), dtype=int)), "shape"),
    (dict(sources=[0, 2, 0]), "vertex 0 is given more than once"),
    (dict(normalized="yes"), "normalized='yes'"),
    (dict(endpoints=1), "endpoints=1"),
    (dict(batch_size=0), "batch_size=0"),
    (dict(batch_size=2.5), "batch_size=2.5"),
    (dict(executor="bogus"), "executor='bogus'"),
    (dict(executor="tasks"), "executor='tasks'"),
])
def test_bad_arguments(kwargs, match):
    G = dgraph.from_edges([0, 1, 2], [1, 2, 3])
    with pytest.raises(InputError, match=match):
        dgraph.bc(G, **kwargs)


def test_not_a_graph():
    with pytest.raises(InputError, match="expected a dgraph.Graph"):
        dgraph.bc([[0, 1]])


# -- tasks and spmd on a LocalCluster ------------------------------------------------------------

def _distributed_graphs():
    picks = [(label, kw) for label, kw in CASES[15:] if kw["num_vertices"] >= 10][:4]
    for label, kw in picks:
        yield label, dgraph.from_edges(**kw)
    yield "grid", dgraph.generate("grid", rows=4, cols=5)
    yield "rmat-directed", dgraph.generate("rmat", scale=5, seed=5, directed=True)


def test_executors_equal_local(client):
    graphs = 0
    for label, G in _distributed_graphs():
        some = G.ids.user_array()[::3].tolist()
        ref = dgraph.bc(G, endpoints=True)
        ref_some = dgraph.bc(G, some, normalized=False, batch_size=3)
        for p in (2, 3):
            PG = G.partition(p, method="hash" if p == 3 else "range", client=client)
            for executor, exchange in (("tasks", "butterfly"), ("spmd", "butterfly"), ("spmd", "all-to-all")):
                what = f"{label} p={p} {executor} {exchange}"
                r = dgraph.bc(PG, endpoints=True, executor=executor, exchange=exchange)
                np.testing.assert_array_equal(_values(G, r), _values(G, ref), err_msg=what)
                assert r.params["executor"] == executor and r.supersteps == ref.supersteps
            # several batches of a source list: once per executor
            executor = "tasks" if p == 2 else "spmd"
            r = dgraph.bc(PG, some, normalized=False, batch_size=3, executor=executor)
            np.testing.assert_array_equal(_values(G, r), _values(G, ref_some), err_msg=f"{label} p={p} {executor}")
            assert r.supersteps == ref_some.supersteps
        graphs += 1
    assert graphs == 6


def test_distributed_missing_source(client):
    G = dgraph.from_edges([0, 1, 2], [1, 2, 3], directed=True)
    with pytest.raises(VertexNotFoundError, match="source 8"):
        dgraph.bc(G.partition(2, client=client), [1, 8], executor="spmd")
