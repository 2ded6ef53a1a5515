"""A Program that does nothing for a fixed number of supersteps: the executor's own overhead.

Each superstep sends an empty contribution through the full exchange
schedule, so timing it measures what a superstep costs before any kernel
runs (``dgraph bench superstep``).
"""

from __future__ import annotations

import numpy as np

from .program import Contribution, Program


class Idle(Program):
    name = "idle"
    replicated_result = True

    def __init__(self, supersteps):
        self.supersteps = int(supersteps)

    def init(self, shard):
        return {"xp": shard.xp}

    def initial_report(self, shard, state):
        return {"frontier": 0}

    def superstep(self, shard, state, ctx):
        return Contribution({"v": state["xp"].empty(0, dtype=np.int32)}, {})

    def receive(self, shard, state, contributions, ctx):
        return {"frontier": 0, "received": len(contributions)}

    def converged(self, report, step):
        return step >= self.supersteps

    def finish(self, shard, state):
        return {}
