"""The width of SSSP's near/far buckets: Davidson et al.'s heuristic and the weight summary it reads.

``delta`` (when not given) follows the near/far heuristic of Davidson et
al. that Gunrock's SSSP descends from: ``delta = 32 * mean weight / mean
out-degree`` (32: a warp's width), so that one bucket holds about a warp's
worth of relaxations per frontier vertex; it is rounded to the nearest power
of two (exact bucket bounds, and the same value whatever the partitioning);
with no edges or only zero weights, delta = 1.  The constant and the power
of the degree depend on what a superstep costs where the run goes
(:func:`delta_for`): see the constants below and the package docstring,
:mod:`dgraph.algorithms.sssp`.  The same pass over the weights finds the
first negative one (an error, raised before any work).
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from ...errors import InputError

#: Davidson et al.'s constant in delta = C * mean weight / mean degree (a warp's width)
DELTA_FACTOR = 32.0

#: the constant on CuPy, where a superstep costs ~0.2-0.3 ms of launches and syncs whatever its
#: size, so fewer, fuller buckets pay (H100, dgraph bench sssp / benchmarks/sssp-delta-sweep.py:
#: rmat20 20.0 ms at delta 0.5 (32x), 14.8 ms at 2, 14.3 ms at inf; 1000x1000 grid 841 ms at 4 (32x),
#: 571 ms at 32, 518 ms at 64)
GPU_DELTA_FACTOR = 256.0

#: a whole graph on numpy: delta = CPU_DELTA_FACTOR * mean weight / mean degree ** CPU_DELTA_POWER
#: (2-core CPU, docs/BENCHMARKS.md "SSSP on the CPU: small buckets": rmat20 best at delta 1/512-1/256,
#: 0.61-0.63 s, 0.93-1.10 s at the rule of 32's 0.5; the grid flat from 1/4 to 4, 115-125 ms; the
#: directed rmat20 0.67-0.70 s at 1/256-1/64, 0.86 s at 1)
CPU_DELTA_FACTOR = 8.0
CPU_DELTA_POWER = 2


def weight_summary(shard):
    """(arcs, weight sum, first negative arc as (src, dst, weight) in internal ids, or None)."""
    xp = shard.xp
    m = shard.num_arcs
    if shard.weights is None:
        return m, float(m), None
    w = shard.weights
    with np.errstate(over="ignore"):  # a sum past float64's range is inf (auto_delta then takes 1)
        total = float(w.astype(np.float64, copy=False).sum()) if m else 0.0
    low = float(w.min()) if m else 0.0  # one reduction; the mask below only when it can find something
    if not low < 0 and not math.isnan(low):
        return m, total, None
    neg = xp.flatnonzero(w < 0)
    if len(neg) == 0:
        return m, total, None
    local = xp.searchsorted(shard.indptr, neg, side="right") - 1
    src = (local + shard.row_base) if shard.contiguous else shard.rows[local]
    src = src.astype(np.int64)
    dst = shard.indices[neg].astype(np.int64)
    i = int(xp.argmin(src * max(shard.n, 1) + dst))
    return m, total, (int(src[i]), int(dst[i]), w[neg[i]].item())


def graph_summary(G):
    """weight_summary over a Graph or a PartitionedGraph (a tiny task per shard when distributed);
    kept on the graph, whose arrays do not change (like its CSC): two reductions and their reads
    over every weight were 0.2-0.3 ms of each GPU run on rmat20."""
    cache = getattr(G, "__dict__", None)
    if cache is None:
        return _summarize(G)
    if "_sssp_weight_summary" not in cache:
        cache["_sssp_weight_summary"] = _summarize(G)
    return cache["_sssp_weight_summary"]


def _summarize(G):
    from ...graph import Graph  # noqa: PLC0415
    from ...partition.partitioned import PartitionedGraph  # noqa: PLC0415
    from ...partition.shard import whole_graph_shard  # noqa: PLC0415

    if isinstance(G, Graph):
        parts = [weight_summary(whole_graph_shard(G))] if G.num_vertices else [(0, 0.0, None)]
    elif isinstance(G, PartitionedGraph):
        if G.distributed:
            G.ensure_shards()
            parts = G.client.gather([G.client.submit(weight_summary, f, pure=False, workers=[G.workers[q]])
                                     for q, f in enumerate(G.shards)])
        else:
            parts = [weight_summary(s) for s in G.shards]
    else:
        return None
    m = sum(p[0] for p in parts)
    total = sum(p[1] for p in parts)
    negs = [p[2] for p in parts if p[2] is not None]
    return m, total, (min(negs) if negs else None), G.num_vertices


def auto_delta(num_arcs, weight_sum, num_vertices, factor=DELTA_FACTOR, power=1):
    """Davidson et al.'s near/far delta, 32 * mean weight / mean out-degree, to the nearest power of
    two (1 when there are no edges or only zero weights); ``factor`` replaces the 32 (CuPy: 256),
    ``power`` is that of the mean degree (a whole graph on numpy: 8 * w / d ** 2).

    The power of two keeps every bucket bound ``k * delta`` exact, and makes the value independent of
    the order the weights were summed in (one sum per shard, then added up), so every partitioning
    of a graph reports the same delta and the same supersteps (a whole numpy Graph takes the
    small-bucket rule instead: pass ``delta=`` to compare it superstep by superstep).
    """
    if num_arcs == 0 or not weight_sum > 0:
        return 1.0
    mean_weight = weight_sum / num_arcs
    mean_degree = num_arcs / max(num_vertices, 1)
    raw = factor * mean_weight / mean_degree ** power
    if not math.isfinite(raw) or raw <= 0:
        return 1.0
    return math.ldexp(1.0, round(math.log2(raw)))


def check_delta(delta):
    if delta is None:
        return None
    if isinstance(delta, bool) or not isinstance(delta, numbers.Real) or not float(delta) > 0:
        raise InputError(f"delta={delta!r}: expected a number > 0 (the width of a near/far bucket), or None")
    return float(delta)


def delta_for(on_gpu, whole_graph, num_arcs, weight_sum, num_vertices):
    """The automatic delta of a run: the rule of 256 on CuPy, the small-bucket rule for a whole
    numpy Graph (its supersteps run inside numba), the rule of 32 otherwise."""
    if on_gpu:
        return auto_delta(num_arcs, weight_sum, num_vertices, GPU_DELTA_FACTOR)
    if whole_graph:
        return auto_delta(num_arcs, weight_sum, num_vertices, CPU_DELTA_FACTOR, CPU_DELTA_POWER)
    return auto_delta(num_arcs, weight_sum, num_vertices, DELTA_FACTOR)


__all__ = ["auto_delta", "delta_for", "check_delta", "graph_summary", "weight_summary", "DELTA_FACTOR",
           "GPU_DELTA_FACTOR", "CPU_DELTA_FACTOR", "CPU_DELTA_POWER"]
