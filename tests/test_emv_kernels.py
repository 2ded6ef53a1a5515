"""The message-buffer kernels against plain numpy references, and the multi-hop cost model."""

import numpy as np
import pytest

import dgraph
from dgraph import emv
from dgraph.emv import kernels, replicas
from dgraph.emv.frame import parse_combiner


def _segments(rng, n, m):
    seg = np.sort(rng.integers(0, n, m))
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(seg, minlength=n), out=indptr[1:])
    return seg, indptr


def _reference(op, seg, vals, n, ident):
    out = np.full(n, ident, dtype=vals.dtype)
    {"sum": np.add, "min": np.minimum, "max": np.maximum, "multiply": np.multiply}[op].at(out, seg, vals)
    return out


@pytest.mark.parametrize("op", ["sum", "min", "max", np.multiply])
@pytest.mark.parametrize("dtype", ["f8", "i8"])
def test_segment_reduce_with_empty_segments_and_valid_flags(op, dtype):
    rng = np.random.default_rng(1)
    n, m = 50, 300
    seg, indptr = _segments(rng, n, m)
    vals = rng.integers(-5, 6, m).astype(dtype)
    valid = rng.random(m) < 0.7
    comb = parse_combiner(op, np.dtype(dtype))
    out, counts = kernels.segment_reduce(np, comb, indptr, vals, valid)
    name = op if isinstance(op, str) else op.__name__
    np.testing.assert_array_equal(out, _reference(name, seg[valid], vals[valid], n, comb.identity))
    np.testing.assert_array_equal(counts, np.bincount(seg[valid], minlength=n))


@pytest.mark.parametrize("op", ["sum", "min", "max"])
def test_gather_reduce_masks_and_early_exit(op):
    rng = np.random.default_rng(2)
    n, m = 40, 400
    seg, indptr = _segments(rng, n, m)
    heads = rng.integers(0, n, m)
    x = rng.integers(0, 4, n).astype(np.float64)
    hmask = rng.random(n) < 0.6
    tmask = rng.random(n) < 0.8
    comb = parse_combiner(op, np.dtype("f8"))
    ok = hmask[heads] & tmask[seg]
    ref = _reference(op, seg[ok], x[heads][ok], n, comb.identity)
    bound = None if op == "sum" else (x[hmask].min() if op == "min" else x[hmask].max())
    out, counts = kernels.gather_reduce(np, comb, indptr, heads, x, hmask, tmask, bound)
    np.testing.assert_array_equal(out, ref)
    np.testing.assert_array_equal(counts > 0, np.bincount(seg[ok], minlength=n) > 0)


def test_head_major_index_and_push_reduce():
    rng = np.random.default_rng(3)
    n, m = 30, 200
    seg, indptr = _segments(rng, n, m)
    heads = rng.integers(0, n, m)
    hptr, rid = kernels.head_major(np, heads, n)
    np.testing.assert_array_equal(rid, np.argsort(heads, kind="stable"))
    np.testing.assert_array_equal(np.diff(hptr), np.bincount(heads, minlength=n))
    active = np.unique(rng.integers(0, n, 8))
    x = rng.random(len(active))
    comb = parse_combiner("min", np.dtype("f8"))
    scratch = (np.empty(n), np.zeros(n, bool), np.empty(n, np.int64))
    ebound = int(indptr[n // 2])
    tails, vals = kernels.push_reduce(np, comb, active, (hptr, rid, seg), x, ebound, scratch)
    order = np.argsort(tails)  # tails come in the order first reached
    tails, vals = tails[order], vals[order]
    assert not scratch[1].any()  # the seen flags are left clear for the next send
    pos = {h: i for i, h in enumerate(active)}
    keep = np.isin(heads, active) & (np.arange(m) < ebound)
    ref = _reference("min", seg[keep], np.array([x[pos[h]] for h in heads[keep]]), n, np.inf)
    np.testing.assert_array_equal(tails, np.flatnonzero(np.bincount(seg[keep], minlength=n)))
    np.testing.assert_array_equal(vals, ref[tails])
    t2, v2 = kernels.scatter_combine(np, comb, seg[keep], np.array([x[pos[h]] for h in heads[keep]]))
    np.testing.assert_array_equal(t2, tails)
    np.testing.assert_array_equal(v2, vals)


def test_cost_model_goes_deeper_when_exchanges_are_dear(monkeypatch):
    G = dgraph.generate("grid", rows=40, cols=40)
    from dgraph.backend.primitives import row_ids

    n = G.num_vertices
    src = row_ids(G.indptr)
    cindptr, cindices = G.indptr, G.indices  # undirected: the CSC is the CSR
    parts = [np.arange(q * n // 4, (q + 1) * n // 4) for q in range(4)]
    per = [replicas.hop_sets(cindptr, cindices, owned, n, 4) for owned in parts]
    assert [len(lv) for lv in per[1][0]] == [400, 80, 80, 80, 80]  # a middle strip: 40 a side per hop
    assert replicas.choose_hops(per, 9, "tasks", 4)[0] == 4
    monkeypatch.setitem(replicas.LATENCY, "local", 0.0)  # free exchanges: extra hops only add work
    best, costs = replicas.choose_hops(per, 9, "local", 4)
    assert best == 1 and costs[1] < costs[2] < costs[3]
    assert src.shape == (G.num_arcs,)


def test_auto_hops_records_the_estimates_and_keeps_the_answer():
    G = dgraph.generate("grid", rows=16, cols=16)
    from dgraph.emv import examples as ex

    r = ex.bfs(G.partition(4, client=False), 0, hops="auto")
    setup = r.stats[r.stats["setup"] == 1]
    assert len(setup) == 1 and "n=1:" in setup["estimates"].iloc[0]
    np.testing.assert_array_equal(r.depth, dgraph.bfs(G, 0).depth)


def test_materialized_buffer_across_partitions_equals_one_partition():
    """MESSAGE and MLIST steps (the buffer is written) give the same bits on 1-4 partitions and hops."""
    rng = np.random.default_rng(4)
    G = dgraph.from_edges(rng.integers(0, 60, 300), rng.integers(0, 60, 300), directed=True,
                          weights=rng.uniform(0, 3, 300))

    @emv.edge
    def send(e):
        e.send(e.head.x * e.weight + e.tail.x, where=e.head.id != e.tail.id)

    @emv.message
    def clip(m):
        m.value = np.minimum(m.value, 50.0)
        m.drop(where=m.head.x > 40)

    @emv.message_list
    def fold(v, msgs):
        v.x = 0.5 * v.x + msgs.sum() / (msgs.count() + 1)
        v.hi = np.maximum(v.hi, msgs.max(msgs.value - msgs.weight))

    prog = emv.Program({"x": ("f8", 1.0), "hi": ("f8", 0.0)}, steps=[send, clip, fold], max_iterations=6)
    ref = prog.run(G)
    for p in (2, 3, 4):
        for hops in (1, 2):
            r = prog.run(G.partition(p, method="hash", client=False), hops=hops)
            np.testing.assert_array_equal(r.x, ref.x)
            np.testing.assert_array_equal(r.hi, ref.hi)


@pytest.mark.parametrize("backend", ["numpy", pytest.param("cupy", marks=pytest.mark.gpu)])
@pytest.mark.parametrize("combiner", ["min", "max"])
def test_nan_messages_dropped_alike_by_push_and_gather(monkeypatch, backend, combiner):
    """A NaN min / max message counts as received and combines as nothing, whether the send pushes
    from few heads (scatter, atomics) or every tail gathers (the combine from the identity): the
    push used to keep a NaN that arrived first (CPU) or rank it above +inf (CuPy's ordered keys)."""
    from dgraph.backend import gpu_available, to_numpy
    from dgraph.emv import fuse, sends

    if backend == "cupy" and not gpu_available():
        pytest.skip("no usable CUDA GPU / CuPy")

    @emv.edge_list
    def send(v, edges):
        edges.send(emv.where(v.x > 0.7, v.x * float("nan"), v.x))

    @emv.vertex
    def keep(v, msg):
        v.got = emv.where(v.received, msg, -5.0)
        v.n = v.n + v.received.astype("i8")
        v.set_active(v.received & (v.n < 2))

    rng = np.random.default_rng(6)
    G = dgraph.from_edges(rng.integers(0, 60, 400), rng.integers(0, 60, 400), num_vertices=60, directed=True)
    init = {"x": rng.random(60)}
    runs = []
    for share, fused_min in ((2.0, 0), (0.0, 0), (2.0, 1 << 30), (0.0, 1 << 30)):
        monkeypatch.setattr(sends, "SPARSE_SHARE", share)
        monkeypatch.setattr(fuse, "FUSE_MIN", fused_min)
        prog = emv.Program({"x": "f8", "got": "f8", "n": "i8"}, combiner=combiner, steps=[send, keep],
                           max_iterations=3)
        r = prog.run(G.to(backend), init=init, active=list(range(0, 60, 3)))
        runs.append({c: to_numpy(r.raw(c)) for c in ("got", "n")})
    assert not np.isnan(runs[0]["got"]).any()
    for other in runs[1:]:
        for c in ("got", "n"):
            np.testing.assert_array_equal(other[c], runs[0][c], err_msg=c)
