"""PageRank's whole-graph loops: many iterations in one call on one shard (``Program.run_steps``).

Chosen by :func:`~dgraph.algorithms.pagerank.program.implementation`, never re-derived here:

- 'cpu-fused' (:func:`cpu_steps`): one whole numpy shard, pull; every iteration one
  threaded numba pass (:func:`.cpu.pagerank_step`), the same bits as a superstep at a time.
- 'gpu-fused' and 'gpu-push+batched' (:func:`gpu_steps`): one GPU shard, a fixed count; every
  iteration queued on the device at once (pull: four kernels an iteration,
  :class:`.gpu.FusedIterations`), the L1 changes and the per-iteration times (CUDA events)
  read back once at the end.

Every other implementation runs a superstep at a time (:func:`run_steps` returns None).
"""

from __future__ import annotations

import numpy as np


def run_steps(program, shard, st, ctx, limit):
    """Up to ``limit`` iterations of ``program`` (a :class:`~.program.PageRank`) by the loop of its
    implementation: a list of (report, seconds), or None for a superstep at a time."""
    impl = st["impl"]
    if impl == "cpu-fused":
        return cpu_steps(program, shard, st, ctx, limit)
    if impl in ("gpu-fused", "gpu-push+batched"):
        return gpu_steps(program, shard, st, ctx, limit)
    return None


def gpu_steps(program, shard, st, ctx, limit):
    """A fixed iteration count on one GPU shard: every iteration queued on the device at once
    (pull: four kernels an iteration, :mod:`.gpu`), the L1 changes and per-iteration times (CUDA
    events) read back once at the end."""
    if shard.num_parts != 1 or program.iterations is None:
        return None
    k = min(limit, program.iterations - ctx.step)
    if k < 2:
        return None
    import cupy as cp  # noqa: PLC0415

    from .gpu import FusedIterations  # noqa: PLC0415

    fused = None
    if program.variant == "pull":
        cindptr, cindices, _ = shard.csc(edge_ids=False)
        fused = FusedIterations(cindptr, cindices, st["rank"], st["inv_deg"], st["teleport"], program.d,
                                st["plan"], st["w_in"], st["ident"])
    marks = [cp.cuda.Event() for _ in range(k + 1)]
    marks[0].record()
    deltas = []
    for i in range(k):
        if fused is not None:
            deltas.append(fused.step())
        else:
            deltas.append(program._update(shard, st, [program.superstep(shard, st, ctx)]))
        marks[i + 1].record()
    if fused is not None:
        st["rank"] = fused.rank
    marks[-1].synchronize()
    deltas = cp.stack(deltas).get()
    return [({"delta": float(deltas[i]), "n": shard.n}, cp.cuda.get_elapsed_time(marks[i], marks[i + 1]) * 1e-3)
            for i in range(k)]


def cpu_steps(program, shard, st, ctx, limit):
    """Iterations until converged() on one whole numpy shard, pull variant: each one a
    :func:`~dgraph.algorithms.pagerank.cpu.pagerank_step` (the in-edge sums, the new ranks, their
    change and the next shares in one pass); the dangling mass and the L1 change are still numpy
    sums, so the ranks and the reports are the superstep path's bits."""
    from ... import startup  # noqa: PLC0415

    if program.variant != "pull" or not shard.whole or shard.n == 0:
        return None
    from . import cpu  # noqa: PLC0415

    n = shard.n
    cindptr, cindices, _ = shard.csc(edge_ids=False)
    inv_deg = st["inv_deg"]
    w_in = st["w_in"]  # weighted: each in-edge's weight (pagerank_step_weighted)
    share = st["rank"] * inv_deg
    nxt = np.empty(n, dtype=np.float64)
    diff = np.empty(n, dtype=np.float64)
    vec = st["teleport"] is not None
    spare = np.empty(n, dtype=np.float64)  # ranks ping-pong between two buffers after the first
    out = []
    step = ctx.step
    report = ctx.report
    while len(out) < limit and not program.converged(report, step):
        sw = startup.Stopwatch()
        base = np.atleast_1d(np.asarray(program._base(shard, st), dtype=np.float64))
        old = st["rank"]
        new = spare
        if w_in is None:
            cpu.pagerank_step(cindptr, cindices, share, base, vec, program.d, inv_deg, old, new, diff, nxt)
        else:
            cpu.pagerank_step_weighted(cindptr, cindices, w_in, share, base, vec, program.d, inv_deg, old, new,
                                       diff, nxt)
        st["rank"], spare = new, old
        share, nxt = nxt, share
        report = {"delta": float(diff.sum()), "n": n}
        out.append((report, sw.lap()))
        if ctx.tick is not None:
            ctx.tick(*out[-1])
        step += 1
    return out


__all__ = ["run_steps", "cpu_steps", "gpu_steps"]
