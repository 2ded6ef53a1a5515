"""EMV on CuPy: the examples give the numpy answers (PageRank to 1e-12), one and several partitions."""

import numpy as np
import pytest
from graphs import corpus, weighted

import dgraph
from dgraph import emv
from dgraph.backend import gpu_available, to_numpy
from dgraph.emv import examples as ex

pytestmark = pytest.mark.gpu


@pytest.fixture(autouse=True)
def _needs_gpu():
    if not gpu_available():
        pytest.skip("no usable CUDA GPU / CuPy")


def _targets(G):
    yield G
    for p in (2, 3):
        if p <= G.num_vertices:
            yield G.partition(p, method="hash", client=False)


def test_examples_on_cupy():
    rng = np.random.default_rng(9)
    for label, kw in corpus(25, seed=41):
        if not len(kw["src"]):
            continue
        G = dgraph.from_edges(**weighted(kw, rng))
        Gc = G.to("cupy")
        src = G.vertex_ids()[0]
        for T in _targets(Gc):
            np.testing.assert_allclose(to_numpy(ex.pagerank(T, iterations=15).raw("rank")),
                                       dgraph.pagerank(G, iterations=15).pagerank, rtol=0, atol=1e-12, err_msg=label)
            for q in (True, False):
                assert np.array_equal(to_numpy(ex.bfs(T, src, queue=q).raw("depth")), dgraph.bfs(G, src).depth), label
                assert np.array_equal(to_numpy(ex.sssp(T, src, queue=q).raw("dist")),
                                      dgraph.sssp(G, src).distance), label


def test_matching_and_custom_combiner_on_cupy():
    rng = np.random.default_rng(1)
    G = dgraph.from_edges(rng.integers(0, 40, 120), 40 + rng.integers(0, 30, 120), num_vertices=70)
    ref = dgraph.maximal_matching(G, seed=2).mate
    assert np.array_equal(to_numpy(dgraph.maximal_matching(G.to("cupy"), seed=2).mate), to_numpy(ref))

    @emv.edge_list
    def send(v, edges):
        edges.send(v.x + 1.0)

    @emv.message_list
    def stats(v, msgs):
        v.n = msgs.count()
        v.top = msgs.max()

    @emv.vertex
    def keep(v, msg):
        v.x = msg

    prog = emv.Program({"x": ("f8", 1.0), "n": "i8", "top": "f8"}, combiner=np.multiply,
                       steps=[send, stats, keep], max_iterations=2)
    a, b = prog.run(G), prog.run(G.to("cupy"))
    for col in ("x", "n", "top"):
        np.testing.assert_allclose(to_numpy(b.raw(col)), a.raw(col), rtol=1e-12)


def test_queue_mode_sparse_push_on_a_grid_cupy():
    G = dgraph.generate("grid", rows=60, cols=60)
    ref = dgraph.bfs(G, 0).depth
    for T in (G.to("cupy"), G.partition(4, client=False, backend="cupy")):
        for hops in ((1,) if T is not None and getattr(T, "num_parts", 1) == 1 else (1, 3)):
            r = ex.bfs(T, 0, queue=True, hops=hops)
            assert np.array_equal(to_numpy(r.raw("depth")), ref)
