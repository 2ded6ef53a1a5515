"""Advance: from a vertex frontier to the edges (and vertices) next to it.

Push expands the out-edges of the frontier, load-balanced over edges (a
prefix sum of degrees and a sorted search, Gunrock section 4.4) so one huge
vertex does not serialize the step.  Pull starts from candidate vertices
(usually the unvisited ones) and scans their in-edges against the frontier
bitmap (Beamer's bottom-up step, Gunrock section 4.5).

A *functor* is a vectorized function ``f(src, dst, eid) -> bool array``
written with array operations that work on numpy and CuPy alike (``xp =
dgraph.backend.array_module(src)``): it sees every candidate edge at once
and returns which ones pass.  It must not loop over edges in Python.
"""

from __future__ import annotations

from typing import NamedTuple

from ..backend import array_module
from ..backend.primitives import expand, group_starts
from ..errors import InputError
from .frontier import Frontier


class Edges(NamedTuple):
    """An edge frontier: parallel arrays of sources, targets and edge ids (CSR positions)."""

    src: object
    dst: object
    eid: object

    def __len__(self):
        return len(self.src)

    def select(self, keep):
        return Edges(self.src[keep], self.dst[keep], self.eid[keep])

    def targets(self, n, unique=True):
        """The vertex frontier of the targets (made unique: a non-idempotent advance)."""
        xp = array_module(self.dst)
        if unique:
            return Frontier(n, ids=xp.unique(self.dst))
        return Frontier(n, ids=self.dst)


def advance_push(G, frontier: Frontier, functor=None) -> Edges:
    """Out-edges of the frontier that pass ``functor`` (all of them when None)."""
    ids = frontier.ids
    seg, eid = expand(G.indptr, ids)
    edges = Edges(ids[seg], G.indices[eid], eid)
    if functor is not None:
        edges = edges.select(functor(edges.src, edges.dst, edges.eid))
    return edges


def advance_pull(G, frontier: Frontier, candidates: Frontier, functor=None, first_only=True) -> Edges:
    """In-edges ``u -> v`` with ``v`` in candidates and ``u`` in the frontier.

    With ``first_only`` each candidate keeps only its first such edge (the
    smallest ``u``, since rows are sorted): the early exit of a bottom-up step.
    Edge ids index the graph's CSR arrays (so weights line up).
    """
    indptr, indices, edge_ids = G.csc()
    cand = candidates.ids
    seg, pos = expand(indptr, cand)
    src = indices[pos]
    hit = frontier.mask[src]
    if functor is not None:
        eid_all = pos if edge_ids is None else edge_ids[pos]
        hit &= functor(src, cand[seg], eid_all)
    pos, seg = pos[hit], seg[hit]
    if first_only and len(seg):
        first = group_starts(seg)
        pos, seg = pos[first], seg[first]
    eid = pos if edge_ids is None else edge_ids[pos]
    return Edges(indices[pos], cand[seg], eid)


def advance(G, frontier: Frontier, functor=None, *, direction="push", candidates=None) -> Edges:
    """Gunrock's advance: ``direction='push'`` or ``'pull'`` (pull needs ``candidates``)."""
    if direction == "push":
        return advance_push(G, frontier, functor)
    if direction == "pull":
        if candidates is None:
            candidates = Frontier.all(G.num_vertices, G.xp)
        return advance_pull(G, frontier, candidates, functor)
    raise InputError(f"direction={direction!r}: expected 'push' or 'pull'")
