"""Bad input: every reader error is a DGraphError naming the file, the 1-based line and what was expected."""

import re

import pytest

import dgraph
from dgraph.errors import DGraphError, FileFormatError, InputError, MissingFileError

HEADER = "%%MatrixMarket matrix coordinate real general\n"


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text) if isinstance(text, str) else p.write_bytes(text)
    return p


def raises_at(exc_type, path, line, *words, **read_kw):
    """Read ``path``; assert the error class, ``<name>:<line>:`` and the words in the message."""
    with pytest.raises(exc_type) as info:
        dgraph.read(path, **read_kw)
    msg = str(info.value)
    assert isinstance(info.value, DGraphError)
    where = f"{path.name}:{line}:" if line is not None else path.name
    assert where in msg, msg
    for w in words:
        assert re.search(w, msg), (w, msg)
    if isinstance(info.value, FileFormatError):
        assert info.value.line == line
    return msg


# -- edge lists -------------------------------------------------------------------------------
def test_wrong_column_count_fast_path(tmp_path):
    p = write(tmp_path, "g.el", "# c\n0 1\n1 2\n2 3 4\n")
    raises_at(FileFormatError, p, 4, "expected 2 fields", "found 3")


def test_wrong_column_count_general_path(tmp_path):
    # double spaces and a mid-file comment send the parse to pandas; a short line is still found
    p = write(tmp_path, "g.el", "0  1  0.5\n% note\n1  2\n2  3  1.0\n")
    raises_at(FileFormatError, p, 3, "expected 3 fields", "found 2")


def test_too_many_columns(tmp_path):
    p = write(tmp_path, "g.el", "\n0 1 2 3\n")
    raises_at(FileFormatError, p, 2, "expected 2 or 3 fields")


def test_single_column(tmp_path):
    p = write(tmp_path, "g.el", "0\n1\n")
    raises_at(FileFormatError, p, 1, "expected 2 or 3 fields")


def test_non_numeric_weight(tmp_path):
    p = write(tmp_path, "g.el", "0 1 0.5\n1 2 heavy\n")
    raises_at(FileFormatError, p, 2, "weight 'heavy' is not a number")


@pytest.mark.parametrize("bad", ["nan", "inf", "-inf", "1e400"])
def test_non_finite_weight(tmp_path, bad):
    p = write(tmp_path, "g.el", f"0 1 0.5\n# x\n1 2 {bad}\n")
    raises_at(FileFormatError, p, 3, "not a finite number")


def test_non_numeric_weight_ignored_when_unweighted(tmp_path):
    p = write(tmp_path, "g.el", "0 1 x\n1 2 y\n")
    assert dgraph.read(p, weighted=False).num_edges == 2


def test_negative_weights_are_read(tmp_path):
    G = dgraph.read(write(tmp_path, "g.el", "0 1 -2.5\n"), directed=True)
    assert G.weights.tolist() == [-2.5]


def test_non_integer_vertex_id(tmp_path):
    p = write(tmp_path, "g.el", "0 1\n1.5 2\n")
    raises_at(FileFormatError, p, 2, "vertex id '1.5' is a name, but vertex id '0' \\(line 1\\) is an integer")


def test_invalid_utf8_line(tmp_path):
    p = write(tmp_path, "g.el", b"a b\nc \xff\xfe\n")
    raises_at(FileFormatError, p, 2, "UTF-8")


def test_csv_short_line(tmp_path):
    p = write(tmp_path, "g.csv", "src,dst\n1,2\n3\n")
    raises_at(FileFormatError, p, 3, "expected 2 fields", "found 1")


# -- Matrix Market ----------------------------------------------------------------------------
@pytest.mark.parametrize("header", ["", "0 1\n", "%%MatrixMarket matrix\n", "%MatrixMarket matrix coordinate real general\n"])
def test_mtx_unreadable_header(tmp_path, header):
    p = write(tmp_path, "g.mtx", header + "1 1 0\n")
    raises_at(FileFormatError, p, 1, "%%MatrixMarket matrix coordinate real general")


@pytest.mark.parametrize("header,word", [
    ("%%MatrixMarket matrix array real general", "array"),
    ("%%MatrixMarket matrix coordinate complex general", "complex"),
    ("%%MatrixMarket matrix coordinate real skew-symmetric", "skew-symmetric"),
    ("%%MatrixMarket matrix coordinate complex hermitian", "complex"),
    ("%%MatrixMarket matrix coordinate real hermitian", "hermitian"),
    ("%%MatrixMarket vector coordinate real general", "vector"),
])
def test_mtx_unsupported_kinds(tmp_path, header, word):
    p = write(tmp_path, "g.mtx", header + "\n2 2 1\n1 1 1\n")
    raises_at(FileFormatError, p, 1, word)


def test_mtx_bad_size_line(tmp_path):
    p = write(tmp_path, "g.mtx", HEADER + "% c\n3 3\n1 1 1\n")
    raises_at(FileFormatError, p, 3, "size line 'rows columns entries'")


def test_mtx_non_integer_index(tmp_path):
    p = write(tmp_path, "g.mtx", HEADER + "3 3 2\n1 2 1.0\n2 x 1.0\n")
    raises_at(FileFormatError, p, 4, "column index 'x' is not an integer")
    q = write(tmp_path, "h.mtx", HEADER + "3 3 2\n1 2 1.0\n2.5 1 1.0\n")
    raises_at(FileFormatError, q, 4, "row index '2.5' is not an integer")


def test_mtx_index_out_of_range(tmp_path):
    p = write(tmp_path, "g.mtx", HEADER + "3 3 2\n1 2 1.0\n2 4 1.0\n")
    raises_at(FileFormatError, p, 4, r"column index 4 is out of range 1\.\.3")
    q = write(tmp_path, "h.mtx", HEADER + "3 3 1\n0 1 1.0\n")
    raises_at(FileFormatError, q, 3, r"row index 0 is out of range")


def test_mtx_entry_count_checked(tmp_path):
    p = write(tmp_path, "g.mtx", HEADER + "%c\n3 3 3\n1 2 1.0\n2 3 1.0\n")
    raises_at(FileFormatError, p, 3, "says 3 entries but the file has 2")
    q = write(tmp_path, "h.mtx", HEADER + "3 3 1\n1 2 1.0\n2 3 1.0\n")
    raises_at(FileFormatError, q, 2, "says 1 entries but the file has 2")


def test_mtx_bad_values(tmp_path):
    p = write(tmp_path, "g.mtx", HEADER + "3 3 2\n1 2 1.0\n2 3 nan\n")
    raises_at(FileFormatError, p, 4, "value 'nan' is not a finite number")
    q = write(tmp_path, "h.mtx", "%%MatrixMarket matrix coordinate integer general\n3 3 2\n1 2 1\n2 3 1.5\n")
    raises_at(FileFormatError, q, 4, "value '1.5' is not an integer")
    r = write(tmp_path, "i.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n2 3 1\n")
    raises_at(FileFormatError, r, 4, "expected 2 fields")


def test_mtx_pattern_weighted_true(tmp_path):
    p = write(tmp_path, "g.mtx", "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n")
    raises_at(FileFormatError, p, None, "weighted=True", "pattern", weighted=True)


# -- Graphalytics -------------------------------------------------------------------------------
def test_edge_vertex_not_in_v(tmp_path):
    write(tmp_path, "g.v", "1\n2\n3\n")
    p = write(tmp_path, "g.e", "1 2\n2 3\n3 9\n")
    raises_at(FileFormatError, p, 3, r"vertex 9 is not in the vertex file g\.v", directed=True)
    write(tmp_path, "h.v", "1\n2\n")
    q = write(tmp_path, "h.e", "7 2\n")
    raises_at(FileFormatError, q, 1, r"vertex 7 is not in", directed=True)


def test_v_file_missing(tmp_path):
    p = write(tmp_path, "g.e", "1 2\n")
    with pytest.raises(MissingFileError, match=r"g\.v.*beside g\.e"):
        dgraph.read(p, directed=True)


def test_e_file_missing(tmp_path):
    write(tmp_path, "g.v", "1\n")
    with pytest.raises(MissingFileError, match=r"g\.e"):
        dgraph.read(tmp_path / "g.e", directed=True)


def test_duplicate_vertex_in_v(tmp_path):
    v = write(tmp_path, "g.v", "1\n2\n\n1\n")
    write(tmp_path, "g.e", "1 2\n")
    with pytest.raises(FileFormatError) as info:
        dgraph.read(tmp_path / "g.e", directed=True)
    assert "g.v:4:" in str(info.value) and "first on line 1" in str(info.value)
    del v


def test_v_file_with_two_columns(tmp_path):
    write(tmp_path, "g.v", "1\n2 3\n")
    write(tmp_path, "g.e", "1 2\n")
    with pytest.raises(FileFormatError, match=r"g\.v:2: expected 1 fields"):
        dgraph.read(tmp_path / "g.e", directed=True)


def test_e_bad_weight(tmp_path):
    write(tmp_path, "g.v", "1\n2\n")
    p = write(tmp_path, "g.e", "1 2 0.5\n2 1 oops\n")
    raises_at(FileFormatError, p, 2, "weight 'oops' is not a number", directed=True)


def test_bad_properties_value(tmp_path):
    write(tmp_path, "g.v", "1\n")
    write(tmp_path, "g.e", "")
    write(tmp_path, "g.properties", "# x\ngraph.g.directed = maybe\n")
    with pytest.raises(FileFormatError, match=r"g\.properties:2: .*expected true or false"):
        dgraph.read(tmp_path / "g.e")


def test_missing_files_for_every_format(tmp_path):
    for name in ("a.el", "a.csv", "a.mtx", "a.e", "a.parquet", "a.wel"):
        with pytest.raises(MissingFileError, match=re.escape(name)):
            dgraph.read(tmp_path / name, directed=True)


def test_not_a_parquet_file(tmp_path):
    p = write(tmp_path, "g.parquet", "0 1\n")
    with pytest.raises(FileFormatError, match=r"g\.parquet.*Parquet"):
        dgraph.read(p)


def test_num_vertices_too_small_names_file(tmp_path):
    p = write(tmp_path, "g.el", "0 5\n")
    with pytest.raises(InputError, match=r"g\.el.*num_vertices=3"):
        dgraph.read(p, num_vertices=3)
