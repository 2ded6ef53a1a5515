"""Gunrock's frontier operators, a toolkit for writing one's own superstep.

``advance`` (push over out-edges, or pull over in-edges against the frontier bitmap), ``filter``,
``compute`` and ``neighbor_reduce`` over a :class:`Frontier` (sorted ids or a bitmap), on numpy or
CuPy alike.  Functors are vectorized array expressions over whole frontiers, not per-element
Python callbacks; see :mod:`dgraph.ops.advance` for how to write one.

The built-in algorithms do not run on these operators by default: each has its own compiled
kernels (numba, CUDA) or vectorized steps.  BFS's vectorized reference (``dgraph.bfs(...,
kernels="generic")``, :mod:`dgraph.algorithms.bfs.kernels`) is written with them, and is a worked
example of a push and a pull step; the compiled BFS kernels are tested against it.

Examples
--------
One top-down BFS level from vertex 0 of a 3x3 grid:

>>> import numpy as np
>>> import dgraph
>>> from dgraph.ops import Frontier, advance
>>> G = dgraph.generate("grid", rows=3, cols=3)
>>> depth = np.full(G.num_vertices, -1); depth[0] = 0
>>> edges = advance(G, Frontier(G.num_vertices, ids=np.array([0])), lambda s, d, e: depth[d] < 0)
>>> edges.targets(G.num_vertices).ids.tolist()
[1, 3]
"""

from .advance import Edges, advance, advance_pull, advance_push
from .filter import compute, filter  # noqa: A004
from .frontier import Frontier
from .neighbor_reduce import neighbor_reduce

__all__ = ["Frontier", "Edges", "advance", "advance_push", "advance_pull", "filter", "compute",
           "neighbor_reduce"]
