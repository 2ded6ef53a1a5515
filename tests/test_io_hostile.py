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
    r = dgraph.bfs(G, source=2_000_000_000).to_pandas()
    assert dict(zip(r["vertex"], r["depth"])) == {0: 1, 2_000_000_000: 0}
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
