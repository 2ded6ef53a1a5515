"""The in-edge index built in chunks equals one stable sort by target, on both backends."""

import numpy as np
import pytest

import dgraph
from dgraph.backend import get_xp, to_numpy
from dgraph.graph.csc import build_csc


def _random_csr(rng, n, m):
    src = np.sort(rng.integers(0, n, m))
    dst = rng.integers(0, n, m).astype(np.int32)
    indptr = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(src, minlength=n), out=indptr[1:])
    return indptr, dst, src


@pytest.mark.parametrize("seed", range(40))
def test_chunked_csc_equals_stable_sort(backend, seed):
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(1, 80)), int(rng.integers(0, 500))
    indptr, dst, src = _random_csr(rng, n, m)
    order = np.lexsort((np.arange(m), dst))  # by target, then CSR position
    xp = get_xp(backend)
    for chunk in (1, 3, 17, 10**9):
        cptr, sources, eids = (to_numpy(a) for a in build_csc(xp.asarray(indptr), xp.asarray(dst), n,
                                                              edge_ids=True, chunk_arcs=chunk))
        assert np.array_equal(cptr, np.concatenate([[0], np.cumsum(np.bincount(dst, minlength=n))]))
        assert np.array_equal(eids, order) and np.array_equal(sources, src[order])
        assert sources.dtype == dst.dtype and eids.dtype == dst.dtype
    assert build_csc(xp.asarray(indptr), xp.asarray(dst), n, edge_ids=False, chunk_arcs=5)[2] is None


def test_graph_csc_matches_scipy():
    G = dgraph.generate("rmat", scale=9, directed=True, seed=3)
    cptr, sources, _ = G.csc()
    ref = G.to_scipy().tocsc()
    ref.sort_indices()
    assert np.array_equal(cptr, ref.indptr) and np.array_equal(sources, ref.indices)
