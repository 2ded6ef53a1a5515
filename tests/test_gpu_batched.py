"""Supersteps batched on one GPU (Program.run_steps): the same answers and per-superstep records.

BFS: many push levels in one launch (dgraph.algorithms.bfs.solver) give the same bits and the same
records as the level-by-level CuPy path and as numpy, on deep and odd graphs.  The batch stops for
five reasons (frontier empty, Beamer's switch to pull, too many frontier edges, a hub, the level
limit); the small-limit cases below make each happen mid-run.

PageRank with a fixed iteration count: every iteration queued at once, read back once.
"""

import numpy as np
import pytest
from graphs import corpus

import dgraph
from dgraph.backend import gpu_available, to_numpy

pytestmark = pytest.mark.gpu


@pytest.fixture(autouse=True)
def _needs_gpu():
    if not gpu_available():
        pytest.skip("no usable CUDA GPU / CuPy")


def _graphs():
    yield "grid", dgraph.generate("grid", rows=40, cols=57)
    yield "grid-directed", dgraph.generate("grid", rows=30, cols=30, directed=True)
    yield "chain", dgraph.from_edges(np.arange(3000), np.arange(1, 3001))
    yield "rmat", dgraph.generate("rmat", scale=12, seed=3)
    yield "rmat-directed", dgraph.generate("rmat", scale=11, seed=4, directed=True)
    for label, kw in corpus(60, seed=23):
        yield label, dgraph.from_edges(**kw)


CASES = list(_graphs())
STAT_KEYS = ("direction", "frontier", "edges", "frontier_edges")
#: the limits the tests shrink that are dgraph.config options (the others are dgraph.algorithms.bfs.solver constants)
OPTIONS = {"MF_LIMIT": "bfs_levels_frontier_limit", "DEG_LIMIT": "bfs_levels_degree_limit"}


def _run(G, source, direction, monkeypatch, levels, **patch):
    from dgraph.algorithms.bfs import solver

    monkeypatch.setattr(dgraph.config, "bfs_levels", levels)
    for name, value in patch.items():
        if name in OPTIONS:  # a dgraph.config option
            monkeypatch.setattr(dgraph.config, OPTIONS[name], value)
        else:
            monkeypatch.setattr(solver, name, value)
    return dgraph.bfs(G, source=source, direction=direction, backend="cupy")


def _check_same(a, b):
    for c in ("depth", "parent"):
        assert np.array_equal(to_numpy(a.raw(c)), to_numpy(b.raw(c))), c
    assert len(a.stats) == len(b.stats)
    for k in STAT_KEYS:
        assert list(a.stats[k]) == list(b.stats[k]), k


@pytest.mark.parametrize("direction", ["auto", "push"])
@pytest.mark.parametrize("label,G", CASES, ids=[c[0] for c in CASES])
def test_levels_equal_level_by_level_and_numpy(label, G, direction, monkeypatch):
    if G.num_vertices == 0:
        pytest.skip("no source in an empty graph")
    source = G.ids.to_user(int(np.argmax(to_numpy(G.out_degree())))).item()
    cpu = dgraph.bfs(G, source=source, direction=direction)
    one_by_one = _run(G, source, direction, monkeypatch, levels=False)
    batched = _run(G, source, direction, monkeypatch, levels=True)
    _check_same(batched, one_by_one)
    assert (batched.params["implementation"], one_by_one.params["implementation"]) == ("gpu-fused+levels", "gpu-fused")
    _check_same(batched, cpu)


@pytest.mark.parametrize("patch", [dict(MAX_LEVELS=3), dict(MF_LIMIT=8), dict(MAX_LEVELS=1, MF_LIMIT=40),
                                   dict(DEG_LIMIT=3), dict(DEG_LIMIT=40, MF_LIMIT=200)],
                         ids=["level-limit", "edge-limit", "both", "hub", "hub-and-edges"])
@pytest.mark.parametrize("label", ["grid", "rmat", "rmat-directed", "chain"])
def test_levels_stop_and_resume(label, patch, monkeypatch):
    G = dict(CASES)[label]
    cpu = dgraph.bfs(G, source=0, direction="auto")
    got = _run(G, 0, "auto", monkeypatch, levels=True, **patch)
    _check_same(got, cpu)


def test_deep_grid_runs_in_few_launches(monkeypatch):
    """A 200x200 grid from a corner: 399 levels, each its own record, in one launch."""
    from dgraph.algorithms.bfs import solver

    calls = []
    real = solver.push_levels

    def counting(*a, **k):
        out = real(*a, **k)
        calls.append(out[0])
        return out

    monkeypatch.setattr(solver, "push_levels", counting)
    G = dgraph.generate("grid", rows=200, cols=200)
    r = dgraph.bfs(G, source=0, backend="cupy")
    assert len(r.stats) == 399 and int(to_numpy(r.raw("depth")).max()) == 398
    assert calls == [399]
    assert (r.stats["time_s"] >= 0).all()


@pytest.mark.parametrize("label", ["rmat", "rmat-directed", "grid", "chain", "star", "disconnected", "one-vertex"])
def test_pagerank_batched_iterations(label):
    G = dict(CASES)[label]
    cpu = dgraph.pagerank(G, iterations=12)
    gpu = dgraph.pagerank(G, iterations=12, backend="cupy")                  # batched: one shard, fixed count
    parts = dgraph.pagerank(G.to("cupy").partition(min(2, G.num_vertices)), iterations=12)  # a superstep at a time
    a, b, c = (to_numpy(r.raw("pagerank")) for r in (gpu, cpu, parts))
    assert np.allclose(a, b, rtol=0, atol=1e-12) and np.allclose(a, c, rtol=0, atol=1e-12)
    assert len(gpu.stats) == 12
    assert np.allclose(gpu.stats["delta"], cpu.stats["delta"], rtol=1e-9, atol=1e-15)
    assert (gpu.stats["time_s"] > 0).all()


@pytest.mark.parametrize("label", ["rmat", "rmat-directed", "star", "disconnected", "one-vertex"])
@pytest.mark.parametrize("personalized", [False, True])
def test_pagerank_fused_iterations_are_bit_identical(label, personalized, monkeypatch):
    """The fused iteration (algorithms/pagerank/gpu.py) does the array path's arithmetic, rounding for rounding."""
    from dgraph.algorithms.pagerank import PageRank

    G = dict(CASES)[label]
    pers = {int(v): 1.0 + (int(v) % 3) for v in G.ids.to_user(np.arange(G.num_vertices))} if personalized else None
    fused = dgraph.pagerank(G, iterations=9, backend="cupy", personalization=pers)
    monkeypatch.setattr(PageRank, "run_steps", lambda *a, **k: None)  # one superstep at a time
    plain = dgraph.pagerank(G, iterations=9, backend="cupy", personalization=pers)
    assert np.array_equal(to_numpy(fused.raw("pagerank")), to_numpy(plain.raw("pagerank")))
    assert np.array_equal(fused.stats["delta"].to_numpy(), plain.stats["delta"].to_numpy())
