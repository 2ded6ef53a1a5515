"""GPU (CuPy backend) kernels for weakly connected components: a concurrent union-find on the CSR.

The CUDA side of WCC's ``fused`` kernels (see :mod:`dgraph.algorithms.wcc`
for the algorithm and why its labels are the component minima).  Three
kernels, none of which materializes an edge list (the vectorized hooking
held every arc of a shard twice, which a 4.2G-arc shard of rmat28 could not
afford):

- :func:`hook_csr`: every arc of a shard's CSR, one thread an arc (a block
  of consecutive arcs finds its rows with two searches of ``indptr``), unites
  the trees of its endpoints in a parent array: roots found with path
  halving, the larger root hooked under the smaller with a compare-and-swap
  (a failed swap means another thread hooked that root first: find the
  roots again and retry).  An undirected edge, stored both ways, is united
  once.  Every write lowers an entry and keeps it inside
  its vertex's component, so ``parent[x] <= x`` always holds and a root is
  the minimum of its tree, whatever order the threads run in.
- :func:`unite_pairs`: the same union for given pairs ``(x, y)``: another
  shard's forest, whose trees join vertices its edges connect.
- :func:`flatten`: every vertex's root, into a second array, and the number
  of roots (trees).

Path-halving writes race with other threads' writes of the same entry; both
are ancestors of the vertex in one tree, so whichever lands keeps the
forest valid (the usual argument for lock-free union-find: Jayanti and
Tarjan; ECL-CC uses the same rule on GPUs).
"""

from __future__ import annotations

from ..cuda import BLOCK, COMMON, dtype_suffix, function

_SOURCE = COMMON + r"""
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
}
"""

#: blocks of the grid-stride kernels, a multiprocessor (enough to fill it; rounds cover the rest)
BLOCKS_PER_SM = 8


def _kernel(name, dtype):
    return function(_SOURCE, f"{name}_{dtype_suffix(dtype)}")


def _grid(count):
    from ..cuda import multiprocessors  # noqa: PLC0415

    return (max(1, min(-(-int(count) // BLOCK), multiprocessors() * BLOCKS_PER_SM)),)


def hook_csr(indptr, indices, row_base, rows, directed, parent):
    """Unite the endpoints of every arc of a CSR (local row ``r`` is vertex ``rows[r]``, or
    ``row_base + r`` when ``rows`` is empty) in ``parent``, in place; -> the arcs united (self
    loops and, undirected, the second copy of each edge are skipped)."""
    import cupy as cp  # noqa: PLC0415

    nrows = len(indptr) - 1
    if nrows <= 0 or len(indices) == 0:
        return 0
    counters = cp.zeros(2, dtype=cp.uint64)
    _kernel("hook_csr", indices.dtype)(
        _grid(len(indices)), (BLOCK,),
        (indptr, indices, cp.int64(nrows), cp.int64(row_base), rows, cp.int32(len(rows) > 0),
         cp.int32(bool(directed)), parent, counters))
    return int(counters[0].get())


def unite_pairs(parent, vals, ids=None):
    """Unite ``ids[i]`` (``i`` when None) with ``vals[i]`` in ``parent``, in place."""
    import cupy as cp  # noqa: PLC0415

    k = len(vals)
    if k == 0:
        return
    vals = vals.astype(parent.dtype, copy=False)
    ids = ids.astype(parent.dtype, copy=False) if ids is not None else cp.uint64(0)  # a null pointer
    _kernel("unite_pairs", parent.dtype)(_grid(k), (BLOCK,), (parent, ids, vals, cp.int64(k)))


def flatten(parent, out):
    """``out[x]`` = the root of ``x`` in ``parent``; -> the number of roots.  ``out`` may be ``parent``
    (each write is an ancestor, so threads that read it still reach the root)."""
    import cupy as cp  # noqa: PLC0415

    n = len(parent)
    if n == 0:
        return 0
    counters = cp.zeros(1, dtype=cp.uint64)
    _kernel("flatten", parent.dtype)(_grid(n), (BLOCK,), (parent, out, cp.int64(n), counters))
    return int(counters[0].get())


__all__ = ["hook_csr", "unite_pairs", "flatten"]
