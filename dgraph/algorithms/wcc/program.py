"""The WCC Program: hooking and pointer jumping (Soman et al.; Gunrock section 5.4).

Every shard keeps the global parent array ``p`` (replicated, like BFS's
depth array) and an *edge frontier*: the edges of its own rows whose
endpoints are still in different trees.  A superstep is

1. hooking (a filter over the edge frontier): for every edge ``(u, v)`` with
   ``p[u] != p[v]`` the larger root is hooked under the smaller one,
   ``p[max] = min(p[max], min)`` by ``scatter_min``; edges whose endpoints
   already share a root leave the frontier for good (components only merge);
2. the exchange: the parent entries this shard changed (ids and values, or
   the whole array when that is smaller) go to every shard, which merges
   them all by minimum (the same result on every shard, whatever the order);
3. pointer jumping, ``p = p[p]`` until nothing changes: every tree becomes
   a star again (local and deterministic).

It stops after a superstep in which no shard hooked anything.

Implementations (chosen once by :func:`implementation`).  'generic'
(``kernels="generic"``) is the vectorized superstep above (numpy or CuPy),
the reference.  'cpu-union-find' (``kernels="fused"``, the default, on the
numpy backend) runs step 1 as a compiled sequential union-find
(:func:`dgraph.algorithms.wcc.cpu.hook_union_find`): the same filter over the
edge frontier (decided by ``p``, the start-of-superstep stars), then for each
live edge the roots of its endpoints in a copy ``new`` of ``p`` are found
with path halving and the larger root is hooked under the smaller, so hooks
made earlier in the same pass are seen by later edges (one superstep
connects everything the shard's edges connect, where a ``scatter_min``
round hooks each root once).  The first superstep reads the shard's CSR
directly (:func:`~dgraph.algorithms.wcc.cpu.hook_csr`: at ``p = arange`` every
edge but a self loop is live), so the edge frontier is only materialized,
already filtered, when there is more than one shard.  With more than one
shard the contribution is what the pass did to the roots of ``p``: each root
that changed, with its root in ``new``
(:func:`~dgraph.algorithms.wcc.cpu.root_hooks`), as the vectorized path hooks
roots only; the merge by minimum and the pointer jumping (one ascending
pass: ``p[x] <= x``) are compiled too.  With one
shard the merge is the identity, so after the pass every live edge joins two
vertices of one tree and the frontier is emptied at once: two supersteps in
all, the second scanning nothing.  'gpu-union-find' (``kernels="fused"`` on
CuPy) is one superstep: each shard's spanning forest by a concurrent
union-find on its CSR (:mod:`dgraph.algorithms.wcc.gpu`), flattened to
stars, and every other shard's forest united into it.

Direction is ignored (weakly connected): hooking an edge is symmetric, and
every edge is the out-edge of exactly one owned row, so the shards' out-edges
together hold every edge once (an undirected graph's edge is kept only as
``u -> v`` with ``u > v``, so it too is hooked once); in-edges would add
nothing but a second copy.

Why the labels are the component minima, on every executor and partition
count: ``p[x] <= x`` always holds (it starts as ``p[x] = x``; a hook writes
a smaller value into a root; pointer jumping replaces ``p[x]`` by
``p[p[x]] <= p[x]``), so following parents strictly decreases until a root
(no cycles, even with concurrent hooks) and a root is the minimum of its
tree; ``p[x]`` always stays in ``x``'s component (hooks follow edges).  At
convergence no edge joins two trees, so each component is one tree, whose
root is its minimum vertex id: a label that depends on neither the order of
the hooks nor the partitioning.

The fused hooking keeps every one of these facts.  Each write into ``new``
lowers an entry: path halving sets ``new[x] = new[new[x]] <= new[x]``, and a
hook sets a root ``r`` (``new[r] = r``) to a smaller root; so ``new[x] <= x``
and ``new <= p`` entry by entry, and ``new[x]`` stays in ``x``'s component
(halving moves a pointer to an ancestor; a hook follows an edge between two
trees of the component).  One more fact is needed, and the raw ``new``
breaks it: a tree of ``p`` must never split, because the filter drops an
edge for good once its endpoints share a root of ``p``.  Path halving lowers
entries of vertices that are *not* roots of ``p``, to values justified only
by this shard's own hooks; merged by minimum with another shard's smaller
hook of the same root, such an entry moves the vertex into another tree and
leaves behind the one a dropped edge joined it to (issue 21, item 12: 7
vertices, two range partitions, labels ``[0 1 0 1 1 1 0]``).  So a shard
contributes only roots of ``p``: ``new[r]`` set to ``r``'s root in ``new``
for each root ``r`` of ``p``, ``p[x]`` for every other vertex.  The merge
``p' = min(p, new_1, ..., new_k)`` then keeps every non-root's parent and
gives each root a candidate ``<= r`` in its component: the stars of ``p``
are only joined, never split, so an edge dropped as joined stays joined;
``p'`` is a forest whose roots are the minima of their trees, and pointer
jumping keeps that.  The filter drops an edge only when its endpoints have
one root in ``p``, a merged state every shard shares, never because of a
local hook; with a single shard nothing overrides a local hook (``p' =
new``), so dropping the whole frontier after the pass is safe.  A shard with
a live edge always changes a root of ``p`` (the edge's two roots end in one
tree of ``new``, so one of them is no longer a root there), so "no hooks
anywhere" again means no live edge anywhere: each component is one tree
rooted at its minimum.  Every shard ends identical: all start a superstep
with the same ``p`` (induction, from ``arange``), receive the same
contributions, and merge them by minimum (commutative, associative and
idempotent, so order and sparse-versus-dense encodings do not matter: an
entry left out of a sparse contribution equals ``p``'s); pointer jumping is
a function of ``p``.  The
labels are the unique component minima, so ``fused`` and ``generic`` (and
every executor and partition count) give exactly the same result; only the
per-superstep statistics (hooks, supersteps) differ.
"""

from __future__ import annotations

import numpy as np

from ...backend import to_backend
from ...backend.primitives import MASK_CHUNK, compress, row_ids_of, scatter_min
from ...engine.program import Contribution, Program

#: what :func:`implementation` may choose, and what each runs
IMPLEMENTATIONS = {
    "generic": "vectorized scatter_min hooking over an edge frontier, numpy or CuPy (the reference)",
    "cpu-union-find": "numpy: a sequential numba union-find over each shard's live edges (cpu.py)",
    "gpu-union-find": "CuPy: one superstep, a concurrent union-find on each shard's CSR, forests united (gpu.py)",
}


def implementation(backend, kernels):
    """The name of the code that runs a WCC (a key of :data:`IMPLEMENTATIONS`), decided once a run.

    ``backend``: 'numpy' or 'cupy'; ``kernels``: the user's 'fused' or 'generic'.

    >>> implementation("numpy", "fused"), implementation("cupy", "fused"), implementation("cupy", "generic")
    ('cpu-union-find', 'gpu-union-find', 'generic')
    """
    if kernels == "generic":
        return "generic"
    return "cpu-union-find" if backend == "numpy" else "gpu-union-find"


class WCCState:
    __slots__ = ("impl", "parent", "src", "dst", "new")


class WCC(Program):
    """The WCC Program (see :mod:`dgraph.engine.program`); ``implementation``: a key of
    :data:`IMPLEMENTATIONS`, or None to decide it from ``kernels`` and the first shard."""

    name = "wcc"
    replicated_result = True

    def __init__(self, kernels="fused", implementation=None):
        self.kernels = kernels
        self.implementation = implementation

    def init(self, shard):
        xp = shard.xp
        st = WCCState()
        st.impl = self.implementation or implementation(shard.backend, self.kernels)
        vdt = shard.indices.dtype
        st.parent = xp.arange(shard.n, dtype=vdt)
        st.new = None
        if st.impl != "generic":
            st.src = st.dst = None             # the first superstep reads the CSR itself
            return st
        # each edge once (an undirected edge is stored both ways), self loops dropped; a bounded run
        # of arcs at a time (a shard may hold billions)
        rows = shard.global_rows()
        srcs, dsts = [], []
        for a in range(0, shard.num_arcs, MASK_CHUNK):
            b = min(shard.num_arcs, a + MASK_CHUNK)
            src = rows[row_ids_of(shard.indptr, a, b)].astype(vdt, copy=False)
            dst = shard.indices[a:b]
            keep = (src > dst) if not shard.directed else (src != dst)
            srcs.append(src[keep])
            dsts.append(dst[keep])
        if not srcs:
            srcs = dsts = [xp.empty(0, dtype=vdt)]
        st.src = xp.concatenate(srcs) if len(srcs) > 1 else srcs[0]
        st.dst = xp.concatenate(dsts) if len(dsts) > 1 else dsts[0]
        st.new = None
        return st

    def initial_report(self, shard, st):
        return {"components": shard.n}

    def converged(self, report, step):
        return step > 0 and (report["hooks"] == 0 or report.get("complete", False))

    # -- one superstep -------------------------------------------------------------
    def superstep(self, shard, st, ctx):
        if st.impl == "cpu-union-find":
            return self._superstep_fused(shard, st)
        if st.impl == "gpu-union-find":
            return self._superstep_gpu(shard, st)
        xp = shard.xp
        p = st.parent
        ru, rv = p[st.src], p[st.dst]
        live = ru != rv                       # the filter: edges still joining two trees
        scanned = len(st.src)
        st.src, st.dst, ru, rv = compress(live, st.src, st.dst, ru, rv)
        hi, lo = xp.maximum(ru, rv), xp.minimum(ru, rv)
        new = p.copy()
        scatter_min(new, hi, lo)              # hook the larger root under the smaller
        whole = shard.num_parts == 1
        if whole:
            hooks = int(xp.count_nonzero(new != p))
            st.new = new
            return Contribution({"dense": new}, {"hooks": hooks, "edges": scanned})
        return _changed_entries(xp, p, new, scanned)

    def _superstep_fused(self, shard, st):
        from . import cpu as cpu_wcc  # noqa: PLC0415

        p = st.parent
        new = p.copy()
        whole = shard.num_parts == 1
        vdt = p.dtype
        if st.src is None:                     # first superstep: p = arange, hook straight from the CSR
            nnz = len(shard.indices) if not whole else 0
            src, dst = np.empty(nnz, vdt), np.empty(nnz, vdt)
            rows = np.empty(0, vdt) if shard.contiguous else np.asarray(shard.rows).astype(vdt, copy=False)
            scanned = cpu_wcc.hook_csr(shard.indptr, shard.indices, shard.row_base, rows, bool(shard.directed),
                                       new, src, dst)
            st.src, st.dst = src[:scanned].copy(), dst[:scanned].copy()
        else:
            scanned = len(st.src)
            live = cpu_wcc.hook_union_find(p, new, st.src, st.dst)   # compacts the frontier in place
            st.src, st.dst = st.src[:live], st.dst[:live]
        if whole:
            # nothing overrides a local hook: every edge now lies inside one tree of the next p
            st.src, st.dst = st.src[:0].copy(), st.dst[:0].copy()
            hooks = int(np.count_nonzero(new != p))
            st.new = new
            return Contribution({"dense": new}, {"hooks": hooks, "edges": scanned})
        # only the roots of p are hooked (to their root in new): see the module docstring
        cpu_wcc.root_hooks(p, new)
        return _changed_entries(np, p, new, scanned)

    def _superstep_gpu(self, shard, st):
        """The one superstep on CuPy: this shard's spanning forest, its trees flattened to stars."""
        from . import gpu as gpu_wcc  # noqa: PLC0415

        xp = shard.xp
        forest = st.parent                     # arange: every vertex its own tree
        rows = shard.rows if not shard.contiguous else xp.empty(0, dtype=forest.dtype)
        live = gpu_wcc.hook_csr(shard.indptr, shard.indices, shard.row_base, rows, shard.directed, forest)
        st.parent = xp.empty_like(forest)
        roots = gpu_wcc.flatten(forest, st.parent)
        hooks = shard.n - roots                # vertices not their own root
        counters = {"hooks": hooks, "edges": shard.num_arcs, "united": live}
        empty = xp.empty(0, dtype=forest.dtype)
        if shard.num_parts == 1 or 2 * hooks > shard.n:
            st.new = forest                    # a spare buffer for the receive: the contribution is st.parent
            return Contribution({"ids": empty, "vals": empty, "dense": st.parent}, counters)
        st.new = None
        ids, vals = gpu_wcc.changed_pairs(st.parent, hooks)
        return Contribution({"ids": ids, "vals": vals, "dense": empty}, counters)

    def _receive_gpu(self, shard, st, contributions):
        """Every other shard's forest united into this one's: the union of spanning forests has the
        components of the union of their edge sets, so one superstep is the whole run."""
        from . import gpu as gpu_wcc  # noqa: PLC0415

        xp = shard.xp
        others = [c for i, c in enumerate(contributions) if i != shard.part]
        p = st.parent
        if others and len(contributions[shard.part].arrays["dense"]):
            # this shard's contribution is st.parent, which an executor may still read: into a spare buffer
            p = st.new if st.new is not None else xp.empty_like(st.parent)
            p[...] = st.parent
        for c in others:
            dense = to_backend(c.arrays["dense"], xp)
            if len(dense):
                gpu_wcc.unite_pairs(p, dense)
            ids = to_backend(c.arrays["ids"], xp)
            if len(ids):
                gpu_wcc.unite_pairs(p, to_backend(c.arrays["vals"], xp), ids)
        if others:
            components = gpu_wcc.flatten(p, p)  # in place: each write is an ancestor, read safely by others
            st.parent = p
        else:
            components = shard.n - contributions[0].counters["hooks"]
        st.new = None
        hooks = sum(int(c.counters["hooks"]) for c in contributions)
        edges = sum(int(c.counters["edges"]) for c in contributions)
        return {"hooks": hooks, "edges": edges, "components": int(components), "complete": True}

    def receive(self, shard, st, contributions, ctx):
        if st.impl == "gpu-union-find":
            return self._receive_gpu(shard, st, contributions)
        fused = st.impl == "cpu-union-find"
        xp = np if fused else shard.xp
        if len(contributions) == 1 and st.new is not None:
            p = st.new
        else:
            p = _merge_min(xp, st.parent, contributions, fused)
        st.new = None
        if fused:
            from . import cpu as cpu_wcc  # noqa: PLC0415

            st.parent = np.empty_like(p)
            components = int(cpu_wcc.jump_to_roots(p, st.parent))
        else:
            st.parent = _pointer_jump(xp, p)
            components = int(xp.count_nonzero(st.parent == xp.arange(shard.n, dtype=st.parent.dtype)))
        hooks = sum(int(c.counters["hooks"]) for c in contributions)
        edges = sum(int(c.counters["edges"]) for c in contributions)
        return {"hooks": hooks, "edges": edges, "components": components}

    def finish(self, shard, st):
        return {"component": st.parent}


def _changed_entries(xp, p, new, scanned):
    """A shard's contribution: the entries of ``new`` that differ from ``p``, as ids and values, or
    the whole array when that is smaller."""
    changed = xp.flatnonzero(new != p).astype(p.dtype, copy=False)
    hooks = len(changed)
    empty = xp.empty(0, dtype=p.dtype)
    if 2 * hooks <= len(p):
        arrays = {"ids": changed, "vals": new[changed], "dense": empty}
    else:
        arrays = {"ids": empty, "vals": empty, "dense": new}
    return Contribution(arrays, {"hooks": hooks, "edges": scanned})


def _merge_min(xp, p, contributions, fused):
    """Every shard's changed parent entries (dense or as ids/values) into ``p`` by minimum.

    The minimum does not depend on the order, so every shard ends with the
    same array; ``fused`` uses the numba kernels on the CPU.
    """
    if fused:
        from . import cpu as cpu_wcc  # noqa: PLC0415

        dense_min, sparse_min = cpu_wcc.merge_min_dense, cpu_wcc.merge_min
    else:
        def dense_min(p, d):
            xp.minimum(p, d, out=p)

        sparse_min = scatter_min
    for c in contributions:
        dense = to_backend(c.arrays["dense"], xp)
        if len(dense):
            dense_min(p, dense.astype(p.dtype, copy=False))
        ids = to_backend(c.arrays["ids"], xp)
        if len(ids):
            sparse_min(p, ids.astype(p.dtype, copy=False), to_backend(c.arrays["vals"], xp).astype(p.dtype, copy=False))
    return p


def _pointer_jump(xp, p):
    """p = p[p] until every vertex points at its root (p[x] <= x, so it ends)."""
    while True:
        pp = p[p]
        if not bool(xp.any(pp != p)):
            return p
        p = pp


__all__ = ["WCC", "WCCState", "implementation", "IMPLEMENTATIONS"]
