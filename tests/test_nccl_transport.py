"""The NCCL transport's own logic (dgraph/engine/nccl_transport.py) on the CPU.

CuPy and NCCL are replaced by a stand-in: host arrays that answer ``.data.ptr`` and ``.get()``, and a
communicator per rank whose ``send`` queues the bytes for the peer and whose ``recv`` takes the
next ones from that peer and checks their length.  That is NCCL's own rule for point-to-point calls
between two ranks (they match in order, with equal sizes), so every exchange, size round, routed
part, gather and range copy is checked for the order and sizes of its calls, and its results
against what each rank sent, without a GPU.  The ranks run in threads, as on their workers.
"""

import ctypes
import queue
import sys
import threading
import types

import numpy as np
import pytest

from dgraph.engine.program import Contribution
from dgraph.exchange import parse_exchange


class _Array(np.ndarray):
    """A host array in the place of a CuPy one: its address as ``.data.ptr``, ``.get()`` a copy."""

    @property
    def data(self):
        return types.SimpleNamespace(ptr=self.ctypes.data)

    def get(self):
        return np.array(self)


def _array(values, dtype=None):
    return np.array(values, dtype=dtype).view(_Array)


def _unset(shape, dtype=float):
    """A new array of bytes 0x5A (what was not received shows)."""
    dtype = np.dtype(dtype)
    count = int(np.prod(shape))
    return np.frombuffer(b"\x5a" * (count * dtype.itemsize), dtype=dtype).reshape(shape).copy().view(_Array)


@pytest.fixture
def fake_cupy(monkeypatch):
    cp, cuda, nccl = (types.ModuleType(n) for n in ("cupy", "cupy.cuda", "cupy.cuda.nccl"))
    cp.asarray = _array
    cp.empty = _unset
    cp.empty_like = lambda a: _unset(np.shape(a), np.asarray(a).dtype)
    cp.cuda, cuda.nccl = cuda, nccl
    cuda.get_current_stream = lambda: types.SimpleNamespace(ptr=0)
    nccl.groupStart = nccl.groupEnd = lambda: None
    nccl.NCCL_UINT8 = 0
    for name, module in (("cupy", cp), ("cupy.cuda", cuda), ("cupy.cuda.nccl", nccl)):
        monkeypatch.setitem(sys.modules, name, module)


class _Comm:
    """One rank's end of the stand-in network: a FIFO of byte strings for each (sender, receiver)."""

    def __init__(self, lines, rank):
        self.lines, self.rank = lines, rank

    def send(self, ptr, nbytes, dtype, peer, stream):
        self.lines[self.rank, peer].put(ctypes.string_at(ptr, nbytes))

    def recv(self, ptr, nbytes, dtype, peer, stream):
        got = self.lines[peer, self.rank].get(timeout=10)
        assert len(got) == nbytes, f"rank {self.rank} expected {nbytes} bytes from {peer}, {len(got)} came"
        ctypes.memmove(ptr, got, nbytes)


def _on_ranks(schedule, work):
    """``work(transport, q)`` on every rank of ``schedule`` at once; -> each rank's answer."""
    from dgraph.engine.nccl_transport import NcclTransport

    p = schedule.p
    lines = {(a, b): queue.Queue() for a in range(p) for b in range(p)}
    out, errors = [None] * p, []

    def run(q):
        try:
            out[q] = work(NcclTransport(_Comm(lines, q), schedule, q), q)
        except Exception as e:  # noqa: BLE001 - raised below, on the test's thread
            errors.append(e)

    threads = [threading.Thread(target=run, args=(q,)) for q in range(p)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    if errors:
        raise errors[0]
    assert all(not line.qsize() for line in lines.values()), "bytes sent that nobody received"
    return out


def _mine(q):
    """Rank q's contribution: arrays of lengths that differ by rank (rank 0's second one empty)."""
    return Contribution({"a": _array(np.arange(q + 1) * 10 + q, np.int64), "b": _array(np.full(q, q / 2))},
                        {"n": q, "x": q + 0.25})


def _same(got, want):
    assert sorted(got.arrays) == sorted(want.arrays)
    for k in want.arrays:
        np.testing.assert_array_equal(np.asarray(got.arrays[k]), np.asarray(want.arrays[k]))
        assert np.asarray(got.arrays[k]).dtype == np.asarray(want.arrays[k]).dtype
    assert got.counters == want.counters


def _everyone_has_all(got, mine, p):
    """Each of the ``p`` ranks' answers holds every rank's contribution ``mine(q)``, in rank order."""
    assert len(got) == p and all(len(everyone) == p for everyone in got)
    for everyone in got:
        for q, c in enumerate(everyone):
            _same(c, mine(q))
    return True


@pytest.mark.parametrize("p", [2, 3, 4, 5])
@pytest.mark.parametrize("kind,fanout", [("butterfly", None), ("butterfly", 2), ("all-to-all", None)])
def test_exchange_gives_every_rank_every_contribution(fake_cupy, p, kind, fanout):
    schedule = parse_exchange(kind, fanout, p=p)
    assert _everyone_has_all(_on_ranks(schedule, lambda t, q: t.exchange(_mine(q))), _mine, p)


@pytest.mark.parametrize("p", [2, 3, 5])
def test_fixed_exchange(fake_cupy, p):
    schedule = parse_exchange("butterfly", 2, p=p)

    def mine(q):
        return Contribution({"bits": _array(np.full(6, q + 1), np.uint32), "tally": _array([q, 2 * q], np.int64)},
                            fixed=True)

    assert _everyone_has_all(_on_ranks(schedule, lambda t, q: t.exchange(mine(q))), mine, p)


@pytest.mark.parametrize("p", [2, 3, 4])
def test_routed_exchange_delivers_each_rank_its_part(fake_cupy, p):
    schedule = parse_exchange("butterfly", None, p=p)

    def part(src, dst):  # what src routes to dst (nothing to itself; some pairs send nothing)
        k = 0 if src == dst else (src + 2 * dst) % 3
        return {"v": _array(np.arange(k) + 100 * src + dst, np.int32), "d": _array(np.full(k, src + dst / 10))}

    def work(t, q):
        return t.exchange(Contribution({}, {"edges": 7 * q}, routes=[part(q, j) for j in range(p)]))

    answers = _on_ranks(schedule, work)
    sent = [sum(a.nbytes for j in range(p) for a in part(o, j).values()) for o in range(p)]
    for q, everyone in enumerate(answers):
        for o, c in enumerate(everyone):
            assert c.counters == {"edges": 7 * o} and c.sent == sent[o]
            if o != q:
                _same(c, Contribution(part(o, q), {"edges": 7 * o}))


@pytest.mark.parametrize("p", [2, 3])
def test_gather_on_root(fake_cupy, p):
    answers = _on_ranks(parse_exchange("butterfly", None, p=p), lambda t, q: t.gather(_mine(q)))
    assert answers[1:] == [None] * (p - 1)
    for q, c in enumerate(answers[0]):
        _same(c, _mine(q))


@pytest.mark.parametrize("bounds", [[0, 3, 3, 8], [0, 5, 9], [0, 0, 2, 2, 7]])
def test_gather_ranges(fake_cupy, bounds):
    p, n = len(bounds) - 1, bounds[-1]
    want = np.arange(n, dtype=np.float64) * 1.5

    def work(t, q):
        a = _array(np.full(n, -1.0))
        a[bounds[q]:bounds[q + 1]] = want[bounds[q]:bounds[q + 1]]
        t.gather_ranges(a, bounds)
        return np.array(a)

    for got in _on_ranks(parse_exchange("butterfly", None, p=p), work):
        np.testing.assert_array_equal(got, want)
