"""CPU (numpy backend) kernels for strongly connected components, compiled with numba.

- :func:`tarjan_labels` ('cpu-tarjan'): one whole shard, Tarjan's algorithm in Pearce's
  one-number-a-vertex form with an explicit call stack (no recursion limit), O(V + E), each
  component labelled by its smallest vertex id as it is placed.
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

    ``label`` must hold -1 everywhere on entry (it is the algorithm's only per-vertex array).
    ``emitted``: empty, or room for ``n``: then ``emitted[k]`` is the label of the ``k``-th
    component completed.  The search starts from vertices ``0, 1, ...`` and takes each vertex's
    arcs in CSR order, as NetworkX's ``strongly_connected_components`` does over its nodes and
    adjacency, so on NetworkX's adjacency this is the order NetworkX yields the components in.

    Tarjan's algorithm, depth first with an explicit stack of (vertex, next arc, preorder number),
    in Pearce's form ("A space-efficient algorithm for finding strongly connected components",
    IPL 2016): one number a vertex, its ``low`` (the smallest preorder number reachable through
    its subtree and one arc back to a vertex not yet placed), and a vertex goes on the component
    stack only when it is finished and is not the first vertex entered of its component (its
    ``low`` is below its own number); a vertex that is that first one takes the stack's top
    vertices of ``low`` at or above its number with it.  That one number lives in ``label``:
    -1 not entered, ``-2 - low`` while entered and not placed (so an earlier number is a larger
    value), the component's smallest vertex once placed (>= 0): an arc to a placed vertex is
    told apart by its sign, and no pass over the vertices is needed before or after.
    """
    n = indptr.shape[0] - 1
    stack = np.empty(n, label.dtype)     # finished vertices not yet placed
    call_v = np.empty(n, label.dtype)    # the depth-first path: vertex, its own number, its next arc
    call_o = np.empty(n, label.dtype)
    call_e = np.empty(n, np.int64)
    counter = -2                         # the next preorder number p, stored as -2 - p
    sp = 0
    components = 0
    for s in range(n):
        if label[s] != -1:
            continue
        label[s] = counter
        call_v[0] = s
        call_o[0] = counter
        call_e[0] = indptr[s]
        counter -= 1
        top = 1
        while top > 0:
            v = call_v[top - 1]
            e = call_e[top - 1]
            end = indptr[v + 1]
            lv = label[v]
            w = -1
            while e < end:                   # v's arcs from where it stopped, its low in a register
                x = indices[e]
                e += 1
                lx = label[x]
                if lx > lv:                  # not entered, placed, or an earlier number
                    if lx < -1:
                        lv = lx
                    elif lx == -1:
                        w = x
                        break
            if w >= 0:                       # a tree arc: enter w
                call_e[top - 1] = e
                label[v] = lv
                label[w] = counter
                call_v[top] = w
                call_o[top] = counter
                call_e[top] = indptr[w]
                counter -= 1
                top += 1
                continue
            top -= 1                         # v is done
            if lv == call_o[top]:            # v entered its component first: place the component
                k = sp
                smallest = v
                while k > 0 and label[stack[k - 1]] <= lv:
                    k -= 1
                    if stack[k] < smallest:
                        smallest = stack[k]
                for i in range(k, sp):
                    label[stack[i]] = smallest
                label[v] = smallest
                sp = k
                if emitted.shape[0] > 0:
                    emitted[components] = smallest
                components += 1
            else:
                label[v] = lv
                stack[sp] = v
                sp += 1
                if top > 0:                  # the parent's low takes v's
                    u = call_v[top - 1]
                    if lv > label[u]:
                        label[u] = lv
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
