"""An EMV Program: traced steps, compiled into a dgraph :class:`~dgraph.engine.program.Program`.

``dgraph.emv.Program(vertex_state, message, combiner, steps, max_iterations)``
traces every step once (:mod:`.trace`), checks the whole program, and plans
each send: *fused* when the message and its condition read only the head
(and conditions only the tail): the message is computed once per vertex and
each tail reduces it over its in-edges, the buffer is never written;
*materialized* when a MESSAGE or MLIST step reads the buffer, or the message
reads the edge or its tail: one value per buffer slot, then a segmented
reduction.  In queue mode (a step calls ``set_active``) a send with few
active heads walks their edges instead (head-major index into the buffer)
and combines into the tails it reaches.

``run(G, init=..., hops=1)`` runs it with any executor: one dgraph superstep
is one *round*: the steps run in order, iteration after iteration, until
the replicas run out of valid hops (before a send that would read an
outdated replica), or an iteration ends whose stop the partitions must
agree on; then the owners' new values refresh the replicas (the round's
only exchange) and the halt votes, queue sizes and aggregates are combined.
With n hops a round covers n sends; if the partitions find that the run
stopped at an earlier iteration of the round, each restores the owned
state it saved there, so n never changes the answer.

Iteration control: the run stops after ``max_iterations``, after an
iteration in which every vertex that ran a ``vote_halt`` voted to halt, or
(queue mode) after an iteration that left no vertex active.
"""

from __future__ import annotations

import numpy as np

from ..backend import to_backend
from ..engine.program import Contribution
from ..engine.program import Program as BaseProgram
from ..errors import EMVError
from . import fuse, kernels
from .api import SENDS, trace
from .frame import build_field, init_specs, parse_combiner, parse_message, parse_state
from .trace import Expr, evaluate, factors, leaves, roles

ACTIVE = "__active__"
#: queue mode walks the active heads' edges when they are fewer than this share of the buffer
SPARSE_SHARE = 1 / 16


def _few(lay, nheads, edges, slots):
    """Whether walking ``nheads`` heads' ``edges`` edges beats the dense gather over ``slots``."""
    return nheads <= int(lay.size * SPARSE_SHARE) and edges < slots * SPARSE_SHARE


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
        self.fused = {}  # (step, dtypes) -> the step's fused loop or None (see _fused_vertex)
        self._compile()

    def _compile(self):
        tr = self.traced
        k = len(tr)
        self.sends = [i for i, t in enumerate(tr) if t.kind in SENDS]
        self.queue = any(t.active is not None for t in tr)
        self.votes = any(t.halt is not None for t in tr)
        self.has_aggs = any(t.aggs for t in tr)
        if self.max_iterations is None and not (self.votes or self.queue):
            raise EMVError(f"{tr[0].where}: this program never stops: give max_iterations=, or call "
                           "v.vote_halt(cond) or v.set_active(cond) (queue mode stops when no vertex is active)")
        self.plans = {}
        for i in self.sends:
            j, materialize = (i + 1) % k, False
            while tr[j].kind not in SENDS:
                materialize |= tr[j].kind in ("MESSAGE", "MLIST")
                j = (j + 1) % k
                if j == i:
                    break
            self.plans[i] = SendPlan(tr[i], materialize)
        for t in tr:
            if t.kind in ("MESSAGE", "MLIST") and not self.sends:
                raise EMVError(f"{t.where}: {t.kind} function {t.name}() but no ELIST/EDGE step sends messages")
        self.written = [f for f in self.names if any(f in t.writes for t in tr)]
        head_reads = set()
        for t in tr:
            exprs = list(t.writes.values()) + ([*t.send] if t.send else []) + [t.mvalue, t.drop, t.active, t.halt]
            for e in exprs:
                for key in leaves(e) if isinstance(e, Expr) else ():
                    if key[0] == "head":
                        head_reads.add(key[1])
            for e in t.writes.values():
                for key in _mreduce_leaves(e):
                    if key[0] == "head":
                        head_reads.add(key[1])
        self.head_reads = head_reads
        self.reads_weight = any(("edge", "weight") in _all_leaves(t) for t in tr)

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

        if not (hops == "auto" or (isinstance(hops, (int, np.integer)) and 1 <= hops <= 16)):
            raise EMVError(f"hops={hops!r}: expected an integer 1..16 or 'auto'")
        if self.has_aggs and hops != 1:
            raise EMVError("hops: a program with v.graph.sum() aggregates exchanges every iteration; use hops=1")
        G = resolve_graph(G, backend)
        if self.reads_weight and not _weighted(G):
            raise EMVError(f"{self._weight_step()}: reads edge weights but the graph is unweighted")
        num_edges = G.num_arcs
        ex = executor or ("spmd" if getattr(G, "distributed", False) else "local")

        def make(ids):
            specs = init_specs(self.fields, init, ids, ids.n)
            act = None
            if active is not None:
                if not self.queue:
                    raise EMVError("active=: only a queue-mode program (one that calls v.set_active) "
                                   "starts from an active set")
                act = np.asarray(ids.to_internal(list(np.atleast_1d(active)), what="active vertex"), np.int64) \
                    if len(np.atleast_1d(active)) else np.empty(0, np.int64)
            return EMVRun(self, specs, act, hops, ids.n, num_edges, ex)

        vcols = tuple(f.name for f in self.fields if f.is_vertex and f.name in self.outputs)
        return run_program(make, G, backend=backend, executor=executor, exchange=exchange, fanout=fanout,
                           transport=transport, on_step=on_step, progress=progress, vertex_columns=vcols,
                           missing={c: -1 for c in vcols}, params={"hops": hops, "program": self.name})

    def _weight_step(self):
        for t in self.traced:
            if ("edge", "weight") in _all_leaves(t):
                return f"{t.where}: {t.kind} function {t.name}()"
        return "?"

    def __repr__(self):
        steps = ", ".join(f"{t.kind}:{t.name}" for t in self.traced)
        return (f"<emv.Program {self.name}: state {', '.join(f'{f.name}:{f.dtype}' for f in self.fields)}; "
                f"message {self.message}, combiner {self.combiner.name}; steps {steps}>")


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


class _State:
    """One shard's EMV state between supersteps."""

    def __init__(self):
        self.layout = None
        self.fields = {}
        self.pc = 0
        self.iteration = 0
        self.valid = 0
        self.marks = None        # queue mode: set_active marks since the last send (bool, local)
        self.recv = None         # after a send: ('prefix', out, counts) or ('list', tails, vals)
        self.buf = None          # materialized buffer: (values, valid flags) over the slots computed
        self.cont = False        # an owned vertex voted to continue in this iteration
        self.aggs = {}           # (step, i) -> value at the start of the iteration
        self.rounds = 0
        self.hops = 1
        self.costs = {}
        self.snaps = []
        self.sent = 0
        self.scratch = None
        self.spare = None        # queue mode: the marks array of the send before, reused
        self.out = None          # CPU: the gather's (combined, counts) buffers, reused
        self.dev = None          # one whole CuPy shard: counters and queue on the device (.device)
        self.fuse = False        # dgraph.config.emv_fuse allows the fused VERTEX loops (read once a run)


class EMVRun(BaseProgram):
    """The dgraph Program that runs an EMV Program on every executor."""

    replicated_result = False

    def __init__(self, prog, specs, active, hops, n, num_edges, executor):
        self.prog = prog
        self.name = prog.name
        self.specs, self.active0 = specs, active
        self.hops_arg, self.n, self.num_edges, self.executor = hops, n, num_edges, executor

    # -- setup -----------------------------------------------------------------------------
    def init(self, shard):
        from .shard import cached_layout, one_hop_layout, whole_layout  # noqa: PLC0415

        S = _State()
        if shard.num_parts == 1:
            S.layout = cached_layout(shard, ("whole",), lambda: whole_layout(shard))
        elif self.hops_arg == 1 and not (shard.directed and self.prog.reads_weight):
            S.layout = cached_layout(shard, ("one-hop",), lambda: one_hop_layout(shard))
        else:
            S.layout = cached_layout(shard, ("multi-hop", self.hops_arg, self.executor), None)
            if S.layout is None:
                return S  # the layout needs every partition's arcs: the first superstep gathers them
            S.hops, S.costs = S.layout.hops, S.layout.costs
        self._start(shard, S)
        return S

    def _start(self, shard, S):
        xp = shard.xp
        lay = S.layout
        S.hops = lay.hops
        S.valid = lay.hops
        L = None if lay.whole else lay.L  # one partition: local ids are global ids, no gather
        S.fields = {f.name: build_field(xp, self.specs[f.name], f, L, self.n) for f in self.prog.fields}
        S.fuse = fuse.enabled()
        if xp is not np and lay.whole and S.fuse:
            from .device import Device  # noqa: PLC0415

            S.dev = Device.take(lay, self.prog.message)
        if self.prog.queue:
            if self.active0 is None:
                S.marks = xp.ones(lay.size, dtype=bool)
            elif S.dev is not None:  # marked and queued on the device: the first send reads the queue
                S.marks = xp.zeros(lay.size, dtype=bool)
                S.dev.seed(np.unique(self.active0), S.marks, lay.degree)
            else:
                m = xp.zeros(self.n, dtype=bool)
                m[xp.asarray(self.active0)] = True
                S.marks = m if L is None else m[L]
        if self.prog.has_aggs:
            self._initial_aggs(shard, S)

    def _initial_aggs(self, shard, S):
        """The aggregates of the first iteration: every partition evaluates them over all vertices."""
        xp = shard.xp
        n = self.n
        full = {f.name: build_field(xp, self.specs[f.name], f, None, n) for f in self.prog.fields}
        deg = shard.degree
        for si, t in enumerate(self.prog.traced):
            for i, e in enumerate(t.aggs):
                env = self._vertex_env(S, slice(0, n), fields=full, L=xp.arange(n), degree=deg)
                S.aggs[(si, i)] = float(xp.asarray(evaluate(e, env, xp)).sum()) if n else 0.0

    def initial_report(self, shard, S):
        return {"stop": self.n == 0 or self.prog.max_iterations == 0 or
                (self.prog.queue and self.active0 is not None and len(self.active0) == 0), "iterations": 0}

    def converged(self, report, step):
        return bool(report.get("stop"))

    # -- one round ---------------------------------------------------------------------------
    def superstep(self, shard, S, ctx):
        from .shard import arcs_of  # noqa: PLC0415

        if S.layout is None:
            return Contribution(arcs_of(shard), {"setup": 1})
        prog = self.prog
        lay = S.layout
        nsteps = len(prog.traced)
        S.valid = lay.hops
        S.snaps = []
        ends = []
        S.sent = 0
        while True:
            t = prog.traced[S.pc]
            if t.kind in SENDS and not lay.whole and S.valid == 0:
                break
            self._run_step(shard, S, S.pc)
            S.pc += 1
            if S.pc < nsteps:
                continue
            S.pc = 0
            S.iteration += 1
            ends.append(self._end_info(shard, S))
            S.cont = False
            if prog.max_iterations is not None and S.iteration >= prog.max_iterations:
                break
            if lay.whole or not prog.sends or prog.has_aggs or S.valid < len(prog.sends):
                break
            if prog.votes or prog.queue:
                S.snaps.append(self._snapshot(S))
        return self._contribution(shard, S, ends)

    def _end_info(self, shard, S):
        own = S.layout.owned
        qok = False
        if S.dev is not None:  # one read: the kernels' counts since the last one
            newly, _, cont, sent = S.dev.read()
            S.cont, S.sent, qok = S.cont or bool(cont), S.sent + sent, S.dev.qok
        act = (newly > 0 if qok else bool(S.marks[:own].any())) if self.prog.queue else False
        return (0.0 if S.cont else 1.0, 1.0 if act else 0.0, float(S.sent), S.iteration)

    def run_steps(self, shard, S, ctx, limit):
        """A fixed iteration count on one whole CuPy shard (no halt votes, no queue): every iteration
        queued on the device at once, the aggregates kept there, the message counts and the
        per-iteration times (CUDA events) read back once at the end."""
        prog = self.prog
        if S.dev is None or prog.queue or prog.votes or prog.max_iterations is None or S.pc != 0:
            return None
        k = min(limit, prog.max_iterations - S.iteration)
        if k < 2:
            return None
        cp = S.dev.cp
        events = [cp.cuda.Event() for _ in range(k + 1)]
        events[0].record()
        host_sent = []
        for j in range(k):
            S.sent = 0
            for pc in range(len(prog.traced)):
                self._run_step(shard, S, pc)
            S.iteration += 1
            if prog.has_aggs:
                self._aggregates(shard, S, S.aggs, device=True)
            S.dev.keep()
            host_sent.append(S.sent)
            events[j + 1].record()
        events[-1].synchronize()
        kept = S.dev.kept_values()
        first = S.iteration - k
        return [({"stop": first + j + 1 >= prog.max_iterations, "iterations": first + j + 1,
                  "messages": int(host_sent[j] + kept[j, 3]), "hops": S.hops},
                 cp.cuda.get_elapsed_time(events[j], events[j + 1]) * 1e-3) for j in range(k)]

    def _snapshot(self, S):
        own = S.layout.owned
        snap = {f: S.fields[f][:own].copy() for f in self.prog.written}
        if S.marks is not None:
            snap[ACTIVE] = S.marks[:own].copy()
        return snap, S.iteration

    def _refresh_names(self, S):
        names = self.prog.written if S.hops > 1 else [f for f in self.prog.written if f in self.prog.head_reads]
        return names

    def _contribution(self, shard, S, ends):
        lay = S.layout
        arrays = {}
        if not lay.whole:
            for f in self._refresh_names(S):
                arrays[f] = S.fields[f][lay.send_local]
            if S.marks is not None:
                arrays[ACTIVE] = S.marks[lay.send_local].astype(np.uint8)
            if S.rounds == 0:
                arrays["ids"] = lay.send_ids
        counters = {"ends": float(len(ends))}
        for j, (halt, act, sent, it) in enumerate(ends):
            counters[f"halt{j}"], counters[f"act{j}"], counters[f"sent{j}"] = halt, act, sent
        if ends and self.prog.has_aggs:
            aggs = {}
            self._aggregates(shard, S, aggs)
            counters.update((f"agg{si}_{i}", v) for (si, i), v in aggs.items())
        return Contribution(arrays, counters)

    def _aggregates(self, shard, S, out, device=False):
        """Each ``v.graph.sum(...)`` over the owned vertices into ``out[(step, i)]``: floats, or
        (``device``) one-value device arrays, nothing read back."""
        xp = shard.xp
        own = S.layout.owned
        env = self._vertex_env(S, slice(0, own))
        for si, t in enumerate(self.prog.traced):
            for i, e in enumerate(t.aggs):
                val = evaluate(e, env, xp)
                if np.ndim(val):
                    total = xp.asarray(val).sum()
                    out[(si, i)] = total.astype(np.float64, copy=False) if device else float(total)
                else:
                    out[(si, i)] = float(val) * own

    # -- merge -------------------------------------------------------------------------------
    def receive(self, shard, S, contributions, ctx):
        if S.layout is None:
            return self._setup(shard, S, contributions)
        xp = shard.xp
        lay = S.layout
        if not lay.whole:
            names = self._refresh_names(S) + ([ACTIVE] if S.marks is not None else [])
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
                        S.marks[pos] = vals.astype(bool)
                    else:
                        S.fields[f][pos] = vals
        S.rounds += 1
        prog = self.prog
        nends = int(contributions[0].counters["ends"])
        stop_at = None
        sent = 0.0
        for j in range(nends):
            sent += sum(c.counters[f"sent{j}"] for c in contributions)
            it = S.iteration - (nends - 1 - j)
            halt = prog.votes and all(c.counters[f"halt{j}"] > 0 for c in contributions)
            empty = prog.queue and not any(c.counters[f"act{j}"] > 0 for c in contributions)
            if halt or empty or (prog.max_iterations is not None and it >= prog.max_iterations):
                stop_at = j
                break
        if stop_at is not None and stop_at < nends - 1:
            snap, it = S.snaps[stop_at]
            own = lay.owned
            for f, v in snap.items():
                if f == ACTIVE:
                    S.marks[:own] = v
                else:
                    S.fields[f][:own] = v
            S.iteration = it
        if nends and prog.has_aggs:
            for si, t in enumerate(prog.traced):
                for i in range(len(t.aggs)):
                    S.aggs[(si, i)] = sum(c.counters[f"agg{si}_{i}"] for c in contributions)
        return {"stop": stop_at is not None, "iterations": S.iteration, "messages": int(sent), "hops": S.hops}

    def _setup(self, shard, S, contributions):
        from .shard import multi_hop_layouts  # noqa: PLC0415

        row_bytes = sum(f.dtype.itemsize for f in self.prog.fields) + 1
        auto = self.hops_arg == "auto"
        from .shard import cached_layout  # noqa: PLC0415

        S.layout, S.hops, S.costs = multi_hop_layouts(shard, [c.arrays for c in contributions],
                                                      1 if auto else self.hops_arg, self.executor, row_bytes, auto)
        S.layout.costs = S.costs
        cached_layout(shard, ("multi-hop", self.hops_arg, self.executor), lambda: S.layout)
        self._start(shard, S)
        return {"stop": False, "setup": 1, "iterations": 0, "hops": S.hops,
                "estimates": ", ".join(f"n={h}: {s * 1e3:.3g} ms" for h, s in S.costs.items())}

    def finish(self, shard, S):
        if S.layout is None:
            return {f.name: shard.xp.full(shard.num_rows, f.default, dtype=f.dtype) for f in self.prog.fields
                    if f.name in self.prog.outputs}
        own = S.layout.owned
        if S.dev is not None:
            S.dev.release(S.layout)
            S.dev = None
        return {f: S.fields[f][:own] for f in self.names_out()}

    def names_out(self):
        return self.prog.outputs

    # -- environments ------------------------------------------------------------------------
    def _vertex_env(self, S, I, fields=None, L=None, degree=None, role="v", msg=None):
        fields = S.fields if fields is None else fields
        L = S.layout.L if L is None else L
        degree = S.layout.degree if degree is None else degree
        n, m = self.n, self.num_edges

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

    def _slot_env(self, S, sel, values=None):
        """Leaves of per-message expressions over buffer slots ``sel`` (a slice or slot ids)."""
        lay = S.layout
        cache = {}

        def env(key):
            kind = key[0]
            if kind == "graph":
                return self.n if key[1] == "num_vertices" else self.num_edges
            if kind == "mval":
                return values
            if kind == "edge":
                if lay.weights is None:
                    raise EMVError(f"{self.prog._weight_step()}: reads edge weights but the graph is unweighted")
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
                return S.fields[name][idx]
            raise EMVError(f"{key} is not available in a per-message expression")

        return env

    # -- steps -------------------------------------------------------------------------------
    def _run_step(self, shard, S, i):
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            self._run_one(shard, S, i)

    def _run_one(self, shard, S, i):
        t = self.prog.traced[i]
        if t.kind in SENDS:
            self._send(shard, S, i)
        elif t.kind == "MESSAGE":
            self._message(shard, S, t)
        else:
            self._vertex(shard, S, i, t)

    def _regions(self, S):
        """(heads valid, tails computed, buffer slots) for the next send."""
        lay = S.layout
        if lay.whole:
            return lay.size, lay.size, lay.num_slots
        h = S.valid
        return lay.hb[h], lay.hb[h - 1], lay.eb[h - 1]

    def _send(self, shard, S, i):
        if S.dev is not None:
            S.dev.pending = False  # set again by the device sends that leave their messages in its buffers
            if self._device_send(S, i):
                return
        xp = shard.xp
        prog = self.prog
        plan = prog.plans[i]
        lay = S.layout
        comb = prog.combiner
        nh, nt, ns = self._regions(S)
        act = queued = None
        if prog.queue:
            act = S.marks[:nh]
            S.marks, S.spare = self._cleared(S.spare, lay.size, xp), S.marks
            if S.dev is not None:
                queued = S.dev.heads()
                S.dev.start_send()
        if not lay.whole:
            S.valid -= 1
        S.buf = None
        cindptr = lay.cindptr[: nt + 1]
        heads = self._sparse(S, act, ns, queued) if prog.queue and not plan.materialize else None
        if plan.fused and heads is not None:
            # few active heads: evaluate the message at them only and walk their edges
            env = self._vertex_env(S, heads, role="head")
            memo = {}
            x = _full(xp, evaluate(plan.value, env, xp, memo), len(heads), prog.message)
            keep = None if plan.head_cond is None else \
                _full(xp, evaluate(plan.head_cond, env, xp, memo), len(heads), bool)
            if queued is not None:  # the queue is in no set order; a sum combines in the heads' order
                order = xp.argsort(heads)
                heads, x, keep = heads[order], x[order], None if keep is None else keep[order]
            if keep is not None:
                heads, x = heads[keep], x[keep]
            tails, vals = kernels.push_reduce(xp, comb, heads, lay.push_index(), x, ns, self._scratch(S, xp))
            if plan.tail_cond is not None and len(tails):  # a tail-only condition drops all of a tail's messages
                tenv = self._vertex_env(S, tails, role="tail")
                keep = _full(xp, evaluate(plan.tail_cond, tenv, xp), len(tails), bool)
                tails, vals = tails[keep], vals[keep]
            S.recv = ("list", tails, vals)
            self._count_sent(S, (tails < lay.owned).sum())
            return
        if plan.fused:
            env = self._vertex_env(S, slice(0, nh), role="head")
            memo = {}
            x = _full(xp, evaluate(plan.value, env, xp, memo), nh, prog.message)
            hmask = act
            if plan.head_cond is not None:
                c = _full(xp, evaluate(plan.head_cond, env, xp, memo), nh, bool)
                hmask = c if hmask is None else (hmask & c)
            tmask = None
            if plan.tail_cond is not None:
                tenv = self._vertex_env(S, slice(0, nt), role="tail")
                tmask = _full(xp, evaluate(plan.tail_cond, tenv, xp), nt, bool)
            if S.dev is not None and comb.op == 0 and x.dtype == np.float64 and hmask is None and tmask is None:
                S.recv = self._device_row_sum(S, x)
                return
            bound = kernels.best_sent(xp, comb, x, hmask) if comb.op in (1, 2) and ns and nh else None
            out, counts = kernels.gather_reduce(xp, comb, cindptr, lay.cindices[:ns], x, hmask, tmask, bound,
                                                self._out(S, xp, nt))
        else:
            if heads is not None:
                hptr, rid = lay.head_index()
                from ..backend.primitives import expand  # noqa: PLC0415

                _, pos = expand(hptr, heads)
                sel = rid[pos]
                sel = sel[sel < ns]
                vals, ok = self._slot_values(S, plan, sel)
                tails, comb_vals = kernels.scatter_combine(xp, comb, lay.etail()[sel][ok], vals[ok])
                S.recv = ("list", tails, comb_vals)
                self._count_sent(S, (tails < lay.owned).sum())
                return
            sel = slice(0, ns)
            vals, ok = self._slot_values(S, plan, sel)
            if act is not None:
                ok = ok & act[lay.cindices[:ns]]
            if plan.materialize:
                S.buf = (vals, ok, nt)
                S.recv = None
                return
            out, counts = kernels.segment_reduce(xp, comb, cindptr, vals, ok)
        S.recv = ("prefix", out, counts)
        if lay.owned:
            self._count_sent(S, (counts[: lay.owned] > 0).sum())

    @staticmethod
    def _count_sent(S, count):
        """Add the tails that received (a count on the backend) to the iteration's messages: on the
        device where the run keeps its counters there (no sync), else now."""
        if S.dev is not None:
            S.dev.add_sent(count)
        else:
            S.sent += int(count)

    def _clean_buffers(self, dev):
        """The device's dense combine buffers at this combiner's identity and zero counts (a push
        writes only where messages arrive); a fill only where the last VERTEX kernel did not put
        them back (the buffers may come from another program's run: its identity may differ)."""
        ident = self.prog.combiner.identity
        if dev.clean != ident:
            dev.out.fill(ident)
            dev.cnt.fill(0)
            dev.clean = ident

    def _device_send(self, S, i):
        """Send ``i`` on one whole CuPy shard compiled into the combining kernels (:mod:`.device_send`):
        a push from the queued heads where they are few, else a gather over every tail; False where
        it does not compile (min/max combiners, the leaves and operations the kernels take), and the
        array path runs."""
        from . import device_send  # noqa: PLC0415

        prog, lay, dev = self.prog, S.layout, S.dev
        comb = prog.combiner
        if prog.plans[i].materialize or comb.op not in (1, 2) or lay.size < fuse.FUSE_MIN:
            return False
        send = self._device_step(S, "cuda-send", i, lambda: device_send.compile_send(
            prog.traced[i].send, comb.op, *device_send.send_kinds(S.fields, lay, prog.message)))
        if send is None or (send.checks and not send.checks.ok(self._scalar_env(S, i))):
            return False
        xp, n, m = lay.xp, self.n, self.num_edges
        S.buf = None
        if prog.queue:
            queued = self._push_heads(S) if send.pushes else None
            dev.start_send(reset_in_kernel=True)
            if queued is not None:
                heads, qdeg, edges = queued
                self._clean_buffers(dev)
                send.push(S, heads, xp.cumsum(qdeg, dtype=np.int64), edges, n, m)  # clears the heads' marks
            else:
                act = S.marks
                S.marks, S.spare = self._cleared(S.spare, lay.size, xp), S.marks
                send.gather(S, act, comb.identity, n, m)
        else:
            send.gather(S, None, comb.identity, n, m)
        dev.clean, dev.pending, dev.touched = None, True, True
        S.recv = ("prefix", dev.out[: lay.size], dev.cnt[: lay.size])
        return True

    @staticmethod
    def _push_heads(S):
        """(heads, their degrees, their edges) of a device send where pushing from them beats the
        gather (:func:`_few`), else None.  Marks set off the queue (a VERTEX step on the array path)
        are counted before they are listed, so a gather costs one sync."""
        lay = S.layout
        queued = S.dev.heads()
        if queued is None:
            xp = lay.xp
            if int(xp.count_nonzero(S.marks)) > int(lay.size * SPARSE_SHARE):
                return None
            heads = xp.flatnonzero(S.marks)
            qdeg = lay.degree[heads].astype(np.int64, copy=False)
            queued = (heads, qdeg, int(qdeg.sum()) if len(heads) else 0)
        return queued if _few(lay, len(queued[0]), queued[2], lay.num_slots) else None

    def _device_row_sum(self, S, x):
        """Sum of x over every tail's in-edges, no masks (PageRank's send), on one whole CuPy shard:
        the built-in PageRank's load-balanced row sum; the counts are the in-degrees (known)."""
        from ..backend import gpu_kernels  # noqa: PLC0415

        lay = S.layout
        xp = lay.xp
        if S.dev.rowsum is None:
            counts = xp.diff(lay.cindptr).astype(np.int32)
            S.dev.rowsum = (gpu_kernels.RowSumPlan(lay.cindptr), counts, int(xp.count_nonzero(counts[: lay.owned])))
        plan, counts, receivers = S.dev.rowsum
        out = S.dev.out[: lay.size]  # the message is float64 here; a sum send never pushes (min/max only)
        S.dev.clean, S.dev.pending = None, False
        gpu_kernels.gather_row_sum(lay.cindptr, lay.cindices, x, out, plan)
        S.sent += receivers
        return ("prefix", out, counts)

    def _slot_values(self, S, plan, sel):
        xp = S.layout.xp
        env = self._slot_env(S, sel)
        memo = {}
        count = (sel.stop - sel.start) if isinstance(sel, slice) else len(sel)
        vals = _full(xp, evaluate(plan.value, env, xp, memo), count, self.prog.message)
        ok = xp.ones(count, dtype=bool) if plan.cond is None else \
            _full(xp, evaluate(plan.cond, env, xp, memo), count, bool)
        return vals, ok

    def _sparse(self, S, hmask, ns, queued=None):
        """The active heads (ascending) when walking their edges beats the dense gather, else None:
        at most a ``SPARSE_SHARE`` of the vertices, with fewer edges than that share of the buffer.
        ``queued``: (heads in no set order, their edges) the device counted: no scan of the marks."""
        lay = S.layout
        if hmask is None or ns == 0:
            return None
        if queued is not None:
            heads, _, edges = queued
            return heads if _few(lay, len(heads), edges, ns) else None
        scratch = self._scratch(S, lay.xp)
        return kernels.active_heads(lay.xp, hmask, lay.push_index()[0], int(lay.size * SPARSE_SHARE),
                                    ns * SPARSE_SHARE, None if scratch is None else scratch[2])

    @staticmethod
    def _cleared(buf, size, xp):
        """The marks of the next send: the previous send's array, cleared (no new allocation)."""
        if buf is None or len(buf) != size:
            return xp.zeros(size, dtype=bool)
        buf.fill(False)
        return buf

    def _out(self, S, xp, nt):
        """(combined, counts) arrays over the first nt tails, reused from send to send on the CPU."""
        if xp is not np:
            return None
        if S.out is None or S.out[0].dtype != self.prog.message:
            m = S.layout.size
            S.out = (np.empty(m, dtype=self.prog.message), np.empty(m, dtype=np.int32))
        return S.out[0][:nt], S.out[1][:nt]

    def _scratch(self, S, xp):
        if xp is not np:
            return None
        if S.scratch is None:
            m = S.layout.size
            S.scratch = (np.empty(m, dtype=self.prog.message), np.zeros(m, dtype=bool), np.empty(m, dtype=np.int64))
        return S.scratch

    def _message(self, shard, S, t):
        if S.buf is None:
            return  # no messages in flight
        xp = shard.xp
        vals, ok, nt = S.buf
        env = self._slot_env(S, slice(0, len(vals)), values=vals)
        memo = {}
        if t.mvalue is not None:
            vals = _full(xp, evaluate(t.mvalue, env, xp, memo), len(vals), self.prog.message)
        if t.drop is not None:
            ok = ok & ~_full(xp, evaluate(t.drop, env, xp, memo), len(vals), bool)
        S.buf = (vals, ok, nt)
        S.recv = None

    def _combined(self, S):
        """(tails or None, combined msg, counts) of the messages in flight."""
        if S.recv is None and S.buf is not None:
            xp = S.layout.xp
            vals, ok, nt = S.buf
            out, counts = kernels.segment_reduce(xp, self.prog.combiner, S.layout.cindptr[: nt + 1], vals, ok)
            S.recv = ("prefix", out, counts)
        return S.recv

    def _vertex(self, shard, S, si, t):
        xp = shard.xp
        lay = S.layout
        prog = self.prog
        nv = lay.size if lay.whole else lay.hb[S.valid]
        recv = self._combined(S)
        if nv >= fuse.FUSE_MIN and S.fuse and (self._fused_vertex(S, si, t, recv, nv) if xp is np else
                                    S.dev is not None and self._device_vertex(S, si, t, recv, nv)):
            return
        if S.dev is not None and t.active is not None:
            S.dev.qok = False  # marks set here are not queued
        comb = prog.combiner
        if prog.queue and recv is not None:
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
                msg, counts = _pad(xp, recv[1], nv, comb.identity), _pad(xp, recv[2], nv, 0)
            elif recv is not None:
                full = xp.full(nv, comb.identity, dtype=prog.message)
                c = xp.zeros(nv, dtype=np.int32)
                keep = recv[1] < nv
                full[recv[1][keep]] = recv[2][keep]
                c[recv[1][keep]] = 1
                msg, counts = full, c
        if count == 0:
            return

        def extra(key):
            if key[0] == "msg":
                return msg if msg is not None else comb.identity
            if key[0] == "received":
                return (counts > 0) if counts is not None else (msg is not None)
            if key[0] == "agg":
                return S.aggs[(si, key[1])]
            if key[0] == "mreduce":
                return self._mreduce(S, key[1], key[2], I, nv)
            raise EMVError(f"{t.where}: {key[0]} is not available in a {t.kind} function")

        env = self._vertex_env(S, I, msg=extra)
        memo = {}
        new = {f: evaluate(e, env, xp, memo) for f, e in t.writes.items()}
        act = None if t.active is None else evaluate(t.active, env, xp, memo)
        halt = None if t.halt is None else evaluate(t.halt, env, xp, memo)
        for f, v in new.items():
            S.fields[f][I] = v
        if act is not None:
            cur = S.marks[I]
            S.marks[I] = cur | _full(xp, act, count, bool)
        if halt is not None:
            h = _full(xp, halt, count, bool)
            own = lay.owned  # only the owned vertices vote (replicas vote where they are owned)
            mine = h[: min(own, count)] if isinstance(I, slice) else h[I < own]
            S.cont = S.cont or bool((~mine).any())

    def _scalar_env(self, S, si):
        """The scalar leaves of VERTEX step ``si``: its aggregates and the graph's sizes."""
        return lambda k: S.aggs[(si, k[1])] if k[0] == "agg" else \
            self.n if k[1] == "num_vertices" else self.num_edges

    def _step_inputs(self, recv, idx, mout, mcnt):
        """(mode, ids, messages, counts) a compiled VERTEX step takes for the combined messages
        ``recv`` (the given placeholders where its mode reads none; see the kernels' modes), or None
        where it cannot take them (a message list outside queue mode)."""
        if recv is None:
            return 0, idx, mout, mcnt
        if recv[0] == "list":
            if not self.prog.queue:
                return None
            return 1, recv[1].astype(np.int64, copy=False), recv[2], mcnt
        return (2 if self.prog.queue else 0), idx, recv[1], recv[2]

    def _fused_vertex(self, S, si, t, recv, nv):
        """Run VERTEX step ``si`` as one compiled loop over its vertices (:mod:`.fuse`); False where
        its expressions or the messages' form need the vectorized path."""
        prog, lay = self.prog, S.layout
        key = (si, tuple((f, S.fields[f].dtype) for f in self.prog.names), lay.L.dtype, lay.degree.dtype)
        if key not in prog.fused:
            kinds = {f: fuse.kind_of(a.dtype) for f, a in S.fields.items()}
            prog.fused[key] = fuse.vertex_kernel(t, kinds, fuse.kind_of(prog.message), fuse.kind_of(lay.L.dtype),
                                                 fuse.kind_of(lay.degree.dtype))
        step = prog.fused[key]
        if step is None:
            return False
        scalars = step.scalars(self._scalar_env(S, si))
        if scalars is None:
            return False
        mdt = prog.message
        inputs = self._step_inputs(recv, _NO_IDS, np.empty(0, mdt), _NO_COUNTS)
        if inputs is None:
            return False
        mode, idx, mout, mcnt = inputs
        marks = S.marks if S.marks is not None else _NO_MARKS
        cont, _ = step.loop(mode, nv, idx, mout.astype(mdt, copy=False), mcnt.astype(np.int32, copy=False),
                            mdt.type(prog.combiner.identity), lay.owned, marks, lay.L, lay.degree,
                            *(S.fields[f] for f in step.fields), *scalars)
        S.cont = S.cont or bool(cont)
        return True

    def _device_step(self, S, kind, i, build):
        """Step ``i``'s compiled kernels (``kind``: 'cuda' VERTEX, 'cuda-send'), or None: built once per
        program and dtypes (``build()``), looked up once a run."""
        got = S.dev.steps.get((kind, i), False)
        if got is False:
            lay = S.layout
            key = (kind, i, tuple((f, S.fields[f].dtype) for f in self.prog.names), lay.L.dtype, lay.degree.dtype,
                   None if lay.weights is None else lay.weights.dtype)
            if key not in self.prog.fused:
                self.prog.fused[key] = build()
            got = S.dev.steps[(kind, i)] = self.prog.fused[key]
        return got

    def _device_vertex(self, S, si, t, recv, nv):
        """VERTEX step ``si`` as one CUDA kernel on one whole CuPy shard (:func:`.fuse.cuda_vertex_kernel`);
        False where it needs the vectorized path."""
        prog, lay, dev = self.prog, S.layout, S.dev
        cp = dev.cp
        step = self._device_step(S, "cuda", si, lambda: fuse.cuda_vertex_kernel(
            t, {f: fuse.kind_of(a.dtype) for f, a in S.fields.items()}, fuse.kind_of(prog.message),
            fuse.kind_of(lay.L.dtype), fuse.kind_of(lay.degree.dtype)))
        if step is None:
            return False
        aggs = [S.aggs[(si, j)] for j in step.aggs]  # floats, or device values (run_steps)
        on_device = tuple(isinstance(v, cp.ndarray) for v in aggs)
        if step.checks and not step.checks.ok(self._scalar_env(S, si), not any(on_device)):
            return False
        mdt = prog.message
        inputs = self._step_inputs(recv, dev.none_i64, dev.none_msg, dev.none_i32)
        if inputs is None:
            return False
        mode, idx, mout, mcnt = inputs
        items = len(idx) if mode == 1 else nv
        # the last reader of the send's dense buffers (a send comes next) puts back what it read
        reset = mode == 2 and dev.pending and nv == lay.size and prog.traced[(si + 1) % len(prog.traced)].kind in SENDS
        if items:
            kern = step.kernel(on_device, lay.L.dtype, lay.degree.dtype)
            kern(((items + 255) // 256,), (256,),
                 (np.int32(mode), np.int64(nv), idx, np.int64(len(idx)), cp.ascontiguousarray(mout.astype(mdt, copy=False)),
                  np.int64(0 if mout is dev.none_msg else len(mout)), mcnt.astype(np.int32, copy=False),
                  np.int64(0 if mcnt is dev.none_i32 else len(mcnt)), mdt.type(prog.combiner.identity),
                  np.int32(reset), np.int64(lay.owned), S.marks if S.marks is not None else dev.none_bool, lay.L,
                  lay.degree, dev.ctl, dev.queue, dev.qdeg, *(S.fields[f] for f in step.fields), np.int64(self.n),
                  np.int64(self.num_edges), *(v if d else np.float64(v) for v, d in zip(aggs, on_device))))
        if reset and items:
            dev.clean, dev.pending = prog.combiner.identity, False
        if t.active is not None or t.halt is not None:
            dev.touched = True
        if t.active is not None:
            dev.front = None  # read again at the end of the iteration
        return True

    def _mreduce(self, S, op, x, I, nv):
        xp = S.layout.xp
        if S.buf is None:
            ident = 0 if op in ("sum", "count") else (np.inf if op == "min" else -np.inf)
            return ident
        vals, ok, nt = S.buf
        env = self._slot_env(S, slice(0, len(vals)), values=vals)
        if op == "count":
            v = xp.ones(len(vals), dtype=np.int64)
        else:  # min/max/sum of a per-message expression, in float64 (an integer sum stays integer)
            v = evaluate(x, env, xp)
            kind = getattr(v, "dtype", np.dtype(type(v))).kind
            v = _full(xp, v, len(vals), np.int64 if (op == "sum" and kind in "iub") else np.float64)
        from .frame import parse_combiner  # noqa: PLC0415

        comb = parse_combiner("sum" if op == "count" else op, v.dtype)
        out, _ = kernels.segment_reduce(xp, comb, S.layout.cindptr[: nt + 1], v, ok)
        out = _pad(xp, out, nv, comb.identity)
        return out[I]


_NO_IDS = np.empty(0, np.int64)
_NO_COUNTS = np.empty(0, np.int32)
_NO_MARKS = np.zeros(1, bool)


def _weighted(G):
    if hasattr(G, "weights"):
        return G.weights is not None
    return getattr(G, "weighted", True)


def _full(xp, v, count, dtype):
    """``v`` (an array or a scalar) as an array of ``count`` values of ``dtype``."""
    if hasattr(v, "shape") and getattr(v, "ndim", 0) == 1:
        return v.astype(dtype, copy=False)
    return xp.full(count, v, dtype=dtype)


def _pad(xp, a, n, fill):
    if len(a) >= n:
        return a[:n]
    out = xp.full(n, fill, dtype=a.dtype)
    out[: len(a)] = a
    return out


__all__ = ["Program", "EMVRun"]
