"""Issue 21 (hardening), readers and generators: each reported case, numbered as in the issue.

Fast cases here; the fuzz loops over mutated files are in tests/test_io_fuzz.py (slow).
"""

import gzip

import numpy as np
import pytest

import dgraph
from dgraph.backend import device_memory
from dgraph.errors import DGraphError, FileFormatError, GraphTooLargeError, InputError

GiB = 1 << 30


def write(tmp_path, name, data):
    p = tmp_path / name
    p.write_bytes(data.encode() if isinstance(data, str) else data)
    return p


def edge_set(G):
    s, d, w = G.edges()
    if w is None:
        return {(a, b) for a, b in zip(s.tolist(), d.tolist())}
    return {(a, b, c) for a, b, c in zip(s.tolist(), d.tolist(), w.tolist())}


@pytest.fixture
def small_host(monkeypatch):
    """This machine has 1 GiB of host memory to give (whatever it really has)."""
    monkeypatch.setattr(device_memory, "host_available", lambda: (GiB, 2 * GiB))


# -- 6: sizes estimated before allocating; sparse ids renumbered ---------------------------------
def test_issue21_6_sparse_ids_are_renumbered(tmp_path):
    G = dgraph.read(write(tmp_path, "big.el", "0 2000000000\n"))
    assert G.num_vertices == 2 and G.vertex_ids().tolist() == [0, 2_000_000_000]
    assert edge_set(G) == {(0, 2_000_000_000)}
    assert G.ids.to_internal(2_000_000_000) == 1 and G.num_arcs == 2
    assert "renumbered" in G.summary()["ids"]


def test_issue21_6_dense_ids_are_kept(tmp_path):
    G = dgraph.read(write(tmp_path, "g.el", "0 5\n5 9\n"))
    assert G.num_vertices == 10 and G.ids.identity  # 1..4, 6..8 isolated, as before
    G = dgraph.from_edges(np.array([0]), np.array([(1 << 20) - 1]))
    assert G.ids.identity and G.num_vertices == 1 << 20  # under 2**20 ids are never sparse
    G = dgraph.from_edges(np.arange(1000), np.arange(1000) + 7000)
    assert G.ids.identity  # 8,000 vertices for 1,000 edges: not sparse (< 8 x edges)


def test_issue21_6_identity_ids_too_large_for_memory(tmp_path, small_host):
    p = write(tmp_path, "big.el", "0 2000000000\n")
    with pytest.raises(GraphTooLargeError) as e:
        dgraph.read(p, renumber=False)
    msg = str(e.value)
    assert "2,000,000,001 vertices" in msg and "needs about 44.7 GiB" in msg and "1.0 GiB available" in msg
    assert "renumber=True" in msg


def test_issue21_6_mtx_size_line_is_checked_before_allocating(tmp_path, small_host):
    p = write(tmp_path, "g.mtx", "%%MatrixMarket matrix coordinate pattern general\n"
                                 "1000000000 1000000000 1\n1 1000000000\n")
    with pytest.raises(GraphTooLargeError, match=r"1,000,000,000 vertices.*renumber=True"):
        dgraph.read(p)
    G = dgraph.read(p, renumber=True)
    assert G.vertex_ids().tolist() == [0, 999_999_999] and edge_set(G) == {(0, 999_999_999)}
    q = write(tmp_path, "h.mtx", "%%MatrixMarket matrix coordinate pattern general\n3000000000 1 0\n")
    with pytest.raises(DGraphError, match="3,000,000,000 vertices"):
        dgraph.read(q)


def test_issue21_6_parquet_sparse_ids(tmp_path, small_host):
    pa, pq = pytest.importorskip("pyarrow"), pytest.importorskip("pyarrow.parquet")
    p = tmp_path / "g.parquet"
    pq.write_table(pa.table({"src": [0, 5], "dst": [2_000_000_000, 3_000_000_000_000]}), p)
    G = dgraph.read(p)
    assert G.vertex_ids().tolist() == [0, 5, 2_000_000_000, 3_000_000_000_000]
    with pytest.raises(DGraphError, match="vertices"):
        dgraph.read(p, renumber=False)


def test_issue21_6_from_edges_checks_memory_first(small_host):
    with pytest.raises(GraphTooLargeError, match=r"400,000,000 vertices.*available"):
        dgraph.from_edges([0], [1], num_vertices=400_000_000)
    G = dgraph.from_edges([0], [1], num_vertices=1000)  # small ones still fit
    assert G.num_vertices == 1000


# -- 11: generators check the size first ----------------------------------------------------------
@pytest.mark.parametrize("kind, params, size", [
    ("rmat", {"scale": 31}, "2,147,483,648 vertices, 34,359,738,368 edges"),
    ("rmat", {"scale": 4, "edgefactor": 10**12}, "16 vertices, 16,000,000,000,000 edges"),
    ("grid", {"n": 10**6}, "1,000,000,000,000 vertices"),
    ("uniform", {"num_vertices": 10, "num_edges": 10**14}, "100,000,000,000,000 edges"),
])
def test_issue21_11_generators_refuse_what_cannot_fit(kind, params, size):
    with pytest.raises(GraphTooLargeError) as e:
        dgraph.generate(kind, **params)
    msg = str(e.value)
    assert size in msg and "needs about" in msg and "TiB" in msg or "PiB" in msg
    assert "generate_partitioned" in msg


def test_issue21_11_generator_limit_follows_the_memory(small_host):
    with pytest.raises(GraphTooLargeError, match=r"generate\('rmat', scale=24\)"):
        dgraph.generate("rmat", scale=24)
    assert dgraph.generate("rmat", scale=8).num_vertices == 256


# -- 7: exact values or an error; compressed files bounded -----------------------------------------
def test_issue21_7_parquet_float_ids_past_int64_are_refused(tmp_path):
    pa, pq = pytest.importorskip("pyarrow"), pytest.importorskip("pyarrow.parquet")
    p = tmp_path / "g.parquet"
    pq.write_table(pa.table({"src": [2.0 ** 63, 1.0], "dst": [0.0, 1.0]}), p)
    with pytest.raises(FileFormatError, match=r"column 'src', row 0.*9\.223372036854776e\+18.*int64"):
        dgraph.read(p)
    pq.write_table(pa.table({"src": [2.0 ** 62, 1.0], "dst": [0.0, 1.0]}), p)  # integral, below 2**63: exact
    assert edge_set(dgraph.read(p, directed=True)) == {(2 ** 62, 0), (1, 1)}


def test_issue21_7_from_edges_float_and_uint64_ids_are_exact_or_refused():
    with pytest.raises(InputError, match=r"src\[0\] = 9\.223372036854776e\+18"):
        dgraph.from_edges(np.array([2.0 ** 63]), np.array([1.0]))
    with pytest.raises(InputError, match=r"dst\[1\] = 18446744073709551615"):
        dgraph.from_edges(np.array([1, 2], np.uint64), np.array([3, 2 ** 64 - 1], np.uint64))
    G = dgraph.from_edges(np.array([2.0 ** 62, 3.0]), np.array([3.0, 2.0 ** 62]), directed=True)
    assert G.vertex_ids().tolist() == [3, 2 ** 62]
    G = dgraph.from_edges(np.array([2 ** 63 - 1], np.uint64), np.array([0], np.uint64), directed=True)
    assert G.vertex_ids().tolist() == [0, 2 ** 63 - 1]


def test_issue21_7_uint64_weights_past_int64_are_refused(tmp_path):
    pa, pq = pytest.importorskip("pyarrow"), pytest.importorskip("pyarrow.parquet")
    p = tmp_path / "g.parquet"
    pq.write_table(pa.table({"src": [0, 1], "dst": [1, 2],
                             "weight": pa.array([5, 2 ** 64 - 1], type=pa.uint64())}), p)
    with pytest.raises(FileFormatError, match=r"column 'weight', row 1.*18446744073709551615.*float64"):
        dgraph.read(p)
    with pytest.raises(InputError, match="edge 1 has weight 18446744073709551615"):
        dgraph.from_edges([0, 1], [1, 2], np.array([5, 2 ** 64 - 1], np.uint64))
    pq.write_table(pa.table({"src": [0], "dst": [1], "weight": pa.array([2 ** 63 - 1], type=pa.uint64())}), p)
    G = dgraph.read(p, directed=True)
    assert G.weights.dtype == np.int64 and edge_set(G) == {(0, 1, 2 ** 63 - 1)}


def test_issue21_7_text_weights_are_exact(tmp_path):
    G = dgraph.read(write(tmp_path, "g.wel", "0 1 9223372036854775807\n1 2 -9223372036854775808\n"), directed=True)
    assert G.weights.dtype == np.int64
    assert edge_set(G) == {(0, 1, 2 ** 63 - 1), (1, 2, -2 ** 63)}
    G = dgraph.read(write(tmp_path, "h.wel", "0 1 18446744073709551615\n1 2 3\n"), directed=True)
    assert G.weights.dtype == np.float64 and edge_set(G) == {(0, 1, 1.8446744073709552e19), (1, 2, 3.0)}
    with pytest.raises(FileFormatError, match=r"i\.wel:2: weight '0x10' is not a number"):
        dgraph.read(write(tmp_path, "i.wel", "0 1 5\n1 2 0x10\n"))
    mtx = "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 2 9223372036854775808\n"
    with pytest.raises(FileFormatError, match=r"g\.mtx:3: value '9223372036854775808' is past the int64 range"):
        dgraph.read(write(tmp_path, "g.mtx", mtx))


def test_issue21_7_gzip_bomb_is_refused_before_it_is_inflated(tmp_path, monkeypatch):
    p = tmp_path / "bomb.el.gz"
    with gzip.open(p, "wb", compresslevel=9) as f:
        line = b"0 1\n" * (1 << 16)
        for _ in range(16):  # 4 MiB of lines in about 4 KiB
            f.write(line)
    assert p.stat().st_size < 200_000
    monkeypatch.setattr(device_memory, "host_available", lambda: (3 << 20, 2 * GiB))
    with pytest.raises(GraphTooLargeError, match=r"bomb\.el\.gz \(more than 1,048,577 bytes of text once "
                                                 r"decompressed\) needs about .*3\.0 MiB available"):
        dgraph.read(p)
    monkeypatch.undo()
    assert dgraph.read(p).num_edges == 1


def test_issue21_7_plain_text_too_large_for_memory(tmp_path, monkeypatch):
    p = write(tmp_path, "g.el", "0 1\n" * 100_000)
    monkeypatch.setattr(device_memory, "host_available", lambda: (1 << 20, 2 * GiB))
    with pytest.raises(GraphTooLargeError, match=r"reading .*g\.el \(400,000 bytes of text\) needs about"):
        dgraph.read(p)


# -- 8: one id rule for every path, and info says which ---------------------------------------------
@pytest.mark.parametrize("extra", ["", "# a comment\n", "%a comment\n", "0  1\n"])
def test_issue21_8_hex_is_a_name_on_every_path(tmp_path, extra):
    """pyarrow alone read 0x10 as 16; with a comment (the pandas path) every id was a string."""
    p = write(tmp_path, "g.el", "0x10 2\n" + extra)
    with pytest.raises(FileFormatError, match=r"g\.el:1: vertex id '2' is an integer, but vertex id '0x10'"):
        dgraph.read(p)
    G = dgraph.read(p, ids="str", directed=True)
    assert ("0x10", "2") in edge_set(G) and G.ids.kind == "names"


@pytest.mark.parametrize("body", ["5 7\n7 9\n", "5 7\n# c\n7 9\n", "5  7\n7\t9\n", "+5 007\n7 9\n"])
def test_issue21_8_integers_read_the_same_on_every_path(tmp_path, body):
    G = dgraph.read(write(tmp_path, "g.el", body), directed=True)
    assert G.ids.identity and edge_set(G) == {(5, 7), (7, 9)}


def test_issue21_8_mixed_ids_name_the_line(tmp_path):
    p = write(tmp_path, "g.el", "1 2\n2 3\nalice 1\n")
    with pytest.raises(FileFormatError, match=r"g\.el:3: vertex id 'alice' is a name, but vertex id '1' "
                                              r"\(line 1\) is an integer.*ids='str'"):
        dgraph.read(p)
    G = dgraph.read(p, ids="str", directed=True)
    assert edge_set(G) == {("1", "2"), ("2", "3"), ("alice", "1")}
    with pytest.raises(FileFormatError, match=r"g\.el:3: vertex id 'alice' is not an integer \(ids='int'\)"):
        dgraph.read(p, ids="int")
    with pytest.raises(InputError, match="ids='names'"):
        dgraph.read(p, ids="names")
    q = write(tmp_path, "g.csv", "src,dst\n1,2\n2,1.0\n")
    with pytest.raises(FileFormatError, match=r"g\.csv:3: vertex id '1\.0' is a name"):
        dgraph.read(q)


def test_issue21_8_graphalytics_ids_one_kind_across_files(tmp_path):
    write(tmp_path, "g.v", "1\n2\nthree\n")
    write(tmp_path, "g.e", "1 2\n")
    with pytest.raises(FileFormatError, match=r"g\.v:3: vertex id 'three' is a name, but vertex id '1'"):
        dgraph.read(tmp_path / "g.e", directed=True)
    G = dgraph.read(tmp_path / "g.e", directed=True, ids="str")
    assert sorted(G.vertex_ids().tolist()) == ["1", "2", "three"]
    write(tmp_path, "g.v", "1\n2\n007\n")
    write(tmp_path, "g.e", "1 2\n2 7\n")
    assert edge_set(dgraph.read(tmp_path / "g.e", directed=True)) == {(1, 2), (2, 7)}


def test_issue21_8_info_says_which_ids(tmp_path, capsys):
    from dgraph.cli import main

    cases = {"a.el": ("0 1\n1 2\n", "integers 0..2, as given"),
             "b.el": ("0 5000000000\n", "integers, renumbered"),
             "c.el": ("alice bob\n", "names (strings)")}
    for name, (body, said) in cases.items():
        assert main(["info", str(write(tmp_path, name, body))]) == 0
        ids_line = [line for line in capsys.readouterr().out.splitlines() if line.startswith("ids")]
        assert len(ids_line) == 1 and said in ids_line[0], ids_line


# -- 9: clean errors, no false ones, the right line -------------------------------------------------
def test_issue21_9_cr_only_line_ends(tmp_path):
    G = dgraph.read(write(tmp_path, "g.csv", "0,1\r1,2\r2,3\r"), directed=True)
    assert edge_set(G) == {(0, 1), (1, 2), (2, 3)}
    with pytest.raises(FileFormatError, match=r"h\.csv:3: expected 2 fields"):
        dgraph.read(write(tmp_path, "h.csv", "0,1\r1,2\r2,3,4\r"))


def test_issue21_9_fields_over_128_kib(tmp_path):
    big = "x" * 200_000
    G = dgraph.read(write(tmp_path, "g.csv", f"{big},b\nb,c\n"), directed=True)
    assert edge_set(G) == {(big, "b"), ("b", "c")}
    with pytest.raises(FileFormatError, match=r"h\.csv:1: vertex id '1' is an integer, but vertex id 'xxxx.*\.\.\. "
                                              r"\(200,000 characters\) \(line 1\) is a name"):
        dgraph.read(write(tmp_path, "h.csv", f"{big},1\n"))
    with pytest.raises(FileFormatError, match=r"i\.csv:2: expected 3 fields"):
        dgraph.read(write(tmp_path, "i.csv", f"0,1,2\n1,{big}\n"))


def test_issue21_9_corrupt_parquet_pages(tmp_path):
    pa, pq = pytest.importorskip("pyarrow"), pytest.importorskip("pyarrow.parquet")
    p = tmp_path / "g.parquet"
    pq.write_table(pa.table({"src": np.arange(5000), "dst": np.arange(5000)[::-1].copy()}), p, compression="snappy")
    data = bytearray(p.read_bytes())
    for i in range(100, 2000, 7):  # scramble the first pages, keep the footer
        data[i] ^= 0x5A
    p.write_bytes(bytes(data))
    with pytest.raises(FileFormatError, match=r"g\.parquet: cannot read the Parquet data"):
        dgraph.read(p)
    p.write_bytes(bytes(data[:len(data) // 2]))  # truncated: no footer
    with pytest.raises(FileFormatError, match="not a readable Parquet file"):
        dgraph.read(p)


def test_issue21_9_valid_inputs_that_were_refused(tmp_path):
    G = dgraph.read(write(tmp_path, "g.el", "\ufeff# a comment\n0 1\n"), directed=True)
    assert edge_set(G) == {(0, 1)}
    G = dgraph.read(write(tmp_path, "t.mtx", "%%MatrixMarket matrix coordinate real general\n"
                                             "3\t3\t2\n1\t2\t1.5\n2\t3\t2.5\n"))
    assert edge_set(G) == {(0, 1, 1.5), (1, 2, 2.5)}
    G = dgraph.read(write(tmp_path, "c.mtx", "%%MatrixMarket matrix coordinate real general\n"
                                             "3 3 2\n% right after the size line\n1 2 1.5\n%\n2 3 2.5\n"))
    assert edge_set(G) == {(0, 1, 1.5), (1, 2, 2.5)}
    write(tmp_path, "w.v", "1\n2\n")
    write(tmp_path, "w.e", "")
    write(tmp_path, "w.properties", "graph.w.directed = false\ngraph.w.edge-properties.names = weight\n")
    G = dgraph.read(tmp_path / "w.e")
    assert G.num_vertices == 2 and G.num_edges == 0 and G.weighted
    assert dgraph.read(write(tmp_path, "e.wel", "# no edges\n")).num_edges == 0


@pytest.mark.parametrize("name, body, line, words", [
    ("nul.el", "0 1\n1 2\x00\n", 2, "a NUL byte"),
    ("nul2.csv", "0,1\n\n2,\x003\n", 3, "a NUL byte"),
    ("empty.csv", "0,1\n1,\n2,3\n", 2, "target is empty"),
    ("empty2.csv", "0,1,1.0\n1,2,\n", 2, "weight is empty"),
    ("first.el", "0 1 x\n1 2 3\n", 1, "weight 'x' is not a number"),
    ("first2.wel", "0 1 nan\n1 2 3\n", 1, "weight 'nan' is not a finite number"),
    ("first3.csv", "src,dst\n0,1,5\n", 2, "expected 2 fields"),
    ("quote.csv", '0,1\n"a,1\n', 2, "a quoted field is not closed on its line"),
])
def test_issue21_9_errors_name_the_right_line(tmp_path, name, body, line, words):
    p = write(tmp_path, name, body)
    with pytest.raises(FileFormatError) as e:
        dgraph.read(p)
    assert e.value.line == line and words in str(e.value), str(e.value)
