"""CPU (numpy backend) kernels for weakly connected components, compiled with numba.

The sequential twins of WCC's vectorized superstep ('cpu-union-find'; see
:mod:`dgraph.algorithms.wcc.program`, which proves the labels): a union-find over a
shard's live edges (union by minimum root, path halving) in place of one
round of ``scatter_min`` hooking, a minimum-merge of another shard's
changed entries, and a one-pass pointer jump.

Invariant kept by every kernel: ``parent[x] <= x`` and every write lowers an
entry, so a root is the minimum of its tree.
"""

from __future__ import annotations

from ...jit import inline as _inline
from ...jit import jit as _jit


@_inline
def _unite(new, u, v):
    """Join the trees of ``u`` and ``v`` in ``new``: roots by path halving, larger under smaller."""
    while new[u] != u:
        nu = new[new[u]]
        new[u] = nu
        u = nu
    while new[v] != v:
        nv = new[new[v]]
        new[v] = nv
        v = nv
    if u < v:
        new[v] = u
    elif v < u:
        new[u] = v


@_jit
def hook_union_find(p, new, src, dst):
    """Union-find over the live edges of a shard, writing into ``new`` (a copy of ``p``).

    ``p`` is the shard's parent array at the start of the superstep (every
    tree a star: ``p[x]`` is ``x``'s root).  An edge ``(src[e], dst[e])`` is
    live when ``p[src[e]] != p[dst[e]]``; live edges are compacted in place
    to the front of ``src``/``dst`` (the edge frontier's filter, as in the
    vectorized path: the decision uses ``p`` only, never the local hooks,
    which another shard's smaller value may override in the merge).  Each
    live edge unites the trees of its endpoints in ``new``: the roots are
    found with path halving (``new[x] = new[new[x]]``, a smaller value) and
    the larger root is hooked under the smaller (a root stays the minimum of
    its tree).  Every write lowers an entry of ``new``, so ``new <= p``
    entry by entry and ``new[x] <= x``.  Returns the number of live edges.
    """
    k = 0
    for e in range(src.shape[0]):
        u = src[e]
        v = dst[e]
        if p[u] == p[v]:
            continue
        src[k] = u
        dst[k] = v
        k += 1
        _unite(new, u, v)
    return k


@_jit
def hook_csr(indptr, indices, row_base, rows, directed, new, src, dst):
    """The first superstep straight from the shard's CSR: every edge once, union-find into ``new``.

    At the start ``p = arange(n)``, so every edge but a self loop is live; an
    undirected edge (stored both ways) is taken once, as ``u -> v`` with
    ``u > v``.  Local row ``r`` is global vertex ``rows[r]``, or
    ``row_base + r`` when ``rows`` is empty.  The edges taken are written to
    ``src``/``dst`` (the edge frontier of the next superstep) unless those
    are empty (a whole graph, which needs no frontier after this pass).
    Returns the number of edges taken.
    """
    k = 0
    identity = rows.shape[0] == 0
    keep = src.shape[0] > 0
    for r in range(indptr.shape[0] - 1):
        u0 = r + row_base if identity else rows[r]
        for e in range(indptr[r], indptr[r + 1]):
            v = indices[e]
            if directed:
                if v == u0:
                    continue
            elif v >= u0:
                continue
            if keep:
                src[k] = u0
                dst[k] = v
            k += 1
            _unite(new, u0, v)
    return k


@_jit
def root_hooks(p, new):
    """Keep only what the union-find did to the roots of ``p``: the contribution of a partitioned pass.

    After :func:`hook_union_find` (or :func:`hook_csr`) ``new`` is a forest
    with ``new[x] <= x``.  This sets ``new[r]`` to ``r``'s root in that forest
    for every root ``r`` of ``p`` (``p[r] == r``) and ``new[x] = p[x]`` for
    every other vertex, in two ascending passes; returns the number of roots
    of ``p`` that changed.

    Why: path halving lowers entries of vertices that are not roots of ``p``
    to values justified only by this shard's own hooks.  Merged by minimum
    with another shard's smaller hook of the same root, such an entry would
    move a vertex out of the tree that an edge dropped from the frontier
    (as already joined) relied on, and split a component (issue 21, item 12).
    Hooking whole trees of ``p`` (its roots only), as the vectorized
    ``scatter_min`` round does, never splits one.
    """
    n = p.shape[0]
    for x in range(n):          # new[x] <= x: new[new[x]] is already a root when x is reached
        nx = new[x]
        if nx != x:
            new[x] = new[nx]
    hooks = 0
    for x in range(n):
        px = p[x]
        if px != x:
            new[x] = px
        elif new[x] != x:
            hooks += 1
    return hooks


@_jit
def merge_min(p, ids, vals):
    """p[ids[i]] = min(p[ids[i]], vals[i]): another shard's changed entries (order free)."""
    for i in range(ids.shape[0]):
        x = ids[i]
        w = vals[i]
        if w < p[x]:
            p[x] = w


@_jit
def merge_min_dense(p, other):
    """p = minimum(p, other), in place."""
    for x in range(p.shape[0]):
        if other[x] < p[x]:
            p[x] = other[x]


@_jit
def jump_to_roots(p, out):
    """out[x] = root of x, in one ascending pass; returns the number of roots.

    ``p[x] <= x``, so when ``x`` is reached ``out[p[x]]`` is already
    ``p[x]``'s root (``p[x] < x``) or ``x`` is a root itself: the result is
    ``p = p[p]`` iterated to its fixed point, in O(n).  ``out`` may be ``p``.
    """
    roots = 0
    for x in range(p.shape[0]):
        px = p[x]
        if px == x:
            out[x] = x
            roots += 1
        else:
            out[x] = out[px]
    return roots


def warm_up():
    """Compile every kernel once for the common dtypes."""
    import numpy as np  # noqa: PLC0415

    for vdt in (np.int32, np.int64):
        p = np.arange(3, dtype=vdt)
        new = p.copy()
        hook_union_find(p, new, np.array([1, 2], vdt), np.array([0, 1], vdt))
        indptr = np.array([0, 1, 2, 2], np.int64)
        for directed in (False, True):
            hook_csr(indptr, np.array([1, 0], vdt), 0, np.empty(0, vdt), directed, p.copy(),
                     np.empty(2, vdt), np.empty(2, vdt))
        root_hooks(p, new.copy())
        merge_min(p, np.array([1], vdt), np.array([0], vdt))
        merge_min_dense(p, new)
        jump_to_roots(p, np.empty_like(p))


__all__ = ["hook_union_find", "hook_csr", "root_hooks", "merge_min", "merge_min_dense", "jump_to_roots", "warm_up"]
