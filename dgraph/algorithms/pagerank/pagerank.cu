
typedef long long i64;
#define BLOCK 256

// the sum of a over the block, in a fixed tree (warp shuffles, then warp 0 over the 8 warp totals),
// and the same for b; every thread calls it, thread 0 gets the totals
__device__ void block_sum2(double& a, double& b) {
    __shared__ double wa[BLOCK / 32], wb[BLOCK / 32];
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    for (int off = 16; off > 0; off >>= 1) {
        a = __dadd_rn(a, __shfl_down_sync(0xffffffffu, a, off));
        b = __dadd_rn(b, __shfl_down_sync(0xffffffffu, b, off));
    }
    if (lane == 0) { wa[warp] = a; wb[warp] = b; }
    __syncthreads();
    if (warp == 0) {
        a = lane < BLOCK / 32 ? wa[lane] : 0.0;
        b = lane < BLOCK / 32 ? wb[lane] : 0.0;
        for (int off = BLOCK / 64; off > 0; off >>= 1) {
            a = __dadd_rn(a, __shfl_down_sync(0xffffffffu, a, off));
            b = __dadd_rn(b, __shfl_down_sync(0xffffffffu, b, off));
        }
    }
}

// vertex r's terms of the two sums: its rank if dangling (inv_deg 0), and |rank - old|
__device__ void terms(double v, double o, double inv, double& mass, double& diff) {
    mass = inv == 0.0 ? v : 0.0;
    diff = fabs(__dadd_rn(v, -o));
}

// row r's total of its segment sums, added in order onto acc
__device__ double seg_total(const i64* segptr, const i64* segend, const double* partial, i64 r, double acc) {
    for (i64 s = segptr[r]; s < segend[r]; ++s) acc = __dadd_rn(acc, partial[s]);
    return acc;
}

// new = base + d * acc, base = ((1 - d) + d * mass) / n  (or * teleport[r]); the array path's
// operations in its order, rounded one by one; part[block], part[nblocks + block]: the block's sums
// (every thread of the block calls it, acc unread where r >= nrows)
__device__ void update_row(i64 r, double acc, const double* old, const double* inv_deg, const double* mass,
                           const double* teleport, int personalized, double d, double n,
                           double* rank, double* share, double* part, i64 nrows) {
    double m = 0.0, diff = 0.0;
    if (r < nrows) {
        double head = __dadd_rn(1.0 - d, __dmul_rn(d, mass[0]));
        double base = personalized ? __dmul_rn(head, teleport[r]) : __ddiv_rn(head, n);
        double v = __dadd_rn(base, __dmul_rn(d, acc));
        double inv = inv_deg[r];
        rank[r] = v;
        share[r] = __dmul_rn(v, inv);
        terms(v, old[r], inv, m, diff);
    }
    block_sum2(m, diff);
    if (threadIdx.x == 0) { part[blockIdx.x] = m; part[gridDim.x + blockIdx.x] = diff; }
}

// one iteration's new ranks from one row-sum plan's segment sums
extern "C" __global__ void rank_update(const i64* segptr, const i64* segend, const double* partial,
                                       const double* old, const double* inv_deg, const double* mass,
                                       const double* teleport, int personalized, double d, double n,
                                       double* rank, double* share, double* part, i64 nrows) {
    i64 r = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    double acc = r < nrows ? seg_total(segptr, segend, partial, r, 0.0) : 0.0;
    update_row(r, acc, old, inv_deg, mass, teleport, personalized, d, n, rank, share, part, nrows);
}

// the same from the two halves of a split shard's in-edges: the local sources' segments, then the
// others' (a fixed order: the same bits for the same partitioning on every executor)
extern "C" __global__ void rank_update_split(const i64* lsegptr, const i64* lsegend, const double* lpartial,
                                             const i64* rsegptr, const i64* rsegend, const double* rpartial,
                                             const double* old, const double* inv_deg, const double* mass,
                                             const double* teleport, int personalized, double d, double n,
                                             double* rank, double* share, double* part, i64 nrows) {
    i64 r = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    double acc = 0.0;
    if (r < nrows) acc = seg_total(rsegptr, rsegend, rpartial, r, seg_total(lsegptr, lsegend, lpartial, r, 0.0));
    update_row(r, acc, old, inv_deg, mass, teleport, personalized, d, n, rank, share, part, nrows);
}

// Splitting a shard's in-edges by where their source lives (a warp a row, order kept): with ``fill``
// 0, lcount[r] = row r's in-edges from an owned source; with ``fill`` 1, those sources' local rows go
// to lidx[lptr[r]..] and the others' global ids to ridx[indptr[r] - lptr[r]..].  A source s is owned
// when local_of[s] >= 0 (its local row) with ``mapped``, or, without, when lo <= s < lo + rows (row s - lo).
template <typename V>
__device__ void split_rows(const i64* indptr, const V* indices, i64 lo, i64 rows, const i64* local_of, int mapped,
                           i64* lcount, const i64* lptr, V* lidx, V* ridx, i64 nrows, int fill) {
    i64 w = ((i64)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (w >= nrows) return;  // the whole warp: one row a warp
    i64 start = indptr[w], end = indptr[w + 1], before = 0;  // owned sources before the chunk
    i64 lbase = fill ? lptr[w] : 0, rbase = fill ? start - lptr[w] : 0;
    for (i64 e0 = start; e0 < end; e0 += 32) {
        i64 e = e0 + lane, loc = -1;
        V s = 0;
        if (e < end) {
            s = indices[e];
            loc = mapped ? local_of[s] : ((i64)s >= lo && (i64)s < lo + rows ? (i64)s - lo : -1);
        }
        unsigned mine = __ballot_sync(0xffffffffu, loc >= 0);
        if (fill && e < end) {
            i64 k = before + __popc(mine & ((1u << lane) - 1u));  // owned sources before e
            if (loc >= 0) lidx[lbase + k] = (V)loc;
            else ridx[rbase + (e - start) - k] = s;
        }
        before += __popc(mine);
    }
    if (!fill && lane == 0) lcount[w] = before;
}

extern "C" {
__global__ void split_rows_i32(const i64* indptr, const int* indices, i64 lo, i64 rows, const i64* local_of,
                               int mapped, i64* lcount, const i64* lptr, int* lidx, int* ridx, i64 nrows, int fill) {
    split_rows<int>(indptr, indices, lo, rows, local_of, mapped, lcount, lptr, lidx, ridx, nrows, fill);
}
__global__ void split_rows_i64(const i64* indptr, const i64* indices, i64 lo, i64 rows, const i64* local_of,
                               int mapped, i64* lcount, const i64* lptr, i64* lidx, i64* ridx, i64 nrows, int fill) {
    split_rows<i64>(indptr, indices, lo, rows, local_of, mapped, lcount, lptr, lidx, ridx, nrows, fill);
}
}

// the block partials of the two sums over given ranks (old = rank: a change of 0)
extern "C" __global__ void sum_parts(const double* rank, const double* old, const double* inv_deg,
                                     double* part, i64 nrows) {
    i64 r = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    double m = 0.0, diff = 0.0;
    if (r < nrows) terms(rank[r], old[r], inv_deg[r], m, diff);
    block_sum2(m, diff);
    if (threadIdx.x == 0) { part[blockIdx.x] = m; part[gridDim.x + blockIdx.x] = diff; }
}

// one block: *mass_out = the sum of part[0:nb], *diff_out = the sum of part[nb:2nb]
extern "C" __global__ void sum_totals(const double* part, i64 nb, double* mass_out, double* diff_out) {
    double m = 0.0, diff = 0.0;
    for (i64 i = threadIdx.x; i < nb; i += blockDim.x) {
        m = __dadd_rn(m, part[i]);
        diff = __dadd_rn(diff, part[nb + i]);
    }
    block_sum2(m, diff);
    if (threadIdx.x == 0) { *mass_out = m; *diff_out = diff; }
}
