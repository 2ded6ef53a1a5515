"""Collectives between the workers of one job: all-reduce and personalized all-to-all.

The exchange schedules (:mod:`dgraph.exchange.schedule`) all-gather one
contribution per partition, which is what a superstep needs.  Building shards
needs two other operations: summing per-vertex counts over every worker
(:meth:`Collective.allreduce`) and sending each worker the edges it owns
(:meth:`Collective.alltoallv`, a different piece to every peer).  Three
implementations with one contract, so a build is written once:

- :class:`NcclCollective`: CuPy arrays GPU to GPU through NCCL (one rank a
  GPU); nothing passes through host memory but the piece sizes.
- :class:`MailboxCollective`: any arrays over Dask's worker comm (TCP, or
  UCX when the cluster uses it), through the spmd executor's mailboxes.
- :class:`SoloCollective`: one rank that sees every source itself (a shard
  rebuilt alone after its worker was lost): all-reduce is the identity and
  all-to-all keeps the piece for this rank.

Every call also carries a status flag: a rank whose local work failed says so
in its next call, every rank learns it in the same call and stops, and so no
rank waits forever on a peer that has given up (:class:`PeerFailed`).
"""

from __future__ import annotations

import itertools
import time

import numpy as np

from ..errors import ExecutorError


class PeerFailed(ExecutorError):
    """Another rank of the job reported a failure; this one stops too."""


class Collective:
    """The contract; ``rank`` in ``0..size-1``."""

    rank: int
    size: int

    def allreduce(self, a, op="sum", failed=False):
        """The element-wise ``op`` ('sum' or 'max') of ``a`` over every rank (a new array)."""
        raise NotImplementedError

    def alltoallv(self, pieces, failed=False):
        """``pieces[j]`` (a tuple of 1-D arrays, the same dtypes and count on every rank) goes to rank
        ``j``; -> the tuples received from every rank, in rank order (this rank's own included)."""
        raise NotImplementedError

    def scalars(self, values, op="max", failed=False):
        """``allreduce`` of a few host numbers (int64); -> a list of ints."""
        from ..backend import to_numpy  # noqa: PLC0415

        out = self.allreduce(self._asarray(np.asarray(values, dtype=np.int64)), op, failed=failed)
        return [int(v) for v in to_numpy(out)]

    def _asarray(self, a):
        return a


def _raise_if(flags, rank):
    bad = [r for r, f in enumerate(flags) if f]
    if bad and rank not in bad:
        raise PeerFailed(f"partition {bad[0]} failed (its own error is reported by the client)")
    if bad:
        raise PeerFailed("this partition failed")


class SoloCollective(Collective):
    """Rank ``rank`` of ``size``, alone: its sources are every source of the job."""

    def __init__(self, rank, size):
        self.rank, self.size = int(rank), int(size)

    def allreduce(self, a, op="sum", failed=False):
        if failed:
            raise PeerFailed("this partition failed")
        return a.copy()

    def alltoallv(self, pieces, failed=False):
        if failed:
            raise PeerFailed("this partition failed")
        mine = pieces[self.rank]
        empty = tuple(a[:0] for a in mine)
        return [mine if j == self.rank else empty for j in range(self.size)]


class NcclCollective(Collective):
    """CuPy arrays through a NCCL communicator (one rank per GPU)."""

    def __init__(self, comm, rank, size):
        self.comm, self.rank, self.size = comm, int(rank), int(size)

    def _asarray(self, a):
        import cupy as cp  # noqa: PLC0415

        return cp.asarray(a)

    def _status(self, failed):
        """All ranks' failure flags (one tiny all-gather); raises PeerFailed when any is set."""
        import cupy as cp  # noqa: PLC0415
        from cupy.cuda import nccl  # noqa: PLC0415

        mine = cp.asarray(np.array([1 if failed else 0], dtype=np.int64))
        every = cp.empty(self.size, dtype=np.int64)
        self.comm.allGather(mine.data.ptr, every.data.ptr, 1, nccl.NCCL_INT64,
                            cp.cuda.get_current_stream().ptr)
        _raise_if(every.get(), self.rank)

    def allreduce(self, a, op="sum", failed=False):
        import cupy as cp  # noqa: PLC0415
        from cupy.cuda import nccl  # noqa: PLC0415

        self._status(failed)
        a = cp.ascontiguousarray(cp.asarray(a))
        out = cp.empty_like(a)
        kinds = {np.dtype(np.int64): nccl.NCCL_INT64, np.dtype(np.int32): nccl.NCCL_INT32,
                 np.dtype(np.float64): nccl.NCCL_FLOAT64, np.dtype(np.float32): nccl.NCCL_FLOAT32}
        ops = {"sum": nccl.NCCL_SUM, "max": nccl.NCCL_MAX}
        if a.size:
            self.comm.allReduce(a.data.ptr, out.data.ptr, a.size, kinds[a.dtype], ops[op],
                                cp.cuda.get_current_stream().ptr)
        return out

    def alltoallv(self, pieces, failed=False):
        import cupy as cp  # noqa: PLC0415
        from cupy.cuda import nccl  # noqa: PLC0415

        p, q = self.size, self.rank
        stream = cp.cuda.get_current_stream().ptr
        # every rank's piece lengths and failure flag: one all-gather, the one host wait of the call
        mine = cp.asarray(np.array([len(pc[0]) for pc in pieces] + [1 if failed else 0], dtype=np.int64))
        table = cp.empty((p, p + 1), dtype=np.int64)
        self.comm.allGather(mine.data.ptr, table.data.ptr, p + 1, nccl.NCCL_INT64, stream)
        table = table.get()
        _raise_if(table[:, p], q)
        dtypes = [a.dtype for a in pieces[q]]
        got = [None] * p
        nccl.groupStart()
        for j in range(p):
            if j == q:
                continue
            for a in pieces[j]:
                if len(a):
                    a = cp.ascontiguousarray(a)
                    self.comm.send(a.data.ptr, a.nbytes, nccl.NCCL_UINT8, j, stream)
            arrays = tuple(cp.empty(int(table[j, q]), dtype=dt) for dt in dtypes)
            for a in arrays:
                if len(a):
                    self.comm.recv(a.data.ptr, a.nbytes, nccl.NCCL_UINT8, j, stream)
            got[j] = arrays
        nccl.groupEnd()
        got[q] = pieces[q]
        return got


class MailboxCollective(Collective):
    """Arrays over Dask's worker comm, through the spmd executor's mailbox on every worker.

    ``placement[r]`` is the address of rank ``r``'s worker; messages are keyed
    by ``(job, 'coll', call number, src, dst)``, so several ranks may share
    one worker and several jobs may run at once.
    """

    def __init__(self, worker, job, rank, placement, timeout=600.0):
        self.worker, self.job = worker, job
        self.rank, self.size = int(rank), len(placement)
        self.placement = list(placement)
        self.timeout = float(timeout)
        self._calls = itertools.count()

    def _swap(self, outgoing):
        """Send ``outgoing[j]`` to every rank j != this one; -> what each sent here (own slot None)."""
        from ..engine.spmd import Cancelled, _mailbox, send_messages  # noqa: PLC0415

        call = next(self._calls)
        q = self.rank
        msgs = [(self.placement[j], (self.job, "coll", call, q, j), outgoing[j])
                for j in range(self.size) if j != q]
        send_messages(self.worker, msgs)
        box = _mailbox(self.worker)
        got = [None] * self.size
        for j in range(self.size):
            if j == q:
                continue
            t0 = time.monotonic()
            try:
                item = box.take((self.job, "coll", call, j, q), self.timeout)
            except Cancelled:
                raise PeerFailed(f"build {self.job} was cancelled") from None
            if item is None:
                raise ExecutorError(f"partition {q} heard nothing from partition {j} (worker "
                                    f"{self.placement[j]}) for {time.monotonic() - t0:.0f} s; that worker may "
                                    f"have died")
            got[j] = item
        return got

    def allreduce(self, a, op="sum", failed=False):
        got = self._swap([(bool(failed), a)] * self.size)
        flags = [bool(failed) if j == self.rank else got[j][0] for j in range(self.size)]
        _raise_if(flags, self.rank)
        # every rank combines the same parts in rank order, so float sums agree bit for bit
        parts = [a if j == self.rank else got[j][1] for j in range(self.size)]
        out = parts[0].copy()
        for x in parts[1:]:
            if op == "sum":
                out += x
            else:
                np.maximum(out, x, out=out)
        return out

    def alltoallv(self, pieces, failed=False):
        got = self._swap([(bool(failed), pc) for pc in pieces])
        flags = [bool(failed) if j == self.rank else got[j][0] for j in range(self.size)]
        _raise_if(flags, self.rank)
        return [pieces[j] if j == self.rank else tuple(got[j][1]) for j in range(self.size)]
