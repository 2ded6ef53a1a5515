"""The partitioners: range (edge-balanced 1-D), hash, and metis (through pymetis).

All three work on the host (numpy): they read the CSR offsets (range), only
the vertex count (hash), or the whole symmetrized graph (metis), and give a
:class:`~dgraph.partition.plan.PartitionPlan`.

- ``range``: consecutive vertex ranges with (nearly) equal out-arc counts, as
  ButterFly BFS splits its graphs.  Each cut goes where the prefix sum of the
  degrees (``indptr``) is nearest to a multiple of m/p; where several cut
  points give that same prefix (a run of vertices without out-edges), the one
  nearest to a multiple of n/p is taken, so vertices count too, a little: a
  graph without edges is split into equal vertex ranges.  Guarantee: every
  partition has at most ``m/p + max_degree`` out-arcs.
- ``hash``: owner = splitmix64(vertex id, seed) mod p.  Deterministic (no
  Python ``hash()``), the same on every machine and run.
- ``metis``: pymetis (METIS k-way, or recursive bisection for p <= 8) on the
  symmetrized graph without self loops, vertex weights out-degree + 1 so that
  the edge work is balanced, METIS's seed option set to ``seed``.

Empty partitions: range never makes one (p <= n).  Hash (tiny graphs) and
metis can; then, for each empty partition in increasing order, the
highest-numbered vertex of the currently largest partition (lowest number on
ties) is moved into it, so every partition owns at least one vertex.  The
move is deterministic.
"""

from __future__ import annotations

import warnings

import numpy as np

from ..backend import to_numpy
from ..errors import DGraphError, InputError
from .plan import PartitionPlan, check_num_parts

METHODS = ("range", "hash", "metis")


class MissingDependencyError(DGraphError, ImportError):
    """An optional package needed for what was asked is not installed."""


def partition_plan(G, num_parts, method="range", *, seed=0) -> PartitionPlan:
    """Split the vertices of ``G`` into ``num_parts`` partitions.

    Parameters
    ----------
    G : Graph (numpy or cupy; partitioning itself runs on the host).
    num_parts : positive int, at most ``G.num_vertices`` (a graph without
        vertices gives one empty partition with ``num_parts=1``).
    method : ``"range"`` (default), ``"hash"`` or ``"metis"`` (needs pymetis).
    seed : int; changes the hash function, and METIS's random choices.
        ``range`` ignores it.

    Every partition of the plan owns at least one vertex.
    """
    from ..graph import Graph  # noqa: PLC0415

    if not isinstance(G, Graph):
        raise InputError(f"partition_plan: expected a dgraph.Graph, got {type(G).__name__}")
    p = check_num_parts(num_parts)
    if not isinstance(method, str) or method not in METHODS:
        raise InputError(f"method={method!r}: unknown partitioning method; expected one of "
                         f"{', '.join(repr(m) for m in METHODS)}")
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise InputError(f"seed={seed!r}: expected an integer")
    n = G.num_vertices
    if n == 0 and p > 1:
        raise InputError(f"graph has 0 vertices, cannot be split into {p} partitions; use num_parts=1")
    if p > n and n > 0:
        raise InputError(f"graph has {n:,} vertices, cannot be split into {p} partitions; use at most {n:,}")
    if method == "range":
        return PartitionPlan.from_bounds(range_bounds(to_numpy(G.indptr), p), "range")
    if method == "hash":
        owner = fill_empty_parts(hash_owner(n, p, seed), p)
        return PartitionPlan(p, n, "hash", owner=owner, seed=int(seed))
    owner = fill_empty_parts(metis_owner(G, p, seed), p)
    return PartitionPlan(p, n, "metis", owner=owner, seed=int(seed))


# -- range -------------------------------------------------------------------------------------------
def range_bounds(indptr, p: int) -> np.ndarray:
    """Cut points (int64, length p+1) of p consecutive vertex ranges with balanced out-arcs.

    Cut q (0 < q < p) goes at a vertex i where ``indptr[i]`` is nearest to
    ``q*m/p`` (ties: the smaller prefix); among the vertices with that same
    prefix it takes the one nearest to ``q*n/p``.  Then the cuts are made
    strictly increasing (p <= n), so no range is empty.  Exact integer arithmetic.
    """
    from ..backend import array_module, to_numpy  # noqa: PLC0415

    xp = array_module(indptr)
    indptr = xp.asarray(indptr, dtype=np.int64)  # a CuPy indptr stays on its GPU: O(p) values are read back
    n, m = len(indptr) - 1, int(indptr[-1])
    if p == 1 or n == 0:
        return np.array([0, n], dtype=np.int64)

    def search(values, side):
        return to_numpy(xp.searchsorted(indptr, xp.asarray(values), side=side)).astype(np.int64)

    def at(i):
        return to_numpy(indptr[xp.asarray(i)]).astype(np.int64)

    q = np.arange(1, p, dtype=np.int64)
    # first i with indptr[i] >= q*m/p  <=>  p*indptr[i] >= q*m
    target = q * m                                       # compare against p*indptr
    hi = search(-(-target // p), "left")                  # ceil(q*m/p)
    lo = np.maximum(hi - 1, 0)
    above = p * at(hi) - target                           # >= 0
    below = target - p * at(lo)                           # > 0 unless hi == 0
    value = np.where((hi > 0) & (below <= above), at(lo), at(hi))
    # the run of cut points with that edge prefix, and the one nearest q*n/p inside it
    first = search(value, "left")
    last = search(value, "right") - 1
    ideal = (2 * q * n + p) // (2 * p)                     # round(q*n/p)
    cuts = np.clip(ideal, first, last)
    bounds = np.concatenate([[0], cuts, [n]]).astype(np.int64)
    # strictly increasing: bounds[q] in [q, n-p+q] and bounds[q] >= bounds[q-1] + 1
    k = np.arange(p + 1, dtype=np.int64)
    shifted = np.clip(np.maximum.accumulate(bounds - k), 0, n - p)
    return shifted + k


# -- hash ----------------------------------------------------------------------------------------------
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


def vertex_hash(vertices, seed=0) -> np.ndarray:
    """splitmix64 of ``vertex + (seed+1) * golden`` as uint64 (numpy or cupy, same module out)."""
    v = vertices.astype(np.uint64)
    s = np.uint64((int(seed) * 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF)
    with np.errstate(over="ignore"):
        z = v + _GOLDEN + s
        z = (z ^ (z >> np.uint64(30))) * _MIX1
        z = (z ^ (z >> np.uint64(27))) * _MIX2
        z = z ^ (z >> np.uint64(31))
    return z


def hash_owner(n: int, p: int, seed=0) -> np.ndarray:
    """Owner partition (int32) of vertices 0..n-1 by hashing their ids; may leave parts empty."""
    z = vertex_hash(np.arange(n, dtype=np.uint64), seed)
    return (z % np.uint64(p)).astype(np.int32)


# -- metis -----------------------------------------------------------------------------------------------
def import_pymetis():
    try:
        import pymetis  # noqa: PLC0415
    except ImportError as exc:
        raise MissingDependencyError(
            f"method='metis' needs the pymetis package, which cannot be imported ({exc}); "
            "pip install pymetis (or pip install 'dgraph-frontier[metis]'), or use method='range' or 'hash'"
        ) from None
    return pymetis


def metis_owner(G, p: int, seed=0) -> np.ndarray:
    """Owner partition (int32) from METIS on the symmetrized graph without self loops; may leave parts empty."""
    n = G.num_vertices
    if p == 1 or n == 0:
        return np.zeros(n, dtype=np.int32)
    pymetis = import_pymetis()
    H = G.to("numpy")
    vweights = np.diff(to_numpy(H.indptr)) + 1  # out-degree + 1: balance the edge work
    H = H.symmetrize().drop_self_loops()
    idx = _metis_dtype(pymetis)
    xadj = np.ascontiguousarray(to_numpy(H.indptr), dtype=idx)
    adjncy = np.ascontiguousarray(to_numpy(H.indices), dtype=idx)
    vweights = np.ascontiguousarray(vweights, dtype=idx)
    options = pymetis.Options()
    try:
        options.seed = int(seed)
    except Exception:  # an old pymetis without the option
        pass
    kw = dict(vweights=vweights, options=options)
    if hasattr(pymetis, "CSRAdjacency"):
        result = pymetis.part_graph(p, pymetis.CSRAdjacency(xadj, adjncy), **kw)
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            result = pymetis.part_graph(p, xadj=xadj, adjncy=adjncy, **kw)
    parts = result[1] if isinstance(result, tuple) else result.vertex_part
    owner = np.asarray(parts, dtype=np.int64)
    if owner.shape != (n,) or (n and (owner.min() < 0 or owner.max() >= p)):
        raise DGraphError(f"pymetis returned an invalid partition (shape {owner.shape}) for {n} vertices "
                          f"and {p} parts")
    return owner.astype(np.int32)


def _metis_dtype(pymetis):
    try:
        return pymetis.zero_copy_dtype()
    except Exception:
        return np.dtype(np.int64)


# -- empty parts ---------------------------------------------------------------------------------------
def fill_empty_parts(owner: np.ndarray, p: int) -> np.ndarray:
    """Give every empty partition one vertex, deterministically (needs p <= n).

    For each empty partition, in increasing order, the highest-numbered vertex
    of the currently largest partition (lowest partition number on ties) moves
    into it.  A largest partition has at least two vertices while any is
    empty, so no partition becomes empty by this.
    """
    n = len(owner)
    if n == 0:
        return owner
    sizes = np.bincount(owner, minlength=p)
    empty = np.flatnonzero(sizes == 0)
    if len(empty) == 0:
        return owner
    owner = owner.copy()
    for q in empty:
        big = int(np.argmax(sizes))
        v = int(np.flatnonzero(owner == big)[-1])
        owner[v] = q
        sizes[big] -= 1
        sizes[q] += 1
    return owner
