"""Gunrock's frontier operators: advance (push/pull), filter, compute, neighbor_reduce.

Functors are vectorized array expressions over whole frontiers, not
per-element Python callbacks; see :mod:`dgraph.ops.advance` for how to
write one.  ``visit`` is the fused advance+filter that traversals use.
"""

from .advance import Edges, advance, advance_pull, advance_push
from .filter import compute, filter  # noqa: A004
from .frontier import Frontier
from .neighbor_reduce import neighbor_reduce

__all__ = ["Frontier", "Edges", "advance", "advance_push", "advance_pull", "filter", "compute",
           "neighbor_reduce"]
