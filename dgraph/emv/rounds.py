"""The round/replica protocol: one dgraph superstep is one *round* of EMV steps.

A round runs the steps in order, iteration after iteration (:func:`run_round`), until the replicas
run out of valid hops (before a send that would read an outdated replica), or an iteration ends
whose stop the partitions must agree on.  Its contribution (:func:`contribution`) carries the
owners' new values of the fields the replicas need, the active marks, and per iteration end the
halt vote, the activity, the message count and the aggregates.  :func:`merge_round` refreshes the
replicas (the round's only exchange) and combines the ends: if the partitions find that the run
stopped at an earlier iteration of the round, each restores the owned state it saved there
(:func:`snapshot`), so the hop count never changes the answer.
"""

from __future__ import annotations

import numpy as np

from ..backend import to_backend
from ..engine.program import Contribution
from .api import SENDS
from .frame import build_field
from .state import vertex_env
from .trace import evaluate

#: the contribution key of the active marks
ACTIVE = "__active__"


def run_round(run, shard, state):
    """Steps until the round must end; the round's contribution."""
    from .shard import arcs_of  # noqa: PLC0415

    if state.layout is None:
        return Contribution(arcs_of(shard), {"setup": 1})
    plan = run.plan
    lay = state.layout
    nsteps = len(plan.traced)
    state.hops_left = lay.hops
    state.snapshots = []
    ends = []
    state.messages = 0
    while True:
        t = plan.traced[state.next_step]
        if t.kind in SENDS and not lay.whole and state.hops_left == 0:
            break
        run.run_step(state, state.next_step)
        state.next_step += 1
        if state.next_step < nsteps:
            continue
        state.next_step = 0
        state.iteration += 1
        ends.append(end_of_iteration(run, state))
        state.continues = False
        if plan.max_iterations is not None and state.iteration >= plan.max_iterations:
            break
        if lay.whole or not plan.sends or plan.has_aggs or state.hops_left < len(plan.sends):
            break
        if plan.votes or plan.queue:
            state.snapshots.append(snapshot(run, state))
    return contribution(run, shard, state, ends)


def end_of_iteration(run, state):
    """(halt vote, activity, messages, iteration) of the iteration that just ended, as floats."""
    own = state.layout.owned
    qok = False
    if state.device is not None:  # one read: the kernels' counts since the last one
        newly, _, cont, sent = state.device.read()
        state.continues, state.messages, qok = state.continues or bool(cont), state.messages + sent, state.device.qok
    act = (newly > 0 if qok else bool(state.active_marks[:own].any())) if run.plan.queue else False
    return (0.0 if state.continues else 1.0, 1.0 if act else 0.0, float(state.messages), state.iteration)


def snapshot(run, state):
    """The owned values of the written fields (and marks) now, to restore if the run stopped here."""
    own = state.layout.owned
    snap = {f: state.fields[f][:own].copy() for f in run.plan.written}
    if state.active_marks is not None:
        snap[ACTIVE] = state.active_marks[:own].copy()
    return snap, state.iteration


def refresh_names(run, state):
    """The fields a replica refresh sends: every written field with n hops, only those read at the
    head with one."""
    plan = run.plan
    return plan.written if state.hops > 1 else [f for f in plan.written if f in plan.head_reads]


def contribution(run, shard, state, ends):
    """The round's contribution: replica values (several partitions), and per iteration end its
    halt vote, activity, messages and aggregates."""
    lay = state.layout
    arrays = {}
    if not lay.whole:
        for f in refresh_names(run, state):
            arrays[f] = state.fields[f][lay.send_local]
        if state.active_marks is not None:
            arrays[ACTIVE] = state.active_marks[lay.send_local].astype(np.uint8)
        if state.rounds == 0:
            arrays["ids"] = lay.send_ids
    counters = {"ends": float(len(ends))}
    for j, (halt, act, sent, it) in enumerate(ends):
        counters[f"halt{j}"], counters[f"act{j}"], counters[f"sent{j}"] = halt, act, sent
    if ends and run.plan.has_aggs:
        aggs = {}
        aggregates(run, shard, state, aggs)
        counters.update((f"agg{si}_{i}", v) for (si, i), v in aggs.items())
    return Contribution(arrays, counters)


def aggregates(run, shard, state, out, device=False):
    """Each ``v.graph.sum(...)`` over the owned vertices into ``out[(step, i)]``: floats, or
    (``device``) one-value device arrays, nothing read back."""
    xp = shard.xp
    own = state.layout.owned
    env = vertex_env(run, state, slice(0, own))
    for si, t in enumerate(run.plan.traced):
        for i, e in enumerate(t.aggs):
            val = evaluate(e, env, xp)
            if np.ndim(val):
                total = xp.asarray(val).sum()
                out[(si, i)] = total.astype(np.float64, copy=False) if device else float(total)
            else:
                out[(si, i)] = float(val) * own


def initial_aggregates(run, shard, state):
    """The aggregates of the first iteration: every partition evaluates them over all vertices."""
    xp = shard.xp
    n = run.num_vertices
    everyone = {f.name: build_field(xp, run.specs[f.name], f, None, n) for f in run.program.fields}
    deg = shard.degree
    for si, t in enumerate(run.plan.traced):
        for i, e in enumerate(t.aggs):
            env = vertex_env(run, state, slice(0, n), fields=everyone, L=xp.arange(n), degree=deg)
            state.aggregates[(si, i)] = float(xp.asarray(evaluate(e, env, xp)).sum()) if n else 0.0


def merge_round(run, shard, state, contributions):
    """Refresh the replicas from the owners, agree on where the run stopped (restoring the
    snapshot of that iteration), combine the aggregates; the round's report."""
    xp = shard.xp
    lay = state.layout
    if not lay.whole:
        names = refresh_names(run, state) + ([ACTIVE] if state.active_marks is not None else [])
        for q, c in enumerate(contributions):
            if q == shard.part:
                continue
            if q not in lay.recv:
                ids = to_backend(c.arrays["ids"], xp)
                pos = lay.lmap[ids]
                keep = pos >= lay.owned
                lay.recv[q] = (pos[keep], keep)
            pos, keep = lay.recv[q]
            for f in names:
                vals = to_backend(c.arrays[f], xp)[keep]
                if f == ACTIVE:
                    state.active_marks[pos] = vals.astype(bool)
                else:
                    state.fields[f][pos] = vals
    state.rounds += 1
    plan = run.plan
    nends = int(contributions[0].counters["ends"])
    stop_at = None
    sent = 0.0
    for j in range(nends):
        sent += sum(c.counters[f"sent{j}"] for c in contributions)
        it = state.iteration - (nends - 1 - j)
        halt = plan.votes and all(c.counters[f"halt{j}"] > 0 for c in contributions)
        empty = plan.queue and not any(c.counters[f"act{j}"] > 0 for c in contributions)
        if halt or empty or (plan.max_iterations is not None and it >= plan.max_iterations):
            stop_at = j
            break
    if stop_at is not None and stop_at < nends - 1:
        snap, it = state.snapshots[stop_at]
        own = lay.owned
        for f, v in snap.items():
            if f == ACTIVE:
                state.active_marks[:own] = v
            else:
                state.fields[f][:own] = v
        state.iteration = it
    if nends and plan.has_aggs:
        for si, t in enumerate(plan.traced):
            for i in range(len(t.aggs)):
                state.aggregates[(si, i)] = sum(c.counters[f"agg{si}_{i}"] for c in contributions)
    return {"stop": stop_at is not None, "iterations": state.iteration, "messages": int(sent), "hops": state.hops}


__all__ = ["ACTIVE", "aggregates", "contribution", "initial_aggregates", "merge_round", "run_round"]
