"""Betweenness centrality (Brandes), unweighted, exact over the given sources.

- :func:`bc`: the public function (``dgraph.bc``, ``dgraph.betweenness_centrality``);
- :func:`implementation`: which code runs, recorded in ``Result.params["implementation"]``;
- :mod:`.program`: the BSP Program :class:`BC`, batched forward/backward supersteps (the reference);
- :mod:`.cpu`: Brandes source by source in numba, one whole numpy shard at once (the same bits);
- :mod:`.gpu` + ``bc.cu``: Brandes a batch of sources at once in CUDA, one whole CuPy shard.
"""

from __future__ import annotations

import numbers

import numpy as np

from ...errors import InputError
from ..choice import run_shape
from .program import BATCH_KEYS, BC


def implementation(backend, one_whole_shard):
    """Which code computes betweenness: ``"cpu-numba"``, ``"gpu-brandes"`` or ``"generic"``.

    On one whole shard run by the local executor (:func:`dgraph.algorithms.choice.run_shape`),
    :meth:`BC.run_steps` runs every batch in one call: ``"cpu-numba"`` (numpy) Brandes source by
    source in numba (:mod:`.cpu`), ``"gpu-brandes"`` (CuPy) a batch of sources at once in the CUDA
    kernels of :mod:`.gpu` (a launch or three a level, no superstep's array code).  ``"generic"``:
    the batched supersteps of :class:`BC` in numpy or CuPy array code, on any executor and partition
    count.  ``"cpu-numba"`` gives the generic path's bits and superstep records; ``"gpu-brandes"``
    the same records and values that agree to rounding (its dependency sums add a row in another
    order), the same bits on every run and batch size.

    >>> implementation("numpy", True), implementation("cupy", True), implementation("cupy", False)
    ('cpu-numba', 'gpu-brandes', 'generic')
    """
    if not one_whole_shard:
        return "generic"
    return "cpu-numba" if backend == "numpy" else "gpu-brandes"


def _is_vertex_id(x):
    return (isinstance(x, (numbers.Integral, str, np.str_)) and not isinstance(x, (bool, np.bool_)))


def _source_list(sources):
    """``sources`` as a list of user ids, or None for every vertex; InputError for anything else."""
    if sources is None:
        return None
    if _is_vertex_id(sources):
        return [sources]
    if isinstance(sources, np.ndarray):
        if sources.ndim != 1 or sources.dtype.kind not in "iuUO":
            raise InputError(f"sources: expected a vertex id or a 1-d list of vertex ids, got an array of "
                             f"dtype {sources.dtype} and shape {sources.shape}")
        items = sources.tolist()
    elif isinstance(sources, (list, tuple, range, set, frozenset)):
        items = list(sources)
    else:
        raise InputError(f"sources={sources!r}: expected None (every vertex), a vertex id, or a list of vertex ids")
    for x in items:
        if not _is_vertex_id(x):
            raise InputError(f"sources: {x!r} is not a vertex id (expected integers or strings)")
    if len({isinstance(x, str) for x in items}) > 1:
        raise InputError("sources: a mix of integer and string ids; expected one kind")
    return items


def _check_bool(name, value):
    if not isinstance(value, (bool, np.bool_)):
        raise InputError(f"{name}={value!r}: expected True or False")
    return bool(value)


def bc(G, sources=None, *, normalized=True, endpoints=False, backend=None, executor=None, exchange="butterfly",
       fanout=None, transport="auto", batch_size=None, on_step=None, progress=False):
    """Betweenness centrality (Brandes), unweighted: column ``bc`` (float64).

    ``sources=None`` is exact betweenness over every source: Brandes'
    algorithm does a BFS from *every* vertex, O(n * m) work, so it is meant
    for small graphs (thousands of vertices); on big graphs give a sample
    of sources.  Edge weights, if any, are ignored (every edge counts 1).

    Parameters
    ----------
    G : Graph or PartitionedGraph
    sources : None, vertex id or list of vertex ids, optional
        None (every vertex), one vertex id, or a list of distinct vertex ids
        (an empty list gives zeros).
    normalized, endpoints : bool, optional
        As in NetworkX (see Notes).
    backend, executor, exchange, fanout, transport, on_step, progress
        As in :func:`dgraph.bfs`.
    batch_size : int or None, optional
        Sources advanced together per superstep (each one costs ``28 * n``
        bytes on every shard); None: ``max(1, 2**21 // n)``.  Every batch
        size gives the same bits.

    Returns
    -------
    Result
        Column ``bc``; ``params["implementation"]`` says which code ran
        (see :func:`implementation`).

    Raises
    ------
    VertexNotFoundError
        A source is not a vertex of ``G``.
    InputError
        A source is given twice, or an argument has the wrong type.

    See Also
    --------
    dgraph.bfs : the forward pass alone.
    networkx.betweenness_centrality : the reference the tests compare with.

    Notes
    -----
    Brandes, "A faster algorithm for betweenness centrality" (J. Math.
    Sociol. 2001), in Gunrock's two-pass form (section 5.3), with the
    sources of a batch advanced together (McLaughlin and Bader); the
    Program is :class:`BC` (:mod:`dgraph.algorithms.bc.program`).

    NetworkX equivalences (``H = G.to_networkx()``, checked in the tests):

    - ``bc(G, normalized=x, endpoints=y)`` equals
      ``nx.betweenness_centrality(H, normalized=x, endpoints=y)``.
    - ``bc(G, sources=S, normalized=x)`` (``endpoints=False``) equals
      ``nx.betweenness_centrality_subset(H, sources=S, targets=list(H), normalized=x)``:
      the dependencies of the given sources summed *exactly* (no
      extrapolation to all sources), scaled as the all-sources betweenness
      is (normalized: divided by ``(n-1)(n-2)``; unnormalized: halved for an
      undirected graph).  ``sources=list(H)`` is the all-sources betweenness.
    - with ``endpoints=True``: the same sum with NetworkX's endpoint rule
      (``bc[s] += reached - 1``, ``+1`` to every reached ``v != s``), scaled
      as the all-sources betweenness (normalized: ``1 / (n (n-1))``); so
      ``nx.betweenness_centrality(H, k=len(S), seed=r, endpoints=True, normalized=x)``,
      whose random sample is ``S``, equals ``n / len(S)`` times it.
      (Without endpoints that sampled estimate is ``n-1`` over ``len(S)``
      times it at the vertices outside ``S`` and over ``len(S) - 1`` inside.)

    Every executor, partition count and batch size returns the same bits,
    except one whole CuPy graph (``"gpu-brandes"``), whose dependency sums
    add each row in another fixed order (the same bits every run, equal to
    the others to rounding); NetworkX sums in another order too, so it
    agrees to rounding (the tests use rtol 1e-9).

    Examples
    --------
    >>> import dgraph
    >>> G = dgraph.from_edges([0, 1, 2], [1, 2, 3])      # the path 0 - 1 - 2 - 3
    >>> r = dgraph.bc(G, normalized=False)
    >>> r.bc.tolist()
    [0.0, 2.0, 2.0, 0.0]
    >>> r.params["implementation"]
    'cpu-numba'
    >>> dgraph.bc(G, sources=[0], normalized=False).bc.tolist()   # the dependencies of vertex 0 only, halved
    [0.0, 1.0, 0.5, 0.0]
    """

    from ...engine.run import run_program  # noqa: PLC0415

    normalized = _check_bool("normalized", normalized)
    endpoints = _check_bool("endpoints", endpoints)
    if batch_size is not None and (isinstance(batch_size, (bool, np.bool_))
                                   or not isinstance(batch_size, numbers.Integral) or batch_size < 1):
        raise InputError(f"batch_size={batch_size!r}: expected a positive integer or None")
    items = _source_list(sources)
    impl = implementation(*run_shape(G, backend, executor))

    def make(ids):
        n = ids.n
        if items is None:
            internal = np.arange(n, dtype=np.int64)
        elif len(items) == 0:
            internal = np.empty(0, dtype=np.int64)
        else:
            internal = np.asarray(ids.to_internal(np.asarray(items), what="source"), dtype=np.int64)
            order = np.argsort(internal, kind="stable")
            repeat = internal[order][1:] == internal[order][:-1]
            if repeat.any():
                dup = items[int(order[1:][repeat].min())]
                raise InputError(f"sources: vertex {dup!r} is given more than once")
            internal = internal[order]
        batch = batch_size if batch_size is not None else max(1, BATCH_KEYS // max(n, 1))
        return BC(internal, batch, normalized=normalized, endpoints=endpoints, implementation=impl)

    return run_program(make, G, backend=backend, executor=executor, exchange=exchange, fanout=fanout,
                       transport=transport, on_step=on_step, progress=progress,
                       params={"sources": "all" if items is None else len(items), "normalized": normalized,
                               "endpoints": endpoints, "implementation": impl})


__all__ = ["bc", "implementation", "BC", "BATCH_KEYS"]
