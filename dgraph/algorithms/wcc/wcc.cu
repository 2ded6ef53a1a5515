
#include "common.cuh"

template <typename V> __device__ __forceinline__ V vload(const V* p) { return *(const volatile V*)p; }

__device__ __forceinline__ int cas(int* a, int expected, int desired) { return atomicCAS(a, expected, desired); }
__device__ __forceinline__ i64 cas(i64* a, i64 expected, i64 desired) {
    return (i64)atomicCAS((unsigned long long*)a, (unsigned long long)expected, (unsigned long long)desired);
}

// x's root, halving the path on the way (each write: an ancestor, a smaller id)
template <typename V>
__device__ __forceinline__ V find_root(V* p, V x) {
    while (true) {
        V px = vload(p + x);
        if (px == x) return x;
        V gx = vload(p + px);
        if (gx == px) return px;
        p[x] = gx;
        x = gx;
    }
}

// join the trees of u and v: the larger root under the smaller
template <typename V>
__device__ __forceinline__ void unite(V* p, V u, V v) {
    V ru = find_root(p, u), rv = find_root(p, v);
    while (ru != rv) {
        V hi = ru > rv ? ru : rv, lo = ru > rv ? rv : ru;
        V seen = cas(p + hi, hi, lo);
        if (seen == hi) return;
        ru = find_root(p, seen);  // hi was hooked meanwhile: go on from where it points
        rv = find_root(p, lo);
    }
}

// the largest r in [lo, hi] with indptr[r] <= e: the row of arc e (empty rows skipped)
__device__ __forceinline__ i64 row_of(const i64* __restrict__ indptr, i64 lo, i64 hi, i64 e) {
    while (lo < hi) {
        i64 mid = (lo + hi + 1) >> 1;
        if (indptr[mid] <= e) lo = mid; else hi = mid - 1;
    }
    return lo;
}

// counters: [0] arcs united (live), [1] arcs scanned
template <typename V>
__device__ void hook_csr(const i64* __restrict__ indptr, const V* __restrict__ indices, i64 nrows, i64 row_base,
                         const V* __restrict__ rows, int map_rows, int directed, V* p, u64* counters) {
    __shared__ i64 range[2];
    const i64 m = indptr[nrows];
    i64 live = 0;
    for (i64 first = (i64)blockIdx.x * blockDim.x; first < m; first += (i64)gridDim.x * blockDim.x) {
        i64 last = min(first + (i64)blockDim.x, m) - 1;
        if (threadIdx.x == 0) range[0] = row_of(indptr, 0, nrows - 1, first);
        if (threadIdx.x == 32 % blockDim.x) range[1] = row_of(indptr, 0, nrows - 1, last);
        __syncthreads();
        i64 e = first + threadIdx.x;
        if (e < m) {
            i64 r = row_of(indptr, range[0], range[1], e);
            V u = map_rows ? rows[r] : (V)(r + row_base);
            V v = indices[e];
            // an undirected edge is stored both ways: one copy, picked by the ids' parity so that each
            // shard unites about half its arcs (``v < u`` alone left the high-id shards most of the work)
            if (directed ? (v != u) : (v != u && ((v < u) != (((u ^ v) & 1) != 0)))) {
                unite(p, u, v);
                live += 1;
            }
        }
        __syncthreads();  // the shared pair is free for the next round
    }
    block_add(live, counters + 0);
}

template <typename V>
__device__ void unite_pairs(V* p, const V* __restrict__ ids, const V* __restrict__ vals, i64 k) {
    for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < k; i += (i64)gridDim.x * blockDim.x) {
        V x = ids ? ids[i] : (V)i, y = vals[i];
        if (x != y) unite(p, x, y);
    }
}

// out[x] = x's root in p (read only: p is not changed), counters[0] += the roots
template <typename V>
__device__ void flatten(const V* p, V* out, i64 n, u64* counters) {
    i64 roots = 0;
    i64 stride = (i64)gridDim.x * blockDim.x;
    for (i64 x = (i64)blockIdx.x * blockDim.x + threadIdx.x; x < n; x += stride) {
        V r = (V)x, pr = p[r];
        while (pr != r) { r = pr; pr = p[r]; }
        out[x] = r;
        roots += (r == (V)x);
    }
    block_add(roots, counters + 0);
}

// (x, out[x]) for every x of a flattened forest ``out`` that is not its own root, appended at *cursor (in
// no particular order: the pairs are unions, and union does not depend on order)
template <typename V>
__device__ void changed_pairs(const V* __restrict__ out, i64 n, V* ids, V* vals, u64* cursor) {
    for (i64 first = (i64)blockIdx.x * blockDim.x; first < n; first += (i64)gridDim.x * blockDim.x) {
        i64 x = first + threadIdx.x;
        V r = x < n ? out[x] : (V)0;
        bool hit = x < n && r != (V)x;
        u64 pos = block_reserve(hit, cursor);  // every thread of the block, the same number of times
        if (hit) {
            ids[pos] = (V)x;
            vals[pos] = r;
        }
    }
}

extern "C" {
__global__ void hook_csr_i32(const i64* indptr, const int* indices, i64 nrows, i64 row_base, const int* rows,
                             int map_rows, int directed, int* p, u64* counters) {
    hook_csr<int>(indptr, indices, nrows, row_base, rows, map_rows, directed, p, counters);
}
__global__ void hook_csr_i64(const i64* indptr, const i64* indices, i64 nrows, i64 row_base, const i64* rows,
                             int map_rows, int directed, i64* p, u64* counters) {
    hook_csr<i64>(indptr, indices, nrows, row_base, rows, map_rows, directed, p, counters);
}
__global__ void unite_pairs_i32(int* p, const int* ids, const int* vals, i64 k) { unite_pairs<int>(p, ids, vals, k); }
__global__ void unite_pairs_i64(i64* p, const i64* ids, const i64* vals, i64 k) { unite_pairs<i64>(p, ids, vals, k); }
__global__ void flatten_i32(const int* p, int* out, i64 n, u64* counters) { flatten<int>(p, out, n, counters); }
__global__ void flatten_i64(const i64* p, i64* out, i64 n, u64* counters) { flatten<i64>(p, out, n, counters); }
__global__ void changed_pairs_i32(const int* out, i64 n, int* ids, int* vals, u64* cursor) {
    changed_pairs<int>(out, n, ids, vals, cursor);
}
__global__ void changed_pairs_i64(const i64* out, i64 n, i64* ids, i64* vals, u64* cursor) {
    changed_pairs<i64>(out, n, ids, vals, cursor);
}
}
