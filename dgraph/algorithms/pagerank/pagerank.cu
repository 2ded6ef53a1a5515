
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

// new = base + d * sums, base = ((1 - d) + d * mass) / n  (or * teleport[r]); the array path's
// operations in its order, rounded one by one; part[block], part[nblocks + block]: the block's sums
extern "C" __global__ void rank_update(const i64* segptr, const i64* segend, const double* partial,
                                       const double* old, const double* inv_deg, const double* mass,
                                       const double* teleport, int personalized, double d, double n,
                                       double* rank, double* share, double* part, i64 nrows) {
    i64 r = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    double m = 0.0, diff = 0.0;
    if (r < nrows) {
        double acc = 0.0;
        for (i64 s = segptr[r]; s < segend[r]; ++s) acc = __dadd_rn(acc, partial[s]);
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
