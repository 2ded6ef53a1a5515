"""The random-walk GPU kernel (CUDA): the steps of every walk on one whole CuPy shard.

The CUDA twin of :mod:`.cpu` (``walks.cu`` beside this module): a thread a walk, the same draws and
tests in the same order and the same float64 operations, so the same paths bit for bit.  The
generic superstep runs a dozen array operations an attempt, each a launch over the walks still
trying; here a step is one launch, a batch of steps is queued at once with an event after each
(their times), and the host reads the counts once a batch.  Run by ``RandomWalks.run_steps``
('gpu-cuda').
"""

from __future__ import annotations

import numpy as np

from ...cuda import BLOCK, dtype_suffix, function, source

#: the CUDA source (walks.cu, with common.cuh pasted in; compiled with --fmad=false)
_SOURCE = source(__package__, "walks.cu")


def _kernel(dtype):
    return function(_SOURCE, "walk_step_" + dtype_suffix(dtype), "--fmad=false")


class Steps:
    """The device buffers of one run's steps: the per-step counts (walks moved, arcs drawn) and the
    weights (or stand-ins) the kernel reads."""

    def __init__(self, length, weights, wmax):
        import cupy as cp  # noqa: PLC0415

        self.counts = cp.zeros(2 * max(length, 1), dtype=cp.uint64)
        none = cp.empty(1, dtype=cp.float64)
        self.weights = none if weights is None else weights
        self.wmax = none if wmax is None else wmax


def run(indptr, indices, steps, weighted, biased, a_ret, a_out, a_max, paths, wkeys, first, count):
    """Queue steps ``first .. first + count - 1`` of every walk, then read their counts; -> one
    ``(walks moved, arcs drawn, seconds)`` a step (the seconds from events between the launches)."""
    import cupy as cp  # noqa: PLC0415

    walks, width = paths.shape
    kern = _kernel(indices.dtype)
    grid = ((walks + BLOCK - 1) // BLOCK,)
    events = [cp.cuda.Event()]
    events[0].record()
    for s in range(first, first + count):
        kern(grid, (BLOCK,), (indptr, indices, steps.weights, steps.wmax, np.int32(weighted), np.int32(biased),
                              np.float64(a_ret), np.float64(a_out), np.float64(a_max), paths, wkeys,
                              np.int64(walks), np.int64(width), np.int64(s), steps.counts))
        events.append(cp.cuda.Event())
        events[-1].record()
    events[-1].synchronize()
    counts = steps.counts[2 * first:2 * (first + count)].get().reshape(-1, 2)
    seconds = [cp.cuda.get_elapsed_time(a, b) * 1e-3 for a, b in zip(events, events[1:])]
    return [(int(m), int(d), t) for (m, d), t in zip(counts, seconds)]


__all__ = ["Steps", "run"]
