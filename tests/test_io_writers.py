"""Writers: csv, parquet, npz and Graphalytics output; overwrite refusal; no partial files."""

import numpy as np
import pytest

import dgraph
from dgraph.engine.result import Result
from dgraph.errors import InputError, OutputExistsError
from dgraph.graph.ids import VertexIds

INT_INF = "9223372036854775807"


def bfs_result():
    # internal vertices 0..3 are user ids 30, 10, 20, 40 in sorted-label order: 10, 20, 30, 40
    ids = VertexIds(4, np.array([10, 20, 30, 40]))
    depth = np.array([0, 1, -1, 2])
    parent = np.array([0, 0, -1, 1])  # internal ids
    return Result("bfs", ids, {"depth": depth, "parent": parent}, vertex_columns=("parent",),
                  missing={"depth": -1, "parent": -1})


def sssp_result():
    G = dgraph.from_edges([0, 2], [1, 0], directed=True, num_vertices=4)
    dist = np.array([0.0, 0.1, np.inf, 1 / 3])
    return Result("sssp", G.ids, {"distance": dist}, missing={"distance": np.inf})


def string_result():
    ids = VertexIds(3, np.array(["a", "b", "c"]))
    return Result("bfs", ids, {"depth": np.array([0, 1, -1]), "parent": np.array([0, 0, -1])},
                  vertex_columns=("parent",), missing={"depth": -1, "parent": None})


def test_csv(tmp_path):
    import pandas as pd

    p = dgraph.write(bfs_result(), tmp_path / "out.csv")
    df = pd.read_csv(p)
    assert list(df.columns) == ["vertex", "depth", "parent"]
    assert df["vertex"].tolist() == [10, 20, 30, 40]
    assert df["parent"].tolist() == [10, 10, -1, 20]  # user ids
    q = dgraph.write(bfs_result(), tmp_path / "depth.csv", columns=["depth"])
    assert pd.read_csv(q).columns.tolist() == ["vertex", "depth"]


def test_csv_floats_keep_full_precision(tmp_path):
    import pandas as pd

    p = dgraph.write(sssp_result(), tmp_path / "d.csv")
    assert pd.read_csv(p)["distance"].tolist() == [0.0, 0.1, np.inf, 1 / 3]


def test_parquet(tmp_path):
    import pyarrow.parquet as pq

    p = dgraph.write(bfs_result(), tmp_path / "out.parquet")
    t = pq.read_table(p)
    assert t.column_names == ["vertex", "depth", "parent"]
    assert t.column("parent").to_pylist() == [10, 10, -1, 20]
    assert t.schema.metadata[b"dgraph.algorithm"] == b"bfs"
    s = dgraph.write(string_result(), tmp_path / "s.pq")
    assert pq.read_table(s).column("parent").to_pylist() == ["a", "a", None]


def test_npz(tmp_path):
    p = dgraph.write(bfs_result(), tmp_path / "out.npz")
    with np.load(p) as z:  # no pickles needed
        assert sorted(z.files) == ["depth", "parent", "vertex"]
        assert z["depth"].tolist() == [0, 1, -1, 2]
        assert z["parent"].tolist() == [10, 10, -1, 20]
    s = dgraph.write(string_result(), tmp_path / "s.npz")
    with np.load(s) as z:
        assert z["vertex"].tolist() == ["a", "b", "c"]
        assert z["parent"].tolist() == ["a", "a", ""]


def test_graphalytics_integers_and_missing(tmp_path):
    p = dgraph.write(bfs_result(), tmp_path / "BFS", format="graphalytics")
    assert p.read_text() == f"10 0\n20 1\n30 {INT_INF}\n40 2\n"
    q = dgraph.write(bfs_result(), tmp_path / "parent.txt", format="graphalytics", columns=["parent"])
    assert q.read_text() == f"10 10\n20 10\n30 {INT_INF}\n40 20\n"


def test_graphalytics_floats_and_infinity(tmp_path):
    p = dgraph.write(sssp_result(), tmp_path / "SSSP.txt", format="graphalytics")
    lines = p.read_text().splitlines()
    assert lines[2] == "2 Infinity"
    assert [float(x.split()[1]) for x in lines] == [0.0, 0.1, float("inf"), 1 / 3]  # exact round trip


def test_graphalytics_sorted_by_vertex(tmp_path):
    ids = VertexIds(3, np.array([5, 7, 9]))
    r = Result("wcc", ids, {"component": np.array([3, 2, 1])})
    r.ids = VertexIds(3, np.array([9, 5, 7]))  # labels not in sorted order
    p = dgraph.write(r, tmp_path / "WCC", format="graphalytics")
    assert p.read_text() == "5 2\n7 1\n9 3\n"


def test_graphalytics_string_ids(tmp_path):
    p = dgraph.write(string_result(), tmp_path / "s", format="graphalytics", columns="parent")
    assert p.read_text() == f"a a\nb a\nc {INT_INF}\n"


def test_graphalytics_matches_ldbc_reference_layout(tmp_path):
    from pathlib import Path

    ref = (Path(__file__).parent / "data" / "graphalytics" / "example-directed-BFS").read_text().split()
    vertex = np.array([int(x) for x in ref[0::2]])
    depth = np.array([int(x) for x in ref[1::2]])
    depth[depth == int(INT_INF)] = -1
    order = np.argsort(vertex)
    r = Result("bfs", VertexIds(len(vertex), vertex[order]), {"depth": depth[order]}, missing={"depth": -1})
    p = dgraph.write(r, tmp_path / "BFS", format="graphalytics")
    assert p.read_text().split() == ref


def test_graphalytics_one_column_only(tmp_path):
    with pytest.raises(InputError, match="one column"):
        dgraph.write(bfs_result(), tmp_path / "x", format="graphalytics", columns=["depth", "parent"])
    assert not (tmp_path / "x").exists()


def test_overwrite_refused_and_original_kept(tmp_path):
    p = tmp_path / "out.csv"
    p.write_text("precious\n")
    with pytest.raises(OutputExistsError, match="out.csv"):
        dgraph.write(bfs_result(), p)
    assert p.read_text() == "precious\n"
    dgraph.write(bfs_result(), p, overwrite=True)
    assert p.read_text().startswith("vertex,depth,parent\n")
    assert sorted(x.name for x in tmp_path.iterdir()) == ["out.csv"]  # no temporary files left


def test_error_leaves_no_partial_file(tmp_path, monkeypatch):
    from dgraph.io import writers

    def boom(tmp, table, result):
        tmp.write_text("half")
        raise RuntimeError("disk full")

    monkeypatch.setitem(writers.WRITERS, "csv", boom)
    with pytest.raises(RuntimeError):
        dgraph.write(bfs_result(), tmp_path / "out.csv")
    assert list(tmp_path.iterdir()) == []


def test_parent_folder_is_created(tmp_path):
    p = dgraph.write(bfs_result(), tmp_path / "a" / "b" / "out.npz")
    assert p.exists()


def test_format_errors(tmp_path):
    with pytest.raises(InputError, match=r"out\.txt.*csv, parquet, npz, graphalytics"):
        dgraph.write(bfs_result(), tmp_path / "out.txt")
    with pytest.raises(InputError, match="format='xml'"):
        dgraph.write(bfs_result(), tmp_path / "out.csv", format="xml")
    with pytest.raises(InputError, match="'rank' is not a column"):
        dgraph.write(bfs_result(), tmp_path / "out.csv", columns=["rank"])
    assert list(tmp_path.iterdir()) == []


def test_folder_path_refused(tmp_path):
    with pytest.raises(OutputExistsError, match="folder"):
        dgraph.write(bfs_result(), tmp_path, format="csv", overwrite=True)


def test_check_output_path_before_work(tmp_path):
    from dgraph.io import check_output_path

    assert check_output_path(tmp_path / "r.parquet") == (tmp_path / "r.parquet", "parquet")
    assert check_output_path(tmp_path / "BFS", fmt="graphalytics")[1] == "graphalytics"
    (tmp_path / "r.csv").write_text("x\n")
    with pytest.raises(OutputExistsError, match=r"r\.csv"):
        check_output_path(tmp_path / "r.csv")
    assert check_output_path(tmp_path / "r.csv", overwrite=True)[1] == "csv"
    with pytest.raises(InputError, match="format"):
        check_output_path(tmp_path / "r.dat")


@pytest.mark.parametrize("name,source", [("example-directed", 1), ("example-undirected", 2)])
def test_ldbc_bfs_output_matches_reference(tmp_path, name, source):
    """read -> bfs -> write(format='graphalytics') reproduces the LDBC reference file byte for byte."""
    from pathlib import Path

    from dgraph.algorithms.bfs import bfs
    example = Path(__file__).parent / "data" / "graphalytics"
    G = dgraph.read(example / f"{name}.e", directed=name.endswith("-directed"))
    p = dgraph.write(bfs(G, source), tmp_path / f"{name}-BFS", format="graphalytics", columns=["depth"])
    assert p.read_text() == (example / f"{name}-BFS").read_text()
