"""GPU (CuPy backend) kernel for CDLP: one synchronous label update of a shard's rows.

The CUDA twin of :func:`dgraph.algorithms.cdlp.cpu.cdlp_step_par` (``"gpu-fused"`` and
``"gpu-fused+steps"``, see :func:`dgraph.algorithms.cdlp.implementation`), wrapping ``cdlp.cu``
beside this module: the same multiset per row (every stored out-arc, an undirected self loop
twice, a directed graph's in-arcs too), the most frequent label, the smallest on a tie, so the
same labels as the vectorized step, bit for bit, with no sort of the shard's arcs.

The rows are bucketed once a shard (kept between runs) by their number of entries ``k`` (out- plus, directed,
in-degree), so each size gets the right tool:

- ``k <= 8`` and ``k <= 32``: a group of 8 or 32 lanes a row, an entry a lane: each lane adds up
  the weights of its label over the group with shuffles, a shuffle tree keeps the best;
- ``k <= WARP_ENTRIES``: a warp a row, the labels counted in a hash table in shared memory;
- ``k <=`` what a block's shared memory holds (:data:`TABLE_BYTES`): a block a row, one table;
- longer rows (hubs): their entries cut into segments of :data:`HUB_SEGMENT`, a block each, all
  adding into the row's table in global scratch (sized once); then a block each segment of
  :data:`HUB_SLOTS_SEGMENT` slots finds its best, and a thread a row the best of those.

Rows without entries are in no bucket: they keep their label (the caller's output already holds
it).  A superstep is at most seven launches, two fills and one read of the changed count.
"""

from __future__ import annotations

import numpy as np

from ...backend import array_module, to_numpy
from ...cuda import BLOCK, dtype_suffix, function, source

#: the CUDA source (cdlp.cu, a package resource, with common.cuh pasted in)
_SOURCE = source(__package__, "cdlp.cu")

#: warps a block (cdlp.cu's CD_WARPS)
WARPS = 8
assert BLOCK == 32 * WARPS, "cdlp.cu sizes its shared arrays for blocks of 256 threads"
#: rows of at most this many entries count in a warp's own table of WARP_SLOTS slots
WARP_ENTRIES = 128
WARP_SLOTS = 256
#: the most shared memory a block's table may take (bytes); longer rows count in global memory
TABLE_BYTES = 40 * 1024
#: a hub row's entries a block (each block of the row adds into its one table in global memory)
HUB_SEGMENT = 1 << 14
#: a hub row's table slots a block, when the best slot is found
HUB_SLOTS_SEGMENT = 1 << 16


def kernel(name, dtype):
    return function(_SOURCE, f"{name}_{dtype_suffix(dtype)}")


def pow2_at_least(x):
    """The smallest power of two >= each of ``x`` (int64, all >= 1; exact below 2**53): 2 to the bit
    length of x - 1.  One vectorized pass: a hub-heavy shard has tens of thousands of such rows."""
    return np.left_shift(np.int64(1), np.frexp((np.asarray(x, dtype=np.int64) - 1).astype(np.float64))[1]
                         .astype(np.int64))


class Plan:
    """A shard's rows bucketed by their entries, and the launches of one update.

    ``indptr``/``indices``: the shard's CSR (local rows, global ids); ``cindptr``/``cindices``: its
    CSC (in-arcs, directed only; None otherwise); local row ``r`` is vertex ``rows[r]``, or
    ``row_base + r`` when ``rows`` is empty.  The buckets depend on the graph alone, so a shard
    keeps them from run to run (:func:`plan_for`); each run gets its own scratch
    (:meth:`for_run`), so two runs never share a table.
    """

    @property
    def xp(self):
        return array_module(self.indices)

    def __init__(self, indptr, indices, cindptr, cindices, directed, row_base, rows):
        xp = array_module(indices)
        self.directed = bool(directed)
        self.indptr, self.indices = indptr, indices
        self.cindptr = cindptr if self.directed else indptr
        self.cindices = cindices if self.directed else indices
        self.row_base, self.rows = int(row_base), rows
        self.vdt = indices.dtype
        size = self.vdt.itemsize + 4
        cap = 1
        while (cap * 2) * size <= TABLE_BYTES:
            cap *= 2
        k = indptr[1:] - indptr[:-1]
        if self.directed:
            k = k + (self.cindptr[1:] - self.cindptr[:-1])
        self.launches = []
        top = max(cap // 2, WARP_ENTRIES)  # the longest rows a shared table holds
        for name, lo, hi in (("small8", 1, 8), ("small32", 9, 32), ("table_warp", 33, WARP_ENTRIES),
                             ("table_block", WARP_ENTRIES + 1, top), ("table_global", top + 1, None)):
            sel = k >= lo if hi is None else (k >= lo) & (k <= hi)
            bucket = xp.flatnonzero(sel).astype(np.int64)
            nb = len(bucket)
            if nb == 0:
                continue
            if name == "small8":
                grid, shared, extra = -(-nb * 8 // BLOCK), 0, ()
            elif name == "small32":
                grid, shared, extra = -(-nb * 32 // BLOCK), 0, ()
            elif name == "table_warp":
                grid, shared = -(-nb // WARPS), WARPS * WARP_SLOTS * size
                extra = (np.int32(WARP_SLOTS),)
            elif name == "table_block":
                slots = int(pow2_at_least(2 * int(k[bucket].max())))
                grid, shared = nb, slots * size
                extra = (np.int32(slots),)
            else:  # a table a row in global memory: a power of two >= twice the row's entries
                kk = to_numpy(k[bucket]).astype(np.int64)
                slots = pow2_at_least(2 * kk)
                toff = np.zeros(nb + 1, dtype=np.int64)
                np.cumsum(slots, out=toff[1:])
                seg_row, seg_lo, _ = _segments(kk, HUB_SEGMENT)  # hub_insert's blocks
                tseg_row, tseg_lo, tfirst = _segments(slots, HUB_SLOTS_SEGMENT)  # hub_best's
                # the scratch's size (made by for_run), the segments of the entries and of the tables
                extra = (xp.asarray(toff), int(toff[-1]), HUB_SEGMENT, xp.asarray(seg_row), xp.asarray(seg_lo),
                         HUB_SLOTS_SEGMENT, xp.asarray(tseg_row), xp.asarray(tseg_lo), xp.asarray(tfirst))
                grid, shared = len(seg_row), 0
            self.launches.append((name, bucket, nb, grid, shared, extra))
        self.counters = None

    def for_run(self):
        """A plan with these buckets and scratch of its own (the global tables, the changed count)."""
        run = object.__new__(Plan)
        run.__dict__.update(self.__dict__)
        run.launches = []
        for name, bucket, nb, grid, shared, extra in self.launches:
            if name == "table_global":  # + the tables' keys and weights, each table segment's best
                nts = len(extra[6])
                extra = extra + (self.xp.empty(extra[1], dtype=self.vdt), self.xp.empty(extra[1], dtype=np.uint32),
                                 self.xp.empty(nts, dtype=np.int64), self.xp.empty(nts, dtype=self.vdt))
            run.launches.append((name, bucket, nb, grid, shared, extra))
        run.counters = self.xp.zeros(1, dtype=np.uint64)
        return run

    def step(self, label, out):
        """``out[r]`` = the new label of every row with entries (the others are left as they are);
        -> how many of them changed (read from the device)."""
        self.counters.fill(0)
        head = (self.indptr, self.indices, self.cindptr, self.cindices, np.int32(self.directed),
                np.int64(self.row_base), self.rows, np.int32(len(self.rows) > 0))
        for name, bucket, nb, grid, shared, extra in self.launches:
            if name == "table_global":
                self._hubs(head, bucket, nb, grid, extra, label, out)
                continue
            kernel(name, self.vdt)((grid,), (BLOCK,), head + (bucket, np.int64(nb)) + extra +
                                   (label, out, self.counters), shared_mem=shared)
        return int(to_numpy(self.counters)[0]) if self.launches else 0

    def _hubs(self, head, bucket, nb, grid, extra, label, out):
        """The hub rows' update: their tables emptied (keys -1: every byte 0xff; weights 0), every
        segment's inserts, then a block a row for the best."""
        import cupy as cp  # noqa: PLC0415

        toff, _, seg, seg_row, seg_lo, tseg, tseg_row, tseg_lo, tfirst, gkeys, gcnt, seg_c, seg_l = extra
        stream = cp.cuda.get_current_stream().ptr
        cp.cuda.runtime.memsetAsync(gkeys.data.ptr, 0xFF, gkeys.nbytes, stream)
        cp.cuda.runtime.memsetAsync(gcnt.data.ptr, 0, gcnt.nbytes, stream)
        kernel("hub_insert", self.vdt)((grid,), (BLOCK,), head + (bucket, seg_row, seg_lo, np.int64(seg), toff, gkeys,
                                                                 gcnt, label))
        kernel("hub_best", self.vdt)((len(tseg_row),), (BLOCK,), (tseg_row, tseg_lo, np.int64(tseg), toff, gkeys, gcnt,
                                                                  seg_c, seg_l))
        kernel("hub_finish", self.vdt)((-(-nb // BLOCK),), (BLOCK,), (
            self.rows, np.int32(len(self.rows) > 0), np.int64(self.row_base), bucket, np.int64(nb), tfirst, seg_c,
            seg_l, label, out, self.counters))


def _segments(sizes, seg):
    """Items 0 .. sizes[i] of every row i cut into segments of ``seg``: each segment's row and first
    item, and each row's first segment (len(sizes) + 1 offsets)."""
    count = -(-np.asarray(sizes, dtype=np.int64) // seg)
    first = np.zeros(len(count) + 1, dtype=np.int64)
    np.cumsum(count, out=first[1:])
    row = np.repeat(np.arange(len(count), dtype=np.int64), count)
    lo = (np.arange(len(row), dtype=np.int64) - first[row]) * seg
    return row, lo, first


def plan_for(shard):
    """A run's :class:`Plan` for ``shard``: the buckets made once a shard (:meth:`Shard.cached`; on a
    whole-graph shard, once a graph), the scratch once a run."""
    def build():
        cindptr, cindices, _ = shard.csc(edge_ids=False) if shard.directed else (None, None, None)
        return Plan(shard.indptr, shard.indices, cindptr, cindices, shard.directed, shard.row_base, shard.rows)

    return shard.cached("cdlp-plan", build).for_run()


__all__ = ["Plan", "plan_for", "WARP_ENTRIES", "WARP_SLOTS", "TABLE_BYTES"]
