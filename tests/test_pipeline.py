"""Pipelines: every file in pipelines/ runs (small), the manifest and plots, --set and --dry-run, the Python
``dgraph.Pipeline``, and every validation error with the file, line and column it names."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import GRAPHALYTICS

import dgraph
from dgraph.cli import main
from dgraph.errors import PipelineError
from dgraph.pipeline import load_pipeline

REPO = Path(__file__).resolve().parent.parent
PIPELINES = sorted((REPO / "pipelines").glob("*.yaml"))
PNG = b"\x89PNG\r\n\x1a\n"


def run(capsys, *argv):
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


def write(tmp_path, text, name="p.yaml"):
    p = tmp_path / name
    p.write_text(textwrap.dedent(text).lstrip("\n"))
    return p


SMALL = """
graph:
  source: {generate: rmat, scale: 6, seed: 3}
steps:
  - {name: reach, run: bfs, source: 0}
  - {name: comps, run: wcc}
  - {name: big, run: subgraph, largest_component_of: comps}
  - {name: rank, run: pagerank, graph: big, iterations: 5}
outputs:
  - {from: rank, to: rank.parquet}
  - {from: reach, to: depth.txt, format: graphalytics, columns: [depth]}
"""


# -- the shipped pipelines ---------------------------------------------------------------------------

def test_pipelines_folder_has_files():
    assert len(PIPELINES) >= 2
    for path in PIPELINES:
        head = path.read_text().splitlines()[0]
        assert head.startswith("# ") and len(head) > 20, f"{path.name} is documented at its top"


@pytest.mark.parametrize("path", PIPELINES, ids=[p.stem for p in PIPELINES])
def test_every_pipeline_runs_small(path, tmp_path, capsys):
    results = tmp_path / "results"
    rc, out, err = run(capsys, "run", path, "--set", "graph.source.scale=7", "--results", results, "--quiet")
    assert rc == 0, err
    manifest = json.loads((results / "manifest.json").read_text())
    p, _ = load_pipeline(path)
    assert [s["name"] for s in manifest["steps"]] == [s["name"] for s in p.steps]
    assert manifest["graph"]["vertices"] == 2 ** 7
    assert manifest["pipeline"]["overrides"] == ["graph.source.scale=7"]
    assert len(manifest["pipeline"]["sha256"]) == 64
    for rec in manifest["steps"]:
        if rec["run"] != "subgraph":
            assert rec["supersteps"] >= 1 and rec["time_s"] > 0
            png = Path(rec["plot"])
            assert png.read_bytes()[:8] == PNG and png.parent == results / "plots"
    for o in manifest["outputs"]:
        to = Path(o["to"])  # a file, or a Parquet dataset folder of a partitioned result (one file a partition)
        assert (to.is_file() or any(to.glob("part.*.parquet"))) and o["bytes"] > 0
        assert o["to"] in out
    assert str(results / "manifest.json") in out


def test_outputs_equal_the_api(tmp_path, capsys):
    f = write(tmp_path, SMALL)
    rc, out, err = run(capsys, "run", f, "--results", tmp_path / "r", "--quiet")
    assert rc == 0, err
    G = dgraph.generate("rmat", scale=6, seed=3)
    comp = dgraph.wcc(G).to_pandas()
    sizes = comp.groupby("component").size()
    keep = comp.vertex[comp.component == sizes.idxmax()]
    ref = dgraph.pagerank(G.subgraph(keep.to_numpy()), iterations=5).to_pandas()
    got = pd.read_parquet(tmp_path / "r" / "rank.parquet")
    np.testing.assert_array_equal(got["vertex"], ref["vertex"])
    np.testing.assert_array_equal(got["pagerank"], ref["pagerank"])
    depth = dgraph.bfs(G, 0).to_pandas()
    lines = (tmp_path / "r" / "depth.txt").read_text().split()
    assert len(lines) == 2 * len(depth)
    manifest = json.loads((tmp_path / "r" / "manifest.json").read_text())
    big = next(s for s in manifest["steps"] if s["name"] == "big")
    assert big["vertices"] == len(keep)


def test_manifest_contents(tmp_path, capsys):
    f = write(tmp_path, SMALL)
    assert run(capsys, "run", f, "--results", tmp_path / "r", "--quiet")[0] == 0
    m = json.loads((tmp_path / "r" / "manifest.json").read_text())
    assert m["versions"]["dgraph"] == dgraph.__version__ and "numpy" in m["versions"]
    assert m["graph"]["edges"] == dgraph.generate("rmat", scale=6, seed=3).num_edges
    assert m["cluster"] is None and m["partition"] is None
    rank = next(s for s in m["steps"] if s["name"] == "rank")
    assert rank["options"] == {"iterations": 5} and rank["graph"] == "big" and rank["supersteps"] == 5
    reach = next(s for s in m["steps"] if s["name"] == "reach")
    assert reach["edges_touched"] > 0 and reach["executor"] == "local"
    assert m["started"] <= m["finished"] and m["wall_s"] > 0


def test_partitioned_on_a_cluster(tmp_path, capsys):
    f = write(tmp_path, """
        cluster: {kind: local, workers: 2}
        graph: {source: {generate: grid, rows: 6, cols: 7}}
        partition: {parts: 3, method: hash}
        steps:
          - {name: reach, run: bfs, source: 0, exchange: {kind: butterfly, fanout: 2}}
          - {name: cc, run: wcc, executor: tasks}
        outputs:
          - {from: reach, to: reach.csv}
        """)
    rc, out, err = run(capsys, "run", f, "--results", tmp_path / "r", "--quiet")
    assert rc == 0, err
    m = json.loads((tmp_path / "r" / "manifest.json").read_text())
    assert m["cluster"]["workers"] == 2 and m["partition"]["parts"] == 3
    assert [s["executor"] for s in m["steps"]] == ["spmd", "tasks"]
    assert all(s["partitions"] == 3 for s in m["steps"])
    assert m["steps"][0]["phases"]["loop_s"] > 0
    got = pd.read_csv(tmp_path / "r" / "reach.csv")
    ref = dgraph.bfs(dgraph.generate("grid", rows=6, cols=7), 0).to_pandas()
    np.testing.assert_array_equal(got["depth"], ref["depth"])


# -- --set, --dry-run, --overwrite --------------------------------------------------------------------

def test_set_overrides(tmp_path, capsys):
    f = write(tmp_path, SMALL)
    rc, out, err = run(capsys, "run", f, "--results", tmp_path / "r", "--quiet", "--set", "steps.rank.iterations=7",
                       "--set", "steps.0.source=1", "--set", "graph.source.seed=4")
    assert rc == 0, err
    m = json.loads((tmp_path / "r" / "manifest.json").read_text())
    steps = {s["name"]: s for s in m["steps"]}
    assert steps["rank"]["supersteps"] == 7 and steps["reach"]["options"]["source"] == 1
    assert m["graph"]["name"] == "rmat-scale6-ef16-seed4"


@pytest.mark.parametrize("setting,match", [
    ("steps.nope.iterations=3", "--set steps.nope.iterations=3: steps has no step named 'nope'; steps: reach"),
    ("steps.rank.iterations=ten", "--set steps.rank.iterations=ten: steps\\[3\\].iterations: expected an integer 0..1,000,000"),
    ("steps.rank.iterz=3", "--set steps.rank.iterz=3: steps\\[3\\].iterz: unknown option for pagerank"),
    ("noequals", "--set noequals: expected KEY=VALUE"),
    ("steps.rank.run.x=1", "steps\\[3\\].run is a single value"),
])
def test_set_errors_name_the_setting(tmp_path, capsys, setting, match):
    f = write(tmp_path, SMALL)
    with pytest.raises(PipelineError, match=match):
        load_pipeline(f, [setting])
    rc, out, err = run(capsys, "run", f, "--set", setting, "--results", tmp_path / "r")
    assert rc == 2 and err.startswith("dgraph: error: ") and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "r").exists()


def test_dry_run_touches_nothing(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    f = write(tmp_path, SMALL.replace("graph:\n", "cluster: {kind: local, workers: 2}\ngraph:\n"))

    def no_cluster(*a, **k):
        raise AssertionError("a dry run started a cluster")

    monkeypatch.setattr("dgraph.cluster.connect", no_cluster)
    monkeypatch.setattr("dgraph.generate", no_cluster)
    rc, out, err = run(capsys, "run", f, "--dry-run")
    assert rc == 0, err
    assert "1. reach  bfs(source=0) on main" in out
    assert "3. big    subgraph of main: the largest component of comps" in out
    assert "rank -> results/p/rank.parquet (parquet; new)" in out
    assert "local Dask cluster, 2 workers" in out
    assert "nothing was started, read or written" in out
    assert sorted(x.name for x in tmp_path.iterdir()) == ["p.yaml"]


def test_existing_outputs_and_results_need_overwrite(tmp_path, capsys):
    f = write(tmp_path, SMALL)
    r = tmp_path / "r"
    assert run(capsys, "run", f, "--results", r, "--quiet")[0] == 0
    before = (r / "rank.parquet").read_bytes()
    rc, out, err = run(capsys, "run", f, "--results", r, "--quiet", "--set", "steps.rank.iterations=9")
    assert rc == 2 and "p.yaml:9:18: outputs[0].to: " in err and "exists" in err and "--overwrite" in err
    assert (r / "rank.parquet").read_bytes() == before
    (r / "rank.parquet").unlink()
    (r / "depth.txt").unlink()
    rc, out, err = run(capsys, "run", f, "--results", r, "--quiet")
    assert rc == 2 and "holds an earlier run" in err
    rc, out, err = run(capsys, "run", f, "--results", r, "--quiet", "--overwrite", "--set", "steps.rank.iterations=9")
    assert rc == 0, err
    m = json.loads((r / "manifest.json").read_text())
    assert m["steps"][-1]["supersteps"] == 9


def test_a_failing_step_names_it_and_writes_nothing(tmp_path, capsys):
    (tmp_path / "g.el").write_text("0 1\n1 2\n")  # a file graph: its ids are known only when it is read
    f = write(tmp_path, SMALL.replace("source: 0}", "source: 999999}").replace(
        "{generate: rmat, scale: 6, seed: 3}", "{path: g.el}"))
    rc, out, err = run(capsys, "run", f, "--results", tmp_path / "r", "--quiet")
    assert rc == 2
    assert "p.yaml:4:5: steps[0]: step 'reach' (bfs) failed: " in err and "999999" in err
    assert not (tmp_path / "r").exists()


# -- validation: file, line and column ---------------------------------------------------------------

CASES = [
    ("unknown top key", "graph: {source: {generate: grid, n: 3}}\nsteps: [{name: a, run: wcc}]\nclusterr: {}\n",
     "p.yaml:3:1: clusterr: unknown key in a pipeline; allowed: name, cluster, graph"),
    ("unknown algorithm", "graph: {source: {generate: grid, n: 3}}\nsteps:\n  - {name: a, run: pagerankk}\n",
     "p.yaml:3:15: steps[0].run: unknown algorithm 'pagerankk'; expected one of bfs, sssp"),
    ("unknown option", "graph: {source: {generate: grid, n: 3}}\nsteps:\n  - name: a\n    run: cdlp\n    iteration: 3\n",
     "p.yaml:5:5: steps[0].iteration: unknown option for cdlp; allowed: name, run, graph, iterations"),
    ("wrong type", "graph: {source: {generate: grid, n: 3}}\nsteps:\n  - {name: a, run: pagerank, damping: high}\n",
     "p.yaml:3:30: steps[0].damping: expected a number in [0, 1], got text 'high'"),
    ("bool for int", "graph: {source: {generate: grid, n: 3}}\nsteps:\n  - {name: a, run: cdlp, iterations: true}\n",
     "steps[0].iterations: expected an integer 0..1,000,000 (or null), got true/false True"),
    ("later step", "graph: {source: {generate: grid, n: 3}}\nsteps:\n  - {name: r, run: wcc, graph: big}\n"
                   "  - {name: c, run: wcc}\n  - {name: big, run: subgraph, largest_component_of: c}\n",
     "p.yaml:3:25: steps[0].graph: refers to step 'big', which comes later: steps run in the order given"),
    ("missing step", "graph: {source: {generate: grid, n: 3}}\nsteps:\n  - {name: big, run: subgraph, largest_component_of: cc}\n",
     "p.yaml:3:32: steps[0].largest_component_of: no earlier step named 'cc'"),
    ("wrong step kind", "graph: {source: {generate: grid, n: 3}}\nsteps:\n  - {name: r, run: pagerank}\n"
                        "  - {name: big, run: subgraph, largest_component_of: r}\n",
     "p.yaml:4:32: steps[1].largest_component_of: step 'r' ran pagerank; largest_component_of reads a wcc or cc step"),
    ("duplicate name", "graph: {source: {generate: grid, n: 3}}\nsteps:\n  - {name: a, run: wcc}\n  - {name: a, run: lcc}\n",
     "p.yaml:4:6: steps[1].name: 'a' is used by an earlier step"),
    ("missing source", "graph: {source: {generate: grid, n: 3}}\nsteps:\n  - {name: a, run: sssp}\n",
     "p.yaml:3:5: steps[0]: sssp needs source: a vertex id"),
    ("missing file", "graph: {source: {path: nowhere.e, format: graphalytics}}\nsteps: [{name: a, run: wcc}]\n",
     "p.yaml:1:18: graph.source.path: no such file: nowhere.e"),
    ("generator parameter", "graph: {source: {generate: rmat, scael: 5}}\nsteps: [{name: a, run: wcc}]\n",
     "p.yaml:1:34: graph.source.scael: unknown key in a rmat generator; allowed: generate, seed"),
    ("cluster kind", "cluster: {kind: yarn}\ngraph: {source: {generate: grid, n: 3}}\nsteps: [{name: a, run: wcc}]\n",
     "p.yaml:1:11: cluster.kind: expected one of local, cuda, address, got 'yarn'"),
    ("partition parts", "graph: {source: {generate: grid, n: 3}}\npartition: {parts: 0}\nsteps: [{name: a, run: wcc}]\n",
     "p.yaml:2:13: partition.parts: expected an integer 1..4,096, got int 0"),
    ("output from subgraph", "graph: {source: {generate: grid, n: 3}}\nsteps:\n  - {name: c, run: wcc}\n"
                             "  - {name: b, run: subgraph, largest_component_of: c}\noutputs:\n  - {from: b, to: b.csv}\n",
     "p.yaml:6:6: outputs[0].from: step 'b' makes a graph, not a result to write"),
    ("output format", "graph: {source: {generate: grid, n: 3}}\nsteps: [{name: a, run: wcc}]\noutputs:\n  - {from: a, to: a.xyz}\n",
     "p.yaml:4:15: outputs[0].to: cannot tell the format from the file name"),
    ("output missing step", "graph: {source: {generate: grid, n: 3}}\nsteps: [{name: a, run: wcc}]\noutputs:\n  - {from: x, to: a.csv}\n",
     "p.yaml:4:6: outputs[0].from: no step named 'x'; steps: a"),
    ("exchange key", "graph: {source: {generate: grid, n: 3}}\nsteps:\n  - {name: a, run: wcc, exchange: {kind: butterfly, fan: 2}}\n",
     "steps[0].exchange.fan: unknown key; allowed: kind, fanout"),
    ("yaml syntax", "graph: {source: {generate: grid, n: 3}\nsteps: [{name: a, run: wcc}]\n",
     "p.yaml:2:1: not valid YAML: expected ',' or '}'"),
    ("duplicate key", "graph: {source: {generate: grid, n: 3}}\nsteps: [{name: a, run: wcc}]\nsteps: []\n",
     "p.yaml:3:1: steps: given twice"),
    ("not a mapping", "- just\n- a list\n", "p.yaml:1:1: a pipeline is a mapping"),
    ("no steps", "graph: {source: {generate: grid, n: 3}}\nsteps: []\n",
     "p.yaml:2:1: steps: expected a non-empty list of steps"),
    ("code is never run", "graph: !!python/object/apply:os.system [echo hacked]\nsteps: [{name: a, run: wcc}]\n",
     "p.yaml:1:8: graph: the tag tag:yaml.org,2002:python/object/apply:os.system is not allowed"),
]


@pytest.mark.parametrize("text,match", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_validation_errors_name_file_line_column(tmp_path, capsys, text, match):
    f = tmp_path / "p.yaml"
    f.write_text(text)
    with pytest.raises(PipelineError) as info:
        load_pipeline(f)
    assert match in str(info.value).replace(str(tmp_path) + "/", ""), str(info.value)
    rc, out, err = run(capsys, "run", f, "--dry-run")
    assert rc == 2 and len(err.strip().splitlines()) == 1 and match in err.replace(str(tmp_path) + "/", "")


def test_reads_graphalytics_relative_to_the_file(tmp_path, capsys):
    f = write(tmp_path, f"""
        graph:
          source: {{path: {Path(GRAPHALYTICS) / 'example-directed.e'}, format: graphalytics}}
          directed: true
        steps:
          - {{name: cd, run: cdlp, iterations: 2}}
        outputs:
          - {{from: cd, to: CDLP, format: graphalytics}}
        """)
    assert run(capsys, "run", f, "--results", tmp_path / "r", "--quiet")[0] == 0
    assert (tmp_path / "r" / "CDLP").read_text() == (Path(GRAPHALYTICS) / "example-directed-CDLP").read_text()
    rel = write(tmp_path / "sub" if (tmp_path / "sub").mkdir() is None else tmp_path, """
        graph: {source: {path: g.el}}
        steps: [{name: a, run: wcc}]
        """)
    (tmp_path / "sub" / "g.el").write_text("0 1\n1 2\n")
    p, _ = load_pipeline(rel)
    run_ = p.run()
    assert list(run_["a"].to_pandas()["component"]) == [0, 0, 0]


# -- the Python API ------------------------------------------------------------------------------------

def test_python_pipeline(tmp_path):
    G = dgraph.generate("rmat", scale=6, seed=3)
    p = dgraph.Pipeline(graph=G)
    p.bfs("reach", source=0).wcc("comps").subgraph("big", largest_component_of="comps")
    p.pagerank("rank", graph="big", iterations=5).output("rank", "rank.csv")
    assert "4. rank   pagerank(iterations=5) on big" in p.plan()
    out = p.run(results=tmp_path / "r")
    assert set(out) == {"reach", "comps", "big", "rank"}
    assert isinstance(out["big"], dgraph.Graph) and out["rank"].supersteps == 5
    assert (tmp_path / "r" / "rank.csv").is_file() and (tmp_path / "r" / "plots" / "rank.png").is_file()
    assert "PipelineRun" in repr(out) and out.folder == tmp_path / "r"
    mem = dgraph.Pipeline(graph={"generate": "grid", "rows": 3, "cols": 3}).sssp("d", source=0).run()
    assert mem.folder is None and list(mem["d"].to_pandas()["distance"])[:3] == [0.0, 1.0, 2.0]
    with pytest.raises(KeyError, match="no step named 'x'"):
        mem["x"]


@pytest.mark.parametrize("build,match", [
    (lambda p: p.pagerank("r", damping=2), "step 0 damping: expected a number in \\[0, 1\\]"),
    (lambda p: p.step("r", "dijkstra"), "step 0 run: unknown algorithm 'dijkstra'"),
    (lambda p: p.wcc("c").pagerank("r", graph="c"), "step 1 graph: step 'c' ran wcc, not subgraph"),
    (lambda p: p.subgraph("s"), "subgraph needs exactly one of largest_component_of, reachable_from, vertices"),
    (lambda p: p.wcc("c").output("c", "c.txt"), "cannot tell the format"),
    (lambda p: p.run(), "steps: no steps"),
])
def test_python_pipeline_errors(build, match):
    p = dgraph.Pipeline(graph=dgraph.generate("grid", rows=2, cols=2))
    with pytest.raises(PipelineError, match=match):
        build(p)


def test_progress_lines(tmp_path, capsys, monkeypatch):
    f = write(tmp_path, SMALL)
    rc, out, err = run(capsys, "run", f, "--results", tmp_path / "r")
    assert rc == 0
    assert "dgraph: graph: 64 vertices" in err  # the dgraph logger's line
    assert "reach (bfs)" not in err  # no bars where stderr is not a terminal (logs, CI)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)  # as on a terminal
    rc, out, err = run(capsys, "run", f, "--results", tmp_path / "r", "--overwrite")
    assert rc == 0
    bar = [line for line in err.replace("\r", "\n").splitlines() if line.startswith("reach (bfs)")]
    assert bar and f"supersteps {dgraph.bfs(dgraph.generate('rmat', scale=6, seed=3), 0).supersteps}" in bar[-1]
    rc, out, err = run(capsys, "run", f, "--results", tmp_path / "r", "--overwrite", "--quiet")
    assert rc == 0 and err == ""


def test_readme_main_command_is_a_pipeline_that_runs(tmp_path, capsys, monkeypatch):
    block = (REPO / "README.md").read_text().split("```bash", 1)[1].split("```", 1)[0]
    main_cmd = [line for line in block.splitlines() if line.startswith("pip install . && ")][0]
    argv = main_cmd.split("&& ", 1)[1].split()
    assert argv[:2] == ["dgraph", "run"] and (REPO / argv[2]).is_file()
    monkeypatch.chdir(tmp_path)
    rc, out, err = run(capsys, *argv[1:2], REPO / argv[2], *argv[3:])
    assert rc == 0, err
    stem = Path(argv[2]).stem
    assert (tmp_path / "results" / stem / "manifest.json").is_file()
    assert f"results/{stem}/manifest.json" in out and f"results/{stem}/plots" in out
    rc, out, err = run(capsys, *argv[1:2], REPO / argv[2], *argv[3:])
    assert rc == 0, err  # --overwrite: the README command runs again


# -- jaccard: a per-pair result --------------------------------------------------------------------------

JACCARD = """
graph:
  source: {generate: rmat, scale: 6, seed: 3}
steps:
  - {name: given, run: jaccard, pairs: [[0, 1], [2, 5], [7, 7]]}
  - {name: all, run: jaccard, chunk_size: 100}
outputs:
  - {from: given, to: given.csv}
  - {from: all, to: sim/all.parquet}
"""


def test_jaccard_steps_write_pairs(tmp_path, capsys):
    f = write(tmp_path, JACCARD)
    rc, out, err = run(capsys, "run", f, "--results", tmp_path / "r", "--quiet")
    assert rc == 0, err
    G = dgraph.generate("rmat", scale=6, seed=3)
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "r" / "given.csv"),
                                  dgraph.jaccard(G, [(0, 1), (2, 5), (7, 7)]).to_pandas())
    want = dgraph.jaccard(G).to_pandas()
    assert len(want) > 100
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "r" / "sim" / "all.parquet"), want)
    manifest = json.loads((tmp_path / "r" / "manifest.json").read_text())
    assert [s["run"] for s in manifest["steps"]] == ["jaccard", "jaccard"]
    assert (tmp_path / "r" / "plots" / "all.png").read_bytes().startswith(PNG)
    p = dgraph.Pipeline(graph=G).jaccard("j", pairs=[[0, 3]])
    assert "jaccard(pairs='<1 pairs>')" in p.plan()
    assert p.run()["j"].to_pandas().u.tolist() == [0]


@pytest.mark.parametrize("build,match", [
    (lambda p: p.jaccard("j", pairs=[[0, 1], [2]]), r"step 0 pairs.1: expected a pair \[u, v\]"),
    (lambda p: p.jaccard("j", pairs=[[0, 99]]), r"step 0 pairs.0.1: vertex 99 is not in the graph"),
    (lambda p: p.jaccard("j", pairs="0 1"), "step 0 pairs: expected a list of"),
    (lambda p: p.jaccard("j", chunk_size=0), "step 0 chunk_size: expected an integer"),
    (lambda p: p.jaccard("j").output("j", "j.txt", format="graphalytics"), "per pair of vertices"),
])
def test_jaccard_step_errors(build, match):
    p = dgraph.Pipeline(graph={"generate": "grid", "rows": 3, "cols": 3})
    with pytest.raises(PipelineError, match=match):
        build(p)


def test_hits_and_weighted_pagerank_steps(tmp_path):
    """Issue 23: hits is a step; pagerank takes weight and nstart; the files hold the API's answers."""
    G = dgraph.generate("rmat", scale=6, seed=3, directed=True, weighted=True)
    p = dgraph.Pipeline(graph=G)
    p.hits("hubs", tol=1e-10, weight="weight").pagerank("wrank", weight="weight", iterations=10)
    p.output("hubs", "hubs.csv").output("wrank", "wrank.csv")
    assert "hits(tol=1e-10, weight='weight')" in p.plan()
    out = p.run(results=tmp_path / "r")
    want = dgraph.hits(G, tol=1e-10, weight="weight")
    np.testing.assert_array_equal(out["hubs"].raw("hubs"), want.raw("hubs"))
    got = pd.read_csv(tmp_path / "r" / "hubs.csv")
    assert list(got.columns) == ["vertex", "hubs", "authorities"]
    np.testing.assert_allclose(got["authorities"], want.raw("authorities"), rtol=1e-15)
    np.testing.assert_array_equal(out["wrank"].raw("pagerank"),
                                  dgraph.pagerank(G, weight="weight", iterations=10).raw("pagerank"))
    for build, match in [(lambda q: q.pagerank("r", weight="cost"), "step 0 weight: expected null or false"),
                         (lambda q: q.hits("h", nstart=[1, 2]), "step 0 nstart: expected a mapping"),
                         (lambda q: q.hits("h", tol=-1), "step 0 tol: expected a finite number > 0")]:
        with pytest.raises(PipelineError, match=match):
            build(dgraph.Pipeline(graph=G))
