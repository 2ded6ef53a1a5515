#include <cooperative_groups.h>

#include "common.cuh"

namespace cg = cooperative_groups;

// Push levels of a partitioned BFS on p GPUs at once: one cooperative launch on each GPU, the GPUs
// meeting once a level through each other's memory (CUDA IPC over NVLink), no host in the loop.
//
// Each GPU owns one shared allocation: two bitmaps of nw 32-bit words (the level parities), then p
// 64-bit arrival counters.  ptrs[s] is GPU s's allocation as this process maps it (ptrs[q]: its own).
// A level: (1) clear the other parity of this GPU's bitmap (the previous level's, unioned already);
// (2) a warp per owned frontier row claims its unvisited out-neighbours (atomicCAS on this GPU's
// depths; atomicMin keeps the smallest parent) and sets each claimed vertex's bit in every GPU's
// bitmap of this parity; (3) the lead thread fences, adds one to its counter on every peer and
// waits until every peer added one to its own (or spin_ns passes: a peer that never comes);
// (4) every GPU walks the same united bitmap: labels the vertices its peers claimed, counts the
// frontier and its degree sum (the same numbers on every GPU, so every GPU takes the same
// decisions), and queues the rows it owns for the next level.
//
// rec[REC*k + ..]: [0] frontier size, [1] its degree sum, [2] frontier edges scanned, [3] end
// timestamp (ns), [4] owned rows queued, [5] their degree sum; zeroed by the host.  ctl: [0] levels
// run, [1] why it stopped (0 limit, 1 empty, 2 pull, 3 too many edges, 5 a peer did not arrive),
// [2] start (ns), [3] the barrier's verdict (set by the lead, read by all).
#define REC 8

__device__ __forceinline__ int bit_of(i64 v) { return 8 * (int)((v >> 3) & 3) + 7 - (int)(v & 7); }

template <typename V>
__device__ void peer_push_levels(const i64* __restrict__ indptr, const V* __restrict__ indices, i64 row_base,
                                 i64 nrows, const V* f0, int nf0, i64 mf0, i64 nf_prev, V* bufx, V* bufy,
                                 int* labels, V* parents, const i64* __restrict__ degree,
                                 const unsigned long long* __restrict__ ptrs, int q, int p, i64 nw, i64 n,
                                 i64 k0, i64 arrived0, int level0, int max_levels, i64 m_u, double alpha,
                                 int may_pull, i64 mf_limit, i64 spin_ns, u64* rec, i64* ctl) {
    cg::grid_group grid = cg::this_grid();
    const bool lead = blockIdx.x == 0 && threadIdx.x == 0;
    const int lane = threadIdx.x & 31;
    const i64 tid = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    const i64 nthreads = (i64)gridDim.x * blockDim.x;
    const i64 warp = tid >> 5;
    const i64 nwarps = nthreads >> 5;
    unsigned* mine = (unsigned*)ptrs[q];
    volatile long long* arrivals = (volatile long long*)(mine + 2 * nw);
    if (lead) ctl[2] = (i64)now_ns();
    const V* cur = f0;
    i64 nf = nf0, mf = mf0, prev = nf_prev;
    int k = 0, reason = 0;
    while (k < max_levels) {
        const i64 kk = k0 + k;
        const int par = (int)(kk & 1);
        V* out = (k & 1) ? bufy : bufx;
        const int level = level0 + k;
        u64* r = rec + REC * (i64)k;
        unsigned* other = mine + (i64)(par ^ 1) * nw;
        for (i64 w = tid; w < nw; w += nthreads) other[w] = 0u;
        for (i64 i = warp; i < nf; i += nwarps) {  // a warp per owned frontier row, lanes over its edges
            const V u = __ldcg(cur + i);
            const V ug = (V)(row_base + u);
            const i64 end = indptr[u + 1];
            for (i64 e = indptr[u] + lane; e < end; e += 32) {
                const V v = indices[e];
                int lab = __ldcg(labels + v);
                if (lab == -1) {
                    lab = atomicCAS(labels + v, -1, level);
                    if (lab == -1) {
                        lab = level;
                        const unsigned b = 1u << bit_of(v);
                        for (int s = 0; s < p; ++s)
                            atomicOr((unsigned*)ptrs[s] + (i64)par * nw + (v >> 5), b);
                    }
                }
                if (lab == level) atomicMin(parents + v, ug);
            }
        }
        grid.sync();
        if (lead) {
            __threadfence_system();
            for (int s = 0; s < p; ++s)
                if (s != q)
                    atomicAdd((unsigned long long*)((unsigned*)ptrs[s] + 2 * nw) + q, 1ull);
            const i64 want = arrived0 + kk + 1;
            const u64 t0 = now_ns();
            i64 ok = 1;
            for (int s = 0; s < p && ok; ++s) {
                if (s == q) continue;
                while (arrivals[s] < want) {
                    if ((i64)(now_ns() - t0) > spin_ns) { ok = 0; break; }
                }
            }
            __threadfence_system();
            ctl[3] = ok;
        }
        grid.sync();
        if (!__ldcg(ctl + 3)) { reason = 5; break; }
        const unsigned* united = mine + (i64)par * nw;
        i64 cnt = 0, dg = 0, oc = 0, od = 0;
        for (i64 w = tid; w < nw; w += nthreads) {
            const unsigned x = __ldcv(united + w);
            if (!x) continue;
            for (int j = 0; j < 32; ++j) {
                if (!((x >> bit_of(j)) & 1u)) continue;
                const i64 v = (w << 5) + j;
                if (v >= n) break;
                if (labels[v] < 0) labels[v] = level;  // claimed by a peer
                const i64 d = degree[v];
                ++cnt;
                dg += d;
                if (v >= row_base && v < row_base + nrows) {
                    const u64 slot = atomicAdd((unsigned long long*)(r + 4), 1ull);
                    out[slot] = (V)(v - row_base);
                    ++oc;
                    od += d;
                }
            }
        }
        block_add(cnt, r + 0);
        block_add(dg, r + 1);
        block_add(od, r + 5);
        grid.sync();
        const i64 nf_all = (i64)__ldcg(r + 0);
        const i64 mf_new = (i64)__ldcg(r + 1);
        if (lead) {
            r[2] = (u64)mf;
            r[3] = now_ns();
        }
        ++k;
        m_u -= mf_new;
        const bool pull = may_pull && (double)mf_new > (double)m_u / alpha && nf_all > prev;
        prev = nf_all;
        nf = (i64)__ldcg(r + 4);
        mf = mf_new;
        cur = out;
        if (nf_all == 0) { reason = 1; break; }
        if (pull) { reason = 2; break; }
        if (mf > mf_limit) { reason = 3; break; }
    }
    if (lead) {
        ctl[0] = k;
        ctl[1] = reason;
    }
}

extern "C" {
__global__ void peer_push_levels_i32(const i64* indptr, const int* indices, i64 row_base, i64 nrows, const int* f0,
                                     int nf0, i64 mf0, i64 nf_prev, int* bufx, int* bufy, int* labels, int* parents,
                                     const i64* degree, const unsigned long long* ptrs, int q, int p, i64 nw, i64 n,
                                     i64 k0, i64 arrived0, int level0, int max_levels, i64 m_u, double alpha,
                                     int may_pull, i64 mf_limit, i64 spin_ns, u64* rec, i64* ctl) {
    peer_push_levels<int>(indptr, indices, row_base, nrows, f0, nf0, mf0, nf_prev, bufx, bufy, labels, parents,
                          degree, ptrs, q, p, nw, n, k0, arrived0, level0, max_levels, m_u, alpha, may_pull,
                          mf_limit, spin_ns, rec, ctl);
}
__global__ void peer_push_levels_i64(const i64* indptr, const i64* indices, i64 row_base, i64 nrows, const i64* f0,
                                     int nf0, i64 mf0, i64 nf_prev, i64* bufx, i64* bufy, int* labels, i64* parents,
                                     const i64* degree, const unsigned long long* ptrs, int q, int p, i64 nw, i64 n,
                                     i64 k0, i64 arrived0, int level0, int max_levels, i64 m_u, double alpha,
                                     int may_pull, i64 mf_limit, i64 spin_ns, u64* rec, i64* ctl) {
    peer_push_levels<i64>(indptr, indices, row_base, nrows, f0, nf0, mf0, nf_prev, bufx, bufy, labels, parents,
                          degree, ptrs, q, p, nw, n, k0, arrived0, level0, max_levels, m_u, alpha, may_pull,
                          mf_limit, spin_ns, rec, ctl);
}
}
