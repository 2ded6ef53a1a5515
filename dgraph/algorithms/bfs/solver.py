"""BFS's whole-graph fast loops: every level in one numba call (CPU); push levels in one GPU launch.

The ``cpu-numba+levels`` implementation (one whole numpy shard, the local executor, fused kernels,
``dgraph.config.bfs_levels`` on): :meth:`BFS.run_steps
<dgraph.algorithms.bfs.program.BFS.run_steps>` hands the traversal to :func:`cpu_run_levels`, which
runs it level after level in :func:`dgraph.algorithms.bfs.cpu.run_levels` (Beamer's switch
included) and reports each level as its own superstep, with the same counters, depths and parents
as the level-by-level ``cpu-numba`` path.  Each superstep of that path costs some 20 us of Python
(the Program's superstep and receive, a Frontier, the executor's record); a 1000x1000 grid has
2,000 levels of about 500 vertices, and spent four fifths of its time there.

The ``gpu-fused+levels`` implementation (one whole-graph CuPy shard, fused kernels, a direction
that may push, ``dgraph.config.bfs_levels`` on): :meth:`BFS.run_steps
<dgraph.algorithms.bfs.program.BFS.run_steps>` hands each superstep to :func:`run_levels`, which
runs it here while the frontier is small (:func:`fits`) and Beamer's rule stays on push, and
otherwise leaves it to the level-by-level kernels of :mod:`.gpu`.

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
``push_lb`` (bfs.cu): ``atomicCAS`` claims the label, ``atomicMin`` keeps
the smallest parent among the level's frontier, so the depth and parent
arrays are the same bits as the level-by-level path.

Reads of state written in earlier levels (labels, the frontier queues) go
through L2 (``__ldcg``): L1 is not coherent across blocks, and a stale label
would let a later level lower the parent of a vertex found earlier.  The CUDA
is ``levels.cu`` beside this file.
"""

from __future__ import annotations

from ...config import config
from ...cuda import BLOCK, cooperative_grid, function, source
from ...ops import Frontier
from . import gpu, kernels

#: this module's CUDA (levels.cu, with dgraph/cuda/common.cuh after the cooperative groups header)
_SOURCE = source(__package__, "levels.cu")

#: levels one launch may run (the size of the record buffer)
MAX_LEVELS = 4096
REC = 8  # words per level record (the CUDA source's REC)
STOPS = ("limit", "empty", "pull", "edges", "hub")


#: levels one numba call of cpu_run_levels may run (the size of its record buffer)
CPU_MAX_LEVELS = 4096


def cpu_run_levels(program, shard, st, ctx, limit):
    """The traversal from the superstep about to run, at most ``limit`` levels, in numba calls of at
    most :data:`CPU_MAX_LEVELS` levels: a :class:`~dgraph.engine.records.StepBatch`, one superstep a
    level (its reports as columns: 2,000 dicts a 1000x1000 grid cost more than a millisecond), as
    :meth:`dgraph.engine.program.Program.run_steps` returns.  A call's time is shared out among its
    levels by edges scanned.  The depths and parents are packed words, one a vertex (``st.word``,
    :func:`.cpu.pack`), until the Program's finish (or a superstep run without this loop) unpacks
    them; None (a superstep at a time) for a graph of :data:`.cpu.PACKED_MAX_N` vertices or more."""
    import numpy as np  # noqa: PLC0415

    from ... import startup  # noqa: PLC0415
    from . import cpu  # noqa: PLC0415

    n = shard.n
    if n >= cpu.PACKED_MAX_N:
        return None
    nf, m_f = ctx.report["frontier"], ctx.report["frontier_edges"]
    if st.word is None:  # a superstep ran without the loop and unpacked them: pack again
        st.word = np.empty(n, dtype=np.int64)
        cpu.pack(st.labels, st.parents, st.word)
    word = st.word
    cindptr, cindices, _ = shard.csc(edge_ids=False)
    vdt = shard.indices.dtype
    front = np.empty(n, dtype=vdt)
    front[:nf] = st.frontier.ids
    nxt = np.empty(n, dtype=vdt)
    fmask = np.zeros(n, dtype=bool)
    cap = max(1, min(limit, CPU_MAX_LEVELS, n + 1))
    mode = {"auto": cpu.AUTO, "push": cpu.ONLY_PUSH, "pull": cpu.ONLY_PULL}[program.direction]
    cur = cpu.PUSH if st.direction == "push" else cpu.PULL
    names = ("push", "pull")
    recs, shares, done = [], [], 0
    while nf > 0 and done < limit:
        rec = np.empty((min(cap, limit - done), 4), dtype=np.int64)
        sw = startup.Stopwatch()
        steps, nf, m_f, st.level, st.m_u, st.prev_nf, cur = cpu.run_levels(
            shard.indptr, shard.indices, cindptr, cindices, word, front, nxt, fmask,
            nf, m_f, st.level, st.m_u, st.prev_nf, cur, mode, float(program.alpha), float(program.beta),
            len(rec), rec)
        spent = sw.lap()
        r = rec[:steps]
        share = r[:, 2] + 1.0
        share *= spent / share.sum()
        recs.append(r)
        shares.append(share)
        done += steps
        if ctx.tick is not None:
            for report, seconds in _batch(r, share, names):
                ctx.tick(report, seconds)
    st.direction = names[cur]
    st.frontier = Frontier(n, ids=front[:nf].copy())
    if not recs:
        return []
    if len(recs) > 1:
        return _batch(np.concatenate(recs), np.concatenate(shares), names)
    return _batch(recs[0], shares[0], names)


def _batch(rec, seconds, names):
    """:func:`cpu_run_levels`' records (rows of :func:`.cpu.run_levels`' ``rec``) as a StepBatch."""
    from ...engine.records import StepBatch  # noqa: PLC0415

    return StepBatch({"direction": rec[:, 0], "frontier": rec[:, 1], "edges": rec[:, 2], "frontier_edges": rec[:, 3]},
                     seconds, labels={"direction": names})


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


def run_levels(program, shard, st, ctx, limit):
    """Push levels in one launch from the superstep about to run, at most ``limit`` of them: one
    (report, seconds) a level, as :meth:`dgraph.engine.program.Program.run_steps` returns; None when
    the next superstep is not such a level (too many frontier edges, a hub in the frontier, or
    Beamer's rule would pull), so the executor runs it as an ordinary superstep."""
    nf, m_f = ctx.report["frontier"], ctx.report["frontier_edges"]
    if m_f > frontier_limit() or program.choose_direction(st, shard.n, nf, m_f) != "push":
        return None
    rows = kernels.frontier_rows(shard, st)
    if not fits(rows, m_f, shard.degree):
        return None
    out = gpu.buffers(shard, st)  # out[0] is free; the frontier may sit in out[1]
    if st.levels is None:
        st.levels = LevelBuffers()
    levels, _, recs = push_levels(
        shard.indptr, shard.indices, rows, m_f, out, st.out[1], st.labels, st.parents,
        shard.degree, st.level + 1, limit, st.m_u, program.alpha, program.direction == "auto", st.levels)
    steps = []
    for count, degsum, scanned, seconds in recs:
        steps.append(({"direction": "push", "frontier": count, "edges": scanned, "frontier_edges": degsum},
                      seconds))
        st.m_u -= degsum
        st.prev_nf, nf = nf, count
    st.level += levels
    st.direction = "push"
    if levels % 2 == 0:  # the last level wrote out[1]: make it out[0], the buffer the next step reads
        st.out.reverse()
    st.frontier = Frontier(shard.n, ids=st.out[0][:nf])
    return steps


__all__ = ["cpu_run_levels", "CPU_MAX_LEVELS", "run_levels", "push_levels", "LevelBuffers", "fits", "frontier_limit", "degree_limit", "blocks_per_sm",
           "MAX_LEVELS"]
