"""The NetworkX backend interface of dgraph: graph conversion, ``can_run`` and the dispatched functions.

NetworkX (>= 3.2) finds :class:`BackendInterface` through the
``networkx.backends`` entry point ``dgraph``.  A call such as
``nx.pagerank(G, backend="dgraph")`` then goes:

1. ``BackendInterface.can_run(name, args, kwargs)`` with the caller's
   arguments (``G`` still the NetworkX graph).  It returns True, or a string
   saying why dgraph cannot give NetworkX's answer (an option dgraph lacks,
   edge weights it cannot use, a multigraph where parallel edges matter).
   With ``backend="dgraph"`` NetworkX then raises NotImplementedError; with
   ``nx.config.backend_priority.algos = ["dgraph"]`` it runs its own code.
2. ``convert_from_nx``: the graph as an :class:`NXGraph` (cached by NetworkX
   in ``G.__networkx_cache__`` until ``G`` is changed through its methods).
3. The function of the same name below, which returns what NetworkX returns:
   the same containers (dict in node order, generator of sets, generator of
   edges), the same number types (Python int / float) and the same
   exceptions for bad input (NodeNotFound, NetworkXError, ValueError,
   PowerIterationFailedConvergence, ZeroDivisionError).

Node ids: the NetworkX nodes are numbered 0..n-1 in ``list(G)`` order and
the dgraph Graph is built on those numbers, so every hashable node works
(ints, strings, tuples, mixes); results are mapped back to the node objects.
"""

from __future__ import annotations

import inspect
import math
import numbers
import weakref
from collections.abc import Mapping
from itertools import chain

import networkx as nx
import numpy as np

import dgraph

#: integer path sums are exact in float64 while all weights together stay below this
_EXACT_SUM = 2.0 ** 52
#: weight types whose NetworkX sums equal dgraph's float64 sums
_NUMBER_TYPES = (int, float, np.integer, np.float64)


# -- the converted graph ------------------------------------------------------------------------

class NXGraph:
    """A NetworkX graph converted for dgraph; node ``i`` is ``nodes[i]`` (``list(G)`` order).

    It keeps the adjacency in NetworkX's neighbor order (a CSR ``indptr`` /
    ``indices`` over node numbers; successors for a directed graph), which is
    what :func:`bfs_edges` needs to give NetworkX's BFS order, and, when the
    dispatched function names an edge attribute, that attribute's values
    aligned with ``indices`` (``default`` where an edge lacks it; the minimum
    over parallel edges of a multigraph, as NetworkX's shortest paths take).
    A multigraph also keeps, per adjacency entry, the number of parallel
    edges and the sum of their attribute values: what NetworkX's adjacency
    matrix holds (``to_scipy_sparse_array`` adds parallel edges up), which
    PageRank and HITS read.
    The dgraph Graphs are built from it on first use and kept.
    """

    __networkx_backend__ = "dgraph"

    def __init__(self, nodes, indptr, indices, *, directed, multigraph, weight_attr=None, weight_values=None,
                 graph_attrs=None, index=None, counts=None, sum_values=None):
        self.nodes = nodes
        self.index = index if index is not None else dict(zip(nodes, range(len(nodes))))
        self.indptr = indptr
        self.indices = indices
        self.directed = bool(directed)
        self.multigraph = bool(multigraph)
        self.graph = dict(graph_attrs or {})
        self.weight_attr = weight_attr
        self.weights = None          # float64 aligned with indices, when the values are usable
        self.weights_int = False     # every value an integer (NetworkX sums stay ints)
        self.weights_one = False     # every value equal to 1
        self.weight_problem = None   # why the values cannot be used, or None
        if weight_attr is not None:
            self.weights, self.weights_int, self.weights_one, self.weight_problem = _classify_weights(
                weight_values, weight_attr)
        # a multigraph's parallel edges per adjacency entry, and the sums of their values (simple graphs:
        # None, the values above are the sums)
        self.counts = counts
        self.sums, self.sum_problem = None, None
        if weight_attr is not None and sum_values is not None:
            self.sums, _, _, self.sum_problem = _classify_weights(sum_values, weight_attr)
        self._dgraph = {}
        self.source = lambda: None   # the NetworkX graph converted (a weak reference), for k_core's copy

    @classmethod
    def from_networkx(cls, G, weight_attr=None, default=1, preserve_graph_attrs=False):
        nodes = list(G)
        index = dict(zip(nodes, range(len(nodes))))
        adj = G._adj if hasattr(G, "_adj") else G.adj
        rows = list(map(adj.__getitem__, nodes))
        counts = np.fromiter(map(len, rows), dtype=np.int64, count=len(rows))
        indptr = np.zeros(len(nodes) + 1, dtype=np.int64)
        np.cumsum(counts, out=indptr[1:])
        m = int(indptr[-1])
        indices = _node_numbers(nodes, index, rows, m)
        values = sums = counts = None
        if G.is_multigraph():
            counts = np.fromiter((len(keydict) for nbrs in rows for keydict in nbrs.values()), dtype=np.int64,
                                 count=m)
        if weight_attr is not None:
            if G.is_multigraph():
                values, sums = [], []
                for nbrs in rows:
                    for keydict in nbrs.values():
                        parallel = [d.get(weight_attr, default) for d in keydict.values()]
                        try:
                            values.append(min(parallel))
                        except TypeError:  # incomparable values: _classify_weights names the problem
                            values.append(parallel[0])
                        bad = [x for x in parallel if not isinstance(x, _NUMBER_TYPES) or isinstance(x, bool)]
                        sums.append(bad[0] if bad else sum(parallel))
            else:
                values = [d.get(weight_attr, default) for nbrs in rows for d in nbrs.values()]
        out = cls(nodes, indptr, indices, directed=G.is_directed(), multigraph=G.is_multigraph(),
                  weight_attr=weight_attr, weight_values=values, index=index,
                  graph_attrs=G.graph if preserve_graph_attrs else None, counts=counts, sum_values=sums)
        try:
            out.source = weakref.ref(G)
        except TypeError:  # a graph class without weak references: k_core copies to_networkx()
            pass
        return out

    # the bits of the nx.Graph API that NetworkX's dispatcher and our functions use
    def is_directed(self):
        return self.directed

    def is_multigraph(self):
        return self.multigraph

    def __len__(self):
        return len(self.nodes)

    def __contains__(self, node):
        try:
            return node in self.index
        except TypeError:
            return False

    @property
    def n(self):
        return len(self.nodes)

    def to_dgraph(self, weighted=False):
        """The dgraph Graph on node numbers 0..n-1 (weighted: with this graph's weight values)."""
        key = bool(weighted)
        if key not in self._dgraph:
            n = self.n
            src = np.repeat(np.arange(n, dtype=np.int64), np.diff(self.indptr))
            dst = self.indices
            w = None
            if weighted:
                if self.weights is None:
                    raise NotImplementedError(self.weight_problem or "the graph was converted without weights")
                w = self.weights
            if not self.directed:  # the adjacency holds both directions: keep each edge once
                keep = src <= dst
                src, dst = src[keep], dst[keep]
                w = None if w is None else w[keep]
            self._dgraph[key] = dgraph.from_edges(src, dst, w, directed=self.directed, num_vertices=n)
        return self._dgraph[key]

    def adjacency_graph(self, weight):
        """``(dgraph Graph, weighted)``: NetworkX's adjacency matrix (``to_scipy_sparse_array(G,
        weight=weight)``) as a dgraph Graph: a multigraph's parallel edges added up (their ``weight``
        values, or their number when ``weight`` is None); weighted False where every entry is 1."""
        if not self.multigraph:
            ones = weight is None or (self.weight_attr == weight and self.weights_one)
            return (self.to_dgraph(), False) if ones else (self.to_dgraph(weighted=True), True)
        if weight is not None and (self.weight_attr != weight or self.sums is None):
            raise NotImplementedError(self.sum_problem or self.weight_problem
                                      or f"no usable edge attribute {weight!r}")
        key = ("sums", weight is not None)
        if key not in self._dgraph:
            n = self.n
            src = np.repeat(np.arange(n, dtype=np.int64), np.diff(self.indptr))
            dst = self.indices
            w = self.sums if weight is not None else self.counts.astype(np.float64)
            if not self.directed:
                keep = src <= dst
                src, dst, w = src[keep], dst[keep], w[keep]
            self._dgraph[key] = dgraph.from_edges(src, dst, w, directed=self.directed, num_vertices=n)
        return self._dgraph[key], True

    def to_networkx(self):
        cls = {(False, False): nx.Graph, (True, False): nx.DiGraph,
               (False, True): nx.MultiGraph, (True, True): nx.MultiDiGraph}[(self.directed, self.multigraph)]
        H = cls()
        H.graph.update(self.graph)
        H.add_nodes_from(self.nodes)
        src = np.repeat(np.arange(self.n), np.diff(self.indptr))
        for e, (i, j) in enumerate(zip(src.tolist(), self.indices.tolist())):
            if not self.directed and j < i:
                continue
            if self.weights is not None:
                H.add_edge(self.nodes[i], self.nodes[j], **{self.weight_attr: self.weights[e].item()})
            else:
                H.add_edge(self.nodes[i], self.nodes[j])
        return H

    def __repr__(self):
        kind = ("Multi" if self.multigraph else "") + ("DiGraph" if self.directed else "Graph")
        return f"<dgraph.nx_backend.NXGraph ({kind}): {self.n} nodes, {len(self.indices)} adjacency entries>"


def _node_numbers(nodes, index, rows, m):
    """The node numbers of the adjacency entries (neighbor dicts ``rows``): vectorized for int nodes."""
    n = len(nodes)
    if n and all(type(v) is int for v in nodes):
        try:
            labels = np.array(nodes, dtype=np.int64)
            ends = np.fromiter(chain.from_iterable(rows), dtype=np.int64, count=m)
        except (OverflowError, TypeError, ValueError):  # ints past int64: the generic path
            pass
        else:
            if labels[0] == 0 and labels[-1] == n - 1 and np.array_equal(labels, np.arange(n)):
                return ends
            lo, hi = int(labels.min()), int(labels.max())
            if hi - lo <= 4 * n + 1024:  # dense enough for a lookup table
                table = np.empty(hi - lo + 1, dtype=np.int64)
                table[labels - lo] = np.arange(n, dtype=np.int64)
                return table[ends - lo]
            sorter = np.argsort(labels, kind="stable")
            return sorter[np.searchsorted(labels[sorter], ends)]
    return np.fromiter(map(index.__getitem__, chain.from_iterable(rows)), dtype=np.int64, count=m)


def _classify_weights(values, attr):
    """``(float64 array or None, all ints, all ones, problem or None)`` for edge weight values."""
    types = set(map(type, values))
    bad = sorted(t.__name__ for t in types
                 if not issubclass(t, _NUMBER_TYPES) or issubclass(t, (bool, np.bool_)))
    if bad:
        return None, False, False, (f"edge attribute {attr!r} holds values of type {', '.join(bad)}; "
                                    f"dgraph takes int and float weights")
    arr = np.fromiter(values, dtype=np.float64, count=len(values))
    all_int = all(issubclass(t, (int, np.integer)) for t in types)
    all_one = bool(np.all(arr == 1))
    if not np.all(np.isfinite(arr)):
        return None, all_int, False, f"edge attribute {attr!r} holds nan or inf"
    if (arr < 0).any():
        return None, all_int, False, f"edge attribute {attr!r} holds negative values"
    if all_int and float(arr.sum()) >= _EXACT_SUM:
        return None, all_int, all_one, f"integer weights {attr!r} too large for exact float64 path sums"
    return arr, all_int, all_one, None


def _weights_of(G, attr):
    """``(usable float64 array or None, all ints, all ones, problem)`` of an nx graph or an NXGraph."""
    if isinstance(G, NXGraph):
        if G.weight_attr != attr:
            return None, False, False, f"the converted graph has no edge attribute {attr!r}"
        return G.weights, G.weights_int, G.weights_one, G.weight_problem or G.sum_problem
    return _classify_weights([d for _, _, d in G.edges(data=attr, default=1)], attr)


# -- NetworkX behaviours reproduced --------------------------------------------------------------

def _index(G, node):
    """The node number of ``node``, or None when it is not in G (unhashable: None, as ``node in G``)."""
    try:
        return G.index.get(node)
    except TypeError:
        return None


def _nbunch(G, nbunch):
    """``list(G.nbunch_iter(nbunch))`` for an nbunch that is not a node: the nodes of G in it, in
    order, with NetworkX's errors for a non-iterable or an unhashable item."""
    out = []
    v = None
    try:
        for v in nbunch:
            if v in G.index:
                out.append(v)
    except TypeError as err:
        exc, message = err, err.args[0] if err.args else ""
        if "iter" in message:
            exc = nx.NetworkXError("nbunch is not a node or a sequence of nodes.")
        if "object is not iterable" in message:
            exc = nx.NetworkXError(f"Node {nbunch} is not in the graph.")
        if "hashable" in message:
            exc = nx.NetworkXError(f"Node {v} in sequence nbunch is not a valid node.")
        raise exc from None
    return out


def _bfs_levels(G, source, depth, depth_limit=None):
    """NetworkX's breadth-first search tree, level by level: ``(parents, children)`` per level.

    NetworkX's generic_bfs_edges scans the parents of a level in their queue
    order and each parent's neighbors in adjacency order; a child belongs to
    the first parent that reaches it.  With the depths (from dgraph.bfs) known,
    a level is one vectorized step: gather the frontier's adjacency in that
    order, keep the entries one level deeper, keep each child's first entry.
    """
    indptr, indices = G.indptr, G.indices
    frontier = np.array([source], dtype=np.int64)
    level = 0
    while len(frontier):
        if depth_limit is not None and level >= depth_limit:
            return
        starts = indptr[frontier]
        counts = indptr[frontier + 1] - starts
        total = int(counts.sum())
        if total == 0:
            return
        before = np.cumsum(counts) - counts
        pos = np.repeat(starts - before, counts) + np.arange(total, dtype=np.int64)
        child = indices[pos]
        keep = depth[child] == level + 1
        if not keep.any():
            return
        child = child[keep]
        parent = np.repeat(frontier, counts)[keep]
        _, first = np.unique(child, return_index=True)
        first.sort()
        frontier = child[first]
        yield parent[first], frontier
        level += 1


def _depths(G, source_index):
    return np.asarray(dgraph.bfs(G.to_dgraph(), source_index).raw("depth"))


def _rescale(betweenness, n, *, normalized, directed, endpoints, sampled_nodes):
    """``networkx.algorithms.centrality.betweenness._rescale`` (NetworkX 3.6), on a numpy array."""
    k = None if sampled_nodes is None else len(sampled_nodes)
    N = n if endpoints else n - 1
    if N < 2:
        return betweenness
    K_source = N if k is None else k
    if k is None or endpoints:
        if normalized:
            scale = 1 / (K_source * (N - 1))
        else:
            scale = N / (K_source * (1 if directed else 2))
        return betweenness * scale if scale != 1 else betweenness
    if normalized:
        scale_source = 1 / ((K_source - 1) * (N - 1)) if K_source > 1 else math.nan
        scale_nonsource = 1 / (K_source * (N - 1))
    else:
        correction = 1 if directed else 2
        scale_source = N / ((K_source - 1) * correction) if K_source > 1 else math.nan
        scale_nonsource = N / (K_source * correction)
    scale = np.full(len(betweenness), scale_nonsource)
    scale[np.asarray(sampled_nodes, dtype=np.int64)] = scale_source
    return betweenness * scale


def _real(x):
    return isinstance(x, numbers.Real) and not isinstance(x, (bool, np.bool_))


def _integer(x):
    return isinstance(x, numbers.Integral) and not isinstance(x, (bool, np.bool_))


# -- can_run rules ------------------------------------------------------------------------------

def _weight_problem(G, weight):
    """Why edge attribute ``weight`` cannot be dgraph's edge weights (None when it can, or when
    ``weight`` is None: every edge 1)."""
    if weight is None:
        return None
    if callable(weight):
        return "a callable weight is not supported"
    return _weights_of(G, weight)[3] or None


def _can_bfs_edges(G, a):
    if a["sort_neighbors"] is not None:
        return "sort_neighbors is not supported"
    if a["reverse"] and G.is_directed():
        return "reverse=True on a directed graph is not supported"
    if a["depth_limit"] is not None and not _integer(a["depth_limit"]):
        return "depth_limit must be an integer or None"
    return True


def _can_shortest_path_length(G, a):
    if a["method"] not in ("dijkstra", "bellman-ford"):
        return True  # the function raises NetworkX's ValueError
    if a["source"] is None:
        return "only single-source lengths (source given, target=None) are supported"
    if a["target"] is not None:
        return "source-target lengths are not supported (only single source, target=None)"
    return _weight_problem(G, a["weight"]) or True


def _vector_problem(G, values, name):
    """Why a {node: value} argument cannot be dgraph's (None when it can): a dict of finite
    non-negative numbers over the nodes, not all zero."""
    if not isinstance(values, Mapping):
        return f"{name} must be a dict"
    nodes = G.nodes if isinstance(G, NXGraph) else G
    got = [values.get(v, 0) for v in nodes]
    if not all(_real(x) and math.isfinite(x) and x >= 0 for x in got):
        return f"{name} values must be finite non-negative numbers"
    if got and not sum(got) > 0:
        return f"{name} values are all zero (NetworkX divides by their sum)"
    return None


def _can_pagerank(G, a):
    if a["nstart"] is not None:
        problem = _vector_problem(G, a["nstart"], "nstart")
        if problem:
            return problem
    if a["dangling"] is not None:
        return "a dangling dict is not supported (dangling mass follows the personalization)"
    alpha, tol, max_iter = a["alpha"], a["tol"], a["max_iter"]
    if not _real(alpha) or not 0.0 <= float(alpha) <= 1.0:
        return "alpha must be a number in [0, 1]"
    if not _real(tol) or not float(tol) > 0:
        return "tol must be a number > 0"
    if not _integer(max_iter) or max_iter < 0:
        return "max_iter must be a non-negative integer"
    p = a["personalization"]
    if p is not None:
        if not isinstance(p, Mapping):
            return "personalization must be a dict"
        nodes = G.nodes if isinstance(G, NXGraph) else G
        values = [p.get(v, 0) for v in nodes]
        if not all(_real(x) and math.isfinite(x) and x >= 0 for x in values):
            return "personalization values must be finite non-negative numbers"
    return _weight_problem(G, a["weight"]) or True


def _can_hits(G, a):
    if a["nstart"] is not None:
        return "nstart is not supported (NetworkX hands it to ARPACK, in the dict's order)"
    max_iter, tol = a["max_iter"], a["tol"]
    if not _integer(max_iter):
        return "max_iter must be an integer"
    if not _real(tol) or not (math.isfinite(tol) and tol > 0):
        return "tol must be a finite number > 0"
    if len(G) == 1:
        return "a graph of one node: NetworkX's ARPACK call refuses it"
    problem = _weights_of(G, "weight")[3]
    if problem:
        return problem
    if len(G) and max_iter > 0 and not _has_positive_edge(G):
        return "no edge of positive weight: NetworkX's ARPACK call fails on it"
    return True


def _has_positive_edge(G):
    """Some edge of G has a positive 'weight' (1 where missing)."""
    if isinstance(G, NXGraph):
        if G.multigraph and G.sums is not None:
            return bool((G.sums > 0).any())
        return bool(len(G.indices)) and (G.weights is None or bool((G.weights > 0).any()))
    return any(d > 0 for _, _, d in G.edges(data="weight", default=1))


def _can_components(G, a):
    return True


def _can_betweenness_centrality(G, a):
    if a["weight"] is not None:
        return "weighted betweenness is not supported (dgraph.bc is unweighted)"
    if a["k"] is not None and not _integer(a["k"]):
        return "k must be an integer or None"
    return True


def _can_louvain_communities(G, a):
    if G.is_multigraph():
        return "multigraphs (parallel edges add up in NetworkX) are not supported"
    if not _real(a["resolution"]) or not math.isfinite(a["resolution"]) or a["resolution"] < 0:
        return "resolution must be a finite number >= 0"
    if not _real(a["threshold"]) or not math.isfinite(a["threshold"]):
        return "threshold must be a finite number"
    if a["max_level"] is not None and not _integer(a["max_level"]):
        return "max_level must be an integer or None"
    return _weight_problem(G, a["weight"]) or True


def _can_triangles(G, a):
    if a["nodes"] is not None and G.is_multigraph():
        return "nodes= on a multigraph is not supported (NetworkX raises)"
    return True


def _can_core_number(G, a):
    return True


def _can_k_core(G, a):
    if a["k"] is not None and not _real(a["k"]):
        return "k must be a number or None"
    if a["core_number"] is not None and not isinstance(a["core_number"], Mapping):
        return "core_number must be a dict or None"
    return True


def _can_jaccard_coefficient(G, a):
    return True


# -- the interface ------------------------------------------------------------------------------

class BackendInterface:
    """What the ``networkx.backends`` entry point ``dgraph`` loads."""

    @staticmethod
    def convert_from_nx(G, edge_attrs=None, node_attrs=None, preserve_edge_attrs=False, preserve_node_attrs=False,
                        preserve_graph_attrs=False, name=None, graph_name=None):
        """A NetworkX graph as an :class:`NXGraph` holding the one edge attribute the function uses."""
        if isinstance(G, NXGraph):
            return G
        attr, default = None, 1
        if isinstance(edge_attrs, Mapping) and edge_attrs:
            attr, default = next(iter(edge_attrs.items()))
        return NXGraph.from_networkx(G, attr, default, preserve_graph_attrs=bool(preserve_graph_attrs))

    @staticmethod
    def convert_to_nx(obj, *, name=None):
        """An :class:`NXGraph` back as a NetworkX graph; anything else (results) as it is."""
        if isinstance(obj, NXGraph):
            return obj.to_networkx()
        return obj

    @staticmethod
    def can_run(name, args, kwargs):
        """True, or why dgraph cannot give NetworkX's answer for these arguments (a string)."""
        rule = _CAN_RUN.get(name)
        if rule is None:
            return False
        try:
            bound = _SIGNATURES[name].bind(*args, **kwargs)
        except TypeError as exc:
            return f"arguments not understood: {exc}"
        bound.apply_defaults()
        G = bound.arguments["G"]
        if not isinstance(G, (nx.Graph, NXGraph)):
            return f"expected a NetworkX graph, got {type(G).__name__}"
        return rule(G, bound.arguments)

    @staticmethod
    def should_run(name, args, kwargs):
        return True

    # -- traversal ----------------------------------------------------------------------------
    @staticmethod
    def bfs_edges(G, source, reverse=False, depth_limit=None, sort_neighbors=None):
        """nx.bfs_edges: the same (parent, child) edges in the same order, as a generator."""
        if sort_neighbors is not None or (reverse and G.directed):
            raise NotImplementedError("sort_neighbors and reverse=True (directed) are not supported")
        return _bfs_edges(G, source, depth_limit)

    # -- shortest paths -------------------------------------------------------------------------
    @staticmethod
    def shortest_path_length(G, source=None, target=None, weight=None, method="dijkstra"):
        """nx.shortest_path_length(G, source[, weight=...]): {node: length} of the reachable nodes."""
        if method not in ("dijkstra", "bellman-ford"):
            raise ValueError(f"method not supported: {method}")
        if source is None or target is not None:
            raise NotImplementedError("only single-source shortest path lengths are supported")
        i = _index(G, source)
        nodes = G.nodes
        if weight is None:
            if i is None:
                raise nx.NodeNotFound(f"Source {source} is not in G")
            depth = _depths(G, i)
            out = {source: 0}
            for _, children in _bfs_levels(G, i, depth):
                d = int(depth[children[0]])
                out.update((nodes[c], d) for c in children.tolist())
            return out
        if callable(weight):
            raise NotImplementedError("a callable weight is not supported")
        if G.weight_attr != weight or G.weights is None:
            raise NotImplementedError(G.weight_problem or f"no usable edge attribute {weight!r}")
        if i is None:
            if method == "dijkstra":
                raise nx.NodeNotFound(f"Node {source} not found in graph")
            raise nx.NodeNotFound(f"Source {source} not in G")
        dist = np.asarray(dgraph.sssp(G.to_dgraph(weighted=True), i).raw("distance"))
        reach = np.flatnonzero(np.isfinite(dist))
        reach = reach[reach != i]
        reach = reach[np.argsort(dist[reach], kind="stable")]   # Dijkstra's order (ties by node order)
        number = int if G.weights_int else float
        out = {source: 0}
        out.update(zip((nodes[v] for v in reach.tolist()), map(number, dist[reach].tolist())))
        return out

    # -- link analysis --------------------------------------------------------------------------
    @staticmethod
    def pagerank(G, alpha=0.85, personalization=None, max_iter=100, tol=1.0e-6, nstart=None, weight="weight",
                 dangling=None):
        """nx.pagerank: {node: float} in node order, summing to 1; raises PowerIterationFailedConvergence.
        Edge weights are transition weights, a multigraph's parallel edges added up (NetworkX's matrix)."""
        if dangling is not None:
            raise NotImplementedError("a dangling dict is not supported")
        n = G.n
        if n == 0:
            return {}
        teleport = None
        if personalization is not None:
            p = np.array([personalization.get(v, 0) for v in G.nodes], dtype=float)
            if p.sum() == 0:
                raise ZeroDivisionError
            if not np.all(np.isfinite(p)) or (p < 0).any():
                raise NotImplementedError("personalization values must be finite and non-negative")
            teleport = p
        start = None
        if nstart is not None:
            problem = _vector_problem(G, nstart, "nstart")
            if problem:
                raise NotImplementedError(problem)
            start = np.array([nstart.get(v, 0) for v in G.nodes], dtype=float)
        graph, weighted = G.adjacency_graph(weight)
        r = dgraph.pagerank(graph, damping=float(alpha), tol=float(tol), max_iterations=int(max_iter),
                            personalization=teleport, nstart=start, weight="weight" if weighted else None)
        steps = r.stats_records
        if not steps or not steps[-1]["delta"] < n * tol:
            raise nx.PowerIterationFailedConvergence(max_iter)
        return dict(zip(G.nodes, np.asarray(r.raw("pagerank"), dtype=np.float64).tolist()))

    @staticmethod
    def hits(G, max_iter=100, tol=1.0e-8, nstart=None, normalized=True):
        """nx.hits: (hubs, authorities), two {node: float} in node order, by NetworkX's power iteration
        (equal to its ARPACK answer wherever that is unique); a multigraph's parallel edges add up."""
        if nstart is not None:
            raise NotImplementedError("nstart is not supported")
        n = G.n
        if n == 0:
            return {}, {}
        if max_iter <= 0:
            raise nx.PowerIterationFailedConvergence(max_iter)
        graph, weighted = G.adjacency_graph("weight" if G.weight_attr == "weight" else None)
        try:
            r = dgraph.hits(graph, iterations=int(max_iter), tol=float(tol), normalized=bool(normalized),
                            weight="weight" if weighted else None)
        except dgraph.ConvergenceError as exc:  # NetworkX's ARPACK may still converge: let it decide
            raise NotImplementedError(f"dgraph's power iteration did not converge: {exc}") from None
        hubs = np.asarray(r.raw("hubs"), dtype=np.float64).tolist()
        auth = np.asarray(r.raw("authorities"), dtype=np.float64).tolist()
        return dict(zip(G.nodes, hubs)), dict(zip(G.nodes, auth))

    # -- components ------------------------------------------------------------------------------
    @staticmethod
    def connected_components(G):
        """nx.connected_components: a generator of sets, in NetworkX's order."""
        if G.directed:
            raise nx.NetworkXNotImplemented("not implemented for directed type")
        return _components(G)

    @staticmethod
    def weakly_connected_components(G):
        """nx.weakly_connected_components: a generator of sets, in NetworkX's order."""
        if not G.directed:
            raise nx.NetworkXNotImplemented("not implemented for undirected type")
        return _components(G)

    @staticmethod
    def strongly_connected_components(G):
        """nx.strongly_connected_components: a generator of sets, in NetworkX's order."""
        if not G.directed:
            raise nx.NetworkXNotImplemented("not implemented for undirected type")
        return _strong_components(G)

    @staticmethod
    def number_strongly_connected_components(G):
        """nx.number_strongly_connected_components: an int."""
        if not G.directed:
            raise nx.NetworkXNotImplemented("not implemented for undirected type")
        return _tarjan(G, want_order=False)[1]

    # -- centrality ------------------------------------------------------------------------------
    @staticmethod
    def betweenness_centrality(G, k=None, normalized=True, weight=None, endpoints=False, seed=None):
        """nx.betweenness_centrality (unweighted): {node: float} for every node."""
        if weight is not None:
            raise NotImplementedError("weighted betweenness is not supported")
        n = G.n
        if k == n:
            k = None
        endpoints = bool(endpoints)
        if k is None:
            if n == 0:
                return {}
            bc = dgraph.bc(G.to_dgraph(), normalized=bool(normalized), endpoints=endpoints).raw("bc")
            return dict(zip(G.nodes, np.asarray(bc, dtype=np.float64).tolist()))
        sampled = seed.sample(list(G.nodes), k)   # NetworkX's own draw, from the same seed object
        sources = [G.index[v] for v in sampled]
        raw = np.asarray(dgraph.bc(G.to_dgraph(), sources=sources, normalized=False, endpoints=endpoints)
                         .raw("bc"), dtype=np.float64)
        N = n if endpoints else n - 1
        if N >= 2 and not G.directed:
            raw = raw * 2.0   # dgraph halved the undirected sums; _rescale applies NetworkX's scaling
        bc = _rescale(raw, n, normalized=normalized, directed=G.directed, endpoints=endpoints,
                      sampled_nodes=sources)
        return dict(zip(G.nodes, bc.tolist()))

    # -- communities -----------------------------------------------------------------------------
    @staticmethod
    def louvain_communities(G, weight="weight", resolution=1, threshold=0.0000001, max_level=None, seed=None):
        """nx.community.louvain_communities: a list of sets, each community's nodes (dgraph.louvain's
        communities, ordered by their first node in G's order).  ``seed`` (NetworkX hands over a
        ``random.Random``) draws dgraph's seed, so a seed gives the same communities every time."""
        if max_level is not None and max_level <= 0:
            raise ValueError("max_level argument must be a positive integer or None")
        r = _louvain(G, weight, resolution, threshold, max_level, seed, keep_levels=False)
        return _groups(G, r.raw("community"))

    @staticmethod
    def louvain_partitions(G, weight="weight", resolution=1, threshold=0.0000001, seed=None):
        """nx.community.louvain_partitions: a generator of each level's partition (lists of sets); the
        last is the refined one :func:`louvain_communities` returns (dgraph refines the last level)."""
        r = _louvain(G, weight, resolution, threshold, None, seed, keep_levels=True)
        return _partitions(G, r)

    # -- clustering ------------------------------------------------------------------------------
    @staticmethod
    def triangles(G, nodes=None):
        """nx.triangles: {node: int}, or an int when ``nodes`` is one node of G."""
        if G.directed:
            raise nx.NetworkXNotImplemented("not implemented for directed type")
        if nodes is not None and G.multigraph:
            raise NotImplementedError("nodes= on a multigraph is not supported")
        one = _index(G, nodes) if nodes is not None else None
        if nodes is not None and one is None:
            wanted = _nbunch(G, nodes)
        t = np.asarray(dgraph.triangle_count(G.to_dgraph()).raw("triangles"))
        if one is not None:
            return int(t[one])
        if nodes is None:
            return dict(zip(G.nodes, t.tolist()))
        return {v: int(t[G.index[v]]) for v in wanted}

    # -- cores -----------------------------------------------------------------------------------
    @staticmethod
    def core_number(G):
        """nx.core_number: {node: int} in node order; NetworkXNotImplemented for self loops, as NetworkX."""
        if G.multigraph:
            raise nx.NetworkXNotImplemented("not implemented for multigraph type")
        if G.n and bool(np.any(G.indices == np.repeat(np.arange(G.n, dtype=np.int64), np.diff(G.indptr)))):
            raise nx.NetworkXNotImplemented("Input graph has self loops which is not permitted; "
                                            "Consider using G.remove_edges_from(nx.selfloop_edges(G)).")
        if G.n == 0:
            return {}
        core = dgraph.core_number(G.to_dgraph()).raw("core")
        return dict(zip(G.nodes, np.asarray(core).tolist()))

    @staticmethod
    def k_core(G, k=None, core_number=None):
        """nx.k_core: the k-core as a NetworkX graph of G's class, with G's node, edge and graph
        attributes (NetworkX's copy of the subgraph); the core numbers from dgraph.core_number."""
        if G.multigraph:
            raise nx.NetworkXNotImplemented("not implemented for multigraph type")
        core = BackendInterface.core_number(G) if core_number is None else core_number
        if k is None:
            k = max(core.values())   # an empty graph: NetworkX's ValueError
        H = G.source()
        if H is None:
            H = G.to_networkx()
        return H.subgraph(v for v in core if core[v] >= k).copy()


    # -- link prediction ---------------------------------------------------------------------------
    @staticmethod
    def jaccard_coefficient(G, ebunch=None):
        """nx.jaccard_coefficient: a generator of ``(u, v, p)``, the pairs in NetworkX's order.

        The ebunch's nodes are checked first (NodeNotFound), as NetworkX does; its pairs are then
        scored by dgraph.jaccard.  ``ebunch=None`` walks the non-edges exactly as ``nx.non_edges``
        does (every one, zeros included: quadratic in the nodes, as NetworkX's own) and scores
        them in batches of ``_JACCARD_BATCH`` pairs.  ``p`` is a float, or the int 0 where both
        nodes have no neighbors (NetworkX's empty union).
        """
        if G.directed or G.multigraph:
            raise nx.NetworkXNotImplemented("not implemented for directed or multigraph type")
        if ebunch is None:
            return _jaccard_batches(G, _non_edges(G))
        pairs = []
        for u, v in ebunch:
            if _index(G, u) is None:
                raise nx.NodeNotFound(f"Node {u} not in G.")
            if _index(G, v) is None:
                raise nx.NodeNotFound(f"Node {v} not in G.")
            pairs.append((u, v))
        if iter(ebunch) is ebunch:  # NetworkX checked an iterator's pairs by using them up: it yields none
            pairs = []
        return _jaccard_batches(G, iter(pairs))


#: pairs scored per dgraph.jaccard call by the NetworkX backend
_JACCARD_BATCH = 1 << 16


def _non_edges(G):
    """``nx.non_edges(G)`` of an undirected graph, in its order: the same set operations on the nodes."""
    nodes_of, indptr, indices = G.nodes, G.indptr, G.indices
    nodes = set(nodes_of)
    while nodes:
        u = nodes.pop()
        i = G.index[u]
        for v in nodes - {nodes_of[k] for k in indices[indptr[i]:indptr[i + 1]].tolist()}:
            yield u, v


def _jaccard_batches(G, pairs):
    """``(u, v, p)`` for the node pairs ``pairs`` yields, scored by dgraph.jaccard a batch at a time."""
    deg = np.diff(G.indptr)   # |N(v)|: NetworkX's adjacency holds each neighbor once, a self loop too
    index = G.index
    D = None
    while True:
        batch = [pair for _, pair in zip(range(_JACCARD_BATCH), pairs)]
        if not batch:
            return
        if D is None:
            D = G.to_dgraph()
        idx = np.array([(index[u], index[v]) for u, v in batch], dtype=np.int64).reshape(-1, 2)
        p = np.asarray(dgraph.backend.to_numpy(dgraph.jaccard(D, idx).jaccard), dtype=np.float64).tolist()
        empty = ((deg[idx[:, 0]] == 0) & (deg[idx[:, 1]] == 0)).tolist()
        for (u, v), x, none in zip(batch, p, empty):
            yield u, v, (0 if none else x)


def _bfs_edges(G, source, depth_limit):
    try:
        i = G.index[source]   # an unhashable source raises TypeError, as in NetworkX
    except KeyError:
        raise nx.NetworkXError(f"The node {source} is not in the {'digraph' if G.directed else 'graph'}.") from None
    depth = _depths(G, i)
    nodes = G.nodes
    for parents, children in _bfs_levels(G, i, depth, depth_limit):
        for p, c in zip(parents.tolist(), children.tolist()):
            yield nodes[p], nodes[c]


def _tarjan(G, want_order=True):
    """``(labels, count, emitted)`` of the strongly connected components: dgraph.scc's one-shard
    solver (:func:`dgraph.algorithms.scc.cpu.tarjan_labels`) over NetworkX's own adjacency, nodes
    in G's order and neighbors in NetworkX's order, so ``emitted`` (each component's label, in the
    order they complete) is the order NetworkX yields them in."""
    from ..algorithms.scc import cpu  # noqa: PLC0415

    n = G.n
    label = np.full(n, -1, dtype=np.int64)
    emitted = np.empty(n if want_order else 0, dtype=np.int64)
    count = int(cpu.tarjan_labels(G.indptr, G.indices.astype(np.int64, copy=False), label, emitted))
    return label, count, emitted[:count]


def _strong_components(G):
    if G.n == 0:
        return
    label, _, emitted = _tarjan(G)
    order = np.argsort(label, kind="stable")
    cuts = np.flatnonzero(np.diff(label[order])) + 1
    groups = np.split(order, cuts)                 # by label, ascending: group i has label firsts[i]
    firsts = label[order[np.concatenate([[0], cuts])]]
    nodes = G.nodes
    for i in np.searchsorted(firsts, emitted).tolist():
        yield {nodes[v] for v in groups[i].tolist()}


def _louvain(G, weight, resolution, threshold, max_level, seed, keep_levels):
    """dgraph.louvain on the converted graph, with NetworkX's arguments (see louvain_communities)."""
    if G.multigraph:
        raise NotImplementedError("multigraphs are not supported")
    weighted = weight is not None
    if weighted and (G.weight_attr != weight or G.weights is None):
        raise NotImplementedError(G.weight_problem or f"no usable edge attribute {weight!r}")
    if G.n and len(G.indices) and weighted and not G.weights.any():
        raise ZeroDivisionError("division by zero")   # NetworkX: the modularity of a graph of no weight
    if isinstance(seed, numbers.Integral) and not isinstance(seed, bool):
        from ..generators.rng import MASK64  # noqa: PLC0415

        draw = int(seed) & MASK64   # NetworkX takes any int; dgraph's coins hash it mod 2**64 as before
    elif hasattr(seed, "getrandbits"):
        draw = seed.getrandbits(63)
    else:
        draw = None
    return dgraph.louvain(G.to_dgraph(weighted=weighted), resolution=float(resolution), threshold=float(threshold),
                          max_level=max_level, seed=draw, weight=weighted, keep_levels=keep_levels)


def _groups(G, labels):
    """The sets of nodes sharing a label, ordered by their first node in G's order."""
    groups = {}
    nodes = G.nodes
    for v, c in enumerate(np.asarray(labels).tolist()):
        groups.setdefault(c, set()).add(nodes[v])
    return list(groups.values())


def _partitions(G, r):
    for i in range(1, r.params["levels"]):
        yield _groups(G, r.raw(f"level_{i}"))
    yield _groups(G, r.raw("community"))


def _components(G):
    n = G.n
    if n == 0:
        return
    comp = np.asarray(dgraph.wcc(G.to_dgraph()).raw("component"))
    order = np.argsort(comp, kind="stable")
    labels = comp[order]
    cuts = np.flatnonzero(labels[1:] != labels[:-1]) + 1
    groups = np.split(order, cuts)
    groups.sort(key=lambda g: int(g[0]))   # NetworkX: by each component's first node in G's order
    nodes = G.nodes
    for g in groups:
        yield {nodes[v] for v in g.tolist()}


_CAN_RUN = {
    "bfs_edges": _can_bfs_edges,
    "shortest_path_length": _can_shortest_path_length,
    "pagerank": _can_pagerank,
    "hits": _can_hits,
    "connected_components": _can_components,
    "weakly_connected_components": _can_components,
    "strongly_connected_components": _can_components,
    "number_strongly_connected_components": _can_components,
    "betweenness_centrality": _can_betweenness_centrality,
    "triangles": _can_triangles,
    "core_number": _can_core_number,
    "k_core": _can_k_core,
    "jaccard_coefficient": _can_jaccard_coefficient,
    "louvain_communities": _can_louvain_communities,
    "louvain_partitions": lambda G, a: _can_louvain_communities(G, dict(a, max_level=None)),
}
_SIGNATURES = {name: inspect.signature(getattr(BackendInterface, name)) for name in _CAN_RUN}

__all__ = ["BackendInterface", "NXGraph"]
