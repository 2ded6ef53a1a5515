#include <cooperative_groups.h>
#include "sssp.cuh"

namespace cg = cooperative_groups;

// a[0..n) <- its inclusive scan, over the whole grid (tile_sums, then tile_scan); returns the total
// (in every thread).  Two barriers.
__device__ i64 grid_scan(cg::grid_group& grid, i64* a, i64 n, i64* tile_sums) {
    tile_sums_of<true>(a, n, tile_sums);
    grid.sync();
    const i64 total = tile_scan<true>(a, n, tile_sums);
    grid.sync();
    return total;
}

// cpu_sssp.bound_above, operation for operation (no contraction: the module is built with --fmad=false).
__device__ double bound_above(double closest, double bound, double delta) {
    if (isinf(delta)) return __longlong_as_double(0x7ff0000000000000LL);
    double k = floor((closest - bound) / delta) + 1.0;
    double b = bound + fmax(k, 1.0) * delta;
    while (b <= closest) b = fmax(b + delta, nextafter(closest, __longlong_as_double(0x7ff0000000000000LL)));
    return b;
}

// Per superstep k, rec[REC*k ..]: [0]-[7] the counters of gpu_sssp (changed, skipped, -, ties, near,
// near degree sum, far, -), [8] ~(closest pending far distance bits), [9] the new pile's length,
// then the record: [10] frontier, [11] far pile length, [12] bound bits, [13] improved,
// [14] edges relaxed, [15] end time (ns).  Zeroed by the host.
// ctl: [0] supersteps run, [1] why it stopped (0 limit, 1 empty, 2 ties, 3 pile, 4 edges),
// [2] start time, [3] frontier length, [4] its edges, [5] pile length, [6] bound bits,
// [7] which near queue holds the frontier (0: a, 1: b), [8] which pile buffer holds the pile.
#define REC 16
template <typename V>
__device__ void sssp_steps(const i64* __restrict__ indptr, const V* __restrict__ indices,
                           const double* __restrict__ w, int weighted, u64* dist_bits, i64* hops,
                           unsigned char* pending, unsigned* seen, V* out, V* tv, i64* th, u64* tb,
                           i64 tie_cap, V* qa, double* fda, i64* fha, i64* sca, V* qb, double* fdb,
                           i64* fhb, i64* scb, V* pa, V* pb, i64 pile_cap, i64 n, i64 nf0, i64 npile0,
                           double bound0, double delta, int max_steps, i64 edge_limit, i64* tile_sums,
                           u64* rec, i64* ctl, int skip) {
    cg::grid_group grid = cg::this_grid();
    const bool lead = blockIdx.x == 0 && threadIdx.x == 0;
    const i64 stride = (i64)gridDim.x * blockDim.x;
    const i64 t0 = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    const double* dist = (const double*)dist_bits;
    if (lead) ctl[2] = (i64)now_ns();
    V* q[2] = {qa, qb};
    double* fd[2] = {fda, fdb};
    i64* fh[2] = {fha, fhb};
    i64* sc[2] = {sca, scb};
    V* pile[2] = {pa, pb};
    int cur = 0, cp = 0;
    i64 nf = nf0, npile = npile0;
    double bound = bound0;
    // the entry frontier's snapshot and degree scan
    for (i64 i = t0; i < nf; i += stride) {
        const V v = qa[i];
        fda[i] = ld<true>(dist + v);
        fha[i] = ld<true>(hops + v);
        sca[i] = indptr[v + 1] - indptr[v];
    }
    grid.sync();
    i64 total = grid_scan(grid, sca, nf, tile_sums);
    int k = 0, reason = 0;
    while (true) {
        if (nf == 0) { reason = 1; break; }
        if (k >= max_steps) { reason = 0; break; }
        if (total > tie_cap) { reason = 2; break; }
        if (npile > pile_cap - n) { reason = 3; break; }
        if (total > edge_limit) { reason = 4; break; }
        u64* c = rec + REC * (i64)k;
        const int nx = cur ^ 1;
        for (i64 first = (i64)blockIdx.x * blockDim.x; first < total; first += stride)  // block-uniform
            relax_dist<true, V>(indptr, indices, w, weighted, q[cur], (const V*)nullptr, sc[cur], (int)nf, total,
                                fd[cur], fh[cur], dist_bits, hops, seen, out, tv, th, tb, c, first, skip, nullptr);
        grid.sync();
        relax_hops<true, V>(tv, th, tb, dist_bits, hops, seen, out, c);
        grid.sync();
        split<true, V>(out, dist, hops, bound, pending, indptr, q[nx], fd[nx], fh[nx], sc[nx],
                       pile[cp] + npile, c, seen, 0, n, (const i64*)nullptr, 0, (V*)nullptr, 0);
        grid.sync();
        const i64 improved = (i64)__ldcg(c + 0);
        i64 nnear = (i64)__ldcg(c + 4);
        npile += (i64)__ldcg(c + 6);
        if (nnear == 0 && npile > 0) {  // the next bucket: sssp.SSSP._next_bucket
            for (i64 i = t0; i < npile; i += stride) {
                const V v = ld<true>(pile[cp] + i);
                if (ld<true>(pending + v)) atomicMax(c + 8, ~ld<true>(dist_bits + v));
            }
            grid.sync();
            const u64 closest = ~__ldcg(c + 8);
            if (closest == ~0ull) {  // nothing pending: the pile was all stale
                npile = 0;
            } else {
                bound = bound_above(__longlong_as_double((i64)closest), bound, delta);
                const int np = cp ^ 1;
                for (i64 base = (i64)blockIdx.x * blockDim.x; base < npile; base += stride) {  // block-uniform
                    const i64 i = base + threadIdx.x;
                    bool near = false, far = false;
                    V v = 0;
                    double d = 0.0;
                    if (i < npile) {
                        v = ld<true>(pile[cp] + i);
                        if (ld<true>(pending + v)) {
                            const unsigned bit = 1u << (v & 31);
                            if (!(atomicOr(seen + (v >> 5), bit) & bit)) {  // each pile vertex once
                                d = ld<true>(dist + v);
                                near = d < bound;
                                far = !near;
                            }
                        }
                    }
                    const u64 s = block_reserve(near, c + 4);
                    const u64 sf = block_reserve(far, c + 9);
                    if (near) {
                        pending[v] = 0;
                        q[nx][s] = v;
                        fd[nx][s] = d;
                        fh[nx][s] = ld<true>(hops + v);
                        sc[nx][s] = indptr[v + 1] - indptr[v];
                    }
                    if (far) pile[np][sf] = v;
                }
                grid.sync();
                for (i64 i = t0; i < npile; i += stride) seen[ld<true>(pile[cp] + i) >> 5] = 0;
                nnear = (i64)__ldcg(c + 4);
                npile = (i64)__ldcg(c + 9);
                cp = np;
            }
        }
        const i64 next_total = grid_scan(grid, sc[nx], nnear, tile_sums);  // its barriers order the clears
        if (lead) {
            c[10] = (u64)nnear;
            c[11] = (u64)npile;
            c[12] = (u64)__double_as_longlong(bound);
            c[13] = (u64)improved;
            c[14] = (u64)total;
            c[15] = now_ns();
        }
        cur = nx;
        nf = nnear;
        total = next_total;
        ++k;
    }
    if (lead) {
        ctl[0] = k;
        ctl[1] = reason;
        ctl[3] = nf;
        ctl[4] = total;
        ctl[5] = npile;
        ctl[6] = __double_as_longlong(bound);
        ctl[7] = cur;
        ctl[8] = cp;
    }
}

extern "C" {
#define SSSP_STEPS(S, V)                                                                                      \
__global__ void sssp_steps_##S(const i64* indptr, const V* indices, const double* w, int weighted,            \
                               u64* dist_bits, i64* hops, unsigned char* pending, unsigned* seen, V* out,      \
                               V* tv, i64* th, u64* tb, i64 tie_cap, V* qa, double* fda, i64* fha, i64* sca,  \
                               V* qb, double* fdb, i64* fhb, i64* scb, V* pa, V* pb, i64 pile_cap, i64 n,     \
                               i64 nf0, i64 npile0, double bound0, double delta, int max_steps,               \
                               i64 edge_limit, i64* tile_sums, u64* rec, i64* ctl, int skip) {                \
    sssp_steps<V>(indptr, indices, w, weighted, dist_bits, hops, pending, seen, out, tv, th, tb, tie_cap, qa,  \
                  fda, fha, sca, qb, fdb, fhb, scb, pa, pb, pile_cap, n, nf0, npile0, bound0, delta,          \
                  max_steps, edge_limit, tile_sums, rec, ctl, skip);                                          \
}
SSSP_STEPS(i32, int)
SSSP_STEPS(i64, i64)
}
