"""Notebook display: HTML/text reprs of graphs and results, superstep plots, DataFrame conversions."""

import os
import sys
import types
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest

import dgraph
from dgraph.display import esc, fmt_num, fmt_seconds, html_block, html_table
from dgraph.errors import BackendError
from dgraph.plots import save_superstep_plot, superstep_figure

VOID = {"br", "hr", "img", "meta", "link", "input", "col", "wbr", "area", "base", "source"}


class _Checker(HTMLParser):
    """Balances tags; collects the decoded text (outside <style>) and the start tags seen."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors, self.text, self.starts = [], [], [], []

    def handle_starttag(self, tag, attrs):
        self.starts.append(tag)
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.starts.append(tag)

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1] if self.stack else 'nothing'}")
        else:
            self.stack.pop()

    def handle_data(self, data):
        if "style" not in self.stack:
            self.text.append(data)


def parse(html):
    """(text, start tags) of well-formed HTML; fails the test on unbalanced tags."""
    assert isinstance(html, str) and html.startswith("<div")
    p = _Checker()
    p.feed(html)
    p.close()
    assert not p.errors, p.errors
    assert not p.stack, f"unclosed tags {p.stack}"
    return " ".join(p.text), p.starts


def cells(html):
    """The text of every <td>/<th> cell, in order."""
    out = []

    class P(HTMLParser):
        cell = None

        def handle_starttag(self, tag, attrs):
            if tag in ("td", "th"):
                self.cell = []

        def handle_endtag(self, tag):
            if tag in ("td", "th") and self.cell is not None:
                out.append("".join(self.cell))
                self.cell = None

        def handle_data(self, data):
            if self.cell is not None:
                self.cell.append(data)

    P(convert_charrefs=True).feed(html)
    return out


def field(html, key):
    """The value cell that follows the key cell ``key`` in a key/value table."""
    c = cells(html)
    return c[c.index(key) + 1]


# -- helpers -------------------------------------------------------------------------------------------
def test_format_helpers():
    assert fmt_num(1234567) == "1,234,567"
    assert fmt_num(np.int32(42)) == "42"
    assert fmt_num(0.85) == "0.85"
    assert fmt_num(float("nan")) == "–" and fmt_num(None) == "–"
    assert fmt_num(3.0) == "3"
    assert fmt_seconds(0.00042) == "420 µs"
    assert fmt_seconds(0.81) == "810 ms"
    assert fmt_seconds(2.5) == "2.5 s"
    assert esc('<a href="x">') == "&lt;a href=&quot;x&quot;&gt;"
    t = html_table(["id", "n"], [["<i>", 1], ["b&c", 2_000]])
    text, starts = parse(html_block("k", "s<", t))
    assert "i" not in starts and "<i>" in text and "b&c" in text and "2,000" in text and "s<" in text
    assert cells(t) == ["id", "n", "<i>", "1", "b&c", "2,000"]


# -- Graph -------------------------------------------------------------------------------------------------
def test_graph_repr_small():
    G = dgraph.generate("grid", rows=3, cols=4)  # 12 vertices, 3*3 + 2*4 = 17 edges
    html = G._repr_html_()
    text, _ = parse(html)
    assert field(html, "vertices") == "12"
    assert field(html, "edges").startswith("17 ") and "34 arcs" in field(html, "edges")
    assert field(html, "directed") == "False" and field(html, "weighted") == "False"
    assert field(html, "backend") == "numpy"
    assert field(html, "vertex ids") == "integers 0..n-1"
    assert field(html, "out-degree") == "min 2, mean 2.83, max 4"
    assert field(html, "isolated vertices") == "0" and field(html, "self loops") == "0"
    r = repr(G)
    assert "12 vertices" in r and "17 edges" in r and "undirected" in r


def test_graph_repr_empty():
    G = dgraph.from_edges([], [])
    html = G._repr_html_()
    parse(html)
    assert field(html, "vertices") == "0" and field(html, "edges").startswith("0")
    assert "out-degree" not in cells(html)
    assert "0 vertices" in repr(G)


def test_graph_repr_string_ids_escaped():
    # directed; '<b>' -> 'c' -> 'a', a self loop on 'c', 'z' isolated
    G = dgraph.from_edges(["a", "<b>", "c", "c"], ["<b>", "c", "a", "c"], directed=True,
                          vertices=["a", "<b>", "c", "z"])
    html = G._repr_html_()
    text, starts = parse(html)
    assert starts.count("b") == 1  # only the title's own <b>; the vertex id is text
    assert "&lt;b&gt;" in html and "'<b>'" in field(html, "first ids")
    assert field(html, "vertex ids") == "strings, renumbered"
    assert field(html, "directed") == "True"
    assert field(html, "edges") == "4"
    assert field(html, "isolated vertices") == "1"
    assert field(html, "self loops") == "1"
    assert field(html, "out-degree") == "min 0, mean 1, max 2"


def test_graph_repr_weighted():
    G = dgraph.from_edges([0, 1], [1, 2], weights=[0.5, 2.0])
    assert field(G._repr_html_(), "weighted").startswith("True (float")


# -- PartitionedGraph ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("method", ["range", "hash"])
def test_partitioned_repr_local(method):
    G = dgraph.generate("grid", rows=10, cols=10)
    P = G.partition(3, method=method, client=False)
    html = P._repr_html_()
    parse(html)
    c = cells(html)
    header = ["part", "worker", "vertices owned", "edges", "share of edges", "shard size"]
    start = c.index("part")
    assert c[start:start + 6] == header
    rows = [c[start + 6 * (q + 1): start + 6 * (q + 2)] for q in range(3)]
    sizes, edges = P.plan.sizes(), P.plan.edge_counts(G)
    for q, row in enumerate(rows):
        assert row[0] == str(q) and row[1] == "(this process)"
        assert row[2] == f"{int(sizes[q]):,}" and row[3] == f"{int(edges[q]):,}"
        assert row[4] == f"{100 * edges[q] / edges.sum():.1f}%"
    b = P.plan.balance(G)
    assert field(html, "edge balance").startswith(f"{b['edges']:.3f} (max {b['max_edges']}")
    assert field(html, "vertex balance").startswith(f"{b['vertices']:.3f}")
    assert field(html, "partitions") == f"3 ({method})"
    assert field(html, "arcs stored") == "360"
    assert "3 partitions" in repr(P) and "in this process" in repr(P)


def test_partitioned_repr_one_part_directed():
    G = dgraph.from_edges([0, 1, 2], [1, 2, 0], directed=True)
    html = G.partition(1, client=False)._repr_html_()
    parse(html)
    assert field(html, "edge balance").startswith("1.000")
    assert "100.0%" in cells(html)


# -- Result --------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def path_bfs():
    G = dgraph.from_edges([0, 1, 2, 3, 4, 5, 6], [1, 2, 3, 4, 5, 6, 7])  # a path of 8 vertices
    return dgraph.bfs(G, 0)


def test_result_repr(path_bfs):
    r = path_bfs
    html = r._repr_html_()
    parse(html)
    assert field(html, "algorithm") == "bfs" and field(html, "backend") == "numpy"
    assert field(html, "supersteps") == str(r.supersteps) and r.supersteps >= 8
    assert field(html, "edges touched") == f"{r.edges_touched:,}"
    assert "source=0" in field(html, "parameters")
    c = cells(html)
    i = c.index("vertex")
    assert c[i:i + 3] == ["vertex", "depth", "parent"]
    assert c[i + 3:i + 3 + 15] == [str(x) for v in range(5) for x in (v, v, max(v - 1, 0))]
    assert "first 5 of 8 rows" in html
    j = c.index("total time")
    assert c[j + 1: j + 3] == ["all", str(r.supersteps)]
    rep = repr(r)
    assert rep.startswith("<dgraph.Result bfs") and "8 vertices" in rep and f"{r.supersteps} supersteps" in rep


def test_result_repr_string_ids_escaped():
    G = dgraph.from_edges(["a", "<b>", "c&d"], ["<b>", "c&d", "a"])
    r = dgraph.bfs(G, "<b>")
    html = r._repr_html_()
    text, starts = parse(html)
    assert starts.count("b") == 1
    c = cells(html)
    i = c.index("vertex")
    # internal order is the sorted ids: '<b>', 'a', 'c&d'; parents in user ids
    assert c[i + 3:i + 12] == ["<b>", "0", "<b>", "a", "1", "<b>", "c&d", "1", "<b>"]
    assert "source='<b>'" in field(html, "parameters")
    assert "3 rows" in text


def test_result_repr_partitioned():
    G = dgraph.generate("grid", rows=6, cols=6)
    r = dgraph.bfs(G.partition(3, client=False), 0)
    html = r._repr_html_()
    parse(html)
    assert field(html, "executor") == "local" and field(html, "partitions") == "3"
    assert "3 partitions (local)" in r._title()


def test_result_repr_pagerank_floats():
    r = dgraph.pagerank(dgraph.generate("grid", rows=4, cols=4))
    html = r._repr_html_()
    parse(html)
    c = cells(html)
    i = c.index("vertex")
    assert c[i:i + 2] == ["vertex", "pagerank"]
    assert c[i + 2] == "0" and float(c[i + 3]) == pytest.approx(float(r.pagerank[0]), rel=1e-3)
    assert field(html, "supersteps") == str(r.supersteps)


# -- plots ----------------------------------------------------------------------------------------------------
def _texts(ax):
    return [t.get_text() for t in ax.texts]


def test_plot_bfs(path_bfs):
    from matplotlib.figure import Figure

    r = path_bfs
    fig = r.plot()
    assert isinstance(fig, Figure)
    top, bottom = fig.axes
    assert len(fig.axes) == 2
    s = r.stats
    lines = {ln.get_label(): ln for ln in top.get_lines()}
    assert set(lines) == {"frontier size", "edges touched"}
    np.testing.assert_array_equal(lines["frontier size"].get_xdata(), s["superstep"])
    np.testing.assert_array_equal(lines["frontier size"].get_ydata(), s["frontier"])
    np.testing.assert_array_equal(lines["edges touched"].get_ydata(), s["edges"])
    [t] = bottom.get_lines()
    np.testing.assert_allclose(t.get_ydata(), s["time_s"] * 1e3)
    assert top.get_legend() is not None
    assert bottom.get_xlabel() == "superstep" and top.get_ylabel() == "frontier size"
    assert bottom.get_ylabel() == "time per superstep (ms)"
    assert fig._suptitle.get_text().startswith("bfs(source=0")
    assert r.plot(title="mine")._suptitle.get_text() == "mine"


def test_plot_missing_and_empty():
    r = dgraph.pagerank(dgraph.generate("grid", rows=4, cols=4))  # no frontier, no edges
    top, bottom = r.plot().axes
    assert top.get_lines() == [] and "no frontier recorded" in _texts(top)
    np.testing.assert_allclose(bottom.get_lines()[0].get_ydata(), r.stats["time_s"] * 1e3)

    top, _ = dgraph.wcc(dgraph.generate("grid", rows=4, cols=4)).plot().axes  # edges, no frontier
    [edges] = top.get_lines()
    assert edges.get_label() == "edges touched" and top.get_ylabel() == "edges touched"
    assert "no frontier recorded" in _texts(top)

    fig = superstep_figure(pd.DataFrame({"frontier": [1, 2, 3]}), "only frontier")
    top, bottom = fig.axes
    np.testing.assert_array_equal(top.get_lines()[0].get_xdata(), [0, 1, 2])  # row numbers without 'superstep'
    assert top.get_legend() is None and "no time_s recorded" in _texts(bottom)

    fig = superstep_figure(pd.DataFrame(), "nothing")
    assert len(fig.axes) == 2 and fig._suptitle.get_text() == "nothing"
    assert any("no supersteps" in t for ax in fig.axes for t in _texts(ax))
    assert all(ax.get_lines() == [] for ax in fig.axes)


def test_plot_log_scale():
    wide = pd.DataFrame({"superstep": range(4), "frontier": [1, 50, 5000, 3], "time_s": [1e-3] * 4})
    top, bottom = superstep_figure(wide, "w").axes
    assert top.get_yscale() == "log" and bottom.get_yscale() == "linear"
    to_zero = wide.assign(frontier=[1, 50, 5000, 0])
    assert superstep_figure(to_zero, "z").axes[0].get_yscale() == "symlog"  # the 0 stays visible
    narrow = wide.assign(frontier=[1, 5, 50, 3])
    assert superstep_figure(narrow, "n").axes[0].get_yscale() == "linear"


def test_save_superstep_plot(tmp_path, path_bfs):
    import matplotlib.image as mpimg

    out = tmp_path / "sub" / "bfs.png"
    got = save_superstep_plot(path_bfs.stats, out, "bfs on a path")
    assert got == out and out.is_file()
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    img = mpimg.imread(out)
    fig = superstep_figure(path_bfs.stats, "bfs on a path")
    w, h = fig.get_size_inches() * 110
    assert img.shape[:2] == (round(h), round(w)) and img.shape[2] in (3, 4)
    assert img[..., :3].std() > 0.05  # something is drawn
    # replaced whole, no temporary files left beside it
    save_superstep_plot(path_bfs.stats.iloc[:0], out, "empty")
    assert os.listdir(out.parent) == ["bfs.png"]
    assert mpimg.imread(out).shape == img.shape


# -- conversions ------------------------------------------------------------------------------------------------
def test_to_dask_round_trip(path_bfs):
    df = path_bfs.to_pandas()
    ddf = path_bfs.to_dask()
    assert ddf.npartitions == 1
    pd.testing.assert_frame_equal(ddf.compute(), df)
    ddf3 = path_bfs.to_dask(npartitions=3)
    assert ddf3.npartitions == 3
    pd.testing.assert_frame_equal(ddf3.compute(), df)


def test_to_dask_string_ids():
    r = dgraph.bfs(dgraph.from_edges(["a", "b"], ["b", "c"]), "a")
    got = r.to_dask().compute()
    assert got["vertex"].tolist() == ["a", "b", "c"] and got["parent"].tolist() == ["a", "a", "b"]


def test_to_cudf_without_cudf(monkeypatch, path_bfs):
    monkeypatch.setitem(sys.modules, "cudf", None)  # import cudf raises ImportError
    with pytest.raises(BackendError, match="cudf is not installed.*pip install cudf"):
        path_bfs.to_cudf()


def test_to_cudf_with_cudf(monkeypatch, path_bfs):
    fake = types.ModuleType("cudf")
    fake.DataFrame = pd.DataFrame
    monkeypatch.setitem(sys.modules, "cudf", fake)
    pd.testing.assert_frame_equal(path_bfs.to_cudf(), path_bfs.to_pandas())
