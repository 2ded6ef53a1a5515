"""SCC's 'fwbw' implementation (trimming, forward-backward searches from pivots, coloring for the rest)
against scipy: on numpy (array code, the reference) here, and on CuPy (BFS's CUDA kernels) with
``-m gpu``.

The pivot thresholds are set so the FW-BW phase runs on these small graphs: (0, 0.0) places every
component by FW-BW searches alone; (0, 0.25) and (8, 0.05) stop them part way, so coloring
finishes the rest.
"""

import numpy as np
import pytest
from test_scc import CASES, scipy_labels

import dgraph
from dgraph.algorithms.scc import SCC, implementation
from dgraph.algorithms.scc import fwbw
from dgraph.backend import gpu_available, to_numpy
from dgraph.engine.run import run_program

SETTINGS = [(0, 0.0), (0, 0.25), (8, 0.05)]


def run_fwbw(G, pivot_min_active=0, pivot_min_share=0.0):
    return run_program(lambda ids: SCC(implementation="fwbw", pivot_min_active=pivot_min_active,
                                       pivot_min_share=pivot_min_share),
                       G, vertex_columns=("component",), params={"implementation": "fwbw"})


def grids(rows=12, cols=9):
    """A directed grid (a DAG: right and down), the same with both arcs (one component), and an
    undirected grid."""
    dag = dgraph.generate("grid", rows=rows, cols=cols, directed=True)
    src, dst = dag.coo()[:2]
    both = dgraph.from_edges(np.r_[src, dst], np.r_[dst, src], directed=True, num_vertices=rows * cols)
    return [("grid-dag", dag), ("grid-both-arcs", both), ("grid-undirected", dgraph.generate("grid", rows=rows,
                                                                                               cols=cols))]


def odd_graphs():
    """Every SCC test graph, then grids, a long cycle with chords, and two big cycles one way apart."""
    for label, kw in CASES:
        yield label, dgraph.from_edges(**kw)
    yield from grids()
    n = 300
    ring = np.arange(n)
    yield "cycle-chords", dgraph.from_edges(np.r_[ring, ring[::7]], np.r_[(ring + 1) % n, ring[::7] // 2],
                                            directed=True)
    a, b = np.arange(50), np.arange(50, 120)
    yield "two-cycles", dgraph.from_edges(np.r_[a, b, 3], np.r_[np.roll(a, -1), np.roll(b, -1), 77], directed=True)


def test_fwbw_matches_scipy():
    """>= 100 graphs (empty, one vertex, self loops, DAGs, cycles, undirected, string ids...), three
    pivot settings: scipy's labels every time; FW-BW alone needs no coloring."""
    graphs = list(odd_graphs())
    assert len(graphs) >= 100
    searched = 0
    for label, G in graphs:
        want = scipy_labels(G)
        for lo, share in SETTINGS:
            r = run_fwbw(G, lo, share)
            what = f"{label}, pivot_min_active={lo}, pivot_min_share={share}"
            np.testing.assert_array_equal(to_numpy(r.raw("component")), want, err_msg=what)
            if not len(want):
                assert r.supersteps == 0, what
                continue
            phases = set(r.stats["phase"])
            assert r.stats["components"].iloc[-1] == len(set(want.tolist())), what
            if (lo, share) == (0, 0.0):
                assert not phases & {"color", "back"}, what
            searched += "fwbw" in phases
    assert searched >= 150        # FW-BW did run: every graph with a component trimming leaves


def test_fwbw_steps():
    """The pivot (largest in * out count, smallest id on ties), a masked search both ways, the component."""
    G = dgraph.from_edges([0, 1, 2, 2, 3, 4, 5, 6], [1, 2, 0, 3, 4, 2, 6, 5], directed=True)   # {0,1,2,3,4} {5,6}
    from dgraph.partition.shard import whole_graph_shard

    shard = whole_graph_shard(G)
    label = np.full(7, -1, dtype=G.indices.dtype)
    inc = np.array([1, 1, 2, 1, 1, 1, 1])
    out = np.array([1, 1, 2, 1, 1, 1, 1])
    assert fwbw.pivot(label, inc, out) == 2
    label[2] = 2
    assert fwbw.pivot(label, inc, out) == 0 and fwbw.pivot(np.zeros(3, int), inc[:3], out[:3]) == -1
    label[2] = -1
    reach = fwbw.VectorReach(shard)
    everyone = np.ones(7, bool)
    fwd, arcs = reach.forward(0, everyone)
    assert np.flatnonzero(fwd).tolist() == [0, 1, 2, 3, 4] and arcs == 6
    bwd, _ = reach.backward(3, everyone)
    assert np.flatnonzero(bwd).tolist() == [0, 1, 2, 3, 4]
    no_four = everyone.copy()
    no_four[4] = False
    assert np.flatnonzero(reach.backward(3, no_four)[0]).tolist() == [0, 1, 2, 3]
    assert np.flatnonzero(reach.forward(5, everyone)[0]).tolist() == [5, 6]
    ids, _ = fwbw.pivot_component(shard, label, inc, out, reach)
    assert ids.tolist() == [0, 1, 2, 3, 4]


def test_fwbw_grid_in_one_search():
    """A grid with both arcs is one component: one FW-BW superstep after the counts, where coloring
    takes a superstep a level; a directed grid (a DAG) is peeled by trimming, no search."""
    for label, G in grids(30, 40):
        r = run_fwbw(G, 0, 0.0)
        np.testing.assert_array_equal(to_numpy(r.raw("component")), scipy_labels(G), err_msg=label)
        phases = r.stats["phase"].tolist()
        if label == "grid-dag":
            assert set(phases) == {"init", "trim"}
        else:
            assert phases == ["init", "fwbw"] and r.stats["found"].iloc[-1] == 1200, label
    assert dgraph.scc(grids(30, 40)[1][1], kernels="generic").supersteps > 60


def test_fwbw_is_chosen_for_one_whole_cupy_shard():
    assert implementation("cupy", "fused", True) == "fwbw"
    assert implementation("cupy", "fused", False) == implementation("cupy", "generic", True) == "generic"
    assert implementation("numpy", "fused", True) == "cpu-tarjan"
    with pytest.raises(ValueError, match="one whole shard"):
        run_program(lambda ids: SCC(implementation="fwbw"), grids()[0][1].partition(2, client=False))


# -- CuPy (-m gpu): BFS's kernels as the searches ---------------------------------------------------

@pytest.mark.gpu
def test_fwbw_cupy_matches_scipy():
    """Every graph above on CuPy, the three pivot settings and the default one (dgraph.scc)."""
    if not gpu_available():
        pytest.skip("no usable CUDA GPU / CuPy")
    for label, G in odd_graphs():
        want = scipy_labels(G)
        C = G.to("cupy")
        for lo, share in SETTINGS:
            r = run_fwbw(C, lo, share)
            np.testing.assert_array_equal(to_numpy(r.raw("component")), want, err_msg=f"{label} {lo} {share}")
        r = dgraph.scc(C)
        assert r.params["implementation"] == "fwbw"
        np.testing.assert_array_equal(to_numpy(r.raw("component")), want, err_msg=label)


def _big_graphs():
    """Graphs that take each of the GPU search's branches: hubs and frontiers of more than 2^16 arcs
    (one launch a level), a cycle longer than one cooperative launch's 4,096 levels, grids."""
    yield "rmat14", dgraph.generate("rmat", scale=14, seed=1, directed=True)
    yield "uniform", dgraph.generate("uniform", num_vertices=3000, num_edges=4500, seed=2, directed=True)
    n = 10_000
    perm = np.random.default_rng(3).permutation(n)
    yield "long-cycle", dgraph.from_edges(perm, np.roll(perm, -1), directed=True)
    yield from grids(200, 150)
    yield "rmat14-undirected", dgraph.generate("rmat", scale=14, seed=4)


@pytest.mark.gpu
def test_fwbw_cupy_big_graphs():
    """The GPU searches against the array-code ones (same masks from the same pivot, on a random
    allowed set too), and the labels against numpy's Tarjan, default and forced pivot settings."""
    if not gpu_available():
        pytest.skip("no usable CUDA GPU / CuPy")
    import cupy as cp

    from dgraph.algorithms.scc.gpu import Reach
    from dgraph.partition.shard import whole_graph_shard

    rng = np.random.default_rng(5)
    for label, G in _big_graphs():
        want = to_numpy(dgraph.scc(G).raw("component"))
        C = G.to("cupy")
        for lo, share in [(fwbw.PIVOT_MIN_ACTIVE, fwbw.PIVOT_MIN_SHARE), (0, 0.0), (0, 0.2)]:
            got = to_numpy(run_fwbw(C, lo, share).raw("component"))
            np.testing.assert_array_equal(got, want, err_msg=f"{label} {lo} {share}")
        shard = whole_graph_shard(C)
        fast, ref = Reach(shard), fwbw.VectorReach(shard)
        n = G.num_vertices
        for allowed in (cp.ones(n, bool), cp.asarray(rng.random(n) < 0.8)):
            source = int(cp.flatnonzero(allowed)[0])
            for way in ("forward", "backward"):
                a, _ = getattr(fast, way)(source, allowed)
                b, _ = getattr(ref, way)(source, allowed)
                assert bool((a == b).all()), f"{label} {way}"
