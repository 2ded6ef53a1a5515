"""Filter and compute: the frontier operators that do not traverse edges.

``filter`` keeps the frontier elements for which a vectorized predicate is
true (compaction by a boolean mask, which is a scan on the GPU); ``compute``
runs a vectorized function over every element (Gunrock's for-each).
"""

from __future__ import annotations

from .advance import Edges
from .frontier import Frontier


def filter(frontier, predicate):  # noqa: A001 - Gunrock's name
    """Elements of a vertex or edge frontier for which ``predicate`` is true.

    ``predicate(ids) -> bool array`` for a vertex frontier,
    ``predicate(src, dst, eid) -> bool array`` for an :class:`Edges` frontier.
    """
    if isinstance(frontier, Edges):
        return frontier.select(predicate(frontier.src, frontier.dst, frontier.eid))
    ids = frontier.ids
    return Frontier(frontier.n, ids=ids[predicate(ids)])


def compute(frontier, fn):
    """Apply ``fn`` to every element (``fn(ids)`` or ``fn(src, dst, eid)``); returns its value."""
    if isinstance(frontier, Edges):
        return fn(frontier.src, frontier.dst, frontier.eid)
    return fn(frontier.ids)
