"""Issue 21 (hardening) for pipelines and the CLI, one test per reported case (numbered as in the issue),
and issue 25 item 5 (``source: max-degree``).  Each hostile input gets one ``dgraph: error:
FILE:LINE:COL: ...`` line (exit 2) before anything runs, nothing outside the results folder is
written, and nothing the user had is replaced.  The fuzz loop over mutated files is
tests/test_pipeline_fuzz.py (slow)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import dgraph
from dgraph.cli import main
from dgraph.errors import DGraphError, PipelineError
from dgraph.pipeline import checks, folder, load_pipeline

REPO = Path(__file__).resolve().parent.parent
WHERE = re.compile(r"^dgraph: error: \S+\.yaml:\d+:\d+: ")

BASE = """
graph:
  source: {generate: rmat, scale: 6, seed: 3}
steps:
  - {name: reach, run: bfs, source: max-degree}
  - {name: comps, run: wcc}
  - {name: rank, run: pagerank, iterations: 5}
outputs:
  - {from: rank, to: rank.parquet}
  - {from: reach, to: sub/depth.txt, format: graphalytics, columns: [depth]}
  - {from: comps, to: comps.csv}
"""


def run(capsys, *argv):
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


def write(folder_, text, name="p.yaml"):
    p = folder_ / name
    p.write_text(textwrap.dedent(text).lstrip("\n"))
    return p


def files_under(root):
    return sorted(str(p.relative_to(root)) for p in Path(root).rglob("*") if p.is_file() or p.is_symlink())


def one_error(err, *words, where=True):
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    if where:
        assert WHERE.match(lines[0]), err
    for w in words:
        assert w in lines[0], (w, err)
    return lines[0]


@pytest.fixture
def box(tmp_path, monkeypatch):
    """A work folder (the current one) inside a box that holds the user's precious files."""
    work = tmp_path / "box" / "a" / "b" / "work"
    work.mkdir(parents=True)
    monkeypatch.chdir(work)
    monkeypatch.setenv("HOME", str(tmp_path / "box" / "home"))
    for name in ("victim.png", "victim.csv", "a/victim.png", "a/b/victim.csv", "home/victim.csv"):
        (tmp_path / "box" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "box" / name).write_text("precious")
    return work


def box_unchanged(box_):
    root = box_.parents[2]
    outside = [p for p in files_under(root) if not p.startswith("a/b/work/")]
    assert sorted(outside) == ["a/b/victim.csv", "a/victim.png", "home/victim.csv", "victim.csv", "victim.png"], outside
    assert all((root / p).read_text() == "precious" for p in outside)


# -- 1. step names are words, not paths ------------------------------------------------------------------

@pytest.mark.parametrize("name", ["../../../victim", "../victim", "a/b", ".hidden", "x" * 300, "a.b", "a b",
                                  "/abs", "é" * 40, "-x"])
def test_issue21_1_step_name_is_not_a_path(box, capsys, name):
    f = write(box, BASE.replace("{name: comps, run: wcc}", "{name: " + json.dumps(name) + ", run: wcc}"))
    rc, out, err = run(capsys, "run", f, "--quiet")
    assert rc == 2
    one_error(err, "p.yaml:5:", "steps[1].name: expected a step name")
    assert files_under(box) == ["p.yaml"]
    box_unchanged(box)


def test_issue21_1_names_that_collide_as_files(box, capsys):
    f = write(box, BASE.replace("{name: comps, run: wcc}", "{name: Reach, run: wcc}"))
    rc, out, err = run(capsys, "run", f, "--dry-run")
    assert rc == 2 and "'Reach' is used by an earlier step" in one_error(err)
    with pytest.raises(PipelineError, match="reserved"):
        dgraph.Pipeline(graph={"generate": "grid", "n": 2}).wcc("MAIN")


def test_issue21_1_an_existing_plot_is_not_replaced_without_overwrite(box, capsys):
    f = write(box, BASE)
    r = box / "r"
    (r / "plots").mkdir(parents=True)
    (r / "plots" / "rank.png").write_text("my own figure")
    rc, out, err = run(capsys, "run", f, "--results", r, "--quiet")
    assert rc == 2
    one_error(err, "steps[2].name: ", "plots/rank.png exists", "--overwrite")
    assert files_under(r) == ["plots/rank.png"] and (r / "plots" / "rank.png").read_text() == "my own figure"
    rc, out, err = run(capsys, "run", f, "--results", r, "--quiet", "--overwrite")
    assert rc == 0, err
    assert (r / "plots" / "rank.png").read_bytes()[:4] == b"\x89PNG"


# -- 2. every written path stays inside the results folder ----------------------------------------------

@pytest.mark.parametrize("to,words", [
    ("/tmp/x/victim.csv", ["an output goes under the results folder"]),
    ("~/victim.csv", ["an output goes under the results folder"]),
    ("../../victim.csv", ["'..' is not allowed"]),
    ("sub/../../victim.csv", ["'..' is not allowed"]),
    ("a\\\\..\\\\victim.csv", ["backslash"]),
    ("x" * 300 + ".csv", ["too long"]),
    ("manifest.json", ["writes its own manifest.json"]),
    ("Manifest.JSON", ["writes its own manifest.json"]),
    ("plots/rank.csv", ["per-step plots in plots/"]),
    (".dgraph-unfinished-x/a.csv", ["the run's own"]),
])
def test_issue21_2_output_paths_stay_inside(box, capsys, to, words):
    f = write(box, BASE.replace("to: comps.csv", "to: " + json.dumps(to)))
    for extra in ((), ("--dry-run",)):
        rc, out, err = run(capsys, "run", f, "--quiet", *extra)
        assert rc == 2
        one_error(err, "p.yaml:10:", "outputs[2].to: ", *words)
    assert files_under(box) == ["p.yaml"]
    box_unchanged(box)


@pytest.mark.parametrize("setting", ["outputs.2.to=../../victim.csv", "outputs.2.to=/tmp/victim.csv",
                                     "outputs.2.to=~/victim.csv", "results=../../victim", "results=/tmp/r",
                                     "results=~/r"])
def test_issue21_2_through_set(box, capsys, setting):
    f = write(box, BASE)
    rc, out, err = run(capsys, "run", f, "--set", setting, "--quiet")
    assert rc == 2
    one_error(err, f"--set {setting}: ", where=False)
    assert files_under(box) == ["p.yaml"]
    box_unchanged(box)


def test_issue21_2_results_key_is_relative_but_results_flag_may_be_anywhere(box, capsys, tmp_path):
    f = write(box, "results: ../../elsewhere\n" + textwrap.dedent(BASE))
    rc, out, err = run(capsys, "run", f, "--quiet")
    assert rc == 2 and "p.yaml:1:1: results: '../../elsewhere'" in one_error(err)
    anywhere = tmp_path / "chosen" / "by" / "me"
    f = write(box, BASE)
    rc, out, err = run(capsys, "run", f, "--quiet", "--results", anywhere)
    assert rc == 0, err
    assert files_under(anywhere) == ["comps.csv", "manifest.json", "plots/comps.png", "plots/rank.png",
                                     "plots/reach.png", "rank.parquet", "sub/depth.txt"]


def test_issue21_2_a_link_inside_the_results_folder_is_not_followed(box, capsys, tmp_path):
    f = write(box, BASE)
    r = box / "r"
    r.mkdir()
    (tmp_path / "box" / "target").mkdir()
    (r / "sub").symlink_to(tmp_path / "box" / "target")
    rc, out, err = run(capsys, "run", f, "--results", r, "--quiet", "--overwrite")
    assert rc == 2
    one_error(err, "outputs[1].to: ", "is a link, not a folder")
    assert list((tmp_path / "box" / "target").iterdir()) == []
    (r / "sub").unlink()
    (r / "sub").write_text("a file where a folder should be")
    rc, out, err = run(capsys, "run", f, "--results", r, "--quiet", "--overwrite")
    assert rc == 2 and "is a file, not a folder" in one_error(err)


def test_issue21_2_inputs_are_never_outputs(tmp_path, capsys):
    (tmp_path / "g.csv").write_text("0,1\n1,2\n")
    f = write(tmp_path, """
        graph: {source: {path: g.csv}}
        steps: [{name: c, run: wcc}]
        outputs: [{from: c, to: g.csv}, {from: c, to: p.yaml, format: csv}]
        """)
    rc, out, err = run(capsys, "run", f, "--results", tmp_path, "--quiet", "--overwrite")
    assert rc == 2 and "g.csv is the graph's input file" in one_error(err, "outputs[0].to: ")
    f.write_text(f.read_text().replace("{from: c, to: g.csv}, ", ""))
    rc, out, err = run(capsys, "run", f, "--results", tmp_path, "--quiet", "--overwrite")
    assert rc == 2 and "p.yaml is the pipeline file" in one_error(err, "outputs[0].to: ")
    assert (tmp_path / "g.csv").read_text() == "0,1\n1,2\n"


def test_issue21_2_the_dry_run_says_what_would_stop_the_run(tmp_path, capsys):
    f = write(tmp_path, BASE)
    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "comps.csv").write_text("mine")
    rc, out, err = run(capsys, "run", f, "--results", tmp_path / "r", "--dry-run")
    assert rc == 2 and "comps -> " in out and "exists: would be replaced only with --overwrite" in out
    one_error(err, "outputs[2].to: ", "comps.csv exists")
    assert run(capsys, "run", f, "--results", tmp_path / "r", "--dry-run", "--overwrite")[0] == 0
    rc, out, err = run(capsys, "run", f, "--results", "r/" * 3000, "--dry-run")
    assert rc == 2 and "too long for the file system" in one_error(err, where=False)
    assert files_under(tmp_path) == ["p.yaml", "r/comps.csv"]


def test_issue21_2_python_pipeline_outputs_too(tmp_path):
    p = dgraph.Pipeline(graph={"generate": "grid", "n": 3}).wcc("c")
    for to in ("/tmp/x.csv", "../x.csv", "~/x.csv", "manifest.json"):
        with pytest.raises(PipelineError, match="outputs.0.to: "):
            p.output("c", to)
    p.output("c", "deep/er/c.csv")
    r = p.run(results=tmp_path / "r")
    assert r.manifest["outputs"][0]["to"] == str(tmp_path / "r" / "deep" / "er" / "c.csv")
    assert files_under(tmp_path / "r") == ["deep/er/c.csv", "manifest.json", "plots/c.png"]


# -- 3. hostile YAML: one FILE:LINE:COL error, at once ----------------------------------------------------

BOMB = ("a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
        + "".join(f"{c}: &{c} [{', '.join(['*' + p] * 9)}]\n" for p, c in zip("abcdefgh", "bcdefghi")))
GOOD_TAIL = "graph: {source: {generate: grid, n: 3}}\nsteps: [{name: s, run: wcc}]\n"


@pytest.mark.parametrize("text,words", [
    (BOMB + GOOD_TAIL, ["aliases (*name) expand this file past 10,000 extra values"]),
    ("x: &r [*r]\n" + GOOD_TAIL, ["p.yaml:1:4: x[0]: an alias (*name) inside the value it names"]),
    ("x: &r {k: *r}\n" + GOOD_TAIL, ["an alias (*name) inside the value it names"]),
    ("graph: " + "[" * 5000 + "]" * 5000 + "\nsteps: []\n", ["p.yaml:1:39: nested more than 32 levels deep"]),
    ("".join("  " * i + "a:\n" for i in range(200)), ["nested more than 32 levels deep"]),
    ("base: &b {generate: grid, n: 3}\ngraph: {source: {<<: *b}}\nsteps: [{name: s, run: wcc}]\n",
     ["p.yaml:2:18: graph.source: merge keys (<<) are not supported"]),
    ("graph: {source: {generate: grid, n: 3}}\nsteps: [{name: a, run: wcc, !!python/name:os.system x: 1}]\n",
     ["p.yaml:2:29: steps[0]: the tag tag:yaml.org,2002:python/name:os.system is not allowed"]),
    ("graph: {source: {generate: grid, n: 3}}\nsteps: [{name: a, run: wcc, graph: [a]}]\n",
     ["p.yaml:2:29: steps[0].graph: expected the name of an earlier subgraph step (or main), got a list"]),
    ("graph: {source: {generate: grid, n: 3}}\nsteps: [{name: a, run: wcc}]\noutputs: [{from: [a], to: a.csv}]\n",
     ["p.yaml:3:12: outputs[0].from: expected the name of a step"]),
    ("graph: {source: {generate: grid, n: 3}}\nsteps: [{name: a, run: wcc}, {name: b, run: subgraph, "
     "largest_component_of: {x: 1}}]\n", ["steps[1].largest_component_of: expected the name of an earlier step"]),
    ("graph: {source: {generate: grid, n: 3}}\nsteps: [{name: a, run: wcc, 7: x}]\n",
     ["p.yaml:2:29: steps[0][7]: unknown option 7"]),
    ("name: 2024-01-01\n" + GOOD_TAIL, ["p.yaml:1:7: name: a date or time (quote it to mean text) is not allowed"]),
    ("name: !!binary aGVsbG8=\n" + GOOD_TAIL, ["binary data is not allowed"]),
    ("name: !mine x\n" + GOOD_TAIL, ["the tag !mine is not allowed"]),
    ("graph: {source: {generate: grid, n: " + "9" * 5000 + "}}\nsteps: [{name: s, run: wcc}]\n",
     ["p.yaml:1:37: graph.source.n: "]),
    ("name: a\x00b\n" + GOOD_TAIL, ["p.yaml:1:8: not valid YAML: character #x0000 is not allowed"]),
    ("x: *nowhere\n" + GOOD_TAIL, ["p.yaml:1:4: not valid YAML: found undefined alias"]),
])
def test_issue21_3_hostile_yaml_is_one_located_error(tmp_path, capsys, text, words):
    f = tmp_path / "p.yaml"
    f.write_text(text)
    with pytest.raises(PipelineError) as info:
        load_pipeline(f)
    msg = str(info.value).replace(str(tmp_path) + "/", "")
    assert re.match(r"^p\.yaml:\d+:\d+: ", msg), msg
    assert all(w in msg for w in words), msg
    rc, out, err = run(capsys, "run", f, "--dry-run")
    assert rc == 2 and one_error(err) == "dgraph: error: " + str(info.value)


def test_issue21_3_not_utf8_and_too_big(tmp_path, capsys):
    f = tmp_path / "p.yaml"
    f.write_bytes(b"name: ok\nsteps:\n  - {name: \xff}\n")
    rc, out, err = run(capsys, "run", f, "--dry-run")
    assert rc == 2 and "p.yaml:3:12: not UTF-8 text (byte 0xff)" in one_error(err)
    f.write_text("# " + "x" * (4 << 20) + "\n" + GOOD_TAIL)
    rc, out, err = run(capsys, "run", f, "--dry-run")
    assert rc == 2 and "a pipeline file is at most 4,194,304 bytes" in one_error(err)


@pytest.mark.parametrize("value,words", [
    ("!!python/name:os.system", ["the value: the tag tag:yaml.org,2002:python/name:os.system is not allowed"]),
    ("&r [*r]", ["an alias (*name) inside the value it names"]),
    ("[" * 100 + "]" * 100, ["nested more than 32 levels deep"]),
    ("{<<: {a: 1}}", ["merge keys (<<) are not supported"]),
    (BOMB.replace("\n", ", ").join("{}"), ["aliases (*name) expand"]),
])
def test_issue21_3_hostile_set_values(tmp_path, capsys, value, words):
    f = tmp_path / "p.yaml"
    f.write_text(GOOD_TAIL)
    rc, out, err = run(capsys, "run", f, "--dry-run", "--set", f"steps.s.iterations={value}")
    assert rc == 2
    one_error(err, f"--set steps.s.iterations={value[:20]}", *words, where=False)


# -- 4. the plan refuses what the run would refuse ---------------------------------------------------------

@pytest.mark.parametrize("change,words", [
    (("scale: 6", "scale: '8'"), ["p.yaml:2:28: graph.source.scale: scale='8': expected an integer in [0, 40]"]),
    (("scale: 6", "scale: 41"), ["graph.source.scale: scale=41: expected an integer in [0, 40]"]),
    (("scale: 6", "scale: 6, edgefactor: -1"), ["graph.source.edgefactor: edgefactor=-1: expected an integer >= 0"]),
    (("scale: 6", "scale: 40"), ["graph.source: generate rmat: 1,099,511,627,776 vertices", "need about"]),
    (("seed: 3", "seed: 100000000000000000000000"), ["graph.source.seed: expected an integer"]),
    (("run: wcc}", "run: wcc, fanout: 'é'}"), ["p.yaml:5:29: steps[1].fanout: expected an integer 1..4096"]),
    (("run: wcc}", "run: wcc, exchange: 'butterfly:é'}"), ["steps[1].exchange: the fanout after ':' is not an integer"]),
    (("run: wcc}", "run: wcc, exchange: {kind: butterfly, fanout: 0}}"), ["steps[1].exchange.fanout: expected a fanout"]),
    (("run: wcc}", "run: wcc, exchange: {kind: all-to-all, fanout: 2}}"), ["a fanout applies only to butterfly"]),
    (("run: wcc}", "run: wcc, exchange: {kind: [x]}}"), ["steps[1].exchange.kind: expected butterfly or all-to-all"]),
    (("iterations: 5", "iterations: 1000000000000000000000000000000"),
     ["steps[2].iterations: expected an integer 0..1,000,000 (or null)"]),
    (("iterations: 5", "iterations: 5, damping: .nan"), ["steps[2].damping: expected a number in [0, 1]"]),
    (("iterations: 5", "iterations: 5, tol: .inf"), ["steps[2].tol: expected a finite number > 0"]),
    (("iterations: 5", "max_iterations: 0"), ["steps[2].max_iterations: expected an integer 1..1,000,000"]),
    (("iterations: 5", "personalization: {0: .nan}"), ["steps[2].personalization[0]: expected a weight"]),
    (("iterations: 5", "personalization: {99: 1}"), ["steps[2].personalization[99]: vertex 99 is not in the graph"]),
    (("source: max-degree", "source: 64"), ["steps[0].source: vertex 64 is not in the graph: its ids are 0..63"]),
    (("source: max-degree", "source: some-label"), ["steps[0].source: this graph's vertex ids are integers 0..63"]),
    (("source: max-degree", "source: 1.5"), ["steps[0].source: expected a vertex id"]),
    (("run: wcc}", "run: wcc, executor: spmd}"), ["steps[1].executor: executor spmd runs on a partitioned graph"]),
    (("run: wcc}", "run: subgraph, vertices: [1, 2, 99]}"), ["steps[1].vertices[2]: vertex 99 is not in the graph"]),
])
def test_issue21_4_options_are_checked_before_the_run(tmp_path, capsys, change, words):
    f = write(tmp_path, BASE.replace(*change))
    assert f.read_text() != textwrap.dedent(BASE).lstrip("\n")
    rc, out, err = run(capsys, "run", f, "--dry-run")
    assert rc == 2
    one_error(err, *words)


@pytest.mark.parametrize("section,words", [
    ("partition: {parts: 9223372036854775808}", ["partition.parts: expected an integer 1..4,096"]),
    ("partition: {parts: 65}", ["partition.parts: the graph has 64 vertices: at most that many parts"]),
    ("cluster: {kind: local, workers: 1000000}", ["cluster.workers: expected an integer 1..1,024"]),
    ("graph2: 1", ["graph2: unknown key in a pipeline"]),
])
def test_issue21_4_sections_are_checked_before_the_run(tmp_path, capsys, section, words):
    f = write(tmp_path, BASE + section + "\n")
    rc, out, err = run(capsys, "run", f, "--dry-run")
    assert rc == 2
    one_error(err, *words)


def test_issue21_4_a_device_or_fifo_is_not_a_graph_file(tmp_path, capsys):
    for path in ("/dev/zero", tmp_path / "fifo"):
        if path == tmp_path / "fifo":
            os.mkfifo(path)
        elif not Path(path).exists():
            continue
        f = write(tmp_path, f"graph: {{source: {{path: {path}, format: edgelist}}}}\nsteps: [{{name: c, run: wcc}}]\n")
        rc, out, err = run(capsys, "run", f, "--dry-run")
        assert rc == 2 and "is not a regular file" in one_error(err, "p.yaml:1:18: graph.source.path: ")


def test_issue21_4_every_algorithm_option_has_a_rule():
    """A wrong-typed value fails every option of every algorithm: an option added to an algorithm
    without a rule in checks.check_option would pass this value through to the run."""
    def fail(path, message):
        raise PipelineError(message)

    for run_ in checks.ALGORITHMS:
        for key in checks.step_options(run_):
            with pytest.raises(PipelineError):
                checks.check_option(fail, ("steps", 0, key), key, [{"x": object()}])


# -- 5. outputs, manifest and kills: staged, then moved into place ------------------------------------------

def test_issue21_5_manifest_is_never_an_output(tmp_path, capsys):
    f = write(tmp_path, BASE.replace("to: comps.csv", "to: manifest.json"))
    rc, out, err = run(capsys, "run", f, "--results", tmp_path / "r", "--quiet")
    assert rc == 2 and "outputs[2].to: 'manifest.json': the run writes its own manifest.json" in one_error(err)
    assert not (tmp_path / "r").exists()


class Killed(BaseException):
    """Stands for SIGKILL: main() and the run catch no BaseException but KeyboardInterrupt."""


def _killed_while_moving(monkeypatch, after):
    """Make the next run stop (as SIGKILL would: no clean-up runs) after ``after`` files were moved."""
    real_move = folder.Stage._move
    moved = []

    def move(self, rel, ours, real_root):
        if len(moved) == after:
            raise Killed
        real_move(self, rel, ours, real_root)
        moved.append(rel)

    monkeypatch.setattr(folder.Stage, "_move", move)


def test_issue21_5_a_run_killed_while_moving_is_finished_by_its_rerun(tmp_path, capsys, monkeypatch):
    f = write(tmp_path, BASE)
    r = tmp_path / "r"
    with monkeypatch.context() as m:
        _killed_while_moving(m, after=2)
        with pytest.raises(Killed):
            main(["run", str(f), "--results", str(r), "--quiet"])
    capsys.readouterr()
    left = files_under(r)
    assert "manifest.json" not in left and "rank.parquet" in left and "sub/depth.txt" in left
    assert any(p.startswith(".dgraph-unfinished-") and p.endswith("run.json") for p in left)
    assert not any(p.endswith(".tmp") and not p.startswith(".dgraph-") for p in left)
    # a different pipeline into the same folder is told what is there
    rc, out, err = run(capsys, "run", f, "--results", r, "--quiet", "--set", "steps.rank.iterations=6")
    assert rc == 2 and "holds an unfinished run of pipeline 'p'" in one_error(err)
    # the dry run of the same pipeline says its files will be replaced
    rc, out, err = run(capsys, "run", f, "--results", r, "--dry-run")
    assert rc == 0 and "left by an unfinished run of this pipeline: will be replaced" in out
    # the same pipeline again: no --overwrite needed, and it finishes
    rc, out, err = run(capsys, "run", f, "--results", r, "--quiet")
    assert rc == 0, err
    assert files_under(r) == ["comps.csv", "manifest.json", "plots/comps.png", "plots/rank.png", "plots/reach.png",
                              "rank.parquet", "sub/depth.txt"]
    m = json.loads((r / "manifest.json").read_text())
    assert [o["to"] for o in m["outputs"]] == [str(r / "rank.parquet"), str(r / "sub" / "depth.txt"),
                                               str(r / "comps.csv")]


def test_issue21_5_a_users_file_is_not_taken_for_an_unfinished_runs(tmp_path, capsys, monkeypatch):
    f = write(tmp_path, BASE)
    r = tmp_path / "r"
    with monkeypatch.context() as m:
        _killed_while_moving(m, after=1)
        with pytest.raises(Killed):
            main(["run", str(f), "--results", str(r), "--quiet"])
    capsys.readouterr()
    (r / "rank.parquet").unlink()
    (r / "rank.parquet").write_text("the user's own file, written after the kill")
    rc, out, err = run(capsys, "run", f, "--results", r, "--quiet")
    assert rc == 2 and "rank.parquet exists" in one_error(err)
    assert (r / "rank.parquet").read_text() == "the user's own file, written after the kill"


def test_issue21_5_a_failed_write_leaves_the_folder_as_it_was(tmp_path, capsys, monkeypatch):
    f = write(tmp_path, BASE)
    r = tmp_path / "r"
    r.mkdir()
    (r / "notes.txt").write_text("mine")

    def broken(*a, **k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("dgraph.io.writers._write_csv", broken)
    monkeypatch.setitem(__import__("dgraph.io.writers", fromlist=["WRITERS"]).WRITERS, "csv", broken)
    rc, out, err = run(capsys, "run", f, "--results", r, "--quiet")
    assert rc == 2 and "No space left on device" in one_error(err, "outputs[2]")
    assert files_under(r) == ["notes.txt"]
    rc, out, err = run(capsys, "run", f, "--results", tmp_path / "new" / "r", "--quiet")
    assert rc == 2 and not (tmp_path / "new").exists()


KILLER = """
import os, signal, sys
import dgraph.io.writers as writers
import dgraph.pipeline.folder as folder
import dgraph.pipeline.run as run_module
from dgraph.cli import main

k, ticks = int(sys.argv[1]), [0]
def tick():
    ticks[0] += 1
    if ticks[0] == k:
        os.kill(os.getpid(), signal.SIGKILL)

def wrap(f):
    def g(*a, **kw):
        tick()                    # before: the writer's temporary file exists, empty
        out = f(*a, **kw)
        tick()                    # after: written, not yet renamed
        return out
    return g

for fmt in list(writers.WRITERS):
    writers.WRITERS[fmt] = wrap(writers.WRITERS[fmt])
run_module._plot = wrap(run_module._plot)
run_module._write_json = wrap(run_module._write_json)
folder.Stage._move = wrap(folder.Stage._move)
folder.Stage._mark = wrap(folder.Stage._mark)
sys.exit(main(sys.argv[2:]))
"""


def _kill_at(k, f, r, tmp_path):
    script = tmp_path / "killer.py"
    script.write_text(KILLER)
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.run([sys.executable, str(script), str(k), "run", str(f), "--results", str(r), "--quiet"],
                          env=env, capture_output=True, text=True, timeout=120)


def _check_rerun_finishes(capsys, f, r, reference):
    left = files_under(r) if r.exists() else []
    assert not any(p.endswith(".tmp") and not p.startswith(".dgraph-unfinished-") for p in left), left
    rc, out, err = run(capsys, "run", f, "--results", r, "--quiet")
    assert rc == 0, (left, err)
    assert files_under(r) == files_under(reference)
    for name in ("comps.csv", "sub/depth.txt"):
        assert (r / name).read_text() == (reference / name).read_text()
    pd.testing.assert_frame_equal(pd.read_parquet(r / "rank.parquet"), pd.read_parquet(reference / "rank.parquet"))


@pytest.mark.slow  # a subprocess: about 5 s
def test_issue21_5_sigkill_in_the_output_phase(tmp_path, capsys):
    """One real SIGKILL, between two moves into place: the rerun finishes without --overwrite."""
    f = write(tmp_path, BASE)
    reference = tmp_path / "reference"
    assert run(capsys, "run", f, "--results", reference, "--quiet")[0] == 0
    r = tmp_path / "r"
    done = _kill_at(22, f, r, tmp_path)  # 3 outputs and 3 plots (2 ticks each), the manifest, marks, moves
    assert done.returncode == -signal.SIGKILL, done.stderr
    assert "manifest.json" not in files_under(r) and "rank.parquet" in files_under(r)
    _check_rerun_finishes(capsys, f, r, reference)


@pytest.mark.slow
def test_issue21_5_sigkill_at_every_point_of_the_output_phase(tmp_path, capsys):
    f = write(tmp_path, BASE)
    reference = tmp_path / "reference"
    assert run(capsys, "run", f, "--results", reference, "--quiet")[0] == 0
    kills = 0
    for k in range(1, 100):
        r = tmp_path / f"r{k}"
        done = _kill_at(k, f, r, tmp_path)
        if done.returncode == 0:
            break
        assert done.returncode == -signal.SIGKILL, done.stderr
        kills += 1
        _check_rerun_finishes(capsys, f, r, reference)
    print(f"\n{kills} SIGKILLs in the output phase, each rerun finished")
    assert kills >= 20


# -- 10. the CLI's -o is checked before the algorithm runs ---------------------------------------------------

@pytest.mark.parametrize("case", ["file-as-folder", "long-name", "unwritable", "empty", "folder", "nul"])
def test_issue21_10_cli_output_path_checked_first(tmp_path, capsys, case):
    (tmp_path / "afile").write_text("x")
    out_path = {"file-as-folder": str(tmp_path / "afile" / "out.parquet"),
                "long-name": str(tmp_path / ("x" * 300 + ".csv")),
                "unwritable": "/proc/dgraph-out.csv",
                "empty": "",
                "folder": str(tmp_path),
                "nul": "a\x00b.csv"}[case]
    if case == "nul":  # argv cannot carry a NUL: the library call
        with pytest.raises(DGraphError, match="NUL"):
            dgraph.io.check_output_path(out_path)
        return
    if case == "unwritable" and not Path("/proc").is_dir():
        pytest.skip("no /proc here")
    rc, out, err = run(capsys, "bfs", "--generate", "grid:n=3", "--source", "0", "-o", out_path)
    assert rc == 2 and out == ""  # the algorithm did not run: no summary line
    one_error(err, where=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile"]


def test_issue21_10_bench_json_checked_first(tmp_path, capsys):
    (tmp_path / "afile").write_text("x")
    rc, out, err = run(capsys, "bench", "wcc", "--generate", "grid:n=3", "--json", tmp_path / "afile" / "x.json")
    assert rc == 2 and out == "" and "is a file, not a folder" in one_error(err, where=False)


# -- issue 25, item 5: source: max-degree -------------------------------------------------------------------

def test_issue25_5_max_degree_source_is_the_bench_choice(tmp_path):
    from dgraph.bench.bfs import pick_source

    f = REPO / "pipelines" / "components.yaml"
    p, _ = load_pipeline(f, ["graph.source.scale=16"])
    G = dgraph.generate("rmat", scale=16, seed=7)
    v = pick_source(G, "max-degree")
    assert v == dgraph.pipeline.run.max_degree_vertex(G)
    assert p.steps[0]["options"]["source"] == "max-degree"
    reached = int((dgraph.bfs(G, v).depth >= 0).sum())
    assert reached > G.num_vertices // 2  # the README's --set scale=16 example reaches the graph
    assert int((dgraph.bfs(G, 0).depth >= 0).sum()) == 1  # vertex 0, the old source, is isolated there


def test_issue25_5_max_degree_in_a_run(tmp_path, capsys):
    f = write(tmp_path, """
        graph: {source: {generate: rmat, scale: 7, seed: 7}}
        steps:
          - {name: reach, run: bfs, source: max-degree}
          - {name: dist, run: sssp, source: max-degree}
          - {name: cent, run: bc, sources: max-degree}
          - {name: comps, run: wcc}
          - {name: big, run: subgraph, largest_component_of: comps}
          - {name: inner, run: bfs, graph: big, source: max-degree}
        outputs: [{from: reach, to: reach.csv}]
        """)
    rc, out, err = run(capsys, "run", f, "--results", tmp_path / "r", "--quiet")
    assert rc == 0, err
    m = json.loads((tmp_path / "r" / "manifest.json").read_text())
    G = dgraph.generate("rmat", scale=7, seed=7)
    v = dgraph.pipeline.run.max_degree_vertex(G)
    steps = {s["name"]: s for s in m["steps"]}
    assert steps["reach"]["source"] == v and steps["dist"]["source"] == v and steps["cent"]["sources"] == [v]
    assert steps["reach"]["options"]["source"] == "max-degree"
    got = pd.read_csv(tmp_path / "r" / "reach.csv")
    np.testing.assert_array_equal(got["depth"], dgraph.bfs(G, v).to_pandas()["depth"])
    assert steps["inner"]["source"] == v  # the top vertex is in the largest component


def test_issue25_5_examples_use_a_source_that_reaches_the_graph():
    texts = [p.read_text() for p in sorted((REPO / "pipelines").glob("*.yaml"))]
    readme = (REPO / "README.md").read_text()
    texts += [b.split("```", 1)[0] for b in readme.split("```yaml")[1:]]
    for text in texts:
        for line in text.splitlines():
            if re.search(r"run: (bfs|sssp)\b", line):
                assert "source: max-degree" in line, line
    python = [b.split("```", 1)[0] for b in readme.split("```python")[1:] if "dgraph.Pipeline(" in b]
    assert python and all('source="max-degree"' in b for b in python)
    assert all('if __name__ == "__main__":' in b for b in python if "cluster=" in b)


def test_issue25_5_max_degree_of_an_empty_graph(tmp_path):
    G = dgraph.from_edges(np.array([], dtype=np.int64), np.array([], dtype=np.int64), num_vertices=0)
    p = dgraph.Pipeline(graph=G).bfs("b", source="max-degree")
    with pytest.raises(PipelineError, match="max-degree: the graph has no vertices"):
        p.run()


def test_issue25_5_nanny_failed_to_start_names_the_main_guard(monkeypatch):
    import distributed

    from dgraph.cluster import connect
    from dgraph.errors import DGraphError

    def nanny(**kwargs):
        raise RuntimeError("Nanny failed to start.")

    monkeypatch.setattr(distributed, "LocalCluster", nanny)
    with pytest.raises(DGraphError, match='Nanny failed to start.*if __name__ == "__main__":'):
        connect(workers=1)
