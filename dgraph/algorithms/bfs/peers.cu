#include <cooperative_groups.h>

#include "common.cuh"

namespace cg = cooperative_groups;

// Levels of a partitioned BFS on p GPUs at once, push and pull: one cooperative launch on each GPU,
// the GPUs meeting once a level through each other's memory (CUDA IPC over NVLink), no host in the
// loop.  Every shard's rows are a vertex range [row_base, row_base + nrows).
//
// Atomics on another GPU's memory, and on words the other GPUs update too, are system-scope.
//
// Each GPU owns one shared allocation: SLOTS bitmaps of nw 32-bit words (nw a multiple of 4), then p
// 64-bit arrival counters, then SLOTS groups of four 64-bit counters that every GPU adds to: the edges
// the GPUs scanned, and a pull's claims, their degree sum and largest degree.  ptrs[s] is
// GPU s's allocation as this process maps it (ptrs[q]: its own); spans[2s], spans[2s + 1] the
// vertices GPU s owns (its rows: [0, n) where they are not a range).  Run-wide level kk uses slot
// kk % SLOTS.  A level:
// (1) clear slot (kk + 1) % SLOTS (the next level's; its last readers passed the barrier this GPU
//     passed at level kk - 1);
// (2) visit.  Push (a frontier of at most mf_limit edges, none of them a vertex of more than
//     deg_limit: a warp walks a big row's edges alone; or, at the batch's first level with spread0, a
//     few rows the whole grid walks one by one): a lane per small owned frontier row, a warp per big
//     one, claims its unvisited out-neighbours (atomicCAS on this GPU's depths; atomicMin keeps the smallest parent) and sets
//     each claimed vertex's bit in every GPU's slot (a push of at most remote_limit frontier edges:
//     the writes make the union) or in this GPU's.  Pull: a
//     thread per unvisited owned row (two rows an iteration, their loads overlapping) takes its first
//     in-neighbour whose bit is set in the previous level's united bitmap (in-edges sorted: the
//     smallest), sets its bit in this GPU's slot, and counts its claims and their degrees;
// (3) the lead thread adds this GPU's scanned edges (and a pull's counts) to every GPU's counters,
//     fences, adds one to its arrival counter on every peer and waits until every peer added one to
//     its own (or spin_ns passes: a peer that never comes);
// (4) every GPU makes the union in its own slot (unless a push's writes made it: the OR of every
//     GPU's) and labels the vertices its peers claimed.  After a push (whose claims may overlap) it
//     counts the frontier, its degree sum and largest degree on the way; after a pull (disjoint
//     claims, each GPU's own rows) the counters hold them.  The same numbers on every GPU, so every
//     GPU takes the same decision (Beamer's rule, as BFS.choose_direction);
// (5) for a push next, queues the rows it owns from the united bitmap (also when the push is left to
//     the host: its rows are then ready).
//
// rec[REC*k + ..]: [0] frontier size, [1] its degree sum, [2] edges the GPUs scanned, [3] end
// timestamp (ns), [4] owned rows queued, [5] this GPU's scanned edges, [6] the level's direction
// (0 push, 1 pull), [7] the frontier's largest degree, [8] the owned rows' degree sum, [9..11] a
// pull's claims on this GPU, their degree sum and largest degree, [12] the visit's end and [13] the
// barrier's (ns: where a level's time goes); zeroed by the host.  ctl: [0] levels run,
// [1] why it stopped (0 limit, 1 empty, 2 pull (not allowed here), 3 too many edges for a push, 4 a
// vertex of too high a degree for a push, 5 a peer did not arrive), [2] start (ns), [3] the
// barrier's verdict (set by the lead, read by all), [4] the direction next.
#define REC 16
#define SLOTS 3
#define SMALL 16  // a push row of at most this many edges is walked by one lane
#define SPARSE 4  // after a push, a united word of at most this many new bits is labelled by its own lane

__device__ __forceinline__ int bit_of(i64 v) { return 8 * (int)((v >> 3) & 3) + 7 - (int)(v & 7); }

// A vertex a peer claimed in this level, labelled (a push's also counted: its frontier's size,
// degree sum and largest degree; a pull's counters hold them).
__device__ __forceinline__ void take_claimed(i64 v, int dir, int* labels, int level, const i64* __restrict__ degree,
                                             i64& cnt, i64& dg, i64& top) {
    if (dir == 1) {
        labels[v] = level;
        return;
    }
    if (__ldcg(labels + v) < 0) labels[v] = level;
    const i64 d = degree[v];
    ++cnt;
    dg += d;
    top = max(top, d);
}

// An owned vertex a pull claimed with parent u, labelled and counted (its degree, the largest).
template <typename V>
__device__ __forceinline__ void take_pulled(i64 v, V u, int* labels, V* parents, int level,
                                            const i64* __restrict__ degree, i64& cnt, i64& dg, i64& top) {
    labels[v] = level;
    parents[v] = u;
    const i64 d = degree[v];
    ++cnt;
    dg += d;
    top = max(top, d);
}

// The slot of each thread's first entry in an append of c entries a thread (every thread of the
// block must call it): one atomic a block.
__device__ __forceinline__ u64 block_reserve_n(unsigned c, u64* cursor) {
    __shared__ unsigned warp_off[32];
    __shared__ u64 block_base;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    unsigned incl = c;
    for (int off = 1; off < 32; off <<= 1) {
        const unsigned t = __shfl_up_sync(0xffffffffu, incl, off);
        if (lane >= off) incl += t;
    }
    if (lane == 31) warp_off[warp] = incl;
    __syncthreads();
    if (threadIdx.x == 0) {
        const u64 total = warp_offsets(warp_off);
        block_base = total ? atomicAdd(cursor, total) : 0;
    }
    __syncthreads();
    const u64 pos = block_base + warp_off[warp] + incl - c;
    __syncthreads();  // the shared slots are free for the next call
    return pos;
}

// A push's edge to v from global vertex ug: claim v if unvisited (its bit in every GPU's slot when
// remote, else in this GPU's), and keep the smallest parent among the level's claimants.
template <typename V>
__device__ __forceinline__ void push_claim(V v, V ug, int* labels, V* parents, int level, bool remote,
                                           const unsigned long long* __restrict__ ptrs, int p, int slot, i64 nw,
                                           unsigned* united) {
    int lab = __ldcg(labels + v);
    if (lab == -1) {
        lab = atomicCAS(labels + v, -1, level);
        if (lab == -1) {
            lab = level;
            const unsigned b = 1u << bit_of(v);
            if (remote) {
                for (int s = 0; s < p; ++s) atomicOr_system((unsigned*)ptrs[s] + (i64)slot * nw + (v >> 5), b);
            } else {
                atomicOr(united + (v >> 5), b);
            }
        }
    }
    if (lab == level) atomicMin(parents + v, ug);
}

// Every lane of the warp calls it: the bits of the lanes' hits in ``words``, one atomic a word.
__device__ __forceinline__ void warp_set_bits(bool hit, i64 v, unsigned* words) {
    const unsigned b = hit ? (1u << bit_of(v)) : 0u;
    const unsigned same = __match_any_sync(0xffffffffu, (unsigned long long)(v >> 5));
    const unsigned x = __reduce_or_sync(same, b);
    if (x && (int)(threadIdx.x & 31) == __ffs(same) - 1) atomicOr(words + (v >> 5), x);
}

// The warp's largest x, added to *target by lane 0 (every lane calls it).
__device__ __forceinline__ void warp_max_to(i64 x, u64* target) {
    const unsigned m = __reduce_max_sync(0xffffffffu, (unsigned)min(x, (i64)0xffffffff));
    if ((threadIdx.x & 31) == 0 && m) atomicMax(target, (u64)m);
}

template <typename V>
__device__ void peer_levels(const i64* __restrict__ indptr, const V* __restrict__ indices,
                            const i64* __restrict__ cindptr, const V* __restrict__ cindices, i64 row_base,
                            i64 nrows, const V* f0, int nf0, const unsigned* f0bits, int dir0,
                            int spread0, i64 mf0, i64 nf_prev, V* bufx, V* bufy, int* labels, V* parents,
                            const i64* __restrict__ degree, const unsigned long long* __restrict__ ptrs,
                            const i64* __restrict__ spans, int q, int p, i64 nw, i64 n, i64 k0, int level0,
                            int max_levels, i64 m_u, double alpha, double beta, int may_pull, int pull_here,
                            i64 mf_limit, i64 deg_limit, i64 remote_limit, i64 spin_ns, u64* rec, i64* ctl) {
    cg::grid_group grid = cg::this_grid();
    const bool lead = blockIdx.x == 0 && threadIdx.x == 0;
    const int lane = threadIdx.x & 31;
    const i64 tid = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    const i64 nthreads = (i64)gridDim.x * blockDim.x;
    const i64 warp = tid >> 5;
    const i64 nwarps = nthreads >> 5;
    unsigned* mine = (unsigned*)ptrs[q];
    volatile long long* arrivals = (volatile long long*)(mine + SLOTS * nw);
    u64* counters = (u64*)(mine + SLOTS * nw) + p;  // SLOTS groups of 4
    const i64 own_end = row_base + nrows;
    if (lead) ctl[2] = (i64)now_ns();
    const V* cur = f0;
    const unsigned* prev_bits = f0bits;
    i64 nf = nf0, mf = mf0, prev = nf_prev;
    int dir = dir0, k = 0, reason = 0;
    while (k < max_levels) {
        const i64 kk = k0 + k;
        const int slot = (int)(kk % SLOTS), next_slot = (int)((kk + 1) % SLOTS);
        V* out = (k & 1) ? bufy : bufx;
        const int level = level0 + k;
        u64* r = rec + REC * (i64)k;
        unsigned* united = mine + (i64)slot * nw;
        for (i64 w = tid; w < nw; w += nthreads) mine[(i64)next_slot * nw + w] = 0u;
        if (lead)
            for (int c = 0; c < 4; ++c) counters[4 * next_slot + c] = 0ull;
        const bool remote = dir == 0 && mf <= remote_limit;  // a small push's claims go to every GPU's slot
        i64 scanned = 0;
        if (dir == 0 && k == 0 && spread0) {
            // the batch's first level from a few rows of many edges (the source, a hub): the rows one
            // after another, every thread of the grid on the row's edges
            for (i64 i = 0; i < nf; ++i) {
                const V u = __ldcg(cur + i);
                const i64 begin = indptr[u], end = indptr[u + 1];
                if (tid == 0) scanned += end - begin;
                for (i64 e = begin + tid; e < end; e += nthreads)
                    push_claim(indices[e], (V)(row_base + u), labels, parents, level, remote, ptrs, p, slot, nw, united);
            }
        } else if (dir == 0) {
            // 32 rows a warp at a time: a lane walks a row of at most SMALL edges alone, the whole warp
            // each larger one (a rmat frontier late in a search is mostly vertices of one or two edges)
            for (i64 base = warp << 5; base < nf; base += nwarps << 5) {  // warp-uniform
                const i64 i = base + lane;
                V u = 0;
                i64 begin = 0, end = 0;
                if (i < nf) {
                    u = __ldcg(cur + i);
                    begin = indptr[u];
                    end = indptr[u + 1];
                    scanned += end - begin;
                }
                const bool small = end - begin <= SMALL;
                if (small)
                    for (i64 e = begin; e < end; ++e)
                        push_claim(indices[e], (V)(row_base + u), labels, parents, level, remote, ptrs, p, slot, nw, united);
                for (unsigned big = __ballot_sync(0xffffffffu, !small); big; big &= big - 1) {
                    const int l = __ffs(big) - 1;
                    const V ul = __shfl_sync(0xffffffffu, u, l);
                    const i64 bl = __shfl_sync(0xffffffffu, begin, l), el = __shfl_sync(0xffffffffu, end, l);
                    for (i64 e = bl + lane; e < el; e += 32)
                        push_claim(indices[e], (V)(row_base + ul), labels, parents, level, remote, ptrs, p, slot, nw, united);
                }
            }
        } else {
            // a thread per owned row, two rows an iteration so that their loads overlap (a pull waits on
            // memory, and the cooperative grid holds half the threads of a launch of its own); the loop
            // bound is warp-uniform (the lanes meet to set their bits)
            i64 c_own = 0, d_own = 0, t_own = 0;
            for (i64 base = tid - lane; base < nrows; base += 2 * nthreads) {
                const i64 ra = base + lane, rb = ra + nthreads;
                const i64 va = row_base + ra, vb = row_base + rb;
                const bool la = ra < nrows && __ldcg(labels + va) == -1;
                const bool lb = rb < nrows && __ldcg(labels + vb) == -1;
                i64 ea = la ? cindptr[ra] : 0, enda = la ? cindptr[ra + 1] : 0;
                i64 eb = lb ? cindptr[rb] : 0, endb = lb ? cindptr[rb + 1] : 0;
                bool fa = false, fb = false;
                V pa = 0, pb = 0;
                while (ea < enda || eb < endb) {
                    const bool ta = ea < enda, tb = eb < endb;
                    const V ua = ta ? cindices[ea] : (V)0;
                    const V ub = tb ? cindices[eb] : (V)0;
                    const unsigned wa = ta ? __ldcg(prev_bits + (ua >> 5)) : 0u;
                    const unsigned wb = tb ? __ldcg(prev_bits + (ub >> 5)) : 0u;
                    if (ta) {
                        ++scanned;
                        if ((wa >> bit_of(ua)) & 1u) { fa = true; pa = ua; enda = ea; } else ++ea;
                    }
                    if (tb) {
                        ++scanned;
                        if ((wb >> bit_of(ub)) & 1u) { fb = true; pb = ub; endb = eb; } else ++eb;
                    }
                }
                if (fa) take_pulled(va, pa, labels, parents, level, degree, c_own, d_own, t_own);
                if (fb) take_pulled(vb, pb, labels, parents, level, degree, c_own, d_own, t_own);
                warp_set_bits(fa, va, united);
                warp_set_bits(fb, vb, united);
            }
            block_add(c_own, r + 9);
            block_add(d_own, r + 10);
            warp_max_to(t_own, r + 11);
        }
        block_add(scanned, r + 5);
        grid.sync();
        if (lead) {
            r[12] = now_ns();
            const u64 own = __ldcg(r + 5), c_own = __ldcg(r + 9), d_own = __ldcg(r + 10), t_own = __ldcg(r + 11);
            for (int s = 0; s < p; ++s) {
                u64* at = (u64*)((unsigned*)ptrs[s] + SLOTS * nw) + p + 4 * slot;
                if (own) atomicAdd_system(at, own);
                if (dir == 1) {
                    if (c_own) atomicAdd_system(at + 1, c_own);
                    if (d_own) atomicAdd_system(at + 2, d_own);
                    if (t_own) atomicMax_system(at + 3, t_own);
                }
            }
            __threadfence_system();
            for (int s = 0; s < p; ++s)
                if (s != q)
                    atomicAdd_system((unsigned long long*)((unsigned*)ptrs[s] + SLOTS * nw) + q, 1ull);
            const i64 want = kk + 1;
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
            r[13] = now_ns();
        }
        grid.sync();
        if (!__ldcg(ctl + 3)) { reason = 5; break; }
        volatile u64* got = counters + 4 * slot;  // every GPU's adds are in: the barrier
        if (dir == 1 && lead) {  // a pull: the counters hold the frontier's size, degree sum and largest degree
            r[0] = got[1];
            r[1] = got[2];
            r[7] = got[3];
        }
        // a warp per 32 words: each lane ORs one word; after a push a lane labels and counts a word of
        // few new bits itself (a warp per word took a turn for each of a sparse level's words, each
        // turn a chain of reads); the warp walks the other words a lane per bit, so such a word's
        // depths are one 128-byte store and its degrees one 256-byte read (a thread per word wrote 32
        // depths 128 vertices apart from its neighbours')
        i64 cnt = 0, dg = 0, top = 0;
        for (i64 w0 = warp << 5; w0 < nw; w0 += nwarps << 5) {  // warp-uniform
            const i64 w = w0 + lane;
            unsigned x = 0u, own = 0u;
            if (w < nw) {
                own = __ldcv(united + w);
                x = own;
                if (!remote) {
                    const i64 v0 = w << 5;
                    for (int s = 0; s < p; ++s)  // a pull's claims are the claimant's own rows: only the
                        // peers whose rows meet this word's vertices may have set bits in it
                        if (s != q && (dir == 0 || (spans[2 * s] < v0 + 32 && spans[2 * s + 1] > v0)))
                            x |= __ldcv((const unsigned*)ptrs[s] + (i64)slot * nw + w);
                    if (x != own) united[w] = x;  // the union, for the next pull and the host
                }
            }
            // a pull's own claims are labelled and counted already: the peers' are the rest
            const unsigned todo = dir == 1 ? (x & ~own) : x;
            const bool dense = dir == 1 ? todo != 0u : __popc(todo) > SPARSE;
            if (!dense)
                for (unsigned y = todo; y; y &= y - 1)  // bit_of is its own inverse on 0..31
                    take_claimed((w << 5) + bit_of(__ffs(y) - 1), dir, labels, level, degree, cnt, dg, top);
            for (unsigned any = __ballot_sync(0xffffffffu, dense); any; any &= any - 1) {
                const int t = __ffs(any) - 1;
                const unsigned xw = __shfl_sync(0xffffffffu, todo, t);
                if ((xw >> bit_of(lane)) & 1u)
                    take_claimed(((w0 + t) << 5) + lane, dir, labels, level, degree, cnt, dg, top);
            }
        }
        if (dir == 0) {
            block_add(cnt, r + 0);
            block_add(dg, r + 1);
            warp_max_to(top, r + 7);
        }
        grid.sync();
        const i64 nf_all = (i64)__ldcg(r + 0);
        const i64 mf_new = (i64)__ldcg(r + 1);
        const i64 top_all = (i64)__ldcg(r + 7);
        if (lead) {
            r[2] = got[0];
            r[3] = now_ns();
            r[6] = (u64)dir;
        }
        ++k;
        m_u -= mf_new;
        int next;
        if (dir == 0) next = (may_pull && (double)mf_new > (double)m_u / alpha && nf_all > prev) ? 1 : 0;
        else next = ((double)nf_all < (double)n / beta && nf_all < prev) ? 0 : 1;
        prev = nf_all;
        dir = next;
        prev_bits = united;
        if (nf_all == 0) { reason = 1; break; }
        if (next == 1 && !pull_here) { reason = 2; break; }
        if (next == 0) {  // the rows this GPU owns in the united bitmap, for the push (here or on the host)
            const i64 w_lo = row_base >> 5, w_hi = (own_end + 31) >> 5;
            i64 od = 0;
            for (i64 base = w_lo + (i64)blockIdx.x * blockDim.x; base < w_hi; base += nthreads) {
                const i64 w = base + threadIdx.x;
                const unsigned x = w < w_hi ? __ldcg(united + w) : 0u;
                unsigned c = 0;
                for (int j = 0; j < 32 && x; ++j) {
                    const i64 v = (w << 5) + j;
                    if (((x >> bit_of(j)) & 1u) && v >= row_base && v < own_end) ++c;
                }
                u64 pos = block_reserve_n(c, r + 4);
                for (int j = 0; j < 32 && c; ++j) {
                    const i64 v = (w << 5) + j;
                    if (((x >> bit_of(j)) & 1u) && v >= row_base && v < own_end) {
                        out[pos++] = (V)(v - row_base);
                        od += degree[v];
                        --c;
                    }
                }
            }
            block_add(od, r + 8);
            grid.sync();
            nf = (i64)__ldcg(r + 4);
            cur = out;
            if (mf_new > mf_limit) { reason = 3; break; }
            if (top_all > deg_limit) { reason = 4; break; }
        }
        mf = mf_new;
    }
    if (lead) {
        ctl[0] = k;
        ctl[1] = reason;
        ctl[4] = dir;
    }
}

// BLOCK (dgraph/cuda) threads a block, at least 4 blocks a multiprocessor: 64 registers (sm_90: no
// spills for int ids, 32 bytes for int64)
#define PEER_LEVELS(S, V)                                                                                    \
    __global__ void __launch_bounds__(256, 4)                                                              \
        peer_levels_##S(const i64* indptr, const V* indices, const i64* cindptr, const V* cindices,         \
                        i64 row_base, i64 nrows, const V* f0, int nf0, const unsigned* f0bits, int dir0,    \
                        int spread0, i64 mf0, i64 nf_prev, V* bufx, V* bufy, int* labels, V* parents,       \
                        const i64* degree, const unsigned long long* ptrs, const i64* spans, int q, int p,  \
                        i64 nw, i64 n, i64 k0, int level0, int max_levels, i64 m_u, double alpha,           \
                        double beta, int may_pull, int pull_here, i64 mf_limit, i64 deg_limit,              \
                        i64 remote_limit, i64 spin_ns, u64* rec, i64* ctl) {                                \
        peer_levels<V>(indptr, indices, cindptr, cindices, row_base, nrows, f0, nf0, f0bits, dir0, spread0, \
                       mf0, nf_prev, bufx, bufy, labels, parents, degree, ptrs, spans, q, p, nw, n, k0,     \
                       level0, max_levels, m_u, alpha, beta, may_pull, pull_here, mf_limit, deg_limit,      \
                       remote_limit, spin_ns, rec, ctl);                                                   \
    }

extern "C" {
PEER_LEVELS(i32, int)
PEER_LEVELS(i64, i64)
}
