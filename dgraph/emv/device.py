"""An EMV run's state on one whole-graph CuPy shard: counters read once an iteration, not per call.

The vectorized path asks the device a question at almost every step (how many heads are active,
how many tails received, did any vertex vote to continue, is any vertex active) and each answer is
a sync: on rmat scale 20 a BFS-Q superstep cost more in those round trips than in its kernels.
Here the fused VERTEX kernel (:func:`.fuse.cuda_vertex_kernel`) and the send kernels
(:mod:`.device_send`) count into one small device array, ``ctl``:

- ``[0]`` vertices newly marked active since the last send (appended to ``queue``, their degrees to
  ``qdeg``),
- ``[1]`` their out-edges,
- ``[2]`` owned vertices that voted to continue,
- ``[3]`` owned tails that received a message.

``[0]`` and ``[1]`` start again at each send (the compiled send kernels reset them themselves);
``[2]`` and ``[3]`` only grow, and a read takes the difference from the read before, so no call
resets them.  The run reads ``ctl`` once at the end of an iteration (:meth:`Device.read`), or, for
a fixed iteration count, once at the end of the whole batch (:meth:`Device.keep`).  The queue is
the next send's list of active heads, so a queue-mode send needs no scan of the marks.

The sends combine into two dense buffers, ``out`` and ``cnt``.  A push needs them clean (the
identity, zero counts) and writes only where messages arrive; a VERTEX kernel that reads them in
queue mode puts the identity back where it read (``clean``: which identity), so no buffer fill
runs per send.
Only one partition (every vertex local, no replica refresh) takes this path.
"""

from __future__ import annotations

import numpy as np

_SEED = r"""
typedef {dtype} DT;
// The run's initial active vertices (distinct): marked and queued as a VERTEX step would.
extern "C" __global__ void seed(const long long* ids, long long k, bool* marks, long long* queue,
                                long long* qdeg, const DT* deg, unsigned long long* ctl) {{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long d = 0;
    if (i < k) {{
        long long v = ids[i];
        marks[v] = true;
        queue[i] = v;
        d = (long long)deg[v];
        qdeg[i] = d;
    }}
    if (i == 0) ctl[0] = (unsigned long long)k;
    block_add(d, ctl + 1);
}}
"""


class Device:
    """One run's device state (see the module).  The buffers are per graph and message type, and a
    finished run gives them back (:meth:`release`) for the next run on the same graph to take
    (:meth:`take`): a run allocates nothing and fills no buffer that is already clean."""

    @classmethod
    def take(cls, layout, message_dtype):
        """A Device for a run on ``layout`` (one a finished run gave back, or a new one)."""
        idle = layout.__dict__.setdefault("_emv_devices", {}).get(str(message_dtype))
        dev = idle.pop() if idle else None
        if dev is None:
            return cls(layout.size, message_dtype)
        dev._start()
        return dev

    def release(self, layout):
        """Give the buffers back for the next run on ``layout`` (the run is over)."""
        pool = layout.__dict__.setdefault("_emv_devices", {}).setdefault(str(self.out.dtype), [])
        if not pool:
            pool.append(self)

    def __init__(self, n, message_dtype):
        import cupy as cp  # noqa: PLC0415

        self.cp = cp
        m = max(n, 1)
        self.ctl = cp.zeros(4, dtype=cp.uint64)
        self.queues = (cp.empty(m, dtype=cp.int64), cp.empty(m, dtype=cp.int64))
        self.qdegs = (cp.empty(m, dtype=cp.int64), cp.empty(m, dtype=cp.int64))
        self.out = cp.empty(m, dtype=message_dtype)  # a send's dense combine buffers
        self.cnt = cp.empty(m, dtype=cp.int32)
        self.clean = None           # the identity out holds everywhere, cnt zeros (what a push needs); None: not clean
        self.best = cp.empty(1, dtype=message_dtype)  # a gather's early-exit bound
        self.rowsum = None          # PageRank-like sends: the row-sum plan, in-degrees, receivers
        self.none_i64 = cp.empty(1, dtype=cp.int64)  # placeholders for arguments a mode does not read
        self.none_i32 = cp.empty(1, dtype=cp.int32)
        self.none_bool = cp.empty(1, dtype=bool)
        self.none_f8 = cp.empty(1, dtype=cp.float64)
        self.none_msg = cp.empty(1, dtype=message_dtype)
        from ..cuda import multiprocessors  # noqa: PLC0415

        self.resident_blocks = 4 * multiprocessors()
        self._start(zeroed=True)

    def _start(self, zeroed=False):
        """The per-run state (the buffers and ``clean`` carry over from the run before)."""
        if not zeroed:
            self.ctl.fill(0)
        self.last = np.zeros(4, dtype=np.int64)  # ctl at the last read: [2] and [3] are running counts
        self.cur = 0                # the queue the VERTEX kernel appends to
        self.qok = False            # the marks since the last send are exactly that queue
        self.front = None           # (count, edges) of that queue, where known on the host
        self.pending = False        # the messages in flight are in out / cnt
        self.kept = []
        self.steps = {}             # (kind, step) -> its CudaStep / CudaSend (None: not compiled)
        self.touched = False        # a kernel wrote ctl since the last read or keep

    @property
    def queue(self):
        return self.queues[self.cur]

    @property
    def qdeg(self):
        return self.qdegs[self.cur]

    def heads(self):
        """(the active heads the VERTEX steps queued since the last send, in no set order, their
        degrees, their edges), or None where the marks are not exactly the queue.  Where the queue
        grew since the last read, its two counters are read now (one sync)."""
        if not self.qok:
            return None
        if self.front is None:
            c = self.ctl[:2].get()
            self.front = (int(c[0]), int(c[1]))
        count, edges = self.front
        return self.queues[self.cur][:count], self.qdegs[self.cur][:count], edges

    def seed(self, ids, marks, degree):
        """Mark and queue the run's initial active vertices ``ids`` (host, distinct; ``marks`` all
        False) as a VERTEX step would: the first send reads the queue, with no scan of the marks."""
        from ..cuda import COMMON, compiled  # noqa: PLC0415
        from .kernels import _CTYPES  # noqa: PLC0415

        k = len(ids)
        if k:
            src = COMMON + _SEED.format(dtype=_CTYPES[str(degree.dtype)])
            compiled(src).get_function("seed")(((k + 255) // 256,), (256,),
                                               (self.cp.asarray(ids, dtype=self.cp.int64), np.int64(k), marks,
                                                self.queue, self.qdeg, degree, self.ctl))
        self.qok = True
        self.front = None if k else (0, 0)

    def start_send(self, reset_in_kernel=False):
        """A send clears the marks: the VERTEX steps after it queue into the other buffer.  The
        compiled send kernels zero the queue's counters themselves (``reset_in_kernel``)."""
        self.cur ^= 1
        if not reset_in_kernel:
            self.ctl[:2] = 0
        self.qok = True
        self.front = None

    def add_sent(self, count):
        """Add a device count of receiving tails to ``ctl[3]`` (nothing is read)."""
        self.ctl[3:] += count.astype(self.ctl.dtype, copy=False)
        self.touched = True

    def read(self):
        """(newly marked, their edges, continue votes, tails reached) since the last read; one sync.
        Where the marks are exactly the queue, its (count, edges) become the next send's front."""
        v = self.ctl.get().astype(np.int64)
        cont, sent = v[2] - self.last[2], v[3] - self.last[3]
        self.last = v
        self.touched = False
        if self.qok:
            self.front = (int(v[0]), int(v[1]))
        return int(v[0]), int(v[1]), int(cont), int(sent)

    def keep(self):
        """Batch mode: store this iteration's counters on the device, read with :meth:`kept_values`."""
        if self.touched:
            self.kept.append(self.ctl.copy())
            self.touched = False
        else:  # nothing counted on the device this iteration (a row sum's receivers are known)
            self.kept.append(None)

    def kept_values(self):
        """The counters :meth:`keep` stored, one row an iteration, as :meth:`read` gives them (zeros
        where nothing was counted); one read."""
        out = np.zeros((len(self.kept), 4), dtype=np.int64)
        rows = [j for j, r in enumerate(self.kept) if r is not None]
        if rows:
            prev = self.last
            for j, r in zip(rows, self.cp.stack([self.kept[j] for j in rows]).get().astype(np.int64)):
                out[j, :2], out[j, 2:] = r[:2], r[2:] - prev[2:]
                prev = r
            self.last = prev
        self.kept = []
        return out


__all__ = ["Device"]
