"""One shard's EMV state between supersteps, and the environments the traced expressions read.

An expression's leaves are keys such as ``("v", "rank")``, ``("head", "id")``, ``("edge",
"weight")`` or ``("graph", "num_vertices")``; :func:`vertex_env` answers them for a set of
vertices, :func:`slot_env` for a set of buffer slots (one per in-edge, tail-major).
"""

from __future__ import annotations

from ..errors import EMVError


class ShardState:
    """What one shard carries from step to step and round to round."""

    def __init__(self):
        self.layout = None           # the shard's vertices and buffer (:mod:`.shard`); None until set up
        self.fields = {}             # vertex_state field -> array over the layout's vertices
        self.next_step = 0           # the step the next round starts with
        self.iteration = 0
        self.hops_left = 0           # sends this round may still do before a replica is out of date
        self.active_marks = None     # queue mode: set_active marks since the last send (bool, local)
        self.combined = None         # after a send: ('prefix', out, counts) or ('list', tails, vals)
        self.buffer = None           # materialized buffer: (values, valid flags, tails) over the slots computed
        self.continues = False       # an owned vertex voted to continue in this iteration
        self.aggregates = {}         # (step, i) -> value at the start of the iteration
        self.rounds = 0
        self.hops = 1
        self.hop_costs = {}          # hops -> the cost model's seconds (hops='auto')
        self.snapshots = []          # per iteration end within a round: (owned written fields, iteration)
        self.messages = 0            # the tails that received, this iteration (host count)
        self.push_scratch = None     # CPU: the push's scratch arrays, reused
        self.spare_marks = None      # queue mode: the marks array of the send before, reused
        self.gather_buffers = None   # CPU: the gather's (combined, counts) buffers, reused
        self.device = None           # one whole CuPy shard: counters and queue on the device (.device)
        self.fuse = False            # dgraph.config.emv_fuse allows the fused VERTEX loops (read once a run)


def vertex_env(run, state, I, fields=None, L=None, degree=None, role="v", msg=None):
    """Leaves of a per-vertex expression over the vertices ``I`` (a slice or local ids) in ``role``
    ('v', 'head' or 'tail'); ``msg(key)`` answers the keys a VERTEX step adds (msg, received, ...)."""
    fields = state.fields if fields is None else fields
    L = state.layout.L if L is None else L
    degree = state.layout.degree if degree is None else degree
    n, m = run.num_vertices, run.num_edges

    def env(key):
        if key[0] == role:
            name = key[1]
            if name == "id":
                return L[I]
            if name == "out_degree":
                return degree[I]
            return fields[name][I]
        if key[0] == "graph":
            return n if key[1] == "num_vertices" else m
        if msg is not None:
            return msg(key)
        raise EMVError(f"{key} is not available here")  # pragma: no cover

    return env


def slot_env(run, state, sel, values=None):
    """Leaves of per-message expressions over buffer slots ``sel`` (a slice or slot ids)."""
    lay = state.layout
    cache = {}

    def env(key):
        kind = key[0]
        if kind == "graph":
            return run.num_vertices if key[1] == "num_vertices" else run.num_edges
        if kind == "mval":
            return values
        if kind == "edge":
            if lay.weights is None:
                raise EMVError(f"{run.plan.weight_step()}: reads edge weights but the graph is unweighted")
            return lay.weights[sel]
        if kind in ("head", "tail"):
            if kind not in cache:
                cache[kind] = lay.cindices[sel] if kind == "head" else lay.etail()[sel]
            idx = cache[kind]
            name = key[1]
            if name == "id":
                return lay.L[idx]
            if name == "out_degree":
                return lay.degree[idx]
            return state.fields[name][idx]
        raise EMVError(f"{key} is not available in a per-message expression")

    return env


def scalar_env(run, state, si):
    """The scalar leaves of VERTEX step ``si``: its aggregates and the graph's sizes."""
    return lambda k: state.aggregates[(si, k[1])] if k[0] == "agg" else \
        run.num_vertices if k[1] == "num_vertices" else run.num_edges


def full(xp, v, count, dtype):
    """``v`` (an array or a scalar) as an array of ``count`` values of ``dtype``."""
    if hasattr(v, "shape") and getattr(v, "ndim", 0) == 1:
        return v.astype(dtype, copy=False)
    return xp.full(count, v, dtype=dtype)


def pad(xp, a, n, fill):
    """``a`` cut or padded with ``fill`` to ``n`` values."""
    if len(a) >= n:
        return a[:n]
    out = xp.full(n, fill, dtype=a.dtype)
    out[: len(a)] = a
    return out


__all__ = ["ShardState", "full", "pad", "scalar_env", "slot_env", "vertex_env"]
