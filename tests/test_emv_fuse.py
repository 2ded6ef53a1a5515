"""The fused VERTEX loop (dgraph/emv/fuse.py) and the CPU send helpers (push over the CSR, the
active-head test, the early-exit bound): the same answers as the built-ins and as the vectorized
path, on the odd and random graphs of the corpus, with 1-4 partitions and 1-3 hops of replicas.

``FUSE_MIN`` is set to 0 so the fused loop runs on these small graphs;
``dgraph.config.emv_fuse = False`` gives the vectorized path to compare with."""

import numpy as np
import pytest
from graphs import corpus, partition_targets, weighted

import dgraph
from dgraph.emv import examples as ex
from dgraph.emv import fuse, kernels, vertex_steps
from dgraph.emv.frame import parse_combiner

CASES = list(corpus(30, seed=17))


@pytest.fixture
def fused(monkeypatch):
    monkeypatch.setattr(fuse, "FUSE_MIN", 0)
    monkeypatch.setattr(dgraph.config, "emv_fuse", True)



def _used(prog):
    return sum(k is not None for k in prog.fused.values())


@pytest.mark.parametrize("queue", [True, False], ids=["bfs-q", "bfs-n"])
def test_fused_bfs_equals_builtin(fused, queue):
    used = 0
    for label, kw in CASES:
        G = dgraph.from_edges(**kw)
        if G.num_vertices == 0:
            continue
        src = G.vertex_ids()[G.num_vertices // 2]
        ref = dgraph.bfs(G, src).depth
        for where, T, hops in partition_targets(G):
            prog = ex.bfs_program.__wrapped__(queue)
            r = prog.run(T, init={"depth": {src: 0}}, active=[src] if queue else None, hops=hops)
            np.testing.assert_array_equal(r.depth, ref, err_msg=f"{label} {where}")
            used += _used(prog)
    assert used >= len(CASES)  # every run above took the fused loop


@pytest.mark.parametrize("queue", [True, False], ids=["sssp-q", "sssp-n"])
def test_fused_sssp_equals_builtin(fused, queue):
    rng = np.random.default_rng(4)
    used = 0
    for label, kw in CASES:
        if not len(kw["src"]):
            continue
        G = dgraph.from_edges(**weighted(kw, rng))
        src = G.vertex_ids()[0]
        ref = dgraph.sssp(G, src).distance
        for where, T, hops in partition_targets(G):
            prog = ex.sssp_program.__wrapped__(queue)
            r = prog.run(T, init={"dist": {src: 0.0}}, active=[src] if queue else None, hops=hops)
            np.testing.assert_array_equal(r.dist, ref, err_msg=f"{label} {where}")
            used += _used(prog)
    assert used > 0


def test_fused_pagerank_same_bits_as_vectorized_and_builtin(fused, monkeypatch):
    used = 0
    for label, kw in CASES:
        G = dgraph.from_edges(**kw)
        n = G.num_vertices
        ref = dgraph.pagerank(G, iterations=20).pagerank
        for where, T, _ in partition_targets(G):
            prog = ex.pagerank_program.__wrapped__(iterations=20)
            r = prog.run(T, init={"rank": 1.0 / n if n else 0.0})
            used += _used(prog)
            monkeypatch.setattr(dgraph.config, "emv_fuse", False)
            plain = ex.pagerank_program.__wrapped__(iterations=20)
            v = plain.run(T, init={"rank": 1.0 / n if n else 0.0})
            monkeypatch.setattr(dgraph.config, "emv_fuse", True)
            assert _used(plain) == 0
            np.testing.assert_array_equal(r.rank, v.rank, err_msg=f"{label} {where}")
            np.testing.assert_allclose(r.rank, ref, rtol=0, atol=1e-9, err_msg=f"{label} {where}")
    assert used > 0


def _ops_program(message="f8", field="f8"):
    """One send and a VERTEX step using every operation the fused loop compiles."""

    @dgraph.emv.edge_list
    def send(v, edges):
        edges.send(v.x * 3 - v.out_degree, where=v.flag | (v.k % 3 == 0))

    @dgraph.emv.vertex
    def update(v, msg):
        q = v.k // 2 - (v.k % 5) + (v.k ^ 6) + (v.k & 3) + (v.k | 8) + ~v.k - (-v.k)
        q = q + v.k // (v.out_degree - 1) + v.k % (v.out_degree - 2)  # integer division by zero: 0
        r = msg / (v.out_degree - 1) + abs(-v.x) + dgraph.emv.where(v.received, msg, -1.5)
        v.y = dgraph.emv.where(~v.flag & (r > q), r, q * 1.0) + v.graph.num_vertices / (v.graph.num_edges + 1)
        v.k = q + (v.x > 0.5).astype("i8") + (msg != msg).astype(np.int64)
        v.flag = (msg >= 2.0) ^ v.flag ^ (r.astype(bool) == (r <= 1e300))
        v.x = v.x * 0.5 + dgraph.emv.where(r < 0, float("-inf"), dgraph.emv.where(r > 1e300, float("nan"), 0.25))
        v.vote_halt(~v.received | (q < 0))

    return dgraph.emv.Program({"x": field, "y": "f8", "k": "i8", "flag": bool}, message=message,
                              combiner="sum", steps=[send, update], max_iterations=3)


def test_fused_ops_same_bits_as_vectorized(fused, monkeypatch):
    rng = np.random.default_rng(9)
    used = 0
    for label, kw in CASES[:20]:
        G = dgraph.from_edges(**kw)
        n = G.num_vertices
        init = {"x": rng.random(n), "k": rng.integers(-50, 50, n), "flag": rng.random(n) < 0.3}
        for where, T, hops in partition_targets(G, (1, 2, 3)):
            prog = _ops_program()
            r = prog.run(T, init=init, hops=hops)
            used += _used(prog)
            monkeypatch.setattr(dgraph.config, "emv_fuse", False)
            v = _ops_program().run(T, init=init, hops=hops)
            monkeypatch.setattr(dgraph.config, "emv_fuse", True)
            for c in ("x", "y", "k", "flag"):
                np.testing.assert_array_equal(r.raw(c), v.raw(c), err_msg=f"{label} {where} {c}")
    assert used > 0


def test_unfusable_steps_keep_the_vectorized_path(fused):
    """np.minimum (numba's sign of a zero differs), ** and float32 fields are not compiled; the run
    still gives the built-in's answer."""

    @dgraph.emv.edge_list
    def send(v, edges):
        edges.send(v.d + 1)

    @dgraph.emv.vertex
    def minimum(v, msg):
        v.d = np.minimum(v.d, msg)

    @dgraph.emv.vertex
    def power(v, msg):
        v.d = dgraph.emv.where(msg < v.d, msg, v.d) ** 1

    G = dgraph.from_edges([0, 1, 2, 4], [1, 2, 3, 5], num_vertices=7)
    ref = dgraph.bfs(G, 0).depth.astype(float)
    ref[ref < 0] = np.inf
    for step, dtype in ((minimum, "f8"), (power, "f8"), (minimum, "f4")):
        prog = dgraph.emv.Program({"d": (dtype, np.inf)}, message=dtype, combiner="min", steps=[send, step],
                                  max_iterations=8)
        r = prog.run(G, init={"d": {0: 0.0}})
        np.testing.assert_array_equal(r.d, ref.astype(dtype))
        assert _used(prog) == 0 and prog.fused


def test_fuse_env_off_and_threshold(monkeypatch):
    G = dgraph.from_edges([0, 1], [1, 2])
    prog = ex.bfs_program.__wrapped__(True)
    prog.run(G, init={"depth": {0: 0}}, active=[0])
    assert not prog.fused  # below FUSE_MIN: nothing compiled
    monkeypatch.setattr(fuse, "FUSE_MIN", 0)
    monkeypatch.setattr(dgraph.config, "emv_fuse", False)
    r = prog.run(G, init={"depth": {0: 0}}, active=[0])
    assert _used(prog) == 0
    np.testing.assert_array_equal(r.depth, [0, 1, 2])
    # a program that compiled its loop (the examples' programs are built once and reused) still
    # takes the vectorized path when the option turns fusing off
    monkeypatch.setattr(dgraph.config, "emv_fuse", True)
    prog.run(G, init={"depth": {0: 0}}, active=[0])
    assert _used(prog) > 0
    monkeypatch.setattr(dgraph.config, "emv_fuse", False)

    def refuse(*a, **k):
        raise AssertionError("the fused loop ran with dgraph.config.emv_fuse off")

    monkeypatch.setattr(vertex_steps, "numba_loop", refuse)
    np.testing.assert_array_equal(prog.run(G, init={"depth": {0: 0}}, active=[0]).depth, [0, 1, 2])


# -- the CPU send helpers ---------------------------------------------------------------------

def test_push_over_csr_equals_head_major_index():
    """One partition pushes along the graph's CSR (no slot index): the same tails and values as the
    head-major index into the buffer, for sum (order of heads), min and max, with duplicates and self
    loops."""
    rng = np.random.default_rng(2)
    for directed in (False, True):
        kw = dict(src=rng.integers(0, 40, 300), dst=rng.integers(0, 40, 300), directed=directed, num_vertices=43)
        kw["src"][:5] = kw["dst"][:5]  # self loops
        G = dgraph.from_edges(**kw)
        n = G.num_vertices
        cindptr, cindices = (G.csc(edge_ids=False)[:2] if directed else (G.indptr, G.indices))
        hptr, rid = kernels.head_major(np, cindices, n)
        etail = np.repeat(np.arange(n), np.diff(cindptr))
        heads = np.unique(rng.integers(0, n, 12))
        x = rng.random(len(heads))
        for name in ("sum", "min", "max"):
            comb = parse_combiner(name, np.dtype("f8"))
            scratch = (np.empty(n), np.zeros(n, bool), np.empty(n, np.int64))
            t1, v1 = kernels.push_reduce(np, comb, heads, (G.indptr.astype(np.int64), None, G.indices), x, 1 << 40,
                                         scratch)
            t2, v2 = kernels.push_reduce(np, comb, heads, (hptr, rid, etail), x, len(cindices), scratch)
            o1, o2 = np.argsort(t1), np.argsort(t2)
            np.testing.assert_array_equal(t1[o1], t2[o2])
            np.testing.assert_array_equal(v1[o1], v2[o2])
            seg, pos = [], []
            for i, h in enumerate(heads):  # reference: every out-edge, heads in order
                for t in G.indices[G.indptr[h]:G.indptr[h + 1]]:
                    seg.append(t)
                    pos.append(i)
            ref = {}
            for t, i in zip(seg, pos):
                ref[t] = x[i] if t not in ref else (ref[t] + x[i] if name == "sum" else
                                                    (min if name == "min" else max)(ref[t], x[i]))
            assert sorted(ref) == t1[o1].tolist()
            np.testing.assert_array_equal(v1[o1], [ref[t] for t in sorted(ref)])


def test_active_heads_limits():
    rng = np.random.default_rng(8)
    hptr = np.concatenate([[0], np.cumsum(rng.integers(0, 5, 100))]).astype(np.int64)
    for _ in range(50):
        mask = rng.random(100) < rng.random()
        heads = np.flatnonzero(mask)
        work = int((hptr[heads + 1] - hptr[heads]).sum())
        max_heads, max_work = int(rng.integers(0, 100)), float(rng.integers(0, 300))
        got = kernels.active_heads(np, mask, hptr, max_heads, max_work)
        if len(heads) <= max_heads and work < max_work:
            np.testing.assert_array_equal(got, heads)
        else:
            assert got is None


def test_best_sent_bound():
    x = np.array([3.0, np.nan, 1.0, 7.0, -2.0])
    mask = np.array([True, True, False, True, False])
    mn, mx = parse_combiner("min", x.dtype), parse_combiner("max", x.dtype)
    assert kernels.best_sent(np, mn, x, mask) == 3.0 and kernels.best_sent(np, mx, x, mask) == 7.0
    assert kernels.best_sent(np, mn, x) == -2.0 and kernels.best_sent(np, mx, x) == 7.0
    assert kernels.best_sent(np, mn, x, np.zeros(5, bool)) == np.inf
    assert kernels.best_sent(np, parse_combiner("min", np.dtype("i8")), np.array([4, 2], np.int64)) == 2


def test_fused_matching_same_as_vectorized(fused, monkeypatch):
    """Six steps, three sends, vertex-id fields and modulo: the fused run equals the vectorized one."""
    rng = np.random.default_rng(6)
    for i in range(6):
        nl, nr = int(rng.integers(1, 30)), int(rng.integers(1, 30))
        src, dst = rng.integers(0, nl, 3 * nl), nl + rng.integers(0, nr, 3 * nl)
        G = dgraph.from_edges(src, dst, num_vertices=nl + nr + 1, directed=bool(i % 2))
        r = dgraph.maximal_matching(G, seed=i)
        monkeypatch.setattr(dgraph.config, "emv_fuse", False)
        v = dgraph.maximal_matching(G, seed=i)
        monkeypatch.setattr(dgraph.config, "emv_fuse", True)
        np.testing.assert_array_equal(r.mate, v.mate)
        mate = dict(zip(r.vertex.tolist(), r.mate.tolist()))
        assert all(mate[m] == u for u, m in mate.items() if m != -1)  # a matching: partners agree
