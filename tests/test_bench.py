"""``dgraph bench sssp|pagerank|wcc|cdlp|triangle_count|lcc|bc``: sensible figures on tiny graphs, anchors present or "not installed"."""

from __future__ import annotations

import builtins
import json

import numpy as np
import pytest

import dgraph
from dgraph.bench.algorithms import (ALGORITHMS, NOT_INSTALLED, bc_sources, bench_algorithm,
                                     format_algorithm_report, scipy_pagerank, scipy_triangle_total)
from dgraph.bench.report import rate
from dgraph.cli import main


def run(capsys, *argv):
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.fixture(scope="module")
def rmat():
    return dgraph.generate("rmat", scale=7, weighted=True, seed=3)


def _anchor_names(fig):
    return [a["name"] for a in fig["anchors"]]


def _check_common(fig, G, algorithm):
    assert fig["algorithm"] == algorithm
    assert fig["vertices"] == G.num_vertices and fig["edges"] == G.num_edges
    assert fig["time_ms"] > 0 and fig["time_ms_min"] <= fig["time_ms"]
    assert fig["mteps"] > 0 and fig["rate_edges"] > 0
    assert float(rate(fig["mteps"])) > 0  # as printed: never 0.000 for a slow run (issue 25, item 8)
    assert fig["supersteps"] >= 1
    assert fig["peak_run_bytes"] is not None and fig["peak_run_bytes"] > 0
    assert fig["graph_bytes"] > 0
    for a in fig["anchors"]:
        assert a["ms"] is None or a["ms"] > 0
        assert a["ms"] is not None or a["note"]  # a missing time always says why
    text = format_algorithm_report(fig)
    assert text.splitlines()[0].startswith(f"{algorithm} on ")
    assert sum(line.strip().startswith("anchor") for line in text.splitlines()) == len(fig["anchors"])
    json.dumps(fig, default=str)


def test_sssp(rmat):
    fig = bench_algorithm(rmat, "sssp", repeat=1)
    _check_common(fig, rmat, "sssp")
    deg = np.diff(rmat.indptr)
    assert fig["source"] == int(np.argmax(deg))  # max degree by default
    assert 0 < fig["reached"] <= rmat.num_vertices
    assert fig["rate_edges"] <= rmat.num_edges and fig["relaxations"] >= fig["rate_edges"]
    scipy_anchor = fig["anchors"][0]
    assert scipy_anchor["name"].startswith("scipy") and scipy_anchor["note"] == "same distances"
    for a in fig["anchors"][1:]:  # igraph, networkit, graphblas: the same distances, or not installed
        assert "same distances" in a["note"] or a["note"] == NOT_INSTALLED
    assert _anchor_names(fig)[3].startswith("graphblas-algorithms")


def test_sssp_corner_on_grid():
    G = dgraph.generate("grid", rows=6, cols=5, weighted=True)
    fig = bench_algorithm(G, "sssp", source="corner", repeat=1)
    assert fig["source"] == 0 and fig["reached"] == 30
    assert fig["rate_edges"] == G.num_edges
    assert fig["anchors"][0]["note"] == "same distances"


def test_pagerank(rmat):
    fig = bench_algorithm(rmat, "pagerank", iterations=7, repeat=2)
    _check_common(fig, rmat, "pagerank")
    assert fig["iterations"] == 7 and fig["supersteps"] == 7
    assert fig["rate_edges"] == 7 * rmat.num_edges
    scipy_anchor = fig["anchors"][0]
    assert scipy_anchor["name"].startswith("scipy SpMV") and "7 iterations" in scipy_anchor["name"]
    l1 = float(scipy_anchor["note"].rsplit(" ", 1)[1])
    assert l1 < 1e-12  # the same formula: the same ranks
    igraph_anchor = next(a for a in fig["anchors"] if a["name"].startswith("igraph"))
    assert "convergence" in igraph_anchor["note"] or igraph_anchor["note"] == NOT_INSTALLED
    loop, called = fig["anchors"][3:]
    assert loop["name"].startswith("graphblas-algorithms") and called["name"].startswith("graphblas-algorithms")
    if loop["note"] != NOT_INSTALLED:  # graphblas-algorithms' loop for the same 7 iterations: the same ranks
        assert "7 iterations" in loop["name"] and float(loop["note"].rsplit(" ", 1)[1]) < 1e-12
        assert "stops on its own tolerance" in called["note"]


def test_scipy_pagerank_matches_dgraph_directed():
    G = dgraph.generate("rmat", scale=6, directed=True, seed=5)
    A = G.to_scipy()
    A.data[:] = 1.0
    got = scipy_pagerank(A.T.tocsr(), np.diff(G.indptr), 0.85, 12)
    want = dgraph.pagerank(G, iterations=12).raw("pagerank")
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-14)
    assert abs(got.sum() - 1) < 1e-12


def test_wcc(rmat):
    fig = bench_algorithm(rmat, "wcc", repeat=1)
    _check_common(fig, rmat, "wcc")
    assert fig["rate_edges"] == rmat.num_edges
    k = fig["components"]
    assert k >= 1 and k <= rmat.num_vertices
    for a in fig["anchors"][:3]:
        assert a["note"] in (f"same {k:,} component{'s' if k > 1 else ''}", NOT_INSTALLED)
    gb = fig["anchors"][3]
    assert gb["ms"] is None and "no component labelling" in gb["note"]


def test_cdlp(rmat):
    fig = bench_algorithm(rmat, "cdlp", iterations=3, repeat=1)
    _check_common(fig, rmat, "cdlp")
    assert fig["iterations"] == 3 and fig["supersteps"] <= 3
    assert fig["communities"] >= 1 and fig["communities"] <= rmat.num_vertices
    names = _anchor_names(fig)
    assert names[0] == "scipy" and fig["anchors"][0]["ms"] is None
    ig = next(a for a in fig["anchors"] if a["name"].startswith("igraph"))
    assert ig["ms"] is None and ("different algorithm" in ig["note"] or ig["note"] == NOT_INSTALLED)


def _dense_simple(G):
    """The simple undirected graph's 0/1 adjacency as a dense numpy array (tiny graphs only)."""
    src, dst, _ = (np.asarray(a) for a in G.coo())
    A = np.zeros((G.num_vertices, G.num_vertices))
    A[src, dst] = A[dst, src] = 1
    np.fill_diagonal(A, 0)
    return A


def test_triangle_count(rmat):
    fig = bench_algorithm(rmat, "triangle_count", repeat=2)
    _check_common(fig, rmat, "triangle_count")
    A = _dense_simple(rmat)
    want = int(round(np.trace(A @ A @ A) / 6))
    assert want > 0 and fig["triangles"] == want
    assert fig["rate_edges"] == rmat.num_edges
    assert f"{want:,} triangles" in format_algorithm_report(fig).splitlines()[3]
    scipy_anchor, ig, nk, gb = fig["anchors"]
    assert scipy_anchor["name"].startswith("scipy") and scipy_anchor["ms"] > 0
    assert scipy_anchor["note"].startswith(f"same total, {want:,} triangles")
    assert ig["note"] == NOT_INSTALLED or ("same count at every vertex" in ig["note"] and ig["ms"] > 0)
    assert nk["note"] == NOT_INSTALLED or f"same total, {want:,} triangles" in nk["note"]
    assert gb["note"] == NOT_INSTALLED or (gb["ms"] > 0 and f"same total, {want:,} triangles" in gb["note"])


@pytest.mark.parametrize("block", [1, 50, 1 << 25])
def test_scipy_triangle_total_blocks(block):
    """Any block size (down to one row per product) gives the dense count; directed input is symmetrized first."""
    G = dgraph.generate("rmat", scale=6, directed=True, seed=2)
    A = _dense_simple(G)
    import scipy.sparse as sps  # noqa: PLC0415

    assert scipy_triangle_total(sps.csr_matrix(A), block=block) == int(round(np.trace(A @ A @ A) / 6))


def test_lcc(rmat):
    fig = bench_algorithm(rmat, "lcc", repeat=1)
    _check_common(fig, rmat, "lcc")
    A = _dense_simple(rmat)
    d = A.sum(1)
    t = np.diag(A @ A @ A) / 2
    want = np.where(d > 1, 2 * t / np.maximum(d * (d - 1), 1), 0.0)
    assert fig["mean_lcc"] == pytest.approx(want.mean(), rel=1e-12)
    assert fig["triangles"] == int(round(t.sum() / 3)) and fig["rate_edges"] == rmat.num_edges
    assert fig["anchors"][0]["ms"] is None and "scipy" in fig["anchors"][0]["note"]
    for a in fig["anchors"][1:]:
        assert a["note"] == NOT_INSTALLED or (a["ms"] > 0 and a["note"].startswith(("same LCC values", "LCC values within")))


def test_lcc_directed_anchors_not_timed():
    G = dgraph.generate("rmat", scale=6, directed=True, seed=1)
    fig = bench_algorithm(G, "lcc", repeat=1)
    _check_common(fig, G, "lcc")
    for a in fig["anchors"]:
        assert a["ms"] is None
    for a in fig["anchors"][1:]:
        assert a["note"] == NOT_INSTALLED or ("not timed" in a["note"] and "directed" in a["note"])


def test_bc_one_source(rmat):
    fig = bench_algorithm(rmat, "bc", repeat=1)
    _check_common(fig, rmat, "bc")
    deg = np.diff(rmat.indptr)
    assert fig["sources"] == [int(np.argmax(deg))] and fig["source"] == fig["sources"][0]
    assert fig["normalized"] is False
    assert 0 < fig["reached"][0] <= rmat.num_vertices
    assert fig["rate_edges"] % 2 == 0 and 0 < fig["rate_edges"] <= 2 * rmat.num_edges
    assert fig["anchors"][0]["ms"] is None and fig["anchors"][2]["ms"] is None
    assert fig["anchors"][3]["ms"] is None and "no betweenness" in fig["anchors"][3]["note"]
    ig = fig["anchors"][1]
    assert ig["note"] == NOT_INSTALLED or (ig["ms"] > 0 and ig["note"].startswith(("same BC values", "BC values within")))


def test_bc_sources_on_grid():
    """k sources: the corner and k-1 distinct others; a connected grid: every source reaches every edge."""
    G = dgraph.generate("grid", rows=5, cols=6)
    srcs = bc_sources(G, "corner", 4)
    assert srcs[0] == 0 and len(set(srcs)) == 4 and all(0 <= v < 30 for v in srcs)
    assert bc_sources(G, "corner", 4) == srcs  # seeded
    fig = bench_algorithm(G, "bc", source="corner", sources=4, repeat=1)
    assert fig["sources"] == srcs and fig["reached"] == [30] * 4
    assert fig["rate_edges"] == 4 * 2 * G.num_edges
    want = dgraph.bc(G, sources=srcs, normalized=False).raw("bc")
    assert want.max() > 0
    text = format_algorithm_report(fig)
    assert "4 sources (0 and 3 sampled, seed 0)" in text.splitlines()[0]
    ig = fig["anchors"][1]
    assert ig["note"] == NOT_INSTALLED or ig["note"].startswith(("same BC values", "BC values within"))
    with pytest.raises(ValueError):
        bench_algorithm(G, "wcc", sources=2, repeat=1)


def test_no_anchor(rmat):
    fig = bench_algorithm(rmat, "wcc", repeat=1, anchors=False)
    assert fig["anchors"] == []


def test_missing_anchor_libraries(rmat, monkeypatch):
    """Without igraph, networkit and graphblas every anchor line says 'not installed'; nothing crashes."""
    real_import = builtins.__import__

    def fake_import(name, *args, **kwargs):
        if name.split(".")[0] in ("igraph", "networkit", "graphblas", "graphblas_algorithms"):
            raise ImportError(f"No module named {name!r}")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake_import)
    for algorithm in ALGORITHMS:
        fig = bench_algorithm(rmat, algorithm, iterations=2 if algorithm in ("pagerank", "cdlp") else None,
                              repeat=1)
        missing = [a for a in fig["anchors"] if a["name"].startswith(("igraph", "networkit"))
                   or (a["name"].startswith("graphblas") and a["note"] == NOT_INSTALLED)]
        graphblas = {"sssp": 1, "pagerank": 2, "triangle_count": 1, "lcc": 1}.get(algorithm, 0)
        assert len(missing) == 2 + graphblas
        assert all(a["ms"] is None and a["note"] == NOT_INSTALLED for a in missing)
        text = format_algorithm_report(fig)
        assert text.count(NOT_INSTALLED) == 2 + graphblas


# -- the command line -----------------------------------------------------------------------------
@pytest.mark.parametrize("algorithm, extra", [
    ("sssp", ["--generate", "rmat:scale=6,weighted=True"]),
    ("sssp", ["--generate", "grid:rows=4,cols=4", "--weighted", "--source", "corner"]),
    ("pagerank", ["--generate", "rmat:scale=6", "--iterations", 5]),
    ("wcc", ["--generate", "grid:rows=4,cols=5"]),
    ("cdlp", ["--generate", "rmat:scale=6", "--iterations", 3]),
    ("triangle_count", ["--generate", "rmat:scale=6"]),
    ("lcc", ["--generate", "grid:rows=4,cols=5"]),
    ("bc", ["--generate", "rmat:scale=6"]),
    ("bc", ["--generate", "grid:rows=4,cols=4", "--source", "corner", "--sources", 3]),
])
def test_cli_bench(capsys, algorithm, extra):
    rc, out, err = run(capsys, "bench", algorithm, *extra, "--repeat", 1)
    assert rc == 0, err
    lines = out.splitlines()
    assert lines[0].startswith(f"{algorithm} on ")
    time_line = next(x for x in lines if x.strip().startswith("time"))
    assert " ms" in time_line and float(time_line.split()[1]) > 0
    rate = next(x for x in lines if x.strip().startswith("MTEPS"))
    assert float(rate.split()[1]) > 0
    steps = next(x for x in lines if x.strip().startswith("supersteps"))
    assert int(steps.split()[1]) >= 1
    anchors = [x for x in lines if x.strip().startswith("anchor")]
    assert len(anchors) == (5 if algorithm == "pagerank" else 4)
    for line in anchors:
        assert ("x its speed" in line and " ms" in line) or NOT_INSTALLED in line or line.split()[1] == "-"
    for lib in ("scipy", "igraph", "networkit", "graphblas-algorithms"):
        assert any(lib in line for line in anchors)
    if algorithm == "sssp":
        assert "corner" not in lines[0] and "source" in lines[0]
    if "corner" in extra:
        assert "source 0," in lines[0] or "(0 and 2 sampled, seed 0)" in lines[0]


def test_cli_bench_json_and_no_anchor(capsys, tmp_path):
    out_json = tmp_path / "fig.json"
    rc, out, err = run(capsys, "bench", "pagerank", "--generate", "rmat:scale=5", "--repeat", 1, "--no-anchor",
                       "--json", out_json)
    assert rc == 0, err
    assert "anchor" not in out
    fig = json.loads(out_json.read_text())
    assert fig["algorithm"] == "pagerank" and fig["iterations"] == 20 and fig["anchors"] == []


@pytest.mark.parametrize("algorithm", ["bfs", "sssp", "pagerank", "wcc", "cdlp", "triangle_count", "lcc", "bc"])
def test_cli_bench_partitions_every_algorithm(capsys, algorithm):
    """--partitions for every algorithm: the one-partition run of the same call beside it, answers compared."""
    gen = "rmat:scale=6,weighted=True" if algorithm == "sssp" else "rmat:scale=6"
    rc, out, err = run(capsys, "bench", algorithm, "--generate", gen, "--partitions", 3, "--executor", "local",
                       "--repeat", 1)
    assert rc == 0, err
    lines = out.splitlines()
    assert lines[0].startswith(f"{algorithm} on ") and "3 partitions (range), local" in lines[0]
    assert any(x.strip().startswith("build") for x in lines)
    [anchor] = [x for x in lines if x.strip().startswith("anchor")]
    assert "dgraph local, 1 partition (same call)" in anchor and "(answers equal)" in anchor


def test_cli_bench_partition_options_checked(capsys):
    rc, _, err = run(capsys, "bench", "wcc", "--generate", "rmat:scale=4", "--executor", "spmd")
    assert rc == 2 and "--partitions P" in err and err.count("\n") == 1
    rc, _, err = run(capsys, "bench", "wcc", "--generate", "rmat:scale=4", "--build", "stream")
    assert rc == 2 and "--build stream" in err


def test_cli_bench_unknown(capsys):
    rc, _, err = run(capsys, "bench", "nosuch", "--generate", "rmat:scale=4")
    assert rc == 2
    assert "'nosuch'" in err and "sssp" in err and "cdlp" in err


def test_failing_anchor_is_reported_not_raised():
    from dgraph.bench.algorithms import _run_anchor  # noqa: PLC0415

    def boom(_):
        raise MemoryError("too big")

    a = _run_anchor("scipy something", None, boom)
    assert a["ms"] is None and a["note"] == "failed: MemoryError: too big"
    assert _run_anchor("x", "no_such_module_dgraph_test", boom)["note"] == NOT_INSTALLED


def test_cli_bench_sources_only_for_bc(capsys):
    rc, _, err = run(capsys, "bench", "sssp", "--generate", "rmat:scale=4", "--sources", 2)
    assert rc == 2 and "--sources 2" in err and "bc" in err
    rc, _, err = run(capsys, "bench", "bc", "--generate", "rmat:scale=4", "--sources", 0)
    assert rc == 2 and "--sources 0" in err


def test_values_note_non_finite():
    from dgraph.bench.algorithms import _values_note  # noqa: PLC0415

    nan, inf = float("nan"), float("inf")
    assert _values_note([1.0, 2.0], [1.0, 2.0], "BC values") == "same BC values"
    assert _values_note([1.0, 2.0 + 1e-14], [1.0, 2.0], "BC values").startswith("BC values within")
    assert "DIFFER" in _values_note([1.0, 2.5], [1.0, 2.0], "BC values")
    both = _values_note([nan, 2.0, inf], [nan, 2.0, inf], "BC values")
    assert both.startswith("same BC values") and "2 values NaN or inf in both" in both
    assert "DIFFER: NaN or inf at 1 vertices" in _values_note([nan, 2.0], [1.0, 2.0], "BC values")


def test_rates_print_as_significant_digits():
    assert [rate(x) for x in (1234.56, 12.34, 5.678, 0.000652, 6.5e-5)] == \
        ["1234.6", "12.3", "5.68", "0.000652", "6.5e-05"]


# -- issue 23's algorithms (dgraph/bench/breadth.py) ------------------------------------------------

@pytest.mark.parametrize("algorithm, direction, libs", [
    ("core_number", "--undirected", ("networkit", "igraph")),
    ("scc", "--directed", ("scipy", "networkit", "igraph")),
    ("louvain", "--undirected", ("networkit", "igraph")),
    ("hits", "--directed", ("scipy", "igraph")),
    ("jaccard", "--undirected", ("networkit", "igraph")),
    ("random_walks", "--directed", ("igraph",)),
])
def test_cli_bench_breadth(capsys, algorithm, direction, libs):
    """Each new algorithm's bench: a time, a rate, its implementation, and every anchor run beside it
    with its answer compared (or said not installed)."""
    rc, out, err = run(capsys, "bench", algorithm, "--generate", "rmat:scale=7", direction, "--repeat", 1)
    assert rc == 0, err
    lines = out.splitlines()
    assert lines[0].startswith(f"{algorithm} on ") and "implementation " in lines[0]
    time_line = next(x for x in lines if x.strip().startswith("time"))
    assert float(time_line.split()[1]) > 0
    anchors = [x for x in lines if x.strip().startswith("anchor")]
    assert len(anchors) == len(libs)
    for lib, line in zip(libs, anchors):
        assert lib in line
        if NOT_INSTALLED in line:
            continue
        assert "x its speed" in line and "failed" not in line
        assert "DIFFER" not in line
        if algorithm in ("core_number", "scc"):
            assert "same " in line
        if algorithm == "jaccard" and lib == "networkit":
            assert "largest difference from dgraph's 0.0e+00" in line


def test_cli_bench_breadth_refuses_what_it_cannot_time(capsys):
    rc, out, err = run(capsys, "bench", "scc", "--generate", "rmat:scale=5", "--undirected")
    assert rc != 0 and "--directed" in err
    rc, out, err = run(capsys, "bench", "jaccard", "--generate", "rmat:scale=5", "--partitions", 2)
    assert rc != 0 and "--partitions" in err


# -- python-graphblas / graphblas-algorithms anchors ----------------------------------------------
def test_graphblas_pagerank_loop_matches_dgraph_with_parallel_arcs():
    """The graphblas loop (fixed iterations) is dgraph's formula: parallel arcs count, a sink's rank is spread."""
    pytest.importorskip("graphblas_algorithms")
    from dgraph.bench import graphblas as gbl  # noqa: PLC0415
    from dgraph.graph import Graph  # noqa: PLC0415
    import graphblas_algorithms as ga  # noqa: PLC0415

    # 0->1 twice, 0->2, 1->2, 2->0, 3->2; 4 is a sink with no in-arcs, 2 reaches everything
    G = Graph(np.array([0, 3, 4, 5, 6, 6]), np.array([1, 1, 2, 2, 0, 2]), directed=True)
    A = gbl.matrix(G)
    assert A.nvals == 5 and A[0, 1].new().value == 2.0  # summed, not dropped
    got, k = gbl.pagerank(ga.DiGraph(A), 0.85, 9)
    want = dgraph.pagerank(G, iterations=9).raw("pagerank")
    assert k == 9
    np.testing.assert_allclose(gbl.dense(got, 5, 0.0), want, rtol=0, atol=1e-15)
    assert gbl.pagerank(ga.DiGraph(A), 0.85, 100, tol=1e-3)[1] < 100  # its own stopping rule ends sooner


def test_graphblas_sssp_takes_the_lightest_parallel_arc():
    pytest.importorskip("graphblas_algorithms")
    from dgraph.graph import Graph  # noqa: PLC0415

    G = Graph(np.array([0, 2, 3, 3]), np.array([1, 1, 2]), np.array([5.0, 2.0, 1.0]), directed=True)
    fig = bench_algorithm(G, "sssp", source=0, repeat=1)
    gb = fig["anchors"][3]
    assert gb["name"].startswith("graphblas-algorithms") and gb["note"] == "same distances"
    assert list(dgraph.sssp(G, 0).raw("distance")) == [0.0, 2.0, 3.0]


@pytest.mark.parametrize("graph", ["grid", "directed"])
def test_bfs_graphblas_anchor(graph):
    """bench bfs: graphblas-algorithms' levels checked against dgraph's depths, printed with the ratio."""
    pytest.importorskip("graphblas_algorithms")
    from dgraph.bench import bench_bfs, format_report  # noqa: PLC0415

    G = (dgraph.generate("grid", rows=6, cols=7) if graph == "grid" else
         dgraph.generate("rmat", scale=7, directed=True, seed=4))
    fig = bench_bfs(G, repeat=1)
    [name] = [k for k in fig["anchors"] if k.startswith("graphblas-algorithms")]
    assert fig["anchors"][name] > 0 and fig["anchor_notes"][name] == "same depths"
    line = next(x for x in format_report(fig).splitlines() if "graphblas" in x)
    assert "x its speed (same depths)" in line


def test_bfs_graphblas_anchor_not_installed(monkeypatch):
    from dgraph.bench import bench_bfs, format_report  # noqa: PLC0415

    real_import = builtins.__import__

    def fake_import(name, *args, **kwargs):
        if name.split(".")[0] in ("graphblas", "graphblas_algorithms"):
            raise ImportError(f"No module named {name!r}")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake_import)
    fig = bench_bfs(dgraph.generate("grid", rows=4, cols=4), repeat=1)
    [name] = [k for k in fig["anchors"] if k.startswith("graphblas-algorithms")]
    assert fig["anchors"][name] is None and fig["anchor_notes"][name] == NOT_INSTALLED
    assert f"{name}: {NOT_INSTALLED}" in format_report(fig)
    json.dumps(fig, default=str)
