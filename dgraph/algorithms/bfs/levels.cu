#include <cooperative_groups.h>

#include "common.cuh"

namespace cg = cooperative_groups;

// rec[REC*k + 0..4]: level k's vertices claimed, their degree sum, frontier edges
// scanned, end timestamp (ns), largest degree claimed; zeroed by the host.  ctl:
// [0] levels run, [1] why it stopped (0 limit, 1 empty, 2 pull, 3 too many edges,
// 4 a vertex of too high a degree: one warp would walk its edges alone), [2] start (ns).
#define REC 8
template <typename V>
__device__ void push_levels(const i64* __restrict__ indptr, const V* __restrict__ indices,
                            const V* f0, int nf0, i64 mf0, V* bufx, V* bufy, int* labels, V* parents,
                            const i64* __restrict__ degree, int level0, int max_levels, i64 m_u,
                            double alpha, int may_pull, i64 mf_limit, i64 deg_limit, u64* rec, i64* ctl) {
    cg::grid_group grid = cg::this_grid();
    const bool lead = blockIdx.x == 0 && threadIdx.x == 0;
    const int lane = threadIdx.x & 31;
    const i64 warp = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const i64 nwarps = ((i64)gridDim.x * blockDim.x) >> 5;
    if (lead) ctl[2] = (i64)now_ns();
    const V* cur = f0;
    i64 nf = nf0, mf = mf0;
    int k = 0, reason = 0;
    while (k < max_levels) {
        V* out = (k & 1) ? bufy : bufx;
        const int level = level0 + k;
        u64* r = rec + REC * (i64)k;
        for (i64 i = warp; i < nf; i += nwarps) {  // a warp per frontier vertex, lanes over its edges
            const V u = __ldcg(cur + i);
            const i64 end = indptr[u + 1];
            for (i64 e0 = indptr[u]; e0 < end; e0 += 32) {  // bounds are warp-uniform: warp_emit needs all lanes
                const i64 e = e0 + lane;
                bool claimed = false;
                i64 deg = 0;
                V v = 0;
                if (e < end) {
                    v = indices[e];
                    int lab = __ldcg(labels + v);
                    if (lab == -1) {
                        lab = atomicCAS(labels + v, -1, level);
                        claimed = lab == -1;
                        if (claimed) { lab = level; deg = degree[v]; }
                    }
                    if (lab == level) atomicMin(parents + v, u);
                }
                warp_emit<V>(claimed, v, deg, 0, out, r);
                const u64 top = __reduce_max_sync(0xffffffffu, claimed ? (unsigned)min(deg, (i64)0xffffffff) : 0u);
                if (lane == 0 && top) atomicMax(r + 4, top);
            }
        }
        grid.sync();
        const i64 nf_new = (i64)__ldcg(r + 0);
        const i64 mf_new = (i64)__ldcg(r + 1);
        const i64 top_new = (i64)__ldcg(r + 4);
        if (lead) {
            r[2] = (u64)mf;
            r[3] = now_ns();
        }
        ++k;
        m_u -= mf_new;
        const bool pull = may_pull && (double)mf_new > (double)m_u / alpha && nf_new > nf;
        nf = nf_new;
        mf = mf_new;
        cur = out;
        if (nf == 0) { reason = 1; break; }
        if (pull) { reason = 2; break; }
        if (mf > mf_limit) { reason = 3; break; }
        if (top_new > deg_limit) { reason = 4; break; }
    }
    if (lead) {
        ctl[0] = k;
        ctl[1] = reason;
    }
}

extern "C" {
__global__ void push_levels_i32(const i64* indptr, const int* indices, const int* f0, int nf0, i64 mf0,
                                int* bufx, int* bufy, int* labels, int* parents, const i64* degree,
                                int level0, int max_levels, i64 m_u, double alpha, int may_pull,
                                i64 mf_limit, i64 deg_limit, u64* rec, i64* ctl) {
    push_levels<int>(indptr, indices, f0, nf0, mf0, bufx, bufy, labels, parents, degree, level0,
                     max_levels, m_u, alpha, may_pull, mf_limit, deg_limit, rec, ctl);
}
__global__ void push_levels_i64(const i64* indptr, const i64* indices, const i64* f0, int nf0, i64 mf0,
                                i64* bufx, i64* bufy, int* labels, i64* parents, const i64* degree,
                                int level0, int max_levels, i64 m_u, double alpha, int may_pull,
                                i64 mf_limit, i64 deg_limit, u64* rec, i64* ctl) {
    push_levels<i64>(indptr, indices, f0, nf0, mf0, bufx, bufy, labels, parents, degree, level0,
                     max_levels, m_u, alpha, may_pull, mf_limit, deg_limit, rec, ctl);
}
}
