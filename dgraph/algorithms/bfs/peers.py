"""Levels of a partitioned BFS on every GPU at once, the GPUs meeting in each other's memory.

On two GPUs a BFS superstep of the superstep path costs 0.6-1.3 ms at
rmat26 (docs/BENCHMARKS.md): the visit, NCCL's exchange of the bitmaps and
the union are each a handful of CuPy calls and a host read, while a level's
GPU work is often a few hundred microseconds.  An rmat search is six such
levels.

Here each GPU runs one cooperative launch (``peers.cu``) that does level
after level itself, top-down or bottom-up as Beamer's rule says, from the
source on.  A push claims the neighbours of the rows the GPU owns (the
source's edges spread over the whole grid; later, a lane per small row and a
warp per larger one) and sets each claimed vertex's bit in the bitmap of
*every* GPU when the frontier is small (their memory mapped into this
process through CUDA IPC, written over NVLink), else in its own; a pull
claims the GPU's own unvisited rows against the previous level's united
bitmap, sets their bits in its own bitmap and counts them.  The GPUs meet at
a barrier of arrival counters in the same memory, then each ORs in what the
peers claimed, labels it, and reads the frontier's size and degree sum
(counted on the way after a push, whose claims may overlap; added up in
shared counters after a pull, whose claims are disjoint).  Every GPU sees
the same numbers, so every GPU makes the same decision to go on, turn, or
stop: empty, or a push of more frontier edges than
``dgraph.config.bfs_peer_frontier_limit`` or from a vertex of more than
``dgraph.config.bfs_levels_degree_limit`` edges, which the superstep path's
load-balanced kernel takes, from the rows the launch queued.  The host reads
the per-level records once when all is done.  Parents stay where they were
found, reconciled once at the end as on the other path.

The shared allocation of each GPU is made once per shard and kept; each run
zeroes it and the shards swap their IPC handles through the run's NCCL
communicator (:attr:`dgraph.engine.program.StepContext.share`), which is
also the barrier that orders the zeroing before any peer writes.  When any
shard cannot map a peer (a driver or container that refuses IPC), every
shard learns it in a second swap and the run keeps the superstep path; a
run whose peers are those every shard mapped last time skips that swap.
``dgraph.config.bfs_peer_levels`` turns this off; ``dgraph.config.bfs_peer_pull``
keeps pulls on the superstep path.
"""

from __future__ import annotations

import os

import numpy as np

from ...config import config
from ...cuda import BLOCK, cooperative_grid, dtype_suffix, function, source
from ...errors import ExecutorError
from ...ops import Frontier
from . import solver
from .program import level_report

#: this module's CUDA (peers.cu, with dgraph/cuda/common.cuh after the cooperative groups header)
_SOURCE = source(__package__, "peers.cu")
REC = 16  # words per level record (the CUDA source's REC)
SLOTS = 3  # bitmaps in each GPU's shared allocation (the CUDA source's SLOTS)
DIRECTIONS = ("push", "pull")  # a record's direction word
STOPS = ("limit", "empty", "pull", "edges", "hub", "peer")
#: a push of more frontier edges than bfs_levels_frontier_limit starts a batch from at most this many
#: frontier vertices (the source), the whole grid walking each one's edges
SPREAD_ROWS = 64
#: nanoseconds a GPU waits at a level's barrier for a peer before the run fails
SPIN_NS = 10_000_000_000


def kernel(name):
    """A kernel of this module (:func:`dgraph.cuda.function`)."""
    return function(_SOURCE, name, cooperative=True)


class PeerMemory:
    """One GPU's shared allocation (:data:`SLOTS` bitmaps of ``nw`` words, then ``p`` arrival counters
    and :data:`SLOTS` groups of four counters the GPUs add to) and the peers' allocations mapped here; kept on the
    shard between runs (:meth:`Shard.cached`)."""

    def __init__(self, n, p):
        import cupy as cp  # noqa: PLC0415

        self.n, self.p = int(n), int(p)
        self.words = max(1, -(-self.n // 32))  # a bitmap's words (FrontierUnion.nw)
        self.nw = -(-self.words // 4) * 4  # a slot's: 16-byte aligned, so the counters after them are
        self.nbytes = SLOTS * self.nw * 4 + (self.p + 4 * SLOTS) * 8
        self.mem = cp.cuda.Memory(self.nbytes)  # its own cudaMalloc: an IPC handle names a whole allocation
        self.handle = bytes(cp.cuda.runtime.ipcGetMemHandle(self.mem.ptr))
        # a new allocation at a freed one's address can have the same handle bytes: the nonce tells them apart
        self.nonce = os.urandom(8)
        self.peers = {}  # handle + nonce -> pointer opened in this process
        self.ptrs = None  # device array of every shard's pointer, for the kernel
        self.handles = None
        self.agreed = False  # whether every shard mapped every peer in this shard's last swap
        self.rec = cp.zeros(REC * solver.MAX_LEVELS, dtype=cp.uint64)
        self.ctl = cp.zeros(8, dtype=cp.int64)
        self.k = 0  # levels run in this run (the arrival counters count them)

    def slot(self, level):
        """The bitmap of run-wide level ``level`` in the own allocation, as a CuPy uint32 array of
        :attr:`words` (no copy)."""
        import cupy as cp  # noqa: PLC0415

        ptr = cp.cuda.MemoryPointer(self.mem, 4 * (level % SLOTS) * self.nw)
        return cp.ndarray((self.words,), dtype=cp.uint32, memptr=ptr)

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


def owner_spans(shard):
    """Every shard's owned vertices as 2p int64 words (lo, hi), for ``peers.cu``'s ``spans``: the
    layout's ranges, or [0, n) for every shard where its rows are not ranges."""
    bounds = shard.range_bounds()
    if bounds is not None:
        spans = np.stack([np.asarray(bounds[:-1]), np.asarray(bounds[1:])], axis=1)
    else:
        spans = np.tile(np.array([0, shard.n]), (shard.num_parts, 1))
    return spans.astype(np.int64).ravel()


def usable(program, shard, st, ctx):
    """Whether the next superstep starts a batch of peer levels: the same answer on every shard
    (it reads only the global report, the run's settings and the shared layout).  A push starts
    one from the rows this shard owns when the frontier has few edges; a pull from the united
    bitmap of the superstep before (so not the first)."""
    if not (config.bfs_peer_levels and ctx.share is not None and st.implementation == "gpu-fused+union"):
        return False
    if not shard.contiguous or program.direction == "pull" or st.peer_stop in ("edges", "hub"):
        return False  # (a batch that stopped for a push it leaves to the superstep path: that push first)
    nf, m_f = ctx.report["frontier"], ctx.report["frontier_edges"]
    if program.choose_direction(st, shard.n, nf, m_f) == "push":
        return st.next_rows is not None and (m_f <= solver.frontier_limit() or nf <= SPREAD_ROWS)
    return config.bfs_peer_pull and ctx.step > 0


def run_levels(program, shard, st, ctx, limit):
    """The batch: levels on every GPU from the frontier as the superstep before left it (the rows this
    shard owns for a push, the united bitmap for a pull), at most ``limit``; -> one (report, seconds)
    a level, as :meth:`Program.run_steps` returns; None when the shards could not map each other's
    memory (the superstep path runs)."""
    import cupy as cp  # noqa: PLC0415

    from . import gpu  # noqa: PLC0415

    mem = shard.cached(("bfs-peer-memory", shard.num_parts), lambda: PeerMemory(shard.n, shard.num_parts))
    if st.peers is None:  # first batch of this run
        st.peers = mem.start_run(shard.part, ctx.share)
    if not st.peers:
        return None
    nf, m_f = ctx.report["frontier"], ctx.report["frontier_edges"]
    pull = program.choose_direction(st, shard.n, nf, m_f) == "pull"
    rows = st.next_rows[0] if not pull else cp.empty(0, dtype=shard.indices.dtype)
    bits = st.union.words if pull else mem.slot(0)  # a push's first level reads no bitmap
    out = gpu.buffers(shard, st)
    cindptr, cindices, _ = shard.csc(edge_ids=False)
    max_levels = max(1, min(int(limit), solver.MAX_LEVELS))
    mem.rec[: REC * max_levels].fill(0)
    kern = kernel("peer_levels_" + dtype_suffix(shard.indices.dtype))
    spread = not pull and m_f > solver.frontier_limit()
    spans = shard.cached(("bfs-peer-spans", shard.num_parts), lambda: cp.asarray(owner_spans(shard)))
    args = (shard.indptr, shard.indices, cindptr, cindices, cp.int64(shard.row_base), cp.int64(shard.num_rows),
            rows, cp.int32(len(rows)), bits, cp.int32(pull), cp.int32(spread), cp.int64(m_f), cp.int64(nf), out,
            st.out[1], st.labels, st.parents,
            shard.degree, mem.ptrs, spans, cp.int32(shard.part), cp.int32(shard.num_parts), cp.int64(mem.nw),
            cp.int64(shard.n), cp.int64(mem.k), cp.int32(st.level + 1), cp.int32(max_levels), cp.int64(st.m_u),
            cp.float64(program.alpha), cp.float64(program.beta), cp.int32(program.direction == "auto"),
            cp.int32(config.bfs_peer_pull), cp.int64(config.bfs_peer_frontier_limit), cp.int64(solver.degree_limit()),
            cp.int64(solver.frontier_limit()), cp.int64(SPIN_NS), mem.rec, mem.ctl)
    kern((cooperative_grid(kern, config.bfs_peer_blocks_per_sm),), (BLOCK,), args)
    levels, why, start = (int(x) for x in mem.ctl[:3].get())
    if STOPS[why] == "peer":
        raise ExecutorError(f"BFS on partition {shard.part}: a peer GPU did not reach level {st.level + levels + 1} "
                            f"within {SPIN_NS / 1e9:.0f} s (peer levels, dgraph.config.bfs_peer_levels)")
    rec = mem.rec[: REC * levels].get().reshape(levels, REC).astype("int64")
    steps = []
    begin = start
    for row in rec:  # the words of peers.cu's record; [3]: the level's end on the GPU clock
        count, degsum = int(row[0]), int(row[1])
        st.direction = DIRECTIONS[row[6]]
        report = level_report(st, count, int(row[2]), degsum)
        if config.profile_supersteps:  # the level's visit, its wait at the barrier, the union (GPU clock)
            report.update(kernel_s=(row[12] - begin) * 1e-9, exchange_s=(row[13] - row[12]) * 1e-9,
                          receive_s=(row[3] - row[13]) * 1e-9)
        steps.append((report, float((row[3] - begin) * 1e-9)))
        begin = row[3]
        st.m_u -= degsum
        st.prev_nf, nf = nf, count
    st.peer_stop = STOPS[why]
    steps[-1][0]["batch_stop"] = st.peer_stop  # why the batch ended (the records say so)
    last = mem.k + levels - 1
    mem.k += levels
    st.level += levels
    if nf and STOPS[why] in ("edges", "hub"):
        # a push of a big frontier, left to the superstep path's load-balanced kernel: the kernel
        # queued the rows this shard owns (a push's only input there; the frontier's ids are not made)
        if levels % 2 == 0:  # the last level queued into out[1]: make it out[0], so the push writes the other
            st.out.reverse()
        st.next_rows = (st.out[0][: int(rec[-1, 4])], int(rec[-1, 8]))
        st.frontier = None
    elif nf:
        # the frontier as the superstep path keeps it (sorted ids, byte mask, owned rows), from the last
        # level's united bitmap; the kernel clears each slot the level before it is written again
        new, _, owned_rows, owned_deg, _ = st.union.union_fixed([mem.slot(last)], [], st.labels, st.level,
                                                                shard.degree, dense=False)
        st.next_rows = (owned_rows, owned_deg)
        st.frontier = Frontier.with_mask(shard.n, new, st.union.fmask.view(cp.bool_))
    else:
        st.next_rows = (st.union.lrows[:0], 0)
        st.frontier = Frontier(shard.n, ids=cp.empty(0, dtype=shard.indices.dtype))
    return steps


__all__ = ["PeerMemory", "owner_spans", "run_levels", "usable", "DIRECTIONS", "SLOTS", "STOPS"]
