#include "common.cuh"

// One step of every walk on one whole shard (rows are vertex ids): the numba kernel of cpu.py, a
// thread a walk.  The same draws (the splitmix64 finalizer of the counter-based keys), the same
// tests in the same order and the same float64 operations (compiled with --fmad=false), so the
// same paths bit for bit.  counts[2 s], counts[2 s + 1] += the walks that moved, the arcs drawn.
#define GOLDEN 0x9E3779B97F4A7C15ull

__device__ __forceinline__ u64 mix(u64 x) {
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

// D_wsj from the step key; unit(D) = (D >> 11) * 2**-53
__device__ __forceinline__ u64 draw(u64 skey, u64 j) { return mix(skey + j * GOLDEN); }
__device__ __forceinline__ double unit(u64 bits) { return __dmul_rn((double)(bits >> 11), 1.1102230246251565e-16); }  // 2**-53

// whether x is among the sorted targets of row r
template <typename V>
__device__ bool in_row(const i64* indptr, const V* indices, i64 r, i64 x) {
    i64 lo = indptr[r], end = indptr[r + 1], hi = end;
    while (lo < hi) {
        i64 mid = (lo + hi) >> 1;
        if ((i64)indices[mid] < x) lo = mid + 1; else hi = mid;
    }
    return lo < end && (i64)indices[lo] == x;
}

template <typename V>
__device__ void walk_step(const i64* indptr, const V* indices, const double* weights, const double* wmax,
                          int weighted, int biased, double a_ret, double a_out, double a_max, i64* paths,
                          const u64* wkeys, i64 walks, i64 width, i64 s, u64* counts) {
    i64 w = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    i64 moved = 0, drawn = 0;
    i64 v = w < walks ? paths[w * width + s] : -1;
    if (v >= 0) {
        i64 start = indptr[v], deg = indptr[v + 1] - start;
        if (deg != 0 && !(weighted && !(wmax[v] > 0.0))) {
            i64 t = s > 0 ? paths[w * width + s - 1] : -1;
            u64 skey = mix(wkeys[w] + (u64)s * GOLDEN);
            u64 a = 0;
            i64 x;
            while (true) {
                drawn += 1;
                i64 e = start + (i64)(draw(skey, 3 * a) % (u64)deg);
                x = (i64)indices[e];
                if (deg == 1) break;
                if (weighted && !(__dmul_rn(unit(draw(skey, 3 * a + 1)), wmax[v]) < weights[e])) {
                    a += 1;
                    continue;
                }
                if (biased && s > 0) {
                    double alpha = x == t ? a_ret : (in_row(indptr, indices, t, x) ? 1.0 : a_out);
                    if (!(__dmul_rn(unit(draw(skey, 3 * a + 2)), a_max) < alpha)) {
                        a += 1;
                        continue;
                    }
                }
                break;
            }
            paths[w * width + s + 1] = x;
            moved = 1;
        }
    }
    block_add(moved, counts + 2 * s);
    block_add(drawn, counts + 2 * s + 1);
}

extern "C" {
__global__ void walk_step_i32(const i64* indptr, const int* indices, const double* weights, const double* wmax,
                              int weighted, int biased, double a_ret, double a_out, double a_max, i64* paths,
                              const u64* wkeys, i64 walks, i64 width, i64 s, u64* counts) {
    walk_step<int>(indptr, indices, weights, wmax, weighted, biased, a_ret, a_out, a_max, paths, wkeys, walks,
                   width, s, counts);
}
__global__ void walk_step_i64(const i64* indptr, const i64* indices, const double* weights, const double* wmax,
                              int weighted, int biased, double a_ret, double a_out, double a_max, i64* paths,
                              const u64* wkeys, i64 walks, i64 width, i64 s, u64* counts) {
    walk_step<i64>(indptr, indices, weights, wmax, weighted, biased, a_ret, a_out, a_max, paths, wkeys, walks,
                   width, s, counts);
}
}
