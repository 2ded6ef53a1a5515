"""Shard: the part of a graph that one worker holds and computes on.

A shard owns a set of vertices (its *rows*) and holds their out-edges (CSR
over local rows, targets as global ids) and, for a directed graph, their
in-edges (CSC over local rows, sources as global ids), on the worker's
backend (numpy or CuPy).  Per-vertex state that traversals read for any
vertex (the out-degree) is replicated: a traversal's visited/depth arrays
are global on every shard, as in ButterFly BFS, so a frontier exchange is
an all-gather of what each shard discovered.

Local row ``r`` is global vertex ``rows[r]``; for a contiguous range
(``range`` partitions and the whole graph) ``rows`` is empty and the vertex
is ``row_base + r``.
"""

from __future__ import annotations

import numpy as np

from ..backend import array_module, backend_name, get_xp, to_backend
from ..backend.primitives import expand


class Shard:
    def __init__(self, *, part, num_parts, num_vertices, directed, indptr, indices, weights=None,
                 row_base=0, rows=None, csc=None, degree=None, layout=None):
        self.part = int(part)
        self.num_parts = int(num_parts)
        self.n = int(num_vertices)
        self.directed = bool(directed)
        self.indptr, self.indices, self.weights = indptr, indices, weights
        self.row_base = int(row_base)
        xp = array_module(indptr)
        self.rows = rows if rows is not None else xp.empty(0, dtype=indices.dtype)
        self._csc = csc
        self._graph = None  # the Graph a whole-graph shard views (its CSC edge ids and degrees built on demand)
        self._degree = degree
        self._local_of = None
        # where every partition's owned vertices sit: (bounds, order), see plan_layout
        self.layout = layout if layout is not None else (np.array([0, self.n], dtype=np.int64), None)

    # -- what this shard owns -------------------------------------------------------
    @property
    def xp(self):
        return array_module(self.indptr)

    @property
    def backend(self):
        return backend_name(self.xp)

    @property
    def num_rows(self) -> int:
        return len(self.indptr) - 1

    @property
    def contiguous(self) -> bool:
        return len(self.rows) == 0

    def range_bounds(self):
        """Every partition's vertex range as p + 1 offsets, where the shards are ranges; else None."""
        bounds, order = self.layout
        return bounds if (order is None and len(bounds) == self.num_parts + 1) else None

    @property
    def num_arcs(self) -> int:
        """The arcs this shard holds, read once (on CuPy a read is a sync; the executors ask each task)."""
        if getattr(self, "_num_arcs", None) is None:
            self._num_arcs = int(self.indptr[-1])
        return self._num_arcs

    @property
    def whole(self) -> bool:
        """The only shard, holding every vertex as its rows in order (local row = vertex id): what the
        one-shard fast paths (``Program.run_steps``) need."""
        return self.num_parts == 1 and self.contiguous and self.row_base == 0 and self.num_rows == self.n

    @property
    def degree(self):
        """The out-degree of every vertex of the graph (replicated on every shard).  A whole-graph
        shard (:func:`whole_graph_shard`) makes it from its graph's CSR on first use: a run that never
        reads it (BFS's CPU level loop) does not pay the pass, some 1 ms a million vertices."""
        if self._degree is None and self._graph is not None:
            self._degree = _whole_degree(self._graph)
        return self._degree

    def out_degree_of(self, v) -> int:
        """Vertex ``v``'s out-degree (a global id): off the CSR on a whole shard whose degree array
        is not made yet (:attr:`degree`), without making it."""
        if self._degree is None and self.whole:
            return int(self.indptr[v + 1] - self.indptr[v])
        return int(self.degree[v])

    def degree_sum(self) -> int:
        """The sum of the replicated degree array (the graph's arcs), read from the device once."""
        if getattr(self, "_degree_sum", None) is None:
            self._degree_sum = int(self.degree.sum())
        return self._degree_sum

    def global_rows(self):
        """Global ids of the owned vertices, in local row order."""
        if self.contiguous:
            return self.xp.arange(self.row_base, self.row_base + self.num_rows, dtype=self.indices.dtype)
        return self.rows

    def local_rows(self, vertices):
        """Local rows of the owned vertices among ``vertices`` (global ids), in their order."""
        if self.contiguous:
            sel = vertices[(vertices >= self.row_base) & (vertices < self.row_base + self.num_rows)]
            return (sel - self.row_base).astype(self.indices.dtype, copy=False)
        loc = self.local_of()[vertices]
        return loc[loc >= 0].astype(self.indices.dtype, copy=False)

    def local_of(self):
        """The global id -> local row map (int64, -1 for another shard's vertex), made once: for a
        shard whose rows are not a vertex range."""
        if self._local_of is None:
            xp = self.xp
            lo = xp.full(self.n, -1, dtype=np.int64)
            lo[self.rows] = xp.arange(len(self.rows), dtype=np.int64)
            self._local_of = lo
        return self._local_of

    def part_vertices(self, q):
        """Global ids owned by partition ``q`` (a slice object when the plan is ranges)."""
        bounds, order = self.layout
        a, b = int(bounds[q]), int(bounds[q + 1])
        return slice(a, b) if order is None else order[a:b]

    def gather_owned(self, target, contributions, name):
        """target[vertices of q] = what partition q sent as ``name``, for every q: an all-gather of
        owned slices into a replicated per-vertex array."""
        return self.place_owned(target, [c.arrays[name] for c in contributions])

    def place_owned(self, target, parts):
        """target[vertices of q] = ``parts[q]`` (partition q's values for its own vertices, on any
        backend), for every q; -> target."""
        xp = self.xp
        for q, part in enumerate(parts):
            target[self.part_vertices(q)] = to_backend(part, xp)
        return target

    def csc(self, edge_ids=True):
        """In-edges of the owned vertices: ``(indptr, sources, edge ids)`` (edge ids None for an
        undirected graph, or with ``edge_ids=False``)."""
        if not self.directed:
            return self.indptr, self.indices, None
        if edge_ids and self._csc[2] is None and self._graph is not None:  # the whole graph's, built on demand
            self._csc = self._graph.csc()
        return self._csc if edge_ids else (self._csc[0], self._csc[1], None)

    def __getstate__(self):
        """A pickled Shard (Dask moving or spilling it) leaves its cache behind (see :meth:`cached`):
        it is made again where the shard lands, and some of it (peer memory mapped from other
        processes) means nothing there."""
        state = dict(self.__dict__)
        state.pop("_shard_cache", None)
        return state

    def cached(self, key, build):
        """What ``build()`` makes from this shard's graph, built once and kept under ``key`` (None for
        ``build``: only look it up).  Kept on the Graph a whole-graph shard views (:meth:`Graph.memo`),
        or on a partition's Shard (which stays on its worker between runs), so per-graph indexes (EMV
        layouts, PageRank's split in-edges) are built once per graph, like its CSC."""
        if self._graph is not None:
            return self._graph.memo(key, build)
        cache = self.__dict__.setdefault("_shard_cache", {})
        if key not in cache and build is not None:
            cache[key] = build()
        return cache.get(key)

    def nbytes(self) -> int:
        arrays = [self.indptr, self.indices, self.weights, self.rows, self._degree]  # as made so far
        if self.directed and self._csc is not None:
            arrays += [a for a in self._csc if a is not None]
        return int(sum(a.nbytes for a in arrays if a is not None))

    def to(self, backend):
        """This shard on another backend (workers with GPUs move their shard to CuPy)."""
        xp = get_xp(backend)
        if xp is self.xp:
            return self
        if backend_name(xp) == "cupy":
            from ..backend.device_memory import require  # noqa: PLC0415

            require(self.nbytes(), f"partition {self.part} of {self.num_parts} ({self.num_arcs:,} arcs)")
        mv = lambda a: to_backend(a, xp)  # noqa: E731
        csc = None if self._csc is None else tuple(mv(a) for a in self._csc)
        layout = (self.layout[0], mv(self.layout[1]))
        return Shard(part=self.part, num_parts=self.num_parts, num_vertices=self.n, directed=self.directed,
                     indptr=mv(self.indptr), indices=mv(self.indices), weights=mv(self.weights),
                     row_base=self.row_base, rows=mv(self.rows), csc=csc, degree=mv(self.degree), layout=layout)

    def __repr__(self):
        own = (f"rows {self.row_base}..{self.row_base + self.num_rows - 1}" if self.contiguous
               else f"{self.num_rows:,} rows")
        return (f"<Shard {self.part}/{self.num_parts}: {own}, {self.num_arcs:,} arcs, "
                f"{self.nbytes() / 2**20:.1f} MiB, {self.backend}>")


def plan_layout(plan, xp=np):
    """``(bounds, order)``: partition q owns ``order[bounds[q]:bounds[q+1]]`` (order None: ranges)."""
    if plan.contiguous:
        return np.asarray(plan.bounds, dtype=np.int64), None
    sizes = np.asarray(plan.sizes(), dtype=np.int64)
    bounds = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    order = np.concatenate([plan.vertices_of(q) for q in range(plan.num_parts)])
    return bounds, xp.asarray(order)


def _whole_degree(G):
    """``G.out_degree()``, kept on a numpy Graph (immutable) for its next whole-graph shard: a run on
    a big graph otherwise spends a millisecond a million vertices making it again.  Shards only read
    their ``degree`` (it is not flagged read-only: numba would compile every kernel taking it again
    for that type).  A CuPy graph's is made each time (a device kernel; its memory stays free
    between runs)."""
    if G.xp is not np:
        return G.out_degree()
    return G.memo("out_degree", G.out_degree)


def whole_graph_shard(G):
    """The whole graph as one shard (what the local executor runs on with one partition); its
    :attr:`Shard.degree` is made on first use."""
    csc = G.csc(edge_ids=G._csc is not None and G._csc[2] is not None) if G.directed else None
    shard = Shard(part=0, num_parts=1, num_vertices=G.num_vertices, directed=G.directed, indptr=G.indptr,
                  indices=G.indices, weights=G.weights, csc=csc)
    shard._graph = G  # its degree array is made from G on first use (Shard.degree, _whole_degree)
    return shard


def _slice_rows(indptr, indices, weights, rows, lo, hi):
    """CSR of a row subset: a contiguous range [lo, hi) or an explicit sorted row list."""
    xp = array_module(indptr)
    if rows is None:
        a, b = int(indptr[lo]), int(indptr[hi])
        sub = indptr[lo:hi + 1] - a
        return sub, indices[a:b].copy(), None if weights is None else weights[a:b].copy(), slice(a, b)
    seg, eid = expand(indptr, rows)
    deg = indptr[rows + 1] - indptr[rows]
    sub = xp.zeros(len(rows) + 1, dtype=np.int64)
    xp.cumsum(deg, out=sub[1:])
    return sub, indices[eid], None if weights is None else weights[eid], eid


def shard_from_graph(G, plan, q):
    """Shard ``q`` of ``plan`` cut out of a whole Graph (the client-side path)."""
    xp = G.xp
    if plan.contiguous:
        lo, hi = int(plan.bounds[q]), int(plan.bounds[q + 1])
        rows = None
    else:
        rows = xp.asarray(plan.vertices_of(q)).astype(G.indices.dtype)
        lo = hi = 0
    indptr, indices, weights, _ = _slice_rows(G.indptr, G.indices, G.weights, rows, lo, hi)
    csc = None
    if G.directed:
        cindptr, cindices, ceids = G.csc()
        cp_, ci, _, sel = _slice_rows(cindptr, cindices, None, rows, lo, hi)
        ce = ceids[sel]
        csc = (cp_, ci, ce)
    return Shard(part=q, num_parts=plan.num_parts, num_vertices=G.num_vertices, directed=G.directed,
                 indptr=indptr, indices=indices, weights=weights, row_base=lo,
                 rows=None if rows is None else rows, csc=csc, degree=G.out_degree(), layout=plan_layout(plan, xp))
