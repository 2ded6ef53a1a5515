"""Readers: every format round-trips a small graph; comments, string ids, LDBC example graphs."""

from pathlib import Path

import numpy as np
import pytest

import dgraph
from dgraph.errors import FileFormatError, InputError, MissingFileError

EXAMPLE = Path(__file__).parent / "data" / "graphalytics"
EDGES = [(0, 1, 0.5), (1, 2, 1.5), (2, 0, 2.0), (2, 3, 0.25)]


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return p


def edge_set(G):
    s, d, w = G.edges()
    if w is None:
        return {(a, b) for a, b in zip(s.tolist(), d.tolist())}
    return {(a, b, c) for a, b, c in zip(s.tolist(), d.tolist(), w.tolist())}


def dense(G):
    return G.to_scipy().toarray()


# -- edge lists --------------------------------------------------------------------------
def test_edgelist_round_trip_unweighted(tmp_path):
    p = write(tmp_path, "g.el", "".join(f"{a} {b}\n" for a, b, _ in EDGES))
    G = dgraph.read(p)
    assert not G.directed and not G.weighted
    assert G.num_vertices == 4 and G.num_edges == 4
    expected = np.zeros((4, 4))
    for a, b, _ in EDGES:
        expected[a, b] = expected[b, a] = 1
    assert np.array_equal(dense(G), expected)


def test_edgelist_weighted_third_column_and_directed(tmp_path):
    p = write(tmp_path, "g.txt", "".join(f"{a}\t{b}\t{w}\n" for a, b, w in EDGES))
    G = dgraph.read(p, directed=True)
    assert G.directed and G.weighted
    assert edge_set(G) == set(EDGES)
    assert dgraph.read(p, weighted=False).weighted is False


def test_weighted_true_without_weight_column_is_an_error(tmp_path):
    p = write(tmp_path, "g.el", "0 1\n1 2\n")
    with pytest.raises(FileFormatError, match="g.el.*weighted=True"):
        dgraph.read(p, weighted=True)


def test_wel_extension_means_weighted(tmp_path):
    p = write(tmp_path, "g.wel", "0 1 3\n1 2 4\n")
    G = dgraph.read(p, directed=True)
    assert edge_set(G) == {(0, 1, 3), (1, 2, 4)}
    with pytest.raises(FileFormatError, match=r"h\.wel.*no weight column"):
        dgraph.read(write(tmp_path, "h.wel", "0 1\n"))


def test_comments_blank_lines_and_separators(tmp_path):
    text = "# SNAP header\n% another comment\n\n0 1\n  \n1\t2   # trailing comment\n%mid comment\n2  3\n"
    G = dgraph.read(write(tmp_path, "g.snap", text), directed=True)
    assert edge_set(G) == {(0, 1), (1, 2), (2, 3)}


def test_comma_separated_edgelist(tmp_path):
    G = dgraph.read(write(tmp_path, "g.edges", "0,1\n1, 2\n"), directed=True)
    assert edge_set(G) == {(0, 1), (1, 2)}


def test_string_ids_are_renumbered_and_mapped_back(tmp_path):
    G = dgraph.read(write(tmp_path, "g.tsv", "alice\tbob\nbob\tcarol\n"), directed=True)
    assert sorted(G.vertex_ids().tolist()) == ["alice", "bob", "carol"]
    assert edge_set(G) == {("alice", "bob"), ("bob", "carol")}


def test_mixed_names_and_numbers_are_an_error_unless_ids_str(tmp_path):
    p = write(tmp_path, "g.el", "1 a\n2 b\n")
    with pytest.raises(FileFormatError, match=r"g\.el:1: vertex id 'a' is a name, but vertex id '1' .*ids='str'"):
        dgraph.read(p, directed=True)
    G = dgraph.read(p, directed=True, ids="str")
    assert edge_set(G) == {("1", "a"), ("2", "b")}


def test_negative_ids_are_renumbered(tmp_path):
    G = dgraph.read(write(tmp_path, "g.el", "-5 3\n3 7\n"), directed=True)
    assert G.vertex_ids().tolist() == [-5, 3, 7]
    assert edge_set(G) == {(-5, 3), (3, 7)}


def test_graph_options_reach_from_edges(tmp_path):
    p = write(tmp_path, "g.el", "0 0\n0 1\n0 1\n")
    assert dgraph.read(p, num_vertices=5).num_vertices == 5
    assert dgraph.read(p, self_loops=False).num_self_loops == 0
    assert dgraph.read(p, directed=True, dedupe=False).num_arcs == 3
    assert dgraph.read(p, directed=True).num_arcs == 2
    G = dgraph.read(write(tmp_path, "h.el", "10 20\n"), renumber=True)
    assert G.num_vertices == 2 and G.vertex_ids().tolist() == [10, 20]


def test_empty_edgelist(tmp_path):
    G = dgraph.read(write(tmp_path, "g.el", "# nothing here\n\n"))
    assert G.num_vertices == 0 and G.num_edges == 0


def test_compressed_edgelist(tmp_path):
    import gzip

    p = tmp_path / "g.el.gz"
    p.write_bytes(gzip.compress(b"0 1\n1 2\n"))
    assert edge_set(dgraph.read(p, directed=True)) == {(0, 1), (1, 2)}


def test_large_file_goes_through_the_fast_parser(tmp_path):
    rng = np.random.default_rng(0)
    src, dst = rng.integers(0, 1000, 200_000), rng.integers(0, 1000, 200_000)
    p = tmp_path / "big.el"
    p.write_text("\n".join(f"{a} {b}" for a, b in zip(src.tolist(), dst.tolist())) + "\n")
    G = dgraph.read(p, directed=True, dedupe=False)
    assert G.num_arcs == 200_000
    import scipy.sparse as sp
    expected = sp.csr_matrix((np.ones(len(src)), (src, dst)), shape=(G.num_vertices,) * 2)
    assert np.array_equal(G.to_scipy().toarray(), expected.toarray())


# -- csv ------------------------------------------------------------------------------------
def test_csv_with_header_and_named_columns(tmp_path):
    p = write(tmp_path, "g.csv", "from,to,cost,ts\n1,2,0.5,100\n2,3,0.25,200\n")
    G = dgraph.read(p, src="from", dst="to", weight="cost", directed=True)
    assert edge_set(G) == {(1, 2, 0.5), (2, 3, 0.25)}


def test_csv_header_detection(tmp_path):
    G = dgraph.read(write(tmp_path, "a.csv", "src,dst,weight\n0,1,2.5\n"), directed=True)
    assert edge_set(G) == {(0, 1, 2.5)}
    G = dgraph.read(write(tmp_path, "b.csv", "x,y\nz,w\n"), directed=True)  # names, no header
    assert edge_set(G) == {("x", "y"), ("z", "w")}
    G = dgraph.read(write(tmp_path, "c.csv", "x,y\nz,w\n"), directed=True, header=True)
    assert edge_set(G) == {("z", "w")}


def test_csv_without_header_third_column_weight(tmp_path):
    G = dgraph.read(write(tmp_path, "g.csv", "0,1,7\n1,2,8\n"), directed=True)
    assert edge_set(G) == {(0, 1, 7), (1, 2, 8)}


def test_csv_unknown_column_name(tmp_path):
    p = write(tmp_path, "g.csv", "a,b\n1,2\n")
    with pytest.raises(FileFormatError, match=r"g\.csv:1: .*'source'.*no such column"):
        dgraph.read(p, src="source")


# -- Matrix Market --------------------------------------------------------------------------
def test_mtx_general_real_is_directed_and_zero_based(tmp_path):
    text = ("%%MatrixMarket matrix coordinate real general\n% comment\n"
            "4 4 3\n1 2 0.5\n2 3 1.5\n4 1 -2\n")
    G = dgraph.read(write(tmp_path, "g.mtx", text))
    assert G.directed and G.num_vertices == 4
    assert edge_set(G) == {(0, 1, 0.5), (1, 2, 1.5), (3, 0, -2.0)}


def test_mtx_symmetric_pattern_is_undirected(tmp_path):
    text = "%%MatrixMarket matrix coordinate pattern symmetric\n5 5 3\n2 1\n3 2\n3 3\n"
    G = dgraph.read(write(tmp_path, "g.mtx", text))
    assert not G.directed and not G.weighted
    assert G.num_vertices == 5  # vertex 4 (index 5) is isolated
    expected = np.zeros((5, 5))
    for a, b in [(1, 0), (2, 1), (2, 2)]:
        expected[a, b] = expected[b, a] = 1
    assert np.array_equal(dense(G), expected)
    D = dgraph.read(tmp_path / "g.mtx", directed=True)
    assert D.directed and np.array_equal(dense(D), expected)


def test_mtx_rectangular_and_integer(tmp_path):
    text = "%%MatrixMarket matrix coordinate integer general\n2 6 1\n1 6 7\n"
    G = dgraph.read(write(tmp_path, "g.mtx", text))
    assert G.num_vertices == 6
    assert edge_set(G) == {(0, 5, 7)}
    assert G.weights.dtype.kind == "i"


def test_mtx_round_trip_with_scipy(tmp_path):
    import scipy.io
    import scipy.sparse as sp

    m = sp.random(30, 30, density=0.1, random_state=1, format="coo")
    p = tmp_path / "r.mtx"
    scipy.io.mmwrite(str(p), m)
    G = dgraph.read(p)
    assert np.allclose(dense(G), m.toarray())


# -- Graphalytics ---------------------------------------------------------------------------
def _count_lines(path):
    return sum(1 for line in Path(path).read_text().splitlines() if line.strip())


@pytest.mark.parametrize("name,directed", [("example-directed", True), ("example-undirected", False)])
def test_ldbc_example_graphs(name, directed):
    G = dgraph.read(EXAMPLE / f"{name}.e", directed=directed)
    vertices = [int(x) for x in (EXAMPLE / f"{name}.v").read_text().split()]
    assert G.directed is directed and G.weighted
    assert G.num_vertices == len(vertices) == (10 if directed else 9)
    assert G.num_edges == _count_lines(EXAMPLE / f"{name}.e") == (17 if directed else 12)
    assert sorted(G.vertex_ids().tolist()) == sorted(vertices)
    first = (EXAMPLE / f"{name}.e").read_text().split("\n")[0].split()
    assert (int(first[0]), int(first[1]), float(first[2])) in edge_set(G)


def test_graphalytics_isolated_vertices_and_properties(tmp_path):
    write(tmp_path, "tiny.v", "10\n20\n30\n40\n")
    write(tmp_path, "tiny.e", "10 20 1.5\n20 30 2.5\n")
    write(tmp_path, "tiny.properties", "# LDBC\ngraph.tiny.directed = true\ngraph.tiny.edge-properties.names = weight\n")
    G = dgraph.read(tmp_path / "tiny.e")
    assert G.directed and G.weighted and G.num_vertices == 4
    assert G.vertex_ids().tolist() == [10, 20, 30, 40]
    assert edge_set(G) == {(10, 20, 1.5), (20, 30, 2.5)}
    assert G.out_degree().tolist() == [1, 1, 0, 0]


def test_graphalytics_properties_without_weight_ignore_third_column(tmp_path):
    write(tmp_path, "t.v", "1\n2\n")
    write(tmp_path, "t.e", "1 2 9\n")
    write(tmp_path, "t.properties", "graph.t.directed = false\n")
    G = dgraph.read(tmp_path / "t.e")
    assert not G.directed and G.weighted  # no edge-properties key: the column is used
    write(tmp_path, "t.properties", "graph.t.directed=false\ngraph.t.edge-properties.names = \n")
    assert not dgraph.read(tmp_path / "t.e").weighted


def test_graphalytics_weighted_true_needs_third_column(tmp_path):
    write(tmp_path, "u.v", "1\n2\n")
    write(tmp_path, "u.e", "1 2\n")
    with pytest.raises(FileFormatError, match=r"u\.e.*weighted=True"):
        dgraph.read(tmp_path / "u.e", directed=True, weighted=True)
    assert not dgraph.read(tmp_path / "u.e", directed=True).weighted


def test_graphalytics_string_ids(tmp_path):
    write(tmp_path, "s.v", "a\nb\nc\n")
    write(tmp_path, "s.e", "a b\nb c\n")
    G = dgraph.read(tmp_path / "s.e", directed=False)
    assert G.vertex_ids().tolist() == ["a", "b", "c"]
    assert edge_set(G) == {("a", "b"), ("b", "c")}


def test_graphalytics_needs_directed_without_properties(tmp_path):
    write(tmp_path, "n.v", "1\n")
    write(tmp_path, "n.e", "")
    with pytest.raises(InputError, match=r"n\.e.*directed="):
        dgraph.read(tmp_path / "n.e")
    G = dgraph.read(tmp_path / "n.e", directed=True)
    assert G.num_vertices == 1 and G.num_edges == 0


# -- Parquet ----------------------------------------------------------------------------------
def test_parquet_round_trip(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    p = tmp_path / "g.parquet"
    pq.write_table(pa.table({"src": [0, 1, 2], "dst": [1, 2, 0], "weight": [0.5, 1.0, 2.0]}), p)
    G = dgraph.read(p, directed=True)
    assert edge_set(G) == {(0, 1, 0.5), (1, 2, 1.0), (2, 0, 2.0)}
    q = tmp_path / "h.pq"
    pq.write_table(pa.table({"a": ["x", "y"], "b": ["y", "z"], "w": [1, 2]}), q)
    H = dgraph.read(q, src="a", dst="b", directed=True)
    assert edge_set(H) == {("x", "y"), ("y", "z")}
    assert edge_set(dgraph.read(q, src="a", dst="b", weight="w", directed=True)) == {("x", "y", 1), ("y", "z", 2)}


def test_parquet_missing_column(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    p = tmp_path / "g.parquet"
    pq.write_table(pa.table({"u": [0], "v": [1]}), p)
    with pytest.raises(FileFormatError, match=r"g\.parquet.*'src'.*\['u', 'v'\]"):
        dgraph.read(p)


def test_parquet_null_and_nan(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    p = tmp_path / "n.parquet"
    pq.write_table(pa.table({"src": [0, None], "dst": [1, 2]}), p)
    with pytest.raises(FileFormatError, match=r"n\.parquet.*'src', row 1"):
        dgraph.read(p)
    q = tmp_path / "w.parquet"
    pq.write_table(pa.table({"src": [0, 1], "dst": [1, 2], "weight": [1.0, float("nan")]}), q)
    with pytest.raises(FileFormatError, match=r"w\.parquet.*row 1.*finite"):
        dgraph.read(q)


# -- dispatch -------------------------------------------------------------------------------
def test_unknown_extension_lists_formats(tmp_path):
    p = write(tmp_path, "g.xyz", "0 1\n")
    with pytest.raises(InputError, match=r"g\.xyz.*edgelist.*mtx.*graphalytics.*parquet"):
        dgraph.read(p)
    assert dgraph.read(p, format="edgelist").num_edges == 1


def test_unknown_option_and_format(tmp_path):
    p = write(tmp_path, "g.el", "0 1\n")
    with pytest.raises(InputError, match="unknown option 'colour'"):
        dgraph.read(p, colour="red")
    with pytest.raises(InputError, match="format='gml'"):
        dgraph.read(p, format="gml")


def test_missing_file(tmp_path):
    with pytest.raises(MissingFileError, match="nope.el"):
        dgraph.read(tmp_path / "nope.el")


def test_ldbc_properties_file_decides_directed_and_weighted(tmp_path):
    import shutil

    for ext in (".e", ".v"):
        shutil.copy(EXAMPLE / f"example-directed{ext}", tmp_path / f"example-directed{ext}")
    write(tmp_path, "example-directed.properties", "\n".join([
        "# Filenames of graph on local disk",
        "graph.example-directed.vertex-file = example-directed.v",
        "graph.example-directed.edge-file = example-directed.e",
        "graph.example-directed.meta.vertices = 10",
        "graph.example-directed.meta.edges = 17",
        "graph.example-directed.directed = true",
        "graph.example-directed.algorithms = bfs, cdlp, lcc, pr, sssp, wcc",
        "graph.example-directed.edge-properties.names = weight",
        "graph.example-directed.edge-properties.types = real", ""]))
    G = dgraph.read(tmp_path / "example-directed.e")
    assert G.directed and G.weighted and G.num_vertices == 10 and G.num_edges == 17
    assert G.name == "example-directed"
    same = dgraph.read(tmp_path / "example-directed", format="graphalytics")  # base name works too
    assert edge_set(same) == edge_set(G)


def test_tab_separated_graphalytics_edges(tmp_path):
    write(tmp_path, "t.v", "1\n2\n3\n")
    write(tmp_path, "t.e", "1\t2\n2\t3\n")
    assert edge_set(dgraph.read(tmp_path / "t.e", directed=True)) == {(1, 2), (2, 3)}


def test_sep_option_and_mtx_named_txt(tmp_path):
    p = write(tmp_path, "g.txt", "a b,c d\n")
    assert edge_set(dgraph.read(p, sep="comma", directed=True)) == {("a b", "c d")}
    q = write(tmp_path, "m.txt", "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n")
    with pytest.raises(FileFormatError, match=r"m\.txt:1: .*format='mtx'"):
        dgraph.read(q)
    assert edge_set(dgraph.read(q, format="mtx")) == {(0, 1)}


def test_directed_and_weighted_must_be_booleans(tmp_path):
    p = write(tmp_path, "g.el", "0 1\n")
    with pytest.raises(InputError, match="directed='yes'"):
        dgraph.read(p, directed="yes")
    with pytest.raises(InputError, match="weighted=1"):
        dgraph.read(p, weighted=1)


def test_nan_like_names_are_names_not_numbers(tmp_path):
    G = dgraph.read(write(tmp_path, "g.el", "NA null\nnan N/A\n"), directed=True)
    assert edge_set(G) == {("NA", "null"), ("nan", "N/A")}
