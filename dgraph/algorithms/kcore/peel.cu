#include <cooperative_groups.h>

#include "common.cuh"

namespace cg = cooperative_groups;

#define NO_DEGREE 0x7fffffffffffffffLL

// The whole core decomposition in one cooperative launch (kcore/gpu.py).  deg: every vertex's
// loop-free degree on entry (in + out when directed), lowered as its neighbors are peeled; core:
// -1 on entry, the core number on exit.  Level k starts at the smallest degree left (never below
// the last level); its first frontier is every vertex left of degree <= k, and each round peels
// the frontier: a warp per frontier vertex, its lanes over the vertex's arcs, each neighbor still
// left and above k loses one degree, and the one thread that takes it from k + 1 to k puts it in
// the next frontier (at level k: its core number is k).  A level ends with an empty frontier.
//
// cnt: three append cursors of 4 words (warp_emit's counters: [0] appended, [2] arcs scanned),
// round r appending through cursor r % 3, which the lead zeroes during round r - 1 (cursor r % 3
// was last read at the start of round r - 2, before that round's closing barrier); all zero on
// entry.  ctl: [0] the smallest degree left (NO_DEGREE on entry), [1] rounds run, [2] levels,
// [3] arcs scanned, [4] the last level (the largest core number; -1 for no vertex).
template <typename V>
__device__ void peel(const i64* __restrict__ indptr, const V* __restrict__ indices,
                     const i64* __restrict__ cindptr, const V* __restrict__ cindices, int directed, i64 n,
                     i64* deg, i64* core, V* qa, V* qb, u64* cnt, i64* ctl) {
    cg::grid_group grid = cg::this_grid();
    const bool lead = blockIdx.x == 0 && threadIdx.x == 0;
    const int lane = threadIdx.x & 31;
    const i64 warp = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const i64 nwarps = ((i64)gridDim.x * blockDim.x) >> 5;
    i64 left = n, k = 0, rounds = 0, levels = 0, arcs = 0;
    while (left > 0) {
        // the smallest degree left
        i64 m = NO_DEGREE;
        for (i64 v = warp * 32 + lane; v < n; v += nwarps * 32)
            if (__ldcg(core + v) < 0) m = min(m, __ldcg(deg + v));
        for (int off = 16; off > 0; off >>= 1) m = min(m, __shfl_down_sync(0xffffffffu, m, off));
        if (lane == 0 && m < NO_DEGREE) atomicMin((long long*)ctl, (long long)m);
        grid.sync();
        k = max(k, __ldcg(ctl));
        ++levels;
        // the level's first frontier: every vertex left of degree <= k (round `rounds`)
        u64* c = cnt + 4 * (rounds % 3);
        V* out = (rounds & 1) ? qb : qa;
        if (lead) {
            u64* next = cnt + 4 * ((rounds + 1) % 3);
            next[0] = next[1] = next[2] = 0;
        }
        for (i64 base = warp * 32; base < n; base += nwarps * 32) {  // warp-uniform bounds: warp_emit
            const i64 v = base + lane;
            bool hit = v < n && __ldcg(core + v) < 0 && __ldcg(deg + v) <= k;
            if (hit) core[v] = k;
            warp_emit<V>(hit, (V)v, 0, 0, out, c);
        }
        grid.sync();
        if (lead) *ctl = NO_DEGREE;  // read by every thread before the barrier above
        i64 nf = (i64)__ldcg(c);
        const V* cur = out;
        ++rounds;
        while (nf > 0) {  // a round: peel the frontier
            left -= nf;
            c = cnt + 4 * (rounds % 3);
            out = (rounds & 1) ? qb : qa;
            if (lead) {
                u64* next = cnt + 4 * ((rounds + 1) % 3);
                next[0] = next[1] = next[2] = 0;
            }
            for (i64 i = warp; i < nf; i += nwarps) {
                const V u = __ldcg(cur + i);
                for (int side = 0; side <= directed; ++side) {
                    const i64* ptr = side ? cindptr : indptr;
                    const V* ends = side ? cindices : indices;
                    const i64 end = ptr[u + 1];
                    for (i64 e0 = ptr[u]; e0 < end; e0 += 32) {  // warp-uniform bounds: warp_emit
                        const i64 e = e0 + lane;
                        bool hit = false;
                        V w = 0;
                        if (e < end) {
                            w = ends[e];
                            if (__ldcg(core + w) < 0 && __ldcg(deg + w) > k) {
                                i64 before = (i64)atomicAdd((u64*)(deg + w), (u64)-1);
                                hit = before == k + 1;
                                if (hit) core[w] = k;
                            }
                        }
                        warp_emit<V>(hit, w, 0, e < end ? 1 : 0, out, c);
                    }
                }
            }
            grid.sync();
            nf = (i64)__ldcg(c);
            if (lead) arcs += (i64)__ldcg(c + 2);
            cur = out;
            ++rounds;
        }
    }
    if (lead) {
        ctl[1] = rounds;
        ctl[2] = levels;
        ctl[3] = arcs;
        ctl[4] = n ? k : -1;
    }
}

extern "C" {
__global__ void peel_i32(const i64* indptr, const int* indices, const i64* cindptr, const int* cindices,
                         int directed, i64 n, i64* deg, i64* core, int* qa, int* qb, u64* cnt, i64* ctl) {
    peel<int>(indptr, indices, cindptr, cindices, directed, n, deg, core, qa, qb, cnt, ctl);
}
__global__ void peel_i64(const i64* indptr, const i64* indices, const i64* cindptr, const i64* cindices,
                         int directed, i64 n, i64* deg, i64* core, i64* qa, i64* qb, u64* cnt, i64* ctl) {
    peel<i64>(indptr, indices, cindptr, cindices, directed, n, deg, core, qa, qb, cnt, ctl);
}
}
