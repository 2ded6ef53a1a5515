"""An EMV run's state on one whole-graph CuPy shard: counters read once an iteration, not per call.

The vectorized path asks the device a question at almost every step (how many heads are active,
how many tails received, did any vertex vote to continue, is any vertex active) and each answer is
a sync: on rmat scale 20 a BFS-Q superstep cost more in those round trips than in its kernels.
Here the fused VERTEX kernel (:func:`.fuse.cuda_vertex_kernel`) and the push kernel
(:func:`.kernels.push_combine`) count into one small device array, ``ctl``:

- ``[0]`` vertices newly marked active since the last send (appended to ``queue``),
- ``[1]`` their out-edges,
- ``[2]`` an owned vertex voted to continue,
- ``[3]`` owned tails that received a message,

and the run reads it once at the end of an iteration (:meth:`Device.read`), or, for a fixed
iteration count, once at the end of the whole batch (:meth:`Device.keep`).  The queue is the next
send's list of active heads, so a queue-mode send needs no scan of the marks.  Only one partition
(every vertex local, no replica refresh) takes this path.
"""

from __future__ import annotations

import numpy as np


class Device:
    def __init__(self, n, message_dtype):
        import cupy as cp  # noqa: PLC0415

        self.cp = cp
        self.ctl = cp.zeros(4, dtype=cp.uint64)
        self.queues = (cp.empty(max(n, 1), dtype=cp.int64), cp.empty(max(n, 1), dtype=cp.int64))
        self.cur = 0                # the queue the VERTEX kernel appends to
        self.qok = False            # the marks since the last send are exactly that queue
        self.front = None           # (count, edges) of that queue, read at the end of the last iteration
        self.out = cp.empty(max(n, 1), dtype=message_dtype)  # a push's dense combine buffers
        self.cnt = cp.empty(max(n, 1), dtype=cp.int32)
        self.kept = []
        self.vsteps = {}            # VERTEX step -> its CudaStep (None: not fused)
        self.touched = False        # a kernel wrote ctl since the last read or keep
        self.rowsum = None          # PageRank-like sends: the row-sum plan, in-degrees, receivers
        self.none_i64 = cp.empty(1, dtype=cp.int64)  # placeholders for arguments a mode does not read
        self.none_i32 = cp.empty(1, dtype=cp.int32)
        self.none_bool = cp.empty(1, dtype=bool)
        self.none_msg = cp.empty(1, dtype=message_dtype)

    @property
    def queue(self):
        return self.queues[self.cur]

    def heads(self):
        """The active heads the last VERTEX steps queued (ascending not guaranteed) and their edges,
        or None where the marks are not exactly the queue."""
        if not self.qok or self.front is None:
            return None
        count, edges = self.front
        return self.queues[self.cur][:count], edges

    def seed(self, marks, degree):
        """Queue the vertices ``marks`` holds (the run's initial active set) as if a VERTEX step had
        marked them, so the first send reads the queue instead of scanning the marks; one sync."""
        ids = self.cp.flatnonzero(marks)
        count = len(ids)
        edges = int(degree[ids].sum()) if count else 0
        self.queues[self.cur][:count] = ids
        self.ctl[:2] = self.cp.asarray([count, edges], dtype=self.ctl.dtype)  # a VERTEX step before the
        # first send appends after them
        self.qok = True
        self.front = (count, edges)

    def start_send(self):
        """A send clears the marks: the VERTEX steps after it queue into the other buffer."""
        self.cur ^= 1
        self.ctl[:2] = 0
        self.qok = True
        self.front = None

    def add_sent(self, count):
        """Add a device count of receiving tails to ``ctl[3]`` (nothing is read)."""
        self.ctl[3:] += count.astype(self.ctl.dtype, copy=False)
        self.touched = True

    def read(self):
        """(newly marked, their edges, continue vote, tails reached) since the last read; one sync.
        Where the marks are exactly the queue, its (count, edges) become the next send's front."""
        v = [int(x) for x in self.ctl.get()]
        self.ctl[2:] = 0
        self.touched = False
        if self.qok:
            self.front = (v[0], v[1])
        return v

    def keep(self):
        """Batch mode: store this iteration's counters on the device, read with :meth:`kept_values`."""
        if self.touched:
            self.kept.append(self.ctl.copy())
            self.ctl[2:] = 0
            self.touched = False
        else:  # nothing counted on the device this iteration (a row sum's receivers are known)
            self.kept.append(None)

    def kept_values(self):
        """The counters :meth:`keep` stored, one row an iteration (zeros where nothing was counted);
        one read."""
        out = np.zeros((len(self.kept), 4), dtype=np.int64)
        rows = [j for j, r in enumerate(self.kept) if r is not None]
        if rows:
            out[rows] = self.cp.stack([self.kept[j] for j in rows]).get()
        self.kept = []
        return out


__all__ = ["Device"]
