"""Compile an EMV Program's traced steps into a plan: what the runtime needs to know before it runs.

:func:`compile_plan` checks the whole program (it must stop; MESSAGE steps need a send) and plans
each send (:class:`SendPlan`): *fused* when the message and its condition read only the head (and
conditions only the tail): the message is computed once per vertex and each tail reduces it over
its in-edges, the buffer is never written; *materialized* when a MESSAGE or MLIST step reads the
buffer, or the message reads the edge or its tail: one value per buffer slot, then a segmented
reduction.  It also finds the fields the steps write (what a replica refresh sends) and read at
the head (what a one-hop refresh must send), and whether the program reads edge weights.

:func:`runtime` is the one place that says which engine a run uses (recorded in
``Result.params["implementation"]``).
"""

from __future__ import annotations

from ..errors import EMVError
from .api import SENDS
from .trace import Expr, factors, leaves, roles


class SendPlan:
    """How one send step runs: fused (head-only value, head/tail masks) or materialized."""

    def __init__(self, tr, materialize):
        value, cond = tr.send
        self.value = value
        self.materialize = materialize  # a MESSAGE or MLIST step reads the buffer before the next send
        head_cond, tail_cond, mixed = [], [], []
        for f in ([] if cond is None else factors(cond)):
            r = roles(f)
            (head_cond if r <= {"head", "graph"} else tail_cond if r <= {"tail", "graph"} else mixed).append(f)
        self.fused = not materialize and not mixed and roles(value) <= {"head", "graph"}
        self.cond = cond
        self.head_cond = _conj(head_cond)
        self.tail_cond = _conj(tail_cond)


def _conj(fs):
    out = None
    for f in fs:
        out = f if out is None else Expr("and", out, f)
    return out


class Plan:
    """What the runtime reads of a compiled program (built by :func:`compile_plan`).

    ``traced``: the steps; ``sends``: the indices of the send steps, ``send_plans[i]`` their
    :class:`SendPlan`; ``queue`` (a step calls set_active), ``votes`` (vote_halt), ``has_aggs``
    (``v.graph.sum``); ``written``: the fields some step writes; ``head_reads``: the fields read at
    the head of an edge; ``reads_weight``: some step reads ``edges.weight``.
    """

    def __init__(self, traced, max_iterations):
        self.traced = traced
        self.max_iterations = max_iterations
        self.sends = []
        self.send_plans = {}
        self.queue = self.votes = self.has_aggs = self.reads_weight = False
        self.written = []
        self.head_reads = set()

    def weight_step(self):
        """Where the program reads edge weights: 'file:line: KIND function name()'."""
        for t in self.traced:
            if ("edge", "weight") in _all_leaves(t):
                return f"{t.where}: {t.kind} function {t.name}()"
        return "?"


def compile_plan(traced, names, max_iterations):
    """The :class:`Plan` of the traced steps over the state fields ``names``; EMVError where the
    program cannot run (it never stops; a MESSAGE step without a send)."""
    plan = Plan(traced, max_iterations)
    tr = traced
    k = len(tr)
    plan.sends = [i for i, t in enumerate(tr) if t.kind in SENDS]
    plan.queue = any(t.active is not None for t in tr)
    plan.votes = any(t.halt is not None for t in tr)
    plan.has_aggs = any(t.aggs for t in tr)
    if max_iterations is None and not (plan.votes or plan.queue):
        raise EMVError(f"{tr[0].where}: this program never stops: give max_iterations=, or call "
                       "v.vote_halt(cond) or v.set_active(cond) (queue mode stops when no vertex is active)")
    for i in plan.sends:
        j, materialize = (i + 1) % k, False
        while tr[j].kind not in SENDS:
            materialize |= tr[j].kind in ("MESSAGE", "MLIST")
            j = (j + 1) % k
            if j == i:
                break
        plan.send_plans[i] = SendPlan(tr[i], materialize)
    for t in tr:
        if t.kind in ("MESSAGE", "MLIST") and not plan.sends:
            raise EMVError(f"{t.where}: {t.kind} function {t.name}() but no ELIST/EDGE step sends messages")
    plan.written = [f for f in names if any(f in t.writes for t in tr)]
    for t in tr:
        exprs = list(t.writes.values()) + ([*t.send] if t.send else []) + [t.mvalue, t.drop, t.active, t.halt]
        for e in exprs:
            for key in leaves(e) if isinstance(e, Expr) else ():
                if key[0] == "head":
                    plan.head_reads.add(key[1])
        for e in t.writes.values():
            for key in _mreduce_leaves(e):
                if key[0] == "head":
                    plan.head_reads.add(key[1])
    plan.reads_weight = any(("edge", "weight") in _all_leaves(t) for t in tr)
    return plan


def _mreduce_leaves(e):
    out = set()
    stack = [e]
    seen = set()
    while stack:
        x = stack.pop()
        if not isinstance(x, Expr) or id(x) in seen:
            continue
        seen.add(id(x))
        if x.op == "mreduce":
            out |= leaves(x.args[1])
        stack.extend(x.args)
    return out


def _all_leaves(t):
    out = set()
    for e in list(t.writes.values()) + ([*t.send] if t.send else []) + [t.mvalue, t.drop, t.active, t.halt]:
        if isinstance(e, Expr):
            out |= leaves(e) | _mreduce_leaves(e)
    return out


def runtime(backend, num_parts, fuse):
    """Which engine runs an EMV program: ``"emv-cuda"``, ``"emv-numba"`` or ``"emv-arrays"``.

    - ``"emv-cuda"``: CuPy, one partition, ``dgraph.config.emv_fuse`` on: the VERTEX steps as
      CUDA kernels, the min/max sends compiled into the combining kernels, counters and the
      active queue kept on the device (:mod:`.device`), fixed-count runs queued at once.
    - ``"emv-numba"``: numpy with ``emv_fuse`` on: the VERTEX steps as compiled loops (:mod:`.fuse`).
    - ``"emv-arrays"``: otherwise: every step as numpy/CuPy array expressions.

    Within an engine a step its compiler does not take (an operation outside its dialect, fewer
    than ``fuse.FUSE_MIN`` vertices) runs as array expressions; the answers are the same bits.
    """
    if not fuse:
        return "emv-arrays"
    if backend == "numpy":
        return "emv-numba"
    return "emv-cuda" if num_parts == 1 else "emv-arrays"


__all__ = ["Plan", "SendPlan", "compile_plan", "runtime"]
