"""Many BFS push levels in one GPU launch: a persistent, cooperative kernel.

A deep graph (a road network, a 1000x1000 grid: about 2,000 levels) spends
its time between levels, not in them: every level is a few kernel launches
and one host read of the frontier size, some 150 us, for a frontier of a
thousand vertices.  Here one cooperative launch runs level after level on
the device, with a grid-wide barrier between levels, and returns to the host
only when the frontier is empty, when Beamer's rule would switch to pull,
when the frontier's edges exceed ``mf_limit`` (the load-balanced host-driven
kernel is better there), or after ``max_levels``.

Per level it writes one record (vertices claimed, their degree sum, the
frontier edges scanned, a device timestamp) so the host can report every
level as its own superstep afterwards.  The tie rule is the one of
``gpu_kernels.push_lb``: ``atomicCAS`` claims the label, ``atomicMin`` keeps
the smallest parent among the level's frontier, so the depth and parent
arrays are the same bits as the level-by-level path.

Reads of state written in earlier levels (labels, the frontier queues) go
through L2 (``__ldcg``): L1 is not coherent across blocks, and a stale label
would let a later level lower the parent of a vertex found earlier.
"""

from __future__ import annotations

from ..config import config
from ..cuda import BLOCK, COMMON, cooperative_grid, function

_SOURCE = "#include <cooperative_groups.h>\n" + COMMON + r"""
namespace cg = cooperative_groups;

// rec[REC*k + 0..4]: level k's vertices claimed, their degree sum, frontier edges
// scanned, end timestamp (ns), largest degree claimed; zeroed by the host.  ctl:
// [0] levels run, [1] why it stopped (0 limit, 1 empty, 2 pull, 3 too many edges,
// 4 a vertex of too high a degree: one warp would walk its edges alone), [2] start (ns).
#define REC 8
template <typename V>
__device__ void push_levels(const i64* __restrict__ indptr, const V* __restrict__ indices,
                            const V* f0, int nf0, i64 mf0, V* bufx, V* bufy, int* labels, V* parents,
                            const i64* __restrict__ degree, int level0, int max_levels, i64 m_u,
                            double alpha, int may_pull, i64 mf_limit, i64 deg_limit, u64* rec, i64* ctl) {
    cg::grid_group grid = cg::this_grid();
    const bool lead = blockIdx.x == 0 && threadIdx.x == 0;
    const int lane = threadIdx.x & 31;
    const i64 warp = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const i64 nwarps = ((i64)gridDim.x * blockDim.x) >> 5;
    if (lead) ctl[2] = (i64)now_ns();
    const V* cur = f0;
    i64 nf = nf0, mf = mf0;
    int k = 0, reason = 0;
    while (k < max_levels) {
        V* out = (k & 1) ? bufy : bufx;
        const int level = level0 + k;
        u64* r = rec + REC * (i64)k;
        for (i64 i = warp; i < nf; i += nwarps) {  // a warp per frontier vertex, lanes over its edges
            const V u = __ldcg(cur + i);
            const i64 end = indptr[u + 1];
            for (i64 e0 = indptr[u]; e0 < end; e0 += 32) {  // bounds are warp-uniform: warp_emit needs all lanes
                const i64 e = e0 + lane;
                bool claimed = false;
                i64 deg = 0;
                V v = 0;
                if (e < end) {
                    v = indices[e];
                    int lab = __ldcg(labels + v);
                    if (lab == -1) {
                        lab = atomicCAS(labels + v, -1, level);
                        claimed = lab == -1;
                        if (claimed) { lab = level; deg = degree[v]; }
                    }
                    if (lab == level) atomicMin(parents + v, u);
                }
                warp_emit<V>(claimed, v, deg, 0, out, r);
                const u64 top = __reduce_max_sync(0xffffffffu, claimed ? (unsigned)min(deg, (i64)0xffffffff) : 0u);
                if (lane == 0 && top) atomicMax(r + 4, top);
            }
        }
        grid.sync();
        const i64 nf_new = (i64)__ldcg(r + 0);
        const i64 mf_new = (i64)__ldcg(r + 1);
        const i64 top_new = (i64)__ldcg(r + 4);
        if (lead) {
            r[2] = (u64)mf;
            r[3] = now_ns();
        }
        ++k;
        m_u -= mf_new;
        const bool pull = may_pull && (double)mf_new > (double)m_u / alpha && nf_new > nf;
        nf = nf_new;
        mf = mf_new;
        cur = out;
        if (nf == 0) { reason = 1; break; }
        if (pull) { reason = 2; break; }
        if (mf > mf_limit) { reason = 3; break; }
        if (top_new > deg_limit) { reason = 4; break; }
    }
    if (lead) {
        ctl[0] = k;
        ctl[1] = reason;
    }
}

extern "C" {
__global__ void push_levels_i32(const i64* indptr, const int* indices, const int* f0, int nf0, i64 mf0,
                                int* bufx, int* bufy, int* labels, int* parents, const i64* degree,
                                int level0, int max_levels, i64 m_u, double alpha, int may_pull,
                                i64 mf_limit, i64 deg_limit, u64* rec, i64* ctl) {
    push_levels<int>(indptr, indices, f0, nf0, mf0, bufx, bufy, labels, parents, degree, level0,
                     max_levels, m_u, alpha, may_pull, mf_limit, deg_limit, rec, ctl);
}
__global__ void push_levels_i64(const i64* indptr, const i64* indices, const i64* f0, int nf0, i64 mf0,
                                i64* bufx, i64* bufy, int* labels, i64* parents, const i64* degree,
                                int level0, int max_levels, i64 m_u, double alpha, int may_pull,
                                i64 mf_limit, i64 deg_limit, u64* rec, i64* ctl) {
    push_levels<i64>(indptr, indices, f0, nf0, mf0, bufx, bufy, labels, parents, degree, level0,
                     max_levels, m_u, alpha, may_pull, mf_limit, deg_limit, rec, ctl);
}
}
"""

#: levels one launch may run (the size of the record buffer)
MAX_LEVELS = 4096
REC = 8  # words per level record (the CUDA source's REC)
STOPS = ("limit", "empty", "pull", "edges", "hub")


def enabled():
    """``dgraph.config.bfs_levels`` (off: benchmarks compare with the level-by-level path)."""
    return config.bfs_levels


def frontier_limit():
    """Frontier edges above which a level goes back to the host-driven load-balanced kernel
    (``dgraph.config.bfs_levels_frontier_limit``, default 2^16)."""
    return config.bfs_levels_frontier_limit


def degree_limit():
    """A frontier vertex of more edges than this sends the level back to the host-driven kernel (a
    warp per vertex here: a hub's edges would be walked by one warp while the rest of the GPU
    waits; ``dgraph.config.bfs_levels_degree_limit``, default 2048)."""
    return config.bfs_levels_degree_limit


def blocks_per_sm():
    """Blocks a multiprocessor (``dgraph.config.bfs_levels_blocks_per_sm``, default 1: a level's
    barrier costs more with more blocks, and deep graphs have small frontiers: H100, 1000x1000 grid
    BFS 15.2 ms with 1, 15.5 with 2, 22.6 with 4)."""
    return config.bfs_levels_blocks_per_sm


def kernel(name):
    """A kernel of this module (:func:`dgraph.cuda.function`)."""
    return function(_SOURCE, name, cooperative=True)


class LevelBuffers:
    """The record and control buffers of :func:`push_levels`, allocated once per run."""

    def __init__(self):
        import cupy as cp  # noqa: PLC0415

        self.rec = cp.zeros(REC * MAX_LEVELS, dtype=cp.uint64)
        self.ctl = cp.zeros(4, dtype=cp.int64)


def push_levels(indptr, indices, frontier, mf, bufx, bufy, labels, parents, degree, level0, max_levels,
                m_u, alpha, may_pull, bufs, mf_limit=None, deg_limit=None):
    """Run push levels from ``frontier`` (ids) on the device; -> (levels, why it stopped, records).

    records: one (claimed, degree sum, edges scanned, seconds) tuple per level; level k's new
    frontier is in ``bufx`` for even k and ``bufy`` for odd k.
    """
    import cupy as cp  # noqa: PLC0415

    max_levels = max(1, min(int(max_levels), MAX_LEVELS))
    kern = kernel("push_levels_" + ("i32" if indices.dtype.itemsize == 4 else "i64"))
    bufs.rec[: REC * max_levels].fill(0)
    args = (indptr, indices, frontier, cp.int32(len(frontier)), cp.int64(mf), bufx, bufy, labels, parents,
            degree, cp.int32(level0), cp.int32(max_levels), cp.int64(m_u), cp.float64(alpha),
            cp.int32(bool(may_pull)), cp.int64(frontier_limit() if mf_limit is None else mf_limit),
            cp.int64(degree_limit() if deg_limit is None else deg_limit), bufs.rec, bufs.ctl)
    kern((cooperative_grid(kern, blocks_per_sm()),), (BLOCK,), args)
    levels, why, start = (int(x) for x in bufs.ctl[:3].get())
    rec = bufs.rec[: REC * levels].get().reshape(levels, REC)[:, :4].astype("int64")
    ends = rec[:, 3]
    times = (ends - [start, *ends[:-1]]) * 1e-9
    records = [(int(c), int(d), int(s), float(t)) for (c, d, s, _), t in zip(rec, times)]
    return levels, STOPS[why], records


def fits(frontier_rows, m_f, degree):
    """Whether a frontier may start a batch: few edges, and no vertex of more than
    :func:`degree_limit` (read from the device only when the edge count alone does not settle it)."""
    if m_f > frontier_limit():
        return False
    limit = degree_limit()
    return m_f <= limit or int(degree[frontier_rows].max()) <= limit


__all__ = ["push_levels", "LevelBuffers", "enabled", "fits", "frontier_limit", "degree_limit", "blocks_per_sm",
           "MAX_LEVELS"]
