"""Single-source shortest paths: Gunrock's advance + filter with a near/far priority queue.

Every superstep relaxes the out-edges of the *near* frontier (Gunrock
section 5.2): advance over the frontier's out-edges, compute the candidate
distance ``dist[u] + w(u, v)``, keep it where it beats ``dist[v]`` (the
atomic-min relaxation, here a ``scatter_min``), and filter the improved
vertices into the two-level priority queue of section 4.5 (delta-stepping,
Meyer and Sanders; Davidson et al.'s near/far split): a vertex whose new
distance is below the current bound is *near* and is relaxed in the next
superstep; the others wait in the *far* pile.  When no near vertex is left
the bound grows by ``delta`` (straight to the bucket holding the closest
far vertex, so empty buckets cost no superstep), and the far vertices under
the new bound become the frontier.  The run ends when both are empty.

Where everything is (one package, every SSSP line):

- ``__init__.py``: :func:`sssp`, the public function, and the hop pass (below).
- ``program.py``: the BSP Program :class:`SSSP`, whose vectorized numpy/CuPy
  superstep is the reference, and :func:`implementation`, the one function
  that picks which kernels and loops run (recorded in
  ``Result.params["implementation"]``; ``IMPLEMENTATIONS`` lists them).
- ``delta.py``: the bucket width (Davidson et al.'s heuristic) and the pass
  over the weights that also finds a negative one.
- ``cpu.py``: the numba kernels (``kernels="fused"`` on numpy).
- ``gpu.py`` + ``sssp.cuh`` / ``sssp.cu``: the CUDA kernels (on CuPy).
- ``solver.py`` + ``sssp_steps.cu``: one whole shard's many supersteps a
  call: numba's loop, the cooperative GPU launch and the host-driven GPU
  supersteps.

``delta`` (when not given) follows the near/far heuristic of Davidson et
al. that Gunrock's SSSP descends from: ``delta = 32 * mean weight / mean
out-degree`` (32: a warp's width), so that one bucket holds about a warp's
worth of relaxations per frontier vertex; it is rounded to the nearest power
of two (exact bucket bounds, and the same value whatever the partitioning);
with no edges or only zero weights, delta = 1.  A larger delta means fewer
supersteps and more re-relaxations (Bellman-Ford at delta = inf), a smaller
one the reverse (Dijkstra's order as delta -> 0).  On the CPU (numpy, one
partition) the heuristic lands among the fastest: on a 300x300 weighted
grid 1/2 to 1 times it was fastest, while delta = inf did 9x the
relaxations and took 4x as long; on RMAT scale 16 (uniform or integer
weights) every delta from 1/8 times it to inf ran within about 1.5x of each
other.  A whole graph on numpy runs its supersteps inside one numba call,
where a superstep costs microseconds and the far pile's next bucket scans
only a window of it (:mod:`dgraph.algorithms.sssp.cpu`), so small buckets pay:
there delta is ``8 * mean weight / mean out-degree ** 2`` instead
(``CPU_DELTA_FACTOR``, ``CPU_DELTA_POWER``; rmat20 from the hub: delta
1/256, 509 supersteps, 44M relaxations, 0.63 s, against 0.5 by the rule of
32: 23 supersteps, 127M relaxations, 0.93-1.10 s; the 1000x1000 grid: 1/4,
125 ms, against 4: 123 ms).  On CuPy a superstep costs 0.2-0.3 ms of launches and host syncs
whatever its size, and larger buckets win: the constant there is 256, not
32 (``GPU_DELTA_FACTOR``; the measurements are beside it).  Supersteps cost
milliseconds on the Dask executors, so a larger delta can pay there on
long, thin graphs.

Every delta gives the same bits: float64 addition is monotone, so the
distances the relaxation converges to are the unique fixed point
``dist[v] = min over in-edges of dist[u] + w`` (the smallest left-to-right
path sum), whatever order the relaxations ran in.

``kernels="fused"`` (the default) runs, on the numpy backend, each
superstep's advance + relaxation, the single-shard receive (write the
distances, split near / far) and the final parent search as numba kernels
(:mod:`dgraph.algorithms.sssp.cpu`): the best candidate per target accumulates
in scratch arrays of size n instead of gathering every frontier arc and
sorting the targets.  On CuPy the fused superstep is two CUDA launches over
the frontier's edges (:mod:`dgraph.algorithms.sssp.gpu`): an ``atomicMin`` on
the distance bits, then one on the hop counts of the ties, in place, and
the parents are one ``atomicMin`` pass over the edges; one whole CuPy shard
runs its supersteps of up to 2^20 frontier edges many at a time in one
cooperative launch (:mod:`dgraph.algorithms.sssp.solver`: grid barriers
between the phases, no host round trip; the 1000x1000 grid's 2,214
supersteps in 52 ms instead of 331 on an H100).  ``kernels="generic"``
keeps the vectorized steps of :mod:`dgraph.algorithms.sssp.program`; they are
the reference, and every kernel set gives the same bits, the same supersteps
and the same counters.  One whole numpy shard runs many supersteps per numba
call (:func:`dgraph.algorithms.sssp.solver.cpu_run_steps`): the relaxation in
place against a snapshot of the frontier, or over the CPU's threads with
per-thread running bests, and the near/far split and the next bucket in the
same kernel.

Across partitions: every shard keeps the global distance array, relaxes the
out-edges of the frontier vertices it owns and contributes, per vertex it
improved, the best new distance it found.  The contributions are merged by
minimum, identically on every shard, so every shard ends each superstep
with the same distances, the same near frontier and the same far pile; the
superstep sequence is the same whatever the partitioning.

Parents are computed once, after convergence, from the final distances:
the parent of ``v`` is the smallest-id ``u`` with an edge ``u -> v``,
``dist[u] + w(u, v) == dist[v]`` (the same float64 expression the
relaxation used, so it is exact: the edge that last lowered ``dist[v]``
satisfies it) and ``u`` one hop closer to the source (below).  Each shard finds candidates over its owned out-edges; one
final exchange reconciles them by minimum.  So every executor, partition
count, backend and delta returns the same parent array.  The source is its
own parent.

Ties are broken by hop count, so the parents always form a tree, zero-weight
cycles included: the relaxation orders candidates by (distance, hops), the
converged state is the lexicographic minimum (the shortest distance, then
the fewest edges among shortest paths), and a parent must also be exactly
one hop closer to the source (``hops[u] + 1 == hops[v]``), so following
parents always reaches the source.  Rounding can break the middle step: a
candidate made from a distance that later dropped may round to the same
final distance (a weight far larger than both) with fewer hops than any path
the final distances allow, and that vertex then has no parent.  The run
counts reached vertices without a parent and, if there are any, reruns from
the source with the final distances fixed (:func:`_hop_pass`: a breadth-first
search over the tight edges), so the hop counts, and the parents, depend on
the final distances alone.  A path whose length overflows float64 counts as
no path (distance inf, parent -1).

On the GPU one whole shard's relaxation also skips a frontier vertex whose
distance already dropped during the same superstep (it is in the next
frontier with the smaller one; rmat20 from the hub: 131M relaxations ->
72M): the answers are the same, the per-superstep records then follow the
order the GPU ran the edges in (``dgraph.config.sssp_skip_stale = False`` turns it off).
"""

from __future__ import annotations

import math
import time

import numpy as np

from ...backend import array_module, to_numpy
from ...errors import InputError
from ..choice import check_kernels
from .delta import (CPU_DELTA_FACTOR, CPU_DELTA_POWER, DELTA_FACTOR, GPU_DELTA_FACTOR, auto_delta, check_delta,
                    delta_for, graph_summary, weight_summary)
from .program import HOPS_UNSET, IMPLEMENTATIONS, SSSP, implementation


def sssp(G, source, *, delta=None, backend=None, executor=None, exchange="butterfly", fanout=None,
         transport="auto", kernels="fused", on_step=None, progress=False):
    """Shortest path distances from ``source`` by near/far delta-stepping.

    Parameters
    ----------
    G : Graph or PartitionedGraph
        The graph (``G.partition(p, ...)`` for a partitioned run).  An
        unweighted graph has weight 1 on every edge; weights must be
        non-negative.
    source : vertex id
        The start vertex, in the user's ids.
    delta : float > 0 or None
        The width of a near/far bucket (inf: Bellman-Ford, no priority
        queue).  None: ``32 * mean weight / mean out-degree`` to the nearest
        power of two (Davidson et al.'s heuristic, as in Gunrock; 1 without
        positive weights), with 256 in place of 32 on CuPy, where supersteps
        cost more than relaxations, and ``8 * mean weight / mean out-degree
        ** 2`` for a whole Graph on numpy, where they cost microseconds.
        Every delta gives the same result.
    backend, executor, exchange, fanout, transport, on_step, progress
        As in :func:`dgraph.bfs`.
    kernels : {'fused', 'generic'}
        'fused' (the default): each superstep's relaxation and the final
        parent search run as compiled kernels (numba on numpy,
        :mod:`dgraph.algorithms.sssp.cpu`; CUDA on CuPy,
        :mod:`dgraph.algorithms.sssp.gpu`), and one whole shard runs many
        supersteps a call (:mod:`dgraph.algorithms.sssp.solver`).  'generic':
        the vectorized numpy/CuPy steps, the reference the kernels are
        tested against.  All give the same bits.

    Returns
    -------
    Result
        A :class:`~dgraph.engine.result.Result` with columns ``distance``
        (float64, the sum of weights along a shortest path; inf when
        unreachable or when the sum overflows float64) and ``parent`` (the
        smallest-id ``u`` with an edge ``u -> v`` and ``distance[u] + w(u, v)
        == distance[v]`` on a shortest path with the fewest edges, i.e. ``u``
        one edge closer to the source; the source is its own parent; -1 when
        unreachable), in the user's vertex ids.  ``r.params`` records
        ``delta`` (the value used), ``implementation`` (the kernels and loop
        that ran: a key of ``dgraph.algorithms.sssp.IMPLEMENTATIONS``) and,
        when the hop pass ran, ``hop_pass`` (its supersteps).

    Raises
    ------
    InputError
        A negative weight (naming the edge, before any work), ``delta`` not
        a number > 0, ``kernels`` not 'fused' or 'generic', a ``source``
        not in the graph.

    See Also
    --------
    dgraph.bfs : hop distances (every weight 1) by level-synchronous search.

    Notes
    -----
    Delta-stepping: U. Meyer and P. Sanders, "Delta-stepping: a
    parallelizable shortest path algorithm", J. Algorithms 49 (2003); the
    near/far split and the delta heuristic of A. Davidson, S. Baxter, M.
    Garland and J. D. Owens, "Work-efficient parallel GPU methods for
    single-source shortest paths", IPDPS 2014, as Gunrock runs them (Wang et
    al., "Gunrock: GPU graph analytics", ACM TOPC 2017, sections 4.5 and
    5.2).  Ties are broken by hop count, so the parents form a tree, and the
    results are the same bits whatever the executor, partitioning, backend,
    kernels or delta (:mod:`dgraph.algorithms.sssp`).

    Examples
    --------
    >>> import dgraph
    >>> G = dgraph.from_edges([0, 0, 1, 2], [1, 2, 2, 3], weights=[4.0, 1.0, 2.0, 5.0])
    >>> r = dgraph.sssp(G, source=0)
    >>> r.distance.tolist(), r.parent.tolist()
    ([0.0, 3.0, 1.0, 6.0], [0, 2, 0, 2])
    >>> r.params["implementation"]
    'cpu-numba+steps'
    >>> dgraph.sssp(G, 0, kernels="generic").distance.tolist()
    [0.0, 3.0, 1.0, 6.0]
    """
    from ...engine.run import run_program  # noqa: PLC0415
    from ...graph import Graph  # noqa: PLC0415

    check_kernels(kernels)
    delta = check_delta(delta)
    on_gpu = (backend or getattr(G, "backend", "numpy")) == "cupy"
    summary = graph_summary(G)
    if summary is not None:
        m, total, neg, n = summary
        if neg is not None:
            u, v, w = neg
            ids = G.ids
            uu, vv = (x.item() if hasattr(x, "item") else x for x in ids.to_user(np.array([u, v])))
            raise InputError(f"weights: edge {uu!r} -> {vv!r} has weight {w!r}; "
                             f"sssp needs non-negative weights")
        if delta is None:  # a whole numpy Graph: supersteps in numba, small buckets pay
            delta = delta_for(on_gpu, isinstance(G, Graph), m, total, n)
    impl = implementation("cupy" if on_gpu else "numpy", _whole(G), kernels, _executor(G, executor))

    def run(width, dist=None):
        def make(ids):
            return SSSP(ids.to_internal(source, what="source"), width, implementation=impl, dist=dist)

        return run_program(make, G, backend=backend, executor=executor, exchange=exchange, fanout=fanout,
                           transport=transport, on_step=on_step, progress=progress, vertex_columns=("parent",),
                           missing={"distance": math.inf, "parent": -1},
                           params={"source": source, "delta": delta, "implementation": impl})

    r = run(1.0 if delta is None else delta)
    if getattr(G, "weighted", True):  # unit weights: whole distances, exact, so no rounded tie (_hop_pass)
        if not (r.on_workers and _remote_orphans(r) == 0):
            r.amend(lambda cols: _hop_pass(r, cols, run))  # (a lost worker is reported by the fetch, as before)
    return r


def _remote_orphans(r):
    """:func:`_orphans` of a result left on the Dask workers, counted where each part is (nothing
    moves but the counts): when it is 0 the result needs no hop pass and stays on the workers, so
    ``to_pandas()`` only reads it and ``to_dask()`` makes its partitions where they are.  The shards
    count them as they finish (:meth:`SSSP.tally`: spmd, and ``tasks`` when every shard's count came
    with its event); otherwise a task on every worker counts them after the run, its time added to
    ``r.run_time`` and kept as ``r.phases["check_s"]``.  None when the count could not be made (a
    worker holding a part is gone, or the task failed): the check then runs when the result is
    read, as it did before, and that read reports a lost worker."""
    from ...engine.faults import gather_or_lost, wait_or_lost  # noqa: PLC0415

    tallies = getattr(r._remote, "tallies", None) or {}
    if "orphans" in tallies:
        return tallies["orphans"]
    t = time.perf_counter()
    remote = r._remote
    where = []
    try:
        futures = remote.futures()
        where = remote.workers[:len(futures)]
        counts = [remote.client.submit(_orphans, f, workers=[w], pure=False) for f, w in zip(futures, where)]
        # a task pinned to a dead worker would wait for it forever: wait in slices, looking for losses
        wait_or_lost(remote.client, counts, where, "the check of SSSP's parents")
        total = sum(gather_or_lost(remote.client, counts, where, "the check of SSSP's parents"))
    except Exception:  # noqa: BLE001 - the read will check again, and say what is wrong
        return None
    seconds = time.perf_counter() - t
    if r.run_time is not None:
        r.run_time += seconds
    r.phases["check_s"] = seconds
    return total


def _whole(G):
    """True when the run is one shard holding every vertex in order (``Shard.whole``): a Graph, or a
    one-partition PartitionedGraph of a contiguous (range) plan."""
    from ...partition.partitioned import PartitionedGraph  # noqa: PLC0415

    if isinstance(G, PartitionedGraph):
        return G.num_parts == 1 and G.plan.contiguous
    return True


def _executor(G, executor):
    """The executor :func:`dgraph.engine.run.run_program` will use (its default when None)."""
    from ...partition.partitioned import PartitionedGraph  # noqa: PLC0415

    if executor is not None:
        return executor
    return "spmd" if isinstance(G, PartitionedGraph) and G.distributed else "local"


def _orphans(cols):
    """Reached vertices without a parent (none when the hop counts are consistent)."""
    d, par = cols["distance"], cols["parent"]
    if array_module(d) is not np:  # one launch (the three of the expression below cost ~0.2 ms of host time)
        from . import gpu  # noqa: PLC0415

        return gpu.orphans(d, par)
    return int(np.count_nonzero((d < np.inf) & (par < 0)))


def _hop_pass(r, cols, run):
    """The hop counts of the relaxation are the (distance, hops) minimum over every candidate it
    made, and a candidate made from a distance that later dropped can tie the final distance after
    rounding (``fl(d_old + w) == fl(d_new + w)`` for a weight far larger than both) with fewer hops
    than any path the final distances allow: that vertex then has no parent one hop closer.  When
    any reached vertex has no parent, a second run from the source with the final distances fixed
    and delta = inf (a breadth-first search over the tight edges, level by level) recomputes every
    hop count, and so every parent, from the final distances alone.  Its supersteps are added to
    ``r.stats`` (``phase`` "hop pass", numbered on from the first run's) and its time to
    ``r.run_time``; ``r.params['hop_pass']`` counts them.  On a Dask result the check runs on the
    workers after the run (:func:`_remote_orphans`); only when it finds an orphan does the hop pass
    run, when the columns are first fetched, its supersteps appearing in the stats from then on."""
    if not _orphans(cols):
        return cols
    again = run(math.inf, to_numpy(cols["distance"]))
    r.params["hop_pass"] = again.supersteps
    return r.absorb(again, "hop pass")


__all__ = ["sssp", "SSSP", "implementation", "IMPLEMENTATIONS", "auto_delta", "weight_summary", "HOPS_UNSET",
           "DELTA_FACTOR", "GPU_DELTA_FACTOR", "CPU_DELTA_FACTOR", "CPU_DELTA_POWER"]
