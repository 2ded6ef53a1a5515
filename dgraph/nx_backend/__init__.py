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
FUNCTIONS = {
    "bfs_edges": "Runs on dgraph.bfs; the edges come in NetworkX's order. "
                 "Not supported (falls back): sort_neighbors, reverse=True on a directed graph.",
    "shortest_path_length": "Single source only (target=None): dgraph.bfs (weight=None) or dgraph.sssp "
                            "(weight='attr', non-negative finite numbers, 1 where missing). "
                            "Not supported (falls back): source=None, a target, callable weights.",
    "pagerank": "Runs on dgraph.pagerank (uniform or personalized teleport, dangling mass follows it). "
                "Not supported (falls back): nstart, dangling, edge weights other than 1, multigraphs.",
    "connected_components": "Runs on dgraph.wcc.",
    "weakly_connected_components": "Runs on dgraph.wcc.",
    "betweenness_centrality": "Runs on dgraph.bc (k samples the sources exactly as NetworkX does). "
                              "Not supported (falls back): weight.",
    "triangles": "Runs on dgraph.triangle_count. Not supported (falls back): nodes= on a multigraph.",
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
