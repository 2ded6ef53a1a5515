"""The Jaccard coefficient of vertex pairs, NetworkX's ``jaccard_coefficient`` semantics.

- :func:`jaccard`: the public function (``dgraph.jaccard``): given pairs, or every pair at
  distance two as a stream of chunks;
- :func:`implementation`: which code runs, recorded in ``params["implementation"]``;
- :mod:`.program`: the Programs (:class:`PairsProgram`, :class:`TwoHopProgram`), the BSP reference
  on every executor and partition count;
- :mod:`.kernels`: the three kernels' interface and their vectorized reference (numpy or CuPy);
- :mod:`.cpu`: their numba twins;
- :mod:`.solver`: the all-pairs stream of one whole shard (the row table built once);
- :mod:`.result`: :class:`PairResult`, :class:`PairStream` and how they are written.
"""

from __future__ import annotations

import numbers
import time

import numpy as np

from ...errors import InputError, VertexNotFoundError
from ..choice import KERNELS, check_kernels
from .program import PHASES, PairsProgram, TwoHopProgram
from .result import PairChunk, PairResult, PairStream, windows

#: pairs listed per chunk by default when no pairs are given (24 MiB of u, v and coefficients)
CHUNK_PAIRS = 1 << 20


def implementation(backend, one_whole_shard, kernels, all_pairs=False):
    """Which code computes the coefficients: ``"cpu-numba"`` or ``"generic"``, and for all pairs on one
    whole shard ``"+one-shard"`` after it.

    - ``"generic"``: ``kernels="generic"``, or CuPy: the vectorized kernels of :mod:`.kernels`
      (expanded lookups with ``searchsorted``; two-hop paths sorted and counted), the reference.
    - ``"cpu-numba"``: ``kernels="fused"`` on numpy: the numba kernels of :mod:`.cpu` (sorted-row
      merges; two-hop counts with a stamp array per thread), over the CPU's threads.  Given pairs on
      one whole graph whose rows hold no repeated arc (checked once a graph), the pairs are read
      straight off the CSR (:func:`.cpu.pair_coefficients`: no row table, a hub shared by
      consecutive pairs marked once).
    - ``"+one-shard"``: all pairs (``pairs=None``) on one whole shard run by the ``local`` executor:
      :class:`.solver.OneShard` builds the row table once and lists each chunk from it; otherwise
      each chunk is a run of :class:`TwoHopProgram`.

    The same pairs and the same float64 coefficients whichever runs.
    """
    kernel = "cpu-numba" if backend == "numpy" and kernels == "fused" else "generic"
    return kernel + ("+one-shard" if all_pairs and one_whole_shard else "")


def pair_ids(ids, pairs):
    """The user's pairs as an int64 (P, 2) array of internal ids; InputError naming the first bad pair."""
    if isinstance(pairs, (str, bytes, dict)):
        raise InputError(f"pairs: expected an (n, 2) array or a list of (u, v) pairs, got {type(pairs).__name__}")
    if hasattr(pairs, "to_numpy"):           # a pandas frame of two columns
        pairs = pairs.to_numpy()
    if type(pairs).__module__.startswith("cupy"):
        pairs = pairs.get()
    if not isinstance(pairs, np.ndarray):
        try:
            pairs = list(pairs)
        except TypeError:
            raise InputError(f"pairs: expected an (n, 2) array or a list of (u, v) pairs, "
                             f"got {type(pairs).__name__}") from None
    listed = not isinstance(pairs, np.ndarray)
    if listed:  # numpy would make True and False the ids 1 and 0
        for i, item in enumerate(pairs):
            if hasattr(item, "__iter__") and not isinstance(item, (str, bytes, dict)):
                bad = [x for x in item if isinstance(x, (bool, np.bool_))]
                if bad:
                    raise InputError(f"pairs[{i}] = {tuple(item)!r}: {bad[0]!r} is not a vertex id (expected "
                                     f"integers or names)")
    elif pairs.dtype.kind == "b":
        raise InputError("pairs: a boolean array; expected vertex ids (integers or names)")
    try:
        arr = np.asarray(pairs)
    except (ValueError, TypeError):
        arr = None
    if arr is not None and arr.size == 0:
        return np.zeros((0, 2), dtype=np.int64)
    if arr is None or arr.ndim != 2 or arr.shape[1] != 2:
        if arr is not None and arr.ndim == 2:
            raise InputError(f"pairs: expected an (n, 2) array of (u, v) pairs, got shape {arr.shape}")
        for i, item in enumerate(pairs):
            if isinstance(item, (str, bytes)) or not hasattr(item, "__len__") or len(item) != 2:
                raise InputError(f"pairs[{i}] = {item!r}: expected a pair (u, v) of vertex ids")
        raise InputError("pairs: expected an (n, 2) array or a list of (u, v) pairs")
    if listed and arr.dtype.kind in "US" and not all(isinstance(x, str) for pair in pairs for x in pair):
        arr = np.array(pairs, dtype=object)     # numpy made text of the numbers among names: keep each as given
    flat = arr.reshape(-1)
    if flat.dtype == object:                    # mixed kinds: each id on its own
        out = np.empty(len(flat), dtype=np.int64)
        for i, x in enumerate(flat.tolist()):
            try:
                out[i] = ids.to_internal(np.asarray([x]))[0]
            except VertexNotFoundError as exc:
                _bad(arr, i, str(exc))
        return out.reshape(-1, 2)
    try:
        return np.asarray(ids.to_internal(flat), dtype=np.int64).reshape(-1, 2)
    except VertexNotFoundError:
        pass
    lo, hi = 0, len(flat)                      # the first id that fails: bisection on prefixes
    while hi - lo > 1:
        mid = (lo + hi) // 2
        try:
            ids.to_internal(flat[:mid])
            lo = mid
        except VertexNotFoundError:
            hi = mid
    try:
        ids.to_internal(flat[hi - 1:hi])
        why = "not a vertex of the graph"
    except VertexNotFoundError as exc:
        why = str(exc)
    _bad(arr, hi - 1, why)


def _bad(arr, i, why):
    """InputError naming pair ``i // 2`` of ``arr`` and why its id ``i % 2`` is not a vertex."""
    k = i // 2
    u, v = (x.item() if hasattr(x, "item") else x for x in arr[k])
    raise InputError(f"pairs[{k}] = ({u!r}, {v!r}): {why}")


def _check(kernels, chunk_size):
    check_kernels(kernels)
    if not isinstance(chunk_size, numbers.Integral) or isinstance(chunk_size, bool) or chunk_size < 1:
        raise InputError(f"chunk_size={chunk_size!r}: expected a positive integer (pairs per chunk)")


def jaccard(G, pairs=None, *, chunk_size=CHUNK_PAIRS, kernels="fused", backend=None, executor=None,
            exchange="butterfly", fanout=None, transport="auto", on_step=None, progress=False):
    """The Jaccard coefficient of vertex pairs, as ``networkx.jaccard_coefficient``.

    The coefficient of ``(u, v)`` is ``|N(u) & N(v)| / |N(u) | N(v)|``
    (0 when the union is empty), ``N(v)`` the neighbors of ``v``, exactly as
    NetworkX computes it on the ``nx.Graph`` of the same edges: duplicate
    edges count once, a self loop puts ``v`` in its own ``N(v)`` (so in the
    union), and the intersection leaves ``u`` and ``v`` out.

    Parameters
    ----------
    G : Graph or PartitionedGraph
        Undirected.
    pairs : (n, 2) array or iterable of (u, v) pairs, optional
        The pairs (the user's vertex ids; ``u == v`` allowed).  None: every
        pair at distance exactly two (not adjacent, sharing a neighbor), each
        once, as a stream (see Returns).
    chunk_size : int, optional
        Without ``pairs``: about this many pairs per chunk of the stream
        (default 2**20; a vertex with more pairs than that is one chunk).
    kernels : {'fused', 'generic'}, optional
        'fused': numba kernels on the numpy backend (CuPy runs the
        vectorized kernels either way); 'generic': the vectorized kernels
        everywhere, the reference.  The same values either way.
    backend, executor, exchange, fanout, transport, on_step, progress
        As in :func:`dgraph.bfs` (``on_step`` also sees each chunk's records
        as the stream lists it; ``progress`` draws the runs' supersteps, and
        nothing for the one-shard stream).

    Returns
    -------
    PairResult
        With ``pairs``: ``r.u``, ``r.v`` (the user's ids, in the given
        order), ``r.jaccard`` (float64); iterating yields ``(u, v, p)`` as
        NetworkX does; ``to_pandas()``, ``write(path)`` (``dgraph.write``
        works too).  Two supersteps: ``rows`` (rows exchanged) and
        ``intersect`` (``pairs``, ``checks``).
    PairStream
        Without ``pairs``: the pairs at distance two with ``u`` before ``v``
        in the graph's vertex order, counted when it is made: ``s.total``
        pairs, ``s.nbytes`` bytes (24 a pair) for the whole output, known
        before any of it is made; iterating lists them in chunks
        (:class:`PairChunk`: ``u``, ``v``, ``jaccard``, numpy), each made
        when asked for, so the whole list is never in memory unless asked
        (``to_pandas()`` checks it fits first); ``s.write(path)`` writes
        CSV or Parquet chunk by chunk.

    Raises
    ------
    InputError
        A directed graph (NetworkX raises for one too; ``G.symmetrize()`` is
        the undirected graph of the same edges); a pair that is not two
        vertex ids of the graph (the message names its index); ``kernels``
        or ``chunk_size`` wrong.
    GraphTooLargeError
        The threads' scratch (8 or 16 bytes a vertex a thread) or a gathered
        stream does not fit in memory; or, when a stream is first iterated
        or written, its largest chunk (48 bytes a pair on the host, 24 on
        the GPU) does not fit: a smaller ``chunk_size`` then helps, unless
        one vertex alone has that many pairs.

    See Also
    --------
    networkx.jaccard_coefficient : the reference the tests compare with.

    Notes
    -----
    Without ``pairs`` NetworkX scores every non-edge (``nx.non_edges``),
    zeros included: ``n (n - 1) / 2 - E`` pairs on a sparse graph.  This
    lists the non-edges whose coefficient is not 0, which are exactly the
    pairs at distance two; every other non-edge scores 0 (the NetworkX
    backend, ``nx.jaccard_coefficient(G, backend="dgraph")``, yields those
    too, as NetworkX does).

    With pairs, each pair is computed on the shard owning ``u``, with the
    row of ``v`` sent there when another shard owns it; shard 0 gathers the
    values.  Without pairs, a counting run gives every vertex's number of
    pairs (``s.counts``) and so the chunks' sizes; each chunk is then listed
    from the rows once (one whole shard, ``"+one-shard"``) or by a run of
    :class:`TwoHopProgram` over its window of vertices.  The coefficients
    are the same float64 divisions NetworkX does: every executor, partition
    count and backend gives the same bits.  Liben-Nowell and Kleinberg,
    "The link prediction problem for social networks", 2003.

    Examples
    --------
    >>> import dgraph
    >>> G = dgraph.from_edges([0, 1, 2], [1, 2, 3])        # the path 0-1-2-3
    >>> r = dgraph.jaccard(G, [(0, 2), (0, 1), (1, 3)])
    >>> list(r)
    [(0, 2, 0.5), (0, 1, 0.0), (1, 3, 0.5)]
    >>> r.params["implementation"]
    'cpu-numba'
    >>> s = dgraph.jaccard(G)                             # every pair at distance two
    >>> s.total, s.params["implementation"]
    (2, 'cpu-numba+one-shard')
    >>> [chunk.u.tolist() for chunk in s], s.to_pandas().jaccard.tolist()
    ([[0, 1]], [0.5, 0.5])
    """
    from ...engine.run import check_callbacks, run_program, run_target  # noqa: PLC0415

    _check(kernels, chunk_size)
    check_callbacks(on_step, progress)
    t = run_target(G, backend, executor)
    G = t.graph
    if G.directed:
        raise InputError("jaccard: G is directed; the Jaccard coefficient is defined on undirected graphs "
                         "(networkx.jaccard_coefficient raises for a DiGraph too): use G.symmetrize(), "
                         "or build the graph with directed=False")
    impl = implementation(t.backend, t.whole and t.local, kernels, pairs is None)
    kernel = impl.partition("+")[0]
    opts = dict(backend=backend, executor=executor, exchange=exchange, fanout=fanout, transport=transport)
    if pairs is not None:
        internal = pair_ids(G.ids, pairs)
        r = run_program(lambda ids: PairsProgram(internal, kernel), G, on_step=on_step, progress=progress,
                        params={"implementation": impl}, **opts)
        return PairResult(G.ids, internal, r)
    if impl.endswith("+one-shard"):
        return _one_shard_stream(G, impl, kernel, chunk_size, on_step)
    return _program_stream(G, impl, kernel, chunk_size, opts, on_step, progress)


def _one_shard_stream(G, impl, kernel, chunk_size, on_step):
    """The stream of one whole shard: :class:`.solver.OneShard`'s counts, its windows listed on demand."""
    from ... import startup  # noqa: PLC0415
    from ...backend import to_numpy  # noqa: PLC0415
    from ...config import config  # noqa: PLC0415
    from ...graph import Graph  # noqa: PLC0415
    from ...partition.shard import whole_graph_shard  # noqa: PLC0415
    from .solver import OneShard  # noqa: PLC0415

    settings = config.snapshot(changed=True)
    c0 = startup.seconds()
    if G.backend == "numpy" and G.num_vertices:
        startup.import_timed("dgraph.jit")
    shard = whole_graph_shard(G) if isinstance(G, Graph) else G.local_shards()[0]

    def timed(fn):
        s0, t0 = startup.seconds(), time.perf_counter()
        out = fn()
        out = [to_numpy(a) for a in out]         # read back: the device's work is done
        return out, max(0.0, time.perf_counter() - t0 - (startup.seconds() - s0))

    made = {}

    def count():
        made["solver"] = OneShard(shard, kernel)
        return made["solver"].counts, made["solver"].degree

    (counts, degree), seconds = timed(count)
    solver = made["solver"]
    record = {"superstep": 0, "phase": "count", "pairs": int(counts.sum()) if len(counts) else 0,
              "time_s": seconds}
    if on_step is not None:
        on_step(record)

    def make(lo, hi):
        (u, v, p), s = timed(lambda: solver.window(lo, hi))
        return u, v, p, [{"phase": "pairs", "pairs": len(p), "time_s": s}], s

    return PairStream(G.ids, counts, degree, windows(counts, chunk_size), make,
                      params={"implementation": impl, "config": settings, "chunk_size": chunk_size},
                      records=[record], run_time=seconds, phases={"startup_s": startup.seconds() - c0},
                      backend=G.backend, chunk_size=chunk_size, on_step=on_step)


def _program_stream(G, impl, kernel, chunk_size, opts, on_step, progress):
    """The stream of a partitioned graph: a counting run of :class:`TwoHopProgram`, then one run a chunk."""
    from ...backend import to_numpy  # noqa: PLC0415
    from ...engine.run import run_program  # noqa: PLC0415

    n = G.num_vertices
    r = run_program(lambda ids: TwoHopProgram("count", 0, n, kernel), G, on_step=on_step, progress=progress,
                    params={"implementation": impl}, **opts)
    counts = to_numpy(r.raw("pairs")).astype(np.int64, copy=False)
    degree = to_numpy(r.raw("degree")).astype(np.int64, copy=False)

    def make(lo, hi):
        w = run_program(lambda ids: TwoHopProgram("pairs", lo, hi, kernel, degree=degree, counts=counts[lo:hi]),
                        G, **opts)
        return w.raw("u"), w.raw("v"), w.raw("jaccard"), w.stats_records, w.run_time

    return PairStream(G.ids, counts, degree, windows(counts, chunk_size), make,
                      params=dict(r.params, chunk_size=chunk_size), records=r.stats_records, run_time=r.run_time,
                      phases=r.phases, backend=r.backend, chunk_size=chunk_size, on_step=on_step)


__all__ = ["jaccard", "implementation", "pair_ids", "PairsProgram", "TwoHopProgram", "PairResult", "PairStream",
           "PairChunk", "KERNELS", "CHUNK_PAIRS", "PHASES"]
