"""EMV on one whole CuPy shard with the device path (dgraph/emv/device.py): the fused CUDA VERTEX
kernel, the atomic push from the queued heads, the row-sum send and the batched fixed-iteration run.
Each gives the vectorized CuPy path's bits (``dgraph.config.emv_fuse = False``) and the built-ins'
answers, on the corpus' odd and random graphs; ``FUSE_MIN = 0`` so the kernels run on small graphs, and
``SPARSE_SHARE`` is raised so queue-mode sends take the push."""

import numpy as np
import pytest
from graphs import corpus, weighted

import dgraph
from dgraph import emv
from dgraph.backend import gpu_available, to_numpy
from dgraph.emv import examples as ex
from dgraph.emv import fuse, runtime, sends

pytestmark = pytest.mark.gpu

CASES = list(corpus(40, seed=23))


@pytest.fixture(autouse=True)
def _needs_gpu():
    if not gpu_available():
        pytest.skip("no usable CUDA GPU / CuPy")


@pytest.fixture
def fused(monkeypatch):
    monkeypatch.setattr(fuse, "FUSE_MIN", 0)
    monkeypatch.setattr(dgraph.config, "emv_fuse", True)


def _cuda_used(prog):
    return sum(v is not None for k, v in prog.fused.items() if k[0] == "cuda")


def _messages(r):
    """The per-iteration message counts (records: an empty graph's stats frame has no columns)."""
    return [s["messages"] for s in r.stats_records]


def _plain(monkeypatch, make, run):
    monkeypatch.setattr(dgraph.config, "emv_fuse", False)
    try:
        prog = make()
        return run(prog)
    finally:
        monkeypatch.setattr(dgraph.config, "emv_fuse", True)


@pytest.mark.parametrize("share", [1 / 16, 2.0], ids=["auto", "push"])
@pytest.mark.parametrize("queue", [True, False], ids=["q", "n"])
def test_bfs_sssp_device_path(fused, monkeypatch, queue, share):
    monkeypatch.setattr(sends, "SPARSE_SHARE", share)
    rng = np.random.default_rng(5)
    used = ran = 0
    for label, kw in CASES:
        if not len(kw["src"]):
            continue
        ran += 1
        G = dgraph.from_edges(**weighted(kw, rng))
        Gc = G.to("cupy")
        src = G.vertex_ids()[len(G.vertex_ids()) // 2]
        prog = ex.bfs_program.__wrapped__(queue)
        r = prog.run(Gc, init={"depth": {src: 0}}, active=[src] if queue else None)
        np.testing.assert_array_equal(to_numpy(r.raw("depth")), dgraph.bfs(G, src).depth, err_msg=label)
        used += _cuda_used(prog)
        prog = ex.sssp_program.__wrapped__(queue)
        r = prog.run(Gc, init={"dist": {src: 0.0}}, active=[src] if queue else None)
        np.testing.assert_array_equal(to_numpy(r.raw("dist")), dgraph.sssp(G, src).distance, err_msg=label)
        used += _cuda_used(prog)
        msgs = _messages(r)
        plain = _plain(monkeypatch, lambda: ex.sssp_program.__wrapped__(queue),
                       lambda p: p.run(Gc, init={"dist": {src: 0.0}}, active=[src] if queue else None))
        assert msgs == _messages(plain), label
    assert used >= ran  # most runs take the CUDA VERTEX kernel (one whose source sends nothing may not)


def test_pagerank_batched_same_bits_as_vectorized(fused, monkeypatch):
    used = 0
    for label, kw in CASES:
        G = dgraph.from_edges(**kw)
        n = G.num_vertices
        Gc = G.to("cupy")
        init = {"rank": 1.0 / n if n else 0.0}
        prog = ex.pagerank_program.__wrapped__(iterations=12)
        r = prog.run(Gc, init=init)
        used += _cuda_used(prog)
        ref = dgraph.pagerank(G, iterations=12).pagerank
        np.testing.assert_allclose(to_numpy(r.raw("rank")), ref, rtol=0, atol=1e-12, err_msg=label)
        # the per-superstep path (no batch) gives the batch's bits and records
        monkeypatch.setattr(runtime.EMVRun, "run_steps", lambda *a: None)
        one = ex.pagerank_program.__wrapped__(iterations=12).run(Gc, init=init)
        monkeypatch.undo()
        monkeypatch.setattr(fuse, "FUSE_MIN", 0)
        np.testing.assert_array_equal(to_numpy(r.raw("rank")), to_numpy(one.raw("rank")), err_msg=label)
        assert _messages(r) == _messages(one), label
        assert len(r.stats) == (12 if n else 0), label
    assert used > 0


def _ops_program(order, floor):
    """Every operation the CUDA kernel compiles, a halt vote and set_active; ``order`` puts the send
    before or after the VERTEX step (the queue is then read one iteration later); ``floor`` adds a
    ``//``, which the GPU kernel leaves to the vectorized path."""

    @emv.edge_list
    def send(v, edges):
        edges.send(v.x * 3 - v.out_degree, where=v.flag | (v.k > 2))

    @emv.vertex
    def update(v, msg):
        q = (v.k ^ 6) + (v.k & 3) + (v.k | 8) + ~v.k - (-v.k) + abs(v.k - 7)
        if floor:
            q = q + v.k // 1 * 0
        r = msg / (v.out_degree - 1) + abs(-v.x) + emv.where(v.received, msg, -1.5)
        v.y = emv.where(~v.flag & (r > q), r, q * 1.0) + v.graph.num_vertices / (v.graph.num_edges + 1)
        v.k = q + (v.x > 0.5).astype("i8") + (msg != msg).astype(np.int64)
        v.flag = (msg >= 2.0) ^ v.flag ^ (r.astype(bool) == (r <= 1e300))
        v.x = v.x * 0.5 + emv.where(r < 0, float("-inf"), emv.where(r > 1e300, float("nan"), 0.25))
        v.set_active(v.flag | (q > 30))
        v.vote_halt(~v.received | (q < 0))

    steps = [send, update] if order == "send-first" else [update, send]
    return emv.Program({"x": "f8", "y": "f8", "k": "i8", "flag": bool}, message="f8", combiner="max",
                       steps=steps, max_iterations=4)


@pytest.mark.parametrize("share", [1 / 16, 2.0], ids=["auto", "push"])
@pytest.mark.parametrize("order", ["send-first", "vertex-first"])
def test_ops_same_bits_as_vectorized(fused, monkeypatch, order, share):
    monkeypatch.setattr(sends, "SPARSE_SHARE", share)
    rng = np.random.default_rng(3)
    used = 0
    for label, kw in CASES[:25]:
        G = dgraph.from_edges(**kw)
        n = G.num_vertices
        Gc = G.to("cupy")
        init = {"x": rng.random(n), "k": rng.integers(-50, 50, n), "flag": rng.random(n) < 0.3}
        for floor in (True, False):
            prog = _ops_program(order, floor)
            r = prog.run(Gc, init=init)
            if floor:
                assert _cuda_used(prog) == 0
            used += _cuda_used(prog)
            v = _plain(monkeypatch, lambda floor=floor: _ops_program(order, floor), lambda p: p.run(Gc, init=init))
            for c in ("x", "y", "k", "flag"):
                np.testing.assert_array_equal(to_numpy(r.raw(c)), to_numpy(v.raw(c)), err_msg=f"{label} {c}")
            assert _messages(r) == _messages(v), label
    assert used > 0


def test_unfused_vertex_step_keeps_queue_mode_right(fused, monkeypatch):
    """A VERTEX step the kernel cannot take (np.minimum) marks vertices on the vectorized path: the
    next send scans the marks instead of reading the queue."""
    monkeypatch.setattr(sends, "SPARSE_SHARE", 2.0)

    @emv.edge_list
    def relax(v, edges):
        edges.send(v.d + 1)

    @emv.vertex
    def settle(v, msg):
        better = msg < v.d
        v.d = np.minimum(v.d, msg)
        v.set_active(better)

    for label, kw in CASES[:20]:
        G = dgraph.from_edges(**kw)
        if G.num_vertices == 0:
            continue
        src = G.vertex_ids()[0]
        prog = emv.Program({"d": ("f8", np.inf)}, message="f8", combiner="min", steps=[relax, settle])
        r = prog.run(G.to("cupy"), init={"d": {src: 0.0}}, active=[src])
        ref = dgraph.bfs(G, src).depth.astype(float)
        ref[ref < 0] = np.inf
        np.testing.assert_array_equal(to_numpy(r.raw("d")), ref, err_msg=label)
        assert _cuda_used(prog) == 0


def _sends_compiled(prog):
    return sum(v is not None for k, v in prog.fused.items() if k[0] == "cuda-send")


@pytest.mark.parametrize("share", [1 / 16, 2.0], ids=["auto", "push"])
def test_compiled_sends_mixed_conditions_and_two_readers(fused, monkeypatch, share):
    """Compiled sends (dgraph/emv/device_send.py) with head, tail, edge-weight and mixed head/tail
    conditions, read by two VERTEX steps after one send (only the last puts the dense buffers back):
    the vectorized path's bits and message counts, queue mode and not."""
    monkeypatch.setattr(sends, "SPARSE_SHARE", share)

    def make(queue):
        @emv.edge_list
        def send(v, edges):
            edges.send(emv.where(v.k > 3, v.d + edges.weight, v.d * 2 - edges.tail.d),
                       where=(v.d < 1e300) & (edges.tail.k != v.k) & (edges.tail.d >= 0.0))

        @emv.vertex
        def first(v, msg):
            v.seen = v.seen + v.received.astype("i8")

        @emv.vertex
        def second(v, msg):
            better = v.received & (msg < v.d)
            v.d = emv.where(better, msg, v.d)
            if queue:
                v.set_active(better)
            else:
                v.vote_halt(~better)

        return emv.Program({"d": ("f8", np.inf), "k": "i8", "seen": "i8"}, message="f8", combiner="min",
                           steps=[send, first, second], max_iterations=12)

    rng = np.random.default_rng(11)
    compiled = 0
    for label, kw in CASES[:30]:
        G = dgraph.from_edges(**weighted(kw, rng))
        n = G.num_vertices
        if n == 0:
            continue
        Gc = G.to("cupy")
        init = {"d": {G.vertex_ids()[0]: 0.0, G.vertex_ids()[-1]: 1.5}, "k": rng.integers(0, 8, n)}
        for queue in (True, False):
            act = [G.vertex_ids()[0], G.vertex_ids()[-1]] if queue else None
            prog = make(queue)
            r = prog.run(Gc, init=init, active=act)
            compiled += _sends_compiled(prog)
            v = _plain(monkeypatch, lambda q=queue: make(q), lambda p: p.run(Gc, init=init, active=act))
            for c in ("d", "seen"):
                np.testing.assert_array_equal(to_numpy(r.raw(c)), to_numpy(v.raw(c)), err_msg=f"{label} {c}")
            assert _messages(r) == _messages(v), label
    assert compiled > 0


def test_compiled_matching_same_as_vectorized(fused, monkeypatch):
    """Matching's sends (a head/tail mixed condition, scalar graph sizes) compiled; its VERTEX steps
    use %, which stays vectorized."""
    rng = np.random.default_rng(4)
    for seed in range(6):
        G = dgraph.from_edges(rng.integers(0, 40, 150), 40 + rng.integers(0, 30, 150), num_vertices=70)
        got = to_numpy(dgraph.maximal_matching(G.to("cupy"), seed=seed).mate)
        monkeypatch.setattr(dgraph.config, "emv_fuse", False)
        want = to_numpy(dgraph.maximal_matching(G.to("cupy"), seed=seed).mate)
        monkeypatch.setattr(dgraph.config, "emv_fuse", True)
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(got, dgraph.maximal_matching(G, seed=seed).mate)


def test_compiled_send_scalar_error_as_vectorized(fused):
    """A send whose scalar part raises in Python (integer 1 / 0 on an edgeless graph) raises the
    vectorized path's error: the compiled kernel is not used for it."""

    @emv.edge_list
    def send(v, edges):
        edges.send(v.x + 1 / v.graph.num_edges)

    @emv.vertex
    def keep(v, msg):
        v.x = emv.where(v.received, msg, v.x)

    G = dgraph.from_edges([], [], num_vertices=5).to("cupy")
    prog = emv.Program({"x": "f8"}, message="f8", combiner="max", steps=[send, keep], max_iterations=2)
    with pytest.raises(ZeroDivisionError):
        prog.run(G)


def test_pooled_buffers_across_programs_with_other_identities(fused, monkeypatch):
    """A run's device buffers go to the next run on the same graph: a max program after a min one
    (same message dtype, other identity) must not push into buffers left at +inf."""
    monkeypatch.setattr(sends, "SPARSE_SHARE", 2.0)

    def make(comb):
        @emv.edge_list
        def send(v, edges):
            edges.send(v.x + 1.0)

        @emv.vertex
        def keep(v, msg):
            changed = v.received & (msg != v.x)
            v.x = emv.where(v.received, msg, v.x)
            v.set_active(changed & (v.x < 6.0) & (v.x > -6.0))

        return emv.Program({"x": "f8"}, message="f8", combiner=comb, steps=[send, keep], max_iterations=4)

    G = dgraph.generate("rmat", scale=8, seed=3)
    Gc = G.to("cupy")
    init = {"x": np.random.default_rng(2).random(G.num_vertices)}
    src = list(range(0, G.num_vertices, 7))
    for comb in ("min", "max", "min", "max"):
        got = to_numpy(make(comb).run(Gc, init=init, active=src).raw("x"))
        want = _plain(monkeypatch, lambda c=comb: make(c), lambda p: p.run(Gc, init=init, active=src))
        np.testing.assert_array_equal(got, to_numpy(want.raw("x")), err_msg=comb)


def test_weight_dtype_the_kernels_do_not_take(fused):
    """float16 weights: a send that does not read them still compiles (a placeholder), one that does
    keeps the vectorized path; both give the built-ins' answers."""
    rng = np.random.default_rng(8)
    src, dst = rng.integers(0, 300, 2000), rng.integers(0, 300, 2000)
    w = rng.random(2000).astype(np.float16)
    G = dgraph.from_edges(src, dst, weights=w, num_vertices=300)
    Gc = G.to("cupy")
    np.testing.assert_array_equal(to_numpy(ex.bfs(Gc, 0).raw("depth")), dgraph.bfs(G, 0).depth)
    np.testing.assert_array_equal(to_numpy(ex.sssp(Gc, 0).raw("dist")), to_numpy(ex.sssp(G, 0).raw("dist")))
