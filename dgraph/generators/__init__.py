"""Synthetic graphs: Graph500 R-MAT/Kronecker, uniform random, 2D grid.

``generate(kind, ...)`` builds a :class:`~dgraph.Graph` directly on the chosen
backend.  The same ``seed`` gives the *same graph*, bit for bit, on numpy and
on CuPy: all randomness comes from a counter-based hash of
``(seed, stream, counter)`` written with plain uint64 array arithmetic
(:mod:`.rng`), never from ``numpy.random`` or ``cupy.random``.  With
``backend="cupy"`` the edges are generated on the GPU (chunk by chunk, so the
temporaries stay small) and never pass through the host.

Modules: :mod:`.rng` (the hash), :mod:`.rmat`, :mod:`.uniform`, :mod:`.grid`
(each kind's parameters and edge arrays), :mod:`.weights` (seeded weights),
:mod:`.params` (checks).  ``rmat_edges`` / ``uniform_edges`` also make any
slice of an edge list, for building a graph in parallel.
"""

from __future__ import annotations

import numpy as np

from ..backend import get_xp
from ..errors import InputError
from . import grid, rmat, uniform
from .grid import grid_edges
from .params import check_int, check_known
from .rmat import rmat_edges, vertex_permutation
from .uniform import uniform_edges
from .weights import WEIGHT_PARAMS, edge_weights, parse_weights

KINDS = {"rmat": rmat, "uniform": uniform, "grid": grid}
ALIASES = {"kron": "rmat", "kronecker": "rmat", "graph500": "rmat", "er": "uniform", "random": "uniform",
           "erdos_renyi": "uniform"}

__all__ = ["generate", "KINDS", "ALIASES", "rmat_edges", "uniform_edges", "grid_edges", "vertex_permutation",
           "edge_weights"]


def generate(kind, *, backend="numpy", seed=0, directed=False, weighted=False, name=None, self_loops=True,
             chunk=None, **params):
    """A synthetic graph.

    Parameters
    ----------
    kind : ``"rmat"`` (aliases ``"kron"``, ``"kronecker"``, ``"graph500"``),
        ``"uniform"`` (aliases ``"er"``, ``"random"``, ``"erdos_renyi"``) or ``"grid"``.
    backend : ``"numpy"`` or ``"cupy"``; the graph is generated and built there.
    seed : integer (any, taken modulo 2**64); the same seed gives the same graph on every backend.
    directed : keep each generated edge as one arc.  The default (undirected)
        stores both directions of every edge, as Graph500 does.
    weighted : add per-edge weights, chosen by
        ``weights="uniform"`` (default): float64 uniform in ``[w_min, w_max)``,
        default ``[0, 1)`` as in the Graph500 SSSP kernel; or
        ``weights="int"``: int64 uniform in ``[1, max_weight]``, default 64.
        Weights are keyed on the generated edge, so they do not change the
        structure; duplicate edges keep their minimum weight.
    name : the graph's name (default: kind and parameters, e.g. ``"rmat-scale20-ef16-seed0"``).
    self_loops : keep (default, as Graph500 does: they are harmless to its kernels) or drop ``v -> v``.
    chunk : edges generated per step (default 2**16 on numpy, 2**24 on CuPy); the result does not depend on it.

    Kind parameters
    ---------------
    rmat : ``scale`` (n = 2**scale, 0..40), ``edgefactor=16`` (edges generated =
        edgefactor * n, before duplicates are collapsed), ``a=0.57, b=0.19,
        c=0.19`` (d = 1-a-b-c, or give ``d`` and they must sum to 1),
        ``permute=True`` (relabel vertices by a seeded random permutation, as Graph500 does).
        Scale 20 undirected gives about 31.4M stored arcs (``G.num_arcs``).
    uniform : ``num_vertices`` (or ``scale``), ``num_edges`` (or ``edgefactor=16``);
        endpoints independent and uniform; self loops kept, duplicates collapsed.
    grid : ``rows`` and ``cols`` (or ``shape=(rows, cols)``, or ``n`` for an n x n grid);
        4-neighbour grid, vertex id ``r * cols + c``; no randomness (seed sets weights only).

    Bad parameters raise :class:`~dgraph.errors.InputError` naming the parameter and what is allowed.
    """
    from ..graph.build import from_edges  # noqa: PLC0415

    mod = _module(kind)
    kind_name = mod.__name__.rsplit(".", 1)[1]
    check_known(kind_name, params, (*mod.PARAMS, *WEIGHT_PARAMS))
    seed = _seed(seed)
    for flag, value in (("directed", directed), ("weighted", weighted), ("self_loops", self_loops)):
        if not isinstance(value, (bool, np.bool_)):
            raise InputError(f"{flag}={value!r}: expected True or False")
    if chunk is not None:
        chunk = check_int("chunk", chunk, 1)
    params = dict(params)
    wspec = parse_weights(bool(weighted), params)
    p = mod.parse(params)
    xp = get_xp(backend)
    if _require_memory(xp, mod, p, kind_name, params, directed=directed, weighted=wspec is not None, chunk=chunk):
        n, m = mod.size(p)
        return _streamed(kind_name, p, seed, wspec, n, m, directed, self_loops,
                         default_name(kind_name, p, seed) if name is None else name, xp)
    src, dst, n, made_name = mod.edges(xp, seed, p, chunk=chunk)
    w = None
    if wspec is not None:
        w = edge_weights(xp, seed, len(src), wspec, chunk or (1 << 18 if xp is np else 1 << 24))
    return from_edges(src, dst, w, directed=bool(directed), num_vertices=n, self_loops=bool(self_loops),
                      name=made_name if name is None else name)


def default_name(kind, p, seed):
    """The name a generated graph gets unless given one."""
    if kind == "rmat":
        return f"rmat-scale{p['scale']}-ef{p['edgefactor']}-seed{seed}"
    return f"uniform-n{p['n']}-m{p['m']}-seed{seed}"


def _streamed(kind, p, seed, wspec, n, m, directed, self_loops, name, xp):
    """The same graph by the streaming build (counted degrees, then every arc to its slot): on a GPU
    whose memory the sort of every arc at once does not fit."""
    from ..partition.sources import GeneratedEdges  # noqa: PLC0415
    from ..partition.stream import BuildSpec, build_whole  # noqa: PLC0415

    spec = BuildSpec(num_parts=1, directed=directed, self_loops=self_loops, num_vertices=n, weighted=wspec is not None)
    return build_whole([GeneratedEdges(kind, p, seed, 0, m, wspec)], spec, xp, name=name)


def _require_memory(xp, mod, p, kind_name, params, *, directed, weighted, chunk=None):
    """GraphTooLargeError, before any edge is made, unless generating and building the graph fits
    on the GPU or in host memory (:mod:`dgraph.backend.device_memory`); True when on the GPU only
    the streaming build fits (then :func:`_streamed` makes it)."""
    from ..backend import device_memory  # noqa: PLC0415
    from ..graph.build import MAX_VERTICES  # noqa: PLC0415

    n, m = mod.size(p)
    what = f"generate({kind_name!r}, {', '.join(f'{k}={v}' for k, v in sorted(params.items()))}) " \
           f"({n:,} vertices, {m:,} edges)"
    if xp is np:
        item = 4 if n < 2**31 else 8
        # the edge arrays (and weights), the kind's own scratch, then from_edges on them
        wchunk = min(m, chunk or (1 << 18))  # the weights' hash scratch, a chunk at a time
        need = m * (2 * item + (8 if weighted else 0)) + (24 * wchunk if weighted else 0) + \
            mod.scratch_bytes(p, item, chunk) + \
            device_memory.build_bytes(m, directed, weighted, n, device="host")
        device_memory.require(need, what, device="host")
    else:
        need = device_memory.build_bytes(m, directed, weighted, n)
        per_gpu = None
        if kind_name in ("rmat", "uniform"):  # what the streaming build makes
            per_gpu = lambda parts: device_memory.partitioned_build_bytes(n, m, directed, weighted, parts)  # noqa: E731
            free = device_memory.available()[0]
            if need > free and per_gpu(1) <= free and n < MAX_VERTICES:
                return True  # the one-sort build does not fit this GPU; the streaming build does
        device_memory.require(need, what, per_gpu=per_gpu)
    if n >= MAX_VERTICES:
        raise InputError(f"{what}: graphs past 3e9 vertices are not supported yet")
    return False


def _module(kind):
    if not isinstance(kind, str) or ALIASES.get(kind.lower(), kind.lower()) not in KINDS:
        raise InputError(f"kind={kind!r}: unknown generator; expected one of "
                         f"{', '.join(map(repr, KINDS))} (aliases: "
                         f"{', '.join(f'{a}={k}' for a, k in ALIASES.items())})")
    return KINDS[ALIASES.get(kind.lower(), kind.lower())]


def _seed(seed):
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise InputError(f"seed={seed!r}: expected an integer")
    return int(seed) & ((1 << 64) - 1)
