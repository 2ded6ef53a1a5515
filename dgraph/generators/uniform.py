"""Uniform random (Erdos-Renyi G(n, m)-style) edges, identical on numpy and CuPy.

What: ``num_edges`` edges whose endpoints are drawn independently and
uniformly from ``0..n-1`` (``n = num_vertices`` or ``2**scale``; the edge
count is ``num_edges`` or ``edgefactor * n``, default edgefactor 16 as for
R-MAT).  Like R-MAT, this is the number of edges *generated*: self loops are
kept and duplicates are collapsed when the graph is built, so the graph has
slightly fewer edges.  It is the flat-degree counterpart of R-MAT: same size,
no skew, so it separates the effect of skew from the effect of size.

How: endpoint ``e`` of the source (target) list is ``hash(seed, stream, e) % n``
(:mod:`.rng`; bias below n / 2**64), made in chunks on the device.
"""

from __future__ import annotations

import numpy as np

from ..backend import vertex_dtype
from ..errors import InputError
from . import rng
from .params import check_int, exclusive

PARAMS = ("num_vertices", "scale", "num_edges", "edgefactor")
MAX_VERTICES = 2**40


def parse(params):
    which = exclusive("uniform", params, "num_vertices", "scale")
    if which is None:
        raise InputError("generate('uniform'): missing parameter 'num_vertices' (or 'scale', n = 2**scale)")
    if which == "scale":
        n = 1 << check_int("scale", params["scale"], 0, 40)
    else:
        n = check_int("num_vertices", params["num_vertices"], 0, MAX_VERTICES)
    if exclusive("uniform", params, "num_edges", "edgefactor") == "num_edges":
        m = check_int("num_edges", params["num_edges"], 0)
    else:
        m = check_int("edgefactor", params.get("edgefactor", 16), 0) * n
    if n == 0 and m > 0:
        raise InputError(f"num_edges={m}: a graph with 0 vertices can have no edges (num_vertices >= 1)")
    return {"n": n, "m": m}


def uniform_edges(xp, n, m, *, seed=0, start=0, stop=None, chunk=None):
    """Edges ``start..stop-1`` of the uniform edge list: ``(src, dst)`` arrays on ``xp``."""
    stop = m if stop is None else min(int(stop), m)
    start = max(0, int(start))
    count = max(0, stop - start)
    vdt = vertex_dtype(n)
    src = xp.empty(count, dtype=vdt)
    dst = xp.empty(count, dtype=vdt)
    chunk = (1 << 18 if xp is np else 1 << 24) if chunk is None else int(chunk)
    for s in range(start, stop, chunk):
        t = min(stop, s + chunk)
        o = slice(s - start, t - start)
        src[o] = rng.bits_below(xp, rng.random_bits(xp, seed, rng.STREAM_SRC, s, t), n)
        dst[o] = rng.bits_below(xp, rng.random_bits(xp, seed, rng.STREAM_DST, s, t), n)
    return src, dst


def size(p):
    """(vertices, edges generated) before duplicates are collapsed."""
    return p["n"], p["m"]


def scratch_bytes(p, item, chunk=None):
    """Host bytes besides the edge arrays: one chunk's random bits."""
    return 48 * min(p["m"], chunk or (1 << 18))


def edges(xp, seed, p, chunk=None):
    """``(src, dst, n, name)`` for :func:`dgraph.generators.generate`."""
    src, dst = uniform_edges(xp, p["n"], p["m"], seed=seed, chunk=chunk)
    return src, dst, p["n"], f"uniform-n{p['n']}-m{p['m']}-seed{seed}"
