"""dgraph.louvain's semantics written plainly, one vertex at a time: the reference the tests hold every
executor, partition count, kernel and backend to, bit for bit.

It follows the documented rules of :mod:`dgraph.algorithms.louvain` (the program's module docstring
and :mod:`~dgraph.algorithms.louvain.kernels`), with Python ints for every weight sum and dicts for
the communities, and none of its code but the counter-based hash (:mod:`dgraph.generators.rng`, the
coins' definition) and numpy's float sum of the communities' strength products (the one float sum
the algorithm takes, in community id order).
"""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np

from dgraph.backend import to_numpy
from dgraph.generators.rng import GOLDEN, MASK64, mix64_int, stream_key

STREAM, TRIES_STREAM, CAP, REFINE, MAX_SHIFT = 11, 12, 50, 0x10000, 16


def coin_key(seed, level, step):
    return mix64_int(stream_key(seed, STREAM) ^ mix64_int(((level & 0xFFFFFFFF) << 32) | (step & 0xFFFFFFFF)))


def coin(key, v, shift):
    if shift == 0:
        return True
    x = mix64_int((key + v * GOLDEN) & MASK64)
    return x >> (64 - shift) == (1 << shift) - 1


def exponent(weights, arcs):
    if weights is None or arcs == 0 or max(weights) <= 0:
        return 0
    bound = float(max(weights)) * float(arcs)
    if all(isinstance(w, int) for w in weights) and bound <= 2.0 ** 60:
        return 0
    mant, exp = math.frexp(bound)          # the smallest e with bound * 2**e <= 2**60
    return 60 - (exp - 1 if mant == 0.5 else exp)


def modularity(inner_half, tot_out, tot_in, total, resolution, directed):
    if total <= 0:
        return 0.0
    prod = float(np.sum(np.array(tot_out, dtype=np.float64) * np.array(tot_in, dtype=np.float64)))
    t = float(total)
    return (1.0 if directed else 2.0) * float(inner_half) / t - float(resolution) * prod / (t * t)


class LevelGraph:
    """One level: ``nbrs[v]`` = [(u, w)] (both directions for a directed graph, no loops), strengths, loops."""

    def __init__(self, n, nbrs, sout, sin, loop):
        self.n, self.nbrs, self.sout, self.sin, self.loop = n, nbrs, sout, sin, loop


def level_zero(G, weighted):
    n = G.num_vertices
    indptr, indices = to_numpy(G.indptr).tolist(), to_numpy(G.indices).tolist()
    raw = to_numpy(G.weights).tolist() if weighted and G.weights is not None else None
    e = exponent(raw, len(indices))
    w = [1] * len(indices) if raw is None else [
        int(x) if e == 0 and isinstance(x, int) else int(np.rint(math.ldexp(float(x), e))) for x in raw]
    nbrs = [[] for _ in range(n)]
    sout, sin, loop = [0] * n, [0] * n, [0] * n
    for u in range(n):
        for k in range(indptr[u], indptr[u + 1]):
            v, x = indices[k], w[k]
            sout[u] += x
            if G.directed:
                sin[v] += x
            if u == v:
                loop[u] += x
                if not G.directed:
                    sout[u] += x
                continue
            nbrs[u].append((v, x))
            if G.directed:
                nbrs[v].append((u, x))
    return LevelGraph(n, nbrs, sout, sin if G.directed else sout, loop)


def move_level(lv, comm, seed, coin_level, base, total, resolution, directed):
    """Local moving from ``comm`` until no vertex wants to move (or CAP supersteps), undoing the
    supersteps that lowered the modularity; -> (comm, modularity, vertices moved).  A superstep
    evaluates only the active vertices (all at the start): after a kept superstep, those that wanted
    to move, those that moved and their neighbors; after an undone one, those that wanted to move in
    the state it returns to.  The others keep their K(v, own) and do not move."""
    res_d = resolution / float(total * (1 if directed else 2))
    tout, tin = [0] * lv.n, [0] * lv.n
    for v in range(lv.n):
        tout[comm[v]] += lv.sout[v]
        tin[comm[v]] += lv.sin[v]
    if not directed:
        tin = tout
    kept = None
    shift, step, moved_total, last_moved = base, 0, 0, 0
    active = set(range(lv.n))
    kown = [0] * lv.n
    while True:
        key = coin_key(seed, coin_level, step)
        cands, moves = set(), {}
        for v in sorted(active):
            own = comm[v]
            K = defaultdict(int)
            for u, x in lv.nbrs[v]:
                K[comm[u]] += x
            k_own = K.pop(own, 0)
            kown[v] = k_own
            if not K:
                continue
            so, si = float(lv.sout[v]), float(lv.sin[v])
            stay = float(k_own) - res_d * (so * float(tin[own] - lv.sin[v]) + si * float(tout[own] - lv.sout[v]))
            best, bc = -math.inf, None
            for c in sorted(K):
                s = float(K[c]) - res_d * (so * float(tin[c]) + si * float(tout[c]))
                if s > best:
                    best, bc = s, c
            if best > stay:
                cands.add(v)
                if coin(key, v, shift):
                    moves[v] = bc
        inner = sum(kown) + 2 * sum(lv.loop)
        q = modularity(inner // 2, tout, tin, total, resolution, directed)
        step += 1
        if kept is not None and last_moved and q <= kept[0]:
            q_kept, comm, tout, tin, kown, active = (kept[0], list(kept[1]), list(kept[2]), list(kept[3]),
                                                     list(kept[4]), set(kept[5]))
            if not directed:
                tin = tout
            shift = min(shift + 1, MAX_SHIFT)
            moved_total -= last_moved
            last_moved = 0
            if step >= CAP:
                return comm, q_kept, moved_total
            continue
        kept = (q, list(comm), list(tout), list(tin), list(kown), set(cands))
        if not cands or step >= CAP:
            return comm, q, moved_total
        for v, c in moves.items():
            a = comm[v]
            tout[a] -= lv.sout[v]
            tout[c] += lv.sout[v]
            if directed:
                tin[a] -= lv.sin[v]
                tin[c] += lv.sin[v]
            comm[v] = c
        active = cands | {v for v in range(lv.n) if any(u in moves for u, _ in lv.nbrs[v])}
        moved_total += len(moves)
        last_moved = len(moves)
        if moves:
            shift = max(shift - 1, base)


def aggregate(lv, comm):
    """(coarse level, map from each vertex to its coarse vertex)."""
    ids = sorted(set(comm))
    dense = {c: i for i, c in enumerate(ids)}
    k = len(ids)
    W = defaultdict(int)
    loop = [0] * k
    sout, sin = [0] * k, [0] * k
    for v in range(lv.n):
        c = dense[comm[v]]
        loop[c] += lv.loop[v]
        sout[c] += lv.sout[v]
        sin[c] += lv.sin[v]
        for u, x in lv.nbrs[v]:
            W[(c, dense[comm[u]])] += x
    nbrs = [[] for _ in range(k)]
    for (c, d), x in sorted(W.items()):
        if c == d:
            loop[c] += x // 2
        else:
            nbrs[c].append((d, x))
    return LevelGraph(k, nbrs, sout, sin, loop), [dense[comm[v]] for v in range(lv.n)]


def canonical(labels):
    first = {}
    for v, c in enumerate(labels):
        first.setdefault(c, v)
    return [first[c] for c in labels]


def try_seed(seed, t):
    return seed if t == 0 else mix64_int(stream_key(seed, TRIES_STREAM) ^ mix64_int(t)) >> 1


def reference_louvain(G, *, resolution=1.0, seed=0, threshold=1e-7, max_level=None, weight=True, history=None,
                      tries=None):
    """``(community of every vertex (internal ids, the smallest member), modularity, levels kept)`` of the
    best of ``tries`` runs (None: 16 on at most 4096 vertices, else 1), the first of the highest
    modularity; ``history``: a list that gets each kept level's communities (before the refinement)."""
    if tries is None:
        tries = 16 if G.num_vertices <= 4096 else 1
    best, best_history = None, None
    for t in range(tries):
        h = []
        out = one_run(G, resolution=resolution, seed=try_seed(seed, t), threshold=threshold, max_level=max_level,
                      weight=weight, history=h)
        if best is None or out[1] > best[1]:
            best, best_history = out, h
    if history is not None:
        history.extend(best_history)
    return best


def one_run(G, *, resolution=1.0, seed=0, threshold=1e-7, max_level=None, weight=True, history=None):
    """One run of the method (one try)."""
    directed = G.directed
    lv = level_zero(G, weight)
    total = sum(lv.sout)
    n = lv.n
    if n == 0 or total == 0:
        return list(range(n)), 0.0, 0
    q = modularity(sum(lv.loop), lv.sout, lv.sin, total, resolution, directed)
    chain, ups, member, kept = [lv], [], list(range(n)), 0
    while True:
        cur = chain[-1]
        comm, _, moved = move_level(cur, list(range(cur.n)), seed, len(chain) - 1, 1 if len(chain) == 1 else 2,
                                    total, resolution, directed)
        if moved == 0:
            break
        nxt, up = aggregate(cur, comm)
        q_new = modularity(sum(nxt.loop), nxt.sout, nxt.sin, total, resolution, directed)
        if q_new < q:
            break
        gain, q = q_new - q, q_new
        member = [up[m] for m in member]
        if history is not None:
            history.append(canonical(member))
        chain.append(nxt)
        ups.append(up)
        kept += 1
        if gain <= threshold or (max_level is not None and kept >= max_level):
            break
    if kept >= 2:  # multilevel refinement, from the level below the last kept one down to level 0
        above = ups[kept - 1]
        for i in range(kept - 2, -1, -1):
            start = canonical([above[u] for u in ups[i]])
            above, q_ref, _ = move_level(chain[i], start, seed, REFINE + i, 1 if i == 0 else 2, total, resolution,
                                         directed)
            q = max(q, q_ref)
        member = above
    return canonical(member), q, kept
