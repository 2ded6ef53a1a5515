"""GPU (CuPy backend) kernels: the CuPy twins of ``cpu_kernels``.

Same inputs, outputs and tie rule as the CPU kernels; the parallel versions
reach the smallest-id parent with ``atomicMin`` instead of an ordered scan.
Unvisited parents hold ``INT_MAX`` of their dtype (the caller maps it to -1
at the end).  Counters are aggregated per warp before the global atomic.
Compiled on first use; CuPy caches the binaries on disk.
"""

from __future__ import annotations

_SOURCE = r"""
typedef long long i64;
typedef unsigned long long u64;

// counters: [0] vertices claimed, [1] their out-degree sum, [2] output cursor,
// [3] edges scanned.  Summed per warp first, then one atomic per warp.
__device__ __forceinline__ void warp_count(bool hit, i64 deg, i64 scanned, u64* counters) {
    unsigned ballot = __ballot_sync(0xffffffffu, hit);
    i64 d = hit ? deg : 0;
    for (int off = 16; off > 0; off >>= 1) {
        d += __shfl_down_sync(0xffffffffu, d, off);
        scanned += __shfl_down_sync(0xffffffffu, scanned, off);
    }
    if ((threadIdx.x & 31) == 0) {
        if (ballot) {
            atomicAdd(counters + 0, (u64)__popc(ballot));
            atomicAdd(counters + 1, (u64)d);
        }
        if (scanned) atomicAdd(counters + 3, (u64)scanned);
    }
}

// Top-down step, load-balanced over edges: thread i handles the i-th edge
// leaving the frontier; a binary search in the inclusive scan of frontier
// degrees finds its source (Gunrock's LB advance).
template <typename V>
__device__ void push_lb(const i64* __restrict__ indptr, const V* __restrict__ indices,
                        const V* __restrict__ frontier, const i64* __restrict__ scanned,
                        int nf, i64 total, int* labels, V* parents, int level,
                        V* out, u64* counters) {
    i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    bool claimed = false;
    i64 deg = 0;
    V v = 0;
    if (i < total) {
        int lo = 0, hi = nf - 1;
        while (lo < hi) {
            int mid = (lo + hi) >> 1;
            if (scanned[mid] > i) hi = mid; else lo = mid + 1;
        }
        V u = frontier[lo];
        i64 before = lo ? scanned[lo - 1] : 0;
        v = indices[indptr[u] + (i - before)];
        int lab = labels[v];
        if (lab == -1 || lab == level) {
            if (lab == -1 && atomicCAS(labels + v, -1, level) == -1) {
                claimed = true;
                deg = indptr[v + 1] - indptr[v];
            }
            atomicMin(parents + v, u);
        }
    }
    if (claimed) {
        u64 pos = atomicAdd(counters + 2, 1ULL);
        out[pos] = v;
    }
    warp_count(claimed, deg, 0, counters);
}

// Bottom-up step: one thread per vertex scans its in-edges and stops at the
// first one whose source is in the frontier (sorted rows: smallest parent).
template <typename V>
__device__ void pull_thread(const i64* __restrict__ cindptr, const V* __restrict__ cindices,
                            const unsigned char* __restrict__ fmask, const i64* __restrict__ indptr,
                            int* labels, V* parents, int level, unsigned char* newmask,
                            i64 n, u64* counters) {
    i64 v = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    bool found = false;
    i64 deg = 0, scanned = 0;
    if (v < n && labels[v] == -1) {
        i64 end = cindptr[v + 1];
        for (i64 e = cindptr[v]; e < end; ++e) {
            ++scanned;
            V u = cindices[e];
            if (fmask[u]) {
                labels[v] = level;
                parents[v] = u;
                newmask[v] = 1;
                found = true;
                deg = indptr[v + 1] - indptr[v];
                break;
            }
        }
    }
    warp_count(found, deg, scanned, counters);
}

extern "C" {
__global__ void push_lb_i32(const i64* indptr, const int* indices, const int* frontier,
                            const i64* scanned, int nf, i64 total, int* labels, int* parents,
                            int level, int* out, u64* counters) {
    push_lb<int>(indptr, indices, frontier, scanned, nf, total, labels, parents, level, out, counters);
}
__global__ void push_lb_i64(const i64* indptr, const i64* indices, const i64* frontier,
                            const i64* scanned, int nf, i64 total, int* labels, i64* parents,
                            int level, i64* out, u64* counters) {
    push_lb<i64>(indptr, indices, frontier, scanned, nf, total, labels, parents, level, out, counters);
}
__global__ void pull_i32(const i64* cindptr, const int* cindices, const unsigned char* fmask,
                         const i64* indptr, int* labels, int* parents, int level,
                         unsigned char* newmask, i64 n, u64* counters) {
    pull_thread<int>(cindptr, cindices, fmask, indptr, labels, parents, level, newmask, n, counters);
}
__global__ void pull_i64(const i64* cindptr, const i64* cindices, const unsigned char* fmask,
                         const i64* indptr, int* labels, i64* parents, int level,
                         unsigned char* newmask, i64 n, u64* counters) {
    pull_thread<i64>(cindptr, cindices, fmask, indptr, labels, parents, level, newmask, n, counters);
}
}
"""

_module = None
BLOCK = 256


def module():
    global _module
    if _module is None:
        import cupy  # noqa: PLC0415

        _module = cupy.RawModule(code=_SOURCE, options=("-std=c++17",))
    return _module


def _suffix(dtype):
    return "i32" if dtype.itemsize == 4 else "i64"


def visit_push(indptr, indices, frontier, total, labels, parents, level, out, counters):
    """Top-down step over ``total`` frontier edges; ``counters``: see ``warp_count``."""
    import cupy as cp  # noqa: PLC0415

    nf = len(frontier)
    if nf == 0 or total == 0:
        return
    deg = indptr[frontier + 1] - indptr[frontier]
    scanned = cp.cumsum(deg)
    kern = module().get_function("push_lb_" + _suffix(indices.dtype))
    grid = (int(total) + BLOCK - 1) // BLOCK
    kern((grid,), (BLOCK,), (indptr, indices, frontier, scanned, cp.int32(nf), cp.int64(total),
                             labels, parents, cp.int32(level), out, counters))


def visit_pull(cindptr, cindices, fmask, indptr, labels, parents, level, newmask, counters):
    """Bottom-up step over all vertices; ``counters``: see ``warp_count``."""
    import cupy as cp  # noqa: PLC0415

    n = len(labels)
    if n == 0:
        return
    kern = module().get_function("pull_" + _suffix(cindices.dtype))
    grid = (n + BLOCK - 1) // BLOCK
    kern((grid,), (BLOCK,), (cindptr, cindices, fmask, indptr, labels, parents, cp.int32(level),
                             newmask, cp.int64(n), counters))
