"""The send step: one class per way of delivering a send's messages, and the function that picks one.

:func:`run_send` first offers the send to :class:`DeviceKernelSend` (one whole CuPy shard: the
message and conditions compiled into the combining kernels), which may decline; otherwise it opens
a :class:`Send` (the regions the send covers, the active heads in queue mode) and runs the first
strategy of :data:`STRATEGIES` that applies:

- :class:`HeadPush`: a fused message and few active heads: evaluate it at those heads only and
  walk their out-edges (head-major index), combining into the tails reached;
- :class:`DeviceRowSum`: a fused float64 sum with no masks on the device (PageRank's send): the
  built-in PageRank's load-balanced row sum;
- :class:`HeadGather`: a fused message: once per head, every tail reduces it over its in-edges;
- :class:`EdgeScatter`: per-edge messages and few active heads: the heads' edges only, scattered;
- :class:`EdgeBuffer`: per-edge messages a MESSAGE or MLIST step reads: the buffer is kept;
- :class:`EdgeSegment`: per-edge messages over every slot, then a segmented reduction.

Each leaves the combined messages in ``state.combined`` (``('prefix', out, counts)`` over the
first tails, or ``('list', tails, values)``), or the buffer in ``state.buffer``, and counts the
owned tails that received.
"""

from __future__ import annotations

import numpy as np

from . import fuse, kernels
from .state import full, scalar_env, slot_env, vertex_env
from .trace import evaluate

#: queue mode walks the active heads' edges when they are fewer than this share of the buffer
SPARSE_SHARE = 1 / 16


def few(lay, nheads, edges, slots):
    """Whether walking ``nheads`` heads' ``edges`` edges beats the dense gather over ``slots``."""
    return nheads <= int(lay.size * SPARSE_SHARE) and edges < slots * SPARSE_SHARE


def run_send(run, state, i):
    """Send step ``i``: the compiled device send where it takes it, else the strategy that applies."""
    if state.device is not None:
        state.device.pending = False  # set again by the device sends that leave their messages in its buffers
        if DeviceKernelSend.run(run, state, i):
            return
    send = Send(run, state, i)
    choose(send).run(send)


def choose(send):
    """The first strategy of :data:`STRATEGIES` that applies to ``send``."""
    return next(s for s in STRATEGIES if s.applies(send))


class Send:
    """One send on the array path: the regions it covers and its active heads.  Opening it does
    what every strategy needs first: in queue mode the marks go to the next send (cleared), the
    replicas lose a valid hop, the buffer of the last send is dropped."""

    def __init__(self, run, state, i):
        self.run, self.state = run, state
        self.xp = xp = state.layout.xp
        self.plan = run.plan.send_plans[i]
        self.layout = lay = state.layout
        self.combiner = run.program.combiner
        self.message = run.program.message
        self.num_heads, self.num_tails, self.num_slots = _regions(state)
        nh, ns = self.num_heads, self.num_slots
        self.active = queued = None  # the heads' marks (queue mode)
        if run.plan.queue:
            self.active = state.active_marks[:nh]
            state.active_marks, state.spare_marks = cleared(state.spare_marks, lay.size, xp), state.active_marks
            if state.device is not None:
                queued = state.device.heads()
                state.device.start_send()
        self.queued = queued
        if not lay.whole:
            state.hops_left -= 1
        state.buffer = None
        self.cindptr = lay.cindptr[: self.num_tails + 1]
        # the active heads, ascending, where walking their edges beats the dense gather
        self.heads = sparse_heads(state, self.active, ns, queued, self.message) \
            if run.plan.queue and not self.plan.materialize else None

    def head_env(self, I):
        return vertex_env(self.run, self.state, I, role="head")

    def tail_env(self, I):
        return vertex_env(self.run, self.state, I, role="tail")

    def prefix(self, out, counts):
        """Deliver combined messages over the first tails, and count the owned tails reached."""
        self.state.combined = ("prefix", out, counts)
        if self.layout.owned:
            count_sent(self.state, (counts[: self.layout.owned] > 0).sum())

    def listed(self, tails, vals):
        """Deliver combined messages to the listed tails, and count the owned ones."""
        self.state.combined = ("list", tails, vals)
        count_sent(self.state, (tails < self.layout.owned).sum())

    def slot_values(self, sel):
        """(messages, valid flags) of the buffer slots ``sel``."""
        xp, plan = self.xp, self.plan
        env = slot_env(self.run, self.state, sel)
        memo = {}
        count = (sel.stop - sel.start) if isinstance(sel, slice) else len(sel)
        vals = full(xp, evaluate(plan.value, env, xp, memo), count, self.message)
        ok = xp.ones(count, dtype=bool) if plan.cond is None else \
            full(xp, evaluate(plan.cond, env, xp, memo), count, bool)
        return vals, ok


class HeadPush:
    """A fused message with few active heads: evaluated at them only, pushed along their edges."""

    @staticmethod
    def applies(send):
        return send.plan.fused and send.heads is not None

    @staticmethod
    def run(send):
        xp, plan, heads = send.xp, send.plan, send.heads
        env = send.head_env(heads)
        memo = {}
        x = full(xp, evaluate(plan.value, env, xp, memo), len(heads), send.message)
        keep = None if plan.head_cond is None else \
            full(xp, evaluate(plan.head_cond, env, xp, memo), len(heads), bool)
        if send.queued is not None:  # the queue is in no set order; a sum combines in the heads' order
            order = xp.argsort(heads)
            heads, x, keep = heads[order], x[order], None if keep is None else keep[order]
        if keep is not None:
            heads, x = heads[keep], x[keep]
        tails, vals = kernels.push_reduce(xp, send.combiner, heads, send.layout.push_index(), x, send.num_slots,
                                          push_scratch(send.state, xp, send.message))
        if plan.tail_cond is not None and len(tails):  # a tail-only condition drops all of a tail's messages
            keep = full(xp, evaluate(plan.tail_cond, send.tail_env(tails), xp), len(tails), bool)
            tails, vals = tails[keep], vals[keep]
        send.listed(tails, vals)


class HeadGather:
    """A fused message: computed once per head, every tail reduces it over its in-edges."""

    @staticmethod
    def applies(send):
        return send.plan.fused

    @staticmethod
    def message(send):
        """(message per head, head mask or None, tail mask or None)."""
        xp, plan, nh, nt = send.xp, send.plan, send.num_heads, send.num_tails
        env = send.head_env(slice(0, nh))
        memo = {}
        x = full(xp, evaluate(plan.value, env, xp, memo), nh, send.message)
        hmask = send.active
        if plan.head_cond is not None:
            c = full(xp, evaluate(plan.head_cond, env, xp, memo), nh, bool)
            hmask = c if hmask is None else (hmask & c)
        tmask = None
        if plan.tail_cond is not None:
            tmask = full(xp, evaluate(plan.tail_cond, send.tail_env(slice(0, nt)), xp), nt, bool)
        return x, hmask, tmask

    @classmethod
    def run(cls, send):
        xp, comb, ns, nh = send.xp, send.combiner, send.num_slots, send.num_heads
        x, hmask, tmask = cls.message(send)
        bound = kernels.best_sent(xp, comb, x, hmask) if comb.op in (1, 2) and ns and nh else None
        out, counts = kernels.gather_reduce(xp, comb, send.cindptr, send.layout.cindices[:ns], x, hmask, tmask,
                                            bound, gather_buffers(send.state, xp, send.num_tails, send.message))
        send.prefix(out, counts)


class DeviceRowSum(HeadGather):
    """A fused float64 sum, no masks, on one whole CuPy shard (PageRank's send): the built-in
    PageRank's load-balanced row sum; the counts are the in-degrees (known)."""

    @staticmethod
    def applies(send):
        plan = send.plan
        return (plan.fused and send.state.device is not None and send.combiner.op == 0
                and send.message == np.float64 and send.active is None
                and plan.head_cond is None and plan.tail_cond is None)

    @classmethod
    def run(cls, send):
        from ..backend import gpu_kernels  # noqa: PLC0415

        x, _, _ = cls.message(send)
        state = send.state
        lay = state.layout
        xp = lay.xp
        device = state.device
        if device.rowsum is None:
            counts = xp.diff(lay.cindptr).astype(np.int32)
            device.rowsum = (gpu_kernels.RowSumPlan(lay.cindptr), counts,
                             int(xp.count_nonzero(counts[: lay.owned])))
        plan, counts, receivers = device.rowsum
        out = device.out[: lay.size]  # the message is float64 here; a sum send never pushes (min/max only)
        device.clean, device.pending = None, False
        gpu_kernels.gather_row_sum(lay.cindptr, lay.cindices, x, out, plan)
        state.messages += receivers
        state.combined = ("prefix", out, counts)


class EdgeScatter:
    """Per-edge messages with few active heads: the slots of their edges only, scattered to the tails."""

    @staticmethod
    def applies(send):
        return send.heads is not None

    @staticmethod
    def run(send):
        from ..backend.primitives import expand  # noqa: PLC0415

        lay = send.layout
        hptr, rid = lay.head_index()
        _, pos = expand(hptr, send.heads)
        sel = rid[pos]
        sel = sel[sel < send.num_slots]
        vals, ok = send.slot_values(sel)
        tails, comb_vals = kernels.scatter_combine(send.xp, send.combiner, lay.etail()[sel][ok], vals[ok])
        send.listed(tails, comb_vals)


def _all_slots(send):
    """(messages, valid flags) of every slot of the send, inactive heads' slots invalid."""
    vals, ok = send.slot_values(slice(0, send.num_slots))
    if send.active is not None:
        ok = ok & send.active[send.layout.cindices[: send.num_slots]]
    return vals, ok


class EdgeBuffer:
    """Per-edge messages a MESSAGE or MLIST step reads: kept in the buffer, combined when read."""

    @staticmethod
    def applies(send):
        return send.plan.materialize

    @staticmethod
    def run(send):
        vals, ok = _all_slots(send)
        send.state.buffer = (vals, ok, send.num_tails)
        send.state.combined = None


class EdgeSegment:
    """Per-edge messages over every slot, reduced per tail (a segmented reduction)."""

    @staticmethod
    def applies(send):
        return True

    @staticmethod
    def run(send):
        vals, ok = _all_slots(send)
        out, counts = kernels.segment_reduce(send.xp, send.combiner, send.cindptr, vals, ok)
        send.prefix(out, counts)


#: the array-path strategies, in the order :func:`choose` tries them
STRATEGIES = (HeadPush, DeviceRowSum, HeadGather, EdgeScatter, EdgeBuffer, EdgeSegment)


class DeviceKernelSend:
    """Send ``i`` on one whole CuPy shard compiled into the combining kernels (:mod:`.device_send`):
    a push from the queued heads where they are few, else a gather over every tail.  Declines
    (``run`` returns False) where it does not compile (sum combiners, materialized sends, small
    graphs, the leaves and operations the kernels do not take), and the array path runs."""

    @staticmethod
    def run(run, state, i):
        from . import device_send  # noqa: PLC0415
        from .vertex_steps import compiled_step  # noqa: PLC0415

        program, lay, device = run.program, state.layout, state.device
        comb = program.combiner
        if run.plan.send_plans[i].materialize or comb.op not in (1, 2) or lay.size < fuse.FUSE_MIN:
            return False
        send = compiled_step(run, state, "cuda-send", i, lambda: device_send.compile_send(
            run.plan.traced[i].send, comb.op, *device_send.send_kinds(state.fields, lay, program.message)))
        if send is None or (send.checks and not send.checks.ok(scalar_env(run, state, i))):
            return False
        xp, n, m = lay.xp, run.num_vertices, run.num_edges
        state.buffer = None
        if run.plan.queue:
            queued = DeviceKernelSend.push_heads(state) if send.pushes else None
            device.start_send(reset_in_kernel=True)
            if queued is not None:
                heads, qdeg, edges = queued
                DeviceKernelSend.clean_buffers(device, comb.identity)
                send.push(state, heads, xp.cumsum(qdeg, dtype=np.int64), edges, n, m)  # clears the heads' marks
            else:
                act = state.active_marks
                state.active_marks, state.spare_marks = cleared(state.spare_marks, lay.size, xp), state.active_marks
                send.gather(state, act, comb.identity, n, m)
        else:
            send.gather(state, None, comb.identity, n, m)
        device.clean, device.pending, device.touched = None, True, True
        state.combined = ("prefix", device.out[: lay.size], device.cnt[: lay.size])
        return True

    @staticmethod
    def push_heads(state):
        """(heads, their degrees, their edges) of a device send where pushing from them beats the
        gather (:func:`few`), else None.  Marks set off the queue (a VERTEX step on the array path)
        are counted before they are listed, so a gather costs one sync."""
        lay = state.layout
        queued = state.device.heads()
        if queued is None:
            xp = lay.xp
            if int(xp.count_nonzero(state.active_marks)) > int(lay.size * SPARSE_SHARE):
                return None
            heads = xp.flatnonzero(state.active_marks)
            qdeg = lay.degree[heads].astype(np.int64, copy=False)
            queued = (heads, qdeg, int(qdeg.sum()) if len(heads) else 0)
        return queued if few(lay, len(queued[0]), queued[2], lay.num_slots) else None

    @staticmethod
    def clean_buffers(device, identity):
        """The device's dense combine buffers at this combiner's identity and zero counts (a push
        writes only where messages arrive); a fill only where the last VERTEX kernel did not put
        them back (the buffers may come from another program's run: its identity may differ)."""
        if device.clean != identity:
            device.out.fill(identity)
            device.cnt.fill(0)
            device.clean = identity


# -- helpers ---------------------------------------------------------------------------------

def _regions(state):
    """(heads valid, tails computed, buffer slots) for the next send."""
    lay = state.layout
    if lay.whole:
        return lay.size, lay.size, lay.num_slots
    h = state.hops_left
    return lay.hb[h], lay.hb[h - 1], lay.eb[h - 1]


def count_sent(state, count):
    """Add the tails that received (a count on the backend) to the iteration's messages: on the
    device where the run keeps its counters there (no sync), else now."""
    if state.device is not None:
        state.device.add_sent(count)
    else:
        state.messages += int(count)


def sparse_heads(state, hmask, ns, queued, message):
    """The active heads (ascending) when walking their edges beats the dense gather, else None:
    at most a ``SPARSE_SHARE`` of the vertices, with fewer edges than that share of the buffer.
    ``queued``: (heads in no set order, their edges) the device counted: no scan of the marks."""
    lay = state.layout
    if hmask is None or ns == 0:
        return None
    if queued is not None:
        heads, _, edges = queued
        return heads if few(lay, len(heads), edges, ns) else None
    scratch = push_scratch(state, lay.xp, message)
    return kernels.active_heads(lay.xp, hmask, lay.push_index()[0], int(lay.size * SPARSE_SHARE),
                                ns * SPARSE_SHARE, None if scratch is None else scratch[2])


def cleared(buf, size, xp):
    """The marks of the next send: the previous send's array, cleared (no new allocation)."""
    if buf is None or len(buf) != size:
        return xp.zeros(size, dtype=bool)
    buf.fill(False)
    return buf


def gather_buffers(state, xp, nt, message):
    """(combined, counts) arrays over the first nt tails, reused from send to send on the CPU."""
    if xp is not np:
        return None
    if state.gather_buffers is None or state.gather_buffers[0].dtype != message:
        m = state.layout.size
        state.gather_buffers = (np.empty(m, dtype=message), np.empty(m, dtype=np.int32))
    return state.gather_buffers[0][:nt], state.gather_buffers[1][:nt]


def push_scratch(state, xp, message):
    """The CPU push's scratch arrays (values, flags, positions), made once a run."""
    if xp is not np:
        return None
    if state.push_scratch is None:
        m = state.layout.size
        state.push_scratch = (np.empty(m, dtype=message), np.zeros(m, dtype=bool), np.empty(m, dtype=np.int64))
    return state.push_scratch


__all__ = ["SPARSE_SHARE", "STRATEGIES", "DeviceKernelSend", "DeviceRowSum", "EdgeBuffer", "EdgeScatter",
           "EdgeSegment", "HeadGather", "HeadPush", "Send", "choose", "run_send"]
