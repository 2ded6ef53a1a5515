"""The GPU bitmap union of a partitioned BFS superstep equals the array computation it replaces."""

import numpy as np
import pytest

from dgraph.backend import gpu_available

pytestmark = pytest.mark.gpu


@pytest.fixture(autouse=True)
def _need_gpu():
    if not gpu_available():
        pytest.skip("no usable CUDA GPU / CuPy")


@pytest.mark.parametrize("seed", range(30))
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_union_matches_numpy(seed, dtype):
    import cupy as cp

    from dgraph.algorithms.bfs.union import FrontierUnion

    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 3000))
    row_base = int(rng.integers(0, n))
    num_rows = int(rng.integers(0, n - row_base + 1))
    labels = rng.integers(-1, 3, n).astype(np.int32)
    degree = rng.integers(0, 50, n).astype(np.int64)
    parts, union = [], np.zeros(n, bool)
    u = FrontierUnion(n, dtype, row_base, num_rows)
    for _ in range(int(rng.integers(1, 5))):
        ids = np.unique(rng.integers(0, n, int(rng.integers(0, n // 2 + 2)))).astype(dtype)
        union[ids] = True
        if rng.random() < 0.5:
            bits = u.bits(cp.asarray(ids))
            assert np.array_equal(cp.asnumpy(bits), np.packbits(np.isin(np.arange(n), ids)))
            parts.append((cp.empty(0, dtype=dtype), bits))
        else:
            parts.append((cp.asarray(ids), cp.empty(0, dtype=np.uint8)))
    dl = cp.asarray(labels)
    new, degsum, rows, owned_deg = u.union(parts, dl, 7, cp.asarray(degree))
    _check_frontier(u, (new, degsum, rows, owned_deg), dl, union, labels, degree, 7, dtype, row_base, num_rows)


def _check_frontier(u, got, dl, union, labels, degree, level, dtype, row_base, num_rows):
    """A union's frontier against numpy: the sorted ids, their degree sum, the labels set, the byte
    mask and the owned rows."""
    import cupy as cp

    new, degsum, rows, owned_deg = got
    want = np.flatnonzero(union)
    want_labels = labels.copy()
    want_labels[want[labels[want] < 0]] = level
    assert np.array_equal(cp.asnumpy(new), want) and new.dtype == dtype
    assert degsum == int(degree[want].sum())
    assert np.array_equal(cp.asnumpy(dl), want_labels)
    assert np.array_equal(cp.asnumpy(u.fmask).astype(bool), union)
    own = want[(want >= row_base) & (want < row_base + num_rows)]
    if num_rows:
        assert np.array_equal(cp.asnumpy(rows), own - row_base) and owned_deg == int(degree[own].sum())
    else:
        assert rows is None


@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_fixed_union_matches_numpy(seed, dtype):
    """send_bits and union_fixed (the fixed-size exchange of bfs_bitmap_exchange): the claimed ids of
    each shard given only as a queue and a count on the device, the tallies read back with the union."""
    import cupy as cp

    from dgraph.algorithms.bfs.union import FrontierUnion

    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(1, 5000))
    row_base = int(rng.integers(0, n))
    num_rows = int(rng.integers(0, n - row_base + 1))
    labels = rng.integers(-1, 3, n).astype(np.int32)
    degree = rng.integers(0, 50, n).astype(np.int64)
    u = FrontierUnion(n, dtype, row_base, num_rows)
    union, bitmaps, tallies, scanned = np.zeros(n, bool), [], [], 0
    for _ in range(int(rng.integers(1, 5))):
        ids = rng.permutation(np.unique(rng.integers(0, n, int(rng.integers(0, n // 2 + 2))))).astype(dtype)
        union[ids] = True
        queue = cp.asarray(np.concatenate([ids, rng.integers(0, n, 7).astype(dtype)]))  # junk past the count
        counters = cp.asarray(np.array([len(ids), 5, 11, 0], dtype=np.uint64))
        known = int(rng.integers(0, 100)) if rng.random() < 0.5 else None  # push knows its edges
        words, tally = u.send_bits(queue, counters, known)
        assert np.array_equal(cp.asnumpy(words.view(cp.uint8))[: -(-n // 8)],
                              np.packbits(np.isin(np.arange(n), ids)))
        scanned += 11 if known is None else known
        bitmaps.append(words)
        tallies.append(tally)
    dl = cp.asarray(labels)
    for dense in (False, True):
        dl[...] = cp.asarray(labels)
        *got, got_scanned = u.union_fixed(bitmaps, tallies, dl, 3, cp.asarray(degree), dense)
        assert got_scanned == scanned
        _check_frontier(u, got, dl, union, labels, degree, 3, dtype, row_base, num_rows)


@pytest.mark.parametrize("seed", range(12))
def test_mark_after_a_pull_matches_numpy(seed):
    """FrontierUnion.mark (a pull after a pull): the byte mask of the union and the level of every
    vertex in it that had none; totals sums the tallies."""
    import cupy as cp

    from dgraph.algorithms.bfs.union import FrontierUnion

    rng = np.random.default_rng(300 + seed)
    n = int(rng.integers(1, 5000)) if seed else 64  # 64: whole words only
    labels = rng.integers(-1, 3, n).astype(np.int32)
    u = FrontierUnion(n, np.int32, 0, n)
    union, bitmaps, tallies = np.zeros(n, bool), [], []
    for q in range(int(rng.integers(1, 5))):
        ids = np.unique(rng.integers(0, n, int(rng.integers(0, n // 2 + 2)))).astype(np.int32)
        union[ids] = True
        counters = cp.asarray(np.array([len(ids), 10 * q, 3, 0], dtype=np.uint64))
        words, tally = u.send_bits(cp.asarray(ids), counters)
        bitmaps.append(words)
        tallies.append(tally)
    dl = cp.asarray(labels)
    mask = u.mark(bitmaps, dl, 4)
    assert np.array_equal(cp.asnumpy(mask).astype(bool), union)
    want = labels.copy()
    want[union & (labels < 0)] = 4
    assert np.array_equal(cp.asnumpy(dl), want)
    t = np.array([cp.asnumpy(x) for x in tallies]).astype(np.int64).sum(axis=0)
    assert u.totals(tallies) == (int(t[0]), int(t[1]), int(t[2]))
