
#include "common.cuh"

// vertex v lives in byte v>>3 of the packed bitmap, bit 7-(v&7) (numpy packbits); read as
// little-endian 32-bit words, that is word v>>5, bit 8*((v>>3)&3) + 7-(v&7)
__device__ __forceinline__ int bit_of(i64 v) { return 8 * (int)((v >> 3) & 3) + 7 - (int)(v & 7); }

// the bits of a word that belong to vertices before position j (0..31) of the word
__device__ __forceinline__ unsigned before_mask(int j) {
    int jb = j >> 3, sh = 8 * jb + 7 - (j & 7);
    unsigned long long whole = (1ull << (8 * jb)) - 1ull;                                // earlier bytes
    unsigned long long within = ((1ull << (8 * jb + 8)) - 1ull) & ~((1ull << (sh + 1)) - 1ull);  // higher bits
    return (unsigned)(whole | within);
}

__device__ __forceinline__ i64 rank_of(const unsigned* __restrict__ words, const i64* __restrict__ incl, i64 v) {
    i64 w = v >> 5;
    unsigned x = words[w];
    return incl[w] - __popc(x) + __popc(x & before_mask((int)(v & 31)));
}

template <typename V>
__device__ void set_bits(const V* __restrict__ ids, i64 k, unsigned* words) {
    i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < k) {
        i64 v = ids[i];
        atomicOr(words + (v >> 5), 1u << bit_of(v));
    }
}

// The same for a visit whose count stayed on the device (counters[0], the visit kernels' output
// count): a fixed grid strides over the claimed ids, so the host never reads the count.
template <typename V>
__device__ void set_bits_counted(const V* __restrict__ ids, const u64* __restrict__ counters, unsigned* words) {
    i64 k = (i64)counters[0];
    i64 stride = (i64)gridDim.x * blockDim.x;
    for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < k; i += stride) {
        i64 v = ids[i];
        atomicOr(words + (v >> 5), 1u << bit_of(v));
    }
}

// One vertex v of the union at rank r: its frontier slot, its level, and the sums (dg: degrees;
// oc, od: the owned rows' count and degrees, lrows their local ids from the first owned rank on).
template <typename V>
__device__ __forceinline__ void emit_vertex(i64 v, i64 r, const unsigned* __restrict__ words,
                                            const i64* __restrict__ incl, int* labels, int level,
                                            const i64* __restrict__ degree, i64 row_base, i64 nrows, V* out,
                                            V* lrows, i64& own_rank, i64& dg, i64& oc, i64& od) {
    out[r] = (V)v;
    if (labels[v] < 0) labels[v] = level;
    i64 d = degree[v];
    dg += d;
    if (v >= row_base && v < row_base + nrows) {
        if (own_rank < 0) own_rank = rank_of(words, incl, row_base);
        lrows[r - own_rank] = (V)(v - row_base);
        oc += 1;
        od += d;
    }
}

// Each block's sums added once; the frontier's size is the last inclusive rank.
__device__ __forceinline__ void emit_counts(i64 dg, i64 oc, i64 od, const i64* __restrict__ incl, i64 nw,
                                            u64* counters) {
    block_add(dg, counters + 1);
    block_add(oc, counters + 2);
    block_add(od, counters + 3);
    if (blockIdx.x == 0 && threadIdx.x == 0) counters[0] = (u64)incl[nw - 1];
}

// counters: [0] frontier size, [1] its degree sum, [2] owned vertices in it, [3] their degree sum.
// A fixed grid strides over the vertices and each block adds its sums once (per-warp atomics on
// the same four words cost more than the rest of the kernel on a big frontier).
template <typename V>
__device__ void emit_union(const unsigned* __restrict__ words, const i64* __restrict__ incl, i64 nw, i64 n,
                           int* labels, int level, const i64* __restrict__ degree, i64 row_base, i64 nrows,
                           V* out, V* lrows, unsigned char* fmask, u64* counters) {
    i64 dg = 0, od = 0, oc = 0;
    i64 own_rank = -1;
    i64 stride = (i64)gridDim.x * blockDim.x;
    for (i64 v = (i64)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += stride) {
        bool hit = (words[v >> 5] >> bit_of(v)) & 1u;
        fmask[v] = hit;
        if (hit)
            emit_vertex<V>(v, rank_of(words, incl, v), words, incl, labels, level, degree, row_base, nrows, out,
                           lrows, own_rank, dg, oc, od);
    }
    emit_counts(dg, oc, od, incl, nw, counters);
}

// The same, one thread a 32-bit word, for a sparse union (every shard sent ids, so at most one
// vertex in 32 a shard): a pass over n/32 words, not n vertices (rmat26, a frontier of 33: 0.46 ms
// a call with a thread a vertex, on a grid of UNION_BLOCKS).  A dense union keeps the vertex kernel,
// whose neighbouring threads write neighbouring ranks (here 2x slower on a 28M-vertex frontier).
// The word's 32 byte-mask entries are written as eight 32-bit stores; its set bits, in vertex
// order, take consecutive ranks from incl[w] - popc(word).
// The byte mask of word w's 32 vertices (from vertex v0 = 32 w), as eight 32-bit stores.
__device__ __forceinline__ void mask_word(unsigned x, i64 v0, i64 n, unsigned char* fmask) {
    if (v0 + 32 <= n) {
        unsigned* m = (unsigned*)(fmask + v0);
        for (int k = 0; k < 8; ++k) {
            unsigned val = 0;
            if (x) {
                for (int i = 0; i < 4; ++i) {
                    int j = 4 * k + i;
                    val |= ((x >> bit_of(j)) & 1u) << (8 * i);
                }
            }
            m[k] = val;
        }
    } else {
        for (int j = 0; v0 + j < n; ++j) fmask[v0 + j] = (x >> bit_of(j)) & 1u;
    }
}

template <typename V>
__device__ void emit_union_words(const unsigned* __restrict__ words, const i64* __restrict__ incl, i64 nw, i64 n,
                                 int* labels, int level, const i64* __restrict__ degree, i64 row_base, i64 nrows,
                                 V* out, V* lrows, unsigned char* fmask, u64* counters) {
    i64 dg = 0, od = 0, oc = 0;
    i64 own_rank = -1;
    i64 stride = (i64)gridDim.x * blockDim.x;
    for (i64 w = (i64)blockIdx.x * blockDim.x + threadIdx.x; w < nw; w += stride) {
        unsigned x = words[w];
        i64 v0 = w << 5;
        mask_word(x, v0, n, fmask);
        if (!x) continue;
        i64 r = incl[w] - __popc(x);
        for (int j = 0; j < 32; ++j) {
            if (!((x >> bit_of(j)) & 1u)) continue;
            emit_vertex<V>(v0 + j, r++, words, incl, labels, level, degree, row_base, nrows, out, lrows, own_rank,
                           dg, oc, od);
        }
    }
    emit_counts(dg, oc, od, incl, nw, counters);
}

// The union of a superstep when the next one pulls: only the byte mask the pull reads and the level
// of what the other shards claimed.  No ranks, no frontier ids.  After a pull (a pull claims only owned
// vertices) the frontier's size and degree sum are the sums of the shards' tallies, read by the host
// before this launch; after a push (COUNT) they are counted here, into counters[0] and [1], and the
// host reads them after.  A thread takes 4 vertices (one byte's half of the bitmap): one 32-bit store
// of their mask bytes and, when one of them is in the union, one 16-byte read of their labels, written
// back only when a label changed.  labels and fmask start on 16 bytes.
template <bool COUNT>
__device__ void mark_union(const unsigned* __restrict__ words, i64 n, int* labels, int level,
                           unsigned char* fmask, const i64* __restrict__ degree, u64* counters) {
    i64 stride = (i64)gridDim.x * blockDim.x;
    i64 groups = n >> 2;
    i64 c = 0, d = 0;
    for (i64 g = (i64)blockIdx.x * blockDim.x + threadIdx.x; g < groups; g += stride) {
        i64 v0 = g << 2;
        unsigned x = words[v0 >> 5];
        unsigned val = 0;
        int hit[4];
        bool any = false;
        for (int i = 0; i < 4; ++i) {
            hit[i] = (x >> bit_of(v0 + i)) & 1u;
            val |= (unsigned)hit[i] << (8 * i);
            any |= hit[i];
        }
        ((unsigned*)fmask)[g] = val;
        if (!any) continue;
        int4 l = ((int4*)labels)[g];
        int* li = (int*)&l;
        bool changed = false;
        for (int i = 0; i < 4; ++i) {
            if (hit[i] && li[i] < 0) { li[i] = level; changed = true; }
            if (COUNT && hit[i]) { c += 1; d += degree[v0 + i]; }
        }
        if (changed) ((int4*)labels)[g] = l;
    }
    for (i64 v = (groups << 2) + (i64)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += stride) {
        bool h = (words[v >> 5] >> bit_of(v)) & 1u;
        fmask[v] = h;
        if (h && labels[v] < 0) labels[v] = level;
        if (COUNT && h) { c += 1; d += degree[v]; }
    }
    if (COUNT) {  // every thread of the block gets here
        block_add(c, counters + 0);
        block_add(d, counters + 1);
    }
}

// The (vertex, parent) pairs this shard set outside its own rows [lo, hi), for the owners after the
// last superstep: a push reaches any vertex, a pull claims only owned ones, so they are few.  Written
// in the warps' order (the owners reduce them by minimum), at most cap of them; their count in count[0].
template <typename V>
__device__ void found_elsewhere(const V* __restrict__ parents, i64 n, i64 lo, i64 hi, V unset, V* vs, V* us,
                                u64* count, i64 cap) {
    const unsigned full = 0xffffffffu;
    int lane = threadIdx.x & 31;
    i64 m = n - (hi - lo);
    i64 stride = (i64)gridDim.x * blockDim.x;
    for (i64 j = (i64)blockIdx.x * blockDim.x + (threadIdx.x - lane); j < m; j += stride) {  // warp-uniform
        i64 k = j + lane;
        i64 v = k < lo ? k : k + (hi - lo);
        V u = k < m ? parents[v] : unset;
        bool hit = u != unset;
        unsigned ballot = __ballot_sync(full, hit);
        if (!ballot) continue;
        u64 base = 0;
        if (lane == 0) base = atomicAdd(count, (u64)__popc(ballot));
        base = __shfl_sync(full, base, 0);
        u64 r = base + __popc(ballot & ((1u << lane) - 1u));
        if (hit && r < (u64)cap) {
            vs[r] = (V)v;
            us[r] = u;
        }
    }
}

// parents[vs[i]] = min(parents[vs[i]], us[i]) for the first min(count[0], cap) pairs: another shard's
// found_elsewhere, received in fixed-size buffers (the count never read on the host).  A count over
// the cap (a bound that did not hold: pairs were lost) is left in over[0] for the host to raise.
template <typename V>
__device__ void min_pairs(V* parents, const V* __restrict__ vs, const V* __restrict__ us, const u64* count,
                          i64 cap, u64* over) {
    if (blockIdx.x == 0 && threadIdx.x == 0 && count[0] > (u64)cap) over[0] = count[0];
    const i64 m = min((i64)count[0], cap);
    for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < m; i += (i64)gridDim.x * blockDim.x)
        atomicMin(parents + vs[i], us[i]);
}

extern "C" {
__global__ void mark_union_vertices(const unsigned* words, i64 n, int* labels, int level, unsigned char* fmask) {
    mark_union<false>(words, n, labels, level, fmask, nullptr, nullptr);
}
__global__ void mark_union_counted(const unsigned* words, i64 n, int* labels, int level, unsigned char* fmask,
                                   const i64* degree, u64* counters) {
    mark_union<true>(words, n, labels, level, fmask, degree, counters);
}
__global__ void emit_union_i32(const unsigned* words, const i64* incl, i64 nw, i64 n, int* labels, int level,
                               const i64* degree, i64 row_base, i64 nrows, int* out, int* lrows,
                               unsigned char* fmask, u64* counters) {
    emit_union<int>(words, incl, nw, n, labels, level, degree, row_base, nrows, out, lrows, fmask, counters);
}
__global__ void emit_union_i64(const unsigned* words, const i64* incl, i64 nw, i64 n, int* labels, int level,
                               const i64* degree, i64 row_base, i64 nrows, i64* out, i64* lrows,
                               unsigned char* fmask, u64* counters) {
    emit_union<i64>(words, incl, nw, n, labels, level, degree, row_base, nrows, out, lrows, fmask, counters);
}
__global__ void emit_union_words_i32(const unsigned* words, const i64* incl, i64 nw, i64 n, int* labels, int level,
                                     const i64* degree, i64 row_base, i64 nrows, int* out, int* lrows,
                                     unsigned char* fmask, u64* counters) {
    emit_union_words<int>(words, incl, nw, n, labels, level, degree, row_base, nrows, out, lrows, fmask, counters);
}
__global__ void emit_union_words_i64(const unsigned* words, const i64* incl, i64 nw, i64 n, int* labels, int level,
                                     const i64* degree, i64 row_base, i64 nrows, i64* out, i64* lrows,
                                     unsigned char* fmask, u64* counters) {
    emit_union_words<i64>(words, incl, nw, n, labels, level, degree, row_base, nrows, out, lrows, fmask, counters);
}
__global__ void set_bits_i32(const int* ids, i64 k, unsigned* words) { set_bits<int>(ids, k, words); }
__global__ void set_bits_i64(const i64* ids, i64 k, unsigned* words) { set_bits<i64>(ids, k, words); }
__global__ void set_bits_counted_i32(const int* ids, const u64* counters, unsigned* words) {
    set_bits_counted<int>(ids, counters, words);
}
__global__ void set_bits_counted_i64(const i64* ids, const u64* counters, unsigned* words) {
    set_bits_counted<i64>(ids, counters, words);
}
__global__ void word_popc(const unsigned* words, i64 nw, i64* counts) {
    i64 w = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (w < nw) counts[w] = __popc(words[w]);
}
__global__ void found_elsewhere_i32(const int* parents, i64 n, i64 lo, i64 hi, int unset, int* vs, int* us,
                                    u64* count, i64 cap) {
    found_elsewhere<int>(parents, n, lo, hi, unset, vs, us, count, cap);
}
__global__ void found_elsewhere_i64(const i64* parents, i64 n, i64 lo, i64 hi, i64 unset, i64* vs, i64* us,
                                    u64* count, i64 cap) {
    found_elsewhere<i64>(parents, n, lo, hi, unset, vs, us, count, cap);
}
__global__ void min_pairs_i32(int* parents, const int* vs, const int* us, const u64* count, i64 cap, u64* over) {
    min_pairs<int>(parents, vs, us, count, cap, over);
}
__global__ void min_pairs_i64(i64* parents, const i64* vs, const i64* us, const u64* count, i64 cap, u64* over) {
    min_pairs<i64>(parents, vs, us, count, cap, over);
}
}
