"""Graph500 Kronecker (R-MAT) edges, generated on the device, identical on numpy and CuPy.

What: ``edgefactor * 2**scale`` edges; each edge descends ``scale`` levels of
the adjacency matrix, at every level choosing the quadrant a (top-left),
b (top-right), c (bottom-left) or d = 1-a-b-c (bottom-right), which sets one
bit of its source and one of its target.  Graph500 defaults: a=0.57, b=0.19,
c=0.19, edgefactor=16.  The vertex labels are then permuted by a seeded random
permutation (Graph500 does this so that a vertex id does not reveal its
degree: without it vertex 0 is the hub).

How: one 64-bit hash of ``(seed, edge, j)`` (:mod:`.rng`) gives the uniforms
of two levels, 32 bits each; a level's quadrant is found by comparing its
32-bit integer ``u`` with the integer thresholds ``round(a*2**32)``,
``round((a+b)*2**32)``, ``round((a+b+c)*2**32)``, so no floating point enters
and numpy and CuPy give the same bits.  (Graph500's reference draws two
uniforms per level, row bit then column bit given the row; one uniform per
level with the four-way split has the same distribution.)

Why chunks: edges are made ``chunk`` at a time into preallocated outputs, so
the temporaries stay bounded (a few arrays of ``chunk`` words) at scale 26-28
on a GPU; on the CPU a small chunk keeps them in cache.  Edge ``e`` depends
only on ``(seed, e)``, so :func:`rmat_edges` can also make any slice
``[start, stop)`` of the edge list (e.g. one slice per Dask worker) and the
result does not depend on the chunk size.
"""

from __future__ import annotations

import numpy as np

from ..backend import vertex_dtype
from ..errors import InputError
from . import rng
from .params import check_float, check_int

PARAMS = ("scale", "edgefactor", "a", "b", "c", "d", "permute")
MAX_SCALE = 40


def parse(params):
    """Checked R-MAT parameters (scale, edgefactor, a, b, c, permute)."""
    if params.get("scale") is None:
        raise InputError("generate('rmat'): missing parameter 'scale' (an integer in [0, 40]; n = 2**scale)")
    scale = check_int("scale", params["scale"], 0, MAX_SCALE)
    edgefactor = check_int("edgefactor", params.get("edgefactor", 16), 0)
    a = check_float("a", params.get("a", 0.57), 0.0, 1.0)
    b = check_float("b", params.get("b", 0.19), 0.0, 1.0)
    c = check_float("c", params.get("c", 0.19), 0.0, 1.0)
    if a + b + c > 1.0 + 1e-9:
        raise InputError(f"a, b, c = {a}, {b}, {c}: the probabilities must sum to at most 1 "
                         f"(d = 1 - a - b - c >= 0), they sum to {a + b + c:.6g}")
    if params.get("d") is not None:
        d = check_float("d", params["d"], 0.0, 1.0)
        if abs(a + b + c + d - 1.0) > 1e-6:
            raise InputError(f"d={d}: a + b + c + d must be 1, got {a + b + c + d:.6g} "
                             "(leave d out to use 1 - a - b - c)")
    permute = params.get("permute", True)
    if not isinstance(permute, (bool, np.bool_)):
        raise InputError(f"permute={permute!r}: expected True or False")
    return {"scale": scale, "edgefactor": edgefactor, "a": a, "b": b, "c": c, "permute": bool(permute)}


def thresholds(a, b, c):
    """The three 32-bit integer cut points of the quadrants a | b | c | d."""
    cuts = []
    for p in (a, a + b, a + b + c):
        cuts.append(min(int(round(p * 2**32)), 2**32))
    return tuple(cuts)


def _at_least(xp, u, t, out):
    """out = u >= t for uint32 ``u`` and an integer cut ``t`` in [0, 2**32]."""
    if t <= 0:
        out.fill(True)
    elif t >= 2**32:
        out.fill(False)
    else:
        xp.greater_equal(u, np.uint32(t), out=out)


def rmat_edges(xp, scale, *, edgefactor=16, a=0.57, b=0.19, c=0.19, seed=0, permute=True,
               start=0, stop=None, chunk=None, perm=None):
    """Edges ``start..stop-1`` of the R-MAT edge list: ``(src, dst)`` arrays on ``xp``.

    The ids are int32 while 2**scale < 2**31 (else int64).  ``perm``: the
    vertex permutation when the caller already has it (see
    :func:`vertex_permutation`), to avoid recomputing it for every slice.
    """
    n = 1 << scale
    m = edgefactor * n
    stop = m if stop is None else min(int(stop), m)
    start = max(0, int(start))
    count = max(0, stop - start)
    vdt = vertex_dtype(n)
    src_out = xp.empty(count, dtype=vdt)
    dst_out = xp.empty(count, dtype=vdt)
    if count == 0:
        return src_out, dst_out
    if permute and perm is None:
        perm = vertex_permutation(xp, scale, seed)
    chunk = default_chunk(xp) if chunk is None else int(chunk)
    ta, tab, tabc = thresholds(a, b, c)
    key = rng.stream_key(seed, rng.STREAM_RMAT)
    hashes = (scale + 1) // 2  # two levels per 64-bit hash
    size = min(chunk, count)
    # scratch buffers, allocated once and reused by every chunk
    x = xp.empty(size, dtype=np.uint64)
    tmp = xp.empty(size, dtype=np.uint64)
    u = xp.empty(size, dtype=np.uint32)
    row = xp.empty(size, dtype=bool)
    col = xp.empty(size, dtype=bool)
    bit = xp.empty(size, dtype=bool)
    src = xp.empty(size, dtype=vdt)  # accumulators, in the output's (narrow) dtype
    dst = xp.empty(size, dtype=vdt)
    for s in range(start, stop, chunk):
        t = min(stop, s + chunk)
        k = t - s
        if k != size:  # the last, shorter chunk
            x, u, tmp, row, col, bit, src, dst = (v[:k] for v in (x, u, tmp, row, col, bit, src, dst))
            size = k
        base = rng.counters(xp, s, t, key=key, stride=hashes)  # state of hash 0 of each edge
        src.fill(0)
        dst.fill(0)
        for j in range(hashes):
            xp.add(base, rng.u64(j * rng.GOLDEN), out=x)
            rng.mix64(xp, x, tmp)
            for half in (0, 1):
                if 2 * j + half >= scale:
                    break
                if half == 0:  # low, then high 32 bits of the hash
                    xp.bitwise_and(x, rng.MASK32, out=u, casting="same_kind")
                else:
                    xp.right_shift(x, rng.S32, out=u, casting="same_kind")
                _at_least(xp, u, tab, row)    # quadrant c or d: source bit 1
                _at_least(xp, u, ta, col)     # b, c or d
                _at_least(xp, u, tabc, bit)   # d
                col ^= row
                col ^= bit                              # b or d: target bit 1
                src += src
                src += row
                dst += dst
                dst += col
        o = slice(s - start, t - start)
        if permute:
            src_out[o] = perm[src]
            dst_out[o] = perm[dst]
        else:
            src_out[o] = src
            dst_out[o] = dst
    return src_out, dst_out


def vertex_permutation(xp, scale, seed):
    """Graph500's vertex relabelling: vertex ``v`` becomes ``perm[v]``."""
    n = 1 << scale
    return rng.permutation(xp, seed, rng.STREAM_PERMUTE, n, dtype=vertex_dtype(n))


def default_chunk(xp):
    """Edges per chunk: small on the CPU (the scratch arrays stay in cache), 2**24 on a GPU."""
    return 1 << 16 if xp is np else 1 << 24


def size(p):
    """(vertices, edges generated) before duplicates are collapsed."""
    n = 1 << p["scale"]
    return n, p["edgefactor"] * n


def scratch_bytes(p, item, chunk=None):
    """Host bytes besides the edge arrays: the vertex permutation and one chunk's scratch."""
    n, m = size(p)
    return (n * item if p["permute"] else 0) + 48 * min(m, chunk or default_chunk(np))


def edges(xp, seed, p, chunk=None):
    """``(src, dst, n, name)`` for :func:`dgraph.generators.generate`."""
    src, dst = rmat_edges(xp, p["scale"], edgefactor=p["edgefactor"], a=p["a"], b=p["b"], c=p["c"],
                          seed=seed, permute=p["permute"], chunk=chunk)
    name = f"rmat-scale{p['scale']}-ef{p['edgefactor']}-seed{seed}"
    return src, dst, 1 << p["scale"], name
