#include "common.cuh"

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

extern "C" {
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
