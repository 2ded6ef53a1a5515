"""CDLP's whole-shard loop: many supersteps in one call on one numpy shard (``Program.run_steps``).

Chosen by :func:`~dgraph.algorithms.cdlp.program.implementation` ('cpu-numba+steps' on numpy,
'gpu-fused+steps' on CuPy): one whole shard (owned rows = every vertex, in order) runs the numba
step of :meth:`~dgraph.algorithms.cdlp.program.CDLP._fused_step` (or the CUDA kernels of
:mod:`.gpu`) superstep after superstep, with no Contribution and no gather a superstep.  Every
other implementation runs a superstep at a time.
"""

from __future__ import annotations

import numpy as np


def run_steps(program, shard, st, ctx, limit):
    """Up to ``limit`` supersteps of ``program`` (a :class:`~.program.CDLP`): a list of (report,
    seconds), or None for a superstep at a time.  The labels are double-buffered: a superstep writes
    ``next`` and the two swap, so the array swapped out holds the labels before, which the
    changed-flags of the next superstep compare against (no copy)."""
    if st["impl"] not in ("cpu-numba+steps", "gpu-fused+steps") or not shard.whole:
        return None
    if st["impl"] == "gpu-fused+steps":
        if st.get("next") is None:  # the buffers start equal: a row the kernels never write keeps its label
            st["next"] = st["label"].copy()
        # the CUDA kernels ('gpu-fused+steps'); reads the count back: the superstep's time is real
        return _loop(program, st, ctx, limit, lambda label, nxt, report: st["plan"].step(label, nxt))
    prev = [st.get("next")]  # a later call: ``next`` holds the labels before (None: the first superstep)
    if prev[0] is None:
        st["next"] = np.empty_like(st["label"])

    def numba_step(label, nxt, report):
        changed = program._fused_step(shard, st, report, label, nxt, prev[0])
        prev[0] = label
        return changed

    return _loop(program, st, ctx, limit, numba_step)


def _loop(program, st, ctx, limit, step):
    """The supersteps until converged or ``limit``: ``step(label, next, report)`` writes ``next`` and
    returns how many labels changed; the buffers swap after each."""
    from ... import startup  # noqa: PLC0415

    out = []
    report, k = ctx.report, ctx.step
    while len(out) < limit and not program.converged(report, k):
        sw = startup.Stopwatch()
        label, nxt = st["label"], st["next"]
        changed = step(label, nxt, report)
        st["label"], st["next"] = nxt, label
        report = {"changed": int(changed)}
        out.append((report, sw.lap()))
        if ctx.tick is not None:
            ctx.tick(*out[-1])
        k += 1
    return out


__all__ = ["run_steps"]
