"""Issue 21's fuzz loop: mutated pipeline files never crash, hang or write outside the results folder.

Every case is a pipeline file made from one in pipelines/ (or a small one) by one
mutation class: the issue's hostile cases (step names and output paths that are
paths out, YAML bombs, recursion, deep nesting, merge keys and tags, option values
of the wrong type or out of range, ``manifest.json`` as an output), random
structure edits (keys and list items deleted, duplicated, swapped, retyped) and
random byte edits.  Each runs ``dgraph run FILE --dry-run`` in this process
(the graph forced tiny where it is generated), and those that pass and need no
cluster are run for real.  A case fails the loop when ``main`` raises anything
(a DGraphError is printed by ``main`` as one ``dgraph: error:`` line and exit 2),
takes more than 10 s, or leaves a file anywhere but the results folder (or a
staging folder or temporary file anywhere).

Run it with ``python3 -m pytest -m slow tests/test_pipeline_fuzz.py -s``: it
prints the counts.
"""

from __future__ import annotations

import contextlib
import copy
import io
import os
import random
import signal
from pathlib import Path

import pytest
import yaml

from dgraph.cli import main
from dgraph.pipeline.source import parse_source

REPO = Path(__file__).resolve().parent.parent
SMALL = """\
name: small
graph:
  source: {generate: rmat, scale: 5, seed: 3}
steps:
  - {name: reach, run: bfs, source: max-degree}
  - {name: dist, run: sssp, source: 1}
  - {name: comps, run: wcc}
  - {name: big, run: subgraph, largest_component_of: comps}
  - {name: rank, run: pagerank, graph: big, iterations: 5, damping: 0.85}
  - {name: lab, run: cdlp, iterations: 3}
  - {name: cent, run: bc, sources: [0, 1]}
outputs:
  - {from: rank, to: rank.parquet}
  - {from: reach, to: sub/depth.txt, format: graphalytics, columns: [depth]}
  - {from: comps, to: comps.csv}
"""
HOSTILE_NAMES = ["../../../victim", "../victim", "/abs/victim", "a/b", ".hidden", "x" * 300, "", "main", "a.b",
                 "~", "..", ".", "é" * 70, "a\x00b", "plots", "Reach", "-", "con", 7, None, ["a"], {"a": 1}]
HOSTILE_PATHS = ["../../victim.csv", "/ABS/victim.csv", "~/victim.csv", "a/../../victim.csv", "..", "manifest.json",
                 "Manifest.JSON", "plots/x.csv", "x" * 300 + ".csv", "./", "", "a\\b.csv", "sub", "sub/x.csv/y.csv",
                 ".dgraph-unfinished-x/y.csv", "d/" * 40 + "x.csv", "rank.parquet", "~root/x.csv", 5, ["x.csv"]]
HOSTILE_VALUES = [-1, 0, 41, 2 ** 63, 10 ** 30, -(2 ** 70), "8", "é", "", 1.5, float("nan"), float("inf"),
                  -float("inf"), True, None, [], [1, 2], {}, {"a": 1}, "max-degree", "2**63", 1e308, "x" * 5000]
BOMB = ("a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
        + "".join(f"{c}: &{c} [{', '.join(['*' + p] * 9)}]\n" for p, c in zip("abcdefgh", "bcdefghi")))
YAML_ATTACKS = [
    BOMB, "x: &r [*r]\n", "x: &r {k: *r}\n", "x: " + "[" * 5000 + "]" * 5000 + "\n",
    "x: " + "{a: " * 3000 + "1" + "}" * 3000 + "\n", "".join("  " * i + "a:\n" for i in range(3000)),
    "base: &b {generate: grid, n: 3}\nx: {<<: *b}\n", "x: {!!python/name:os.system k: 1}\n",
    "x: !!python/object/apply:os.system [echo hi]\n", "x: 2024-01-01\n", "x: !!binary aGVsbG8=\n",
    "x: !custom 3\n", "x: " + "9" * 5000 + "\n", "x: !!set {a, b}\n", "x: !!omap [a: 1]\n", "? [a, b]\n: 1\n",
    "x: *undefined\n", "x: &a 1\ny: &a 2\n", "\t- tab\n", "x: 'unterminated\n", "x: \x00\n", "x: \x07\n",
]


def _mutate_value(rng, data, value_pool):
    """Replace one random scalar (or container) somewhere in ``data`` by one of ``value_pool``."""
    slots = []

    def walk(node):
        if isinstance(node, dict):
            for k in list(node):
                slots.append((node, k))
                walk(node[k])
        elif isinstance(node, list):
            for i in range(len(node)):
                slots.append((node, i))
                walk(node[i])

    walk(data)
    if slots:
        node, k = rng.choice(slots)
        node[k] = copy.deepcopy(rng.choice(value_pool))
    return data


def _mutate_mild(rng, data):
    steps = data.get("steps") or []
    op = rng.randrange(5)
    if op == 0:
        data["graph"]["source"]["scale"] = rng.randint(0, 7)
    elif op == 1 and steps:
        s = rng.choice(steps)
        if s.get("run") in ("bfs", "sssp"):
            s["source"] = rng.choice([0, 1, 2, "max-degree"])
        elif s.get("run") in ("pagerank", "cdlp"):
            s["iterations"] = rng.randint(0, 6)
    elif op == 2 and data.get("outputs"):
        o = rng.choice(data["outputs"])
        o["to"] = rng.choice(["a.csv", "deep/er/a.npz", "x.parquet", "./b.csv", "sub/c.txt"])
        o["format"] = rng.choice(["csv", "npz", "parquet", "graphalytics"])
        o.pop("columns", None)
    elif op == 3 and steps:
        s = rng.choice(steps)
        s["name"] = rng.choice(["n1", "N_2", "step-3", "é"])
    elif op == 4:
        data["graph"]["directed"] = rng.choice([True, False])


def _structure(rng, data):
    """Delete, duplicate, swap or retype a random key or item."""
    containers = []

    def walk(node):
        if isinstance(node, (dict, list)):
            containers.append(node)
            for v in (node.values() if isinstance(node, dict) else node):
                walk(v)

    walk(data)
    node = rng.choice(containers)
    if isinstance(node, dict) and node:
        k = rng.choice(list(node))
        op = rng.randrange(4)
        if op == 0:
            del node[k]
        elif op == 1:
            node[k + "x" if isinstance(k, str) else k] = node[k]
        elif op == 2:
            node[k] = [node[k]]
        else:
            node[rng.choice(["name", "run", "graph", "source", "to", "from", "parts", "results", "format"])] = node[k]
    elif isinstance(node, list) and node:
        op = rng.randrange(3)
        i = rng.randrange(len(node))
        if op == 0:
            del node[i]
        elif op == 1:
            node.insert(rng.randrange(len(node) + 1), copy.deepcopy(node[i]))
        else:
            rng.shuffle(node)
    return data


def _bytes(rng, text):
    b = bytearray(text.encode())
    for _ in range(rng.randint(1, 8)):
        op = rng.randrange(3)
        i = rng.randrange(len(b) + 1)
        if op == 0 and i < len(b):
            b[i] = rng.randrange(256)
        elif op == 1:
            b[i:i] = bytes([rng.choice(b"[]{}:,&*!-?|>'\"#\n\t %@`\x00\xff")])
        elif i < len(b):
            del b[i]
    return bytes(b)


def _dump(data):
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=10_000)


def _shrink(data):
    """Keep a generated graph tiny, and drop clusters, so that the runs stay quick."""
    if isinstance(data, dict):
        g = data.get("graph")
        if isinstance(g, dict) and isinstance(g.get("source"), dict):
            src = g["source"]
            if isinstance(src.get("scale"), int) and not isinstance(src.get("scale"), bool) and src["scale"] > 7:
                src["scale"] = 6
    return data


def make_case(rng, bases, box):
    """(kind, file bytes, --set list) of one mutated pipeline."""
    base_text = rng.choice(bases)
    data = _shrink(yaml.safe_load(base_text))
    kind = rng.choice(["name", "to", "yaml", "value", "manifest", "structure", "bytes", "set", "results",
                       "mild", "mild"])
    sets = []
    if kind == "mild":  # plausible edits, so that a share of the cases runs for real
        for _ in range(rng.randint(1, 3)):
            _mutate_mild(rng, data)
        data.pop("cluster", None)
        if isinstance(data.get("partition"), dict):
            data["partition"]["parts"] = rng.choice([1, 2, 3])
    elif kind == "name" and data.get("steps"):
        step = rng.choice(data["steps"])
        step["name"] = rng.choice(HOSTILE_NAMES)
    elif kind in ("to", "manifest") and data.get("outputs"):
        out = rng.choice(data["outputs"])
        pool = ["manifest.json", "plots/reach.png", "MANIFEST.json"] if kind == "manifest" else HOSTILE_PATHS
        out["to"] = rng.choice(pool)
        if isinstance(out["to"], str):
            out["to"] = out["to"].replace("/ABS", str(box / "abs"))
    elif kind == "yaml":
        attack = rng.choice(YAML_ATTACKS)
        text = _dump(data)
        where = rng.choice(["top", "end", "step"])
        if where == "top":
            return kind, (attack + text).encode(), sets
        if where == "end":
            return kind, (text + attack).encode(), sets
        return kind, text.replace("steps:\n", "steps:\n- " + attack.replace("\n", "\n  ").rstrip() + "\n", 1).encode(), sets
    elif kind == "value":
        for _ in range(rng.randint(1, 3)):
            _mutate_value(rng, data, HOSTILE_VALUES + HOSTILE_NAMES[:6])
    elif kind == "structure":
        for _ in range(rng.randint(1, 3)):
            _structure(rng, data)
    elif kind == "bytes":
        return kind, _bytes(rng, _dump(data)), sets
    elif kind == "set":
        key = rng.choice(["outputs.0.to", "steps.0.name", "steps.0.source", "graph.source.scale", "results",
                          "partition.parts", "steps.rank.iterations", "graph.source.edgefactor", "x.y.z",
                          "steps.0.exchange", "outputs.0.from", "steps.reach.graph"])
        value = rng.choice(["../../victim.csv", str(box / "abs" / "v.csv"), "~/v.csv", "41", "-1", "'8'", "10**30",
                            "[a]", "!!python/name:os.system", "&r [*r]", "[" * 100, "{<<: {a: 1}}", "1e999",
                            "max-degree", "manifest.json", "null", "é", "9" * 5000, "butterfly:é", BOMB.replace("\n", " ")])
        sets = [f"{key}={value}"]
    elif kind == "results":
        data["results"] = rng.choice(["../../victim", str(box / "abs"), "~/r", "r/../..", "ok/r", "", 7, "a\\b"])
    return kind, _dump(data).encode(), sets


class Hang(BaseException):
    pass


def _alarm(signum, frame):
    raise Hang()


def _files(root):
    out = set()
    for dirpath, dirnames, filenames in os.walk(root):
        for name in filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]:
            out.add(os.path.join(dirpath, name))
    return out


def _call(argv):
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        rc = main(argv)
    return rc, err.getvalue()


@pytest.mark.slow
def test_issue21_fuzz_mutated_pipelines(tmp_path, monkeypatch):
    rng = random.Random(21)
    bases = [p.read_text() for p in sorted((REPO / "pipelines").glob("*.yaml"))] + [SMALL]
    box = tmp_path / "box"
    work = box / "work"
    home = box / "home"
    for d in (work, home, box / "abs"):
        d.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))  # "~/x" would land in the box, where the loop sees it
    monkeypatch.setenv("MPLCONFIGDIR", str(tmp_path / "mpl"))  # matplotlib's font cache is not the run's
    monkeypatch.chdir(work)
    victim = box / "victim.png"
    victim.write_text("precious")
    counts = {"cases": 0, "clean_errors": 0, "dry_ok": 0, "runs": 0, "run_errors": 0, "raw": 0, "hangs": 0,
              "outside": 0}
    kinds = {}
    problems = []
    run_errors = []  # what the plan passed and the run refused: each a clean error, listed for the report
    old = signal.signal(signal.SIGALRM, _alarm)
    try:
        for i in range(600):
            kind, text, sets = make_case(rng, bases, box)
            kinds[kind] = kinds.get(kind, 0) + 1
            f = work / f"case{i}.yaml"
            f.write_bytes(text)
            results = work / "results" / f"case{i}"
            before = _files(box)
            argv = ["run", str(f), "--results", str(results), "--quiet", *[a for s in sets for a in ("--set", s)]]
            counts["cases"] += 1
            try:
                signal.alarm(10)
                rc, err = _call([*argv, "--dry-run"])
                signal.alarm(0)
                if rc == 0:
                    counts["dry_ok"] += 1
                    runnable = b"cluster" not in text and all("scale" not in s for s in sets)
                    if runnable:
                        try:
                            src = parse_source(text.decode(), "x")
                            scale = ((src.data.get("graph") or {}).get("source") or {}).get("scale", 0)
                            runnable = isinstance(scale, int) and scale <= 8
                        except Exception:  # noqa: BLE001 - only deciding whether to run it
                            runnable = False
                    if runnable:
                        counts["runs"] += 1
                        signal.alarm(10)
                        rc, err = _call(argv)
                        signal.alarm(0)
                        if rc != 0:
                            counts["run_errors"] += 1
                            run_errors.append(err.strip()[-300:])
                            assert err.startswith("dgraph: error: ") and len(err.strip().splitlines()) == 1, err
                else:
                    counts["clean_errors"] += 1
                    assert rc == 2 and err.startswith("dgraph: error: ") and len(err.strip().splitlines()) == 1, err
            except Hang:  # noqa: PERF203
                counts["hangs"] += 1
                problems.append((kind, "hang", text[:300], sets))
            except Exception as e:  # noqa: BLE001 - the point: count what escapes
                signal.alarm(0)
                counts["raw"] += 1
                problems.append((kind, f"{type(e).__name__}: {e}"[:300], text[:300], sets))
            finally:
                signal.alarm(0)
            new = _files(box) - before - {str(f)}
            outside = sorted(p for p in new if not p.startswith(str(work / "results") + os.sep))
            if outside:
                counts["outside"] += 1
                problems.append((kind, f"wrote outside: {outside[:3]}", text[:300], sets))
            leftovers = sorted(p for p in _files(box) if ".dgraph-unfinished-" in p or p.endswith(".tmp"))
            if leftovers:
                counts["outside"] += 1
                problems.append((kind, f"left temporaries: {leftovers[:3]}", text[:300], sets))
            if victim.read_text() != "precious":
                counts["outside"] += 1
                problems.append((kind, "replaced the victim", text[:300], sets))
                victim.write_text("precious")
    finally:
        signal.signal(signal.SIGALRM, old)
    print("\nfuzz counts:", counts, "\nmutation classes:", kinds)
    for p in problems[:20]:
        print(p)
    for e in run_errors:
        print("run refused:", e)
    assert counts["cases"] >= 500
    assert counts["raw"] == 0 and counts["hangs"] == 0 and counts["outside"] == 0, problems[:5]
    assert counts["runs"] >= 30 and counts["clean_errors"] >= 200
