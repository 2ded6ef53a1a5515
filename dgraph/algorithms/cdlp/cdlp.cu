#include "common.cuh"

// One synchronous CDLP update of a shard's rows on the GPU (gpu.py says how the host buckets the
// rows).  Row r of the shard is vertex rows[r] (map_rows) or row_base + r; its multiset of labels:
// label[x] for every out-arc r -> x (an undirected self loop twice: weight 2) and, directed, for
// every in-arc x -> r (the CSC row r).  out[r] = the most frequent label, the smallest on a tie.
// counters[0] += the rows whose label changed.  Blocks of 256 threads (CD_WARPS warps).

#define CD_WARPS 8
#define CD_FULL 0xffffffffu

template <typename V>
__device__ __forceinline__ bool cd_better(i64 c1, V l1, i64 c2, V l2) {
    return c1 > c2 || (c1 == c2 && l1 < l2);
}

// the j-th (label, weight) of row r's multiset, 0 <= j < (out-degree + in-degree)
template <typename V>
__device__ __forceinline__ void cd_entry(const i64* __restrict__ indptr, const V* __restrict__ indices,
                                         const i64* __restrict__ cindptr, const V* __restrict__ cindices,
                                         int directed, i64 r, i64 v, i64 j, const V* __restrict__ label, V& l,
                                         int& w) {
    const i64 a = indptr[r], dout = indptr[r + 1] - a;
    if (j < dout) {
        const V x = indices[a + j];
        l = label[x];
        w = (!directed && (i64)x == v) ? 2 : 1;
    } else {
        l = label[cindices[cindptr[r] + (j - dout)]];
        w = 1;
    }
}

// Rows of at most G entries (G = 8 or 32): a group of G lanes a row, lane j holding entry j; each
// lane counts its label's weight over the group by shuffles, then a shuffle tree keeps the best.
template <typename V, int G>
__device__ void cd_small(const i64* __restrict__ indptr, const V* __restrict__ indices,
                         const i64* __restrict__ cindptr, const V* __restrict__ cindices, int directed,
                         i64 row_base, const V* __restrict__ rows, int map_rows, const i64* __restrict__ bucket,
                         i64 nb, const V* __restrict__ label, V* __restrict__ out, u64* counters) {
    const int sub = threadIdx.x % G;
    const i64 gid = ((i64)blockIdx.x * blockDim.x + threadIdx.x) / G;
    const bool live = gid < nb;
    i64 r = 0, v = 0;
    V l = 0;
    int w = 0;
    if (live) {
        r = bucket[gid];
        v = map_rows ? (i64)rows[r] : r + row_base;
        const i64 k = (indptr[r + 1] - indptr[r]) + (directed ? cindptr[r + 1] - cindptr[r] : 0);
        if (sub < k) cd_entry<V>(indptr, indices, cindptr, cindices, directed, r, v, sub, label, l, w);
    }
    i64 c = 0;
    for (int j = 0; j < G; ++j) {  // every lane of the warp: the shuffles need them all
        const V lj = __shfl_sync(CD_FULL, l, j, G);
        const int wj = __shfl_sync(CD_FULL, w, j, G);
        if (lj == l) c += wj;
    }
    if (!w) c = -1;  // no entry in this lane
    for (int off = G / 2; off > 0; off >>= 1) {
        const V ol = __shfl_down_sync(CD_FULL, l, off, G);
        const i64 oc = __shfl_down_sync(CD_FULL, c, off, G);
        if (cd_better<V>(oc, ol, c, l)) {
            c = oc;
            l = ol;
        }
    }
    bool changed = false;
    if (live && sub == 0) {  // a bucketed row has at least one entry: c >= 1
        out[r] = l;
        changed = l != label[v];
    }
    block_add(changed ? 1 : 0, counters);
}

template <int GW>
__device__ __forceinline__ void cd_group_sync() {
    if constexpr (GW == 1) __syncwarp(); else __syncthreads();
}

template <bool CG, typename T>
__device__ __forceinline__ T cd_load(const T* p) {
    if constexpr (CG) return __ldcg(p); else return *p;
}

__device__ __forceinline__ int cd_cas(int* a, int expected, int desired) { return atomicCAS(a, expected, desired); }
__device__ __forceinline__ i64 cd_cas(i64* a, i64 expected, i64 desired) {
    return (i64)atomicCAS((unsigned long long*)a, (unsigned long long)expected, (unsigned long long)desired);
}

template <typename V>
__device__ __forceinline__ unsigned cd_hash(V y, unsigned mask) {
    const unsigned long long k = (unsigned long long)y;
    unsigned h = (unsigned)(k ^ (k >> 32)) * 0x9E3779B1u;
    return (h ^ (h >> 15)) & mask;
}

// Add weight w of label l (have: this lane holds an entry) into the hash table keys/cnt of mask + 1
// slots (-1: an empty key).  Every lane of the warp calls it together: the lanes holding the same
// label add their weights with one atomic (once labels settle, a long row's entries are mostly a
// few labels, and a hub's lanes would all add into one slot).  GLOBAL: the table is in global
// memory, written by other blocks too.
template <typename V, bool GLOBAL>
__device__ __forceinline__ void cd_insert(V* keys, unsigned* cnt, unsigned mask, V l, int w, bool have) {
    const unsigned same = __match_any_sync(CD_FULL, have ? (unsigned long long)l : ~0ull);
    const unsigned twos = __ballot_sync(CD_FULL, have && w == 2);
    if (!have || (int)(threadIdx.x & 31) != __ffs(same) - 1) return;
    unsigned h = cd_hash(l, mask);
    while (true) {
        V cur = cd_load<GLOBAL>(keys + h);
        if (cur == (V)-1) {
            cur = cd_cas(keys + h, (V)-1, l);
            if (cur == (V)-1) cur = l;
        }
        if (cur == l) {
            atomicAdd(cnt + h, (unsigned)(__popc(same) + __popc(same & twos)));
            return;
        }
        h = (h + 1) & mask;
    }
}

// The best (weight, label) of a table's slots s = gt, gt + gthreads, ... < nslots, then over the warp
// (lane 0 holds it).
template <typename V, bool GLOBAL>
__device__ __forceinline__ void cd_table_best(const V* keys, const unsigned* cnt, i64 nslots, int gt, int gthreads,
                                              i64& bc, V& bl) {
    bc = -1;
    bl = 0;
    for (i64 s = gt; s < nslots; s += gthreads) {
        const V key = cd_load<GLOBAL>(keys + s);
        if (key != (V)-1) {
            const i64 c = (i64)cd_load<GLOBAL>(cnt + s);
            if (cd_better<V>(c, key, bc, bl)) {
                bc = c;
                bl = key;
            }
        }
    }
    for (int off = 16; off > 0; off >>= 1) {
        const V ol = __shfl_down_sync(CD_FULL, bl, off);
        const i64 oc = __shfl_down_sync(CD_FULL, bc, off);
        if (cd_better<V>(oc, ol, bc, bl)) {
            bc = oc;
            bl = ol;
        }
    }
}

// The block's best over its warps' (lane 0 of each: bc, bl) into thread 0's.
template <typename V>
__device__ __forceinline__ void cd_block_best(i64& bc, V& bl) {
    __shared__ i64 s_count[CD_WARPS];
    __shared__ V s_label[CD_WARPS];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) {
        s_count[warp] = bc;
        s_label[warp] = bl;
    }
    __syncthreads();
    if (threadIdx.x == 0)
        for (int q = 1; q < CD_WARPS; ++q)
            if (cd_better<V>(s_count[q], s_label[q], bc, bl)) {
                bc = s_count[q];
                bl = s_label[q];
            }
}

// Longer rows: a group of GW warps a row (GW == 1: a warp; GW == CD_WARPS: the block) counts the
// labels' weights in a hash table in shared memory (room for `slots` slots a group, of which a row
// takes a power of two >= twice its entries).  Then the group's best slot.
template <typename V, int GW>
__device__ void cd_table(const i64* __restrict__ indptr, const V* __restrict__ indices,
                         const i64* __restrict__ cindptr, const V* __restrict__ cindices, int directed,
                         i64 row_base, const V* __restrict__ rows, int map_rows, const i64* __restrict__ bucket,
                         i64 nb, int slots, const V* __restrict__ label, V* __restrict__ out, u64* counters) {
    extern __shared__ __align__(16) unsigned char cd_smem[];
    const int lane = threadIdx.x & 31;
    const int gthreads = 32 * GW;
    const int gt = threadIdx.x % gthreads;
    const i64 gid = ((i64)blockIdx.x * blockDim.x + threadIdx.x) / gthreads;
    const bool live = gid < nb;  // the same in the whole group
    unsigned char* base = cd_smem + (i64)(threadIdx.x / gthreads) * slots * (i64)(sizeof(V) + 4);
    V* keys = (V*)base;
    unsigned* cnt = (unsigned*)(base + (i64)slots * sizeof(V));
    i64 r = 0, v = 0, k = 0;
    if (live) {
        r = bucket[gid];
        v = map_rows ? (i64)rows[r] : r + row_base;
        k = (indptr[r + 1] - indptr[r]) + (directed ? cindptr[r + 1] - cindptr[r] : 0);
    }
    i64 nslots = 1;  // the row's own share of the table: a power of two >= 2 k (the same in the group)
    while (nslots < 2 * k) nslots <<= 1;
    nslots = live ? min((i64)slots, nslots) : 0;
    const unsigned mask = (unsigned)nslots - 1u;
    for (i64 s = gt; s < nslots; s += gthreads) {
        keys[s] = (V)-1;
        cnt[s] = 0;
    }
    cd_group_sync<GW>();
    for (i64 j0 = 0; j0 < k; j0 += gthreads) {  // the same trip count in the group: cd_insert's warp calls
        const i64 j = j0 + gt;
        V l = 0;
        int w = 0;
        if (j < k) cd_entry<V>(indptr, indices, cindptr, cindices, directed, r, v, j, label, l, w);
        cd_insert<V, false>(keys, cnt, mask, l, w, j < k);
    }
    cd_group_sync<GW>();
    i64 bc;
    V bl;
    cd_table_best<V, false>(keys, cnt, nslots, gt, gthreads, bc, bl);
    bool changed = false;
    if constexpr (GW != 1) cd_block_best<V>(bc, bl);
    if (live && (GW == 1 ? lane == 0 : threadIdx.x == 0)) {
        out[r] = bl;
        changed = bl != label[v];
    }
    block_add(changed ? 1 : 0, counters);
}

// Hub rows, too long for a block's shared table: each row's entries cut into segments (block b
// takes row bucket[seg_row[b]]'s entries seg_lo[b] .. seg_lo[b] + seg), every block of a row adding
// into the row's table in global scratch at toff[i] .. toff[i + 1] (keys gkeys, weights gcnt; a power
// of two >= twice the row's entries; filled with -1 and 0 by the host before); then cd_hub_best and
// cd_hub_finish.  One block a row walked a hub of millions of entries alone while the rest of the
// GPU waited (an rmat graph's largest hub has twice the entries of the next: one shard of four ran
// its supersteps 16% longer than the others).
template <typename V>
__device__ void cd_hub_insert(const i64* __restrict__ indptr, const V* __restrict__ indices,
                              const i64* __restrict__ cindptr, const V* __restrict__ cindices, int directed,
                              i64 row_base, const V* __restrict__ rows, int map_rows,
                              const i64* __restrict__ bucket, const i64* __restrict__ seg_row,
                              const i64* __restrict__ seg_lo, i64 seg, const i64* __restrict__ toff, V* gkeys,
                              unsigned* gcnt, const V* __restrict__ label) {
    const i64 i = seg_row[blockIdx.x], r = bucket[i];
    const i64 v = map_rows ? (i64)rows[r] : r + row_base;
    const i64 k = (indptr[r + 1] - indptr[r]) + (directed ? cindptr[r + 1] - cindptr[r] : 0);
    const i64 lo = seg_lo[blockIdx.x], hi = min(lo + seg, k);
    const i64 t0 = toff[i];
    const unsigned mask = (unsigned)(toff[i + 1] - t0) - 1u;
    for (i64 j0 = lo; j0 < hi; j0 += blockDim.x) {  // the same trip count in the block
        const i64 j = j0 + threadIdx.x;
        V l = 0;
        int w = 0;
        if (j < hi) cd_entry<V>(indptr, indices, cindptr, cindices, directed, r, v, j, label, l, w);
        cd_insert<V, true>(gkeys + t0, gcnt + t0, mask, l, w, j < hi);
    }
}

// The best slot of each segment of the hub rows' tables: block b scans row tseg_row[b]'s slots
// tseg_lo[b] .. tseg_lo[b] + tseg into seg_c[b], seg_l[b] (a hub's table has millions of slots: one
// block a row would scan it alone).
template <typename V>
__device__ void cd_hub_best(const i64* __restrict__ tseg_row, const i64* __restrict__ tseg_lo, i64 tseg,
                            const i64* __restrict__ toff, const V* gkeys, const unsigned* gcnt, i64* seg_c,
                            V* seg_l) {
    const i64 i = tseg_row[blockIdx.x];
    const i64 t0 = toff[i] + tseg_lo[blockIdx.x];
    const i64 ns = min(tseg, toff[i + 1] - t0);
    i64 bc;
    V bl;
    cd_table_best<V, true>(gkeys + t0, gcnt + t0, ns, threadIdx.x, blockDim.x, bc, bl);
    cd_block_best<V>(bc, bl);
    if (threadIdx.x == 0) {
        seg_c[blockIdx.x] = bc;
        seg_l[blockIdx.x] = bl;
    }
}

// A thread a hub row i: the best of its segments' (tfirst[i] .. tfirst[i + 1]), its new label.
template <typename V>
__device__ void cd_hub_finish(const V* __restrict__ rows, int map_rows, i64 row_base, const i64* __restrict__ bucket,
                              i64 nb, const i64* __restrict__ tfirst, const i64* __restrict__ seg_c,
                              const V* __restrict__ seg_l, const V* __restrict__ label, V* __restrict__ out,
                              u64* counters) {
    const i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    bool changed = false;
    if (i < nb) {
        i64 bc = -1;
        V bl = 0;
        for (i64 b = tfirst[i]; b < tfirst[i + 1]; ++b)
            if (cd_better<V>(seg_c[b], seg_l[b], bc, bl)) {
                bc = seg_c[b];
                bl = seg_l[b];
            }
        const i64 r = bucket[i];
        const i64 v = map_rows ? (i64)rows[r] : r + row_base;
        out[r] = bl;
        changed = bl != label[v];
    }
    block_add(changed ? 1 : 0, counters);
}

extern "C" {
#define CD_SMALL(NAME, V, G)                                                                                  \
    __global__ void NAME(const i64* indptr, const V* indices, const i64* cindptr, const V* cindices,           \
                         int directed, i64 row_base, const V* rows, int map_rows, const i64* bucket, i64 nb,    \
                         const V* label, V* out, u64* counters) {                                              \
        cd_small<V, G>(indptr, indices, cindptr, cindices, directed, row_base, rows, map_rows, bucket, nb,      \
                       label, out, counters);                                                                  \
    }
CD_SMALL(small8_i32, int, 8)
CD_SMALL(small32_i32, int, 32)
CD_SMALL(small8_i64, i64, 8)
CD_SMALL(small32_i64, i64, 32)

#define CD_TABLE(NAME, V, GW)                                                                                 \
    __global__ void NAME(const i64* indptr, const V* indices, const i64* cindptr, const V* cindices,           \
                         int directed, i64 row_base, const V* rows, int map_rows, const i64* bucket, i64 nb,    \
                         int slots, const V* label, V* out, u64* counters) {                                   \
        cd_table<V, GW>(indptr, indices, cindptr, cindices, directed, row_base, rows, map_rows, bucket, nb,     \
                        slots, label, out, counters);                                                          \
    }
CD_TABLE(table_warp_i32, int, 1)
CD_TABLE(table_block_i32, int, CD_WARPS)
CD_TABLE(table_warp_i64, i64, 1)
CD_TABLE(table_block_i64, i64, CD_WARPS)

#define CD_HUB(S, V)                                                                                          \
    __global__ void hub_insert_##S(const i64* indptr, const V* indices, const i64* cindptr, const V* cindices, \
                                   int directed, i64 row_base, const V* rows, int map_rows, const i64* bucket,  \
                                   const i64* seg_row, const i64* seg_lo, i64 seg, const i64* toff, V* gkeys,   \
                                   unsigned* gcnt, const V* label) {                                            \
        cd_hub_insert<V>(indptr, indices, cindptr, cindices, directed, row_base, rows, map_rows, bucket,        \
                         seg_row, seg_lo, seg, toff, gkeys, gcnt, label);                                       \
    }                                                                                                           \
    __global__ void hub_best_##S(const i64* tseg_row, const i64* tseg_lo, i64 tseg, const i64* toff,            \
                                 const V* gkeys, const unsigned* gcnt, i64* seg_c, V* seg_l) {                  \
        cd_hub_best<V>(tseg_row, tseg_lo, tseg, toff, gkeys, gcnt, seg_c, seg_l);                                \
    }                                                                                                           \
    __global__ void hub_finish_##S(const V* rows, int map_rows, i64 row_base, const i64* bucket, i64 nb,         \
                                   const i64* tfirst, const i64* seg_c, const V* seg_l, const V* label, V* out, \
                                   u64* counters) {                                                             \
        cd_hub_finish<V>(rows, map_rows, row_base, bucket, nb, tfirst, seg_c, seg_l, label, out, counters);     \
    }
CD_HUB(i32, int)
CD_HUB(i64, i64)
}
