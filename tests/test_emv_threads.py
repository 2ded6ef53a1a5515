"""The threaded message combines (dgraph/emv/kernels.py: rows cut into edge-balanced blocks,
:func:`~dgraph.jit.row_block`, dealt out to the threads): every row is combined by
one thread in buffer order, so the results are the bits of a serial loop whatever the thread count.

The kernels take the thread count as an argument, so 1-4 "threads" (and their 8-32 blocks) are
checked here on any machine against a plain Python loop; float sums of random values tell a changed
order apart.  End to end, EMV PageRank and BFS-Q give the same bits on one numba thread as on all of
them, on the odd and random graphs of the corpus with 1-4 partitions."""

import numba
import numpy as np
import pytest
from graphs import corpus, partition_targets

import dgraph
from dgraph.jit import row_block
from dgraph.emv import examples as ex
from dgraph.emv import fuse, kernels
from dgraph.emv.frame import parse_combiner

THREADS = (1, 2, 3, 4)


def _indptrs():
    """Segment layouts: none, one empty, one, empties around a hub, a hub holding most edges, more
    blocks than rows, and random skewed ones (a few segments with most of the edges)."""
    yield "no-rows", np.zeros(1, np.int64)
    yield "one-empty-row", np.zeros(2, np.int64)
    yield "one-row", np.array([0, 7], np.int64)
    yield "empties-and-a-hub", np.array([0, 0, 0, 50, 50, 51, 51], np.int64)
    yield "hub-first", np.array([0, 200, 201, 202, 204, 204], np.int64)
    yield "fewer-rows-than-blocks", np.array([0, 1, 3, 6], np.int64)
    rng = np.random.default_rng(5)
    for i in range(6):
        n = int(rng.integers(1, 120))
        deg = rng.integers(0, 4, n)
        deg[rng.integers(0, n, 3)] += rng.integers(0, 400, 3)  # hubs
        indptr = np.zeros(n + 1, np.int64)
        np.cumsum(deg, out=indptr[1:])
        yield f"random-{i}", indptr


def _combine(op, acc, v):
    return acc + v if op == 0 else (v if v < acc else acc) if op == 1 else (v if v > acc else acc)


def _serial_gather(indptr, indices, x, hmask, tmask, op, ident, bound):
    """The gather as one loop in row order (the kernel's serial meaning)."""
    n = len(indptr) - 1
    out, counts = np.full(n, ident, x.dtype), np.zeros(n, np.int32)
    for t in range(n):
        if tmask is not None and not tmask[t]:
            continue
        acc, c = x.dtype.type(ident), 0
        for j in range(indptr[t], indptr[t + 1]):
            h = indices[j]
            if hmask is not None and not hmask[h]:
                continue
            acc, c = _combine(op, acc, x[h]), c + 1
            if bound is not None and acc == bound:
                break
        out[t], counts[t] = acc, c
    return out, counts


@pytest.mark.parametrize("T", THREADS)
def test_row_blocks_cover_every_row_once_in_order(T):
    for label, indptr in _indptrs():
        n = len(indptr) - 1
        B = T * kernels.BLOCKS_PER_THREAD
        blocks = [row_block(indptr, b, B) for b in range(B)]
        assert blocks[0][0] == 0 and blocks[-1][1] == max(n, 0), label
        for (a0, a1), (b0, b1) in zip(blocks, blocks[1:]):
            assert a0 <= a1 == b0 <= b1, label
        if n and indptr[-1]:  # no block holds much more than its share, besides the one row that crosses it
            share = indptr[-1] / B
            biggest_row = int(np.diff(indptr).max())
            for r0, r1 in blocks:
                assert indptr[r1] - indptr[r0] <= share + biggest_row + 1, label


@pytest.mark.parametrize("T", THREADS)
@pytest.mark.parametrize("op", [0, 1, 2], ids=["sum", "min", "max"])
def test_threaded_gather_same_bits_as_a_serial_loop(T, op):
    rng = np.random.default_rng(10 + op)
    for label, indptr in _indptrs():
        n, m = len(indptr) - 1, int(indptr[-1])
        heads = max(n, 1)
        indices = rng.integers(0, heads, m).astype(np.int32)
        x = rng.random(heads) * 1e3 if op == 0 else rng.integers(0, 5, heads).astype(np.float64)
        ident = np.float64(0.0 if op == 0 else np.inf if op == 1 else -np.inf)
        for hmask, tmask, early in ((None, None, False), (rng.random(heads) < 0.6, rng.random(n) < 0.7, op > 0)):
            bound = None
            if early and (hmask.any()):
                bound = x[hmask].min() if op == 1 else x[hmask].max()
            ref = _serial_gather(indptr, indices, x, hmask, tmask, op, ident, bound)
            out, counts = np.empty(n), np.empty(n, np.int32)
            none = np.zeros(1, bool)
            kernels._gather_reduce_cpu(indptr, indices, x, none if hmask is None else hmask, hmask is not None,
                                       none if tmask is None else tmask, tmask is not None, op, ident, out, counts,
                                       bound is not None, ident if bound is None else bound, T)
            np.testing.assert_array_equal(out, ref[0], err_msg=f"{label} T={T}")
            np.testing.assert_array_equal(counts, ref[1], err_msg=f"{label} T={T}")


@pytest.mark.parametrize("T", THREADS)
def test_threaded_segment_reduce_same_bits_as_a_serial_loop(T):
    rng = np.random.default_rng(20)
    for label, indptr in _indptrs():
        n, m = len(indptr) - 1, int(indptr[-1])
        vals = rng.random(m) * 1e3
        valid = rng.random(m) < 0.7
        ref = np.zeros(n)
        for t in range(n):
            acc = 0.0
            for j in range(indptr[t], indptr[t + 1]):
                if valid[j]:
                    acc += vals[j]
            ref[t] = acc
        out, counts = np.empty(n), np.empty(n, np.int32)
        kernels._seg_reduce_cpu(indptr, vals, valid, True, 0, 0.0, out, counts, T)
        np.testing.assert_array_equal(out, ref, err_msg=f"{label} T={T}")
        np.testing.assert_array_equal(counts, [valid[indptr[t]:indptr[t + 1]].sum() for t in range(n)])


def test_entry_points_take_the_thread_count(monkeypatch):
    """segment_reduce / gather_reduce on one numba thread and on all: the same bits."""
    rng = np.random.default_rng(30)
    indptr = np.array([0, 0, 300, 301, 310, 600], np.int64)
    indices = rng.integers(0, 5, 600)
    x = rng.random(5) * 1e6
    comb = parse_combiner("sum", np.dtype("f8"))
    outs = []
    for t in sorted({1, numba.config.NUMBA_NUM_THREADS}):
        numba.set_num_threads(t)
        try:
            outs.append((kernels.gather_reduce(np, comb, indptr, indices, x)[0].copy(),
                         kernels.segment_reduce(np, comb, indptr, x[indices])[0].copy()))
        finally:
            numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    for a, b in zip(outs[0], outs[-1]):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(outs[0][0], outs[0][1])



def _on_threads(t, fn):
    numba.set_num_threads(t)
    try:
        return fn()
    finally:
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)


@pytest.mark.parametrize("fuse_min", [0, fuse.FUSE_MIN], ids=["fused", "vectorized-small"])
def test_programs_same_bits_on_one_thread_and_all(monkeypatch, fuse_min):
    monkeypatch.setattr(fuse, "FUSE_MIN", fuse_min)
    many = numba.config.NUMBA_NUM_THREADS
    for label, kw in corpus(24, seed=23):
        G = dgraph.from_edges(**kw)
        n = G.num_vertices
        ref = dgraph.pagerank(G, iterations=15).pagerank
        for where, T, _ in partition_targets(G):
            runs = [_on_threads(t, lambda: ex.pagerank(T, iterations=15).rank) for t in (1, many)]
            np.testing.assert_array_equal(runs[0], runs[1], err_msg=f"{label} {where}")
            np.testing.assert_allclose(runs[1], ref, rtol=0, atol=1e-9, err_msg=f"{label} {where}")
            if n:
                src = G.vertex_ids()[n // 2]
                depth = dgraph.bfs(G, src).depth
                for t in (1, many):
                    np.testing.assert_array_equal(_on_threads(t, lambda: ex.bfs(T, src).depth), depth,
                                                  err_msg=f"{label} {where} threads={t}")
