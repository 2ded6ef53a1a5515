"""GPU (CuPy backend) kernels: the CUDA twins of ``cpu_kernels``.

Same inputs, outputs and tie rule as the CPU kernels (see there for the
shard layout: local rows, global ids); the parallel versions reach the
smallest-id parent with ``atomicMin``.  Unvisited parents hold ``INT_MAX``
of their dtype (the caller maps it to -1 at the end).  Output queues and
counters are appended per block (one atomic per block, not per thread).
Compiled on first use; CuPy caches the binaries on disk.
"""

from __future__ import annotations

COMMON = r"""
typedef long long i64;
typedef unsigned long long u64;

// counters: [0] vertices claimed (= output cursor), [1] their degree sum,
// [2] edges scanned, [3] unused.
// Every lane of the warp must call this (no early returns in the kernels).
template <typename V>
__device__ __forceinline__ void warp_emit(bool hit, V v, i64 deg, i64 scanned, V* out, u64* counters) {
    const unsigned full = 0xffffffffu;
    unsigned ballot = __ballot_sync(full, hit);
    int lane = threadIdx.x & 31;
    i64 d = hit ? deg : 0;
    for (int off = 16; off > 0; off >>= 1) {
        d += __shfl_down_sync(full, d, off);
        scanned += __shfl_down_sync(full, scanned, off);
    }
    u64 base = 0;
    if (lane == 0) {
        if (ballot) {
            base = atomicAdd(counters + 0, (u64)__popc(ballot));
            atomicAdd(counters + 1, (u64)d);
        }
        if (scanned) atomicAdd(counters + 2, (u64)scanned);
    }
    base = __shfl_sync(full, base, 0);
    if (hit) out[base + __popc(ballot & ((1u << lane) - 1u))] = v;
}

// Block-wide versions (every thread of the block must call them, the same number of times): one
// atomic per block instead of one per warp.  A pull step over millions of vertices made ~260k
// same-address atomics a superstep with warp_emit (H100, BFS rmat20: 1.95 -> 1.41 ms with these).

// In place: counts[w] (one a warp of the block) -> the sum of the counts before it; returns the total.
template <typename T>
__device__ __forceinline__ u64 warp_offsets(T* counts) {
    u64 c = 0;
    for (int w = 0; w < (int)((blockDim.x + 31) >> 5); ++w) {
        T h = counts[w];
        counts[w] = (T)c;
        c += h;
    }
    return c;
}

// The slot of each flagged thread in an append of the block's flagged threads at *cursor.
__device__ __forceinline__ u64 block_reserve(bool flag, u64* cursor) {
    __shared__ unsigned warp_off[32];
    __shared__ u64 block_base;
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    unsigned ballot = __ballot_sync(0xffffffffu, flag);
    if (lane == 0) warp_off[warp] = __popc(ballot);
    __syncthreads();
    if (threadIdx.x == 0) {
        u64 c = warp_offsets(warp_off);
        block_base = c ? atomicAdd(cursor, c) : 0;
    }
    __syncthreads();
    u64 pos = block_base + warp_off[warp] + __popc(ballot & ((1u << lane) - 1u));
    __syncthreads();  // the shared slots are free for the next call
    return pos;
}

// The block's sum of x, in every thread.
__device__ __forceinline__ i64 block_sum(i64 x) {
    __shared__ i64 part[32];
    __shared__ i64 total;
    for (int off = 16; off > 0; off >>= 1) x += __shfl_down_sync(0xffffffffu, x, off);
    if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = x;
    __syncthreads();
    if (threadIdx.x == 0) {
        i64 s = 0;
        for (int w = 0; w < (int)((blockDim.x + 31) >> 5); ++w) s += part[w];
        total = s;
    }
    __syncthreads();
    i64 r = total;
    __syncthreads();  // the shared slots are free for the next call
    return r;
}

// *target += the block's sum of x.
__device__ __forceinline__ void block_add(i64 x, u64* target) {
    i64 s = block_sum(x);
    if (threadIdx.x == 0 && s) atomicAdd(target, (u64)s);
}

// The GPU's clock in ns (the per-step records of the multi-step launches).
__device__ __forceinline__ u64 now_ns() {
    u64 t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// warp_emit for a whole block: counters [0] cursor, [1] degree sum, [2] edges scanned.
template <typename V>
__device__ __forceinline__ void block_emit(bool hit, V v, i64 deg, i64 scanned, V* out, u64* counters) {
    u64 pos = block_reserve(hit, counters + 0);
    if (hit) out[pos] = v;
    block_add(hit ? deg : 0, counters + 1);
    block_add(scanned, counters + 2);
}

// The frontier slot of the i-th frontier edge: the first slot whose inclusive
// degree scan exceeds i (Gunrock's load-balanced advance: sorted search).
// Loads of what a cooperative kernel writes while it runs go through L2 (CG: __ldcg; L1 is not
// coherent across blocks); the one-launch-per-step kernels read it as usual.
template <bool CG, typename T>
__device__ __forceinline__ T ld(const T* p) {
    if constexpr (CG) return __ldcg(p); else return *p;
}

template <bool CG = false>
__device__ __forceinline__ int slot_between(const i64* __restrict__ scanned, int lo, int hi, i64 i) {
    while (lo < hi) {
        int mid = (lo + hi) >> 1;
        if (ld<CG>(scanned + mid) > i) hi = mid; else lo = mid + 1;
    }
    return lo;
}
template <bool CG = false>
__device__ __forceinline__ int frontier_slot(const i64* __restrict__ scanned, int nf, i64 i) {
    return slot_between<CG>(scanned, 0, nf - 1, i);
}

// The same for edge i of a launch of one thread per frontier edge (blocks of consecutive edges):
// the block finds the slots of its first and last edges once, and each thread searches only
// between them (on rmat20 a block's 256 edges span a few frontier vertices, where a search over
// the whole frontier is ~20 dependent loads).  Every thread of the block must call it.
// ``first``: the block's first edge (a grid-stride loop passes each round's).
template <bool CG = false>
__device__ __forceinline__ int block_frontier_slot_from(const i64* __restrict__ scanned, int nf, i64 total,
                                                        i64 first, i64 i) {
    __shared__ int range[2];
    i64 last = min(first + (i64)blockDim.x, total) - 1;
    if (threadIdx.x == 0) range[0] = first < total ? frontier_slot<CG>(scanned, nf, first) : 0;
    if (threadIdx.x == 32 % blockDim.x) range[1] = first < total ? frontier_slot<CG>(scanned, nf, last) : 0;
    __syncthreads();
    int slot = i < total ? slot_between<CG>(scanned, range[0], range[1], i) : 0;
    __syncthreads();  // the shared pair is free for the next call
    return slot;
}
__device__ __forceinline__ int block_frontier_slot(const i64* __restrict__ scanned, int nf, i64 total, i64 i) {
    return block_frontier_slot_from(scanned, nf, total, (i64)blockIdx.x * blockDim.x, i);
}
// The same with the blocks' first slots known (``starts``, from the block_starts kernel: the edges of
// block b = first / blockDim.x lie between slots starts[b] and starts[b + 1]): no search over the whole frontier and no
// barrier.  Where a block's two searches of ~20 dependent loads each ran before any of its threads
// could go on, the barrier was the kernel's largest stall (ncu, SSSP rmat20: 21 of 39 cycles an
// instruction).  ``starts`` null: block_frontier_slot_from (every thread must call it then).
template <bool CG = false>
__device__ __forceinline__ int block_slot(const i64* __restrict__ scanned, int nf, i64 total,
                                          const int* __restrict__ starts, i64 first, i64 i) {
    if (starts) {
        const i64 b = first / blockDim.x;
        return i < total ? slot_between<CG>(scanned, starts[b], starts[b + 1], i) : 0;
    }
    return block_frontier_slot_from<CG>(scanned, nf, total, first, i);
}

// block_reserve of two flags and block_add of a count in three barriers (they took nine apart):
// *pa, *pb = the thread's slots in the appends at *ca (flag fa) and *cb (flag fb); *cx += the sum of x.
__device__ __forceinline__ void block_tally(i64 x, bool fa, bool fb, u64* cx, u64* ca, u64* cb, u64& pa,
                                            u64& pb) {
    __shared__ unsigned oa[32], ob[32];
    __shared__ i64 xs[32];
    __shared__ u64 base[2];
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    unsigned ba = __ballot_sync(0xffffffffu, fa), bb = __ballot_sync(0xffffffffu, fb);
    for (int off = 16; off > 0; off >>= 1) x += __shfl_down_sync(0xffffffffu, x, off);
    if (lane == 0) { oa[warp] = __popc(ba); ob[warp] = __popc(bb); xs[warp] = x; }
    __syncthreads();
    if (threadIdx.x == 0) {
        u64 c = warp_offsets(oa);
        i64 sx = 0;
        for (int w = 0; w < (int)((blockDim.x + 31) >> 5); ++w) sx += xs[w];
        base[0] = c ? atomicAdd(ca, c) : 0;
        if (sx) atomicAdd(cx, (u64)sx);
    }
    if (threadIdx.x == 32 % blockDim.x) {  // the second append's atomic in another warp, in parallel
        u64 c = warp_offsets(ob);
        base[1] = c ? atomicAdd(cb, c) : 0;
    }
    __syncthreads();
    unsigned below = (1u << lane) - 1u;
    pa = base[0] + oa[warp] + __popc(ba & below);
    pb = base[1] + ob[warp] + __popc(bb & below);
    __syncthreads();  // the shared slots are free for the next call
}
"""

_SOURCE = COMMON + r"""
// Top-down step, load-balanced over edges: thread i handles the i-th edge
// leaving the frontier; a binary search in the inclusive scan of frontier
// degrees finds its source (Gunrock's LB advance).
template <typename V>
__device__ void push_lb(const i64* __restrict__ indptr, const V* __restrict__ indices,
                        const V* __restrict__ frontier_rows, const i64* __restrict__ scanned,
                        int nf, i64 total, i64 row_base, const V* __restrict__ rows, int nrows_map,
                        int* labels, V* parents, int level, const i64* __restrict__ degree,
                        V* out, u64* counters) {
    i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    bool claimed = false;
    i64 deg = 0;
    V v = 0;
    int lo = block_frontier_slot(scanned, nf, total, i);
    if (i < total) {
        V r = frontier_rows[lo];
        V u = nrows_map ? rows[r] : (V)(r + row_base);
        i64 before = lo ? scanned[lo - 1] : 0;
        v = indices[indptr[r] + (i - before)];
        int lab = labels[v];
        if (lab == -1 || lab == level) {
            if (lab == -1 && atomicCAS(labels + v, -1, level) == -1) {
                claimed = true;
                deg = degree[v];
            }
            atomicMin(parents + v, u);
        }
    }
    block_emit<V>(claimed, v, deg, 0, out, counters);
}

// Bottom-up step: one thread per owned vertex scans its in-edges and stops
// at the first one whose source is in the frontier (sorted: smallest parent).
template <typename V>
__device__ void pull_thread(const i64* __restrict__ cindptr, const V* __restrict__ cindices,
                            const unsigned char* __restrict__ fmask, i64 nrows, i64 row_base,
                            const V* __restrict__ rows, int nrows_map, int* labels, V* parents,
                            int level, const i64* __restrict__ degree, V* out, u64* counters) {
    i64 r = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    bool found = false;
    i64 deg = 0, scanned = 0;
    V v = 0;
    if (r < nrows) {
        v = nrows_map ? rows[r] : (V)(r + row_base);
        if (labels[v] == -1) {
            i64 end = cindptr[r + 1];
            for (i64 e = cindptr[r]; e < end; ++e) {
                ++scanned;
                V u = cindices[e];
                if (fmask[u]) {
                    labels[v] = level;
                    parents[v] = u;
                    found = true;
                    deg = degree[v];
                    break;
                }
            }
        }
    }
    block_emit<V>(found, v, deg, scanned, out, counters);
}

// out[r] = sum of x[indices[e]] over row r, load-balanced and deterministic:
// every row is cut into segments of at most SEG_LANES * SEG_ITER edges (a
// row of degree 0 has none: its total is 0); SEG_LANES lanes sum a segment, each
// lane its strided edges in order, then a fixed shuffle tree (seg_sum); a row
// of more than FOLD_MIN segments (a hub) has them added by a warp, lane l its
// segments l, l + 32, ... in order, then a fixed shuffle tree, into its first
// segment (seg_fold), which then stands for the row (segend); a thread per row
// adds its segments in order (seg_total).  No atomics: a vertex's sum is the
// same whatever the partitioning or the launch.
#define SEG_LANES 8  // 4 and 16 were slower (H100, rmat20 PageRank: 0.452-0.469 vs 0.435-0.454 ms/iter)
#define SEG_ITER 8
template <typename V>
__device__ void seg_sum(const i64* __restrict__ indptr, const V* __restrict__ indices,
                        const double* __restrict__ x, const i64* __restrict__ segptr,
                        const i64* __restrict__ seg_row, double* partial, i64 nseg) {
    i64 t = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    i64 s = t / SEG_LANES;
    int lane = threadIdx.x % SEG_LANES;
    double acc = 0.0;
    if (s < nseg) {
        i64 r = seg_row[s];
        i64 start = indptr[r] + (s - segptr[r]) * (SEG_LANES * SEG_ITER);
        i64 end = min(start + SEG_LANES * SEG_ITER, indptr[r + 1]);
        for (i64 e = start + lane; e < end; e += SEG_LANES) acc += x[indices[e]];
    }
    for (int off = SEG_LANES / 2; off > 0; off >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, off, SEG_LANES);
    if (s < nseg && lane == 0) partial[s] = acc;
}

extern "C" {
__global__ void seg_sum_i32(const i64* indptr, const int* indices, const double* x, const i64* segptr,
                            const i64* seg_row, double* partial, i64 nseg) {
    seg_sum<int>(indptr, indices, x, segptr, seg_row, partial, nseg);
}
__global__ void seg_sum_i64(const i64* indptr, const i64* indices, const double* x, const i64* segptr,
                            const i64* seg_row, double* partial, i64 nseg) {
    seg_sum<i64>(indptr, indices, x, segptr, seg_row, partial, nseg);
}
// starts[b] = the slot of edge min(b * bs, total - 1), b = 0 .. ceil(total / bs); with ``queued``, nf and
// total are counts[at] and counts[at + 1], left on the device by the kernels before (a grid-stride loop).
__global__ void block_starts(const i64* scanned, int nf, i64 total, const u64* counts, int queued, int at,
                             int bs, int* starts) {
    if (queued) {
        nf = (int)counts[at];
        total = (i64)counts[at + 1];
    }
    if (total <= 0) return;
    const i64 count = (total + bs - 1) / bs + 1;
    for (i64 b = (i64)blockIdx.x * blockDim.x + threadIdx.x; b < count; b += (i64)gridDim.x * blockDim.x)
        starts[b] = frontier_slot<false>(scanned, nf, min(b * bs, total - 1));
}
__global__ void seg_fold(const i64* segptr, const i64* hubs, double* partial, i64 nhubs) {
    i64 w = ((i64)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    double acc = 0.0;
    i64 first = 0;
    if (w < nhubs) {
        i64 r = hubs[w];
        first = segptr[r];
        for (i64 s = first + lane; s < segptr[r + 1]; s += 32) acc += partial[s];
    }
    for (int off = 16; off > 0; off >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, off);
    if (w < nhubs && lane == 0) partial[first] = acc;
}
__global__ void seg_total(const i64* segptr, const i64* segend, const double* partial, double* out, i64 nrows) {
    i64 r = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= nrows) return;
    double acc = 0.0;
    for (i64 s = segptr[r]; s < segend[r]; ++s) acc += partial[s];
    out[r] = acc;
}
__global__ void push_lb_i32(const i64* indptr, const int* indices, const int* frontier_rows,
                            const i64* scanned, int nf, i64 total, i64 row_base, const int* rows,
                            int nrows_map, int* labels, int* parents, int level, const i64* degree,
                            int* out, u64* counters) {
    push_lb<int>(indptr, indices, frontier_rows, scanned, nf, total, row_base, rows, nrows_map,
                 labels, parents, level, degree, out, counters);
}
__global__ void push_lb_i64(const i64* indptr, const i64* indices, const i64* frontier_rows,
                            const i64* scanned, int nf, i64 total, i64 row_base, const i64* rows,
                            int nrows_map, int* labels, i64* parents, int level, const i64* degree,
                            i64* out, u64* counters) {
    push_lb<i64>(indptr, indices, frontier_rows, scanned, nf, total, row_base, rows, nrows_map,
                 labels, parents, level, degree, out, counters);
}
__global__ void pull_i32(const i64* cindptr, const int* cindices, const unsigned char* fmask,
                         i64 nrows, i64 row_base, const int* rows, int nrows_map, int* labels,
                         int* parents, int level, const i64* degree, int* out, u64* counters) {
    pull_thread<int>(cindptr, cindices, fmask, nrows, row_base, rows, nrows_map, labels, parents,
                     level, degree, out, counters);
}
__global__ void pull_i64(const i64* cindptr, const i64* cindices, const unsigned char* fmask,
                         i64 nrows, i64 row_base, const i64* rows, int nrows_map, int* labels,
                         i64* parents, int level, const i64* degree, i64* out, u64* counters) {
    pull_thread<i64>(cindptr, cindices, fmask, nrows, row_base, rows, nrows_map, labels, parents,
                     level, degree, out, counters);
}
}
"""

BLOCK = 256

_modules = {}
_coop_grids = {}


def compiled(source, *options, cooperative=False):
    """The CuPy module of CUDA ``source``, built once per process (C++17 plus ``options``; CuPy keeps
    the binary on disk between processes).  ``cooperative``: its kernels may sync the whole grid."""
    key = (source, options, cooperative)
    mod = _modules.get(key)
    if mod is None:
        import cupy  # noqa: PLC0415

        mod = _modules[key] = cupy.RawModule(code=source, options=("-std=c++17", *options),
                                             enable_cooperative_groups=cooperative)
    return mod


_functions = {}


def function(source, name, *options, cooperative=False):
    """Kernel ``name`` of :func:`compiled`'s module, looked up once a device: CuPy builds a kernel
    object per lookup, and the launches of a superstep or an iteration look up every time."""
    import cupy  # noqa: PLC0415

    key = (cupy.cuda.Device().id, source, options, cooperative, name)
    f = _functions.get(key)
    if f is None:
        from ..startup import timed  # noqa: PLC0415

        with timed():  # CuPy compiles the module (or loads it from its disk cache) here: start-up time
            f = _functions[key] = compiled(source, *options, cooperative=cooperative).get_function(name)
    return f


_sms = {}


def multiprocessors():
    """The current device's multiprocessor count (read once: a device's properties cost ~0.1 ms)."""
    import cupy as cp  # noqa: PLC0415

    dev = cp.cuda.Device().id
    if dev not in _sms:
        _sms[dev] = cp.cuda.runtime.getDeviceProperties(dev)["multiProcessorCount"]
    return _sms[dev]


def cooperative_grid(kern, per_sm):
    """Blocks of ``BLOCK`` threads for a cooperative launch of ``kern``: ``per_sm`` a multiprocessor,
    fewer where the kernel's registers or shared memory do not let that many be resident at once
    (a grid barrier needs every block resident)."""
    import cupy as cp  # noqa: PLC0415

    dev = cp.cuda.Device().id
    key = (dev, kern.name, per_sm)
    if key not in _coop_grids:
        fits = cp.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor(kern.kernel.ptr, BLOCK, 0)
        _coop_grids[key] = multiprocessors() * max(1, min(per_sm, fits))
    return _coop_grids[key]


def module():
    return compiled(_SOURCE)


def kernel(name):
    """A kernel of this module (:func:`function`)."""
    return function(_SOURCE, name)


def _suffix(dtype):
    return "i32" if dtype.itemsize == 4 else "i64"


def visit_push(indptr, indices, frontier_rows, total, row_base, rows, labels, parents, level, degree,
               out, counters):
    """Top-down step over ``total`` frontier edges (known on the host); see ``block_emit``."""
    import cupy as cp  # noqa: PLC0415

    nf = len(frontier_rows)
    if nf == 0 or total == 0:
        return
    deg = indptr[frontier_rows + 1] - indptr[frontier_rows]
    scanned = cp.cumsum(deg)
    kern = kernel("push_lb_" + _suffix(indices.dtype))
    grid = (int(total) + BLOCK - 1) // BLOCK
    kern((grid,), (BLOCK,), (indptr, indices, frontier_rows, scanned, cp.int32(nf), cp.int64(total),
                             cp.int64(row_base), rows, cp.int32(len(rows) > 0), labels, parents,
                             cp.int32(level), degree, out, counters))


def visit_pull(cindptr, cindices, fmask, row_base, rows, labels, parents, level, degree, out, counters):
    """Bottom-up step over all owned vertices; see ``block_emit``."""
    import cupy as cp  # noqa: PLC0415

    nrows = len(cindptr) - 1
    if nrows <= 0:
        return
    kern = kernel("pull_" + _suffix(cindices.dtype))
    grid = (nrows + BLOCK - 1) // BLOCK
    kern((grid,), (BLOCK,), (cindptr, cindices, fmask, cp.int64(nrows), cp.int64(row_base), rows,
                             cp.int32(len(rows) > 0), labels, parents, cp.int32(level), degree, out,
                             counters))


def block_starts(scanned, nf, total, starts=None):
    """For a launch of a thread per frontier edge in blocks of BLOCK (``total`` > 0 edges over ``nf``
    slots with inclusive degree scan ``scanned``): int32 ``starts``, starts[b] the slot of edge
    min(b * BLOCK, total - 1) for b = 0 .. blocks, so block b's edges lie in slots starts[b] ..
    starts[b + 1] (:c:func:`block_slot`).  One small launch, searches in parallel; into ``starts``
    where given (room for ``total // BLOCK + 2``)."""
    import cupy as cp  # noqa: PLC0415

    count = (total + BLOCK - 1) // BLOCK + 1
    if starts is None:
        starts = cp.empty(count, dtype=cp.int32)
    kernel("block_starts")(((count + BLOCK - 1) // BLOCK,), (BLOCK,),  # (counts unread: not queued)
                           (scanned, cp.int32(nf), cp.int64(total), starts, cp.int32(0), cp.int32(0),
                            cp.int32(BLOCK), starts))
    return starts


def block_starts_queued(scanned, counts, at, starts):
    """:func:`block_starts` into ``starts`` (room for ``edges // BLOCK + 2``, where ``edges`` bounds the
    total) with ``nf`` and ``total`` at ``counts[at]``, ``counts[at + 1]`` on the device: queued behind
    the kernels that count them, before the host reads the counts."""
    import cupy as cp  # noqa: PLC0415

    kernel("block_starts")((4 * multiprocessors(),), (BLOCK,),
                           (scanned, cp.int32(0), cp.int64(0), counts, cp.int32(1), cp.int32(at), cp.int32(BLOCK),
                            starts))
    return starts


SEG_EDGES = 64  # SEG_LANES * SEG_ITER in the CUDA source
FOLD_MIN = 4    # rows of more segments have them added by a warp (seg_fold), not one thread


class RowSumPlan:
    """The segments of a CSR's rows for :func:`gather_row_sum`: build once per graph, reuse.

    ``segptr``: each row's first segment; ``segend``: the end of the segments a row's total adds
    (its first alone for a hub, whose segments seg_fold has added into it); ``hubs``: those rows."""

    def __init__(self, indptr):
        import cupy as cp  # noqa: PLC0415

        n = len(indptr) - 1
        deg = indptr[1:] - indptr[:-1]
        nseg = (deg + SEG_EDGES - 1) // SEG_EDGES  # none for an empty row (38% of rmat20's)
        self.segptr = cp.zeros(n + 1, dtype=cp.int64)
        cp.cumsum(nseg, out=self.segptr[1:])
        self.nseg = int(self.segptr[-1]) if n else 0
        self.seg_row = cp.searchsorted(self.segptr, cp.arange(self.nseg, dtype=cp.int64), side="right") - 1
        self.partial = cp.empty(self.nseg, dtype=cp.float64)
        self.hubs = cp.flatnonzero(nseg > FOLD_MIN)
        self.segend = self.segptr[1:].copy()
        self.segend[self.hubs] = self.segptr[self.hubs] + 1
        self.indptr = indptr


def row_segment_sums(indptr, indices, x, plan):
    """Each row's segment sums into plan.partial, a hub's folded into its first segment (the first
    kernels of gather_row_sum): the row's total is then partial[segptr[r]:segend[r]] added in order."""
    import cupy as cp  # noqa: PLC0415

    threads = plan.nseg * 8  # SEG_LANES
    if threads:
        kern = kernel("seg_sum_" + _suffix(indices.dtype))
        kern(((threads + BLOCK - 1) // BLOCK,), (BLOCK,),
             (indptr, indices, x, plan.segptr, plan.seg_row, plan.partial, cp.int64(plan.nseg)))
    nhubs = len(plan.hubs)
    if nhubs:
        kernel("seg_fold")(((nhubs * 32 + BLOCK - 1) // BLOCK,), (BLOCK,),
                                          (plan.segptr, plan.hubs, plan.partial, cp.int64(nhubs)))


def gather_row_sum(indptr, indices, x, out, plan=None):
    """out[r] = sum of x[indices[e]] over row r (float64), load-balanced over row segments."""
    import cupy as cp  # noqa: PLC0415

    nrows = len(indptr) - 1
    if nrows <= 0:
        return out
    if plan is None or plan.indptr is not indptr:
        plan = RowSumPlan(indptr)
    row_segment_sums(indptr, indices, x, plan)
    kernel("seg_total")(((nrows + BLOCK - 1) // BLOCK,), (BLOCK,),
                                        (plan.segptr, plan.segend, plan.partial, out, cp.int64(nrows)))
    return out
