"""Random walks, uniform or node2vec-biased: the public function, and where each part lives.

- ``program.py``: the BSP Program :class:`RandomWalks` (the semantics; its vectorized superstep
  is the reference) and :func:`implementation`, the one place that decides which code runs;
- ``kernels.py``: the walks' counter-based draws and the vectorized pieces of a step;
- ``cpu.py``: the numba kernel (one step of every walk on one whole numpy shard);
- ``gpu.py`` + ``walks.cu``: its CUDA twin (one whole CuPy shard: a thread a walk, steps queued
  in batches);
- ``result.py``: :class:`WalkResult`, a Result holding one path per walk.

Partitioned graphs run the vectorized step on either backend.  NetworkX has no random-walk
function, so there is no NetworkX backend function for this one.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from ...errors import InputError
from ..choice import check_kernels
from .program import IMPLEMENTATIONS, RandomWalks, implementation, walk_bytes
from .result import WalkResult

#: the range of node2vec's p and q: a step's expected attempts are at most max(1/p, 1, 1/q) / min(1/p, 1, 1/q)
PQ_RANGE = (0.01, 100.0)
#: walk numbers are below this: ``first_walk + len(starts) <= MAX_WALKS`` (int64 walk numbers)
MAX_WALKS = 1 << 63


def random_walks(G, starts, length, *, seed=0, first_walk=0, p=1.0, q=1.0, weighted=False, backend=None,
                 executor=None, exchange="butterfly", fanout=None, transport="auto", kernels="fused", on_step=None,
                 progress=False):
    """Random walks from the given start vertices: uniform, weighted, or biased as node2vec's.

    Walk ``i`` starts at ``starts[i]`` and takes ``length`` steps, each along an out-arc of the
    vertex it stands on (an undirected edge is an arc each way), chosen at random: every arc
    equally likely by default, in proportion to its weight with ``weighted=True``, and with
    node2vec's second-order bias when ``p`` or ``q`` is not 1.  A walk that reaches a vertex with
    no out-arc (a dead end) stops there.

    Parameters
    ----------
    G : Graph or PartitionedGraph
        The graph (``G.partition(p, ...)`` for several partitions).
    starts : list or 1-d array of vertex ids, or None
        One walk per entry, in the user's ids (repeat a vertex for several walks from it); None
        is one walk from every vertex, in ``G.vertex_ids()`` order.
    length : int
        Steps per walk (>= 0); a path has ``length + 1`` vertices.
    seed : int
        The walks' random numbers (0 <= seed < 2**64): the same seed gives the same paths on
        every backend, executor, partition count and implementation.
    first_walk : int
        The number of the first walk (default 0): the walk from ``starts[i]`` is walk number
        ``first_walk + i``, and a walk's random numbers depend only on the seed and its number.
        So the starts split over several calls, each given the number of its first start in the
        whole list, give the same paths as one call: ``random_walks(G, s[k:], L, seed=x,
        first_walk=k).paths == random_walks(G, s, L, seed=x).paths[k:]``, on any backend,
        executor and partition count.  An integer >= 0 with ``first_walk + len(starts) <= 2**63``.
    p, q : float
        node2vec's return and in-out parameters, in [0.01, 100] (1 and 1: unbiased).  Having
        come from ``t`` to ``v``, the arc ``v -> x`` is weighted by ``1/p`` if ``x == t``, by 1
        if the graph has the arc ``t -> x`` (for an undirected graph: ``x`` is a neighbor of
        ``t``), and by ``1/q`` otherwise.  The first step is unbiased.
    weighted : bool
        Take each arc with probability proportional to its weight (times node2vec's factor);
        the graph must have weights, finite and >= 0.  A vertex whose out-arcs all weigh 0 is a
        dead end.  False (the default): the weights are ignored.
    kernels : {'fused', 'generic'}
        'fused': a numba kernel on one whole numpy graph run by the local executor; 'generic':
        the vectorized step everywhere (the reference; CuPy runs it either way).  Same paths.
    backend, executor, exchange, fanout, transport, on_step, progress
        As in :func:`dgraph.bfs`.

    Returns
    -------
    WalkResult
        ``r.paths``: an int64 array of shape ``(len(starts), length + 1)`` in the user's ids,
        ``r.paths[i, 0] == starts[i]``, -1 after a dead end (an object array with None for
        graphs whose ids are names).  ``r.to_lists()``: each walk as a list, cut at its dead
        end (about 40 bytes a vertex: checked against the free memory before it is made).
        As a table (``r.to_pandas()``, ``dgraph.write(r, "walks.csv")``) one row per walk:
        ``vertex`` (the start), ``step1`` ... ``step<length>``.  Stats per superstep:
        ``frontier`` (walks that moved), ``edges`` (arcs drawn, rejected attempts included),
        ``walks`` (walks still going after it), ``waiting`` (walks whose node2vec test waits
        for the shard owning their previous vertex).  ``params["implementation"]`` names the
        code that ran (:data:`dgraph.algorithms.random_walks.IMPLEMENTATIONS`).

    Raises
    ------
    InputError
        ``length`` not an integer >= 0, ``seed`` not an integer in [0, 2**64), ``first_walk``
        not an integer >= 0 or past ``2**63 - len(starts)``, ``p`` or ``q``
        not a number in [0.01, 100], ``starts`` not a list of vertex ids, ``weighted`` on a
        graph without weights or with a negative or non-finite weight, or ``kernels`` unknown.
    VertexNotFoundError
        A start is not a vertex of the graph (the message names ``starts``).
    GraphTooLargeError
        The paths (8 bytes a vertex: ``8 * len(starts) * (length + 1)`` bytes, twice that for
        renumbered ids) or the walks' state would not fit in memory; said before anything is
        allocated, with the size.

    See Also
    --------
    dgraph.bfs : the deterministic traversal.

    Notes
    -----
    The walks of Perozzi et al., "DeepWalk" (KDD 2014) and Grover and Leskovec, "node2vec"
    (KDD 2016); Gunrock's random-walk primitive (GTC 2018) advances every walk one step a
    superstep, as here.  For a directed graph "``t -> x`` is an arc" is the paper's distance
    ``d(t, x) = 1``; node2vec's reference code tests the arc ``x -> t`` instead.  Arcs count as
    stored: a duplicate edge kept with ``dedupe=False`` is two arcs (twice as likely), the
    default graph collapses duplicates (NetworkX's view); a self loop is one arc.

    Each step draws an arc uniformly and keeps it with probability ``w / max w`` (weighted) and
    ``alpha / max(1/p, 1, 1/q)`` (node2vec), drawing again otherwise (rejection sampling, as
    KnightKing and torch_cluster): exact, and no per-vertex tables.  Every random number is a
    hash of ``(seed, walk number, step, attempt)``, so the paths are the same bits however the
    graph is partitioned.  NetworkX has no random-walk function: there is no NetworkX backend
    function for this one.

    Examples
    --------
    >>> import dgraph
    >>> G = dgraph.from_edges([0, 1, 2, 3], [1, 2, 0, 4], directed=True)   # a cycle, and 3 -> 4
    >>> dgraph.random_walks(G, [0, 3, 4], 4, seed=1).paths
    array([[ 0,  1,  2,  0,  1],
           [ 3,  4, -1, -1, -1],
           [ 4, -1, -1, -1, -1]])
    >>> H = dgraph.generate("grid", rows=3, cols=3)                        # 0 1 2 / 3 4 5 / 6 7 8
    >>> r = dgraph.random_walks(H, [0, 4], 6, seed=7)
    >>> r.to_lists()
    [[0, 3, 0, 1, 4, 7, 4], [4, 7, 8, 7, 4, 5, 4]]
    >>> r.params["implementation"]
    'cpu-numba'
    >>> dgraph.random_walks(H.partition(3, client=False), [0, 4], 6, seed=7).to_lists()  # any partitioning
    [[0, 3, 0, 1, 4, 7, 4], [4, 7, 8, 7, 4, 5, 4]]
    >>> dgraph.random_walks(H, [0, 4], 6, seed=7, p=4, q=0.25).to_lists()   # node2vec: outward favored
    [[0, 3, 6, 7, 8, 5, 2], [4, 7, 8, 5, 2, 1, 2]]
    >>> dgraph.random_walks(H, [4], 6, seed=7, first_walk=1).to_lists()    # walk 1 alone: as in [0, 4]
    [[4, 7, 8, 7, 4, 5, 4]]
    """
    from ...engine.run import run_program, run_target  # noqa: PLC0415

    length = _check_int("length", length, 0, None)
    seed = _check_int("seed", seed, 0, (1 << 64) - 1)
    first_walk = _check_int("first_walk", first_walk, 0, MAX_WALKS - 1)
    p, q = _check_pq("p", p), _check_pq("q", q)
    if not isinstance(weighted, (bool, np.bool_)):
        raise InputError(f"weighted={weighted!r}: expected True or False")
    check_kernels(kernels)
    target = run_target(G, backend, executor)
    graph = target.graph
    internal = _starts(graph.ids, starts)
    if first_walk + len(internal) > MAX_WALKS:
        raise InputError(f"first_walk={first_walk!r}: with {len(internal):,} starts the walk numbers would pass "
                         f"2**63; expected first_walk + len(starts) <= 2**63")
    if weighted:
        _check_weights(graph)
    _check_memory(graph, len(internal), length)
    impl = implementation(target.backend, target.whole and target.local, kernels)

    def make(ids):
        return RandomWalks(internal, length, seed=seed, first_walk=first_walk, p=p, q=q, weighted=bool(weighted),
                           implementation=impl)

    r = run_program(make, graph, backend=backend, executor=executor, exchange=exchange, fanout=fanout,
                    transport=transport, on_step=on_step, progress=progress,
                    params={"walks": len(internal), "length": length, "seed": seed, "first_walk": first_walk,
                            "p": p, "q": q,
                            "weighted": bool(weighted), "implementation": impl})
    return WalkResult(r, length)


def _check_int(name, value, low, high):
    ok = isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))
    if not ok or value < low or (high is not None and value > high):
        span = f"an integer >= {low}" if high is None else f"an integer in [{low}, {high + 1:#x})"
        raise InputError(f"{name}={value!r}: expected {span}")
    return int(value)


def _check_pq(name, value):
    lo, hi = PQ_RANGE
    ok = isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))
    if not ok or not math.isfinite(value) or not lo <= value <= hi:
        raise InputError(f"{name}={value!r}: expected a number in [{lo}, {hi:g}] (node2vec's "
                         f"{'return' if name == 'p' else 'in-out'} parameter; 1 is unbiased)")
    return float(value)


def _starts(ids, starts):
    """The starts as internal ids (numpy int64)."""
    from ...backend import to_numpy  # noqa: PLC0415

    if starts is None:
        return np.arange(ids.n, dtype=np.int64)
    if isinstance(starts, (list, tuple, range)):
        items = np.asarray(list(starts)) if len(starts) else np.empty(0, dtype=np.int64)
    elif hasattr(starts, "__array__") or type(starts).__module__.startswith("cupy"):
        items = to_numpy(starts)
    else:
        raise InputError(f"starts={starts!r}: expected a list or 1-d array of vertex ids (one walk each), "
                         f"or None (one walk from every vertex)")
    if items.ndim != 1:
        raise InputError(f"starts: expected a 1-d list of vertex ids, got shape {items.shape}")
    if items.dtype.kind == "b" or (items.dtype.kind == "O" and len(items) and not all(
            isinstance(x, (numbers.Integral, str)) and not isinstance(x, bool) for x in items)):
        bad = next(x for x in items if isinstance(x, (bool, np.bool_)) or not isinstance(x, (numbers.Integral, str)))
        raise InputError(f"starts: {bad!r} is not a vertex id (expected integers or names)")
    if len(items) == 0:
        return np.empty(0, dtype=np.int64)
    return np.asarray(ids.to_internal(items, what="starts: vertex"), dtype=np.int64)


def _check_weights(G):
    """``weighted=True`` needs weights, finite and >= 0 (a partitioned graph's are checked on its shards)."""
    if not getattr(G, "weighted", False):
        raise InputError("weighted=True: the graph has no edge weights (read or build it with weights, "
                         "or leave weighted=False)")
    w = getattr(G, "weights", None)
    if w is None:
        return
    xp = G.xp
    bad = ~xp.isfinite(w) | (w < 0)
    if bool(bad.any()):
        from ...backend import to_numpy  # noqa: PLC0415

        i = int(xp.flatnonzero(bad)[0])
        src = int(np.searchsorted(to_numpy(G.indptr), i, side="right")) - 1
        from ...graph.ids import show  # noqa: PLC0415

        u, v = show(G.ids.to_user(src)), show(G.ids.to_user(int(G.indices[i])))
        raise InputError(f"weighted=True: edge {u} -> {v} has weight {float(w[i])!r}; "
                         f"walk weights must be finite and >= 0")


def _check_memory(G, num_walks, length):
    """The paths (and a copy in user ids, where ids were renumbered) must fit in this process's memory."""
    from ...backend.device_memory import require_host  # noqa: PLC0415
    from ...display import plural  # noqa: PLC0415

    paths, state = walk_bytes(num_walks, length)
    local = not getattr(G, "distributed", False) and G.backend == "numpy"
    shards = getattr(G, "num_parts", 1)  # the local executor holds every shard's state in this process
    need = paths * (1 if G.ids.identity else 2) + (state * shards if local else 0)
    require_host(need, f"random_walks ({plural(num_walks, 'walk')} of length {length:,}: the paths array)",
                 advice="ask for fewer or shorter walks a call")


__all__ = ["random_walks", "RandomWalks", "WalkResult", "implementation", "IMPLEMENTATIONS", "PQ_RANGE", "MAX_WALKS"]
