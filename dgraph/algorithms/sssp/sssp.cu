#include "sssp.cuh"

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
                               const V* frontier_rows, const V* frontier_ids, const i64* scanned, int nf, \
                               i64 total,                                                                 \
                               const double* fd, const i64* fh, u64* dist_bits, i64* hops, unsigned* seen, \
                               V* out, V* tv, i64* th, u64* tb, u64* counters, int skip,                  \
                               const int* starts, const u64* report, int queued, i64 block0) {          \
    if (queued) { /* launched ahead of the host's read: the counts split left in report */              \
        nf = (int)report[4];                                                                              \
        total = (i64)report[5];                                                                           \
    }                                                                                                     \
    const i64 first = (block0 + blockIdx.x) * (i64)blockDim.x;                                            \
    if (first >= total) return;  /* a block past the edges (a launch ahead covers a guess) */             \
    relax_dist<false, V>(indptr, indices, w, weighted, frontier_rows, frontier_ids, scanned, nf, total, fd, fh,      \
                         dist_bits, hops, seen, out, tv, th, tb, counters, first, skip, starts);                  \
}                                                                                                         \
__global__ void relax_hops_##S(const V* tv, const i64* th, const u64* tb, const u64* dist_bits, i64* hops, \
                               unsigned* seen, V* out, u64* counters) {                                   \
    relax_hops<false, V>(tv, th, tb, dist_bits, hops, seen, out, counters);                                      \
}                                                                                                         \
__global__ void split_##S(const V* changed, const double* dist, const i64* hops, double bound,            \
                          unsigned char* pending, const i64* indptr, V* near, double* fd, i64* fh,        \
                          i64* ndeg, V* far, u64* counters, unsigned* seen, i64 lo, i64 rows,             \
                          const i64* local_of, int mapped, V* near_ids, int routed) {                     \
    split<false, V>(changed, dist, hops, bound, pending, indptr, near, fd, fh, ndeg, far, counters, seen, lo, \
                    rows, local_of, mapped, near_ids, routed);                                            \
}                                                                                                         \
__global__ void route_count_##S(const V* changed, const u64* counters, const i64* bounds, int p,         \
                                u64* routes) {                                                            \
    route_count<V>(changed, counters, bounds, p, routes);                                                 \
}                                                                                                         \
__global__ void route_scatter_##S(const V* changed, i64 count, const i64* bounds, int p, int q,          \
                                  const u64* routes, const u64* dist_bits, const i64* hops, u64* cursors, \
                                  V* rv, u64* rd, i64* rh) {                                              \
    route_scatter<V>(changed, count, bounds, p, q, routes, dist_bits, hops, cursors, rv, rd, rh);         \
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
