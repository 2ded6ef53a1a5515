"""An EMV Program: traced steps, compiled into a plan, run as a dgraph Program.

``dgraph.emv.Program(vertex_state, message, combiner, steps, max_iterations)``
traces every step once (:mod:`.trace`) and compiles the whole program into a
:class:`~.plan.Plan` (:mod:`.plan`: the checks, how each send runs).
``run(G, init=..., hops=1)`` runs it with any executor through
:class:`~.runtime.EMVRun`: one dgraph superstep is one *round* of steps
(:mod:`.rounds`: the round/replica protocol), each send delivered by one of
the strategies of :mod:`.sends`, each VERTEX step compiled or as arrays
(:mod:`.vertex_steps`); :func:`~.plan.runtime` says which engine runs
(``Result.params["implementation"]``).

Iteration control: the run stops after ``max_iterations``, after an
iteration in which every vertex that ran a ``vote_halt`` voted to halt, or
(queue mode) after an iteration that left no vertex active.
"""

from __future__ import annotations

import numpy as np

from ..errors import EMVError
from . import fuse
from .api import trace
from .frame import init_specs, parse_combiner, parse_message, parse_state
from .plan import compile_plan, runtime


class Program:
    """A message-passing algorithm in Medusa's EMV model (see :mod:`dgraph.emv`)."""

    def __init__(self, vertex_state, *, message="f8", combiner="sum", steps=(), max_iterations=None, name="emv",
                 outputs=None):
        self.fields = parse_state(vertex_state)
        self.names = [f.name for f in self.fields]
        self.outputs = list(self.names if outputs is None else outputs)
        for o in self.outputs:
            if o not in self.names:
                raise EMVError(f"outputs: {o!r} is not a vertex_state field ({', '.join(self.names)})")
        self.message = parse_message(message)
        self.combiner = parse_combiner(combiner, self.message)
        steps = list(steps)
        if not steps:
            raise EMVError("steps: give at least one EMV function")
        if max_iterations is not None and (not isinstance(max_iterations, (int, np.integer)) or max_iterations < 0):
            raise EMVError(f"max_iterations={max_iterations!r}: expected a non-negative integer or None")
        self.max_iterations = max_iterations
        self.name = str(name)
        self.steps = steps
        self.traced = [trace(s, self.names) for s in steps]
        self.fused = {}  # (step, dtypes) -> the step's compiled loop or kernels, or None (see .vertex_steps)
        self.plan = compile_plan(self.traced, self.names, max_iterations)

    # -- running ------------------------------------------------------------------------------
    def run(self, G, *, init=None, active=None, hops=1, backend=None, executor=None, exchange="butterfly",
            fanout=None, transport="auto", on_step=None, progress=False):
        """Run on a Graph or PartitionedGraph; a Result with one column per vertex_state field.

        init : {field: scalar | array over the vertices | {vertex: value}} (others: the field's default).
        active : queue mode: the vertices active at the start (default: all).
        hops : replicas n hops deep between partitions (refreshed every n sends), or 'auto' (the cost
            model picks n); 1 on one partition.
        Other keywords as in :func:`dgraph.bfs`.
        """
        from ..engine.run import resolve_graph, run_program  # noqa: PLC0415
        from ..partition.partitioned import PartitionedGraph  # noqa: PLC0415
        from .runtime import EMVRun  # noqa: PLC0415

        if not (hops == "auto" or (isinstance(hops, (int, np.integer)) and 1 <= hops <= 16)):
            raise EMVError(f"hops={hops!r}: expected an integer 1..16 or 'auto'")
        if self.plan.has_aggs and hops != 1:
            raise EMVError("hops: a program with v.graph.sum() aggregates exchanges every iteration; use hops=1")
        G = resolve_graph(G, backend)
        if self.plan.reads_weight and not _weighted(G):
            raise EMVError(f"{self.plan.weight_step()}: reads edge weights but the graph is unweighted")
        num_edges = G.num_arcs
        ex = executor or ("spmd" if getattr(G, "distributed", False) else "local")

        def make(ids):
            specs = init_specs(self.fields, init, ids, ids.n)
            act = None
            if active is not None:
                if not self.plan.queue:
                    raise EMVError("active=: only a queue-mode program (one that calls v.set_active) "
                                   "starts from an active set")
                act = np.asarray(ids.to_internal(list(np.atleast_1d(active)), what="active vertex"), np.int64) \
                    if len(np.atleast_1d(active)) else np.empty(0, np.int64)
            return EMVRun(self, specs, act, hops, ids.n, num_edges, ex)

        vcols = tuple(f.name for f in self.fields if f.is_vertex and f.name in self.outputs)
        engine = runtime(G.backend, G.num_parts if isinstance(G, PartitionedGraph) else 1, fuse.enabled())
        return run_program(make, G, backend=backend, executor=executor, exchange=exchange, fanout=fanout,
                           transport=transport, on_step=on_step, progress=progress, vertex_columns=vcols,
                           missing={c: -1 for c in vcols},
                           params={"hops": hops, "program": self.name, "implementation": engine})

    def __repr__(self):
        steps = ", ".join(f"{t.kind}:{t.name}" for t in self.traced)
        return (f"<emv.Program {self.name}: state {', '.join(f'{f.name}:{f.dtype}' for f in self.fields)}; "
                f"message {self.message}, combiner {self.combiner.name}; steps {steps}>")


def _weighted(G):
    if hasattr(G, "weights"):
        return G.weights is not None
    return getattr(G, "weighted", True)


__all__ = ["Program"]
