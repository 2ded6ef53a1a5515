"""The ``dgraph`` command line: info, bfs (files, generators, Graphalytics output, partitions),
bench, and bad input (one ``dgraph: error:`` line, exit status 2, no output file written)."""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import GRAPHALYTICS

import dgraph
from dgraph.cli import main

REPO = Path(__file__).resolve().parent.parent
EDGES = "# a path, a separate edge, an isolated vertex (4)\n0 1\n1 2\n2 3\n5 6\n"


@pytest.fixture
def small(tmp_path):
    p = tmp_path / "g.el"
    p.write_text(EDGES)
    return p


def run(capsys, *argv):
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


def info_table(out):
    """``key  value`` lines of ``dgraph info`` as a dict of strings."""
    rows = {}
    for line in out.splitlines():
        key, _, value = line.strip().partition(" ")
        rows[key] = value.strip()
    return rows


def read_csv(path):
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    return rows


def assert_one_error_line(err, *words):
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("dgraph: error: "), err
    for w in words:
        assert w in lines[0], (w, err)
    return lines[0]


# -- info ------------------------------------------------------------------------------------------
def test_info_edge_list(capsys, small):
    rc, out, err = run(capsys, "info", small)
    assert rc == 0 and err == ""
    t = info_table(out)
    assert t["vertices"] == "7" and t["edges"] == "4" and t["arcs"] == "8"
    assert t["directed"] == "False" and t["isolated"] == "1" and t["max_out_degree"] == "2"
    rc, out, _ = run(capsys, "info", small, "--directed")
    t = info_table(out)
    assert rc == 0 and t["vertices"] == "7" and t["edges"] == "4" and t["arcs"] == "4" and t["directed"] == "True"


def test_info_generated_grid(capsys):
    rc, out, err = run(capsys, "info", "--generate", "grid:rows=3,cols=4")
    assert rc == 0 and err == ""
    t = info_table(out)
    assert t["vertices"] == "12"
    assert t["edges"] == str(3 * 3 + 2 * 4)  # rows*(cols-1) + (rows-1)*cols
    assert t["max_out_degree"] == "4" and t["isolated"] == "0"


# -- bfs -------------------------------------------------------------------------------------------
def test_bfs_csv_matches_library(capsys, small, tmp_path):
    out_path = tmp_path / "out.csv"
    rc, out, err = run(capsys, "bfs", small, "--source", 1, "-o", out_path)
    assert rc == 0 and err == ""
    assert "reached 4 of 7 vertices" in out and f"wrote {out_path}" in out
    rows = read_csv(out_path)
    assert list(rows[0]) == ["vertex", "depth", "parent"]
    r = dgraph.bfs(dgraph.read(small), 1).to_pandas()
    assert [int(x["vertex"]) for x in rows] == r["vertex"].tolist()
    assert [int(x["depth"]) for x in rows] == r["depth"].tolist()
    assert [int(x["parent"]) for x in rows] == r["parent"].tolist()
    assert [int(x["depth"]) for x in rows] == [1, 0, 1, 2, -1, -1, -1]


@pytest.mark.parametrize("name, flag, source", [("example-directed", "--directed", 1),
                                                ("example-undirected", "--undirected", 2)])
def test_bfs_graphalytics_reference_output(capsys, tmp_path, name, flag, source):
    out_path = tmp_path / "bfs.txt"
    rc, out, err = run(capsys, "bfs", Path(GRAPHALYTICS) / f"{name}.e", "--format", "graphalytics", flag,
                       "--source", source, "-o", out_path, "--output-format", "graphalytics")
    assert rc == 0 and err == "", err
    expected = (Path(GRAPHALYTICS) / f"{name}-BFS").read_text()
    assert out_path.read_text() == expected


def test_bfs_partitioned_local(capsys, tmp_path):
    out_path = tmp_path / "p.csv"
    rc, out, err = run(capsys, "bfs", "--generate", "rmat:scale=8", "--source", 0, "--partitions", 3,
                       "--executor", "local", "-o", out_path)
    assert rc == 0 and err == "", err
    r = dgraph.bfs(dgraph.generate("rmat", scale=8), 0)
    depth = r.to_numpy()["depth"]
    assert f"reached {int((depth >= 0).sum()):,} of 256 vertices" in out
    rows = read_csv(out_path)
    assert np.array_equal([int(x["depth"]) for x in rows], depth)
    assert np.array_equal([int(x["parent"]) for x in rows], r.to_numpy()["parent"])


# -- bad input -------------------------------------------------------------------------------------
def _bad_inputs(tmp_path):
    bad_el = tmp_path / "bad.el"
    bad_el.write_text("0 1\n1 2\n2 3 4\n")
    bad_mtx = tmp_path / "bad.mtx"
    bad_mtx.write_text("%%MatrixMarket matrix foo\n3 3 1\n1 2\n")
    good = tmp_path / "good.el"
    good.write_text(EDGES)
    missing = tmp_path / "missing.el"
    return [
        ("malformed-line", [bad_el, "--source", 0], ["bad.el:3:", "expected 2 fields", "found 3"]),
        ("missing-file", [missing, "--source", 0], ["missing.el", "no such file"]),
        ("source-not-in-graph", [good, "--source", 99], ["source 99", "not in the graph"]),
        ("source-not-an-id", [good, "--source", "abc"], ["--source 'abc'"]),
        ("unknown-generator", ["--generate", "nosuchkind:scale=3", "--source", 0], ["'nosuchkind'", "unknown generator"]),
        ("bad-generator-spec", ["--generate", "rmat:scale", "--source", 0], ["--generate 'rmat:scale'"]),
        ("bad-mtx-header", [bad_mtx, "--source", 1], ["bad.mtx:1:", "Matrix Market header"]),
    ]


@pytest.mark.parametrize("case", range(7))
def test_bfs_bad_input(capsys, tmp_path, case):
    label, args, words = _bad_inputs(tmp_path)[case]
    out_path = tmp_path / "out.csv"
    rc, out, err = run(capsys, "bfs", *args, "-o", out_path)
    assert rc == 2, (label, out, err)
    assert_one_error_line(err, *words)
    assert not out_path.exists(), label
    assert not any(p.name.startswith("out") for p in tmp_path.iterdir()), label  # no temporary left either


def test_info_bad_input(capsys, tmp_path):
    p = tmp_path / "bad.el"
    p.write_text("# header comment\n0 1\n7\n")
    rc, _, err = run(capsys, "info", p)
    assert rc == 2
    assert_one_error_line(err, "bad.el:3:")


def test_existing_output_needs_overwrite(capsys, small, tmp_path):
    out_path = tmp_path / "out.csv"
    out_path.write_text("precious\n")
    rc, out, err = run(capsys, "bfs", small, "--source", 0, "-o", out_path)
    assert rc == 2
    assert_one_error_line(err, str(out_path), "already exists")
    assert out_path.read_text() == "precious\n"
    # a failed run with --overwrite leaves it alone too
    rc, _, err = run(capsys, "bfs", small, "--source", 99, "-o", out_path, "--overwrite")
    assert rc == 2 and out_path.read_text() == "precious\n"
    assert_one_error_line(err, "source 99")
    rc, out, err = run(capsys, "bfs", small, "--source", 0, "-o", out_path, "--overwrite")
    assert rc == 0 and err == ""
    rows = read_csv(out_path)
    assert [int(x["depth"]) for x in rows] == [0, 1, 2, 3, -1, -1, -1]


# -- bench -----------------------------------------------------------------------------------------
def test_bench_bfs(capsys):
    rc, out, err = run(capsys, "bench", "bfs", "--generate", "rmat:scale=8", "--repeat", 1)
    assert rc == 0, err
    lines = out.splitlines()
    assert "256 vertices" in lines[0]
    time_line = next(x for x in lines if x.strip().startswith("time"))
    assert " ms" in time_line and float(time_line.split()[1]) > 0
    mteps = next(x for x in lines if x.strip().startswith("MTEPS"))
    assert float(mteps.split()[1]) > 0
    anchor = next(x for x in lines if x.strip().startswith("anchor"))
    assert "scipy" in anchor and " ms" in anchor


def test_bench_superstep_local(capsys):
    rc, out, err = run(capsys, "bench", "superstep", "--partitions", 2, "--executor", "local",
                       "--supersteps", 5, "--repeat", 1)
    assert rc == 0, err
    assert "2 partitions" in out and "local" in out
    line = next(x for x in out.splitlines() if x.strip().startswith("per superstep"))
    assert " ms" in line and float(line.split()[2]) >= 0


def test_bench_unknown_algorithm(capsys):
    rc, _, err = run(capsys, "bench", "nosuch", "--generate", "rmat:scale=4")
    assert rc == 2
    assert_one_error_line(err, "'nosuch'", "available benchmarks")


# -- end to end through the interpreter ------------------------------------------------------------
def _cli(args, cwd):
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "dgraph.cli", *map(str, args)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def test_subprocess_end_to_end(tmp_path):
    (tmp_path / "g.el").write_text(EDGES)
    p = _cli(["bfs", "g.el", "--source", "2", "-o", "d.csv"], tmp_path)
    assert p.returncode == 0, p.stderr
    assert [int(x["depth"]) for x in read_csv(tmp_path / "d.csv")] == [2, 1, 0, 1, -1, -1, -1]
    # the exit status of the process itself is 2 on bad input, with one line on stderr
    (tmp_path / "bad.el").write_text("0 1\n1\n")
    p = _cli(["bfs", "bad.el", "--source", "0", "-o", "e.csv"], tmp_path)
    assert p.returncode == 2
    assert_one_error_line(p.stderr, "bad.el:2:")
    assert not (tmp_path / "e.csv").exists()


@pytest.mark.gpu
def test_bfs_cupy_backend_same_output(capsys, small, tmp_path):
    from dgraph.backend import gpu_available  # noqa: PLC0415

    if not gpu_available():
        pytest.skip("no usable CUDA GPU / CuPy")
    a, b = tmp_path / "cpu.csv", tmp_path / "gpu.csv"
    assert run(capsys, "bfs", small, "--source", 1, "-o", a)[0] == 0
    rc, out, err = run(capsys, "bfs", small, "--source", 1, "-o", b, "--backend", "cupy")
    assert rc == 0 and err == "" and "(cupy)" in out
    assert b.read_text() == a.read_text()


@pytest.mark.parametrize("argv,column,call", [
    (["pagerank", "--iterations", "5"], "pagerank", lambda G: dgraph.pagerank(G, iterations=5)),
    (["wcc"], "component", lambda G: dgraph.wcc(G)),
    (["cdlp", "--iterations", "3"], "label", lambda G: dgraph.cdlp(G, iterations=3)),
    (["louvain", "--seed", "3", "--resolution", "0.8"], "community", lambda G: dgraph.louvain(G, seed=3,
                                                                                           resolution=0.8)),
    (["lcc"], "lcc", lambda G: dgraph.lcc(G)),
    (["triangle_count"], "triangles", lambda G: dgraph.triangle_count(G)),
    (["bc", "--sources", "0", "3", "--raw"], "bc", lambda G: dgraph.bc(G, [0, 3], normalized=False)),
    (["sssp", "--source", "2"], "distance", lambda G: dgraph.sssp(G, 2)),
    (["hits", "--tol", "1e-10"], "hubs", lambda G: dgraph.hits(G, tol=1e-10)),
])
def test_algorithm_subcommands_write_what_the_api_returns(capsys, tmp_path, argv, column, call):
    out = tmp_path / f"{argv[0]}.csv"
    rc, stdout, _ = run(capsys, argv[0], "--generate", "rmat:scale=6,seed=3", *argv[1:], "-o", str(out))
    assert rc == 0 and argv[0] in stdout and "supersteps" in stdout
    import pandas as pd

    got = pd.read_csv(out)
    ref = call(dgraph.generate("rmat", scale=6, seed=3)).to_pandas()
    np.testing.assert_allclose(got[column].to_numpy(dtype=float), ref[column].to_numpy(dtype=float), rtol=1e-12)


def test_jaccard_subcommand(capsys, tmp_path, small):
    import pandas as pd

    G = dgraph.read(small)
    pairs = tmp_path / "pairs.txt"
    pairs.write_text("# u v\n0 2\n1,3   # a comma works too\n\n4 4\n")
    out = tmp_path / "given.csv"
    rc, stdout, _ = run(capsys, "jaccard", small, "--pairs", pairs, "-o", out)
    assert rc == 0 and "jaccard 3 pairs" in stdout
    got = pd.read_csv(out)
    ref = dgraph.jaccard(G, [(0, 2), (1, 3), (4, 4)]).to_pandas()
    pd.testing.assert_frame_equal(got, ref)
    want = dgraph.jaccard(G).to_pandas()
    assert len(want) > 0
    for k, extra in enumerate(([], ["--chunk-size", "1"], ["--partitions", "2"])):
        out = tmp_path / f"all{k}.parquet"
        rc, stdout, _ = run(capsys, "jaccard", small, *extra, "-o", out)
        assert rc == 0 and f"{len(want)} pairs at distance two" in stdout
        pd.testing.assert_frame_equal(pd.read_parquet(out), want)
    bad = tmp_path / "bad.txt"
    bad.write_text("0 2\n\n1 99\n")
    rc, _, err = run(capsys, "jaccard", small, "--pairs", bad, "-o", tmp_path / "no.csv")
    assert rc == 2 and "bad.txt:3:" in err and "99" in err
    bad.write_text("0 2 3\n")
    rc, _, err = run(capsys, "jaccard", small, "--pairs", bad)
    assert rc == 2 and "bad.txt:1:" in err and "two vertex ids" in err
    rc, _, err = run(capsys, "jaccard", small, "--pairs", tmp_path / "absent.txt")
    assert rc == 2 and "absent.txt" in err
    rc, _, err = run(capsys, "jaccard", small, "-o", tmp_path / "g.txt", "--output-format", "graphalytics")
    assert rc == 2 and "one value per vertex" in err
    assert not (tmp_path / "no.csv").exists() and not (tmp_path / "g.txt").exists()


@pytest.mark.parametrize("argv,column,call", [
    (["pagerank", "--weight", "--iterations", "7"], "pagerank",
     lambda G: dgraph.pagerank(G, weight="weight", iterations=7)),
    (["hits", "--weight", "--raw"], "authorities", lambda G: dgraph.hits(G, weight="weight", normalized=False)),
    (["hits", "--weight", "--partitions", "3"], "hubs", lambda G: dgraph.hits(G, weight="weight")),
])
def test_weighted_link_analysis_subcommands(capsys, tmp_path, argv, column, call):
    """Issue 23: --weight reads the graph's weights (--weighted) as PageRank's and HITS's edge weights."""
    out = tmp_path / "out.csv"
    rc, stdout, _ = run(capsys, argv[0], "--generate", "rmat:scale=6,seed=3", "--directed", "--weighted", *argv[1:],
                        "-o", str(out))
    assert rc == 0 and argv[0] in stdout
    import pandas as pd

    ref = call(dgraph.generate("rmat", scale=6, seed=3, directed=True, weighted=True)).to_pandas()
    np.testing.assert_array_equal(pd.read_csv(out)[column].to_numpy(dtype=float), ref[column].to_numpy(dtype=float))


def test_hits_that_does_not_converge_is_one_error_line(capsys, tmp_path):
    out = tmp_path / "h.csv"
    rc, stdout, err = run(capsys, "hits", "--generate", "rmat:scale=6,seed=3", "--iterations", "2", "-o", str(out))
    assert rc == 2 and err.count("\n") == 1 and "no convergence in 2 iterations" in err and not out.exists()
