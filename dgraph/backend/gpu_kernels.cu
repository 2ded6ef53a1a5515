
#include "common.cuh"

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
}
