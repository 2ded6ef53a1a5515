
#include "common.cuh"

#define HOPS_UNSET 0x7fffffffffffffffLL

// One candidate distance (its bits) for v, offered as a relaxation or a merge offers it: atomicMin on
// v's distance bits; tie: the candidate is at most the old distance (its hop count competes in
// relax_hops); hit: it is smaller and v was not queued yet (v's hop count is reset, v queued once).
__device__ __forceinline__ void offer(i64 v, u64 bits, u64* dist_bits, i64* hops, unsigned* seen, bool& tie,
                                      bool& hit) {
    if (bits <= dist_bits[v]) {
        u64 old = atomicMin(dist_bits + v, bits);
        tie = bits <= old;
        if (bits < old) {
            hops[v] = HOPS_UNSET;
            unsigned bit = 1u << (v & 31);
            hit = !(atomicOr(seen + (v >> 5), bit) & bit);
        }
    }
}

// The block's ties to the tie list and its hits to the changed-vertex queue (block_tally reserves
// both slots; ``skipped``: the edges this thread left, counted in counters[1]).
template <typename V>
__device__ __forceinline__ void append(i64 skipped, bool tie, bool hit, V v, i64 h, u64 bits, V* out, V* tv,
                                       i64* th, u64* tb, u64* counters) {
    u64 j, slot;
    block_tally(skipped, tie, hit, counters + 1, counters + 3, counters + 0, j, slot);
    if (tie) {
        tv[j] = v;
        th[j] = h;
        tb[j] = bits;
    }
    if (hit) out[slot] = v;
}

// counters (u64[8]): [0] changed-vertex queue cursor, [1] frontier edges skipped, [2] near vertices
// of every shard (a partition's split), [3] tie-list cursor, [4] near (queued), [5] near degree sum,
// [6] far, [7] unused.
// CG: called from the cooperative kernel (gpu_sssp_steps), where what earlier phases of the same
// launch wrote is read through L2.
template <bool CG, typename V>
__device__ void relax_dist(const i64* __restrict__ indptr, const V* __restrict__ indices,
                           const double* __restrict__ w, int weighted, const V* frontier_rows,
                           const V* frontier_ids, const i64* scanned, int nf, i64 total, const double* fd,
                           const i64* fh, u64* dist_bits, i64* hops, unsigned* seen, V* out,
                           V* tv, i64* th, u64* tb, u64* counters, i64 first, int skip,
                           const int* starts) {
    // edge i = first + threadIdx.x of the frontier's edges; first is block-uniform
    i64 i = first + threadIdx.x;
    bool hit = false, tie = false;
    V v = 0;
    i64 h = 0;
    u64 bits = 0;
    int k = block_slot<CG>(scanned, nf, total, starts, first, i);
    bool go = i < total;
    V u = 0;
    double du = 0.0;
    if (go) {
        u = ld<CG>(frontier_rows + k);
        du = ld<CG>(fd + k);
        // skip: u's distance already dropped in this superstep, so u is in the next frontier and
        // relaxes its new distance then; this candidate cannot beat that one's distance (addition is
        // monotone).  A stale read only relaxes.  frontier_ids: the rows' vertex ids on a partition
        // (null where rows are vertex ids: one whole shard)
        if (skip) {
            V gu = frontier_ids ? ld<CG>(frontier_ids + k) : u;
            go = !(ld<CG>((const u64*)dist_bits + gu) < (u64)__double_as_longlong(du));
        }
    }
    // a block that relaxes nothing (a stale hub's edges) leaves before the block-wide reservations
    if (skip && __syncthreads_and(!go)) {  // skip is the launch's: the barrier only where it can exit
        if (threadIdx.x == 0 && first < total) atomicAdd(counters + 1, (u64)min((i64)blockDim.x, total - first));
        return;
    }
    if (go) {
        i64 before = k ? ld<CG>(scanned + k - 1) : 0;
        i64 e = indptr[u] + (i - before);
        v = indices[e];
        bits = (u64)__double_as_longlong(du + (weighted ? w[e] : 1.0));
        h = ld<CG>(fh + k) + 1;
        // a stale (larger) value only costs an atomic; an overflowing sum (inf) is no path
        if (bits < 0x7ff0000000000000ull) offer(v, bits, dist_bits, hops, seen, tie, hit);
    }
    append<V>(i < total && !go, tie, hit, v, h, bits, out, tv, th, tb, counters);
}

// Over the tie list (its length on the device; a block-strided loop, so
// every lane of a warp runs the same iterations).
template <bool CG, typename V>
__device__ void relax_hops(const V* tv, const i64* th, const u64* tb,
                           const u64* dist_bits, i64* hops, unsigned* seen, V* out, u64* counters) {
    i64 count = (i64)ld<CG>(counters + 3);
    i64 stride = (i64)gridDim.x * blockDim.x;
    for (i64 base = (i64)blockIdx.x * blockDim.x; base < count; base += stride) {
        i64 j = base + threadIdx.x;
        bool hit = false;
        V v = 0;
        if (j < count) {
            v = ld<CG>(tv + j);
            i64 h = ld<CG>(th + j);
            if (ld<CG>(tb + j) == ld<CG>(dist_bits + v) && h < ld<CG>(hops + v) && h < atomicMin((long long*)hops + v, (long long)h)) {
                unsigned bit = 1u << (v & 31);
                hit = !(atomicOr(seen + (v >> 5), bit) & bit);
            }
        }
        u64 k = block_reserve(hit, counters + 0);  // the loop's bounds are block-uniform
        if (hit) out[k] = v;
    }
}

template <typename V>
__device__ void tight_parents(const i64* __restrict__ indptr, const V* __restrict__ indices,
                              const double* __restrict__ w, int weighted, i64 nrows, i64 nnz,
                              i64 row_base, const V* __restrict__ rows, int nrows_map,
                              const double* __restrict__ dist, const i64* __restrict__ hops,
                              i64 source, V* par, const int* __restrict__ starts) {
    i64 first = (i64)blockIdx.x * blockDim.x;
    i64 e = first + threadIdx.x;
    // the row of edge e: the first r with indptr[r + 1] > e, searched between the rows of the
    // block's first and last edges (a search over every row per edge took 0.87 ms on rmat20)
    int lo = block_slot<false>(indptr + 1, (int)nrows, nnz, starts, first, e);
    if (e >= nnz) return;  // after the search
    V v = indices[e];
    double dv = dist[v];
    if (!(dv < __longlong_as_double(0x7ff0000000000000LL)) || (i64)v == source) return;
    V u = nrows_map ? rows[lo] : (V)(lo + row_base);
    if (__dadd_rn(dist[u], weighted ? w[e] : 1.0) == dv && hops[u] + 1 == hops[v]) atomicMin(par + v, u);
}

// Inclusive scan of x over the block (thread order); *sum gets the block's total.
__device__ __forceinline__ i64 block_scan(i64 x, i64* sum) {
    __shared__ i64 warp_total[32];
    __shared__ i64 all;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int off = 1; off < 32; off <<= 1) {
        i64 y = __shfl_up_sync(0xffffffffu, x, off);
        if (lane >= off) x += y;
    }
    if (lane == 31) warp_total[warp] = x;
    __syncthreads();
    if (threadIdx.x == 0) all = (i64)warp_offsets(warp_total);
    __syncthreads();
    x += warp_total[warp];
    *sum = all;
    __syncthreads();
    return x;
}

// An in-place inclusive scan of a[0..n) in gridDim.x tiles, one a block, in two steps with every
// block's sums in between (a grid barrier, or the next launch): tile_sums_of writes each tile's sum,
// tile_scan scans each tile from the sum of the tiles before it and returns the total.
__device__ __forceinline__ void tile_bounds(i64 n, i64& lo, i64& hi) {
    const i64 chunk = (n + gridDim.x - 1) / gridDim.x;
    lo = min((i64)blockIdx.x * chunk, n);
    hi = min(lo + chunk, n);
}
template <bool CG>
__device__ void tile_sums_of(const i64* a, i64 n, i64* tile_sums) {
    i64 lo, hi, s = 0;
    tile_bounds(n, lo, hi);
    for (i64 j = lo + threadIdx.x; j < hi; j += blockDim.x) s += ld<CG>(a + j);
    s = block_sum(s);
    if (threadIdx.x == 0) tile_sums[blockIdx.x] = s;
}
template <bool CG>
__device__ i64 tile_scan(i64* a, i64 n, const i64* tile_sums) {
    i64 lo, hi, before = 0, total = 0;
    tile_bounds(n, lo, hi);
    for (i64 b = threadIdx.x; b < (i64)gridDim.x; b += blockDim.x) {
        const i64 t = ld<CG>(tile_sums + b);
        total += t;
        if (b < (i64)blockIdx.x) before += t;
    }
    before = block_sum(before);
    total = block_sum(total);
    for (i64 base = lo; base < hi; base += blockDim.x) {  // block-uniform bounds
        const i64 j = base + threadIdx.x;
        i64 sum;
        const i64 x = block_scan(j < hi ? ld<CG>(a + j) : 0, &sum);
        if (j < hi) a[j] = before + x;
        before += sum;
    }
    return total;
}

// The receive of a shard: each changed vertex goes to the near queue (dist < bound; with its
// (dist, hops) snapshot and degree for the next relaxation) or to the far list; pending marks the far
// ones.  The changed vertices' dedupe bits (``seen``) are cleared here, for the next superstep.
// A partition (``near_ids`` not null) queues only the near vertices it owns, as local rows (``local_of``
// with ``mapped``, else v - lo for lo <= v < lo + rows), their vertex ids in near_ids, and counts every
// near vertex in counters[2]; one whole shard passes lo 0 and rows n (rows are vertex ids).  A routed
// partition (``routed``: its owners hold the other vertices' state) leaves the vertices it does not own
// out of near, far and pending, and counts in counters[2] the changed vertices it owns.
template <bool CG, typename V>
__device__ void split(const V* changed, const double* dist,
                      const i64* hops, double bound, unsigned char* pending,
                      const i64* __restrict__ indptr, V* near, double* fd, i64* fh, i64* ndeg, V* far,
                      u64* counters, unsigned* seen, i64 lo, i64 rows, const i64* local_of, int mapped,
                      V* near_ids, int routed) {
    i64 count = (i64)ld<CG>(counters + 0);
    i64 stride = (i64)gridDim.x * blockDim.x;
    for (i64 base = (i64)blockIdx.x * blockDim.x; base < count; base += stride) {
        i64 i = base + threadIdx.x;
        V v = 0;
        bool is_near = false, is_far = false, queued = false, mine = false;
        double d = 0.0;
        i64 deg = 0, r = 0;
        if (i < count) {
            v = ld<CG>(changed + i);
            seen[v >> 5] = 0;  // every bit of the word is a changed vertex's
            r = mapped ? local_of[v] : (i64)v - lo;
            mine = r >= 0 && r < rows;
            if (mine || !routed) {
                d = ld<CG>(dist + v);
                is_near = d < bound;
                is_far = !is_near;
                pending[v] = is_far;
                queued = is_near && mine;
                if (queued) deg = indptr[r + 1] - indptr[r];
            }
        }
        u64 k = block_reserve(queued, counters + 4);  // the loop's bounds are block-uniform
        u64 kf = block_reserve(is_far, counters + 6);
        block_add(deg, counters + 5);
        // a partition: the near vertices of every shard, or (routed) the changed vertices it owns
        if (near_ids) block_add(routed ? (mine ? 1 : 0) : (is_near ? 1 : 0), counters + 2);
        if (queued) {
            near[k] = (V)r;
            if (near_ids) near_ids[k] = v;
            fd[k] = d;
            fh[k] = ld<CG>(hops + v);
            ndeg[k] = deg;
        }
        if (is_far) far[kf] = v;
    }
}

// The receive of a partitioned superstep: another shard's improved (vertex, distance, hops), k of
// them, merged into this shard's state as relax_dist merges candidates (distance by atomicMin on
// the bits, hop count reset where it drops, ties to the tie list for relax_hops, every vertex that
// changed appended once to ``out``).  Where a float scatter_min converted the whole distance array
// to integer keys and back, and the merge sorted every changed vertex, each superstep paid 3.1-3.4
// ms at rmat26 whatever its size.
template <typename V>
__device__ void merge_dist(const V* __restrict__ vin, const double* __restrict__ din, const i64* __restrict__ hin,
                           i64 k, u64* dist_bits, i64* hops, unsigned* seen, V* out, V* tv, i64* th, u64* tb,
                           u64* counters) {
    i64 stride = (i64)gridDim.x * blockDim.x;
    for (i64 base = (i64)blockIdx.x * blockDim.x; base < k; base += stride) {  // block-uniform bounds
        i64 i = base + threadIdx.x;
        bool hit = false, tie = false;
        V v = 0;
        i64 h = 0;
        u64 bits = 0;
        if (i < k) {
            v = vin[i];
            bits = (u64)__double_as_longlong(din[i]);
            h = hin[i];
            offer(v, bits, dist_bits, hops, seen, tie, hit);
        }
        append<V>(false, tie, hit, v, h, bits, out, tv, th, tb, counters);
    }
}

// A routed partition's changed vertices go to their owners (vertex ranges: shard q owns
// [bounds[q], bounds[q+1])), the ones it owns stay: route_count counts each owner's (``routes[2 + q]``,
// after copying counters[0..1], the queue's length and the skipped edges, into routes[0..1]: one read
// for the host), route_scatter writes each other owner's (vertex, distance, hops) into its slice of
// the send buffers (the owners in order, this shard's left out), in no order within a slice.
#define MAX_ROUTES 64

template <typename V>
__device__ __forceinline__ int owner_of(V v, const i64* bounds, int p) {
    int lo = 0, hi = p - 1;  // the last q with bounds[q] <= v
    while (lo < hi) {
        int mid = (lo + hi + 1) >> 1;
        if (bounds[mid] <= (i64)v) lo = mid; else hi = mid - 1;
    }
    return lo;
}

// the lanes of a warp with the same owner o (>= 0) add with one shared atomic; -> this lane's place
// among them after what was there (every lane of the warp calls it; o < 0: none)
__device__ __forceinline__ unsigned warp_count(int o, unsigned* counts) {
    const unsigned lane = threadIdx.x & 31u;
    const unsigned same = __match_any_sync(0xffffffffu, o);
    const unsigned leader = __ffs(same) - 1;
    unsigned at = 0;
    if (o >= 0 && lane == leader) at = atomicAdd(counts + o, (unsigned)__popc(same));
    at = __shfl_sync(0xffffffffu, at, leader);
    return at + __popc(same & ((1u << lane) - 1u));
}

template <typename V>
__device__ void route_count(const V* changed, const u64* counters, const i64* __restrict__ bounds, int p,
                            u64* routes) {
    __shared__ unsigned counts[MAX_ROUTES];
    __shared__ i64 sb[MAX_ROUTES + 1];
    for (int j = threadIdx.x; j < p; j += blockDim.x) counts[j] = 0;
    for (int j = threadIdx.x; j <= p; j += blockDim.x) sb[j] = bounds[j];
    if (blockIdx.x == 0 && threadIdx.x == 0) { routes[0] = counters[0]; routes[1] = counters[1]; }
    __syncthreads();
    const i64 count = (i64)counters[0];
    for (i64 first = (i64)blockIdx.x * blockDim.x; first < count; first += (i64)gridDim.x * blockDim.x) {
        const i64 i = first + threadIdx.x;  // the loop's bounds are block-uniform: whole warps call warp_count
        warp_count(i < count ? owner_of(changed[i], sb, p) : -1, counts);
    }
    __syncthreads();
    for (int j = threadIdx.x; j < p; j += blockDim.x)
        if (counts[j]) atomicAdd(routes + 2 + j, (u64)counts[j]);
}

template <typename V>
__device__ void route_scatter(const V* changed, i64 count, const i64* __restrict__ bounds, int p, int q,
                              const u64* routes, const u64* dist_bits, const i64* hops, u64* cursors, V* rv,
                              u64* rd, i64* rh) {
    __shared__ unsigned counts[MAX_ROUTES];
    __shared__ u64 base[MAX_ROUTES];
    __shared__ i64 sb[MAX_ROUTES + 1];
    __shared__ u64 offset[MAX_ROUTES];
    for (int j = threadIdx.x; j <= p; j += blockDim.x) sb[j] = bounds[j];
    if (threadIdx.x == 0) {  // each other owner's slice: the owners before it, this shard left out
        u64 at = 0;
        for (int j = 0; j < p; ++j) {
            offset[j] = at;
            if (j != q) at += routes[2 + j];
        }
    }
    for (i64 first = (i64)blockIdx.x * blockDim.x; first < count; first += (i64)gridDim.x * blockDim.x) {
        for (int j = threadIdx.x; j < p; j += blockDim.x) counts[j] = 0;
        __syncthreads();
        const i64 i = first + threadIdx.x;
        V v = i < count ? changed[i] : (V)0;
        int o = i < count ? owner_of(v, sb, p) : -1;
        if (o == q) o = -1;
        const unsigned k = warp_count(o, counts);
        __syncthreads();
        for (int j = threadIdx.x; j < p; j += blockDim.x)
            if (counts[j]) base[j] = offset[j] + atomicAdd(cursors + j, (u64)counts[j]);
        __syncthreads();
        if (o >= 0) {
            u64 at = base[o] + k;
            rv[at] = v;
            rd[at] = dist_bits[v];
            rh[at] = hops[v];
        }
        __syncthreads();  // counts and base are free for the next round
    }
}
