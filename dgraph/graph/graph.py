"""Graph: a CSR adjacency (plus CSC on demand), optional weights, and the vertex id map.

A Graph is immutable: cleaning steps (``symmetrize``, ``drop_self_loops``)
return a new Graph.  Its arrays live on one backend (numpy or CuPy);
``to("cupy")`` gives a device copy, cached so repeated runs copy once.
"""

from __future__ import annotations

import numpy as np

from ..backend import array_module, backend_name, get_xp, to_backend, to_numpy
from ..backend.primitives import row_ids
from .csc import build_csc
from .ids import VertexIds


class Graph:
    """A directed or undirected graph in CSR form.

    Attributes
    ----------
    indptr : int64 array, length n+1: row offsets of the out-edges.
    indices : int32 (int64 past 2**31 vertices) array of targets, sorted per row.
    weights : edge weights aligned with ``indices``, or None.
    directed : an undirected graph stores each edge in both directions.
    ids : :class:`~dgraph.graph.ids.VertexIds`, the user's ids of the vertices.
    """

    def __init__(self, indptr, indices, weights=None, *, directed=False, ids=None, name=None):
        self.indptr = indptr
        self.indices = indices
        self.weights = weights
        self.directed = bool(directed)
        self.ids = ids if ids is not None else VertexIds(len(indptr) - 1)
        self.name = name
        self._csc = None
        self._copies = {}
        self._cache = {}

    # -- sizes ---------------------------------------------------------------
    @property
    def xp(self):
        return array_module(self.indptr)

    @property
    def backend(self) -> str:
        return backend_name(self.xp)

    @property
    def num_vertices(self) -> int:
        return len(self.indptr) - 1

    @property
    def num_arcs(self) -> int:
        """Stored directed edges (CSR entries): both directions of an undirected edge."""
        return int(self.indptr[-1])

    @property
    def num_self_loops(self) -> int:
        return self.memo("self_loops", lambda: int(self.xp.count_nonzero(row_ids(self.indptr) == self.indices)))

    def __getstate__(self):
        """A pickled Graph leaves its memo behind: what runs built from it (a GPU plan, a layout) is
        made again where it lands, and some of it (device state) does not pickle."""
        state = dict(self.__dict__)
        state["_cache"] = {}
        return state

    def memo(self, key, make):
        """``make()``, made once for this graph and kept under ``key`` (a Graph is immutable): facts
        about its arrays that runs reuse (a whole-graph shard's degrees, whether its rows are simple).
        ``make`` None: only look it up (None when not made yet)."""
        if make is None:
            return self._cache.get(key)
        if key not in self._cache:
            self._cache[key] = make()
        return self._cache[key]

    def known_self_loops(self):
        """:attr:`num_self_loops` if it has been counted already (it is cached), else None: for code
        that can skip a scan of the arcs on a graph known to have no loops, without paying for the count."""
        return self.memo("self_loops", None)

    @property
    def num_edges(self) -> int:
        """Edges as the user sees them: undirected edges are counted once (NetworkX's meaning)."""
        if self.directed:
            return self.num_arcs
        return (self.num_arcs + self.num_self_loops) // 2

    @property
    def weighted(self) -> bool:
        return self.weights is not None

    def out_degree(self):
        return self.indptr[1:] - self.indptr[:-1]

    def in_degree(self):
        if not self.directed:
            return self.out_degree()
        indptr, _, _ = self.csc(edge_ids=False)
        return indptr[1:] - indptr[:-1]

    # -- layouts ---------------------------------------------------------------
    def csc(self, edge_ids=True):
        """In-edges: ``(indptr, indices, edge_ids)``; edge_ids index this graph's CSR arrays
        (``None`` with ``edge_ids=False``: traversals that need no weights keep 4 bytes an arc less).

        Built once and cached (needed by pull advance).  For an undirected
        graph the CSC is the CSR itself.
        """
        if not self.directed:
            return self.indptr, self.indices, None
        if self._csc is None or (edge_ids and self._csc[2] is None):
            xp = self.xp
            n = self.num_vertices
            if xp is not np:
                from ..backend.device_memory import csc_build_bytes, require  # noqa: PLC0415

                require(csc_build_bytes(self.num_arcs, n, edge_ids, self.indices.itemsize),
                        f"the in-edge index (CSC) of graph {self.name or ''} ({self.num_arcs:,} arcs)")
            self._csc = None  # a rebuild (now with edge ids) frees the old index first
            indptr, sources, eids = build_csc(self.indptr, self.indices, n, edge_ids=edge_ids)
            self._csc = (indptr, sources, eids)
        if edge_ids:
            return self._csc
        return self._csc[0], self._csc[1], None

    def coo(self):
        """``(src, dst, weights)`` arrays of the stored edges, in CSR order."""
        return row_ids(self.indptr).astype(self.indices.dtype), self.indices, self.weights

    # -- conversions ---------------------------------------------------------
    def to(self, backend: str) -> "Graph":
        """This graph on another backend ('numpy' or 'cupy'); cached, so it copies once."""
        xp = get_xp(backend)
        if xp is self.xp:
            return self
        name = backend_name(xp)
        if name not in self._copies:
            if name == "cupy":
                from ..backend.device_memory import require  # noqa: PLC0415

                need = sum(a.nbytes for a in (self.indptr, self.indices, self.weights) if a is not None)
                require(need, f"graph {self.name or ''} ({self.num_vertices:,} vertices, {self.num_arcs:,} arcs)")
            g = Graph(to_backend(self.indptr, xp), to_backend(self.indices, xp),
                      to_backend(self.weights, xp), directed=self.directed, ids=self.ids, name=self.name)
            g._copies[self.backend] = self
            self._copies[name] = g
        return self._copies[name]

    def to_scipy(self, fmt="csr"):
        """A scipy.sparse matrix (CSR by default); values are the weights, or 1."""
        import scipy.sparse as sp  # noqa: PLC0415

        n = self.num_vertices
        # copies: the Graph is immutable, and scipy methods edit their arrays in place
        data = to_numpy(self.weights).copy() if self.weighted else np.ones(self.num_arcs, dtype=np.float64)
        m = sp.csr_matrix((data, to_numpy(self.indices).copy(), to_numpy(self.indptr).copy()), shape=(n, n))
        return m.asformat(fmt)

    def to_networkx(self):
        """A networkx (Di)Graph keyed by the user's vertex ids; weights as 'weight'."""
        import networkx as nx  # noqa: PLC0415

        g = nx.DiGraph() if self.directed else nx.Graph()
        labels = self.ids.user_array()
        g.add_nodes_from(labels.tolist())
        src, dst, w = (to_numpy(a) for a in self.coo())
        s, d = labels[src].tolist(), labels[dst].tolist()
        if w is None:
            g.add_edges_from(zip(s, d))
        else:
            g.add_weighted_edges_from(zip(s, d, w.tolist()))
        return g

    def edges(self):
        """``(src, dst, weights)`` in user ids, each undirected edge once; numpy arrays."""
        src, dst, w = (to_numpy(a) for a in self.coo())
        if not self.directed:
            keep = src <= dst
            src, dst = src[keep], dst[keep]
            w = None if w is None else w[keep]
        return self.ids.to_user(src), self.ids.to_user(dst), w

    # -- derived graphs -------------------------------------------------------
    def _rebuild(self, directed=None, self_loops=True):
        from .build import build_csr  # noqa: PLC0415

        src, dst, w = self.coo()
        directed = self.directed if directed is None else directed
        indptr, indices, w = build_csr(self.xp, self.num_vertices, src, dst, w, directed=directed,
                                       self_loops=self_loops)
        return Graph(indptr, indices, w, directed=directed, ids=self.ids, name=self.name)

    def symmetrize(self) -> "Graph":
        """The undirected graph with an edge wherever either direction had one (min weight)."""
        return self if not self.directed else self._rebuild(directed=False)

    def drop_self_loops(self) -> "Graph":
        if self.num_self_loops == 0:
            return self
        g = self._rebuild(self_loops=False)
        g._cache["self_loops"] = 0
        return g

    def subgraph(self, vertices, name=None):
        """The subgraph induced by ``vertices`` (user ids, or a boolean mask over ``self.vertex_ids()``
        order): the kept vertices with their ids and weights, and every edge between them."""
        from .subgraph import induced_subgraph  # noqa: PLC0415

        return induced_subgraph(self, vertices, name=name)

    def partition(self, num_parts, method="range", *, client=None, backend=None, seed=0, plan=None):
        """Split into ``num_parts`` shards: a :class:`~dgraph.partition.partitioned.PartitionedGraph`.

        method : 'range' (consecutive vertices, equal edge counts), 'hash' or
            'metis' (pymetis, on the symmetrized graph); or give ``plan=`` (a
            PartitionPlan or the path of one saved with ``plan.save``).
        client : a Dask client (default: the one ``dgraph.cluster.connect`` made,
            if any); ``client=False`` keeps the shards in this process.
        backend : 'numpy' or 'cupy' for the shards (default: this graph's).
        """
        from ..partition.partitioned import partition_graph  # noqa: PLC0415

        return partition_graph(self, num_parts, method, client=client, backend=backend, seed=seed, plan=plan)

    def vertex_ids(self):
        """The user's ids of all vertices, in internal order (numpy)."""
        return self.ids.user_array()

    # -- display -----------------------------------------------------------------
    def summary(self) -> dict:
        deg = to_numpy(self.out_degree())
        return {
            "name": self.name,
            "directed": self.directed,
            "weighted": self.weighted,
            "vertices": self.num_vertices,
            "edges": self.num_edges,
            "arcs": self.num_arcs,
            "self_loops": self.num_self_loops,
            "max_out_degree": int(deg.max()) if len(deg) else 0,
            "mean_out_degree": float(deg.mean()) if len(deg) else 0.0,
            "isolated": int(np.count_nonzero(deg == 0)) if not self.directed else
                        int(np.count_nonzero((deg == 0) & (to_numpy(self.in_degree()) == 0))),
            "backend": self.backend,
            "ids": self.ids.describe(),
        }

    #: above this many stored arcs the notebook view skips counts that scan the edges (self loops,
    #: isolated vertices of a directed graph) unless already known
    _REPR_SCAN_ARCS = 200_000_000

    def _id_kind(self) -> str:
        if self.ids.identity:
            return "integers 0..n-1"
        kind = "integers" if self.ids.is_integer else "strings"
        return f"{kind}, renumbered"

    def _repr_html_(self):
        from ..display import fmt_int, fmt_num, html_block, html_fields, html_note  # noqa: PLC0415

        n, xp = self.num_vertices, self.xp
        scan = self.num_arcs <= self._REPR_SCAN_ARCS
        fields = [("vertices", fmt_int(n)),
                  ("edges", fmt_int(self.num_edges) + ("" if self.directed else f" ({self.num_arcs:,} arcs stored)")),
                  ("directed", self.directed),
                  ("weighted", self.weighted if not self.weighted else f"True ({self.weights.dtype})"),
                  ("backend", self.backend),
                  ("vertex ids", self._id_kind())]
        if n:
            first = self.ids.user_array()[:5]
            fields.append(("first ids", ", ".join(repr(v.item() if hasattr(v, "item") else v) for v in first)
                           + (", …" if n > len(first) else "")))
            deg = self.out_degree()
            fields.append(("out-degree", f"min {fmt_int(deg.min())}, mean {fmt_num(float(deg.mean()), 3)}, "
                                         f"max {fmt_int(deg.max())}"))
            if scan or "isolated" in self._cache:
                if "isolated" not in self._cache:
                    touched = deg > 0
                    if self.directed and len(self.indices):
                        touched[self.indices] = True  # a target has an in-edge
                    self._cache["isolated"] = n - int(xp.count_nonzero(touched))
                fields.append(("isolated vertices", fmt_int(self._cache["isolated"])))
        if scan or "self_loops" in self._cache:
            fields.append(("self loops", fmt_int(self.num_self_loops)))
        note = "" if scan else html_note(f"self loops / isolated vertices not counted (over "
                                         f"{self._REPR_SCAN_ARCS:,} arcs)")
        return html_block("dgraph.Graph", repr(self.name) if self.name else "", html_fields(fields), note)

    def __repr__(self):
        kind = "directed" if self.directed else "undirected"
        w = ", weighted" if self.weighted else ""
        nm = f"{self.name!r}, " if self.name else ""
        return (f"<dgraph.Graph {nm}{kind}{w}: {self.num_vertices:,} vertices, "
                f"{self.num_edges:,} edges, {self.backend}>")
