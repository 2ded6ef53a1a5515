"""The LDBC Graphalytics example graphs and their match rules, shared by the algorithm tests."""

from __future__ import annotations

import math
from pathlib import Path

import dgraph

DATA = Path(__file__).parent / "data" / "graphalytics"
GRAPHS = {"directed": ("example-directed", True, 1), "undirected": ("example-undirected", False, 2)}


def load(kind, weighted=False):
    """(Graph, source vertex of BFS/SSSP) for 'directed' or 'undirected'."""
    name, directed, source = GRAPHS[kind]
    return dgraph.read(DATA / f"{name}.e", format="graphalytics", directed=directed, weighted=weighted), source


def reference(kind, algorithm):
    name = GRAPHS[kind][0]
    out = {}
    for line in (DATA / f"{name}-{algorithm}").read_text().split("\n"):
        if line.strip():
            v, value = line.split()
            out[int(v)] = value
    return out


def written(result, column, tmp_path, name):
    """The result written in the Graphalytics format and read back as {vertex: text}."""
    path = dgraph.write(result, tmp_path / name, format="graphalytics", columns=[column])
    return {int(v): x for v, x in (line.split() for line in path.read_text().split("\n") if line.strip())}


def check_exact(got, ref):
    assert got == ref


def check_epsilon(got, ref, eps=1e-4):
    """|r - s| <= eps * |r| (0 matches 0; infinities match exactly)."""
    assert set(got) == set(ref)
    for v, r in ref.items():
        rv, sv = float(r), float(got[v])
        if math.isinf(rv) or rv == 0:
            assert sv == rv, (v, r, got[v])
        else:
            assert abs(rv - sv) <= eps * abs(rv), (v, r, got[v])


def check_equivalent(got, ref):
    """Same partition into groups, whatever the labels."""
    assert set(got) == set(ref)
    fwd, back = {}, {}
    for v in ref:
        assert fwd.setdefault(got[v], ref[v]) == ref[v], v
        assert back.setdefault(ref[v], got[v]) == got[v], v
