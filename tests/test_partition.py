"""Partitioners and PartitionPlan: coverage, balance, lookups, files, errors."""

from __future__ import annotations

import numpy as np
import pytest

import dgraph
from dgraph.errors import DGraphError, FileFormatError, InputError, MissingFileError, OutputExistsError
from dgraph.partition import METHODS, MissingDependencyError, PartitionPlan, partition_plan
from dgraph.partition import methods as pm
from graphs import random_graph

try:
    import pymetis  # noqa: F401
    HAVE_METIS = True
except ImportError:
    HAVE_METIS = False

# the methods this machine can run (metis needs the optional pymetis)
AVAILABLE = [m for m in METHODS if m != "metis" or HAVE_METIS]
needs_metis = pytest.mark.skipif(not HAVE_METIS, reason="pymetis is not installed")


def skip_unavailable(method):
    if method not in AVAILABLE:
        pytest.skip("pymetis is not installed")


def graphs(count=12, seed=7):
    rng = np.random.default_rng(seed)
    out = [dgraph.from_edges([], [], num_vertices=6),                       # no edges
           dgraph.from_edges([0] * 30, list(range(1, 31))),                   # star: one hub
           dgraph.from_edges([0, 1, 2, 3], [1, 2, 3, 0], directed=True),      # 4 vertices only
           dgraph.from_edges([0, 0, 0], [0, 0, 0], num_vertices=9)]           # self loop, isolated
    for _ in range(count):
        kw = random_graph(rng, n=int(rng.integers(6, 80)))
        out.append(dgraph.from_edges(kw["src"], kw["dst"], directed=kw["directed"],
                                     num_vertices=kw["num_vertices"]))
    return out


GRAPHS = graphs()


def grid(r, c):
    v = np.arange(r * c).reshape(r, c)
    src = np.concatenate([v[:, :-1].ravel(), v[:-1, :].ravel()])
    dst = np.concatenate([v[:, 1:].ravel(), v[1:, :].ravel()])
    return dgraph.from_edges(src, dst, directed=False, num_vertices=r * c)


def check_plan(plan, G, p):
    n = G.num_vertices
    assert plan.num_parts == p and plan.num_vertices == n
    owner = plan.owner
    assert owner.dtype == np.int32 and owner.shape == (n,)
    assert owner.min() >= 0 and owner.max() < p
    sizes = plan.sizes()
    assert (sizes >= 1).all(), f"empty partition: {sizes}"
    assert sizes.sum() == n
    # every vertex in exactly one vertices_of list, sorted, consistent with owner
    seen = np.concatenate([plan.vertices_of(q) for q in range(p)])
    assert np.array_equal(np.sort(seen), np.arange(n))
    for q in range(p):
        vs = plan.vertices_of(q)
        assert np.all(np.diff(vs) > 0)
        assert (owner[vs] == q).all()
        o, loc = plan.to_local(vs)
        assert (o == q).all() and np.array_equal(loc, np.arange(len(vs)))
        assert np.array_equal(plan.to_global(np.full(len(vs), q), np.arange(len(vs))), vs)
    all_v = np.arange(n)
    assert np.array_equal(plan.owner_of(all_v), owner)
    o, loc = plan.to_local(all_v[::-1])
    assert np.array_equal(o, owner[::-1])
    assert np.array_equal(plan.to_global(o, loc), all_v[::-1])
    # edge counts add up to the arcs, and match the out-degrees of each part's vertices
    deg = np.diff(G.indptr)
    ec = plan.edge_counts(G)
    assert np.array_equal(ec, np.bincount(owner, weights=deg, minlength=p).astype(np.int64))
    assert ec.sum() == G.num_arcs
    b = plan.balance(G)
    assert b["max_vertices"] == sizes.max() and b["max_edges"] == ec.max() and b["vertices"] >= 1.0


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("p", range(1, 7))
def test_plan_covers_every_vertex(method, p):
    skip_unavailable(method)
    for G in GRAPHS:
        if p > G.num_vertices:
            continue
        plan = partition_plan(G, p, method)
        assert plan.method == method
        check_plan(plan, G, p)


@pytest.mark.parametrize("p", range(1, 7))
def test_range_contiguous_and_edge_balanced(p):
    for G in GRAPHS:
        n = G.num_vertices
        if p > n:
            continue
        plan = partition_plan(G, p, "range")
        b = plan.bounds
        assert plan.contiguous and b.dtype == np.int64 and len(b) == p + 1
        assert b[0] == 0 and b[-1] == n and (np.diff(b) >= 1).all()
        assert np.array_equal(plan.owner, np.repeat(np.arange(p), np.diff(b)))
        ec = plan.edge_counts(G)
        maxdeg = int(np.diff(G.indptr).max())
        assert ec.max() <= G.num_arcs / p + maxdeg, (b, ec)
        if G.num_arcs == 0:  # vertices alone: split evenly
            assert np.diff(b).max() - np.diff(b).min() <= 1


def test_range_balance_with_clustered_isolated_vertices():
    # first half isolated, second half degree 2: the edges decide the cut
    n = 100
    src = np.arange(50, 99)
    G = dgraph.from_edges(src, src + 1, num_vertices=n)
    plan = partition_plan(G, 2, "range")
    ec = plan.edge_counts(G)
    assert ec.max() <= G.num_arcs / 2 + 2
    assert plan.bounds[1] > 50


def test_range_large_p_equals_n():
    G = dgraph.from_edges([0] * 10, list(range(1, 11)))  # hub first
    plan = partition_plan(G, 11, "range")
    assert np.array_equal(plan.bounds, np.arange(12))


def test_hash_deterministic_and_seeded():
    G = GRAPHS[-1]
    a = partition_plan(G, 4, "hash")
    b = partition_plan(G, 4, "hash")
    assert np.array_equal(a.owner, b.owner)
    assert np.array_equal(pm.hash_owner(G.num_vertices, 4), a.owner)  # no empty part to fix here
    c = partition_plan(G, 4, "hash", seed=5)
    assert not np.array_equal(a.owner, c.owner)
    h = pm.vertex_hash(np.arange(3, dtype=np.int64))
    assert h.dtype == np.uint64 and len(set(h.tolist())) == 3


def test_hash_fixed_values():
    # pinned: a saved hash plan stays valid across dgraph versions
    assert int(pm.vertex_hash(np.array([0]))[0]) == 0xE220A8397B1DCDAF  # splitmix64's first output
    assert pm.hash_owner(8, 3).tolist() == [1, 2, 1, 0, 1, 2, 2, 0]
    owner = pm.hash_owner(1000, 7)
    assert np.bincount(owner, minlength=7).min() > 100  # spreads evenly


def test_empty_parts_are_filled():
    owner = np.array([0, 0, 0, 2, 2], dtype=np.int32)
    out = pm.fill_empty_parts(owner, 4)
    # part 1 takes vertex 2 from part 0 (largest); then parts 0 and 2 tie at 2 vertices and
    # part 3 takes vertex 1 from part 0 (lowest number on ties, its highest vertex)
    assert out.tolist() == [0, 3, 1, 2, 2]
    assert owner.tolist() == [0, 0, 0, 2, 2]  # input untouched
    # tiny graphs: hash with p == n gives one vertex per part
    G = dgraph.from_edges([], [], num_vertices=5)
    plan = partition_plan(G, 5, "hash")
    assert sorted(plan.owner.tolist()) == [0, 1, 2, 3, 4]


@needs_metis
def test_metis_cuts_less_than_hash_on_grid():
    G = grid(20, 20)
    for p in (2, 4, 6):
        metis = partition_plan(G, p, "metis")
        hashed = partition_plan(G, p, "hash")
        check_plan(metis, G, p)
        assert metis.cut_arcs(G) < hashed.cut_arcs(G) / 3
        assert metis.balance(G)["vertices"] < 1.2
    a, b = partition_plan(G, 4, "metis", seed=3), partition_plan(G, 4, "metis", seed=3)
    assert np.array_equal(a.owner, b.owner)


@needs_metis
def test_metis_one_part_and_directed_self_loops():
    G = dgraph.from_edges([0, 1, 2, 2, 3], [1, 2, 2, 0, 3], directed=True, num_vertices=6)
    assert (partition_plan(G, 1, "metis").owner == 0).all()
    check_plan(partition_plan(G, 3, "metis"), G, 3)


def test_metis_missing(monkeypatch):
    import builtins

    real = builtins.__import__

    def fake(name, *args, **kw):
        if name == "pymetis":
            raise ImportError("No module named 'pymetis'")
        return real(name, *args, **kw)

    monkeypatch.setattr(builtins, "__import__", fake)
    with pytest.raises(MissingDependencyError, match="pip install pymetis") as e:
        partition_plan(grid(3, 3), 2, "metis")
    assert isinstance(e.value, DGraphError)
    assert (partition_plan(grid(3, 3), 1, "metis").owner == 0).all()  # p == 1 never calls metis


def test_empty_graph_one_part():
    G = dgraph.from_edges([], [], num_vertices=0)
    for method in METHODS:
        plan = partition_plan(G, 1, method)
        assert plan.num_vertices == 0 and plan.sizes().tolist() == [0]
        assert plan.owner_of(np.array([], dtype=np.int64)).shape == (0,)
        assert plan.edge_counts(G).tolist() == [0]
    assert partition_plan(G, 1).bounds.tolist() == [0, 0]


def test_scalar_and_list_lookups():
    G = GRAPHS[-2]
    for method in AVAILABLE:
        plan = partition_plan(G, 3, method)
        v = G.num_vertices - 1
        assert plan.owner_of(v) == plan.owner[v] and isinstance(plan.owner_of(v), int)
        o, loc = plan.to_local(v)
        assert plan.vertices_of(o)[loc] == v and plan.to_global(o, loc) == v
        assert plan.owner_of([0, v]).tolist() == [plan.owner[0], plan.owner[v]]


@pytest.mark.parametrize("method", METHODS)
def test_save_load_round_trip(tmp_path, method):
    skip_unavailable(method)
    G = GRAPHS[-1]
    plan = partition_plan(G, 4, method, seed=2)
    path = plan.save(tmp_path / "plan.npz")
    back = PartitionPlan.load(path)
    assert back == plan
    assert (back.method, back.num_parts, back.num_vertices) == (method, 4, G.num_vertices)
    assert back.seed == plan.seed
    assert back.contiguous == (method == "range")
    if method == "range":
        assert np.array_equal(back.bounds, plan.bounds)
    back.check(G)
    check_plan(back, G, 4)
    assert "4 parts" in repr(back) and method in repr(back)
    # no silent overwrite; overwrite on request; path kept as given
    with pytest.raises(OutputExistsError, match="overwrite=True"):
        plan.save(path)
    partition_plan(G, 2, method).save(path, overwrite=True)
    assert PartitionPlan.load(path).num_parts == 2
    other = plan.save(tmp_path / "plan.bin")
    assert other.name == "plan.bin" and PartitionPlan.load(other) == plan
    assert sorted(f.name for f in tmp_path.iterdir()) == ["plan.bin", "plan.npz"]


def test_load_for_another_graph(tmp_path):
    G = GRAPHS[-1]
    path = partition_plan(G, 3, "hash").save(tmp_path / "p.npz")
    H = dgraph.from_edges([0, 1], [1, 2], num_vertices=G.num_vertices + 5)
    plan = PartitionPlan.load(path)
    with pytest.raises(DGraphError) as e:
        plan.check(H)
    msg = str(e.value)
    assert f"{G.num_vertices:,} vertices" in msg and f"{H.num_vertices:,} vertices" in msg
    assert "partition_plan" in msg
    with pytest.raises(DGraphError, match="vertices"):
        plan.edge_counts(H)


def test_load_bad_files(tmp_path):
    with pytest.raises(MissingFileError):
        PartitionPlan.load(tmp_path / "nope.npz")
    junk = tmp_path / "junk.npz"
    junk.write_text("not a zip")
    with pytest.raises(FileFormatError, match="junk.npz"):
        PartitionPlan.load(junk)
    other = tmp_path / "other.npz"
    np.savez(other, a=np.arange(3))
    with pytest.raises(FileFormatError, match="not a dgraph partition plan"):
        PartitionPlan.load(other)
    # a plan whose parts are out of range
    good = partition_plan(GRAPHS[-1], 3, "hash").save(tmp_path / "good.npz")
    with np.load(good) as z:
        data = dict(z)
    data["owner"] = data["owner"].copy()
    data["owner"][0] = 7
    bad = tmp_path / "bad.npz"
    np.savez(bad, **data)
    with pytest.raises(FileFormatError, match="partition 7"):
        PartitionPlan.load(bad)
    data["format_version"] = np.array(99)
    np.savez(bad, **data)
    with pytest.raises(FileFormatError, match="newer"):
        PartitionPlan.load(bad)


def test_check_parts_out_of_range():
    G = dgraph.from_edges([0, 1], [1, 2])
    plan = PartitionPlan.from_owner([0, 1, 1])
    plan.check(G)
    plan._owner = np.array([0, 1, 5], dtype=np.int32)  # corrupted after the fact
    with pytest.raises(DGraphError, match="partition 5"):
        plan.check(G)


def test_from_owner_and_bounds_validation():
    assert PartitionPlan.from_owner([1, 0, 1]).num_parts == 2
    assert PartitionPlan.from_bounds([0, 2, 5]).owner.tolist() == [0, 0, 1, 1, 1]
    with pytest.raises(InputError, match="partition 1 owns no vertex"):
        PartitionPlan.from_owner([0, 2, 2])
    with pytest.raises(InputError, match="partition 3"):
        PartitionPlan.from_owner([0, 3], num_parts=2)
    with pytest.raises(InputError, match="owns no vertex"):
        PartitionPlan.from_bounds([0, 2, 2, 5])
    with pytest.raises(InputError, match="non-decreasing"):
        PartitionPlan.from_bounds([0, 3, 2, 5])
    with pytest.raises(InputError, match="integer"):
        PartitionPlan.from_owner([0.5, 1.0])


@pytest.mark.parametrize("bad", [0, -1, 2.0, "3", None, True])
def test_error_num_parts(bad):
    with pytest.raises(InputError, match="positive integer"):
        partition_plan(GRAPHS[-1], bad)


def test_error_too_many_parts():
    G = dgraph.from_edges([0, 1], [1, 2], num_vertices=5)
    with pytest.raises(InputError) as e:
        partition_plan(G, 8, "hash")
    assert str(e.value) == "graph has 5 vertices, cannot be split into 8 partitions; use at most 5"
    with pytest.raises(InputError, match="0 vertices.*num_parts=1"):
        partition_plan(dgraph.from_edges([], [], num_vertices=0), 2)


def test_error_unknown_method_and_args():
    G = GRAPHS[-1]
    with pytest.raises(InputError) as e:
        partition_plan(G, 2, "random")
    assert "'random'" in str(e.value) and all(f"'{m}'" in str(e.value) for m in METHODS)
    with pytest.raises(InputError, match="seed"):
        partition_plan(G, 2, "hash", seed="x")
    with pytest.raises(InputError, match="Graph"):
        partition_plan(np.zeros(3), 2)


def test_lookup_errors():
    G = GRAPHS[-1]
    n = G.num_vertices
    for method in AVAILABLE:
        plan = partition_plan(G, 3, method)
        with pytest.raises(InputError, match=f"vertex {n} is out of range"):
            plan.owner_of([0, n])
        with pytest.raises(InputError, match="vertex -1"):
            plan.to_local(np.array([-1]))
        with pytest.raises(InputError, match="0..2"):
            plan.vertices_of(3)
        with pytest.raises(InputError, match="integer vertex ids"):
            plan.owner_of(np.array([0.5]))


@pytest.mark.gpu
def test_cupy_lookups():
    from dgraph.backend import gpu_available

    if not gpu_available():
        pytest.skip("no usable CUDA GPU / CuPy")
    import cupy

    G = GRAPHS[-1]
    v = np.arange(G.num_vertices)[::-1].copy()
    for method in AVAILABLE:
        plan = partition_plan(G.to("cupy"), 3, method)
        o = plan.owner_of(cupy.asarray(v))
        assert isinstance(o, cupy.ndarray) and np.array_equal(o.get(), plan.owner[v])
        oc, lc = plan.to_local(cupy.asarray(v))
        on, ln = plan.to_local(v)
        assert isinstance(lc, cupy.ndarray)
        assert np.array_equal(oc.get(), on) and np.array_equal(lc.get(), ln)
        assert np.array_equal(plan.to_global(oc, lc).get(), v)
