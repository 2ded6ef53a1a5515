"""Breadth-first search: push, pull and direction-optimizing (Beamer), with depth and parent.

Built from Gunrock's operators: each superstep is an advance over the
frontier followed by a filter of already-visited vertices.  ``kernels=
"fused"`` runs that advance+filter as one compiled kernel per backend
(numba on the CPU, CUDA on the GPU); ``kernels="generic"`` composes it from
the vectorized operators in :mod:`dgraph.ops` and is the reference the
fused kernels are tested against.

The parent of a vertex is its smallest-id neighbor in the previous level,
whichever direction found it, so every direction, backend and executor
returns the same parent array.
"""

from __future__ import annotations

import numpy as np

from ..backend import backend_name, get_xp, to_numpy
from ..backend.primitives import scatter_min
from ..engine.local import run_local
from ..engine.program import Program
from ..engine.result import Result
from ..errors import InputError
from ..ops import Frontier, advance_pull, advance_push

DIRECTIONS = ("auto", "push", "pull")


class BFSState:
    __slots__ = ("labels", "parents", "frontier", "direction", "level", "m_u", "m_f", "prev_nf",
                 "buffers", "counters", "out_degree")


class BFS(Program):
    """The BFS Program (see :mod:`dgraph.engine.program`)."""

    name = "bfs"
    summed = ("frontier", "discovered", "edges", "frontier_edges")

    def __init__(self, source, direction="auto", alpha=15.0, beta=18.0, kernels="fused"):
        self.source = source
        self.direction = direction
        self.alpha, self.beta = alpha, beta
        self.kernels = kernels

    # -- setup -----------------------------------------------------------------
    def init(self, G):
        xp = G.xp
        n = G.num_vertices
        st = BFSState()
        st.labels = xp.full(n, -1, dtype=np.int32)
        vdt = G.indices.dtype
        self.unset = -1 if (xp is np or self.kernels == "generic") else np.iinfo(vdt).max
        st.parents = xp.full(n, self.unset, dtype=vdt)
        st.labels[self.source] = 0
        st.parents[self.source] = self.source
        st.frontier = Frontier(n, ids=xp.asarray([self.source], dtype=vdt))
        st.out_degree = G.out_degree()
        st.level = 0
        st.m_f = int(st.out_degree[self.source])
        st.m_u = G.num_arcs - st.m_f
        st.prev_nf = 0
        st.direction = "pull" if self.direction == "pull" else "push"
        st.buffers = None
        st.counters = None
        return st

    def initial_totals(self, G, st):
        return {"frontier": 1, "discovered": 1, "edges": 0, "frontier_edges": st.m_f}

    def converged(self, totals, step):
        return totals.get("frontier", 0) == 0

    # -- one superstep ---------------------------------------------------------
    def choose_direction(self, st, n, nf):
        """Beamer's switch: pull when the frontier's edges exceed unvisited edges / alpha,
        back to push when the frontier shrinks below n / beta."""
        if self.direction != "auto":
            return self.direction
        if st.direction == "push":
            if st.m_f > st.m_u / self.alpha and nf > st.prev_nf:
                return "pull"
            return "push"
        if nf < n / self.beta and nf < st.prev_nf:
            return "push"
        return "pull"

    def superstep(self, G, st, ctx):
        n = G.num_vertices
        nf = ctx.totals["frontier"]
        st.m_f = ctx.totals["frontier_edges"]
        direction = self.choose_direction(st, n, nf)
        st.direction = direction
        st.level += 1
        visit = _VISITS[(backend_name(G.xp), self.kernels, direction)]
        count, touched, degsum = visit(G, st)
        st.prev_nf = nf
        st.m_u -= degsum
        return {"direction": direction, "frontier": count, "discovered": count, "edges": touched,
                "frontier_edges": degsum, "input_frontier": nf}

    def finish(self, G, st):
        parents = st.parents
        if self.unset != -1:
            parents = G.xp.where(parents == self.unset, -1, parents)
        return {"depth": st.labels, "parent": parents}


# -- the visit step per (backend, kernels, direction) ---------------------------------

def _cpu_push(G, st):
    from ..backend import cpu_kernels  # noqa: PLC0415

    if st.buffers is None:
        st.buffers = np.empty(G.num_vertices, dtype=G.indices.dtype)
    ids = st.frontier.ids.astype(G.indices.dtype, copy=False)
    k, touched, degsum = cpu_kernels.visit_push(G.indptr, G.indices, ids, st.labels, st.parents,
                                                st.level, st.buffers, st.out_degree)
    new = np.sort(st.buffers[:k])
    st.frontier = Frontier(G.num_vertices, ids=new)
    return int(k), int(touched), int(degsum)


def _cpu_pull(G, st):
    from ..backend import cpu_kernels  # noqa: PLC0415

    cindptr, cindices, _ = G.csc()
    newmask = np.zeros(G.num_vertices, dtype=bool)
    k, touched, degsum = cpu_kernels.visit_pull(cindptr, cindices, st.frontier.mask, st.labels,
                                                st.parents, st.level, newmask, st.out_degree)
    st.frontier = Frontier(G.num_vertices, mask=newmask)
    return int(k), int(touched), int(degsum)


def _gpu_buffers(G, st):
    import cupy as cp  # noqa: PLC0415

    if st.buffers is None:
        n = G.num_vertices
        st.buffers = {
            "out": [cp.empty(n, dtype=G.indices.dtype), cp.empty(n, dtype=G.indices.dtype)],
            "mask": [cp.zeros(n, dtype=cp.uint8), cp.zeros(n, dtype=cp.uint8)],
            "turn": 0,
        }
        st.counters = cp.zeros(4, dtype=cp.uint64)
    return st.buffers


def _gpu_push(G, st):
    from ..backend import gpu_kernels  # noqa: PLC0415

    buf = _gpu_buffers(G, st)
    buf["turn"] ^= 1
    out = buf["out"][buf["turn"]]
    st.counters.fill(0)
    ids = st.frontier.ids.astype(G.indices.dtype, copy=False)
    gpu_kernels.visit_push(G.indptr, G.indices, ids, st.m_f, st.labels, st.parents, st.level, out,
                           st.counters)
    count, degsum, _, _ = (int(x) for x in st.counters.get())
    st.frontier = Frontier(G.num_vertices, ids=out[:count])
    return count, st.m_f, degsum


def _gpu_pull(G, st):
    from ..backend import gpu_kernels  # noqa: PLC0415

    buf = _gpu_buffers(G, st)
    cindptr, cindices, _ = G.csc()
    fmask = st.frontier.mask
    if fmask.dtype != np.uint8:
        fmask = fmask.view(np.uint8)
    buf["turn"] ^= 1
    newmask = buf["mask"][buf["turn"]]
    newmask.fill(0)
    st.counters.fill(0)
    gpu_kernels.visit_pull(cindptr, cindices, fmask, G.indptr, st.labels, st.parents, st.level,
                           newmask, st.counters)
    count, degsum, _, scanned = (int(x) for x in st.counters.get())
    st.frontier = Frontier(G.num_vertices, mask=newmask.view(bool))
    return count, scanned, degsum


def _generic_push(G, st):
    """Advance over out-edges, filter visited targets, smallest parent by scatter-min."""
    xp = G.xp
    labels = st.labels
    edges = advance_push(G, st.frontier, lambda s, d, e: labels[d] < 0)
    touched = int((G.indptr[st.frontier.ids + 1] - G.indptr[st.frontier.ids]).sum())
    new = xp.unique(edges.dst)
    best = xp.full(len(new), np.iinfo(np.int64).max, dtype=np.int64)
    scatter_min(best, xp.searchsorted(new, edges.dst), edges.src.astype(np.int64))
    labels[new] = st.level
    st.parents[new] = best.astype(st.parents.dtype)
    st.frontier = Frontier(G.num_vertices, ids=new)
    return len(new), touched, int(st.out_degree[new].sum())


def _generic_pull(G, st):
    """Advance over in-edges of unvisited vertices against the frontier bitmap, first hit each."""
    unvisited = Frontier(G.num_vertices, mask=st.labels < 0)
    cindptr = G.csc()[0]
    cand = unvisited.ids
    touched = int((cindptr[cand + 1] - cindptr[cand]).sum())
    edges = advance_pull(G, st.frontier, unvisited)
    st.labels[edges.dst] = st.level
    st.parents[edges.dst] = edges.src
    st.frontier = Frontier(G.num_vertices, ids=edges.dst)
    return len(edges), touched, int(st.out_degree[edges.dst].sum())


_VISITS = {
    ("numpy", "fused", "push"): _cpu_push,
    ("numpy", "fused", "pull"): _cpu_pull,
    ("cupy", "fused", "push"): _gpu_push,
    ("cupy", "fused", "pull"): _gpu_pull,
}
for _b in ("numpy", "cupy"):
    _VISITS[(_b, "generic", "push")] = _generic_push
    _VISITS[(_b, "generic", "pull")] = _generic_pull


def resolve_graph(G, backend):
    """The graph on the requested backend (None keeps the graph's own)."""
    from ..graph import Graph  # noqa: PLC0415

    if not isinstance(G, Graph):
        raise InputError(f"expected a dgraph.Graph, got {type(G).__name__}")
    if backend is None:
        return G
    get_xp(backend)  # raises BackendError with the reason when unusable
    return G.to(backend)


def bfs(G, source, *, direction="auto", backend=None, executor="local", alpha=15.0, beta=18.0,
        kernels="fused", on_step=None):
    """Breadth-first search from ``source`` (a user vertex id).

    Returns a :class:`~dgraph.engine.result.Result` with columns ``depth``
    (hops from the source, -1 when unreachable) and ``parent`` (the
    smallest-id neighbor one level up; the source is its own parent; -1
    when unreachable), in the user's vertex ids.

    direction : 'auto' (Beamer's direction-optimizing switch, tuned by
        ``alpha`` and ``beta``), 'push' (top-down) or 'pull' (bottom-up).
    backend : 'numpy' or 'cupy'; None uses the graph's own backend.
    kernels : 'fused' (compiled kernels) or 'generic' (composed operators).
    """
    if direction not in DIRECTIONS:
        raise InputError(f"direction={direction!r}: expected one of {', '.join(DIRECTIONS)}")
    if kernels not in ("fused", "generic"):
        raise InputError(f"kernels={kernels!r}: expected 'fused' or 'generic'")
    if executor != "local":
        raise InputError(f"executor={executor!r}: only 'local' runs on an unpartitioned Graph")
    G = resolve_graph(G, backend)
    src = G.ids.to_internal(source, what="source")
    program = BFS(src, direction=direction, alpha=alpha, beta=beta, kernels=kernels)
    sync = None
    if G.backend == "cupy":
        sync = G.xp.cuda.get_current_stream().synchronize
    import time  # noqa: PLC0415

    t0 = time.perf_counter()
    (cols,), records = run_local(program, [G], on_step=on_step, sync=sync)
    if sync is not None:
        sync()
    elapsed = time.perf_counter() - t0
    return Result("bfs", G.ids, cols, vertex_columns=("parent",), missing={"depth": -1, "parent": -1},
                  stats=records, params={"source": source, "direction": direction},
                  backend=G.backend, run_time=elapsed)


__all__ = ["bfs", "BFS", "to_numpy"]
