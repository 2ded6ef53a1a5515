"""GPU frontier bitmaps for partitioned BFS: claimed ids -> packed bits, and the union of every
shard's bits -> the next frontier, in two kernels and one read-back (``gpu-fused+union``), or,
when the next superstep pulls, only the byte mask and the new levels (:meth:`FrontierUnion.mark`);
and, after the last superstep, the parents a shard found for the other shards' vertices.

A partitioned BFS superstep ends with every shard holding the same global
frontier (ButterFly BFS).  Done with array calls (unpack every bitmap,
``flatnonzero``, a boolean index for the unvisited, a degree gather and sum,
then a bitmap again for pull and the owned slice for the next push) that is
a dozen kernels and five host syncs a superstep: on two H100s it was 0.4-1.3
ms of a 2-3 ms superstep (docs/BENCHMARKS.md).  Here one thread per 32-bit
word of the OR of the bitmaps writes, for each set bit, the vertex at its rank
(the frontier stays sorted, as the array path leaves it), labels it when this
shard had not seen it, writes the byte mask that pull reads, and, for a
shard of a vertex range, writes the owned vertices' local rows for the next
push; the frontier size, its degree sum and the owned part's size and degree
sum come back in one 32-byte read.

The bitmap layout is numpy's ``packbits`` (big-endian bits in a byte), so
shards exchange the same bytes whichever path made them.  The CUDA is
``union.cu`` beside this file.
"""

from __future__ import annotations

import numpy as np

from ...cuda import BLOCK, dtype_suffix, function, source

#: this module's CUDA (union.cu, with dgraph/cuda/common.cuh in front)
_SOURCE = source(__package__, "union.cu")

#: blocks of the union kernel's fixed grid (it strides over the vertices)
UNION_BLOCKS = 1024
#: the grid of the dense union's vertex kernel (one atomic a block on each counter)
DENSE_UNION_BLOCKS = 4096
#: the grid of set_bits_counted (it strides over a count the host does not know)
SET_BITS_BLOCKS = 1024


def kernel(name):
    """A kernel of this module (:func:`dgraph.cuda.function`)."""
    return function(_SOURCE, name)


def _blocks(k):
    return ((int(k) + BLOCK - 1) // BLOCK,)


class FrontierUnion:
    """Buffers of one shard's BFS for :meth:`bits` and :meth:`union`, allocated once per run."""

    def __init__(self, n, vdtype, row_base, num_rows):
        import cupy as cp  # noqa: PLC0415

        self.n = int(n)
        self.nw = max(1, -(-self.n // 32))
        # no zeroing: every union writes all of words and fmask, and _emit zeroes the counters it adds to
        self.words = cp.empty(self.nw, dtype=cp.uint32)
        self.incl = cp.empty(self.nw, dtype=cp.int64)
        self.fmask = cp.empty(self.n, dtype=cp.uint8)
        self.out = cp.empty(self.n, dtype=vdtype)
        self.lrows = cp.empty(max(1, int(num_rows)), dtype=vdtype)
        self.counters = cp.empty(4, dtype=cp.uint64)
        self.row_base, self.num_rows = int(row_base), int(num_rows)
        self.vdtype = np.dtype(vdtype)

    def bits(self, ids):
        """The packed bitmap (numpy packbits layout, ceil(n/8) bytes) of ``ids``: a fresh array."""
        import cupy as cp  # noqa: PLC0415

        words = cp.zeros(self.nw, dtype=cp.uint32)
        if len(ids):
            kernel("set_bits_" + dtype_suffix(ids.dtype))(
                _blocks(len(ids)), (BLOCK,), (ids, cp.int64(len(ids)), words))
        return words.view(cp.uint8)[: -(-self.n // 8)]

    def union(self, parts, labels, level, degree):
        """The sorted union of ``parts`` ((ids, packed bits) per shard; either may be empty): labels
        the vertices this shard had not, and returns (frontier ids, its degree sum, owned local rows
        or None when this shard's rows are not a vertex range, their degree sum)."""
        import cupy as cp  # noqa: PLC0415

        self.words.fill(0)
        as_bytes = self.words.view(cp.uint8)
        for ids, bits in parts:
            if len(bits):
                as_bytes[: len(bits)] |= bits
            if len(ids):
                kernel("set_bits_" + dtype_suffix(ids.dtype))(
                    _blocks(len(ids)), (BLOCK,), (ids, cp.int64(len(ids)), self.words))
        sparse = not any(len(bits) for _, bits in parts)
        counts = self._emit(labels, level, degree, sparse).get()
        return self._frontier(counts)

    # -- the fixed-size exchange (dgraph.config.bfs_bitmap_exchange, over NCCL) ------------------------

    def send_bits(self, claimed, counters, scanned=None):
        """A visit's claimed vertices as a fixed-size contribution, without reading their count:
        (the bitmap words of the first ``counters[0]`` entries of ``claimed``, the visit's four
        counters themselves, with ``scanned`` as the edges scanned when the host knows it (push))."""
        import cupy as cp  # noqa: PLC0415

        words = cp.zeros(self.nw, dtype=cp.uint32)
        kernel("set_bits_counted_" + dtype_suffix(claimed.dtype))((SET_BITS_BLOCKS,), (BLOCK,), (claimed, counters, words))
        if scanned is not None:
            counters[2] = scanned
        return words, counters  # no copy: the next visit zeroes them only after this superstep's reads

    def union_fixed(self, bitmaps, tallies, labels, level, degree, dense):
        """:meth:`union` of every shard's :meth:`send_bits` (or of one bitmap united elsewhere, with no
        tallies: the peer levels' last, :mod:`.peers`; or None: the words :meth:`mark_counted` ORed):
        the words ORed, the frontier emitted (the vertex kernel when ``dense``, else a thread a word),
        and one read for the frontier's counts and every shard's tally; -> (frontier ids, its degree
        sum, owned local rows or None, their degree sum, the edges the shards scanned)."""
        if bitmaps is not None:  # None: the words already hold the union (mark_counted)
            self._or(bitmaps)
        counts, scanned = self._read(self._emit(labels, level, degree, sparse=not dense), tallies)
        return (*self._frontier(counts), scanned)

    @staticmethod
    def totals(tallies):
        """Every shard's :meth:`send_bits` tally, in one read: a (p, 4) int64 table, a row a shard
        (claimed, their degree sum, edges scanned, unused).  After a pull, whose shards claim only the
        vertices they own, the column sums are the new frontier's size and degree sum, and a shard's
        row is the part of it that shard owns."""
        import cupy as cp  # noqa: PLC0415

        return cp.concatenate(tallies).get().reshape(len(tallies), 4).astype(np.int64)

    def marks(self, labels):
        """Whether :meth:`mark` takes ``labels`` (its kernel reads them 16 bytes at a time: a CuPy
        allocation's start, as BFS's depth array is; a view elsewhere takes :meth:`union_fixed`)."""
        return labels.flags.c_contiguous and labels.data.ptr % 16 == 0 and self.fmask.data.ptr % 16 == 0

    def mark(self, bitmaps, labels, level):
        """The union after a pull, when the next superstep pulls (or, on vertex-range shards, pushes
        from the shard's own claims): the words ORed, the byte mask written and the other shards'
        claims labelled, in one launch and no read (``mark_union_vertices``); -> the byte mask (what
        a pull reads)."""
        import cupy as cp  # noqa: PLC0415

        self._or(bitmaps)
        kernel("mark_union_vertices")(self._mark_grid(), (BLOCK,),
                                      (self.words, cp.int64(self.n), labels, cp.int32(level), self.fmask))
        return self.fmask

    def mark_counted(self, bitmaps, tallies, labels, level, degree):
        """:meth:`mark` after a push, whose claims may overlap: the frontier's size and degree sum
        counted in the same launch and read with every shard's tally; -> (the byte mask, the
        frontier's size, its degree sum, the edges the shards scanned).  When the next superstep
        pushes, :meth:`union_fixed` with no bitmaps then emits the frontier from the same words."""
        import cupy as cp  # noqa: PLC0415

        self._or(bitmaps)
        self.counters.fill(0)
        kernel("mark_union_counted")(self._mark_grid(), (BLOCK,),
                                     (self.words, cp.int64(self.n), labels, cp.int32(level), self.fmask, degree,
                                      self.counters))
        counts, scanned = self._read(self.counters, tallies)
        return self.fmask, int(counts[0]), int(counts[1]), scanned

    @staticmethod
    def _read(counters, tallies):
        """This union's four ``counters`` and every shard's tally in one read: -> (the four counters,
        the edges the shards scanned)."""
        import cupy as cp  # noqa: PLC0415

        got = cp.concatenate([counters, *tallies]).get().astype(np.int64)
        return got[:4], int(got[4:].reshape(-1, 4)[:, 2].sum())

    def _mark_grid(self):
        return (min(_blocks(max(1, self.n // 4))[0], DENSE_UNION_BLOCKS),)

    # -- after the last superstep ------------------------------------------------------------------

    def found_elsewhere(self, parents, unset):
        """The parents this shard found for vertices outside its rows (its push levels'), as
        (vertices, parents) in no particular order: one launch and one read of their count."""
        vs, us, count = self._found(parents, unset, self.out, self.n - self.num_rows)
        k = int(count.get()[0])
        return vs[:k].copy(), us[:k].copy()  # out is the next union's: the pairs may be kept (tasks)

    def found_elsewhere_fixed(self, parents, unset, cap):
        """:meth:`found_elsewhere` into fixed-size buffers, nothing read: (vertices, parents, their
        count as a one-entry device array), ``cap`` entries each; ``cap`` must bound the count (every
        shard knows it from the reports: :meth:`BFS.final_contribution
        <dgraph.algorithms.bfs.program.BFS.final_contribution>`)."""
        import cupy as cp  # noqa: PLC0415

        return self._found(parents, unset, cp.empty(max(1, cap), dtype=self.vdtype), cap)

    def _found(self, parents, unset, vs, cap):
        import cupy as cp  # noqa: PLC0415

        m = self.n - self.num_rows
        us = cp.empty(max(1, cap), dtype=self.vdtype)
        count = cp.zeros(1, dtype=cp.uint64)
        if m:
            kernel("found_elsewhere_" + dtype_suffix(self.vdtype))(
                (min(_blocks(m)[0], DENSE_UNION_BLOCKS),), (BLOCK,),
                (parents, cp.int64(self.n), cp.int64(self.row_base), cp.int64(self.row_base + self.num_rows),
                 self.vdtype.type(unset), vs, us, count, cp.int64(cap)))
        return vs, us, count

    def min_pairs(self, parents, vs, us, count, over):
        """``parents`` lowered by another shard's :meth:`found_elsewhere_fixed` (received as is: the
        count stays on the device); a count over the buffers' size is left in ``over[0]`` (a one-entry
        uint64 array, zero before), for the host to raise on."""
        import cupy as cp  # noqa: PLC0415

        kernel("min_pairs_" + dtype_suffix(self.vdtype))((min(_blocks(len(vs))[0], DENSE_UNION_BLOCKS),), (BLOCK,),
                                                        (parents, vs, us, count, cp.int64(len(vs)), over))

    def _or(self, bitmaps):
        """``self.words`` = the OR of ``bitmaps`` (one array: a copy)."""
        import cupy as cp  # noqa: PLC0415

        if len(bitmaps) == 1:
            self.words[...] = bitmaps[0]
        else:
            cp.bitwise_or(bitmaps[0], bitmaps[1], out=self.words)
            for b in bitmaps[2:]:
                cp.bitwise_or(self.words, b, out=self.words)

    def _emit(self, labels, level, degree, sparse):
        """The frontier of ``self.words`` emitted in vertex order (labels, byte mask, owned rows);
        -> the four counters, on the device."""
        import cupy as cp  # noqa: PLC0415

        kernel("word_popc")(_blocks(self.nw), (BLOCK,), (self.words, cp.int64(self.nw), self.incl))
        cp.cumsum(self.incl, out=self.incl)
        self.counters.fill(0)
        kernel(("emit_union_words_" if sparse else "emit_union_") + dtype_suffix(self.vdtype))(
            (min(_blocks(self.nw)[0], UNION_BLOCKS) if sparse else min(_blocks(self.n)[0], DENSE_UNION_BLOCKS),),
            (BLOCK,),
            (self.words, self.incl, cp.int64(self.nw), cp.int64(self.n), labels, cp.int32(level), degree, cp.int64(self.row_base),
             cp.int64(self.num_rows), self.out, self.lrows, self.fmask, self.counters))
        return self.counters

    def _frontier(self, counts):
        count, degsum, owned, owned_deg = (int(x) for x in counts)
        rows = self.lrows[:owned] if self.num_rows else None
        return self.out[:count], degsum, rows, owned_deg


__all__ = ["FrontierUnion"]
