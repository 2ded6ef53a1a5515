#include "common.cuh"

// Brandes on one whole shard, a batch of sources at once: every array is indexed by the key
// b * n + v (source slot b, vertex v).  gpu.py says how the host runs the levels.

#define BC_SEG 256  // out-edges of a key that one warp adds up in the backward pass (gpu.py's SEG)

// deg[i] = the out-degree of the vertex of key keys[i]
__device__ void bc_degrees(const i64* __restrict__ indptr, const i64* __restrict__ keys, i64 nk, i64 n,
                           i64* __restrict__ deg) {
    for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < nk; i += (i64)gridDim.x * blockDim.x) {
        const i64 v = keys[i] % n;
        deg[i] = indptr[v + 1] - indptr[v];
    }
}

// Forward, one level: a thread per out-edge of the frontier (keys at depth `level`; `scanned` the
// inclusive sum of their out-degrees, `total` edges), load-balanced as BFS's push_lb.  An edge to a
// key not reached yet claims it for depth level + 1 (atomicCAS; the claimed keys are appended to
// `out`, counters [0] how many, [1] their out-degree sum); every edge into a key of depth level + 1
// adds its source's path count to the key's: sigma sums integers, exact in any order below 2^53.
template <typename V>
__device__ void bc_forward(const i64* __restrict__ indptr, const V* __restrict__ indices,
                           const i64* __restrict__ frontier, const i64* __restrict__ scanned, int nf, i64 total,
                           i64 n, int* depth, double* sigma, int level, i64* out, u64* counters) {
    const i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    const int slot = block_frontier_slot(scanned, nf, total, i);
    bool claimed = false;
    i64 kx = 0, deg = 0;
    if (i < total) {
        const i64 key = frontier[slot];
        const i64 b = key / n, v = key - b * n;
        const i64 before = slot ? scanned[slot - 1] : 0;
        const i64 x = (i64)indices[indptr[v] + (i - before)];
        kx = b * n + x;
        int d = depth[kx];  // final from an earlier level, or -1 / level + 1 set in this launch
        if (d == -1) {
            d = atomicCAS(depth + kx, -1, level + 1);
            if (d == -1) {
                claimed = true;
                d = level + 1;
                deg = indptr[x + 1] - indptr[x];
            }
        }
        if (d == level + 1) atomicAdd(sigma + kx, sigma[key]);
    }
    block_emit<i64>(claimed, kx, deg, 0, out, counters);
}

// Backward, one level (keys at depth `level`, their out-edges cut into segments of BC_SEG; segscan
// the inclusive sum of their segment counts, its last entry the segments in all): a warp a segment
// adds coef over the segment's edges into keys of depth level + 1 (lane j the edges j, j + 32, ...,
// then a fixed shuffle tree: the same bits every run).
template <typename V>
__device__ void bc_partials(const i64* __restrict__ indptr, const V* __restrict__ indices,
                            const i64* __restrict__ keys, const i64* __restrict__ segscan, i64 nk, i64 n,
                            const int* __restrict__ depth, const double* __restrict__ coef, int level,
                            double* __restrict__ partial) {
    const int lane = threadIdx.x & 31;
    const i64 g = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const i64 nseg = segscan[nk - 1];
    if (g >= nseg) return;  // the whole warp
    i64 lo = 0, hi = nk - 1;  // the key of segment g: the first with segscan > g
    while (lo < hi) {
        const i64 mid = (lo + hi) >> 1;
        if (segscan[mid] > g) hi = mid; else lo = mid + 1;
    }
    const i64 s = g - (lo ? segscan[lo - 1] : 0);
    const i64 key = keys[lo];
    const i64 b = key / n, v = key - b * n, base = b * n;
    const i64 e0 = indptr[v] + s * BC_SEG, e1 = min(e0 + (i64)BC_SEG, indptr[v + 1]);
    double acc = 0.0;
    for (i64 e = e0 + lane; e < e1; e += 32) {
        const i64 kx = base + (i64)indices[e];
        if (depth[kx] == level + 1) acc = __dadd_rn(acc, coef[kx]);
    }
    for (int off = 16; off > 0; off >>= 1) acc = __dadd_rn(acc, __shfl_down_sync(0xffffffffu, acc, off));
    if (lane == 0) partial[g] = acc;
}

// Backward, one level, per key: its segments' partials added in order, then
// delta = sigma * sum and coef = (1 + delta) / sigma (the Program's two steps, no contraction).
__device__ void bc_finish(const i64* __restrict__ keys, const i64* __restrict__ segscan, i64 nk,
                          const double* __restrict__ partial, const double* __restrict__ sigma, double* coef,
                          double* delta) {
    for (i64 k = (i64)blockIdx.x * blockDim.x + threadIdx.x; k < nk; k += (i64)gridDim.x * blockDim.x) {
        double acc = 0.0;
        for (i64 j = k ? segscan[k - 1] : 0; j < segscan[k]; ++j) acc = __dadd_rn(acc, partial[j]);
        const i64 key = keys[k];
        const double s = sigma[key];
        const double d = __dmul_rn(s, acc);
        delta[key] = d;
        coef[key] = __ddiv_rn(__dadd_rn(1.0, d), s);
    }
}

// bc[v] += each source's term, source by source in slot order (the Program's order, so its bits):
// delta, or with endpoints delta + 1 at every reached vertex and reached - 1 at the source itself
__device__ void bc_accumulate(double* bc, const double* __restrict__ delta, const int* __restrict__ depth,
                              const i64* __restrict__ srcs, const i64* __restrict__ reached, int nb, i64 n,
                              int endpoints) {
    for (i64 v = (i64)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += (i64)gridDim.x * blockDim.x) {
        double acc = bc[v];
        for (int b = 0; b < nb; ++b) {
            const i64 k = (i64)b * n + v;
            double t = delta[k];
            if (endpoints) t = v == srcs[b] ? (double)(reached[b] - 1) : __dadd_rn(t, depth[k] >= 0 ? 1.0 : 0.0);
            acc = __dadd_rn(acc, t);
        }
        bc[v] = acc;
    }
}

extern "C" {
__global__ void degrees(const i64* indptr, const i64* keys, i64 nk, i64 n, i64* deg) {
    bc_degrees(indptr, keys, nk, n, deg);
}
__global__ void forward_i32(const i64* indptr, const int* indices, const i64* frontier, const i64* scanned, int nf,
                            i64 total, i64 n, int* depth, double* sigma, int level, i64* out, u64* counters) {
    bc_forward<int>(indptr, indices, frontier, scanned, nf, total, n, depth, sigma, level, out, counters);
}
__global__ void forward_i64(const i64* indptr, const i64* indices, const i64* frontier, const i64* scanned, int nf,
                            i64 total, i64 n, int* depth, double* sigma, int level, i64* out, u64* counters) {
    bc_forward<i64>(indptr, indices, frontier, scanned, nf, total, n, depth, sigma, level, out, counters);
}
__global__ void partials_i32(const i64* indptr, const int* indices, const i64* keys, const i64* segscan, i64 nk,
                             i64 n, const int* depth, const double* coef, int level, double* partial) {
    bc_partials<int>(indptr, indices, keys, segscan, nk, n, depth, coef, level, partial);
}
__global__ void partials_i64(const i64* indptr, const i64* indices, const i64* keys, const i64* segscan, i64 nk,
                             i64 n, const int* depth, const double* coef, int level, double* partial) {
    bc_partials<i64>(indptr, indices, keys, segscan, nk, n, depth, coef, level, partial);
}
__global__ void finish(const i64* keys, const i64* segscan, i64 nk, const double* partial, const double* sigma,
                       double* coef, double* delta) {
    bc_finish(keys, segscan, nk, partial, sigma, coef, delta);
}
__global__ void accumulate(double* bc, const double* delta, const int* depth, const i64* srcs, const i64* reached,
                           int nb, i64 n, int endpoints) {
    bc_accumulate(bc, delta, depth, srcs, reached, nb, n, endpoints);
}
}
