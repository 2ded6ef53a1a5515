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
