"""Push levels of a partitioned BFS on every GPU at once, the GPUs meeting in each other's memory.

On two GPUs a BFS superstep with a small frontier costs about 0.9 ms (rmat26,
docs/BENCHMARKS.md): the visit, NCCL's exchange of the bitmaps and the
union are each a handful of kernel launches and the host waits once, where
one GPU runs those levels in microseconds inside one cooperative launch
(:mod:`.solver`).  An rmat search ends with three or four such levels.

Here, while the global frontier is small and Beamer's rule pushes, each
GPU runs one cooperative launch (``peers.cu``) that does level after level
itself: it claims the neighbours of the rows it owns, sets each claimed
vertex's bit in the bitmap of *every* GPU (their memory mapped into this
process through CUDA IPC, written over NVLink), meets the others at a
barrier of arrival counters in the same memory, and walks the united
bitmap to label what the peers claimed and queue the rows it owns for the
next level.  Every GPU walks the same bits, so every GPU makes the same
decision to go on or stop (empty, Beamer's switch to pull, more frontier
edges than ``dgraph.config.bfs_levels_frontier_limit``), and the host
reads the per-level records once when all is done.  Parents stay where
they were found, reconciled once at the end as on the other path.

The shared allocation of each GPU is made once per shard and kept; each run
zeroes it and the shards swap their IPC handles through the run's NCCL
communicator (:attr:`dgraph.engine.program.StepContext.share`), which is
also the barrier that orders the zeroing before any peer writes.  When any
shard cannot map a peer (a driver or container that refuses IPC), every
shard learns it in a second swap and the run keeps the superstep path; a
run whose peers are those every shard mapped last time skips that swap.
``dgraph.config.bfs_peer_levels`` turns this off.
"""

from __future__ import annotations

import os

import numpy as np

from ...config import config
from ...cuda import BLOCK, cooperative_grid, dtype_suffix, function, source
from ...errors import ExecutorError
from ...ops import Frontier
from . import solver

#: this module's CUDA (peers.cu, with dgraph/cuda/common.cuh after the cooperative groups header)
_SOURCE = source(__package__, "peers.cu")
REC = 8  # words per level record (the CUDA source's REC)
STOPS = ("limit", "empty", "pull", "edges", "hub", "peer")
#: nanoseconds a GPU waits at a level's barrier for a peer before the run fails
SPIN_NS = 10_000_000_000


def kernel(name):
    """A kernel of this module (:func:`dgraph.cuda.function`)."""
    return function(_SOURCE, name, cooperative=True)


class PeerMemory:
    """One GPU's shared allocation (two bitmaps of ``nw`` words, then ``p`` arrival counters) and the
    peers' allocations mapped here; kept on the shard between runs (:meth:`Shard.cached`)."""

    def __init__(self, n, p):
        import cupy as cp  # noqa: PLC0415

        self.n, self.p = int(n), int(p)
        self.nw = max(1, -(-self.n // 32))
        self.nbytes = 2 * self.nw * 4 + self.p * 8
        self.mem = cp.cuda.Memory(self.nbytes)  # its own cudaMalloc: an IPC handle names a whole allocation
        self.handle = bytes(cp.cuda.runtime.ipcGetMemHandle(self.mem.ptr))
        # a new allocation at a freed one's address can have the same handle bytes: the nonce tells them apart
        self.nonce = os.urandom(8)
        self.peers = {}  # handle + nonce -> pointer opened in this process
        self.ptrs = None  # device array of every shard's pointer, for the kernel
        self.handles = None
        self.agreed = False  # whether every shard mapped every peer in this shard's last swap
        self.rec = cp.zeros(REC * solver.MAX_LEVELS, dtype=cp.uint64)
        self.ctl = cp.zeros(4, dtype=cp.int64)
        self.k = 0  # levels run in this run (the arrival counters count them)

    def view(self, offset_words, words):
        """Words of the own allocation as a CuPy uint32 array (no copy)."""
        import cupy as cp  # noqa: PLC0415

        ptr = cp.cuda.MemoryPointer(self.mem, 4 * offset_words)
        return cp.ndarray((words,), dtype=cp.uint32, memptr=ptr)

    def start_run(self, q, share):
        """Zero the allocation and swap handles with the peers (``share``: every shard's bytes, a
        collective); -> whether every shard mapped every peer (the same answer on every shard)."""
        import cupy as cp  # noqa: PLC0415

        cp.cuda.runtime.memsetAsync(self.mem.ptr, 0, self.nbytes, cp.cuda.get_current_stream().ptr)
        self.k = 0
        got = share(self.handle + self.nonce + (b"\x01" if self.agreed else b"\x00"))
        handles = [g[:-1] for g in got]  # each shard's allocation: its handle and nonce
        if all(g[-1:] == b"\x01" for g in got) and handles == self.handles:
            # every shard mapped these same allocations in the last swap, and every shard sees that
            # here (the same gathered bytes): no second collective
            return True
        ok = True
        try:
            if handles != self.handles:
                ptrs = []
                for s, h in enumerate(handles):
                    if s == q:
                        ptrs.append(self.mem.ptr)
                        continue
                    if h not in self.peers:
                        self.peers[h] = cp.cuda.runtime.ipcOpenMemHandle(h[:len(self.handle)])
                    ptrs.append(self.peers[h])
                self.ptrs = cp.asarray(np.array(ptrs, dtype=np.uint64))
                self.handles = handles
        except Exception:  # noqa: BLE001 - IPC refused here: every shard hears it below
            ok = False
        self.agreed = all(b == b"\x01" for b in share(b"\x01" if ok else b"\x00"))
        return self.agreed


def usable(program, shard, st, ctx):
    """Whether the next superstep starts a batch of peer levels: the same answer on every shard
    (it reads only the global report, the run's settings and the shared layout)."""
    if not (config.bfs_peer_levels and ctx.share is not None and st.implementation == "gpu-fused+union"):
        return False
    if st.next_rows is None or not shard.contiguous or program.direction == "pull":
        return False
    nf, m_f = ctx.report["frontier"], ctx.report["frontier_edges"]
    return m_f <= solver.frontier_limit() and program.choose_direction(st, shard.n, nf, m_f) == "push"


def run_levels(program, shard, st, ctx, limit):
    """The batch: push levels on every GPU from the frontier rows this shard owns, at most ``limit``;
    -> one (report, seconds) a level, as :meth:`Program.run_steps` returns; None when the shards
    could not map each other's memory (the superstep path runs)."""
    import cupy as cp  # noqa: PLC0415

    from . import gpu  # noqa: PLC0415

    mem = shard.cached(("bfs-peer-memory", shard.num_parts), lambda: PeerMemory(shard.n, shard.num_parts))
    if st.peers is None:  # first batch of this run
        st.peers = mem.start_run(shard.part, ctx.share)
    if not st.peers:
        return None
    rows, _ = st.next_rows
    out = gpu.buffers(shard, st)
    max_levels = max(1, min(int(limit), solver.MAX_LEVELS))
    mem.rec[: REC * max_levels].fill(0)
    kern = kernel("peer_push_levels_" + dtype_suffix(shard.indices.dtype))
    nf, m_f = ctx.report["frontier"], ctx.report["frontier_edges"]
    args = (shard.indptr, shard.indices, cp.int64(shard.row_base), cp.int64(shard.num_rows), rows,
            cp.int32(len(rows)), cp.int64(m_f), cp.int64(nf), out, st.out[1], st.labels, st.parents, shard.degree,
            mem.ptrs, cp.int32(shard.part), cp.int32(shard.num_parts), cp.int64(mem.nw), cp.int64(shard.n),
            cp.int64(mem.k), cp.int64(0), cp.int32(st.level + 1), cp.int32(max_levels), cp.int64(st.m_u),
            cp.float64(program.alpha), cp.int32(program.direction == "auto"), cp.int64(solver.frontier_limit()),
            cp.int64(SPIN_NS), mem.rec, mem.ctl)
    kern((cooperative_grid(kern, solver.blocks_per_sm()),), (BLOCK,), args)
    levels, why, start = (int(x) for x in mem.ctl[:3].get())
    if STOPS[why] == "peer":
        raise ExecutorError(f"BFS on partition {shard.part}: a peer GPU did not reach level {st.level + levels + 1} "
                            f"within {SPIN_NS / 1e9:.0f} s (peer levels, dgraph.config.bfs_peer_levels)")
    rec = mem.rec[: REC * levels].get().reshape(levels, REC).astype("int64")
    ends = rec[:, 3]
    times = (ends - [start, *ends[:-1]]) * 1e-9
    steps = []
    for (count, degsum, scanned, _, _, _, _, _), seconds in zip(rec, times):
        steps.append(({"direction": "push", "frontier": int(count), "edges": int(scanned),
                       "frontier_edges": int(degsum)}, float(seconds)))
        st.m_u -= int(degsum)
        st.prev_nf, nf = nf, int(count)
    last = mem.k + levels - 1
    mem.k += levels
    st.level += levels
    st.direction = "push"
    # the frontier as the superstep path keeps it (sorted ids, byte mask, owned rows): from the
    # last level's bitmap, which is then cleared for the level two after it
    united = mem.view((last & 1) * mem.nw, mem.nw)
    if nf:
        new, _, owned_rows, owned_deg, _ = st.union.union_fixed([united], [], st.labels, st.level, shard.degree,
                                                                dense=False)
        st.next_rows = (owned_rows, owned_deg)
        st.frontier = Frontier.with_mask(shard.n, new, st.union.fmask.view(cp.bool_))
        united.fill(0)
    else:
        st.next_rows = (rows[:0], 0)
        st.frontier = Frontier(shard.n, ids=cp.empty(0, dtype=shard.indices.dtype))
    return steps


__all__ = ["PeerMemory", "run_levels", "usable", "STOPS"]
