#include "common.cuh"

// Triangle counting per vertex on one whole shard (gpu.py says what each kernel is for and how the
// host puts them together).  Launches: blocks of 256 threads (TC_WARPS warps).

#define TC_WARPS 8
#define TC_FULL 0xffffffffu

// The inclusive sum of x over the warp's lanes up to this one (every lane takes part).
__device__ __forceinline__ i64 warp_incl_scan(i64 x, int lane) {
    for (int o = 1; o < 32; o <<= 1) {
        const i64 t = __shfl_up_sync(TC_FULL, x, o);
        if (lane >= o) x += t;
    }
    return x;
}

// -- the oriented rows: a thread an arc ------------------------------------------------------------

// the largest r in [lo, hi] with indptr[r] <= e: the row of arc e (empty rows skipped)
__device__ __forceinline__ i64 tc_row_of(const i64* __restrict__ indptr, i64 lo, i64 hi, i64 e) {
    while (lo < hi) {
        i64 mid = (lo + hi + 1) >> 1;
        if (indptr[mid] <= e) lo = mid; else hi = mid - 1;
    }
    return lo;
}

// body(row, arc) for every arc of the CSR, a thread an arc in grid-stride rounds of blockDim.x
// consecutive arcs: a round's rows lie between the rows of its first and last arcs, found once a
// block.  Every thread of the block must call it.
template <typename Body>
__device__ __forceinline__ void tc_for_each_arc(const i64* __restrict__ indptr, i64 nrows, Body body) {
    __shared__ i64 range[2];
    const i64 m = indptr[nrows];
    for (i64 first = (i64)blockIdx.x * blockDim.x; first < m; first += (i64)gridDim.x * blockDim.x) {
        const i64 last = min(first + (i64)blockDim.x, m) - 1;
        if (threadIdx.x == 0) range[0] = tc_row_of(indptr, 0, nrows - 1, first);
        if (threadIdx.x == 32 % blockDim.x) range[1] = tc_row_of(indptr, 0, nrows - 1, last);
        __syncthreads();
        const i64 e = first + threadIdx.x;
        if (e < m) body(tc_row_of(indptr, range[0], range[1], e), e);
        __syncthreads();  // the shared pair is free for the next round
    }
}

// valid[e] = arc e of row v is a simple edge: not a self loop, not a repeat of the arc before it
// (rows are sorted by target, so repeats are adjacent).  Row r is vertex r (one whole shard).
template <typename V>
__device__ void simple_arcs(const i64* __restrict__ indptr, const V* __restrict__ indices, i64 nrows,
                            unsigned char* __restrict__ valid) {
    tc_for_each_arc(indptr, nrows, [&](i64 r, i64 e) {
        const V x = indices[e];
        valid[e] = (i64)x != r && (e == indptr[r] || indices[e - 1] != x);
    });
}

// up[e] = arc e is valid and leads from its row v to a vertex x of higher rank: (deg[x], x) > (deg[v], v)
template <typename V>
__device__ void up_arcs(const i64* __restrict__ indptr, const V* __restrict__ indices, i64 nrows,
                        const unsigned char* __restrict__ valid, const i64* __restrict__ deg,
                        unsigned char* __restrict__ up) {
    tc_for_each_arc(indptr, nrows, [&](i64 r, i64 e) {
        const V x = indices[e];
        const i64 dv = deg[r], dx = deg[x];
        up[e] = valid[e] && (dx > dv || (dx == dv && (i64)x > r));
    });
}

// Split the valid arcs into the oriented rows N+ (up arcs, at pup[e]) and N- (the others, at
// pvalid[e] - pup[e]); pvalid and pup are exclusive prefix sums of valid and up, so each row keeps
// its order (sorted by id).  mult (null: none) travels with its arc into pmult / mmult.
template <typename V>
__device__ void split_arcs(i64 m, const V* __restrict__ indices, const unsigned char* __restrict__ valid,
                           const unsigned char* __restrict__ up, const i64* __restrict__ pvalid,
                           const i64* __restrict__ pup, const signed char* __restrict__ mult, V* __restrict__ plus,
                           signed char* __restrict__ pmult, V* __restrict__ minus, signed char* __restrict__ mmult) {
    for (i64 e = (i64)blockIdx.x * blockDim.x + threadIdx.x; e < m; e += (i64)gridDim.x * blockDim.x) {
        if (up[e]) {
            const i64 k = pup[e];
            plus[k] = indices[e];
            if (mult) pmult[k] = mult[e];
        } else if (valid[e]) {
            const i64 k = pvalid[e] - pup[e];
            minus[k] = indices[e];
            if (mult) mmult[k] = mult[e];
        }
    }
}

// -- the count: a group of warps per pivot w and slice of N-(w) ----------------------------------

__device__ __forceinline__ int tc_cas(int* a, int expected, int desired) { return atomicCAS(a, expected, desired); }
__device__ __forceinline__ i64 tc_cas(i64* a, i64 expected, i64 desired) {
    return (i64)atomicCAS((unsigned long long*)a, (unsigned long long)expected, (unsigned long long)desired);
}

template <typename V>
__device__ __forceinline__ unsigned tc_hash(V y, unsigned mask) {
    const unsigned long long k = (unsigned long long)y;
    unsigned h = (unsigned)(k ^ (k >> 32)) * 0x9E3779B1u;
    return (h ^ (h >> 15)) & mask;
}

// bytes of one hash table of `slots` slots: keys (V), hit counts (u32) and, with multiplicities, the
// hit counts of the both-ways opposite edges (u32) and each key's multiplicity (int8); 16-aligned
template <typename V, bool MULT>
__device__ __forceinline__ i64 tc_table_bytes(int slots) {
    const i64 b = (i64)slots * ((i64)sizeof(V) + 4 + (MULT ? 5 : 0));
    return (b + 15) & ~(i64)15;
}

template <int GW>
__device__ __forceinline__ void tc_group_sync() {
    if constexpr (GW == 1) __syncwarp(); else __syncthreads();
}

// Unit `unit` of the pivots `pivots` (its pivot j: the first with uscan[j] > unit, uscan the inclusive
// sum of the pivots' unit counts; the unit is slice k of N-(w), w = pivots[j]) by a group of GW warps
// (GW == 1: a warp; GW == TC_WARPS: the block).  Every triangle u < w < y (rank order) is counted at
// its middle corner w: u in N-(w), y in N+(u) and in N+(w).  N+(w) is put in a hash table in shared
// memory (slots > 0: room for a power of two >= 2 |N+(w)|, of which the pivot takes the least such)
// or searched in its sorted row (slots == 0), and
// every y of every N+(u), u in the slice, is looked up: a warp's lanes take the (u, y) pairs of 32
// u's at a time, flattened (each lane walks the 32 prefix sums to its u: a step or none a pair where
// the work is, in long rows), so short and long rows keep the lanes alike busy.  Hits are added up in shared memory first (per u of the 32, per
// slot of the table, per lane for w) and reach the global counts once per (unit, vertex).
// With MULT (directed LCC): two[v] counts the triangles at v whose opposite edge has arcs both ways.
template <typename V, bool MULT, int GW>
__device__ void count_pivots(const i64* __restrict__ pptr, const V* __restrict__ plus,
                             const signed char* __restrict__ pmult, const i64* __restrict__ mptr,
                             const V* __restrict__ minus, const signed char* __restrict__ mmult,
                             const V* __restrict__ pivots, const i64* __restrict__ uscan, i64 npivots, i64 nunits,
                             i64 slice, int slots, u64* tri, u64* two) {
    extern __shared__ __align__(16) unsigned char tc_smem[];
    __shared__ i64 s_off[TC_WARPS][32];
    __shared__ i64 s_start[TC_WARPS][32];
    __shared__ unsigned s_hit[TC_WARPS][32];
    __shared__ unsigned s_two[TC_WARPS][32];
    __shared__ signed char s_m[TC_WARPS][32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int gthreads = 32 * GW;
    const int gt = threadIdx.x % gthreads;  // thread in the group
    const int gw = warp % GW;               // warp in the group
    const i64 unit = ((i64)blockIdx.x * blockDim.x + threadIdx.x) / gthreads;
    if (unit >= nunits) return;  // the whole group (a warp, or the block) leaves together

    i64 lo = 0, hi = npivots - 1;
    while (lo < hi) {
        const i64 mid = (lo + hi) >> 1;
        if (uscan[mid] > unit) hi = mid; else lo = mid + 1;
    }
    const i64 k = unit - (lo ? uscan[lo - 1] : 0);
    const V w = pivots[lo];
    const i64 pa = pptr[w], dw = pptr[w + 1] - pa;
    const i64 ma = mptr[w] + k * slice, mb = min(ma + slice, mptr[w + 1]);

    unsigned char* base = tc_smem + (threadIdx.x / gthreads) * tc_table_bytes<V, MULT>(slots);
    V* keys = (V*)base;
    unsigned* cnt = (unsigned*)(base + (i64)slots * sizeof(V));
    unsigned* cnt2 = cnt + slots;                                    // MULT only
    signed char* tm = (signed char*)(cnt2 + slots);                  // MULT only
    if (slots) {  // the pivot's own share of the room: a power of two >= 2 |N+(w)|
        int want = 2;
        while (want < 2 * dw) want <<= 1;
        slots = min(slots, want);
    }
    const unsigned mask = (unsigned)slots - 1u;
    if (slots) {
        for (int s = gt; s < slots; s += gthreads) {
            keys[s] = (V)-1;
            cnt[s] = 0;
            if (MULT) cnt2[s] = 0;
        }
        tc_group_sync<GW>();
        for (i64 i = gt; i < dw; i += gthreads) {
            const V y = plus[pa + i];
            unsigned h = tc_hash(y, mask);
            while (tc_cas(keys + h, (V)-1, y) != (V)-1) h = (h + 1) & mask;
            if (MULT) tm[h] = pmult[pa + i];
        }
        tc_group_sync<GW>();
    }

    u64 hits = 0, twos = 0;  // this lane's triangles at w, and those of them whose edge u-y has both arcs
    for (i64 b0 = ma + (i64)gw * 32; b0 < mb; b0 += (i64)GW * 32) {  // warp-uniform bounds
        const i64 i = b0 + lane;
        V u = 0;
        i64 ua = 0, du = 0;
        signed char muw = 0;
        if (i < mb) {
            u = minus[i];
            ua = pptr[u];
            du = pptr[u + 1] - ua;
            if (MULT) muw = mmult[i];
        }
        const i64 incl = warp_incl_scan(du, lane);
        const i64 total = __shfl_sync(TC_FULL, incl, 31);
        s_off[warp][lane] = incl - du;
        s_start[warp][lane] = ua;
        s_hit[warp][lane] = 0;
        if (MULT) {
            s_two[warp][lane] = 0;
            s_m[warp][lane] = muw;
        }
        __syncwarp();
        int q = 0;  // the lane whose u owns pair t: the largest q with s_off[q] <= t (t only grows)
        for (i64 t = lane; t < total; t += 32) {
            while (q < 31 && s_off[warp][q + 1] <= t) ++q;
            const i64 pos = s_start[warp][q] + (t - s_off[warp][q]);
            const V y = plus[pos];
            bool hit = false;
            i64 h = 0;
            if (slots) {
                unsigned s = tc_hash(y, mask);
                while (true) {
                    const V key = keys[s];
                    if (key == y) { hit = true; break; }
                    if (key == (V)-1) break;
                    s = (s + 1) & mask;
                }
                h = s;
            } else {  // N+(w) sorted: the first position >= y
                i64 a = 0, b = dw;
                while (a < b) {
                    const i64 mid = (a + b) >> 1;
                    if (plus[pa + mid] < y) a = mid + 1; else b = mid;
                }
                hit = a < dw && plus[pa + a] == y;
                h = a;
            }
            if (hit) {
                ++hits;
                atomicAdd(&s_hit[warp][q], 1u);
                if (slots) atomicAdd(cnt + h, 1u); else atomicAdd(tri + y, (u64)1);
                if (MULT) {
                    const signed char mwy = slots ? tm[h] : pmult[pa + h];
                    if (mwy == 2) atomicAdd(&s_two[warp][q], 1u);  // u's opposite edge: w-y
                    if (pmult[pos] == 2) ++twos;                     // w's opposite edge: u-y
                    if (s_m[warp][q] == 2) {                         // y's opposite edge: u-w
                        if (slots) atomicAdd(cnt2 + h, 1u); else atomicAdd(two + y, (u64)1);
                    }
                }
            }
        }
        __syncwarp();
        if (i < mb) {
            const unsigned c = s_hit[warp][lane];
            if (c) atomicAdd(tri + u, (u64)c);
            if (MULT) {
                const unsigned c2 = s_two[warp][lane];
                if (c2) atomicAdd(two + u, (u64)c2);
            }
        }
        __syncwarp();  // the batch's shared slots are free for the next one
    }
    for (int off = 16; off > 0; off >>= 1) {
        hits += __shfl_down_sync(TC_FULL, hits, off);
        if (MULT) twos += __shfl_down_sync(TC_FULL, twos, off);
    }
    if (lane == 0) {
        if (hits) atomicAdd(tri + w, hits);
        if (MULT && twos) atomicAdd(two + w, twos);
    }
    if (slots) {
        tc_group_sync<GW>();  // every probe of the group is done
        for (int s = gt; s < slots; s += gthreads) {
            const V y = keys[s];
            if (y != (V)-1) {
                if (cnt[s]) atomicAdd(tri + y, (u64)cnt[s]);
                if (MULT && cnt2[s]) atomicAdd(two + y, (u64)cnt2[s]);
            }
        }
    }
}

// -- the partitioned Program's count superstep: a warp per owned row and slice of its neighbors ------

// Unit `unit` (its row: the first r with uscan[r] > unit; slice k of the row's neighbors): for every
// neighbor u of owned row r in the slice and every w of the ghost row N+(u), a hit when w is a
// neighbor of r too (a binary search of r's sorted row): tri[r] += the hits, two[r] += those whose
// ghost arc has gmult 2 (gmult null: none).  The (u, w) pairs of 32 u at a time are flattened over
// the lanes, as count_pivots does.  Ids are global int64 (the Program's arrays).
__device__ void tc_count_rows(const i64* __restrict__ pindptr, const i64* __restrict__ pnbr,
                           const i64* __restrict__ gindptr, const i64* __restrict__ gnbr,
                           const signed char* __restrict__ gmult, const i64* __restrict__ uscan, i64 nrows,
                           i64 nunits, i64 slice, u64* tri, u64* two) {
    __shared__ i64 s_off[TC_WARPS][32];
    __shared__ i64 s_start[TC_WARPS][32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const i64 unit = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    if (unit >= nunits) return;  // the whole warp
    i64 lo = 0, hi = nrows - 1;
    while (lo < hi) {
        const i64 mid = (lo + hi) >> 1;
        if (uscan[mid] > unit) hi = mid; else lo = mid + 1;
    }
    const i64 r = lo, k = unit - (lo ? uscan[lo - 1] : 0);
    const i64 pa = pindptr[r], dr = pindptr[r + 1] - pa;
    const i64 ma = pa + k * slice, mb = min(ma + slice, pa + dr);
    u64 hits = 0, twos = 0;
    for (i64 b0 = ma; b0 < mb; b0 += 32) {  // warp-uniform bounds
        const i64 i = b0 + lane;
        i64 ga = 0, du = 0;
        if (i < mb) {
            const i64 u = pnbr[i];
            ga = gindptr[u];
            du = gindptr[u + 1] - ga;
        }
        const i64 incl = warp_incl_scan(du, lane);
        const i64 total = __shfl_sync(TC_FULL, incl, 31);
        s_off[warp][lane] = incl - du;
        s_start[warp][lane] = ga;
        __syncwarp();
        int q = 0;
        for (i64 t = lane; t < total; t += 32) {
            while (q < 31 && s_off[warp][q + 1] <= t) ++q;
            const i64 f = s_start[warp][q] + (t - s_off[warp][q]);
            const i64 w = gnbr[f];
            i64 a = 0, b = dr;  // the first position of r's row >= w
            while (a < b) {
                const i64 mid = (a + b) >> 1;
                if (pnbr[pa + mid] < w) a = mid + 1; else b = mid;
            }
            if (a < dr && pnbr[pa + a] == w) {
                ++hits;
                if (gmult && gmult[f] == 2) ++twos;
            }
        }
        __syncwarp();  // the batch's shared slots are free for the next one
    }
    for (int off = 16; off > 0; off >>= 1) {
        hits += __shfl_down_sync(TC_FULL, hits, off);
        twos += __shfl_down_sync(TC_FULL, twos, off);
    }
    if (lane == 0) {
        if (hits) atomicAdd(tri + r, hits);
        if (twos) atomicAdd(two + r, twos);
    }
}

extern "C" {
__global__ void count_rows(const i64* pindptr, const i64* pnbr, const i64* gindptr, const i64* gnbr,
                           const signed char* gmult, const i64* uscan, i64 nrows, i64 nunits, i64 slice, u64* tri,
                           u64* two) {
    tc_count_rows(pindptr, pnbr, gindptr, gnbr, gmult, uscan, nrows, nunits, slice, tri, two);
}
__global__ void simple_arcs_i32(const i64* indptr, const int* indices, i64 nrows, unsigned char* valid) {
    simple_arcs<int>(indptr, indices, nrows, valid);
}
__global__ void simple_arcs_i64(const i64* indptr, const i64* indices, i64 nrows, unsigned char* valid) {
    simple_arcs<i64>(indptr, indices, nrows, valid);
}
__global__ void up_arcs_i32(const i64* indptr, const int* indices, i64 nrows, const unsigned char* valid,
                            const i64* deg, unsigned char* up) {
    up_arcs<int>(indptr, indices, nrows, valid, deg, up);
}
__global__ void up_arcs_i64(const i64* indptr, const i64* indices, i64 nrows, const unsigned char* valid,
                            const i64* deg, unsigned char* up) {
    up_arcs<i64>(indptr, indices, nrows, valid, deg, up);
}
__global__ void split_arcs_i32(i64 m, const int* indices, const unsigned char* valid, const unsigned char* up,
                               const i64* pvalid, const i64* pup, const signed char* mult, int* plus,
                               signed char* pmult, int* minus, signed char* mmult) {
    split_arcs<int>(m, indices, valid, up, pvalid, pup, mult, plus, pmult, minus, mmult);
}
__global__ void split_arcs_i64(i64 m, const i64* indices, const unsigned char* valid, const unsigned char* up,
                               const i64* pvalid, const i64* pup, const signed char* mult, i64* plus,
                               signed char* pmult, i64* minus, signed char* mmult) {
    split_arcs<i64>(m, indices, valid, up, pvalid, pup, mult, plus, pmult, minus, mmult);
}

#define TC_COUNT(NAME, V, MULT, GW)                                                                        \
    __global__ void NAME(const i64* pptr, const V* plus, const signed char* pmult, const i64* mptr,        \
                         const V* minus, const signed char* mmult, const V* pivots, const i64* uscan,       \
                         i64 npivots, i64 nunits, i64 slice, int slots, u64* tri, u64* two) {              \
        count_pivots<V, MULT, GW>(pptr, plus, pmult, mptr, minus, mmult, pivots, uscan, npivots, nunits,    \
                                  slice, slots, tri, two);                                                 \
    }
TC_COUNT(count_warp_i32, int, false, 1)
TC_COUNT(count_block_i32, int, false, TC_WARPS)
TC_COUNT(count_warp_mult_i32, int, true, 1)
TC_COUNT(count_block_mult_i32, int, true, TC_WARPS)
TC_COUNT(count_warp_i64, i64, false, 1)
TC_COUNT(count_block_i64, i64, false, TC_WARPS)
TC_COUNT(count_warp_mult_i64, i64, true, 1)
TC_COUNT(count_block_mult_i64, i64, true, TC_WARPS)
}
