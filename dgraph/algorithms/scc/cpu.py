"""CPU (numpy backend) kernels for strongly connected components, compiled with numba.

- :func:`tarjan_labels` ('cpu-tarjan'): one whole shard, Tarjan's algorithm with an explicit call
  stack (no recursion limit), O(V + E), then each component's smallest vertex id as its label.
- :func:`owned_counts`, :func:`decrements`, :func:`color_step`, :func:`back_step`
  ('cpu-numba'): a shard's part of each phase of the partitioned Program, the numba twins of
  :mod:`dgraph.algorithms.scc.kernels` (same signatures, same sets of ids; see there and
  :mod:`dgraph.algorithms.scc.program` for the phases).  They loop over the owned rows' arcs with
  no per-arc temporary arrays, and find each offered vertex once with a scratch array of the
  state's (all ``MAX`` between calls).
"""

from __future__ import annotations

import numpy as np

from ...jit import jit as _jit


@_jit
def tarjan_labels(indptr, indices, label, emitted):
    """Strongly connected components of the CSR (``indptr``, ``indices``) over vertices ``0..n-1``:
    ``label[v]`` = the smallest vertex of ``v``'s component.  Returns the number of components.

    ``emitted``: empty, or room for ``n``: then ``emitted[k]`` is the label of the ``k``-th
    component completed.  The search starts from vertices ``0, 1, ...`` and takes each vertex's
    arcs in CSR order, as NetworkX's ``strongly_connected_components`` does over its nodes and
    adjacency, so on NetworkX's adjacency this is the order NetworkX yields the components in.

    Tarjan's algorithm, depth first with an explicit stack of (vertex, next arc): a vertex's
    ``low`` is the smallest preorder number reachable through its subtree and one arc back to a
    vertex still on the component stack; a vertex whose ``low`` is its own preorder number is the
    first vertex entered of a component, which is then the top of the component stack down to it.
    ``label`` doubles as the "placed" mark (-1 until placed): a vertex entered but not placed is on
    the component stack.
    """
    n = indptr.shape[0] - 1
    order = np.full(n, -1, np.int64)     # preorder number, -1: not entered
    low = np.empty(n, np.int64)
    stack = np.empty(n, indices.dtype)   # the component stack
    call_v = np.empty(n, indices.dtype)  # the depth-first path and each vertex's next arc
    call_e = np.empty(n, np.int64)
    for v in range(n):
        label[v] = -1
    counter = 0
    sp = 0
    components = 0
    for s in range(n):
        if order[s] >= 0:
            continue
        order[s] = counter
        low[s] = counter
        counter += 1
        stack[sp] = s
        sp += 1
        call_v[0] = s
        call_e[0] = indptr[s]
        top = 1
        while top > 0:
            v = call_v[top - 1]
            e = call_e[top - 1]
            if e < indptr[v + 1]:
                call_e[top - 1] = e + 1
                w = indices[e]
                if order[w] < 0:             # a tree arc: enter w
                    order[w] = counter
                    low[w] = counter
                    counter += 1
                    stack[sp] = w
                    sp += 1
                    call_v[top] = w
                    call_e[top] = indptr[w]
                    top += 1
                elif label[w] < 0 and order[w] < low[v]:   # back or cross arc into the stack
                    low[v] = order[w]
                continue
            top -= 1                         # v is done
            if low[v] == order[v]:           # v entered its component first: pop the component
                k = sp - 1
                smallest = v
                while stack[k] != v:
                    if stack[k] < smallest:
                        smallest = stack[k]
                    k -= 1
                for i in range(k, sp):
                    label[stack[i]] = smallest
                sp = k
                if emitted.shape[0] > 0:
                    emitted[components] = smallest
                components += 1
            if top > 0:
                u = call_v[top - 1]
                if low[v] < low[u]:
                    low[u] = low[v]
    return components


# -- the partitioned Program's steps ('cpu-numba') ------------------------------------------------

def owned_counts(shard, st):
    """:func:`dgraph.algorithms.scc.kernels.owned_counts` in numba."""
    out_count = np.empty(shard.num_rows, np.int64)
    arcs = _counts(shard.indptr, shard.indices, st.rows, out_count)
    if not shard.directed:
        return out_count, out_count[:0], arcs
    cindptr, csrc, _ = shard.csc(edge_ids=False)
    in_count = np.empty(shard.num_rows, np.int64)
    arcs += _counts(cindptr, csrc, st.rows, in_count)
    return in_count, out_count, arcs


@_jit
def _counts(indptr, ends, rows, out):
    for r in range(indptr.shape[0] - 1):
        g = rows[r]
        c = 0
        for e in range(indptr[r], indptr[r + 1]):
            if ends[e] != g:
                c += 1
        out[r] = c
    return indptr[indptr.shape[0] - 1]


def decrements(shard, st):
    """:func:`dgraph.algorithms.scc.kernels.decrements` in numba (an undirected graph: ``to_out``
    empty, its counters are one)."""
    loc = shard.local_rows(st.removed)
    to_in, arcs = _ends_of(shard.indptr, shard.indices, loc, st.label)
    if not shard.directed:
        return to_in, to_in[:0], arcs
    cindptr, csrc, _ = shard.csc(edge_ids=False)
    to_out, arcs2 = _ends_of(cindptr, csrc, loc, st.label)
    return to_in, to_out, arcs + arcs2


def _ends_of(indptr, ends, loc, label):
    size = int((indptr[loc + 1] - indptr[loc]).sum()) if len(loc) else 0
    out = np.empty(size, ends.dtype)
    k = _active_ends(indptr, ends, loc, label, out)
    return out[:k], size


@_jit
def _active_ends(indptr, ends, loc, label, out):
    """The active ends of the rows ``loc`` into ``out`` (a removed vertex's self loop ends at a
    labelled vertex: it drops out with the inactive ones); returns how many."""
    k = 0
    for i in range(loc.shape[0]):
        r = loc[i]
        for e in range(indptr[r], indptr[r + 1]):
            w = ends[e]
            if label[w] < 0:
                out[k] = w
                k += 1
    return k


def _scratch(st):
    if st.scratch is None:
        st.scratch = np.full(len(st.label), np.iinfo(st.label.dtype).max, dtype=st.label.dtype)
    return st.scratch


def _id_buffer(indptr, loc, n, dtype):
    """Room for every vertex one step can name: at most one per arc scanned, and ``n``."""
    size = min(n, int((indptr[loc + 1] - indptr[loc]).sum())) if len(loc) else 0
    return np.empty(size, dtype)


def color_step(shard, st):
    """:func:`dgraph.algorithms.scc.kernels.color_step` in numba."""
    loc = shard.local_rows(st.frontier)
    offer = _scratch(st)
    big = np.iinfo(offer.dtype).max
    ids = _id_buffer(shard.indptr, loc, shard.n, st.label.dtype)
    k, arcs = _offer_colors(shard.indptr, shard.indices, st.rows, loc, st.label, st.color, offer, big, ids)
    ids = np.sort(ids[:k])
    vals = offer[ids]
    offer[ids] = big
    return ids, vals, arcs


@_jit
def _offer_colors(indptr, indices, rows, loc, label, color, offer, big, ids):
    k = 0
    arcs = 0
    for i in range(loc.shape[0]):
        r = loc[i]
        c = color[rows[r]]
        arcs += indptr[r + 1] - indptr[r]
        for e in range(indptr[r], indptr[r + 1]):
            w = indices[e]
            if label[w] < 0 and c < color[w] and c < offer[w]:
                if offer[w] == big:
                    ids[k] = w
                    k += 1
                offer[w] = c
    return k, arcs


def back_step(shard, st):
    """:func:`dgraph.algorithms.scc.kernels.back_step` in numba."""
    cindptr, csrc, _ = shard.csc(edge_ids=False)
    loc = shard.local_rows(st.frontier)
    seen = _scratch(st)
    ids = _id_buffer(cindptr, loc, shard.n, st.label.dtype)
    k, arcs = _visit_back(cindptr, csrc, st.rows, loc, st.label, st.color, st.visited, seen, ids)
    ids = np.sort(ids[:k])
    seen[ids] = np.iinfo(seen.dtype).max
    return ids, ids[:0], arcs


@_jit
def _visit_back(indptr, srcs, rows, loc, label, color, visited, seen, ids):
    k = 0
    arcs = 0
    for i in range(loc.shape[0]):
        r = loc[i]
        c = color[rows[r]]
        arcs += indptr[r + 1] - indptr[r]
        for e in range(indptr[r], indptr[r + 1]):
            u = srcs[e]
            if label[u] < 0 and not visited[u] and color[u] == c and seen[u] != 0:
                seen[u] = 0
                ids[k] = u
                k += 1
    return k, arcs


__all__ = ["tarjan_labels", "owned_counts", "decrements", "color_step", "back_step"]
