"""GPU (CuPy) kernels of SSSP, the CUDA twins of :mod:`dgraph.algorithms.sssp.cpu`, and the
Program's steps on them.

The CUDA source is package data beside this module: ``sssp.cuh`` (the
device functions, shared with the cooperative kernel of ``sssp_steps.cu``,
:mod:`dgraph.algorithms.sssp.solver`) and ``sssp.cu`` (the host-driven
kernels).  The implementations ``gpu-cuda*`` run them
(:func:`dgraph.algorithms.sssp.program.implementation`); the end of this
module is what the Program calls (:func:`relax_step`,
:func:`receive_whole`, :func:`parents`).

One superstep relaxes the frontier's out-edges, load-balanced over edges
(the sorted search of the BFS push):

1. distance (one thread per edge): ``atomicMin`` on the bits of ``dist[v]``
   (distances are never negative, so their IEEE bits order as unsigned
   integers); a vertex whose distance drops has its hop count reset.  A
   finite candidate that was at most ``dist[v]`` when it ran goes on a tie
   list: the only candidates that can equal the final distance (an
   overflowing sum, inf, is no path);
2. hops (one thread per tie-list entry): where the candidate equals the
   (now final) ``dist[v]``, ``atomicMin`` on ``hops[v]``.

Candidates are read from a snapshot of the frontier's (distance, hops)
taken before the launch, so with ``skip`` off a superstep relaxes exactly
what the vectorized step does and ends in the same state: the (distance,
hops) lexicographic minimum over the old state and every candidate.  With
``skip`` on (the default, ``dgraph.config.sssp_skip_stale``) a row whose
distance another thread already lowered is left for the next superstep:
the same converged answers, a state per superstep that depends on the
order the GPU ran the edges in.  Each vertex
that changed is appended once (a bitmap dedupes) to the output queue.

``split`` is the receive of a single shard: the changed vertices go to the
near queue (with the snapshot and degrees the next relaxation reads) or to
the far list.  Counts stay on the device between the launches; the host
reads all of them once per superstep, after everything the next relaxation
needs is queued (the near queue's degree scan, each block's first slot)
and, where another host-driven superstep follows, the next relaxation's
first blocks too: they run while the host reads and decides (the host's
read-then-launch gap was ~0.2-0.35 ms a superstep on an H100, 11 fat
supersteps on rmat20).

``tight_parents``: one thread per edge keeps ``u`` as a parent candidate of
``v`` when ``dist[u] + w == dist[v]`` and ``hops[u] + 1 == hops[v]``; the
smallest such ``u`` wins by ``atomicMin``: the rule of the CPU kernel.
"""

from __future__ import annotations

import numpy as np

from ...backend.gpu_fill import fill
from ...backend.gpu_kernels import block_starts, block_starts_queued, row_degree_scan
from ...cuda import BLOCK, dtype_suffix, elementwise, function, multiprocessors, source
from ...engine.program import Contribution
from .program import owned_frontier, shared_rows

#: the device functions (sssp.cuh, with common.cuh), also compiled into the cooperative kernel
#: (sssp_steps.cu, :mod:`dgraph.algorithms.sssp.solver`)
DEVICE = source(__package__, "sssp.cuh")
#: the host-driven kernels (sssp.cu: the device functions and their extern "C" launchers)
_SOURCE = source(__package__, "sssp.cu")


def kernel(name):
    """A kernel of this module (:func:`dgraph.cuda.function`)."""
    return function(_SOURCE, name)


class Scratch:
    """Per-run buffers: the changed-vertex queue and its dedupe bitmap, the tie list, the split's
    near queue (with its snapshot, degrees and, after :func:`split`, their scan and the relaxation
    blocks' first slots) and far list, the counters of all of them and the copies the kernels after
    split (on the device) and the host (mapped pinned memory) read."""

    def __init__(self, n, nnz, vdt):
        import cupy as cp  # noqa: PLC0415
        import numpy as np  # noqa: PLC0415

        m = max(n, 1)
        self.vdt = vdt
        self.nnz = int(nnz)
        self.out = cp.empty(m, dtype=vdt)
        self.counters = cp.zeros(8, dtype=cp.uint64)
        self.counters_clean = True  # all zero (split's report_reset zeroes them after copying)
        self.report = cp.zeros(8, dtype=cp.uint64)
        self.near_count = self.report[4:]  # the count the kernels after split read
        # the host's copy: pinned memory the kernel writes through its device address, read after an
        # event (no copy call: ~14 us a round trip against ~23 with get(), H100); where the device
        # cannot map host memory, a copy into it after the event
        self.report_mem = cp.cuda.alloc_pinned_memory(64)
        self.report_host = np.frombuffer(self.report_mem, np.uint64, 8)
        self.mapped = _maps_host_memory()
        self.report_dev = (np.uint64(cp.cuda.runtime.pointerGetAttributes(self.report_mem.ptr).devicePointer)
                           if self.mapped else self.report)
        self.event = cp.cuda.Event(block=False, disable_timing=True)
        self.seen = cp.zeros((n + 31) // 32 + 1, dtype=cp.uint32)
        self.seen_clean = True  # no bit set (split clears the bits of the vertices it reads)
        self.near = cp.empty(m, dtype=vdt)
        self.fd = cp.empty(m, dtype=cp.float64)
        self.fh = cp.empty(m, dtype=cp.int64)
        self.ndeg = cp.empty(m, dtype=cp.int64)
        self.far = cp.empty(m, dtype=vdt)
        self.tiles = 2 * multiprocessors()
        self.tile_sums = cp.empty(self.tiles, dtype=cp.int64)
        # the near queue is duplicate-free, so its edges are at most nnz
        self.starts = cp.empty(max(int(nnz), 1) // BLOCK + 2, dtype=cp.int32)
        self.tv = self.th = self.tb = None
        self.ahead = None  # blocks of the next relaxation split launched before the read (relax does the rest)
        self.near_ids = None  # a partition's split: the vertex ids of its near queue's rows
        self.route_counts = self.bounds = None  # a routed partition's (route)

    def read_report(self):
        """The counts report_reset copied (waits for the event recorded after it)."""
        self.event.synchronize()
        if not self.mapped:
            self.report.get(out=self.report_host)
        return self.report_host.tolist()

    def ties(self, total, keep=0, exact=False):
        """The tie list's buffers, for up to ``total`` candidates (grown as needed; ``keep``: a
        relaxation launched ahead may have appended up to that many, so a larger list starts with
        them; ``exact``: no room to grow in)."""
        import cupy as cp  # noqa: PLC0415

        if self.tv is None or len(self.tv) < total:
            old = (self.tv, self.th, self.tb)
            # room to double, but never past nnz (a superstep's edges): a fat superstep's list is then
            # seldom grown again (a grow after a launch ahead copies the list: 0.3 ms on rmat20)
            room = 0 if exact else min(self.nnz, 2 * max(int(total), 0 if self.tv is None else len(self.tv)))
            cap = max(int(total), room, 1024)
            self.tv = cp.empty(cap, dtype=self.vdt)
            self.th = cp.empty(cap, dtype=cp.int64)
            self.tb = cp.empty(cap, dtype=cp.uint64)
            if keep and old[0] is not None:
                kept = min(int(keep), len(old[0]))
                for new, was in zip((self.tv, self.th, self.tb), old):
                    new[:kept] = was[:kept]
        return self.tv, self.th, self.tb


_maps = {}


def _maps_host_memory():
    """True when kernels on the current device can write pinned host memory through a device address
    (unified addressing and host-memory mapping: every 64-bit CUDA platform but a few special modes)."""
    import cupy as cp  # noqa: PLC0415

    dev = cp.cuda.Device().id
    if dev not in _maps:
        rt = cp.cuda.runtime
        can_map, unified = 19, 41  # cudaDevAttrCanMapHostMemory, cudaDevAttrUnifiedAddressing
        _maps[dev] = bool(rt.deviceGetAttribute(can_map, dev) and rt.deviceGetAttribute(unified, dev))
    return _maps[dev]


def _grid(count, cap=4096):
    return (max(1, min((int(count) + BLOCK - 1) // BLOCK, cap)),)


def _blocks(edges):
    return (int(edges) + BLOCK - 1) // BLOCK


def frontier_scan(indptr, rows):
    """(inclusive scan of the degrees of ``rows``, their sum): what the load-balanced relaxation needs."""
    if len(rows) == 0:
        return None, 0
    scanned = row_degree_scan(indptr, rows)
    return scanned, int(scanned[-1])


def _relax_dist(indptr, indices, w, rows, fd, fh, scanned, nf, total, dist, hops, scratch, skip, starts, blocks,
                block0=0, queued=False, ids=None):
    """Launch relax_dist over blocks block0 .. block0 + blocks of the frontier's edges; ``queued``: nf and
    total are the counts split left on the device (scratch.report), not the arguments; ``ids``: the
    rows' vertex ids on a partition (None: rows are vertex ids)."""
    import cupy as cp  # noqa: PLC0415

    weighted = w is not None
    kernel("relax_dist_" + dtype_suffix(indices.dtype))(
        (blocks,), (BLOCK,),
        (indptr, indices, w if weighted else fd, cp.int32(weighted), rows, cp.uint64(0) if ids is None else ids,
         scanned, cp.int32(nf), cp.int64(total),
         fd, fh, dist, hops, scratch.seen, scratch.out, scratch.tv, scratch.th, scratch.tb, scratch.counters,
         cp.int32(bool(skip)), starts, scratch.report, cp.int32(queued), cp.int64(block0)))


def relax(indptr, indices, w, rows, fd, fh, scanned, total, dist, hops, scratch, skip=False, starts=None, ids=None):
    """Relax the ``total`` out-edges of local ``rows`` (snapshot distances ``fd``, hops ``fh``, degree
    scan ``scanned``) into ``dist``/``hops`` in place.  Nothing is read back: the changed vertices
    are in the scratch queue, their count on the device (:func:`relax_step` reads it, or :func:`split`).
    ``skip``: a row whose distance dropped below its snapshot during the launch is not relaxed
    (``dgraph.config.sssp_skip_stale``: the same answers, per-superstep records that follow the order
    the GPU ran the edges in); ``ids``: the rows' vertex ids, which ``skip`` reads the distances of,
    on a partition (None where rows are vertex ids).  ``starts``: the blocks' first
    slots when :func:`split` queued them (else one more launch finds them).  Where split already
    launched the first blocks (``scratch.ahead``), only the rest are launched."""
    ahead, scratch.ahead = scratch.ahead, None
    nf = len(rows)
    if ahead is None:
        if not scratch.counters_clean:
            scratch.counters.fill(0)
        if nf == 0 or total == 0:
            scratch.counters_clean = True
            return
        scratch.counters_clean = False
        if not scratch.seen_clean:
            scratch.seen.fill(0)
        scratch.seen_clean = False
        ahead = 0
    scratch.ties(total, keep=ahead * BLOCK)  # the launch ahead appended at most a tie an edge
    if starts is None:
        starts = block_starts(scanned, nf, total, scratch.starts)
    if _blocks(total) > ahead:
        _relax_dist(indptr, indices, w, rows, fd, fh, scanned, nf, total, dist, hops, scratch, skip, starts,
                    _blocks(total) - ahead, block0=ahead, ids=ids)
    kernel("relax_hops_" + dtype_suffix(indices.dtype))(
        _grid(total), (BLOCK,), (scratch.tv, scratch.th, scratch.tb, dist, hops, scratch.seen, scratch.out,
                                 scratch.counters))


def merge(parts, dist, hops, scratch):
    """The receive of a partitioned superstep, after this shard's :func:`relax`: every other shard's
    improved ``(vertices, distances, hops)`` in ``parts`` merged into ``dist``/``hops`` in place.
    Nothing is read back: every vertex whose state changed this superstep (this shard's
    relaxation's and the merge's, once each, in no order) is in the scratch queue, its count on the
    device, for :func:`split` (which clears their dedupe bits)."""
    import cupy as cp  # noqa: PLC0415

    k = sum(len(v) for v, _, _ in parts)
    vdt = scratch.out.dtype
    if k:
        scratch.ties(k)
        scratch.counters[3:4].fill(0)  # the tie list: relax_hops consumed the relaxation's
        for v, d, h in parts:
            if len(v):
                kernel("merge_dist_" + dtype_suffix(vdt))(
                    _grid(len(v)), (BLOCK,),
                    (v.astype(vdt, copy=False), d, h, cp.int64(len(v)), dist, hops, scratch.seen, scratch.out,
                     scratch.tv, scratch.th, scratch.tb, scratch.counters))
        kernel("relax_hops_" + dtype_suffix(vdt))(
            _grid(k), (BLOCK,), (scratch.tv, scratch.th, scratch.tb, dist, hops, scratch.seen, scratch.out,
                                 scratch.counters))
        scratch.counters_clean = False


def split(dist, hops, bound, pending, indptr, scratch, total, ahead=None, owned=None, routed=False):
    """One shard's receive after :func:`relax` over ``total`` edges (vertex ids = rows): returns
    (changed count, near queue, its distances, hops, degree scan and degree sum, far list, edges
    the relaxation skipped, the next relaxation's block starts).  Behind the split the counts are
    copied and the counters zeroed, the near queue's degrees scanned and the next relaxation's
    block starts found, all queued before the one read of the counts.

    ``owned`` (a partition: :func:`owned_rows`): only the near vertices this shard owns are queued,
    as local rows, their ids in ``scratch.near_ids`` (see :func:`receive_partition`); ``routed``
    (with ``owned``): the vertices it does not own are left out of near, far and pending, and the
    changed vertices it owns are counted (see :func:`receive_routed`).

    ``ahead`` = (indices, weights or None, skip): the next superstep relaxes the near queue on the
    host's kernels (the caller calls :func:`relax` on it next if it is not empty), so its first
    blocks, as many as this relaxation had (whole blocks within the tie list), are launched before
    the read too and run while the host reads and decides; blocks past the near queue's edges
    return at once, and an empty near queue cancels the launch (it wrote nothing)."""
    import cupy as cp  # noqa: PLC0415

    vdt = scratch.out.dtype
    if not total:  # no relaxation ran: nothing changed
        none = scratch.near[:0]
        return 0, none, scratch.fd[:0], scratch.fh[:0], None, 0, none, 0, None
    lo, rows, local_of, mapped, near_ids = owned or (0, len(indptr) - 1, scratch.counters, 0, cp.uint64(0))
    kernel("split_" + dtype_suffix(vdt))(
        _grid(min(total, len(scratch.out))), (BLOCK,),
        (scratch.out, dist, hops, cp.float64(bound), pending, indptr, scratch.near, scratch.fd, scratch.fh,
         scratch.ndeg, scratch.far, scratch.counters, scratch.seen, cp.int64(lo), cp.int64(rows), local_of,
         cp.int32(mapped), near_ids, cp.int32(bool(routed))))
    scratch.seen_clean = True  # every set bit was a changed vertex's, and split cleared its word
    kernel("report_reset")((1,), (1,), (scratch.counters, scratch.report, scratch.report_dev))
    scratch.event.record()
    scratch.counters_clean = True
    kernel("scan_tiles")((scratch.tiles,), (BLOCK,), (scratch.ndeg, scratch.near_count, scratch.tile_sums))
    kernel("scan_apply")((scratch.tiles,), (BLOCK,), (scratch.ndeg, scratch.near_count, scratch.tile_sums))
    starts = block_starts_queued(scratch.ndeg, scratch.report, 4, scratch.starts)
    blocks = 0 if ahead is None or scratch.tv is None else min(total, len(scratch.tv)) // BLOCK  # within the list
    if blocks:
        indices, w, skip = ahead
        _relax_dist(indptr, indices, w, scratch.near, scratch.fd, scratch.fh, scratch.ndeg, 0, 0, dist, hops,
                    scratch, skip, starts, blocks, queued=True)
        scratch.ahead = blocks
        scratch.seen_clean = scratch.counters_clean = False
    c = scratch.read_report()
    nchanged, nnear, degsum, nfar = c[0], c[4], c[5], c[6]
    if not nnear and scratch.ahead is not None:  # the launch ahead found no edges: it wrote nothing
        scratch.ahead = None
        scratch.seen_clean = scratch.counters_clean = True
    return (nchanged, scratch.near[:nnear], scratch.fd[:nnear], scratch.fh[:nnear],
            scratch.ndeg[:nnear] if nnear else None, degsum, scratch.far[:nfar], c[1], starts if nnear else None)


def init_state(n, source, vdt):
    """One run's (dist, hops, pending, frontier): inf / unset / False, the source at 0 / 0 and the
    frontier; two launches (the separate fills and writes were ~0.3 ms a run on rmat20)."""
    import cupy as cp  # noqa: PLC0415

    dist, hops, pending = cp.empty(n, cp.float64), cp.empty(n, cp.int64), cp.empty(n, cp.bool_)
    elementwise("dgraph_sssp_init", "int64 s", "float64 d, int64 h, bool p",
                "d = i == s ? 0.0 : __longlong_as_double(0x7ff0000000000000LL); "
                "h = i == s ? 0 : 0x7fffffffffffffffLL; p = false")(source, dist, hops, pending)
    return dist, hops, pending, cp.full(1, source, dtype=vdt)


def orphans(dist, par):
    """The count of reached vertices (finite ``dist``) with no parent (``par`` < 0): one launch and a
    read (the expression's three launches and CuPy's reduction cost ~0.25 ms of host time, a
    ReductionKernel ~0.7 ms on H100's host)."""
    import cupy as cp  # noqa: PLC0415

    count = cp.zeros(1, dtype=cp.uint64)
    elementwise("dgraph_sssp_orphans", "float64 d, T p", "raw uint64 c",
                "if (d < __longlong_as_double(0x7ff0000000000000LL) && p < 0) atomicAdd(&c[0], 1ull)")(dist, par, count)
    return int(count.get()[0])


def finish_parents(par, big, source):
    """In place: ``big`` (no parent) -> -1, the source its own parent; one launch."""
    elementwise("dgraph_sssp_parents", "T big, int64 s", "T p",
                "p = i == s ? (T)s : (p == big ? (T)-1 : p)")(par.dtype.type(big), source, par)
    return par



def tight_parents(indptr, indices, w, row_base, rows, dist, hops, source, par):
    """par[v] = min(par[v], the smallest tight, one-hop-closer u over this CSR's edges u -> v)."""
    import cupy as cp  # noqa: PLC0415

    nrows, nnz = len(indptr) - 1, len(indices)
    if nrows <= 0 or nnz == 0:
        return par
    weighted = w is not None
    kernel("tight_parents_" + dtype_suffix(indices.dtype))(((nnz + BLOCK - 1) // BLOCK,), (BLOCK,),
         (indptr, indices, w if weighted else dist, cp.int32(weighted), cp.int64(nrows), cp.int64(nnz),
          cp.int64(row_base), rows, cp.int32(len(rows) > 0), dist, hops, cp.int64(source), par,
          block_starts(indptr[1:], nrows, nnz)))
    return par


# -- the Program's steps on CuPy (the vectorized code in program.py is their reference) ------------

def relax_step(shard, st, whole):
    """SSSP.superstep on CuPy: relax in place (:func:`relax`), contribute what changed (nothing to
    contribute when ``whole``: the shard is the whole graph, received by :func:`receive_whole`)."""
    if st.scratch is None:
        st.scratch = Scratch(shard.n, len(shard.indices), shard.indices.dtype)
    starts = None
    if st.snap is not None and len(st.snap) == 7:  # a partition's split left its own rows and their snapshot
        rows, gids, fd, fh, scanned, total, starts = st.snap
        st.snap = None
    else:
        rows, gids = owned_frontier(shard, st.frontier)
        if st.snap is not None:  # the single shard's last split (or launch) left the frontier's snapshot
            fd, fh, scanned, total, starts = st.snap
            st.snap = None
        else:
            fd, fh = st.dist[gids], st.hops[gids]
            scanned, total = frontier_scan(shard.indptr, rows)
    relax(shard.indptr, shard.indices, st.w64, rows, fd, fh, scanned, total, st.dist, st.hops, st.scratch,
          skip=st.skip, starts=starts, ids=None if rows is gids else gids)
    if whole:  # received at once by this shard (receive_whole): dist/hops are already written
        return Contribution({}, {"edges": int(total)})
    if st.routed:  # each changed vertex another shard owns goes to that shard alone
        skipped, routes = route(shard, st)
        arrays = {}
    else:
        count, skipped = (int(x) for x in st.scratch.counters[0:2].get())  # one read: changed, skipped edges
        out = st.scratch.out[:count].copy()  # the queue is scratch: reused by the next superstep
        arrays, routes = {"v": out, "d": st.dist[out], "h": st.hops[out]}, None
    counters = {"edges": int(total), "skipped": skipped} if st.skip else {"edges": int(total)}
    return Contribution(arrays, counters, routes=routes)


def route(shard, st):
    """A routed partition's contribution after :func:`relax`: (edges skipped, one dict of (vertex,
    distance, hops) arrays a shard) of the vertices whose state this shard changed, each to the shard
    that owns it (vertex ranges); the ones it owns stay in the changed queue for its own
    :func:`split`.  Two launches and one read (the queue's length, the skipped edges and every
    owner's count)."""
    import cupy as cp  # noqa: PLC0415

    sc = st.scratch
    p, q = shard.num_parts, shard.part
    suffix = dtype_suffix(sc.vdt)
    if sc.bounds is None:
        sc.bounds = cp.asarray(np.asarray(shard.range_bounds(), dtype=np.int64))
        # [queue length, skipped edges, each owner's count, each owner's cursor]: one fill a superstep
        sc.route_counts = cp.empty(2 + 2 * p, dtype=cp.uint64)
    counts_at, cursors = sc.route_counts[:2 + p], sc.route_counts[2 + p:]
    sc.route_counts.fill(0)
    kernel("route_count_" + suffix)((sc.tiles,), (BLOCK,), (sc.out, sc.counters, sc.bounds, cp.int32(p), counts_at))
    got = [int(x) for x in counts_at.get()]  # the one read
    count, skipped, counts = got[0], got[1], got[2:]
    total = sum(counts) - counts[q]
    rv = cp.empty(total, dtype=sc.vdt)
    rd = cp.empty(total, dtype=cp.float64)
    rh = cp.empty(total, dtype=cp.int64)
    if total:
        kernel("route_scatter_" + suffix)(
            _grid(count), (BLOCK,), (sc.out, cp.int64(count), sc.bounds, cp.int32(p), cp.int32(q), counts_at,
                                     st.dist, st.hops, cursors, rv, rd, rh))
    routes, at = [], 0
    for j in range(p):
        c = 0 if j == q else counts[j]
        routes.append({"v": rv[at:at + c], "d": rd[at:at + c], "h": rh[at:at + c]})
        at += c
    return skipped, routes


def _shared_sums(share, values):
    """Each of ``values`` summed over the shards (:func:`.program.shared_rows`), as ints."""
    return [int(x) for x in shared_rows(share, values).sum(axis=0)]


def receive_routed(shard, st, parts, edges, next_bucket, share):
    """SSSP.receive of a routed partition (each shard holds the state of the vertices it owns; the
    others' entries are what it last offered them): the improvements other shards sent it merged,
    its own near vertices queued, and the counts every shard needs for the next decision summed over
    the shards through ``share`` (:attr:`dgraph.engine.program.StepContext.share`).  ``next_bucket``:
    the Program's, which then agrees on the closest far vertex through the same collective."""
    merge(parts, st.dist, st.hops, st.scratch)
    _, rows, fd, fh, scanned, total, far, _, starts = split(
        st.dist, st.hops, st.bound, st.pending, shard.indptr, st.scratch, max(shard.n, 1),
        owned=owned_rows(shard, st.scratch), routed=True)
    improved = int(st.scratch.report_host[2])  # read with the others: the changed vertices it owns
    if len(far):
        st.pile = shard.xp.concatenate([st.pile, far])
    st.snap = (rows, st.scratch.near_ids[:len(rows)], fd, fh, scanned, total, starts)
    st.frontier = None
    nnear, nfar, improved = _shared_sums(share, [len(rows), len(st.pile), improved])
    if nnear == 0 and nfar:
        st.frontier = next_bucket(st, share=share)
        st.snap = None
        nnear, nfar = _shared_sums(share, [len(st.frontier), len(st.pile)])
    return {"frontier": nnear, "far": nfar, "bound": st.bound, "improved": improved, "edges": edges}


def receive_whole(shard, st, c, next_bucket, ahead=False):
    """SSSP.receive of the single whole shard on CuPy: the same updates (relax already wrote
    dist/hops), the near/far split in one launch that also snapshots the next frontier for the
    relaxation; ``next_bucket``: the Program's, when near is empty; ``ahead``: the caller relaxes
    the next frontier next (see :func:`split`)."""
    edges = int(c.counters["edges"])
    improved, frontier, fd, fh, scanned, total, far, skipped, starts = split(
        st.dist, st.hops, st.bound, st.pending, shard.indptr, st.scratch, edges,
        ahead=(shard.indices, st.w64, st.skip) if ahead else None)
    if len(far):
        st.pile = shard.xp.concatenate([st.pile, far])
    st.snap = (fd, fh, scanned, total, starts)
    if len(frontier) == 0 and len(st.pile):
        frontier = next_bucket(st)
        st.snap = None
    st.frontier = frontier
    return {"frontier": len(frontier), "far": len(st.pile), "bound": st.bound, "improved": improved,
            "edges": edges, "skipped": skipped}


def owned_rows(shard, scratch):
    """What :func:`split` needs to queue only a partition's own near vertices: (first id, rows, the
    id -> local row map or a dummy, whether it is used, the queue of the rows' vertex ids)."""
    import cupy as cp  # noqa: PLC0415

    if scratch.near_ids is None:
        scratch.near_ids = cp.empty(len(scratch.near), dtype=scratch.vdt)
    if shard.contiguous:
        return shard.row_base, shard.num_rows, scratch.counters, 0, scratch.near_ids
    return 0, shard.num_rows, shard.local_of(), 1, scratch.near_ids


def receive_partition(shard, st, parts, edges, next_bucket):
    """SSSP.receive of a partition on CuPy: the others' improvements ``parts`` merged, then one
    split launch queues the near vertices this shard owns with their snapshot, degrees, scan and the
    next relaxation's block starts, and lists the far ones, all before one read of the counts (the
    vectorized receive took a dozen array operations over the changed vertices, three of them read
    back, and the next superstep found its own rows and scanned their degrees again).  ``edges``:
    the superstep's frontier edges over every shard; ``next_bucket``: the Program's."""
    merge(parts, st.dist, st.hops, st.scratch)
    improved, rows, fd, fh, scanned, total, far, _, starts = split(
        st.dist, st.hops, st.bound, st.pending, shard.indptr, st.scratch, max(shard.n, 1),
        owned=owned_rows(shard, st.scratch))
    nnear = int(st.scratch.report_host[2])  # read with the others: every shard's near vertices
    if len(far):
        st.pile = shard.xp.concatenate([st.pile, far])
    st.snap = (rows, st.scratch.near_ids[:len(rows)], fd, fh, scanned, total, starts)
    st.frontier = None  # the near vertices of the other shards are not kept: only nnear is
    if nnear == 0 and len(st.pile):
        st.frontier = next_bucket(st)
        st.snap = None
        nnear = len(st.frontier)
    return {"frontier": nnear, "far": len(st.pile), "bound": st.bound, "improved": improved, "edges": edges}


def parents(shard, st, source):
    """The smallest tight, one-hop-closer in-neighbor per vertex over this shard's out-edges
    (st.big where none): one :func:`tight_parents` launch."""
    par = fill(shard.xp.empty(shard.n, dtype=shard.indices.dtype), st.big)
    return tight_parents(shard.indptr, shard.indices, st.w64, shard.row_base, shard.rows, st.dist,
                         st.hops, source, par)
