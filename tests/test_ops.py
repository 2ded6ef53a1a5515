"""Frontier operators (dgraph.ops) against brute-force numpy/scipy references.

Every operator is checked on the shared corpus of small graphs (odd ones and
seeded random ones, each both undirected and directed, unweighted and
weighted), on numpy and, on a GPU machine, on CuPy (the ``backend`` fixture).
The references are plain Python loops over ``G.indptr``/``G.indices`` (and
scipy row/column sums), so they share no code with the operators.
"""

from __future__ import annotations

import numpy as np
import pytest
from graphs import corpus, weighted

import dgraph
from dgraph.backend import get_xp, to_numpy
from dgraph.errors import InputError
from dgraph.ops import Edges, Frontier, advance, compute, filter, neighbor_reduce  # noqa: A004

COUNT = 50  # graphs from the corpus; each one is used undirected and directed


def _build_corpus():
    rng = np.random.default_rng(7)
    out = []
    for label, kw in corpus(COUNT, seed=3):
        for directed in (False, True):
            base = dict(kw, directed=directed)
            name = f"{label}-{'d' if directed else 'u'}"
            out.append((name, dgraph.from_edges(**base)))
            out.append((name + "-w", dgraph.from_edges(**weighted(base, rng))))
            out.append((name + "-wi", dgraph.from_edges(**weighted(base, rng, integer=True))))
    for _, G in out:  # the operators only read a graph: any write into its arrays fails loudly
        for a in (G.indptr, G.indices, G.weights):
            if a is not None:
                a.flags.writeable = False
    return out


CORPUS = _build_corpus()


def graphs(backend, kind="all"):
    """``(label, G on the backend, numpy arrays of G)`` over the corpus.

    kind: 'all', 'unweighted', 'weighted' (float) or 'int' (integer weights).
    """
    for label, G in CORPUS:
        if kind == "unweighted" and G.weighted or kind != "unweighted" and kind != "all" and not G.weighted:
            continue
        if kind == "weighted" and G.weights.dtype.kind != "f" or kind == "int" and G.weights.dtype.kind != "i":
            continue
        yield label, G.to(backend), G


def csr_lists(G):
    """The CSR as Python lists: indptr, indices, weights (or None), row of every position."""
    indptr = to_numpy(G.indptr).tolist()
    indices = to_numpy(G.indices).tolist()
    w = None if G.weights is None else to_numpy(G.weights).tolist()
    rows = [u for u in range(G.num_vertices) for _ in range(indptr[u], indptr[u + 1])]
    return indptr, indices, w, rows


def random_subset(rng, n, p=None):
    p = rng.uniform(0.1, 0.9) if p is None else p
    return np.flatnonzero(rng.random(n) < p)


def triples(edges):
    return sorted(zip(*(to_numpy(a).tolist() for a in edges)))


def npy(a):
    return to_numpy(a)


# -- Frontier ---------------------------------------------------------------------------------------
def test_frontier_from_ids_sorted_unique(backend):
    xp = get_xp(backend)
    f = Frontier.from_ids(xp.asarray([5, 1, 5, 3, 1, 0]), 8)
    assert npy(f.ids).tolist() == [0, 1, 3, 5]
    assert f.n == 8 and f.size == 4 and len(f) == 4
    assert not f.is_dense
    assert f.xp is xp
    # a list plus an explicit module, and another dtype
    g = Frontier.from_ids([7, 2, 2], 8, xp=xp, dtype=np.int32)
    assert g.xp is xp and npy(g.ids).tolist() == [2, 7] and g.ids.dtype == np.int32


def test_frontier_ids_mask_round_trip(backend):
    xp = get_xp(backend)
    rng = np.random.default_rng(0)
    for n in (0, 1, 7, 8, 9, 63, 64, 65, 1000):
        ids = random_subset(rng, n)
        expected = np.zeros(n, bool)
        expected[ids] = True
        sparse = Frontier.from_ids(xp.asarray(ids), n)
        # ids -> mask
        assert npy(sparse.mask).dtype == bool and npy(sparse.mask).tolist() == expected.tolist()
        assert sparse.size == len(ids)
        # mask -> ids
        dense = Frontier.from_mask(xp.asarray(expected))
        assert dense.is_dense and dense.n == n and dense.size == len(ids)
        assert npy(dense.ids).tolist() == ids.tolist()
        # and the explicit conversions keep the set
        assert npy(dense.to_sparse().ids).tolist() == ids.tolist()
        assert not dense.to_sparse().is_dense
        assert sparse.to_dense().is_dense
        assert npy(sparse.to_dense().mask).tolist() == expected.tolist()
        assert npy(sparse.to_dense().ids).tolist() == ids.tolist()


def test_frontier_bits_round_trip(backend):
    xp = get_xp(backend)
    rng = np.random.default_rng(1)
    for n in (0, 1, 5, 8, 13, 16, 100, 257):
        ids = random_subset(rng, n)
        f = Frontier.from_ids(xp.asarray(ids), n)
        bits = f.bits()
        assert bits.dtype == np.uint8 and len(bits) == (n + 7) // 8  # 8 vertices a byte
        g = Frontier.from_bits(bits, n)
        assert g.n == n and g.size == len(ids)
        assert npy(g.mask).shape == (n,)
        assert npy(g.ids).tolist() == ids.tolist()
        # the packing is numpy's big-endian bit order, identical on every backend
        mask = np.zeros(n, bool)
        mask[ids] = True
        assert npy(bits).tolist() == np.packbits(mask).tolist()


def test_frontier_empty_all_size(backend):
    xp = get_xp(backend)
    e = Frontier.empty(10, xp)
    assert e.size == 0 and len(e) == 0 and e.n == 10 and e.xp is xp
    assert not npy(e.mask).any() and npy(e.mask).shape == (10,)
    a = Frontier.all(10, xp)
    assert a.size == 10 and a.is_dense and a.xp is xp
    assert npy(a.ids).tolist() == list(range(10))
    assert Frontier.all(0, xp).size == 0 and len(Frontier.all(0, xp).ids) == 0
    assert Frontier.empty(0, xp).size == 0
    assert "3/10" in repr(Frontier.from_ids(xp.asarray([1, 2, 3]), 10))


def test_frontier_errors(backend):
    xp = get_xp(backend)
    for bad in ([-1], [0, 10], [10], [3, 2**40]):
        with pytest.raises(InputError, match=r"0\.\.9"):
            Frontier.from_ids(xp.asarray(bad), 10)
    with pytest.raises(InputError, match="0..-1"):
        Frontier.from_ids(xp.asarray([0]), 0)
    with pytest.raises(InputError, match="exactly one"):
        Frontier(4)
    with pytest.raises(InputError, match="exactly one"):
        Frontier(4, ids=xp.asarray([1]), mask=xp.zeros(4, bool))
    # an empty id list is fine for any n
    assert Frontier.from_ids(xp.asarray([], dtype=np.int64), 0).size == 0


# -- advance, push -----------------------------------------------------------------------------------
def push_reference(G, frontier_ids, keep=None):
    """Every CSR edge (u, v, e) leaving the frontier for which keep(u, v, e) holds: a Python loop."""
    indptr, indices, _, _ = csr_lists(G)
    out = []
    for u in frontier_ids:
        for e in range(indptr[u], indptr[u + 1]):
            v = indices[e]
            if keep is None or keep(u, v, e):
                out.append((u, v, e))
    return sorted(out)


def test_advance_push_matches_csr_loop(backend):
    xp = get_xp(backend)
    rng = np.random.default_rng(11)
    checked = 0
    for label, G, G0 in graphs(backend):
        n = G.num_vertices
        ids = random_subset(rng, n)
        keep_v = rng.random(n) < 0.6
        keep_dev = xp.asarray(keep_v)

        def functor(src, dst, eid):
            return keep_dev[dst] & ((src + eid) % 3 != 0)

        for dense in (False, True):
            f = Frontier.from_ids(xp.asarray(ids), n)
            if dense:
                f = f.to_dense()
            # without a functor: every out-edge of the frontier
            all_edges = advance(G, f, direction="push")
            assert isinstance(all_edges, Edges)
            ref_all = push_reference(G0, ids.tolist())
            assert triples(all_edges) == ref_all, label
            assert len(all_edges) == len(ref_all)
            # with a functor
            edges = advance(G, f, functor, direction="push")
            ref = push_reference(G0, ids.tolist(), lambda u, v, e: keep_v[v] and (u + e) % 3 != 0)
            assert triples(edges) == ref, label
            assert npy(edges.eid).dtype.kind == "i"
            # eid is a CSR position: the target and the weight line up with it
            eid = npy(edges.eid)
            assert npy(G.indices)[eid].tolist() == npy(edges.dst).tolist(), label
            assert np.array_equal(np.searchsorted(npy(G.indptr), eid, side="right") - 1, npy(edges.src)), label
        checked += 1
    assert checked == len(CORPUS)


def test_advance_push_weights_line_up(backend):
    """The weight of each returned edge is the weight the user gave that edge (min over duplicates)."""
    xp = get_xp(backend)
    rng = np.random.default_rng(12)
    for label, G, G0 in graphs(backend, "weighted"):
        # the user's weights per (u, v), duplicates collapsed to the minimum, mirrored when undirected
        src, dst, w = npy(G0.coo()[0]), npy(G0.coo()[1]), npy(G0.weights)
        by_arc = {}
        for u, v, x in zip(src.tolist(), dst.tolist(), w.tolist()):
            by_arc[(u, v)] = x
        n = G.num_vertices
        ids = random_subset(rng, n)
        edges = advance(G, Frontier.from_ids(xp.asarray(ids), n), direction="push")
        got = npy(G.weights)[npy(edges.eid)].tolist()
        want = [by_arc[(u, v)] for u, v in zip(npy(edges.src).tolist(), npy(edges.dst).tolist())]
        assert got == want, label


def test_advance_push_hub_vertex(backend):
    xp = get_xp(backend)
    leaves = 200_000
    G = dgraph.from_edges(np.zeros(leaves, np.int64), np.arange(1, leaves + 1), num_vertices=leaves + 2).to(backend)
    f = Frontier.from_ids(xp.asarray([0, 5, leaves + 1]), G.num_vertices)  # hub, a leaf, an isolated vertex
    edges = advance(G, f, direction="push")
    src, dst, eid = npy(edges.src), npy(edges.dst), npy(edges.eid)
    assert len(edges) == leaves + 1
    assert (src == 0).sum() == leaves and (src == 5).sum() == 1
    assert np.array_equal(np.sort(dst[src == 0]), np.arange(1, leaves + 1))
    assert dst[src == 5].tolist() == [0]
    assert np.array_equal(npy(G.indices)[eid], dst)
    indptr = npy(G.indptr)
    assert np.array_equal(np.sort(eid), np.r_[np.arange(leaves), indptr[5]])  # the hub's row, the leaf's edge
    assert indptr[5] == leaves + 4
    # a functor over the hub's edges
    kept = advance(G, f, lambda s, d, e: d % 1000 == 0, direction="push")
    assert sorted(npy(kept.dst).tolist()) == [0] + list(range(1000, leaves + 1, 1000))  # 5 -> 0 passes too
    assert npy(kept.src).tolist().count(0) == leaves // 1000 and npy(kept.src).tolist().count(5) == 1


def test_advance_empty_frontier(backend):
    xp = get_xp(backend)
    for label, G, _ in graphs(backend, "unweighted"):
        n = G.num_vertices
        for f in (Frontier.empty(n, xp), Frontier.from_mask(xp.zeros(n, bool))):
            e = advance(G, f, direction="push")
            assert len(e) == 0 and len(e.dst) == 0 and len(e.eid) == 0, label
            assert e.targets(n).size == 0
            p = advance(G, f, direction="pull")
            assert len(p) == 0 and len(p.src) == 0, label
        # the empty candidate set pulls nothing either
        p = advance(G, Frontier.all(n, xp), direction="pull", candidates=Frontier.empty(n, xp))
        assert len(p) == 0, label


def test_advance_bad_direction(backend):
    G = CORPUS[4][1].to(backend)
    with pytest.raises(InputError, match="direction='sideways'"):
        advance(G, Frontier.all(G.num_vertices, G.xp), direction="sideways")


# -- advance, pull -----------------------------------------------------------------------------------
def pull_reference(G, frontier_ids, candidate_ids, keep=None):
    """For each candidate v (ascending), the smallest u in the frontier with an edge u -> v passing keep."""
    indptr, indices, w, rows = csr_lists(G)
    in_edges = {}
    for e, (u, v) in enumerate(zip(rows, indices)):
        in_edges.setdefault(v, []).append((u, e))
    fr = set(frontier_ids)
    out = []
    for v in sorted(candidate_ids):
        passing = [u for u, e in in_edges.get(v, []) if u in fr and (keep is None or keep(u, v, w[e] if w else None))]
        if passing:
            out.append((min(passing), v))
    return out


def check_pull_eids(G, edges, label):
    """eid names a CSR arc carrying the pulled edge's weight (u -> v itself on a directed graph)."""
    indptr = npy(G.indptr)
    indices = npy(G.indices)
    eid = npy(edges.eid)
    rows = np.searchsorted(indptr, eid, side="right") - 1
    src, dst = npy(edges.src), npy(edges.dst)
    if G.directed:
        assert np.array_equal(rows, src) and np.array_equal(indices[eid], dst), label
    else:  # the CSC of an undirected graph is its CSR: eid may be the mirror arc v -> u
        assert np.array_equal(np.minimum(rows, indices[eid]), np.minimum(src, dst)), label
        assert np.array_equal(np.maximum(rows, indices[eid]), np.maximum(src, dst)), label
    if G.weighted:
        # the weight of arc u -> v, found by a lookup independent of eid
        w = npy(G.weights)
        for u, v, x in zip(src.tolist(), dst.tolist(), w[eid].tolist()):
            row = indices[indptr[u]:indptr[u + 1]]
            pos = indptr[u] + int(np.flatnonzero(row == v)[0])
            assert w[pos] == x, (label, u, v)


def test_advance_pull_first_in_neighbor(backend):
    xp = get_xp(backend)
    rng = np.random.default_rng(21)
    for label, G, G0 in graphs(backend):
        n = G.num_vertices
        fr_ids = random_subset(rng, n)
        cand_ids = random_subset(rng, n)
        f = Frontier.from_ids(xp.asarray(fr_ids), n)
        for cands in (Frontier.from_ids(xp.asarray(cand_ids), n), Frontier.from_mask(xp.asarray(np.isin(np.arange(n), cand_ids)))):
            edges = advance(G, f, direction="pull", candidates=cands)
            ref = pull_reference(G0, fr_ids.tolist(), cand_ids.tolist())
            got = list(zip(npy(edges.src).tolist(), npy(edges.dst).tolist()))
            assert got == ref, label  # in candidate order, one edge per candidate that has one
            check_pull_eids(G, edges, label)
        # candidates default to every vertex
        edges = advance(G, f, direction="pull")
        ref = pull_reference(G0, fr_ids.tolist(), range(n))
        assert list(zip(npy(edges.src).tolist(), npy(edges.dst).tolist())) == ref, label


def test_advance_pull_with_functor(backend):
    xp = get_xp(backend)
    rng = np.random.default_rng(22)
    for label, G, G0 in graphs(backend, "weighted"):
        n = G.num_vertices
        fr_ids = random_subset(rng, n, 0.6)
        cand_ids = random_subset(rng, n, 0.7)
        w_dev = G.weights

        def functor(src, dst, eid):
            return (w_dev[eid] >= 3.0) & ((src + 2 * dst) % 5 != 1)

        f = Frontier.from_ids(xp.asarray(fr_ids), n)
        edges = advance(G, f, functor, direction="pull", candidates=Frontier.from_ids(xp.asarray(cand_ids), n))
        ref = pull_reference(G0, fr_ids.tolist(), cand_ids.tolist(), lambda u, v, w: w >= 3.0 and (u + 2 * v) % 5 != 1)
        got = list(zip(npy(edges.src).tolist(), npy(edges.dst).tolist()))
        assert got == ref, label
        check_pull_eids(G, edges, label)
        assert np.all(npy(G.weights)[npy(edges.eid)] >= 3.0), label


def test_advance_pull_directed_uses_in_edges(backend):
    xp = get_xp(backend)
    # 3 -> 0, 1 -> 0, 0 -> 2, 2 -> 1: in-neighbors of 0 are {1, 3}; 0 has no edge into 3
    G = dgraph.from_edges([3, 1, 0, 2], [0, 0, 2, 1], [1.0, 2.0, 3.0, 4.0], directed=True).to(backend)
    f = Frontier.from_ids(xp.asarray([0, 1, 3]), 4)
    edges = advance(G, f, direction="pull", candidates=Frontier.all(4, xp))
    assert list(zip(npy(edges.src).tolist(), npy(edges.dst).tolist())) == [(1, 0), (0, 2)]
    assert npy(G.weights)[npy(edges.eid)].tolist() == [2.0, 3.0]
    # a functor that rejects 1 -> 0 leaves the next in-neighbor, 3 -> 0
    edges = advance(G, f, lambda s, d, e: s != 1, direction="pull", candidates=Frontier.all(4, xp))
    assert list(zip(npy(edges.src).tolist(), npy(edges.dst).tolist())) == [(3, 0), (0, 2)]
    assert npy(G.weights)[npy(edges.eid)].tolist() == [1.0, 3.0]
    # the undirected version pulls over both directions: 3 gets 0
    U = dgraph.from_edges([3, 1, 0, 2], [0, 0, 2, 1], directed=False).to(backend)
    edges = advance(U, f, direction="pull", candidates=Frontier.all(4, xp))
    assert list(zip(npy(edges.src).tolist(), npy(edges.dst).tolist())) == [(1, 0), (0, 1), (0, 2), (0, 3)]


# -- filter, compute, targets ------------------------------------------------------------------------
def test_filter_vertex_frontier(backend):
    xp = get_xp(backend)
    rng = np.random.default_rng(31)
    for n in (0, 1, 10, 300):
        ids = random_subset(rng, n)
        odd = Frontier.from_ids(xp.asarray(ids), n)
        for f in (odd, odd.to_dense()):
            out = filter(f, lambda v: v % 3 == 1)
            assert isinstance(out, Frontier) and out.n == n
            assert npy(out.ids).tolist() == [v for v in ids.tolist() if v % 3 == 1]
            assert filter(f, lambda v: v >= 0).size == len(ids)
            assert filter(f, lambda v: v < 0).size == 0


def test_filter_and_compute_on_edges(backend):
    xp = get_xp(backend)
    rng = np.random.default_rng(32)
    for label, G, G0 in graphs(backend, "unweighted"):
        n = G.num_vertices
        ids = random_subset(rng, n)
        edges = advance(G, Frontier.from_ids(xp.asarray(ids), n), direction="push")
        kept = filter(edges, lambda s, d, e: (s < d) | (e % 4 == 0))
        assert isinstance(kept, Edges)
        ref = [t for t in triples(edges) if t[0] < t[1] or t[2] % 4 == 0]
        assert triples(kept) == ref, label
        # compute returns the functor's value, element for element
        val = compute(edges, lambda s, d, e: s * 1000 + d)
        assert npy(val).tolist() == [s * 1000 + d for s, d in zip(npy(edges.src).tolist(), npy(edges.dst).tolist())]
        # targets: the unique targets as a vertex frontier
        t = edges.targets(n)
        assert isinstance(t, Frontier) and t.n == n
        assert npy(t.ids).tolist() == sorted({d for _, d, _ in triples(edges)}), label
        assert sorted(npy(edges.targets(n, unique=False).ids).tolist()) == sorted(npy(edges.dst).tolist())


def test_compute_on_vertices(backend):
    xp = get_xp(backend)
    f = Frontier.from_ids(xp.asarray([2, 4, 9]), 10)
    assert npy(compute(f, lambda v: v * v)).tolist() == [4, 16, 81]
    seen = []
    out = compute(f.to_dense(), lambda v: seen.append(npy(v).tolist()) or "value")
    assert out == "value" and seen == [[2, 4, 9]]
    assert len(compute(Frontier.empty(10, xp), lambda v: v + 1)) == 0


# -- neighbor_reduce ---------------------------------------------------------------------------------
def reduce_reference(G, op, direction, values=None):
    """Per vertex: op over its out- (or in-) edges of ``values[e]`` (default the weights); None if no edge."""
    _, indices, w, rows = csr_lists(G)
    values = w if values is None else values
    per_vertex = [[] for _ in range(G.num_vertices)]
    for e, (u, v) in enumerate(zip(rows, indices)):
        per_vertex[u if direction == "out" else v].append(values[e])
    f = {"sum": sum, "min": min, "max": max}[op]
    return [f(x) if x else None for x in per_vertex]


IDENTITY = {("sum", "f"): 0.0, ("min", "f"): np.inf, ("max", "f"): -np.inf,
            ("sum", "i"): 0, ("min", "i"): np.iinfo(np.int64).max, ("max", "i"): np.iinfo(np.int64).min}


@pytest.mark.parametrize("direction", ["out", "in"])
def test_neighbor_reduce_sum_against_scipy(backend, direction):
    for label, G, G0 in graphs(backend, "weighted"):
        out = npy(neighbor_reduce(G, lambda s, d, e: G.weights[e], "sum", direction=direction))
        A = G0.to_scipy().copy()  # to_scipy shares the graph's arrays
        ref = np.asarray(A.sum(axis=1 if direction == "out" else 0)).ravel()
        assert out.shape == (G.num_vertices,) and out.dtype == np.float64
        np.testing.assert_allclose(out, ref, rtol=1e-12, atol=1e-12, err_msg=label)
        # degree: sum of ones is the out/in-degree
        deg = npy(neighbor_reduce(G, lambda s, d, e: e * 0 + 1, "sum", direction=direction, dtype=np.int64))
        A.data[:] = 1
        assert deg.tolist() == np.asarray(A.sum(axis=1 if direction == "out" else 0)).ravel().astype(int).tolist()


@pytest.mark.parametrize("op", ["sum", "min", "max"])
@pytest.mark.parametrize("direction", ["out", "in"])
def test_neighbor_reduce_against_loop(backend, op, direction):
    for kind, dtype in (("weighted", np.float64), ("int", np.int64)):
        for label, G, G0 in graphs(backend, kind):
            out = npy(neighbor_reduce(G, lambda s, d, e: G.weights[e], op, direction=direction, dtype=dtype))
            assert out.dtype == dtype and out.shape == (G.num_vertices,)
            ref = reduce_reference(G0, op, direction)
            ident = IDENTITY[(op, np.dtype(dtype).kind)]
            want = [ident if r is None else r for r in ref]
            if op == "sum" and dtype == np.float64:
                np.testing.assert_allclose(out, want, rtol=1e-12, atol=1e-12, err_msg=label)
            else:
                assert out.tolist() == want, (label, op, direction)
            # vertices without edges get the identity
            empty = [v for v, r in enumerate(ref) if r is None]
            assert all(out[v] == ident for v in empty)


@pytest.mark.parametrize("direction", ["out", "in"])
def test_neighbor_reduce_min_max_neighbor_id(backend, direction):
    """edge_value can be any vectorized expression: here the neighbor's id on the other end."""
    for label, G, G0 in graphs(backend, "unweighted"):
        other = (lambda s, d, e: d) if direction == "out" else (lambda s, d, e: s)
        lo = npy(neighbor_reduce(G, other, "min", direction=direction, dtype=np.int64))
        hi = npy(neighbor_reduce(G, other, "max", direction=direction, dtype=np.int64))
        _, indices, _, rows = csr_lists(G0)
        vals = indices if direction == "out" else rows
        assert lo.tolist() == [IDENTITY[("min", "i")] if r is None else r
                               for r in reduce_reference(G0, "min", direction, vals)], label
        assert hi.tolist() == [IDENTITY[("max", "i")] if r is None else r
                               for r in reduce_reference(G0, "max", direction, vals)], label


@pytest.mark.parametrize("op", ["sum", "min", "max"])
def test_neighbor_reduce_frontier_subset(backend, op):
    xp = get_xp(backend)
    rng = np.random.default_rng(41)
    for label, G, G0 in graphs(backend, "weighted"):
        n = G.num_vertices
        ids = random_subset(rng, n)
        for direction in ("out", "in"):
            full = npy(neighbor_reduce(G, lambda s, d, e: G.weights[e], op, direction=direction))
            for f in (Frontier.from_ids(xp.asarray(ids), n), Frontier.from_ids(xp.asarray(ids), n).to_dense()):
                sub = npy(neighbor_reduce(G, lambda s, d, e: G.weights[e], op, frontier=f, direction=direction))
                assert sub.shape == (len(ids),)
                if op == "sum":  # float atomics on the GPU add in any order
                    np.testing.assert_allclose(sub, full[ids], rtol=1e-12, atol=1e-12, err_msg=label)
                else:
                    np.testing.assert_array_equal(sub, full[ids], err_msg=label)


def test_neighbor_reduce_bad_arguments(backend):
    G = CORPUS[4][1].to(backend)
    with pytest.raises(InputError, match="op='mean'"):
        neighbor_reduce(G, lambda s, d, e: s, "mean")
    with pytest.raises(InputError, match="direction='both'"):
        neighbor_reduce(G, lambda s, d, e: s, "sum", direction="both")


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_neighbor_reduce_min_max_exact_floats(backend, dtype):
    """Signed values over many magnitudes, not representable in float32: min/max are exact, not rounded."""
    rng = np.random.default_rng(51)
    n = 300
    src, dst = rng.integers(0, n, 3000), rng.integers(0, n, 3000)
    G0 = dgraph.from_edges(src, dst, directed=True, num_vertices=n + 5)
    vals0 = (rng.normal(size=G0.num_arcs) * 10.0 ** rng.integers(-20, 20, G0.num_arcs)).astype(dtype)
    vals0[::97] = np.inf
    vals0[::89] = -np.inf
    G = G0.to(backend)
    vals = get_xp(backend).asarray(vals0)
    rows = np.repeat(np.arange(G0.num_vertices), np.diff(npy(G0.indptr)))
    cols = npy(G0.indices)
    for op, ufunc, ident in (("min", np.minimum, np.inf), ("max", np.maximum, -np.inf)):
        for direction, key in (("out", rows), ("in", cols)):
            ref = np.full(G0.num_vertices, ident, dtype)
            ufunc.at(ref, key, vals0)
            got = npy(neighbor_reduce(G, lambda s, d, e: vals[e], op, direction=direction, dtype=dtype))
            assert got.dtype == dtype
            np.testing.assert_array_equal(got, ref, err_msg=f"{op} {direction}")
