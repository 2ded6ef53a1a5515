"""SSSP's whole-graph loops: many supersteps of one whole shard a call (``Program.run_steps``).

The implementations ``cpu-numba+steps`` and ``gpu-cuda+steps`` / ``gpu-cuda+host-steps``
(:func:`dgraph.algorithms.sssp.program.implementation`: one whole shard under the local
executor) drive their supersteps from here, with the same states and the same per-superstep
records as the Program's superstep + receive:

- :func:`cpu_run_steps`: the numba kernel :func:`dgraph.algorithms.sssp.cpu.run_steps` runs
  superstep after superstep (the relaxation in place against a snapshot of the frontier, or
  over the CPU's threads with per-thread running bests; the near/far split and the next bucket
  in the same kernel).  The per-superstep times are the call's time shared out by arcs scanned.
- :func:`gpu_run_steps`: the cooperative launch below where it can take the next supersteps,
  else one host-driven superstep (:mod:`dgraph.algorithms.sssp.gpu`) whose split, when another
  superstep may follow, launches the next relaxation before the host reads the counts.

Many supersteps in one GPU launch (:func:`run`, ``sssp_steps.cu``): a
deep graph (the 1000x1000 grid: about 2,200 near/far supersteps) spends
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

A superstep is the host-driven one of :mod:`dgraph.algorithms.sssp.gpu`, phase
for phase, with the same device functions (``sssp.cuh``): relax the frontier's edges
against its (distance, hops) snapshot, load-balanced over edges; settle hop
ties; split the changed vertices into near queue and far pile; when the near
queue is empty, the next bucket (the closest pending far vertex fixes the
new bound, the same float64 arithmetic as :func:`dgraph.algorithms.sssp.cpu.bound_above`; the pile is
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

from ...config import config
from ...cuda import BLOCK, compiled, cooperative_grid, dtype_suffix, function, source

#: the cooperative kernel: sssp_steps.cu (the device functions of sssp.cuh and the superstep loop)
_SOURCE = source(__package__, "sssp_steps.cu")

#: CPU, one shard: a superstep over at least this many arcs is relaxed by all the CPU's threads
PAR_MIN_ARCS = 1 << 16


# -- the CPU loop ----------------------------------------------------------------------------

def cpu_run_steps(program, shard, st, ctx, limit):
    """Supersteps of the single whole shard on numpy, many a numba call
    (:func:`dgraph.algorithms.sssp.cpu.run_steps`, the same states and counters as superstep +
    receive), up to ``limit``; -> [(report, seconds), ...].  The per-superstep times are the
    call's time shared out by arcs scanned."""
    from ... import startup  # noqa: PLC0415
    from ...jit import num_threads  # noqa: PLC0415
    from . import cpu  # noqa: PLC0415

    n = shard.n
    cpu.scratch(shard, st)  # bd: the frontier's distance snapshot here
    cap = 1024
    rec = (np.empty(cap, np.int64), np.empty(cap, np.int64), np.empty(cap, np.float64),
           np.empty(cap, np.int64), np.empty(cap, np.int64))
    front = np.empty(n, dtype=shard.indices.dtype)
    nf = len(st.frontier)
    front[:nf] = st.frontier
    pile = np.ascontiguousarray(st.pile, dtype=shard.indices.dtype)  # read, then reused for the result
    npile = len(pile)
    w, weighted = cpu.kernel_weights(shard)
    T = num_threads() if shard.num_arcs >= PAR_MIN_ARCS else 1
    par = (np.empty(n + 1, np.int64), np.empty((T, n), np.float64), np.empty((T, n), np.int64),
           np.zeros((T, n), bool), np.empty((T, n), shard.indices.dtype), np.zeros(T, np.int64))
    out = []
    while nf and len(out) < limit:
        sw = startup.Stopwatch()
        steps, nf, pile, npile, st.bound = cpu.run_steps(
            shard.indptr, shard.indices, w, weighted, st.dist, st.hops, st.pending, front, nf, pile, npile,
            st.bound, program.delta, limit - len(out), st.bd, st.bh, st.mark, st.touched, *rec, PAR_MIN_ARCS,
            *par)
        spent = sw.lap()
        fr, far, bound, improved, edges = (a[:steps].tolist() for a in rec)
        weight = sum(edges) + steps
        for i in range(steps):
            out.append(({"frontier": fr[i], "far": far[i], "bound": bound[i], "improved": improved[i],
                         "edges": edges[i]}, spent * (edges[i] + 1) / weight))
            if ctx.tick is not None:
                ctx.tick(*out[-1])
    st.frontier = front[:nf].copy()
    st.pile = pile[:npile].copy()
    return out


# -- the GPU loop ----------------------------------------------------------------------------

def gpu_run_steps(program, shard, st, limit):
    """Supersteps of the single whole shard on CuPy: many in one cooperative launch (:func:`run`)
    where it can take them (``gpu-cuda+steps``), else one host-driven superstep (superstep +
    receive) whose split, when another superstep may follow, launches the next relaxation before
    the host reads the counts (:func:`dgraph.algorithms.sssp.gpu.split`'s ``ahead``)."""
    import time  # noqa: PLC0415

    from . import gpu  # noqa: PLC0415

    launch = program.loop == "steps"
    if launch and (st.scratch is None or st.scratch.ahead is None):
        records = _launch_steps(shard, st, program.delta, limit)
        if records:
            return records
    t0 = time.perf_counter()
    c = gpu.relax_step(shard, st, True)
    # ahead where the next superstep is likely the host's too: this one was too fat for the launch
    ahead = limit > 1 and not (launch and takes(c.counters["edges"]))
    report = gpu.receive_whole(shard, st, c, program._next_bucket, ahead=ahead)
    return [(report, time.perf_counter() - t0)]


def _launch_steps(shard, st, delta, limit):
    """Supersteps of one whole shard on CuPy in one cooperative launch (:func:`run`), the same
    states and records as superstep + receive; None when the launch cannot take the next
    superstep (the host-driven kernels do it)."""
    from . import gpu  # noqa: PLC0415

    if st.steps_skip or not worth_a_launch(st.snap):
        st.steps_skip = False
        return None
    if st.scratch is None:
        st.scratch = gpu.Scratch(shard.n, len(shard.indices), shard.indices.dtype)
    if st.steps is None:
        st.steps = StepBuffers(shard.n, shard.indices.dtype)
    frontier = st.frontier.astype(shard.indices.dtype, copy=False)
    out = run(shard.indptr, shard.indices, st.w64, st.dist, st.hops, st.pending, frontier,
              st.pile, st.bound, delta, limit, st.scratch, st.steps, skip=st.skip)
    if out is None or out["steps"] == 0:
        return None
    st.frontier, st.snap, st.pile, st.bound = out["frontier"], out["snap"], out["pile"], out["bound"]
    if out["stop"] in ("ties", "pile", "edges"):  # the next superstep is the host's: no empty launch first
        st.steps_skip = True
    return out["records"]


# -- the cooperative launch (sssp_steps.cu) ---------------------------------------------------------

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



def module():
    return compiled(_SOURCE, "--fmad=false", cooperative=True)


def kernel(name):
    """A kernel of this module (:func:`dgraph.cuda.function`)."""
    return function(_SOURCE, name, "--fmad=false", cooperative=True)


class StepBuffers:
    """The second near queue, the two pile buffers, the tile sums and the record/control words of
    :func:`run`, allocated once per run (the first near queue is the host path's, :class:`dgraph.algorithms.sssp.gpu.Scratch`)."""

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
    """True when a superstep over ``edges`` frontier edges is the cooperative launch's (where the
    implementation launches it at all: ``gpu-cuda+steps``)."""
    return edges <= edge_limit()


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
    rows are not relaxed (``dgraph.config.sssp_skip_stale``).
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


__all__ = ["cpu_run_steps", "gpu_run_steps", "run", "StepBuffers", "takes", "worth_a_launch", "edge_limit",
           "blocks_per_sm", "MAX_STEPS", "PAR_MIN_ARCS"]
