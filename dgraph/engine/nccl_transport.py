"""NCCL transport for the spmd executor: the exchange schedule as GPU-to-GPU send/recv.

One rank per GPU (one shard per worker).  Each round of the schedule is two
NCCL groups: the sizes of what each transfer carries (array lengths and the
counters of each forwarded origin, as one small device vector), then the
arrays themselves as bytes; a routed contribution (``Contribution.routes``) goes
straight to each peer, each its own part, in the same two groups.
``gather_ranges`` copies each rank's vertex range of an array to the others.
``gather`` brings every contribution to one
rank (a run's final exchange when only shard 0's result is read).  Everything is issued on the current CuPy
stream, so kernels that read what arrived are ordered after it; the host
waits only to learn the sizes.  Communicators are cached on the worker by
their unique id, so repeated runs skip NCCL's set-up.
"""

from __future__ import annotations

import numpy as np

from .program import Contribution

_COMMS = {}


def unique_id():
    """A NCCL unique id (bytes in CuPy 14), made on one worker and shipped to all ranks."""
    from cupy.cuda import nccl  # noqa: PLC0415

    uid = nccl.get_unique_id()
    return bytes(uid) if isinstance(uid, (bytearray, memoryview)) else uid


#: run or build job -> the uid of the communicator it is using on this worker (to abort it)
_IN_USE = {}


def communicator(uid, p, rank, job=None):
    """The NCCL communicator for (uid, rank), created once per worker process; ``job`` marks it as
    used by that run, so :func:`abort` can break a rank out of a collective its peer left."""
    comm = _COMMS.get(uid)
    if comm is None:
        from cupy.cuda import nccl  # noqa: PLC0415

        comm = nccl.NcclCommunicator(p, uid, rank)
        _COMMS[uid] = comm
    if job is not None:
        _IN_USE[job] = uid
    return comm


def release(job):
    """``job`` ended normally: its communicator stays cached for the next one."""
    _IN_USE.pop(job, None)


def abort(job):
    """A peer of ``job`` failed: abort the communicator it uses here (a rank blocked in one of its
    collectives returns with an error instead of waiting forever) and forget it; the next run makes
    a new one.  True when there was one to abort."""
    uid = _IN_USE.pop(job, None)
    if uid is None:
        return False
    comm = _COMMS.pop(uid, None)
    if comm is not None:
        try:
            comm.abort()
        except Exception:  # noqa: BLE001 - already broken or destroyed: nothing left to unblock
            pass
    return True


class NcclTransport:
    def __init__(self, comm, schedule, rank):
        self.comm = comm
        self.q = rank
        self.p = schedule.p
        self.sends = [[t for t in rnd if t.src == rank] for rnd in schedule.rounds]
        self.recvs = [[t for t in rnd if t.dst == rank] for rnd in schedule.rounds]

    def exchange(self, mine: Contribution, step=None):
        """Every partition's contribution (this one's included), in partition order."""
        import cupy as cp  # noqa: PLC0415
        from cupy.cuda import nccl  # noqa: PLC0415

        stream = cp.cuda.get_current_stream().ptr
        if mine.routes is not None:
            return self._exchange_routed(mine, stream)
        names = sorted(mine.arrays)
        if mine.fixed:
            return self._exchange_fixed(mine, names, stream)
        keys = sorted(mine.counters)
        dtypes = {k: mine.arrays[k].dtype for k in names}
        width = len(names) + len(keys)
        held = {self.q: mine}
        for k in range(len(self.sends)):
            sends, recvs = self.sends[k], self.recvs[k]
            out_meta = [cp.asarray(np.array([_sizes(held[o].arrays, held[o].counters, names, keys) for o in t.origins],
                                            dtype=np.float64)) for t in sends]
            in_meta = [cp.empty((len(t.origins), width), dtype=np.float64) for t in recvs]
            nccl.groupStart()
            for t, buf in zip(sends, out_meta):
                self.comm.send(buf.data.ptr, buf.nbytes, nccl.NCCL_UINT8, t.dst, stream)
            for t, buf in zip(recvs, in_meta):
                self.comm.recv(buf.data.ptr, buf.nbytes, nccl.NCCL_UINT8, t.src, stream)
            nccl.groupEnd()
            got_meta = [m.get() for m in in_meta]  # the one host wait of the round
            arrived = []
            nccl.groupStart()
            self._send_held(held, sends, names, stream)
            for t, m in zip(recvs, got_meta):
                for row, o in zip(m, t.origins):
                    arrays = self._recv_into(_sized(row, names, dtypes), t.src, stream)
                    arrived.append((o, Contribution(arrays, _counters(row, names, keys))))
            nccl.groupEnd()
            held.update(arrived)
        return [held[i] for i in range(self.p)]


    def _send_held(self, held, sends, names, stream):
        """The sends of one round (inside its NCCL group): every array of every origin a transfer
        forwards, as bytes; empty arrays are not sent (their receivers know they are empty)."""
        for t in sends:
            for o in t.origins:
                self._send_from(held[o].arrays, names, t.dst, stream)

    def _send_from(self, arrays, names, dst, stream):
        """Inside an NCCL group: the non-empty arrays among ``names`` of ``arrays``, in that order, to
        ``dst`` as bytes (:meth:`_recv_into` on the other side receives them)."""
        from cupy.cuda import nccl  # noqa: PLC0415

        for name in names:
            a = arrays[name]
            if len(a):
                self.comm.send(a.data.ptr, a.nbytes, nccl.NCCL_UINT8, dst, stream)

    def _recv_into(self, arrays, src, stream):
        """Inside an NCCL group: each non-empty array of ``arrays`` (made to the sizes the sender's
        told, in its order) filled from ``src``; -> ``arrays``."""
        from cupy.cuda import nccl  # noqa: PLC0415

        for a in arrays.values():
            if len(a):
                self.comm.recv(a.data.ptr, a.nbytes, nccl.NCCL_UINT8, src, stream)
        return arrays

    def _exchange_fixed(self, mine, names, stream):
        """:meth:`exchange` of a fixed contribution (:attr:`Contribution.fixed`): every peer's arrays
        have the shapes of this one's, so each round is one NCCL group and the host never waits."""
        import cupy as cp  # noqa: PLC0415
        from cupy.cuda import nccl  # noqa: PLC0415

        held = {self.q: mine}
        for sends, recvs in zip(self.sends, self.recvs):
            arrived = []
            nccl.groupStart()
            self._send_held(held, sends, names, stream)
            for t in recvs:
                for o in t.origins:
                    arrays = self._recv_into({name: cp.empty_like(mine.arrays[name]) for name in names}, t.src, stream)
                    arrived.append((o, Contribution(arrays, {}, fixed=True)))
            nccl.groupEnd()
            held.update(arrived)
        return [held[i] for i in range(self.p)]

    def _exchange_routed(self, mine, stream):
        """:meth:`exchange` of a routed contribution (:attr:`Contribution.routes`): straight to each
        peer what is routed to it, whatever the schedule (nothing is forwarded), in two NCCL groups:
        the sizes and counters, then the arrays."""
        import cupy as cp  # noqa: PLC0415
        from cupy.cuda import nccl  # noqa: PLC0415

        peers = [o for o in range(self.p) if o != self.q]
        routes = mine.routes
        if len(routes) != self.p:
            raise ValueError(f"a routed contribution has {len(routes)} routes for {self.p} shards")
        names = sorted(routes[peers[0]]) if peers else []
        dtypes = {k: routes[peers[0]][k].dtype for k in names} if peers else {}
        keys = sorted(mine.counters)
        sent = sum(int(routes[o][k].nbytes) for o in peers for k in names)
        width = len(names) + len(keys) + 1
        out_meta = {o: cp.asarray(np.array(_sizes(routes[o], mine.counters, names, keys) + [float(sent)],
                                           dtype=np.float64)) for o in peers}
        in_meta = {o: cp.empty(width, dtype=np.float64) for o in peers}
        nccl.groupStart()
        for o in peers:
            self.comm.send(out_meta[o].data.ptr, out_meta[o].nbytes, nccl.NCCL_UINT8, o, stream)
            self.comm.recv(in_meta[o].data.ptr, in_meta[o].nbytes, nccl.NCCL_UINT8, o, stream)
        nccl.groupEnd()
        got = {o: m.get() for o, m in in_meta.items()}  # the one host wait
        held = {self.q: Contribution(mine.arrays, mine.counters, sent=sent)}
        nccl.groupStart()
        for o in peers:
            self._send_from(routes[o], names, o, stream)
            arrays = self._recv_into(_sized(got[o], names, dtypes), o, stream)
            held[o] = Contribution(arrays, _counters(got[o], names, keys), sent=int(got[o][-1]))
        nccl.groupEnd()
        return [held[i] for i in range(self.p)]

    def gather_ranges(self, array, bounds):
        """Every rank's range ``[bounds[q], bounds[q+1])`` of ``array`` copied from rank q into every
        other rank's ``array``, in place: one NCCL group of sends and receives, no host wait
        (:attr:`dgraph.engine.program.StepContext.gather_ranges`)."""
        import cupy as cp  # noqa: PLC0415
        from cupy.cuda import nccl  # noqa: PLC0415

        if len(bounds) != self.p + 1 or bounds[0] != 0 or bounds[-1] != array.size or not array.flags.c_contiguous:
            raise ValueError(f"gather_ranges: bounds {list(bounds)} for {self.p} ranks of an array of {array.size}")
        ptr, size, stream = array.data.ptr, array.itemsize, cp.cuda.get_current_stream().ptr
        lo, hi = int(bounds[self.q]), int(bounds[self.q + 1])
        nccl.groupStart()
        for o in range(self.p):
            if o == self.q:
                continue
            if hi > lo:
                self.comm.send(ptr + lo * size, (hi - lo) * size, nccl.NCCL_UINT8, o, stream)
            olo, ohi = int(bounds[o]), int(bounds[o + 1])
            if ohi > olo:
                self.comm.recv(ptr + olo * size, (ohi - olo) * size, nccl.NCCL_UINT8, o, stream)
        nccl.groupEnd()

    def share(self, data):
        """Every rank's ``data`` (bytes of the same length on every rank), in rank order: one NCCL
        all-gather and one read (:attr:`dgraph.engine.program.StepContext.share`)."""
        import cupy as cp  # noqa: PLC0415
        from cupy.cuda import nccl  # noqa: PLC0415

        n = len(data)
        send = cp.asarray(np.frombuffer(bytes(data), dtype=np.uint8))
        recv = cp.empty(n * self.p, dtype=cp.uint8)
        self.comm.allGather(send.data.ptr, recv.data.ptr, n, nccl.NCCL_UINT8, cp.cuda.get_current_stream().ptr)
        got = recv.get().tobytes()
        return [got[i * n:(i + 1) * n] for i in range(self.p)]

    def gather(self, mine: Contribution, root=0):
        """Every partition's contribution on ``root`` (in partition order; None elsewhere): one
        size round and one data round, each a single NCCL group."""
        import cupy as cp  # noqa: PLC0415
        from cupy.cuda import nccl  # noqa: PLC0415

        names, keys = sorted(mine.arrays), sorted(mine.counters)
        dtypes = {k: mine.arrays[k].dtype for k in names}
        width = len(names) + len(keys)
        stream = cp.cuda.get_current_stream().ptr
        others = [o for o in range(self.p) if o != root]
        if self.q != root:
            meta = cp.asarray(np.array(_sizes(mine.arrays, mine.counters, names, keys), dtype=np.float64))
            self.comm.send(meta.data.ptr, meta.nbytes, nccl.NCCL_UINT8, root, stream)
            nccl.groupStart()
            self._send_from(mine.arrays, names, root, stream)
            nccl.groupEnd()
            return None
        metas = {o: cp.empty(width, dtype=np.float64) for o in others}
        nccl.groupStart()
        for o in others:
            self.comm.recv(metas[o].data.ptr, metas[o].nbytes, nccl.NCCL_UINT8, o, stream)
        nccl.groupEnd()
        got = {o: m.get() for o, m in metas.items()}
        held = {root: mine}
        nccl.groupStart()
        for o in others:
            held[o] = Contribution(self._recv_into(_sized(got[o], names, dtypes), o, stream),
                                   _counters(got[o], names, keys))
        nccl.groupEnd()
        return [held[i] for i in range(self.p)]


    def reduce_min(self, array, root=None, bounds=None):
        """``array`` becomes the element-wise minimum of every rank's ``array``, in place: on ``root``
        alone (the others' are left as they were), on every rank when ``root`` is None, or, with
        ``bounds`` (p + 1 offsets), each rank's range ``[bounds[q], bounds[q+1])`` on rank q alone:
        one reduction a range in one NCCL group, half the bytes of an all-reduce at p = 2.  No host
        wait."""
        import cupy as cp  # noqa: PLC0415
        from cupy.cuda import nccl  # noqa: PLC0415

        types = {np.dtype(np.int32): nccl.NCCL_INT32, np.dtype(np.int64): nccl.NCCL_INT64,
                 np.dtype(np.float32): nccl.NCCL_FLOAT32, np.dtype(np.float64): nccl.NCCL_FLOAT64}
        kind = types[np.dtype(array.dtype)]
        ptr, stream = array.data.ptr, cp.cuda.get_current_stream().ptr
        if bounds is not None:
            if root is not None or len(bounds) != self.p + 1 or bounds[0] != 0 or bounds[-1] != array.size:
                raise ValueError(f"reduce_min: bounds {list(bounds)} for {self.p} ranks of an array of {array.size}")
            nccl.groupStart()
            for q in range(self.p):
                lo, hi = int(bounds[q]), int(bounds[q + 1])
                if hi > lo:
                    at = ptr + lo * array.itemsize
                    self.comm.reduce(at, at, hi - lo, kind, nccl.NCCL_MIN, q, stream)
            nccl.groupEnd()
        elif root is None:
            self.comm.allReduce(ptr, ptr, array.size, kind, nccl.NCCL_MIN, stream)
        else:
            self.comm.reduce(ptr, ptr, array.size, kind, nccl.NCCL_MIN, root, stream)


def _sizes(arrays, counters, names, keys):
    """A contribution's size row: its arrays' lengths (``names``' order), then its counters (``keys``')."""
    return [len(arrays[k]) for k in names] + [float(counters[k]) for k in keys]


def _sized(row, names, dtypes):
    """Empty arrays to receive into, of the lengths a size row (:func:`_sizes`) tells."""
    import cupy as cp  # noqa: PLC0415

    return {name: cp.empty(int(row[i]), dtype=dtypes[name]) for i, name in enumerate(names)}


def _counters(row, names, keys):
    """The counters a size row (:func:`_sizes`) carries after the lengths."""
    return {key: _number(row[len(names) + j]) for j, key in enumerate(keys)}


def _number(x):
    x = float(x)
    return int(x) if x.is_integer() else x
