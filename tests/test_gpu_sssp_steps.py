"""SSSP supersteps in one cooperative GPU launch (dgraph.algorithms.sssp.solver): the same distances,
parents and per-superstep records as the host-driven CuPy path and as numpy, on deep, skewed and odd
graphs, for several deltas.  The launch stops for five reasons (frontier and pile empty, the step
limit, a tie list or far pile too small, too many frontier edges); the patched cases make each happen
mid-run, and the host path takes over and hands back."""

import math

import numpy as np
import pytest
from graphs import corpus, weighted

import dgraph
from dgraph.backend import gpu_available, to_numpy

pytestmark = pytest.mark.gpu


@pytest.fixture(autouse=True)
def _needs_gpu():
    if not gpu_available():
        pytest.skip("no usable CUDA GPU / CuPy")


def _graphs():
    rng = np.random.default_rng(29)
    yield "grid", dgraph.generate("grid", rows=40, cols=37, weighted=True, seed=1)
    yield "grid-unweighted", dgraph.generate("grid", rows=25, cols=30)
    yield "chain", dgraph.from_edges(np.arange(2000), np.arange(1, 2001), weights=rng.uniform(0, 1, 2000))
    yield "rmat", dgraph.generate("rmat", scale=12, seed=3, weighted=True)
    yield "rmat-directed-int", dgraph.generate("rmat", scale=11, seed=4, directed=True, weighted=True,
                                               weights="int")
    for label, kw in corpus(40, seed=31):
        yield label, dgraph.from_edges(**weighted(kw, rng))


CASES = list(_graphs())
STAT_KEYS = ("frontier", "far", "bound", "improved", "edges")


def _source(G):
    return G.ids.to_user(int(np.argmax(to_numpy(G.out_degree())))).item()


def _run(G, source, delta, monkeypatch, steps, skip=False, **patch):
    """``skip``: the relaxation skips frontier vertices improved in the same superstep
    (dgraph.config.sssp_skip_stale); off, the records are numpy's superstep for superstep."""
    from dgraph.algorithms.sssp import solver

    monkeypatch.setattr(dgraph.config, "sssp_steps", steps)
    monkeypatch.setattr(dgraph.config, "sssp_skip_stale", skip)
    for name, value in patch.items():
        if name == "EDGE_LIMIT":  # a dgraph.config option; the others are solver constants
            monkeypatch.setattr(dgraph.config, "sssp_steps_edge_limit", value)
        else:
            monkeypatch.setattr(solver, name, value)
    r = dgraph.sssp(G, source, delta=delta, backend="cupy")
    assert r.params["implementation"] == ("gpu-cuda+steps" if steps else "gpu-cuda+host-steps")
    return r


def _check_same(a, b, records=True):
    for c in ("distance", "parent"):
        assert np.array_equal(to_numpy(a.raw(c)), to_numpy(b.raw(c))), c
    if not records:
        return
    assert len(a.stats) == len(b.stats)
    for k in STAT_KEYS:
        assert list(a.stats[k]) == list(b.stats[k]), k


@pytest.mark.parametrize("delta", [None, 0.25, 3.0, math.inf])
@pytest.mark.parametrize("label,G", CASES, ids=[c[0] for c in CASES])
def test_steps_equal_host_path_and_numpy(label, G, delta, monkeypatch):
    if G.num_vertices == 0:
        pytest.skip("no source in an empty graph")
    s = _source(G)
    d = delta if delta is not None else dgraph.sssp(G.to("cupy"), s).params["delta"]
    cpu = dgraph.sssp(G, s, delta=d)
    host = _run(G, s, d, monkeypatch, steps=False)
    steps = _run(G, s, d, monkeypatch, steps=True)
    _check_same(steps, host)
    _check_same(steps, cpu)


@pytest.mark.parametrize("delta", [None, 0.25, math.inf])
@pytest.mark.parametrize("label,G", CASES, ids=[c[0] for c in CASES])
def test_skipping_stale_rows_gives_the_same_answers(label, G, delta, monkeypatch):
    """The default GPU relaxation skips frontier vertices whose distance dropped in the same
    superstep: fewer relaxations, the same distances and parents (records depend on the GPU's order)."""
    if G.num_vertices == 0:
        pytest.skip("no source in an empty graph")
    s = _source(G)
    d = delta if delta is not None else dgraph.sssp(G.to("cupy"), s).params["delta"]
    cpu = dgraph.sssp(G, s, delta=d)
    for steps in (False, True):
        got = _run(G, s, d, monkeypatch, steps=steps, skip=True)
        _check_same(got, cpu, records=False)
        assert ((got.stats["skipped"] >= 0) & (got.stats["skipped"] <= got.stats["edges"])).all()


def test_skipping_stale_rows_relaxes_fewer_edges(monkeypatch):
    """From an RMAT hub most of the second superstep's frontier has already dropped when its edges
    come up: a large share of the frontier edges is skipped, and fewer relaxations are made in all."""
    G = dgraph.generate("rmat", scale=18, seed=3, weighted=True)  # many waves of blocks a superstep
    s = _source(G)
    plain = _run(G, s, math.inf, monkeypatch, steps=False, skip=False)
    got = _run(G, s, math.inf, monkeypatch, steps=False, skip=True)
    _check_same(got, plain, records=False)
    relaxed = int((got.stats["edges"] - got.stats["skipped"]).sum())
    assert int(plain.stats["skipped"].sum()) == 0
    assert got.stats["skipped"].sum() > 0.1 * got.stats["edges"].sum()  # rmat20 on an H100: 38%
    assert relaxed < 0.9 * plain.edges_touched  # rmat20: 0.55x


def test_skipping_stale_rows_in_the_cooperative_launch(monkeypatch):
    """The whole run in one cooperative launch (no edge limit) with the skip: some rows skipped,
    numpy's distances and parents."""
    G = dgraph.generate("rmat", scale=16, seed=5, weighted=True)
    s = _source(G)
    cpu = dgraph.sssp(G, s, delta=math.inf)
    got = _run(G, s, math.inf, monkeypatch, steps=True, skip=True, EDGE_LIMIT=1 << 40)
    _check_same(got, cpu, records=False)
    assert got.stats["skipped"].sum() > 0


@pytest.mark.parametrize("patch", [dict(MAX_STEPS=3), dict(EDGE_LIMIT=40), dict(TIE_LIMIT=30),
                                   dict(PILE_SLACK=0), dict(MAX_STEPS=1, EDGE_LIMIT=200, PILE_SLACK=5)],
                         ids=["step-limit", "edge-limit", "tie-limit", "pile", "mixed"])
@pytest.mark.parametrize("label", ["grid", "rmat", "rmat-directed-int", "chain"])
@pytest.mark.parametrize("delta", [0.25, 2.0])
def test_steps_stop_and_resume(label, patch, delta, monkeypatch):
    G = dict(CASES)[label]
    s = _source(G)
    cpu = dgraph.sssp(G, s, delta=delta)
    got = _run(G, s, delta, monkeypatch, steps=True, **patch)
    _check_same(got, cpu)


def test_deep_grid_runs_in_one_launch(monkeypatch):
    """A 100x100 weighted grid from a corner: hundreds of supersteps, each its own record, one launch."""
    from dgraph.algorithms.sssp import solver

    calls = []
    real = solver.run

    def counting(*a, **k):
        out = real(*a, **k)
        calls.append(None if out is None else (out["steps"], out["stop"]))
        return out

    monkeypatch.setattr(solver, "run", counting)
    G = dgraph.generate("grid", rows=100, cols=100, weighted=True, seed=2)
    r = dgraph.sssp(G, 0, delta=0.5, backend="cupy")
    assert len(calls) == 1 and calls[0] == (r.supersteps, "empty") and r.supersteps > 150
    assert np.array_equal(to_numpy(r.raw("distance")), to_numpy(dgraph.sssp(G, 0, delta=0.5).raw("distance")))
    assert (r.stats["time_s"] >= 0).all()


@pytest.mark.parametrize("steps", [False, True])
def test_relaxation_launched_ahead_of_the_read(steps, monkeypatch):
    """A host-driven superstep launches the next one's relaxation before it reads the counts (as many
    blocks as its own edges filled); the rest go after the read, and where the next frontier has
    more edges than the tie list holds, the list grows keeping what the launch ahead appended.
    numpy's records exactly (skip off), with and without the cooperative launch between."""
    from dgraph.algorithms.sssp import gpu

    launches, grown = [], []
    real_launch, real_ties = gpu._relax_dist, gpu.Scratch.ties

    def launch(*a, **k):
        launches.append((k.get("queued", False), k.get("block0", 0)))
        return real_launch(*a, **k)

    def ties(self, total, keep=False, exact=False):
        before = None if self.tv is None else len(self.tv)
        out = real_ties(self, total, keep, exact)
        if keep and before is not None and len(self.tv) > before:
            grown.append((before, len(self.tv)))
        return out

    monkeypatch.setattr(gpu, "_relax_dist", launch)
    monkeypatch.setattr(gpu.Scratch, "ties", ties)
    G = dgraph.generate("rmat", scale=12, seed=3, weighted=True)
    s = _source(G)
    cpu = dgraph.sssp(G, s, delta=2.0)
    got = _run(G, s, 2.0, monkeypatch, steps=steps, EDGE_LIMIT=1000)
    _check_same(got, cpu)
    assert any(q for q, _ in launches)           # launched ahead of a read
    assert any(b > 0 for q, b in launches if not q)  # and the rest after it
    if not steps:
        assert grown  # the hub's few edges first, then a fatter frontier under the launch ahead


@pytest.mark.parametrize("method", ["range", "hash"])
def test_partitions_skip_stale_rows_too(method, monkeypatch):
    """CuPy partitions skip the frontier vertices their own relaxation improved in the superstep (the
    distance read at the row's vertex id): numpy's distances and parents on 2 and 3 partitions, and
    on an RMAT hub's second superstep a share of the frontier edges is skipped."""
    monkeypatch.setattr(dgraph.config, "sssp_skip_stale", True)
    cases = CASES[::5] + [("rmat16", dgraph.generate("rmat", scale=16, seed=3, weighted=True))]
    for label, G in cases:
        if G.num_vertices < 3:
            continue
        s = _source(G)
        cpu = dgraph.sssp(G, s)
        for p in (2, 3):
            got = dgraph.sssp(G.partition(p, method=method, client=False, backend="cupy"), s,
                              delta=cpu.params["delta"])
            assert got.params["implementation"] == "gpu-cuda", label
            _check_same(got, cpu, records=False)
            assert ((got.stats["skipped"] >= 0) & (got.stats["skipped"] <= got.stats["edges"])).all()
    G = cases[-1][1]  # from the hub with no buckets (delta inf), most rows of the fat supersteps are stale
    plain = dgraph.sssp(G, _source(G), delta=math.inf)
    got = dgraph.sssp(G.partition(2, method=method, client=False, backend="cupy"), _source(G), delta=math.inf)
    _check_same(got, plain, records=False)
    assert got.stats["skipped"].sum() > 0.1 * got.stats["edges"].sum(), got.stats
    monkeypatch.setattr(dgraph.config, "sssp_skip_stale", False)  # off: no skipped column, the same answers
    G = cases[-1][1]
    off = dgraph.sssp(G.partition(2, method=method, client=False, backend="cupy"), _source(G))
    assert "skipped" not in off.stats.columns
    _check_same(off, dgraph.sssp(G, _source(G)), records=False)
