"""The dgraph Program that runs a compiled EMV Program on every executor.

:class:`EMVRun` holds what one run needs (the program, its plan, the initial values, the graph's
sizes) and keeps each shard's :class:`~.state.ShardState`.  It sets the shard up (its layout,
fields, active marks, device), runs a round per superstep (:mod:`.rounds`), and dispatches each
step by kind: a send (:mod:`.sends`), a MESSAGE or a VERTEX step (:mod:`.vertex_steps`).
"""

from __future__ import annotations

import numpy as np

from ..engine.program import Program
from . import fuse, rounds
from .api import SENDS
from .frame import build_field
from .plan import runtime
from .sends import run_send
from .state import ShardState
from .vertex_steps import run_message, run_vertex


class EMVRun(Program):
    """The dgraph Program that runs an EMV Program on every executor."""

    replicated_result = False

    def __init__(self, program, specs, active, hops, n, num_edges, executor):
        self.program = program
        self.plan = program.plan
        self.name = program.name
        self.specs, self.initial_active = specs, active
        self.hops_requested, self.num_vertices, self.num_edges, self.executor = hops, n, num_edges, executor

    # -- setup -----------------------------------------------------------------------------
    def init(self, shard):
        from .shard import cached_layout, one_hop_layout, whole_layout  # noqa: PLC0415

        state = ShardState()
        if shard.num_parts == 1:
            state.layout = cached_layout(shard, ("whole",), lambda: whole_layout(shard))
        elif self.hops_requested == 1 and not (shard.directed and self.plan.reads_weight):
            state.layout = cached_layout(shard, ("one-hop",), lambda: one_hop_layout(shard))
        else:
            state.layout = cached_layout(shard, ("multi-hop", self.hops_requested, self.executor), None)
            if state.layout is None:
                return state  # the layout needs every partition's arcs: the first superstep gathers them
            state.hops, state.hop_costs = state.layout.hops, state.layout.costs
        self._start(shard, state)
        return state

    def _start(self, shard, state):
        """The fields, marks and (engine 'emv-cuda') device of a shard whose layout is known."""
        xp = shard.xp
        lay = state.layout
        state.hops = lay.hops
        state.hops_left = lay.hops
        L = None if lay.whole else lay.L  # one partition: local ids are global ids, no gather
        state.fields = {f.name: build_field(xp, self.specs[f.name], f, L, self.num_vertices)
                        for f in self.program.fields}
        state.fuse = fuse.enabled()
        engine = runtime("numpy" if xp is np else "cupy", shard.num_parts, state.fuse)
        if engine == "emv-cuda":
            from .device import Device  # noqa: PLC0415

            state.device = Device.take(lay, self.program.message)
        if self.plan.queue:
            if self.initial_active is None:
                state.active_marks = xp.ones(lay.size, dtype=bool)
            elif state.device is not None:  # marked and queued on the device: the first send reads the queue
                state.active_marks = xp.zeros(lay.size, dtype=bool)
                state.device.seed(np.unique(self.initial_active), state.active_marks, lay.degree)
            else:
                m = xp.zeros(self.num_vertices, dtype=bool)
                m[xp.asarray(self.initial_active)] = True
                state.active_marks = m if L is None else m[L]
        if self.plan.has_aggs:
            rounds.initial_aggregates(self, shard, state)

    def _setup(self, shard, state, contributions):
        """The multi-hop layout from every partition's arcs (the first superstep's exchange)."""
        from .shard import cached_layout, multi_hop_layouts  # noqa: PLC0415

        row_bytes = sum(f.dtype.itemsize for f in self.program.fields) + 1
        auto = self.hops_requested == "auto"
        state.layout, state.hops, state.hop_costs = multi_hop_layouts(
            shard, [c.arrays for c in contributions], 1 if auto else self.hops_requested, self.executor,
            row_bytes, auto)
        state.layout.costs = state.hop_costs
        cached_layout(shard, ("multi-hop", self.hops_requested, self.executor), lambda: state.layout)
        self._start(shard, state)
        return {"stop": False, "setup": 1, "iterations": 0, "hops": state.hops,
                "estimates": ", ".join(f"n={h}: {s * 1e3:.3g} ms" for h, s in state.hop_costs.items())}

    def initial_report(self, shard, state):
        return {"stop": self.num_vertices == 0 or self.plan.max_iterations == 0 or
                (self.plan.queue and self.initial_active is not None and len(self.initial_active) == 0),
                "iterations": 0}

    def converged(self, report, step):
        return bool(report.get("stop"))

    # -- rounds ------------------------------------------------------------------------------
    def superstep(self, shard, state, ctx):
        return rounds.run_round(self, shard, state)

    def receive(self, shard, state, contributions, ctx):
        if state.layout is None:
            return self._setup(shard, state, contributions)
        return rounds.merge_round(self, shard, state, contributions)

    def run_steps(self, shard, state, ctx, limit):
        """A fixed iteration count on one whole CuPy shard (no halt votes, no queue): every iteration
        queued on the device at once, the aggregates kept there, the message counts and the
        per-iteration times (CUDA events) read back once at the end."""
        plan = self.plan
        if state.device is None or plan.queue or plan.votes or plan.max_iterations is None or state.next_step != 0:
            return None
        k = min(limit, plan.max_iterations - state.iteration)
        if k < 2:
            return None
        cp = state.device.cp
        events = [cp.cuda.Event() for _ in range(k + 1)]
        events[0].record()
        host_sent = []
        for j in range(k):
            state.messages = 0
            for pc in range(len(plan.traced)):
                self.run_step(state, pc)
            state.iteration += 1
            if plan.has_aggs:
                rounds.aggregates(self, shard, state, state.aggregates, device=True)
            state.device.keep()
            host_sent.append(state.messages)
            events[j + 1].record()
        events[-1].synchronize()
        kept = state.device.kept_values()
        first = state.iteration - k
        return [({"stop": first + j + 1 >= plan.max_iterations, "iterations": first + j + 1,
                  "messages": int(host_sent[j] + kept[j, 3]), "hops": state.hops},
                 cp.cuda.get_elapsed_time(events[j], events[j + 1]) * 1e-3) for j in range(k)]

    def run_step(self, state, i):
        """Step ``i``, by kind (numpy's floating-point warnings off: the expressions are the user's)."""
        t = self.plan.traced[i]
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            if t.kind in SENDS:
                run_send(self, state, i)
            elif t.kind == "MESSAGE":
                run_message(self, state, t)
            else:
                run_vertex(self, state, i, t)

    def finish(self, shard, state):
        if state.layout is None:
            return {f.name: shard.xp.full(shard.num_rows, f.default, dtype=f.dtype) for f in self.program.fields
                    if f.name in self.program.outputs}
        own = state.layout.owned
        if state.device is not None:
            state.device.release(state.layout)
            state.device = None
        return {f: state.fields[f][:own] for f in self.program.outputs}


__all__ = ["EMVRun"]
