"""GPU (CuPy) kernels of SSSP: the CUDA twins of :mod:`dgraph.backend.cpu_sssp`.

One superstep relaxes the frontier's out-edges, load-balanced over edges
(the sorted search of the BFS push), in two launches over the same edges:

1. distance: ``atomicMin`` on the bits of ``dist[v]`` (distances are never
   negative, so their IEEE bits order as unsigned integers); a vertex whose
   distance drops has its hop count reset;
2. hops: where a candidate equals the (now final) ``dist[v]``, ``atomicMin``
   on ``hops[v]``.

Candidates are read from a snapshot of the frontier's (distance, hops)
taken before the launch, so a superstep relaxes exactly what the
vectorized step does and ends in the same state: the (distance, hops)
lexicographic minimum over the old state and every candidate.  Each vertex
that changed is appended once (a bitmap dedupes) to the output queue.

``tight_parents``: one thread per edge keeps ``u`` as a parent candidate of
``v`` when ``dist[u] + w == dist[v]`` and ``hops[u] + 1 == hops[v]``; the
smallest such ``u`` wins by ``atomicMin``: the rule of the CPU kernel.
"""

from __future__ import annotations

from .gpu_kernels import BLOCK, COMMON, _suffix

_SOURCE = COMMON + r"""
#define HOPS_UNSET 0x7fffffffffffffffLL

template <typename V>
__device__ void relax(const i64* __restrict__ indptr, const V* __restrict__ indices,
                      const double* __restrict__ w, int weighted, const V* __restrict__ frontier_rows,
                      const i64* __restrict__ scanned, int nf, i64 total, const double* __restrict__ fd,
                      const i64* __restrict__ fh, u64* dist_bits, i64* hops, int phase,
                      unsigned* seen, V* out, u64* counters) {
    i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    bool hit = false;
    V v = 0;
    if (i < total) {
        int k = frontier_slot(scanned, nf, i);
        i64 before = k ? scanned[k - 1] : 0;
        i64 e = indptr[frontier_rows[k]] + (i - before);
        v = indices[e];
        double cand = fd[k] + (weighted ? w[e] : 1.0);
        u64 bits = (u64)__double_as_longlong(cand);
        bool changed = false;
        if (phase == 0) {
            if (bits < dist_bits[v] && bits < atomicMin(dist_bits + v, bits)) {
                hops[v] = HOPS_UNSET;
                changed = true;
            }
        } else if (bits == dist_bits[v]) {
            i64 h = fh[k] + 1;
            if (h < hops[v] && h < atomicMin((long long*)hops + v, (long long)h)) changed = true;
        }
        if (changed) {
            unsigned bit = 1u << (v & 31);
            hit = !(atomicOr(seen + (v >> 5), bit) & bit);
        }
    }
    warp_emit<V>(hit, v, 0, 0, out, counters);
}

template <typename V>
__device__ void tight_parents(const i64* __restrict__ indptr, const V* __restrict__ indices,
                              const double* __restrict__ w, int weighted, i64 nrows, i64 nnz,
                              i64 row_base, const V* __restrict__ rows, int nrows_map,
                              const double* __restrict__ dist, const i64* __restrict__ hops,
                              i64 source, V* par) {
    i64 e = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= nnz) return;
    V v = indices[e];
    double dv = dist[v];
    if (!(dv < __longlong_as_double(0x7ff0000000000000LL)) || (i64)v == source) return;
    i64 lo = 0, hi = nrows - 1;          // the row of edge e: the last r with indptr[r] <= e
    while (lo < hi) {
        i64 mid = (lo + hi + 1) >> 1;
        if (indptr[mid] <= e) lo = mid; else hi = mid - 1;
    }
    V u = nrows_map ? rows[lo] : (V)(lo + row_base);
    if (__dadd_rn(dist[u], weighted ? w[e] : 1.0) == dv && hops[u] + 1 == hops[v]) atomicMin(par + v, u);
}

// The receive of a single shard: each changed vertex goes to the near queue
// (dist < bound; with its (dist, hops) snapshot and degree for the next
// relaxation) or to the far list; pending marks the far ones.  counters:
// [0] near, [1] the near queue's degree sum, [2] far.
template <typename V>
__device__ void split(const V* __restrict__ changed, i64 count, const double* __restrict__ dist,
                      const i64* __restrict__ hops, double bound, unsigned char* pending,
                      const i64* __restrict__ indptr, V* near, double* fd, i64* fh, i64* ndeg, V* far,
                      u64* counters) {
    i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    V v = 0;
    bool is_near = false, is_far = false;
    double d = 0.0;
    i64 deg = 0, degsum;
    if (i < count) {
        v = changed[i];
        d = dist[v];
        is_near = d < bound;
        is_far = !is_near;
        pending[v] = is_far;
        if (is_near) deg = indptr[v + 1] - indptr[v];
    }
    const unsigned full = 0xffffffffu;
    int lane = threadIdx.x & 31;
    unsigned bn = __ballot_sync(full, is_near), bf = __ballot_sync(full, is_far);
    degsum = deg;
    for (int off = 16; off > 0; off >>= 1) degsum += __shfl_down_sync(full, degsum, off);
    u64 base_n = 0, base_f = 0;
    if (lane == 0) {
        if (bn) {
            base_n = atomicAdd(counters + 0, (u64)__popc(bn));
            atomicAdd(counters + 1, (u64)degsum);
        }
        if (bf) base_f = atomicAdd(counters + 2, (u64)__popc(bf));
    }
    base_n = __shfl_sync(full, base_n, 0);
    base_f = __shfl_sync(full, base_f, 0);
    unsigned below = (1u << lane) - 1u;
    if (is_near) {
        u64 k = base_n + __popc(bn & below);
        near[k] = v;
        fd[k] = d;
        fh[k] = hops[v];
        ndeg[k] = deg;
    }
    if (is_far) far[base_f + __popc(bf & below)] = v;
}

extern "C" {
__global__ void split_i32(const int* changed, i64 count, const double* dist, const i64* hops, double bound,
                          unsigned char* pending, const i64* indptr, int* near, double* fd, i64* fh, i64* ndeg,
                          int* far, u64* counters) {
    split<int>(changed, count, dist, hops, bound, pending, indptr, near, fd, fh, ndeg, far, counters);
}
__global__ void split_i64(const i64* changed, i64 count, const double* dist, const i64* hops, double bound,
                          unsigned char* pending, const i64* indptr, i64* near, double* fd, i64* fh, i64* ndeg,
                          i64* far, u64* counters) {
    split<i64>(changed, count, dist, hops, bound, pending, indptr, near, fd, fh, ndeg, far, counters);
}
__global__ void relax_i32(const i64* indptr, const int* indices, const double* w, int weighted,
                          const int* frontier_rows, const i64* scanned, int nf, i64 total, const double* fd,
                          const i64* fh, u64* dist_bits, i64* hops, int phase, unsigned* seen, int* out,
                          u64* counters) {
    relax<int>(indptr, indices, w, weighted, frontier_rows, scanned, nf, total, fd, fh, dist_bits, hops, phase,
               seen, out, counters);
}
__global__ void relax_i64(const i64* indptr, const i64* indices, const double* w, int weighted,
                          const i64* frontier_rows, const i64* scanned, int nf, i64 total, const double* fd,
                          const i64* fh, u64* dist_bits, i64* hops, int phase, unsigned* seen, i64* out,
                          u64* counters) {
    relax<i64>(indptr, indices, w, weighted, frontier_rows, scanned, nf, total, fd, fh, dist_bits, hops, phase,
               seen, out, counters);
}
__global__ void tight_parents_i32(const i64* indptr, const int* indices, const double* w, int weighted,
                                  i64 nrows, i64 nnz, i64 row_base, const int* rows, int nrows_map,
                                  const double* dist, const i64* hops, i64 source, int* par) {
    tight_parents<int>(indptr, indices, w, weighted, nrows, nnz, row_base, rows, nrows_map, dist, hops,
                       source, par);
}
__global__ void tight_parents_i64(const i64* indptr, const i64* indices, const double* w, int weighted,
                                  i64 nrows, i64 nnz, i64 row_base, const i64* rows, int nrows_map,
                                  const double* dist, const i64* hops, i64 source, i64* par) {
    tight_parents<i64>(indptr, indices, w, weighted, nrows, nnz, row_base, rows, nrows_map, dist, hops,
                       source, par);
}
}
"""

_module = None


def module():
    global _module
    if _module is None:
        import cupy  # noqa: PLC0415

        _module = cupy.RawModule(code=_SOURCE, options=("-std=c++17",))
    return _module


class Scratch:
    """Per-run buffers: the relaxation's output queue and dedupe bitmap, the split's near queue
    (with its snapshot and degrees) and far list, and their counters."""

    def __init__(self, n, vdt):
        import cupy as cp  # noqa: PLC0415

        m = max(n, 1)
        self.out = cp.empty(m, dtype=vdt)
        self.counters = cp.zeros(4, dtype=cp.uint64)
        self.seen = cp.zeros((n + 31) // 32 + 1, dtype=cp.uint32)
        self.near = cp.empty(m, dtype=vdt)
        self.fd = cp.empty(m, dtype=cp.float64)
        self.fh = cp.empty(m, dtype=cp.int64)
        self.ndeg = cp.empty(m, dtype=cp.int64)
        self.far = cp.empty(m, dtype=vdt)


def frontier_scan(indptr, rows):
    """(inclusive scan of the degrees of ``rows``, their sum): what the load-balanced relaxation needs."""
    import cupy as cp  # noqa: PLC0415

    if len(rows) == 0:
        return None, 0
    scanned = cp.cumsum(indptr[rows + 1] - indptr[rows])
    return scanned, int(scanned[-1])


def relax(indptr, indices, w, rows, fd, fh, scanned, total, dist, hops, scratch):
    """Relax the ``total`` out-edges of local ``rows`` (snapshot distances ``fd``, hops ``fh``, degree
    scan ``scanned``) into ``dist``/``hops`` in place; returns the vertices that changed (a view of
    the scratch queue, valid until the next call)."""
    import cupy as cp  # noqa: PLC0415

    nf = len(rows)
    if nf == 0 or total == 0:
        return scratch.out[:0]
    scratch.counters.fill(0)
    scratch.seen.fill(0)
    kern = module().get_function("relax_" + _suffix(indices.dtype))
    weighted = w is not None
    wv = w if weighted else fd  # any float64 pointer; not read when unweighted
    grid = ((total + BLOCK - 1) // BLOCK,)
    for phase in (0, 1):
        kern(grid, (BLOCK,), (indptr, indices, wv, cp.int32(weighted), rows, scanned, cp.int32(nf),
                              cp.int64(total), fd, fh, dist, hops, cp.int32(phase), scratch.seen, scratch.out,
                              scratch.counters))
    count = int(scratch.counters[0])
    return scratch.out[:count]


def split(changed, dist, hops, bound, pending, indptr, scratch):
    """One shard's receive: (near queue, its distances, hops, degree scan and degree sum, far list).

    The vertex ids are the rows (one shard holding every vertex)."""
    import cupy as cp  # noqa: PLC0415

    count = len(changed)
    scratch.counters.fill(0)
    if count:
        kern = module().get_function("split_" + _suffix(changed.dtype))
        kern(((count + BLOCK - 1) // BLOCK,), (BLOCK,),
             (changed, cp.int64(count), dist, hops, cp.float64(bound), pending, indptr, scratch.near, scratch.fd,
              scratch.fh, scratch.ndeg, scratch.far, scratch.counters))
    nnear, total, nfar, _ = (int(x) for x in scratch.counters.get())
    scanned = cp.cumsum(scratch.ndeg[:nnear]) if nnear else None
    return (scratch.near[:nnear], scratch.fd[:nnear], scratch.fh[:nnear], scanned, total,
            scratch.far[:nfar])


def tight_parents(indptr, indices, w, row_base, rows, dist, hops, source, par):
    """par[v] = min(par[v], the smallest tight, one-hop-closer u over this CSR's edges u -> v)."""
    import cupy as cp  # noqa: PLC0415

    nrows, nnz = len(indptr) - 1, len(indices)
    if nrows <= 0 or nnz == 0:
        return par
    weighted = w is not None
    kern = module().get_function("tight_parents_" + _suffix(indices.dtype))
    kern(((nnz + BLOCK - 1) // BLOCK,), (BLOCK,),
         (indptr, indices, w if weighted else dist, cp.int32(weighted), cp.int64(nrows), cp.int64(nnz),
          cp.int64(row_base), rows, cp.int32(len(rows) > 0), dist, hops, cp.int64(source), par))
    return par
