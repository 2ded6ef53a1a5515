"""dgraph as a NetworkX dispatch backend (``backend="dgraph"``).

Two entry points register it (see ``pyproject.toml``):

- ``networkx.backends``: ``dgraph.nx_backend.interface:BackendInterface``, the
  object NetworkX dispatches to (loaded on the first dispatched call);
- ``networkx.backend_info``: :func:`get_info` below, called while
  ``import networkx`` runs, so this module stays light (no networkx import).

Use::

    import networkx as nx
    nx.pagerank(G, backend="dgraph")                 # this call on dgraph
    nx.config.backend_priority.algos = ["dgraph"]     # every supported call,
    # falling back to NetworkX where dgraph cannot give NetworkX's answer

See ``docs/NETWORKX.md`` for what is supported and what falls back.
"""

from __future__ import annotations

#: the functions the backend implements (NetworkX dispatch names) and what it does not take
#: (dgraph.random_walks has none: NetworkX has no random-walk function to dispatch)
FUNCTIONS = {
    "bfs_edges": "Runs on dgraph.bfs; the edges come in NetworkX's order. "
                 "Not supported (falls back): sort_neighbors, reverse=True on a directed graph.",
    "shortest_path_length": "Single source only (target=None): dgraph.bfs (weight=None) or dgraph.sssp "
                            "(weight='attr', non-negative finite numbers, 1 where missing). "
                            "Not supported (falls back): source=None, a target, callable weights.",
    "pagerank": "Runs on dgraph.pagerank (uniform or personalized teleport, dangling mass follows it; edge "
                "weights as transition weights, a multigraph's parallel edges added up; nstart). "
                "Not supported (falls back): dangling, callable or negative weights, negative nstart values.",
    "hits": "Runs on dgraph.hits: NetworkX's power iteration, its scaling and stopping test (the same scores "
            "as its ARPACK solver wherever they are unique); a multigraph's parallel edges add up. "
            "Not supported (falls back): nstart, one node, no edge of positive weight, unusable weights, "
            "and a run whose power iteration does not converge in max_iter.",
    "connected_components": "Runs on dgraph.wcc.",
    "weakly_connected_components": "Runs on dgraph.wcc.",
    "strongly_connected_components": "Runs dgraph.scc's compiled Tarjan solver over NetworkX's adjacency: the "
                                     "same sets in NetworkX's order.",
    "number_strongly_connected_components": "Runs dgraph.scc's compiled Tarjan solver.",
    "betweenness_centrality": "Runs on dgraph.bc (k samples the sources exactly as NetworkX does). "
                              "Not supported (falls back): weight.",
    "triangles": "Runs on dgraph.triangle_count. Not supported (falls back): nodes= on a multigraph.",
    "core_number": "Runs on dgraph.core_number (degree = in + out for a directed graph). Self loops raise "
                   "NetworkXNotImplemented, as in NetworkX.",
    "k_core": "Core numbers from dgraph.core_number (or core_number= given); the k-core is NetworkX's copy of "
              "the subgraph, with every attribute. Not supported (falls back): a k that is not a number.",
    "jaccard_coefficient": "Runs on dgraph.jaccard (the pairs in batches). ebunch=None scores every non-edge, "
                           "zeros included, in NetworkX's order: quadratic, as NetworkX's own.",
    "louvain_communities": "Runs on dgraph.louvain (bulk-synchronous moves, so its communities are not NetworkX's; "
                           "their modularity is as high). Not supported (falls back): multigraphs, a negative "
                           "resolution, negative or non-number weights.",
    "louvain_partitions": "Runs on dgraph.louvain (keep_levels=True): each level's communities, the last one "
                          "refined (as louvain_communities returns it). Falls back as louvain_communities does.",
}


def get_info():
    """The ``networkx.backend_info`` entry point: metadata for NetworkX's docs and config."""
    return {
        "backend_name": "dgraph",
        "project": "dgraph",
        "package": "dgraph",
        "short_summary": "Gunrock-style frontier algorithms on numpy/numba (CPU), CuPy (GPU) and Dask.",
        "functions": {name: {"additional_docs": doc} for name, doc in FUNCTIONS.items()},
    }


__all__ = ["get_info", "FUNCTIONS"]
