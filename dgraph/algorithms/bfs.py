"""Breadth-first search: push, pull and direction-optimizing (Beamer), with depth and parent.

Built from Gunrock's operators: each superstep is an advance over the
frontier followed by a filter of already-visited vertices.  ``kernels=
"fused"`` runs that advance+filter as one compiled kernel per backend
(numba on the CPU, CUDA on the GPU); ``kernels="generic"`` composes it from
the vectorized operators in :mod:`dgraph.ops` and is the reference the
fused kernels are tested against.

Across partitions it is ButterFly BFS: every shard keeps the global depth
array, advances from the frontier vertices it owns, and the shards
all-gather what they discovered (butterfly or all-to-all) as vertex ids or
as a bitmap, whichever is smaller, so every shard ends each superstep with
the same global frontier and can pull from it when the direction switches.
Parents stay where they were found and are reconciled once, after the last
superstep (the smallest candidate wins).

The parent of a vertex is its smallest-id neighbor in the previous level,
whichever direction, partition or backend found it, so every run on every
executor returns the same parent array.
"""

from __future__ import annotations

import numpy as np

from ..backend import to_backend
from ..backend.primitives import scatter_min
from ..engine.program import Contribution, Program
from ..errors import InputError
from ..ops import Frontier, advance_pull, advance_push

DIRECTIONS = ("auto", "push", "pull")


class BFSState:
    __slots__ = ("labels", "parents", "frontier", "direction", "level", "m_u", "prev_nf", "out", "counters",
                 "unset", "levels", "union", "next_rows")


class BFS(Program):
    """The BFS Program (see :mod:`dgraph.engine.program`)."""

    name = "bfs"
    replicated_result = True

    def __init__(self, source, direction="auto", alpha=15.0, beta=18.0, kernels="fused"):
        self.source = int(source)
        self.direction = direction
        self.alpha, self.beta = alpha, beta
        self.kernels = kernels

    # -- setup -------------------------------------------------------------------
    def init(self, shard):
        xp = shard.xp
        n = shard.n
        st = BFSState()
        vdt = shard.indices.dtype
        st.unset = -1 if (xp is np or self.kernels == "generic") else np.iinfo(vdt).max
        st.labels = xp.full(n, -1, dtype=np.int32)
        st.parents = xp.full(n, st.unset, dtype=vdt)
        st.labels[self.source] = 0
        st.parents[self.source] = self.source
        st.frontier = Frontier(n, ids=xp.asarray([self.source], dtype=vdt))
        st.level = 0
        st.m_u = shard.degree_sum() - int(shard.degree[self.source])
        st.prev_nf = 0
        st.direction = "pull" if self.direction == "pull" else "push"
        st.out = None
        st.counters = None
        st.levels = None
        st.union = None      # GPU bitmap union buffers of a partitioned run (gpu_frontier)
        st.next_rows = None  # (owned local rows, their degree sum) of the frontier, when the union gave them
        return st

    def initial_report(self, shard, st):
        return {"frontier": 1, "frontier_edges": int(shard.degree[self.source])}

    def converged(self, report, step):
        return report.get("frontier", 0) == 0

    def choose_direction(self, st, n, nf, m_f):
        """Beamer's switch: pull when the frontier's edges exceed the unvisited edges / alpha
        (and the frontier grows), back to push when it shrinks below n / beta."""
        if self.direction != "auto":
            return self.direction
        if st.direction == "push":
            return "pull" if (m_f > st.m_u / self.alpha and nf > st.prev_nf) else "push"
        return "push" if (nf < n / self.beta and nf < st.prev_nf) else "pull"

    # -- one superstep -------------------------------------------------------------
    def superstep(self, shard, st, ctx):
        nf, m_f = ctx.report["frontier"], ctx.report["frontier_edges"]
        st.direction = self.choose_direction(st, shard.n, nf, m_f)
        st.level += 1
        backend = "cpu" if shard.xp is np else "gpu"
        kernel = _VISITS[(backend if self.kernels == "fused" else "generic", st.direction)]
        whole = shard.num_parts == 1
        if not whole:
            m_f = st.next_rows[1] if st.next_rows is not None else None
        claimed, touched, degsum = kernel(shard, st, m_f)
        return Contribution(_frontier_payload(shard, st, claimed, whole),
                            {"count": len(claimed), "edges": touched, "degsum": degsum, "input_frontier": nf})

    def run_steps(self, shard, st, ctx, limit):
        """Push levels in one GPU launch (one whole-graph CuPy shard, fused kernels), while the
        frontier stays small and Beamer's rule stays on push; None when the next superstep is not
        such a level (see :mod:`dgraph.backend.gpu_levels`)."""
        if shard.num_parts != 1 or shard.xp is np or self.kernels != "fused" or self.direction == "pull":
            return None
        from ..backend import gpu_levels  # noqa: PLC0415

        nf, m_f = ctx.report["frontier"], ctx.report["frontier_edges"]
        if not gpu_levels.enabled() or m_f > gpu_levels.frontier_limit() or \
                self.choose_direction(st, shard.n, nf, m_f) != "push":
            return None
        rows = _frontier_rows(shard, st)
        if not gpu_levels.fits(rows, m_f, shard.degree):
            return None
        out = _gpu_state(shard, st)  # out[0] is free; the frontier may sit in out[1]
        if st.levels is None:
            st.levels = gpu_levels.LevelBuffers()
        levels, _, recs = gpu_levels.push_levels(
            shard.indptr, shard.indices, rows, m_f, out, st.out[1], st.labels, st.parents,
            shard.degree, st.level + 1, limit, st.m_u, self.alpha, self.direction == "auto", st.levels)
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

    def receive(self, shard, st, contributions, ctx):
        if len(contributions) == 1:
            c = contributions[0]
            new, count, degsum = c.arrays["v"], c.counters["count"], c.counters["degsum"]
            st.frontier = Frontier(shard.n, ids=new)
        elif st.union is not None:  # GPU: one fused kernel (gpu_frontier)
            xp = shard.xp
            parts = [(to_backend(c.arrays["ids"], xp), to_backend(c.arrays["bits"], xp)) for c in contributions]
            new, degsum, rows, owned_deg = st.union.union(parts, st.labels, st.level, shard.degree)
            count = len(new)
            st.next_rows = None if rows is None else (rows, owned_deg)
            st.frontier = Frontier.with_mask(shard.n, new, st.union.fmask.view(xp.bool_))
        else:
            new = _union(shard, contributions)
            fresh = new[st.labels[new] < 0]
            st.labels[fresh] = st.level
            count = len(new)
            degsum = int(shard.degree[new].sum())
            st.frontier = Frontier(shard.n, ids=new)
        st.prev_nf = contributions[0].counters["input_frontier"]
        st.m_u -= degsum
        return {"direction": st.direction, "frontier": count, "edges": sum(c.counters["edges"] for c in contributions),
                "frontier_edges": degsum}

    def final_contribution(self, shard, st):
        """The parents this shard found: (vertex, parent) pairs, reconciled by minimum."""
        if shard.num_parts == 1:
            return None
        v = shard.xp.flatnonzero(st.parents != st.unset).astype(st.parents.dtype)
        return Contribution({"v": v, "u": st.parents[v]}, {})

    def final_min(self, shard, st):
        """The parents as one array to reduce by minimum onto shard 0, for a transport that reduces
        on the GPUs (NCCL): unvisited entries hold the dtype's maximum on the fused GPU path, so the
        minimum is the smallest candidate.  None where they hold -1 (numpy, generic kernels)."""
        big = np.iinfo(st.parents.dtype).max
        return st.parents if (shard.num_parts > 1 and st.unset == big) else None

    def final_receive(self, shard, st, contributions):
        xp = shard.xp
        others = [c for i, c in enumerate(contributions) if i != shard.part]
        if not others:
            return
        v = xp.concatenate([to_backend(c.arrays["v"], xp) for c in others])
        u = xp.concatenate([to_backend(c.arrays["u"], xp) for c in others]).astype(st.parents.dtype)
        big = np.iinfo(st.parents.dtype).max
        if st.unset != big:
            st.parents[v[st.parents[v] == st.unset]] = big
        scatter_min(st.parents, v, u)

    def finish(self, shard, st):
        parents = st.parents
        if st.unset != -1:
            parents = shard.xp.where(parents == st.unset, -1, parents)
        return {"depth": st.labels, "parent": parents}


# -- what travels between shards --------------------------------------------------------

def _frontier_payload(shard, st, claimed, whole):
    """The vertices a shard claimed: as ids, or as a packed bitmap when that is smaller."""
    if whole:
        return {"v": claimed}
    xp = shard.xp
    if claimed.itemsize * len(claimed) <= shard.n // 8:
        return {"ids": claimed, "bits": xp.empty(0, dtype=np.uint8)}
    if st.union is not None:
        return {"ids": xp.empty(0, dtype=claimed.dtype), "bits": st.union.bits(claimed)}
    mask = xp.zeros(shard.n, dtype=bool)
    mask[claimed] = True
    return {"ids": xp.empty(0, dtype=claimed.dtype), "bits": xp.packbits(mask)}


def _union(shard, contributions):
    """The sorted union of every shard's claimed vertices."""
    xp = shard.xp
    if all(len(c.arrays["bits"]) == 0 for c in contributions):
        return xp.unique(xp.concatenate([to_backend(c.arrays["ids"], xp) for c in contributions]))
    mask = xp.zeros(shard.n, dtype=bool)
    for c in contributions:
        bits = to_backend(c.arrays["bits"], xp)
        if len(bits):
            mask |= xp.unpackbits(bits)[: shard.n].astype(bool)
        ids = to_backend(c.arrays["ids"], xp)
        if len(ids):
            mask[ids] = True
    return xp.flatnonzero(mask).astype(shard.indices.dtype)


# -- the visit step per (kernel set, direction) -----------------------------------------
# Each takes (shard, state, frontier edge count when known) and returns
# (claimed global ids, edges scanned, degree sum of the claimed).

def _frontier_rows(shard, st):
    ids = st.frontier.ids
    if shard.num_parts == 1:
        return ids.astype(shard.indices.dtype, copy=False)
    if st.next_rows is not None:  # the GPU union wrote them
        return st.next_rows[0]
    return shard.local_rows(ids)


def _cpu_push(shard, st, m_f):
    from ..backend import cpu_kernels  # noqa: PLC0415

    if st.out is None:
        st.out = np.empty(shard.n, dtype=shard.indices.dtype)
    # no sorting: the kernel keeps the smallest parent in any frontier order
    k, touched, degsum = cpu_kernels.visit_push(shard.indptr, shard.indices, _frontier_rows(shard, st),
                                                shard.row_base, shard.rows, st.labels, st.parents, st.level,
                                                st.out, shard.degree)
    return st.out[:k].copy(), int(touched), int(degsum)


def _cpu_pull(shard, st, m_f):
    from ..backend import cpu_kernels  # noqa: PLC0415

    if st.out is None:
        st.out = np.empty(shard.n, dtype=shard.indices.dtype)
    cindptr, cindices, _ = shard.csc(edge_ids=False)
    k, touched, degsum = cpu_kernels.visit_pull(cindptr, cindices, st.frontier.mask, shard.row_base, shard.rows,
                                                st.labels, st.parents, st.level, st.out, shard.degree)
    return st.out[:k].copy(), int(touched), int(degsum)


def _gpu_state(shard, st):
    import cupy as cp  # noqa: PLC0415

    if st.out is None:
        st.out = [cp.empty(shard.n, dtype=shard.indices.dtype), cp.empty(shard.n, dtype=shard.indices.dtype)]
        st.counters = cp.zeros(4, dtype=cp.uint64)
        if shard.num_parts > 1:
            from ..backend.gpu_frontier import FrontierUnion  # noqa: PLC0415

            st.union = FrontierUnion(shard.n, shard.indices.dtype, shard.row_base,
                                     shard.num_rows if shard.contiguous else 0)
    st.out.reverse()  # double buffer: the new frontier never overwrites the one being read
    st.counters.fill(0)
    return st.out[0]


def _gpu_push(shard, st, m_f):
    from ..backend import gpu_kernels  # noqa: PLC0415

    out = _gpu_state(shard, st)
    rows = _frontier_rows(shard, st)
    if m_f is None:
        m_f = int((shard.indptr[rows + 1] - shard.indptr[rows]).sum())
    gpu_kernels.visit_push(shard.indptr, shard.indices, rows, m_f, shard.row_base, shard.rows, st.labels,
                           st.parents, st.level, shard.degree, out, st.counters)
    count, degsum, _, _ = (int(x) for x in st.counters.get())
    return out[:count], m_f, degsum


def _gpu_pull(shard, st, m_f):
    import cupy as cp  # noqa: PLC0415

    from ..backend import gpu_kernels  # noqa: PLC0415

    out = _gpu_state(shard, st)
    cindptr, cindices, _ = shard.csc(edge_ids=False)
    fmask = st.frontier.mask.view(cp.uint8)
    gpu_kernels.visit_pull(cindptr, cindices, fmask, shard.row_base, shard.rows, st.labels, st.parents,
                           st.level, shard.degree, out, st.counters)
    count, degsum, scanned, _ = (int(x) for x in st.counters.get())
    return out[:count], scanned, degsum


def _generic_push(shard, st, m_f):
    """Advance over out-edges, filter visited targets, smallest parent by scatter-min."""
    xp = shard.xp
    labels = st.labels
    rows = _frontier_rows(shard, st)
    edges = advance_push(shard, Frontier(shard.num_rows, ids=rows), lambda s, d, e: labels[d] < 0)
    touched = int((shard.indptr[rows + 1] - shard.indptr[rows]).sum())
    src = shard.global_rows()[edges.src]
    new = xp.unique(edges.dst)
    best = xp.full(len(new), np.iinfo(np.int64).max, dtype=np.int64)
    scatter_min(best, xp.searchsorted(new, edges.dst), src.astype(np.int64))
    labels[new] = st.level
    st.parents[new] = best.astype(st.parents.dtype)
    return new, touched, int(shard.degree[new].sum())


def _generic_pull(shard, st, m_f):
    """Advance over in-edges of unvisited owned vertices against the frontier bitmap, first hit each."""
    grows = shard.global_rows()
    unvisited = Frontier(shard.num_rows, mask=st.labels[grows] < 0)
    cindptr = shard.csc(edge_ids=False)[0]
    cand = unvisited.ids
    touched = int((cindptr[cand + 1] - cindptr[cand]).sum())
    edges = advance_pull(shard, st.frontier, unvisited)
    found = grows[edges.dst]
    st.labels[found] = st.level
    st.parents[found] = edges.src
    return found, touched, int(shard.degree[found].sum())


_VISITS = {
    ("cpu", "push"): _cpu_push, ("cpu", "pull"): _cpu_pull,
    ("gpu", "push"): _gpu_push, ("gpu", "pull"): _gpu_pull,
    ("generic", "push"): _generic_push, ("generic", "pull"): _generic_pull,
}


def bfs(G, source, *, direction="auto", backend=None, executor=None, exchange="butterfly", fanout=None,
        transport="auto", alpha=15.0, beta=18.0, kernels="fused", on_step=None, progress=False):
    """Breadth-first search from ``source`` (a user vertex id).

    Returns a :class:`~dgraph.engine.result.Result` with columns ``depth``
    (hops from the source, -1 when unreachable) and ``parent`` (the
    smallest-id neighbor one level up; the source is its own parent; -1
    when unreachable), in the user's vertex ids.

    G : a Graph, or a PartitionedGraph (``G.partition(p, ...)``).
    direction : 'auto' (Beamer's direction-optimizing switch, tuned by
        ``alpha`` and ``beta``), 'push' (top-down) or 'pull' (bottom-up).
    backend : 'numpy' or 'cupy'; None uses the graph's own backend.
    executor : 'local' (one process), 'tasks' (a Dask task graph per
        superstep) or 'spmd' (one Dask task per shard, direct exchange);
        None picks 'local' for a Graph and 'spmd' for a PartitionedGraph.
    exchange, fanout : 'butterfly' (``fanout`` partners a round, default 4) or 'all-to-all'.
    transport : how spmd moves data: 'dask' (worker comm: tcp or ucx), 'nccl'
        (CuPy shards, one per GPU) or 'auto' (nccl where it applies).
    kernels : 'fused' (compiled kernels) or 'generic' (composed operators).
    on_step : called with each superstep's record (a dict: the row ``r.stats`` will have) as it ends.
    progress : True shows a progress bar of the supersteps (tqdm: on stderr, or a widget in
        Jupyter); None shows one only when stderr is a terminal; False (the default) none.
        Kernel start-up (numba loading or compiling the kernels the call runs) is timed apart:
        ``r.phases["startup_s"]``, not ``r.run_time``.

    Examples
    --------
    >>> import dgraph
    >>> G = dgraph.from_edges([0, 1, 2], [1, 2, 3])    # a path 0 - 1 - 2 - 3
    >>> r = dgraph.bfs(G, source=0)
    >>> r.depth.tolist(), r.parent.tolist()
    ([0, 1, 2, 3], [0, 0, 1, 2])
    >>> r.supersteps, sorted(r.phases)
    (4, ['startup_s'])
    """
    from ..engine.run import run_program  # noqa: PLC0415

    if direction not in DIRECTIONS:
        raise InputError(f"direction={direction!r}: expected one of {', '.join(DIRECTIONS)}")
    if kernels not in ("fused", "generic"):
        raise InputError(f"kernels={kernels!r}: expected 'fused' or 'generic'")

    def make(ids):
        return BFS(ids.to_internal(source, what="source"), direction=direction, alpha=alpha, beta=beta,
                   kernels=kernels)

    return run_program(make, G, backend=backend, executor=executor, exchange=exchange, fanout=fanout,
                       transport=transport, on_step=on_step, progress=progress, vertex_columns=("parent",),
                       missing={"depth": -1, "parent": -1},
                       params={"source": source, "direction": direction})


__all__ = ["bfs", "BFS"]
