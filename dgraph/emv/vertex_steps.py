"""The MESSAGE and VERTEX steps: what happens to the messages a send delivered.

A MESSAGE step rewrites or drops the buffered messages (:func:`run_message`).  A VERTEX step
(:func:`run_vertex`) reads each vertex's combined message and writes its fields, active mark and
halt vote, in one of three ways:

- :func:`numba_loop`: numpy, ``emv_fuse`` on: one compiled loop over the vertices (:mod:`.fuse`);
- :func:`cuda_kernel`: one whole CuPy shard with its :class:`~.device.Device`: one CUDA kernel;
- :func:`arrays`: the traced expressions as numpy/CuPy array code (the reference; also where the
  compilers do not take a step, or below ``fuse.FUSE_MIN`` vertices).
"""

from __future__ import annotations

import numpy as np

from ..errors import EMVError
from . import fuse, kernels
from .api import SENDS
from .state import full, pad, scalar_env, slot_env, vertex_env
from .trace import evaluate

_NO_IDS = np.empty(0, np.int64)
_NO_COUNTS = np.empty(0, np.int32)
_NO_MARKS = np.zeros(1, bool)


def run_message(run, state, t):
    """MESSAGE step ``t`` over the buffered messages (none in flight: nothing to do)."""
    if state.buffer is None:
        return
    xp = state.layout.xp
    vals, ok, nt = state.buffer
    env = slot_env(run, state, slice(0, len(vals)), values=vals)
    memo = {}
    if t.mvalue is not None:
        vals = full(xp, evaluate(t.mvalue, env, xp, memo), len(vals), run.program.message)
    if t.drop is not None:
        ok = ok & ~full(xp, evaluate(t.drop, env, xp, memo), len(vals), bool)
    state.buffer = (vals, ok, nt)
    state.combined = None


def combined(run, state):
    """(tails or None, combined msg, counts) of the messages in flight (a buffer is reduced now)."""
    if state.combined is None and state.buffer is not None:
        xp = state.layout.xp
        vals, ok, nt = state.buffer
        out, counts = kernels.segment_reduce(xp, run.program.combiner, state.layout.cindptr[: nt + 1], vals, ok)
        state.combined = ("prefix", out, counts)
    return state.combined


def run_vertex(run, state, si, t):
    """VERTEX step ``si``: compiled where the run's engine and the step allow, else as arrays."""
    xp = state.layout.xp
    lay = state.layout
    nv = lay.size if lay.whole else lay.hb[state.hops_left]
    recv = combined(run, state)
    if nv >= fuse.FUSE_MIN and state.fuse and (numba_loop(run, state, si, t, recv, nv) if xp is np else
                                               state.device is not None and cuda_kernel(run, state, si, t, recv, nv)):
        return
    arrays(run, state, si, t, recv, nv)


def arrays(run, state, si, t, recv, nv):
    """VERTEX step ``si`` as array expressions over the first ``nv`` vertices (queue mode: those
    that received)."""
    xp = state.layout.xp
    lay = state.layout
    program, plan = run.program, run.plan
    if state.device is not None and t.active is not None:
        state.device.qok = False  # marks set here are not queued
    comb = program.combiner
    if plan.queue and recv is not None:
        if recv[0] == "list":
            I, msg, counts = recv[1], recv[2], None
        else:
            out, counts = recv[1], recv[2]
            I = xp.flatnonzero(counts[:nv] > 0)
            msg, counts = out[I], counts[I]
        count = len(I)
    else:
        I = slice(0, nv)
        count = nv
        msg = counts = None
        if recv is not None and recv[0] == "prefix":
            msg, counts = pad(xp, recv[1], nv, comb.identity), pad(xp, recv[2], nv, 0)
        elif recv is not None:
            everyone = xp.full(nv, comb.identity, dtype=program.message)
            c = xp.zeros(nv, dtype=np.int32)
            keep = recv[1] < nv
            everyone[recv[1][keep]] = recv[2][keep]
            c[recv[1][keep]] = 1
            msg, counts = everyone, c
    if count == 0:
        return

    def extra(key):
        if key[0] == "msg":
            return msg if msg is not None else comb.identity
        if key[0] == "received":
            return (counts > 0) if counts is not None else (msg is not None)
        if key[0] == "agg":
            return state.aggregates[(si, key[1])]
        if key[0] == "mreduce":
            return _mreduce(run, state, key[1], key[2], I, nv)
        raise EMVError(f"{t.where}: {key[0]} is not available in a {t.kind} function")

    env = vertex_env(run, state, I, msg=extra)
    memo = {}
    new = {f: evaluate(e, env, xp, memo) for f, e in t.writes.items()}
    act = None if t.active is None else evaluate(t.active, env, xp, memo)
    halt = None if t.halt is None else evaluate(t.halt, env, xp, memo)
    for f, v in new.items():
        state.fields[f][I] = v
    if act is not None:
        cur = state.active_marks[I]
        state.active_marks[I] = cur | full(xp, act, count, bool)
    if halt is not None:
        h = full(xp, halt, count, bool)
        own = lay.owned  # only the owned vertices vote (replicas vote where they are owned)
        mine = h[: min(own, count)] if isinstance(I, slice) else h[I < own]
        state.continues = state.continues or bool((~mine).any())


def _step_inputs(run, recv, idx, mout, mcnt):
    """(mode, ids, messages, counts) a compiled VERTEX step takes for the combined messages
    ``recv`` (the given placeholders where its mode reads none; see the kernels' modes), or None
    where it cannot take them (a message list outside queue mode)."""
    queue = run.plan.queue
    if recv is None:
        return 0, idx, mout, mcnt
    if recv[0] == "list":
        if not queue:
            return None
        return 1, recv[1].astype(np.int64, copy=False), recv[2], mcnt
    return (2 if queue else 0), idx, recv[1], recv[2]


def numba_loop(run, state, si, t, recv, nv):
    """VERTEX step ``si`` as one compiled loop over its vertices (:mod:`.fuse`); False where its
    expressions or the messages' form need the array path."""
    program, lay = run.program, state.layout
    key = (si, tuple((f, state.fields[f].dtype) for f in program.names), lay.L.dtype, lay.degree.dtype)
    if key not in program.fused:
        kinds = {f: fuse.kind_of(a.dtype) for f, a in state.fields.items()}
        program.fused[key] = fuse.vertex_kernel(t, kinds, fuse.kind_of(program.message), fuse.kind_of(lay.L.dtype),
                                                fuse.kind_of(lay.degree.dtype))
    step = program.fused[key]
    if step is None:
        return False
    scalars = step.scalars(scalar_env(run, state, si))
    if scalars is None:
        return False
    mdt = program.message
    inputs = _step_inputs(run, recv, _NO_IDS, np.empty(0, mdt), _NO_COUNTS)
    if inputs is None:
        return False
    mode, idx, mout, mcnt = inputs
    marks = state.active_marks if state.active_marks is not None else _NO_MARKS
    cont, _ = step.loop(mode, nv, idx, mout.astype(mdt, copy=False), mcnt.astype(np.int32, copy=False),
                        mdt.type(program.combiner.identity), lay.owned, marks, lay.L, lay.degree,
                        *(state.fields[f] for f in step.fields), *scalars)
    state.continues = state.continues or bool(cont)
    return True


def compiled_step(run, state, kind, i, build):
    """Step ``i``'s compiled kernels (``kind``: 'cuda' VERTEX, 'cuda-send'), or None: built once per
    program and dtypes (``build()``), looked up once a run."""
    got = state.device.steps.get((kind, i), False)
    if got is False:
        lay = state.layout
        program = run.program
        key = (kind, i, tuple((f, state.fields[f].dtype) for f in program.names), lay.L.dtype, lay.degree.dtype,
               None if lay.weights is None else lay.weights.dtype)
        if key not in program.fused:
            program.fused[key] = build()
        got = state.device.steps[(kind, i)] = program.fused[key]
    return got


def cuda_kernel(run, state, si, t, recv, nv):
    """VERTEX step ``si`` as one CUDA kernel on one whole CuPy shard (:func:`.fuse.cuda_vertex_kernel`);
    False where it needs the array path."""
    program, lay, dev = run.program, state.layout, state.device
    cp = dev.cp
    step = compiled_step(run, state, "cuda", si, lambda: fuse.cuda_vertex_kernel(
        t, {f: fuse.kind_of(a.dtype) for f, a in state.fields.items()}, fuse.kind_of(program.message),
        fuse.kind_of(lay.L.dtype), fuse.kind_of(lay.degree.dtype)))
    if step is None:
        return False
    aggs = [state.aggregates[(si, j)] for j in step.aggs]  # floats, or device values (run_steps)
    on_device = tuple(isinstance(v, cp.ndarray) for v in aggs)
    if step.checks and not step.checks.ok(scalar_env(run, state, si), not any(on_device)):
        return False
    mdt = program.message
    inputs = _step_inputs(run, recv, dev.none_i64, dev.none_msg, dev.none_i32)
    if inputs is None:
        return False
    mode, idx, mout, mcnt = inputs
    items = len(idx) if mode == 1 else nv
    # the last reader of the send's dense buffers (a send comes next) puts back what it read
    traced = run.plan.traced
    reset = mode == 2 and dev.pending and nv == lay.size and traced[(si + 1) % len(traced)].kind in SENDS
    if items:
        kern = step.kernel(on_device, lay.L.dtype, lay.degree.dtype)
        kern(((items + 255) // 256,), (256,),
             (np.int32(mode), np.int64(nv), idx, np.int64(len(idx)), cp.ascontiguousarray(mout.astype(mdt, copy=False)),
              np.int64(0 if mout is dev.none_msg else len(mout)), mcnt.astype(np.int32, copy=False),
              np.int64(0 if mcnt is dev.none_i32 else len(mcnt)), mdt.type(program.combiner.identity),
              np.int32(reset), np.int64(lay.owned),
              state.active_marks if state.active_marks is not None else dev.none_bool, lay.L,
              lay.degree, dev.ctl, dev.queue, dev.qdeg, *(state.fields[f] for f in step.fields),
              np.int64(run.num_vertices), np.int64(run.num_edges),
              *(v if d else np.float64(v) for v, d in zip(aggs, on_device))))
    if reset and items:
        dev.clean, dev.pending = program.combiner.identity, False
    if t.active is not None or t.halt is not None:
        dev.touched = True
    if t.active is not None:
        dev.front = None  # read again at the end of the iteration
    return True


def _mreduce(run, state, op, x, I, nv):
    """``msgs.<op>(x)`` of an MLIST step at the vertices ``I``: a segmented reduction of the buffer."""
    from .frame import parse_combiner  # noqa: PLC0415

    xp = state.layout.xp
    if state.buffer is None:
        ident = 0 if op in ("sum", "count") else (np.inf if op == "min" else -np.inf)
        return ident
    vals, ok, nt = state.buffer
    env = slot_env(run, state, slice(0, len(vals)), values=vals)
    if op == "count":
        v = xp.ones(len(vals), dtype=np.int64)
    else:  # min/max/sum of a per-message expression, in float64 (an integer sum stays integer)
        v = evaluate(x, env, xp)
        kind = getattr(v, "dtype", np.dtype(type(v))).kind
        v = full(xp, v, len(vals), np.int64 if (op == "sum" and kind in "iub") else np.float64)
    comb = parse_combiner("sum" if op == "count" else op, v.dtype)
    out, _ = kernels.segment_reduce(xp, comb, state.layout.cindptr[: nt + 1], v, ok)
    out = pad(xp, out, nv, comb.identity)
    return out[I]


__all__ = ["arrays", "combined", "compiled_step", "cuda_kernel", "numba_loop", "run_message", "run_vertex"]
