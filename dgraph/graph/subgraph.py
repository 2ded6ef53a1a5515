"""Induced subgraphs: the vertices a user keeps and every edge between them, with their own ids.

The kept vertices keep their user ids (so results on the subgraph read in
the same ids as on the whole graph), their order, their weights and the
graph's directedness; isolated kept vertices stay in the subgraph.
"""

from __future__ import annotations

import numpy as np

from ..backend import to_numpy
from ..errors import InputError


def induced_subgraph(G, keep, name=None):
    """The subgraph of ``G`` induced by ``keep``: a boolean mask over G's internal vertex order, or a
    list/array of user vertex ids."""
    from .build import from_edges  # noqa: PLC0415

    keep = _mask(G, keep)
    src, dst, w = (None if a is None else to_numpy(a) for a in G.to("numpy").coo())
    both = keep[src] & keep[dst]
    if not G.directed:  # each undirected edge once (the builder stores both directions)
        both &= src <= dst
    users = G.ids.user_array()
    kept = users[np.flatnonzero(keep)]
    sub = from_edges(users[src[both]], users[dst[both]], None if w is None else w[both], directed=G.directed,
                     vertices=kept, name=name or f"{G.name or 'graph'}-sub{len(kept)}")
    return sub.to(G.backend)


def _mask(G, keep):
    keep_np = to_numpy(keep) if hasattr(keep, "__array__") or hasattr(keep, "get") else keep
    arr = np.asarray(keep_np)
    if arr.dtype == bool:
        if arr.shape != (G.num_vertices,):
            raise InputError(f"subgraph: a boolean mask needs {G.num_vertices} entries, got shape {arr.shape}")
        return arr
    mask = np.zeros(G.num_vertices, dtype=bool)
    if arr.size:
        mask[G.ids.to_internal(arr.ravel(), what="subgraph vertex")] = True
    return mask
