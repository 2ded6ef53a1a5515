"""The bulk-synchronous Program model that every executor runs.

A Program is written once, per shard:

- ``init(shard) -> state``: allocate the shard's per-vertex arrays.
- ``superstep(shard, state, ctx) -> report``: run the frontier kernels of one
  superstep on the shard and return a small dict of numbers (frontier size,
  edges touched, ...).  ``ctx.totals`` holds the previous superstep's reports
  summed over all shards, which is what global decisions (convergence,
  push/pull direction) are made from.
- ``converged(totals, step) -> bool``: the global stopping test.
- ``finish(shard, state) -> {column: array}``: the shard's owned results.

Executors (``local`` here; ``tasks`` and ``spmd`` on Dask) differ only in
where shards live and how reports and exchanged data travel.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class StepContext:
    step: int
    totals: dict = field(default_factory=dict)


class Program:
    """Base class; see the module docstring for the contract."""

    name = "program"
    #: per-superstep report keys summed over shards; other keys are taken from shard 0
    summed = ("frontier", "edges")

    def init(self, shard):
        raise NotImplementedError

    def initial_totals(self, shard, state) -> dict:
        """The report that precedes superstep 0 (e.g. the source as the first frontier)."""
        return {}

    def superstep(self, shard, state, ctx: StepContext) -> dict:
        raise NotImplementedError

    def converged(self, totals: dict, step: int) -> bool:
        raise NotImplementedError

    def finish(self, shard, state) -> dict:
        raise NotImplementedError


def combine_reports(program, reports):
    """Sum the ``summed`` keys of several shards' reports; others come from the first."""
    if len(reports) == 1:
        return dict(reports[0])
    out = dict(reports[0])
    for key in program.summed:
        out[key] = sum(r.get(key, 0) for r in reports)
    return out
