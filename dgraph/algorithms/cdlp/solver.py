"""CDLP's whole-shard loop: many supersteps in one call on one numpy shard (``Program.run_steps``).

Chosen by :func:`~dgraph.algorithms.cdlp.program.implementation` ('cpu-numba+steps'): one
whole numpy shard (owned rows = every vertex, in order) runs the numba step of
:meth:`~dgraph.algorithms.cdlp.program.CDLP._fused_step` superstep after superstep, with no
Contribution and no gather a superstep.  Every other implementation runs a superstep at a time.
"""

from __future__ import annotations

import numpy as np


def run_steps(program, shard, st, ctx, limit):
    """Up to ``limit`` supersteps of ``program`` (a :class:`~.program.CDLP`): a list of (report,
    seconds), or None for a superstep at a time.  The labels are double-buffered: a superstep writes
    ``next`` and the two swap, so the array swapped out holds the labels before, which the
    changed-flags of the next superstep compare against (no copy)."""
    if st["impl"] != "cpu-numba+steps" or not shard.whole:
        return None
    from ... import startup  # noqa: PLC0415

    prev = st.get("next")  # a later call: ``next`` holds the labels before (None: the first superstep)
    if prev is None:
        st["next"] = np.empty_like(st["label"])
    out = []
    report, step = ctx.report, ctx.step
    while len(out) < limit and not program.converged(report, step):
        sw = startup.Stopwatch()
        label, nxt = st["label"], st["next"]
        changed = program._fused_step(shard, st, report, label, nxt, prev)
        st["label"], st["next"] = nxt, label
        prev = label
        report = {"changed": int(changed)}
        out.append((report, sw.lap()))
        if ctx.tick is not None:
            ctx.tick(*out[-1])
        step += 1
    return out


__all__ = ["run_steps"]
