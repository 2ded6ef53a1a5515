"""A Program that does nothing for a fixed number of supersteps: the executor's own overhead.

Each superstep sends an empty contribution through the full exchange
schedule, so timing it measures what a superstep costs before any kernel
runs (``dgraph bench superstep``).  ``fixed=True``: where the exchange
takes fixed-size contributions without a size round (NCCL), each superstep
sends one 4-byte array that way and its receive reads one value back from
the device, as a real Program's one host read a superstep does (BFS's
bitmap exchange); elsewhere it is the ordinary empty superstep.
"""

from __future__ import annotations

import numpy as np

from .program import Contribution, Program


class Idle(Program):
    name = "idle"
    replicated_result = True

    def __init__(self, supersteps, fixed=False):
        self.supersteps = int(supersteps)
        self.fixed = bool(fixed)

    def init(self, shard):
        return {"xp": shard.xp, "one": shard.xp.zeros(1, dtype=np.int32)}

    def initial_report(self, shard, state):
        return {"frontier": 0}

    def superstep(self, shard, state, ctx):
        if self.fixed and ctx.fixed_exchange:
            return Contribution({"v": state["one"]}, fixed=True)
        return Contribution({"v": state["xp"].empty(0, dtype=np.int32)}, {})

    def receive(self, shard, state, contributions, ctx):
        if contributions[0].fixed:
            int(contributions[-1].arrays["v"][0])  # the one read a superstep
        return {"frontier": 0, "received": len(contributions)}

    def converged(self, report, step):
        return step >= self.supersteps

    def finish(self, shard, state):
        return {}
