"""GPU (CuPy) kernels of SSSP: the CUDA twins of :mod:`dgraph.backend.cpu_sssp`.

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
``skip`` on (the default for one whole shard, :func:`skip_stale`) a row whose
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

from ..config import config
from ..cuda import BLOCK, COMMON, dtype_suffix, function, multiprocessors
from .gpu_kernels import block_starts, block_starts_queued

#: the device functions (also compiled into :mod:`gpu_sssp_steps`' cooperative kernel)
DEVICE = COMMON + r"""
#define HOPS_UNSET 0x7fffffffffffffffLL

// counters (u64[8]): [0] changed-vertex queue cursor, [1] frontier edges skipped, [2] unused,
// [3] tie-list cursor, [4] near, [5] near degree sum, [6] far, [7] unused.
// CG: called from the cooperative kernel (gpu_sssp_steps), where what earlier phases of the same
// launch wrote is read through L2.
template <bool CG, typename V>
__device__ void relax_dist(const i64* __restrict__ indptr, const V* __restrict__ indices,
                           const double* __restrict__ w, int weighted, const V* frontier_rows,
                           const i64* scanned, int nf, i64 total, const double* fd,
                           const i64* fh, u64* dist_bits, i64* hops, unsigned* seen, V* out,
                           V* tv, i64* th, u64* tb, u64* counters, i64 first, int skip,
                           const int* starts) {
    // edge i = first + threadIdx.x of the frontier's edges; first is block-uniform
    i64 i = first + threadIdx.x;
    bool hit = false, tie = false;
    V v = 0;
    i64 h = 0;
    u64 bits = 0;
    int k = block_slot<CG>(scanned, nf, total, starts, first, i);
    bool go = i < total;
    V u = 0;
    double du = 0.0;
    if (go) {
        u = ld<CG>(frontier_rows + k);
        du = ld<CG>(fd + k);
        // skip (rows are vertex ids): u's distance already dropped in this superstep, so u is in the
        // next frontier and relaxes its new distance then; this candidate cannot beat that one's
        // distance (addition is monotone).  A stale read only relaxes.
        go = !(skip && ld<CG>((const u64*)dist_bits + u) < (u64)__double_as_longlong(du));
    }
    // a block that relaxes nothing (a stale hub's edges) leaves before the block-wide reservations
    if (skip && __syncthreads_and(!go)) {  // skip is the launch's: the barrier only where it can exit
        if (threadIdx.x == 0 && first < total) atomicAdd(counters + 1, (u64)min((i64)blockDim.x, total - first));
        return;
    }
    if (go) {
        i64 before = k ? ld<CG>(scanned + k - 1) : 0;
        i64 e = indptr[u] + (i - before);
        v = indices[e];
        bits = (u64)__double_as_longlong(du + (weighted ? w[e] : 1.0));
        h = ld<CG>(fh + k) + 1;
        // a stale (larger) value only costs an atomic; an overflowing sum (inf) is no path
        if (bits < 0x7ff0000000000000ull && bits <= dist_bits[v]) {
            u64 old = atomicMin(dist_bits + v, bits);
            tie = bits <= old;
            if (bits < old) {
                hops[v] = HOPS_UNSET;
                unsigned bit = 1u << (v & 31);
                hit = !(atomicOr(seen + (v >> 5), bit) & bit);
            }
        }
    }
    u64 j, slot;
    block_tally(i < total && !go, tie, hit, counters + 1, counters + 3, counters + 0, j, slot);
    if (tie) {
        tv[j] = v;
        th[j] = h;
        tb[j] = bits;
    }
    if (hit) out[slot] = v;
}

// Over the tie list (its length on the device; a block-strided loop, so
// every lane of a warp runs the same iterations).
template <bool CG, typename V>
__device__ void relax_hops(const V* tv, const i64* th, const u64* tb,
                           const u64* dist_bits, i64* hops, unsigned* seen, V* out, u64* counters) {
    i64 count = (i64)ld<CG>(counters + 3);
    i64 stride = (i64)gridDim.x * blockDim.x;
    for (i64 base = (i64)blockIdx.x * blockDim.x; base < count; base += stride) {
        i64 j = base + threadIdx.x;
        bool hit = false;
        V v = 0;
        if (j < count) {
            v = ld<CG>(tv + j);
            i64 h = ld<CG>(th + j);
            if (ld<CG>(tb + j) == ld<CG>(dist_bits + v) && h < ld<CG>(hops + v) && h < atomicMin((long long*)hops + v, (long long)h)) {
                unsigned bit = 1u << (v & 31);
                hit = !(atomicOr(seen + (v >> 5), bit) & bit);
            }
        }
        u64 k = block_reserve(hit, counters + 0);  // the loop's bounds are block-uniform
        if (hit) out[k] = v;
    }
}

template <typename V>
__device__ void tight_parents(const i64* __restrict__ indptr, const V* __restrict__ indices,
                              const double* __restrict__ w, int weighted, i64 nrows, i64 nnz,
                              i64 row_base, const V* __restrict__ rows, int nrows_map,
                              const double* __restrict__ dist, const i64* __restrict__ hops,
                              i64 source, V* par, const int* __restrict__ starts) {
    i64 first = (i64)blockIdx.x * blockDim.x;
    i64 e = first + threadIdx.x;
    // the row of edge e: the first r with indptr[r + 1] > e, searched between the rows of the
    // block's first and last edges (a search over every row per edge took 0.87 ms on rmat20)
    int lo = block_slot<false>(indptr + 1, (int)nrows, nnz, starts, first, e);
    if (e >= nnz) return;  // after the search
    V v = indices[e];
    double dv = dist[v];
    if (!(dv < __longlong_as_double(0x7ff0000000000000LL)) || (i64)v == source) return;
    V u = nrows_map ? rows[lo] : (V)(lo + row_base);
    if (__dadd_rn(dist[u], weighted ? w[e] : 1.0) == dv && hops[u] + 1 == hops[v]) atomicMin(par + v, u);
}

// Inclusive scan of x over the block (thread order); *sum gets the block's total.
__device__ __forceinline__ i64 block_scan(i64 x, i64* sum) {
    __shared__ i64 warp_total[32];
    __shared__ i64 all;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int off = 1; off < 32; off <<= 1) {
        i64 y = __shfl_up_sync(0xffffffffu, x, off);
        if (lane >= off) x += y;
    }
    if (lane == 31) warp_total[warp] = x;
    __syncthreads();
    if (threadIdx.x == 0) all = (i64)warp_offsets(warp_total);
    __syncthreads();
    x += warp_total[warp];
    *sum = all;
    __syncthreads();
    return x;
}

// An in-place inclusive scan of a[0..n) in gridDim.x tiles, one a block, in two steps with every
// block's sums in between (a grid barrier, or the next launch): tile_sums_of writes each tile's sum,
// tile_scan scans each tile from the sum of the tiles before it and returns the total.
__device__ __forceinline__ void tile_bounds(i64 n, i64& lo, i64& hi) {
    const i64 chunk = (n + gridDim.x - 1) / gridDim.x;
    lo = min((i64)blockIdx.x * chunk, n);
    hi = min(lo + chunk, n);
}
template <bool CG>
__device__ void tile_sums_of(const i64* a, i64 n, i64* tile_sums) {
    i64 lo, hi, s = 0;
    tile_bounds(n, lo, hi);
    for (i64 j = lo + threadIdx.x; j < hi; j += blockDim.x) s += ld<CG>(a + j);
    s = block_sum(s);
    if (threadIdx.x == 0) tile_sums[blockIdx.x] = s;
}
template <bool CG>
__device__ i64 tile_scan(i64* a, i64 n, const i64* tile_sums) {
    i64 lo, hi, before = 0, total = 0;
    tile_bounds(n, lo, hi);
    for (i64 b = threadIdx.x; b < (i64)gridDim.x; b += blockDim.x) {
        const i64 t = ld<CG>(tile_sums + b);
        total += t;
        if (b < (i64)blockIdx.x) before += t;
    }
    before = block_sum(before);
    total = block_sum(total);
    for (i64 base = lo; base < hi; base += blockDim.x) {  // block-uniform bounds
        const i64 j = base + threadIdx.x;
        i64 sum;
        const i64 x = block_scan(j < hi ? ld<CG>(a + j) : 0, &sum);
        if (j < hi) a[j] = before + x;
        before += sum;
    }
    return total;
}

// The receive of a single shard: each changed vertex goes to the near queue
// (dist < bound; with its (dist, hops) snapshot and degree for the next
// relaxation) or to the far list; pending marks the far ones.  The changed vertices' dedupe bits
// (``seen``) are cleared here, for the next superstep.
template <bool CG, typename V>
__device__ void split(const V* changed, const double* dist,
                      const i64* hops, double bound, unsigned char* pending,
                      const i64* __restrict__ indptr, V* near, double* fd, i64* fh, i64* ndeg, V* far,
                      u64* counters, unsigned* seen) {
    i64 count = (i64)ld<CG>(counters + 0);
    i64 stride = (i64)gridDim.x * blockDim.x;
    for (i64 base = (i64)blockIdx.x * blockDim.x; base < count; base += stride) {
        i64 i = base + threadIdx.x;
        V v = 0;
        bool is_near = false, is_far = false;
        double d = 0.0;
        i64 deg = 0;
        if (i < count) {
            v = ld<CG>(changed + i);
            d = ld<CG>(dist + v);
            is_near = d < bound;
            is_far = !is_near;
            pending[v] = is_far;
            seen[v >> 5] = 0;  // every bit of the word is a changed vertex's
            if (is_near) deg = indptr[v + 1] - indptr[v];
        }
        u64 k = block_reserve(is_near, counters + 4);  // the loop's bounds are block-uniform
        u64 kf = block_reserve(is_far, counters + 6);
        block_add(deg, counters + 5);
        if (is_near) {
            near[k] = v;
            fd[k] = d;
            fh[k] = ld<CG>(hops + v);
            ndeg[k] = deg;
        }
        if (is_far) far[kf] = v;
    }
}

// The receive of a partitioned superstep: another shard's improved (vertex, distance, hops), k of
// them, merged into this shard's state as relax_dist merges candidates (distance by atomicMin on
// the bits, hop count reset where it drops, ties to the tie list for relax_hops, every vertex that
// changed appended once to ``out``).  Where a float scatter_min converted the whole distance array
// to integer keys and back, and the merge sorted every changed vertex, each superstep paid 3.1-3.4
// ms at rmat26 whatever its size.
template <typename V>
__device__ void merge_dist(const V* __restrict__ vin, const double* __restrict__ din, const i64* __restrict__ hin,
                           i64 k, u64* dist_bits, i64* hops, unsigned* seen, V* out, V* tv, i64* th, u64* tb,
                           u64* counters) {
    i64 stride = (i64)gridDim.x * blockDim.x;
    for (i64 base = (i64)blockIdx.x * blockDim.x; base < k; base += stride) {  // block-uniform bounds
        i64 i = base + threadIdx.x;
        bool hit = false, tie = false;
        V v = 0;
        i64 h = 0;
        u64 bits = 0;
        if (i < k) {
            v = vin[i];
            bits = (u64)__double_as_longlong(din[i]);
            h = hin[i];
            if (bits <= dist_bits[v]) {
                u64 old = atomicMin(dist_bits + v, bits);
                tie = bits <= old;
                if (bits < old) {
                    hops[v] = HOPS_UNSET;
                    unsigned bit = 1u << (v & 31);
                    hit = !(atomicOr(seen + (v >> 5), bit) & bit);
                }
            }
        }
        u64 j, slot;
        block_tally(0, tie, hit, counters + 1, counters + 3, counters + 0, j, slot);
        if (tie) {
            tv[j] = v;
            th[j] = h;
            tb[j] = bits;
        }
        if (hit) out[slot] = v;
    }
}
"""

_KERNELS = r"""
extern "C" {
__global__ void merge_dist_i32(const int* vin, const double* din, const i64* hin, i64 k, u64* dist_bits, i64* hops,
                               unsigned* seen, int* out, int* tv, i64* th, u64* tb, u64* counters) {
    merge_dist<int>(vin, din, hin, k, dist_bits, hops, seen, out, tv, th, tb, counters);
}
__global__ void merge_dist_i64(const i64* vin, const double* din, const i64* hin, i64 k, u64* dist_bits, i64* hops,
                               unsigned* seen, i64* out, i64* tv, i64* th, u64* tb, u64* counters) {
    merge_dist<i64>(vin, din, hin, k, dist_bits, hops, seen, out, tv, th, tb, counters);
}
#define RELAX_DIST(S, V)                                                                                  \
__global__ void relax_dist_##S(const i64* indptr, const V* indices, const double* w, int weighted,        \
                               const V* frontier_rows, const i64* scanned, int nf, i64 total,             \
                               const double* fd, const i64* fh, u64* dist_bits, i64* hops, unsigned* seen, \
                               V* out, V* tv, i64* th, u64* tb, u64* counters, int skip,                  \
                               const int* starts, const u64* report, int queued, i64 block0) {          \
    if (queued) { /* launched ahead of the host's read: the counts split left in report */              \
        nf = (int)report[4];                                                                              \
        total = (i64)report[5];                                                                           \
    }                                                                                                     \
    const i64 first = (block0 + blockIdx.x) * (i64)blockDim.x;                                            \
    if (first >= total) return;  /* a block past the edges (a launch ahead covers a guess) */             \
    relax_dist<false, V>(indptr, indices, w, weighted, frontier_rows, scanned, nf, total, fd, fh, dist_bits, hops, \
                  seen, out, tv, th, tb, counters, first, skip, starts);                                  \
}                                                                                                         \
__global__ void relax_hops_##S(const V* tv, const i64* th, const u64* tb, const u64* dist_bits, i64* hops, \
                               unsigned* seen, V* out, u64* counters) {                                   \
    relax_hops<false, V>(tv, th, tb, dist_bits, hops, seen, out, counters);                                      \
}                                                                                                         \
__global__ void split_##S(const V* changed, const double* dist, const i64* hops, double bound,            \
                          unsigned char* pending, const i64* indptr, V* near, double* fd, i64* fh,        \
                          i64* ndeg, V* far, u64* counters, unsigned* seen) {                             \
    split<false, V>(changed, dist, hops, bound, pending, indptr, near, fd, fh, ndeg, far, counters, seen);               \
}                                                                                                         \
__global__ void tight_parents_##S(const i64* indptr, const V* indices, const double* w, int weighted,      \
                                  i64 nrows, i64 nnz, i64 row_base, const V* rows, int nrows_map,          \
                                  const double* dist, const i64* hops, i64 source, V* par,                \
                                  const int* starts) {                                                    \
    tight_parents<V>(indptr, indices, w, weighted, nrows, nnz, row_base, rows, nrows_map, dist, hops,     \
                     source, par, starts);                                                                \
}
// The host-driven superstep's tail, queued behind split before the host reads anything: the counts
// to ``report`` (and to the host's mapped copy) and the counters zeroed for the next relaxation (one
// thread: after every block of split), then the near queue's degree scan in place (``report[4]``
// entries; the next relaxation's).
__global__ void report_reset(u64* counters, u64* report, u64* host) {
    for (int j = 0; j < 8; ++j) {
        report[j] = host[j] = counters[j];  // host: mapped pinned memory, read after an event
        counters[j] = 0;
    }
}
__global__ void scan_tiles(const i64* a, const u64* count, i64* tile_sums) {
    tile_sums_of<false>(a, (i64)*count, tile_sums);
}
__global__ void scan_apply(i64* a, const u64* count, const i64* tile_sums) {
    tile_scan<false>(a, (i64)*count, tile_sums);
}
RELAX_DIST(i32, int)
RELAX_DIST(i64, i64)
}
"""

_SOURCE = DEVICE + _KERNELS


def kernel(name):
    """A kernel of this module (:func:`dgraph.cuda.function`)."""
    return function(_SOURCE, name)


def skip_stale():
    """``dgraph.config.sssp_skip_stale`` (default True): one whole shard's relaxation skips the frontier
    vertices whose distance already dropped in the same superstep (they relax the new one next).
    The answers are the same; the per-superstep records then depend on the order the GPU ran the
    edges in, so the tests that compare records with numpy turn it off."""
    return config.sssp_skip_stale


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
    import cupy as cp  # noqa: PLC0415

    if len(rows) == 0:
        return None, 0
    scanned = cp.cumsum(indptr[rows + 1] - indptr[rows])
    return scanned, int(scanned[-1])


def _relax_dist(indptr, indices, w, rows, fd, fh, scanned, nf, total, dist, hops, scratch, skip, starts, blocks,
                block0=0, queued=False):
    """Launch relax_dist over blocks block0 .. block0 + blocks of the frontier's edges; ``queued``: nf and
    total are the counts split left on the device (scratch.report), not the arguments."""
    import cupy as cp  # noqa: PLC0415

    weighted = w is not None
    kernel("relax_dist_" + dtype_suffix(indices.dtype))(
        (blocks,), (BLOCK,),
        (indptr, indices, w if weighted else fd, cp.int32(weighted), rows, scanned, cp.int32(nf), cp.int64(total),
         fd, fh, dist, hops, scratch.seen, scratch.out, scratch.tv, scratch.th, scratch.tb, scratch.counters,
         cp.int32(bool(skip)), starts, scratch.report, cp.int32(queued), cp.int64(block0)))


def relax(indptr, indices, w, rows, fd, fh, scanned, total, dist, hops, scratch, skip=False, starts=None):
    """Relax the ``total`` out-edges of local ``rows`` (snapshot distances ``fd``, hops ``fh``, degree
    scan ``scanned``) into ``dist``/``hops`` in place.  Nothing is read back: the changed vertices
    are in the scratch queue, their count on the device (:func:`changed`, :func:`split`).
    ``skip`` (rows are vertex ids, one whole shard): a row whose distance dropped below its
    snapshot during the launch is not relaxed (:func:`skip_stale`).  ``starts``: the blocks' first
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
                    _blocks(total) - ahead, block0=ahead)
    kernel("relax_hops_" + dtype_suffix(indices.dtype))(
        _grid(total), (BLOCK,), (scratch.tv, scratch.th, scratch.tb, dist, hops, scratch.seen, scratch.out,
                                 scratch.counters))


def merge(parts, dist, hops, scratch):
    """The receive of a partitioned superstep, after this shard's :func:`relax`: every other shard's
    improved ``(vertices, distances, hops)`` in ``parts`` merged into ``dist``/``hops`` in place;
    -> every vertex whose state changed this superstep (this shard's relaxation's and the merge's,
    once each, in no order).  Leaves the dedupe bitmap clean."""
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
    out = scratch.out[:int(scratch.counters[0])]
    if len(out):
        scratch.seen[out >> 5] = 0  # a set bit is a queued vertex's, so its whole word can go
    scratch.seen_clean = True
    return out


def changed(scratch):
    """The vertices the last :func:`relax` changed (a view of the scratch queue; reads the count)."""
    return scratch.out[:int(scratch.counters[0])]


def split(dist, hops, bound, pending, indptr, scratch, total, ahead=None):
    """One shard's receive after :func:`relax` over ``total`` edges (vertex ids = rows): returns
    (changed count, near queue, its distances, hops, degree scan and degree sum, far list, edges
    the relaxation skipped, the next relaxation's block starts).  Behind the split the counts are
    copied and the counters zeroed, the near queue's degrees scanned and the next relaxation's
    block starts found, all queued before the one read of the counts.

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
    kernel("split_" + dtype_suffix(vdt))(
        _grid(min(total, len(scratch.out))), (BLOCK,),
        (scratch.out, dist, hops, cp.float64(bound), pending, indptr, scratch.near, scratch.fd, scratch.fh,
         scratch.ndeg, scratch.far, scratch.counters, scratch.seen))
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


_elementwise = {}


def _elementwise_kernel(name, in_params, out_params, body):
    """A CuPy ElementwiseKernel, built once."""
    import cupy as cp  # noqa: PLC0415

    if name not in _elementwise:
        _elementwise[name] = cp.ElementwiseKernel(in_params, out_params, body, name=name)
    return _elementwise[name]


def init_state(n, source, vdt):
    """One run's (dist, hops, pending, frontier): inf / unset / False, the source at 0 / 0 and the
    frontier; two launches (the separate fills and writes were ~0.3 ms a run on rmat20)."""
    import cupy as cp  # noqa: PLC0415

    dist, hops, pending = cp.empty(n, cp.float64), cp.empty(n, cp.int64), cp.empty(n, cp.bool_)
    _elementwise_kernel("dgraph_sssp_init", "int64 s", "float64 d, int64 h, bool p",
            "d = i == s ? 0.0 : __longlong_as_double(0x7ff0000000000000LL); "
            "h = i == s ? 0 : 0x7fffffffffffffffLL; p = false")(source, dist, hops, pending)
    return dist, hops, pending, cp.full(1, source, dtype=vdt)


def orphans(dist, par):
    """The count of reached vertices (finite ``dist``) with no parent (``par`` < 0): one launch and a
    read (the expression's three launches and CuPy's reduction cost ~0.25 ms of host time, a
    ReductionKernel ~0.7 ms on H100's host)."""
    import cupy as cp  # noqa: PLC0415

    count = cp.zeros(1, dtype=cp.uint64)
    _elementwise_kernel("dgraph_sssp_orphans", "float64 d, T p", "raw uint64 c",
            "if (d < __longlong_as_double(0x7ff0000000000000LL) && p < 0) atomicAdd(&c[0], 1ull)")(dist, par, count)
    return int(count.get()[0])


def finish_parents(par, big, source):
    """In place: ``big`` (no parent) -> -1, the source its own parent; one launch."""
    _elementwise_kernel("dgraph_sssp_parents", "T big, int64 s", "T p",
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
