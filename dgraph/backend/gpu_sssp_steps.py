"""Many SSSP supersteps in one GPU launch: a persistent, cooperative kernel.

A deep graph (the 1000x1000 grid: about 2,200 near/far supersteps) spends
its time between supersteps when each is a few launches and a host read
(150-300 us each, for a frontier of a few thousand edges).  Here one
cooperative launch runs superstep after superstep with grid-wide barriers
between the phases, and returns to the host only when the frontier and the
far pile are both empty, or when a superstep would overflow a buffer (the
tie list, the far pile), or when a superstep has more than :func:`edge_limit` frontier edges
(the host-driven kernels, at full occupancy, are faster there), or after
``max_steps``.  On an H100 the 1000x1000 grid (2,214 supersteps) went from
331-609 ms to 52-54 ms (Gunrock: 344 ms); rmat20, a few fat supersteps,
stays on the host-driven kernels.

A superstep is the host-driven one of :mod:`dgraph.backend.gpu_sssp`, phase
for phase, with the same device functions: relax the frontier's edges
against its (distance, hops) snapshot, load-balanced over edges; settle hop
ties; split the changed vertices into near queue and far pile; when the near
queue is empty, the next bucket (the closest pending far vertex fixes the
new bound, the same float64 arithmetic as ``cpu_sssp.bound_above``; the pile is
deduplicated and split again).  Then the near queue's degrees are scanned
in place (two barriers: block sums, then each block scans its tile) for the
next relaxation.  So distances, hops, parents and (with the skip of stale
rows off, ``dgraph.config.sssp_skip_stale = False``) every per-superstep record
(frontier, far, bound, improved, edges) are the host path's; only the
order of vertices inside a queue differs.

The near queue and the pile are double-buffered (a phase reads one and
writes the other).  Every read of what an earlier phase wrote goes through
L2 (``ld<true>``).
"""

from __future__ import annotations

import numpy as np

from ..config import config
from ..cuda import BLOCK, compiled, cooperative_grid, dtype_suffix, function
from .gpu_sssp import DEVICE

_SOURCE = "#include <cooperative_groups.h>\n" + DEVICE + r"""
namespace cg = cooperative_groups;

// a[0..n) <- its inclusive scan, over the whole grid (tile_sums, then tile_scan); returns the total
// (in every thread).  Two barriers.
__device__ i64 grid_scan(cg::grid_group& grid, i64* a, i64 n, i64* tile_sums) {
    tile_sums_of<true>(a, n, tile_sums);
    grid.sync();
    const i64 total = tile_scan<true>(a, n, tile_sums);
    grid.sync();
    return total;
}

// cpu_sssp.bound_above, operation for operation (no contraction: the module is built with --fmad=false).
__device__ double bound_above(double closest, double bound, double delta) {
    if (isinf(delta)) return __longlong_as_double(0x7ff0000000000000LL);
    double k = floor((closest - bound) / delta) + 1.0;
    double b = bound + fmax(k, 1.0) * delta;
    while (b <= closest) b = fmax(b + delta, nextafter(closest, __longlong_as_double(0x7ff0000000000000LL)));
    return b;
}

// Per superstep k, rec[REC*k ..]: [0]-[7] the counters of gpu_sssp (changed, skipped, -, ties, near,
// near degree sum, far, -), [8] ~(closest pending far distance bits), [9] the new pile's length,
// then the record: [10] frontier, [11] far pile length, [12] bound bits, [13] improved,
// [14] edges relaxed, [15] end time (ns).  Zeroed by the host.
// ctl: [0] supersteps run, [1] why it stopped (0 limit, 1 empty, 2 ties, 3 pile, 4 edges),
// [2] start time, [3] frontier length, [4] its edges, [5] pile length, [6] bound bits,
// [7] which near queue holds the frontier (0: a, 1: b), [8] which pile buffer holds the pile.
#define REC 16
template <typename V>
__device__ void sssp_steps(const i64* __restrict__ indptr, const V* __restrict__ indices,
                           const double* __restrict__ w, int weighted, u64* dist_bits, i64* hops,
                           unsigned char* pending, unsigned* seen, V* out, V* tv, i64* th, u64* tb,
                           i64 tie_cap, V* qa, double* fda, i64* fha, i64* sca, V* qb, double* fdb,
                           i64* fhb, i64* scb, V* pa, V* pb, i64 pile_cap, i64 n, i64 nf0, i64 npile0,
                           double bound0, double delta, int max_steps, i64 edge_limit, i64* tile_sums,
                           u64* rec, i64* ctl, int skip) {
    cg::grid_group grid = cg::this_grid();
    const bool lead = blockIdx.x == 0 && threadIdx.x == 0;
    const i64 stride = (i64)gridDim.x * blockDim.x;
    const i64 t0 = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    const double* dist = (const double*)dist_bits;
    if (lead) ctl[2] = (i64)now_ns();
    V* q[2] = {qa, qb};
    double* fd[2] = {fda, fdb};
    i64* fh[2] = {fha, fhb};
    i64* sc[2] = {sca, scb};
    V* pile[2] = {pa, pb};
    int cur = 0, cp = 0;
    i64 nf = nf0, npile = npile0;
    double bound = bound0;
    // the entry frontier's snapshot and degree scan
    for (i64 i = t0; i < nf; i += stride) {
        const V v = qa[i];
        fda[i] = ld<true>(dist + v);
        fha[i] = ld<true>(hops + v);
        sca[i] = indptr[v + 1] - indptr[v];
    }
    grid.sync();
    i64 total = grid_scan(grid, sca, nf, tile_sums);
    int k = 0, reason = 0;
    while (true) {
        if (nf == 0) { reason = 1; break; }
        if (k >= max_steps) { reason = 0; break; }
        if (total > tie_cap) { reason = 2; break; }
        if (npile > pile_cap - n) { reason = 3; break; }
        if (total > edge_limit) { reason = 4; break; }
        u64* c = rec + REC * (i64)k;
        const int nx = cur ^ 1;
        for (i64 first = (i64)blockIdx.x * blockDim.x; first < total; first += stride)  // block-uniform
            relax_dist<true, V>(indptr, indices, w, weighted, q[cur], sc[cur], (int)nf, total, fd[cur], fh[cur],
                                dist_bits, hops, seen, out, tv, th, tb, c, first, skip, nullptr);
        grid.sync();
        relax_hops<true, V>(tv, th, tb, dist_bits, hops, seen, out, c);
        grid.sync();
        split<true, V>(out, dist, hops, bound, pending, indptr, q[nx], fd[nx], fh[nx], sc[nx],
                       pile[cp] + npile, c, seen);
        grid.sync();
        const i64 improved = (i64)__ldcg(c + 0);
        i64 nnear = (i64)__ldcg(c + 4);
        npile += (i64)__ldcg(c + 6);
        if (nnear == 0 && npile > 0) {  // the next bucket: sssp.SSSP._next_bucket
            for (i64 i = t0; i < npile; i += stride) {
                const V v = ld<true>(pile[cp] + i);
                if (ld<true>(pending + v)) atomicMax(c + 8, ~ld<true>(dist_bits + v));
            }
            grid.sync();
            const u64 closest = ~__ldcg(c + 8);
            if (closest == ~0ull) {  // nothing pending: the pile was all stale
                npile = 0;
            } else {
                bound = bound_above(__longlong_as_double((i64)closest), bound, delta);
                const int np = cp ^ 1;
                for (i64 base = (i64)blockIdx.x * blockDim.x; base < npile; base += stride) {  // block-uniform
                    const i64 i = base + threadIdx.x;
                    bool near = false, far = false;
                    V v = 0;
                    double d = 0.0;
                    if (i < npile) {
                        v = ld<true>(pile[cp] + i);
                        if (ld<true>(pending + v)) {
                            const unsigned bit = 1u << (v & 31);
                            if (!(atomicOr(seen + (v >> 5), bit) & bit)) {  // each pile vertex once
                                d = ld<true>(dist + v);
                                near = d < bound;
                                far = !near;
                            }
                        }
                    }
                    const u64 s = block_reserve(near, c + 4);
                    const u64 sf = block_reserve(far, c + 9);
                    if (near) {
                        pending[v] = 0;
                        q[nx][s] = v;
                        fd[nx][s] = d;
                        fh[nx][s] = ld<true>(hops + v);
                        sc[nx][s] = indptr[v + 1] - indptr[v];
                    }
                    if (far) pile[np][sf] = v;
                }
                grid.sync();
                for (i64 i = t0; i < npile; i += stride) seen[ld<true>(pile[cp] + i) >> 5] = 0;
                nnear = (i64)__ldcg(c + 4);
                npile = (i64)__ldcg(c + 9);
                cp = np;
            }
        }
        const i64 next_total = grid_scan(grid, sc[nx], nnear, tile_sums);  // its barriers order the clears
        if (lead) {
            c[10] = (u64)nnear;
            c[11] = (u64)npile;
            c[12] = (u64)__double_as_longlong(bound);
            c[13] = (u64)improved;
            c[14] = (u64)total;
            c[15] = now_ns();
        }
        cur = nx;
        nf = nnear;
        total = next_total;
        ++k;
    }
    if (lead) {
        ctl[0] = k;
        ctl[1] = reason;
        ctl[3] = nf;
        ctl[4] = total;
        ctl[5] = npile;
        ctl[6] = __double_as_longlong(bound);
        ctl[7] = cur;
        ctl[8] = cp;
    }
}

extern "C" {
#define SSSP_STEPS(S, V)                                                                                      \
__global__ void sssp_steps_##S(const i64* indptr, const V* indices, const double* w, int weighted,            \
                               u64* dist_bits, i64* hops, unsigned char* pending, unsigned* seen, V* out,      \
                               V* tv, i64* th, u64* tb, i64 tie_cap, V* qa, double* fda, i64* fha, i64* sca,  \
                               V* qb, double* fdb, i64* fhb, i64* scb, V* pa, V* pb, i64 pile_cap, i64 n,     \
                               i64 nf0, i64 npile0, double bound0, double delta, int max_steps,               \
                               i64 edge_limit, i64* tile_sums, u64* rec, i64* ctl, int skip) {                \
    sssp_steps<V>(indptr, indices, w, weighted, dist_bits, hops, pending, seen, out, tv, th, tb, tie_cap, qa,  \
                  fda, fha, sca, qb, fdb, fhb, scb, pa, pb, pile_cap, n, nf0, npile0, bound0, delta,          \
                  max_steps, edge_limit, tile_sums, rec, ctl, skip);                                          \
}
SSSP_STEPS(i32, int)
SSSP_STEPS(i64, i64)
}
"""

#: supersteps one launch may run (the size of the record buffer)
MAX_STEPS = 4096
REC = 16  # words per superstep record (the CUDA source's REC)
STOPS = ("limit", "empty", "ties", "pile", "edges")

def edge_limit():
    """``dgraph.config.sssp_steps_edge_limit`` (default 2^20): a superstep over more frontier edges
    goes back to the host-driven kernels.  They launch a thread per edge at full occupancy, where
    this kernel's resident grid (72 registers a thread, one block a multiprocessor) walks them in
    rounds (H100, rmat20 from the hub at delta 4: 23.2 ms with no limit).  Since the host-driven
    supersteps launch ahead of their reads, a host superstep of a few 100k edges costs ~0.13 ms of
    host time, more than this kernel takes: 2^20 was 0.945-0.979x of 2^16 on rmat20 in three
    calls, the grid (supersteps of ~13k edges) 1.002-1.008x (docs/BENCHMARKS.md, fifth session)."""
    return config.sssp_steps_edge_limit


def blocks_per_sm():
    """``dgraph.config.sssp_steps_blocks_per_sm`` (default 1): blocks a multiprocessor in the launch;
    one is fastest on the deep grid (H100, 1000x1000, delta 32: 51.6-53.3 ms with 1, 55.6-58.9 with
    2, 59.1-61.8 with 4); the occupancy query caps it (3 on H100)."""
    return config.sssp_steps_blocks_per_sm


#: the tie list's least capacity (a superstep of more frontier edges goes to the host once, which
#: grows the list), a cap on what the kernel uses of it, and the far pile's slack over n (tests
#: shrink the last two to make every stop happen)
TIE_CAP = 1 << 20
TIE_LIMIT = 1 << 62
PILE_SLACK = None  # None: n



def enabled():
    """``dgraph.config.sssp_steps`` (off: benchmarks and tests compare with the host-driven path)."""
    return config.sssp_steps


def module():
    return compiled(_SOURCE, "--fmad=false", cooperative=True)


def kernel(name):
    """A kernel of this module (:func:`dgraph.cuda.function`)."""
    return function(_SOURCE, name, "--fmad=false", cooperative=True)


class StepBuffers:
    """The second near queue, the two pile buffers, the tile sums and the record/control words of
    :func:`run`, allocated once per run (the first near queue is the host path's, ``gpu_sssp.Scratch``)."""

    def __init__(self, n, vdt):
        import cupy as cp  # noqa: PLC0415

        m = max(n, 1)
        self.near = cp.empty(m, dtype=vdt)
        self.fd = cp.empty(m, dtype=cp.float64)
        self.fh = cp.empty(m, dtype=cp.int64)
        self.scan = cp.empty(m, dtype=cp.int64)
        self.pile_cap = m + (m if PILE_SLACK is None else PILE_SLACK)
        self.piles = (cp.empty(self.pile_cap, dtype=vdt), cp.empty(self.pile_cap, dtype=vdt))
        self.tile_sums = None
        self.rec = cp.zeros(REC * MAX_STEPS, dtype=cp.uint64)
        self.ctl = cp.zeros(12, dtype=cp.int64)


def takes(edges):
    """True when a superstep over ``edges`` frontier edges is the cooperative launch's."""
    return enabled() and edges <= edge_limit()


def worth_a_launch(snap):
    """False when the next superstep's edge count is known (``snap``) to exceed :func:`edge_limit`: the
    launch would stop before it (a launch, a scan and a read for nothing)."""
    return snap is None or takes(snap[3])


def _same(a, b):
    return len(a) > 0 and a.data.ptr == b.data.ptr


def run(indptr, indices, w, dist, hops, pending, frontier, pile, bound, delta, max_steps, scratch, bufs,
        edge_limit=None, skip=False):
    """Run supersteps from ``frontier`` (ids) and the far ``pile`` on the device.

    Returns None when the pile does not fit the buffers (the host path goes on), else a dict:
    ``steps``, ``stop`` (why it stopped), ``records`` (one (report, seconds) pair per superstep,
    the reports of ``SSSP.receive``), ``frontier``/``snap`` (the next frontier and its (distances,
    hops, degree scan, edges, None: no block starts), views of the buffers), ``pile``, ``bound``.  ``skip``: stale frontier
    rows are not relaxed (:func:`gpu_sssp.skip_stale`).
    """
    import cupy as cp  # noqa: PLC0415

    n = len(dist)
    if len(pile) > bufs.pile_cap - n:
        return None
    limit = config.sssp_steps_edge_limit if edge_limit is None else edge_limit
    kern = kernel("sssp_steps_" + dtype_suffix(indices.dtype))
    grid = cooperative_grid(kern, blocks_per_sm())
    if bufs.tile_sums is None:
        bufs.tile_sums = cp.zeros(grid, dtype=cp.int64)
    a = (scratch.near, scratch.fd, scratch.fh, scratch.ndeg)
    b = (bufs.near, bufs.fd, bufs.fh, bufs.scan)
    if _same(frontier, b[0]):  # the last launch left the frontier in b
        a, b = b, a
    elif not _same(frontier, a[0]):
        a[0][: len(frontier)] = frontier
    pa, pb = bufs.piles
    if _same(pile, pb):
        pa, pb = pb, pa
    elif not _same(pile, pa) and len(pile):
        pa[: len(pile)] = pile
    max_steps = max(1, min(int(max_steps), MAX_STEPS))
    tv, th, tb = scratch.ties(max(1, min(len(indices), max(n, TIE_CAP))), exact=True)
    bufs.rec[: REC * max_steps].fill(0)
    if not scratch.seen_clean:  # a host-path relaxation without its split left dedupe bits set
        scratch.seen.fill(0)
    scratch.seen_clean = False  # the launch may stop with bits set
    weighted = w is not None
    args = (indptr, indices, w if weighted else dist, cp.int32(weighted), dist.view(cp.uint64), hops,
            pending.view(cp.uint8), scratch.seen, scratch.out, tv, th, tb, cp.int64(min(len(tv), TIE_LIMIT)), *a, *b, pa, pb,
            cp.int64(bufs.pile_cap), cp.int64(n), cp.int64(len(frontier)), cp.int64(len(pile)),
            cp.float64(bound), cp.float64(delta), cp.int32(max_steps),
            cp.int64(limit), bufs.tile_sums, bufs.rec, bufs.ctl,
            cp.int32(bool(skip)))
    kern((grid,), (BLOCK,), args)
    ctl = [int(x) for x in bufs.ctl[:9].get()]
    steps, why, start, nf, total, npile, bound_bits, cur, cp_ = ctl
    rec = bufs.rec[: REC * steps].get().reshape(steps, REC)
    ends = rec[:, 15].astype(np.int64)
    times = (ends - np.concatenate([[start], ends[:-1]])) * 1e-9
    bounds = rec[:, 12].view(np.float64)
    records = [({"frontier": int(r[10]), "far": int(r[11]), "bound": float(bd), "improved": int(r[13]),
                 "edges": int(r[14]), "skipped": int(r[1])}, float(t)) for r, bd, t in zip(rec, bounds, times)]
    q = (a, b)[cur]
    return {"steps": steps, "stop": STOPS[why], "records": records, "frontier": q[0][:nf],
            "snap": (q[1][:nf], q[2][:nf], q[3][:nf], total, None) if nf else None,
            "pile": (pa, pb)[cp_][:npile], "bound": float(np.int64(bound_bits).view(np.float64))}


__all__ = ["run", "StepBuffers", "enabled", "takes", "worth_a_launch", "edge_limit", "blocks_per_sm", "MAX_STEPS"]
