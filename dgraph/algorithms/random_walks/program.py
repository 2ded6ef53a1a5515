"""The random-walk Program: every walk advanced one step a superstep, on the shard owning its vertex.

Semantics (the spec the tests hold every implementation to).  Walk ``w`` starts at
``starts[w]``; at step ``s`` it stands at ``v`` (having come from ``t``, none at ``s = 0``) and
moves along one out-arc of ``v`` (an undirected edge is an arc each way; arcs as stored, so a
duplicate edge kept with ``dedupe=False`` is two arcs and a self loop one).  Unbiased and
unweighted, every arc is equally likely.  With ``weighted`` an arc's chance is proportional to
its weight; with node2vec's ``p``, ``q`` (Grover and Leskovec, KDD 2016) the arc ``v -> x`` is
further weighted by ``alpha = 1/p`` when ``x == t``, ``1`` when there is an arc ``t -> x``, and
``1/q`` otherwise (the first step is unbiased).  A vertex with no out-arc (or, weighted, whose
out-arcs all weigh 0) is a dead end: the walk stops there and the rest of its path is -1.

How: rejection sampling, as in KnightKing (Yang et al., SOSP 2019) and torch_cluster: attempt
``a`` picks an arc uniformly, keeps it with probability ``w / wmax(v)`` when weighted, then with
probability ``alpha / max(1/p, 1, 1/q)`` when biased (a vertex of one out-arc takes it without a
test); a rejected attempt draws again.  Every draw is a pure function of ``(seed, walk, step,
attempt)`` (:mod:`.kernels`), so the paths do not depend on the partitioning, the backend, the
executor or the implementation.

Partitioned, the walk state (current and previous vertex, step, attempt, a candidate awaiting
its test) is replicated, as BFS replicates its depths: in a superstep each shard advances the
walks standing on a vertex it owns, and the changed walks are all-gathered.  The node2vec test
needs to know whether ``t -> x`` is an arc, which only the owner of ``t`` can tell when ``t`` is
not owned here: the candidate then waits one superstep for that owner's test (it decides with the
same draw; a rejection sends the walk back to ``v``'s owner for the next attempt).  Shard 0 keeps
the paths.
"""

from __future__ import annotations

import math
import time

import numpy as np

from ...backend import to_backend
from ...backend.primitives import group_starts
from ...engine.program import Contribution, Program
from ...errors import InputError
from .kernels import draws, in_rows, row_max, search_rounds, seed_key, step_keys, unit, walk_keys

#: what :func:`implementation` may choose, and what each runs
IMPLEMENTATIONS = {
    "generic": "vectorized: every walk of a shard advanced by array code, one step a superstep (numpy or CuPy; "
               "the reference)",
    "cpu-numba": "numpy, one whole shard on the local executor: a numba kernel advances every walk one step, "
                 "walks spread over the CPU's threads (cpu.py)",
    "gpu-cuda": "CuPy, one whole shard on the local executor: a CUDA kernel advances every walk one step, a "
                "thread a walk, steps queued in batches (gpu.py)",
}

#: 'gpu-cuda': steps queued at once before the host reads their counts (a walk that ends early leaves
#: the later launches of its batch nothing to do)
GPU_BATCH = 32

#: numpy, one whole shard: at least this many walks are spread over the CPU's threads (fewer: one thread)
PAR_MIN_WALKS = 1 << 13

#: a walk whose node2vec test needs another shard sends that shard several candidates at once (the
#: first that passes is taken): enough that all fail at most this often, at the lowest acceptance
#: (:func:`checks_ahead`), between CHECKS_AHEAD[0] and CHECKS_AHEAD[1] of them
ALL_FAIL = 0.01
CHECKS_AHEAD = (4, 64)


def checks_ahead(a_out, a_max):
    """Candidates a walk sends at once for a node2vec test on another shard: a candidate that is not a
    return passes with probability ``min(1, 1/q) / max(1/p, 1, 1/q)`` at least.

    >>> checks_ahead(0.5, 2.0), checks_ahead(0.25, 4.0)
    (17, 64)
    """
    worst = min(1.0, a_out) / a_max
    k = CHECKS_AHEAD[1] if worst <= 0 else math.ceil(math.log(ALL_FAIL) / math.log1p(-worst)) if worst < 1 else 1
    return max(CHECKS_AHEAD[0], min(CHECKS_AHEAD[1], k))

#: bytes a walk's replicated state takes on every shard (current, previous, candidate, attempt, step, key)
STATE_BYTES = 48
#: bytes a handled walk's temporaries take in a generic superstep (draws, arcs, masks, updates)
STEP_BYTES = 160


def implementation(backend, whole_local, kernels):
    """The name of the code that runs the walks (a key of :data:`IMPLEMENTATIONS`), decided once a run.

    ``whole_local``: one shard holding every vertex in order, run by the local executor (only there
    does :meth:`RandomWalks.run_steps` run); elsewhere the generic step runs (array code on either
    backend).

    >>> implementation("numpy", True, "fused"), implementation("numpy", False, "fused")
    ('cpu-numba', 'generic')
    >>> implementation("cupy", True, "fused")
    'gpu-cuda'
    """
    if kernels == "generic" or not whole_local:
        return "generic"
    return "cpu-numba" if backend == "numpy" else "gpu-cuda"


def walk_bytes(num_walks, length, num_parts=1):
    """``(paths, state)``: bytes of the paths array (int64, ``num_walks x (length + 1)``) and of the
    walks' state and one superstep's temporaries on a shard."""
    return 8 * num_walks * (length + 1), (STATE_BYTES + STEP_BYTES) * num_walks


class RandomWalks(Program):
    """The walks of :func:`dgraph.random_walks` (see the module docstring); ``starts``: internal ids
    (numpy int64), ``implementation``: a key of :data:`IMPLEMENTATIONS`."""

    name = "random_walks"
    replicated_result = True

    def __init__(self, starts, length, *, seed=0, first_walk=0, p=1.0, q=1.0, weighted=False,
                 implementation="generic"):
        self.starts = np.asarray(starts, dtype=np.int64)
        self.length = int(length)
        self.first_walk = int(first_walk)  # starts[i] is walk number first_walk + i: its draws
        self.key = seed_key(seed)
        self.weighted = bool(weighted)
        self.biased = float(p) != 1.0 or float(q) != 1.0
        self.a_ret, self.a_out = 1.0 / float(p), 1.0 / float(q)
        self.a_max = max(self.a_ret, 1.0, self.a_out)
        self.ahead = checks_ahead(self.a_out, self.a_max)
        self.implementation = implementation

    # -- set-up --------------------------------------------------------------------------------
    def init(self, shard):
        xp = shard.xp
        W, L = len(self.starts), self.length
        paths_b, state_b = walk_bytes(W, L)
        generic = self.implementation == "generic"
        need = (paths_b if shard.part == 0 else 0) + (state_b if generic else 8 * W)
        _require(xp, need, f"random_walks on partition {shard.part} of {shard.num_parts} "
                           f"({W:,} walks of length {L:,})")
        st = {"alive": W if L > 0 else 0, "s": 0, "paths": None,
              "wkeys": walk_keys(xp, self.key, xp.arange(self.first_walk, self.first_walk + W, dtype=np.int64))}
        if shard.part == 0:
            paths = xp.full((W, L + 1), -1, dtype=np.int64)
            paths[:, 0] = xp.asarray(self.starts)
            st["paths"] = paths
        st["w"] = st["wmax"] = None
        if self.weighted:
            if shard.weights is None:
                raise InputError("weighted=True: the graph has no edge weights")
            w = shard.weights.astype(np.float64, copy=False)
            bad = ~xp.isfinite(w) | (w < 0)
            if bool(bad.any()):
                raise InputError(f"weighted=True: an edge weight is {float(w[xp.flatnonzero(bad)[0]])!r}; "
                                 f"walk weights must be finite and >= 0")
            st["w"], st["wmax"] = w, row_max(xp, shard.indptr, w)
        if not generic:
            return st
        st.update(cur=xp.asarray(self.starts).copy(), prev=xp.full(W, -1, dtype=np.int64),
                  cand=xp.full(W, -1, dtype=np.int64), attempt=xp.zeros(W, dtype=np.int64),
                  step=xp.zeros(W, dtype=np.int64), rounds=search_rounds(shard.indptr) if self.biased else 0)
        st["lo"], st["hi"], st["loc"] = shard.row_base, shard.row_base + shard.num_rows, None
        if not shard.contiguous:
            loc = xp.full(shard.n, -1, dtype=np.int64)
            loc[shard.rows] = xp.arange(len(shard.rows), dtype=np.int64)
            st["loc"] = loc
        return st

    def initial_report(self, shard, st):
        return {"walks": st["alive"]}

    def converged(self, report, step):
        return report.get("walks", 0) == 0

    # -- where a walk is ---------------------------------------------------------------------------
    @staticmethod
    def _owned(st, v):
        """Which of the vertices ``v`` (global ids, >= 0) this shard owns."""
        if st["loc"] is None:
            return (v >= st["lo"]) & (v < st["hi"])
        return st["loc"][v] >= 0

    @staticmethod
    def _local(st, v):
        """Local rows of owned vertices ``v``."""
        return v - st["lo"] if st["loc"] is None else st["loc"][v]

    # -- one superstep -------------------------------------------------------------------------------
    def superstep(self, shard, st, ctx):
        if st["paths"] is not None and self.implementation == "cpu-numba":
            st["report"] = self._numba_step(shard, st)
            return Contribution({}, {})
        if st["paths"] is not None and self.implementation == "gpu-cuda":
            st["report"] = self._cuda_steps(shard, st, 1)[0][0]
            return Contribution({}, {})
        xp = shard.xp
        cur, cand, step = st["cur"], st["cand"], st["step"]
        out = _Updates(xp)
        if st.get("inbox") is not None:
            self._check(shard, st, st.pop("inbox"), out)
        move = xp.flatnonzero((cur >= 0) & (step < self.length) & (cand < 0))
        if len(move):
            move = move[self._owned(st, cur[move])]
        if len(move):
            self._move(shard, st, move, out)
        return Contribution(out.arrays(), out.counters)

    def _check(self, shard, st, inbox, out):
        """The node2vec tests of the candidates sent here (this shard owns their walks' ``t``): each
        walk moves to its first candidate that passes, or goes back to ``v``'s owner for more."""
        xp = shard.xp
        w, x, a, known, first = inbox
        order = xp.argsort(w, kind="stable") if xp is np else xp.argsort(w)  # CuPy's radix sort is stable
        w, x, a, known, first = (y[order] for y in (w, x, a, known, first))  # a walk's rows: attempts ascending
        t, s = st["prev"][w], st["step"][w]
        alpha = xp.full(len(w), self.a_out)
        ask = xp.flatnonzero(known == 0)  # known: a return to t that passed where it was drawn
        found = in_rows(xp, shard.indptr, shard.indices, self._local(st, t[ask]), x[ask], st["rounds"])
        alpha[ask[found]] = 1.0
        passed = (known == 1) | (unit(xp, draws(xp, step_keys(xp, st["wkeys"][w], s), 3 * a + 2)) * self.a_max
                                 < alpha)
        head = group_starts(w)
        group = xp.cumsum(head) - 1
        walks = w[head]
        hit = xp.flatnonzero(passed)
        hit = hit[group_starts(w[hit])]  # each walk's first passing row
        took = xp.zeros(len(walks), dtype=bool)
        took[group[hit]] = True
        out.moved(w[hit], x[hit], st["cur"][w[hit]], s[hit], self.length)
        out.counters["edges"] += int((a[hit] - first[hit] + 1).sum())
        back = walks[~took]  # every candidate failed: v's owner draws on from the attempt after the last
        out.add(back, st["cur"][back], st["prev"][back], xp.full(len(back), -1, dtype=np.int64), st["attempt"][back],
                st["step"][back])
        out.counters["edges"] += int((st["attempt"][back] - first[head][~took]).sum())

    def _move(self, shard, st, w, out):
        """Attempts until each walk standing on an owned vertex moves, stops at a dead end, or waits.

        A walk whose node2vec test needs another shard (its ``t`` is not owned here) draws on until it
        has :func:`checks_ahead` candidates for that test, or a return to ``t`` that passed its own
        (which needs no other shard), and sends them to ``t``'s owner in that order."""
        xp = shard.xp
        v, t, s, a = st["cur"][w], st["prev"][w], st["step"][w], st["attempt"][w]
        lv = self._local(st, v)
        start = shard.indptr[lv]
        deg = shard.indptr[lv + 1] - start
        dead = deg == 0
        if self.weighted:
            dead |= ~(st["wmax"][lv] > 0)
        if bool(dead.any()):
            out.stopped(w[dead], t[dead], a[dead], s[dead])
            keep = ~dead
            w, v, t, s, a, lv, start, deg = (y[keep] for y in (w, v, t, s, a, lv, start, deg))
        skey = step_keys(xp, st["wkeys"][w], s)
        far = xp.zeros(len(w), dtype=bool)
        if self.biased:
            maybe = xp.flatnonzero((s > 0) & (deg > 1))
            if len(maybe):
                far[maybe[~self._owned(st, t[maybe])]] = True
        first, got = a.copy(), xp.zeros(len(w), dtype=np.int64)
        while len(w):
            out.counters["edges"] += int((~far).sum())  # a far walk's draws are counted where they are decided
            e = start + (draws(xp, skey, 3 * a) % deg.astype(np.uint64)).astype(np.int64)
            x = shard.indices[e].astype(np.int64)
            single = deg == 1
            ok = xp.ones(len(w), dtype=bool)
            if self.weighted:
                ok = single | (unit(xp, draws(xp, skey, 3 * a + 1)) * st["wmax"][lv] < st["w"][e])
            sent = xp.zeros(len(w), dtype=bool)
            alone = sent
            if self.biased:
                test = ok & ~single & (s > 0)
                back = x == t
                alpha = xp.full(len(w), self.a_out)
                alpha[back] = self.a_ret
                near = xp.flatnonzero(test & ~back & ~far)
                if len(near):
                    found = in_rows(xp, shard.indptr, shard.indices, self._local(st, t[near]), x[near], st["rounds"])
                    alpha[near[found]] = 1.0
                passed = unit(xp, draws(xp, skey, 3 * a + 2)) * self.a_max < alpha
                if bool(far.any()):
                    known = far & ok & back & passed
                    alone = known & (got == 0)  # a return that passed before any candidate: taken here
                    row = far & ok & ~alone & (~back | known)
                    out.check(w[row], x[row], a[row], known[row], first[row])
                    got += far & ok & ~back
                    sent = far & ~alone & (known | (got >= self.ahead))
                    out.counters["edges"] += int((a[alone] - first[alone] + 1).sum())
                ok &= ~test | passed
            go = (ok & ~far) | alone
            out.moved(w[go], x[go], v[go], s[go], self.length)
            if bool(sent.any()):
                out.add(w[sent], v[sent], t[sent], xp.ones(int(sent.sum()), dtype=np.int64), a[sent] + 1, s[sent])
                out.counters["waiting"] += int(sent.sum())
            again = xp.flatnonzero((~far & ~ok) | (far & ~sent & ~alone))
            w, v, t, s, a, lv, start, deg, skey, far, first, got = (
                y[again] for y in (w, v, t, s, a, lv, start, deg, skey, far, first, got))
            a = a + 1

    def receive(self, shard, st, contributions, ctx):
        if "report" in st:
            return st.pop("report")
        xp = shard.xp
        sums = {"frontier": 0, "edges": 0, "waiting": 0, "ended": 0}
        inbox = []
        for c in contributions:
            for k in sums:
                sums[k] += int(c.counters.get(k, 0))
            if len(c.arrays.get("walk", ())):
                w, cur, prev, cand, attempt, step = (to_backend(c.arrays[k], xp) for k in _Updates.FIELDS)
                if st["paths"] is not None:
                    moved = step > st["step"][w]
                    st["paths"][w[moved], step[moved]] = cur[moved]
                st["cur"][w], st["prev"][w], st["cand"][w], st["attempt"][w], st["step"][w] = (cur, prev, cand,
                                                                                               attempt, step)
            if len(c.arrays.get("check_walk", ())):
                rows = [to_backend(c.arrays[k], xp) for k in _Updates.CHECKS]
                mine = self._owned(st, st["prev"][rows[0]])
                if bool(mine.any()):
                    inbox.append([y[mine] for y in rows])
        if inbox:
            st["inbox"] = [xp.concatenate([r[i] for r in inbox]) for i in range(len(_Updates.CHECKS))]
        st["alive"] -= sums.pop("ended")
        return {"walks": st["alive"], **sums}

    # -- one whole numpy shard: the numba kernel ------------------------------------------------------
    def _numba_step(self, shard, st):
        from . import cpu  # noqa: PLC0415

        s = st["s"]
        none = np.empty(0, dtype=np.float64)
        args = (shard.indptr, shard.indices, none if st["w"] is None else st["w"],
                none if st["wmax"] is None else st["wmax"], self.weighted, self.biased, self.a_ret, self.a_out,
                self.a_max, st["paths"], st["wkeys"], s)
        if len(self.starts) < PAR_MIN_WALKS:
            moved, proposed = cpu.walk_step_serial(*args)
        else:
            if "moved_by" not in st:
                from ...jit import num_threads  # noqa: PLC0415

                st["moved_by"], st["drawn_by"] = np.zeros(num_threads(), np.int64), np.zeros(num_threads(), np.int64)
            moved, proposed = cpu.walk_step(*args, st["moved_by"], st["drawn_by"])
        st["s"] = s + 1
        st["alive"] = int(moved) if s + 1 < self.length else 0
        return {"walks": st["alive"], "frontier": int(moved), "edges": int(proposed), "waiting": 0}

    # -- one whole CuPy shard: the CUDA kernel -------------------------------------------------------
    def _cuda_steps(self, shard, st, limit):
        """Up to ``limit`` steps (batches of :data:`GPU_BATCH`), stopping after the step no walk
        moved in; -> one (report, seconds) a step, as the numba path reports them."""
        from . import gpu  # noqa: PLC0415

        if "steps" not in st:
            st["steps"] = gpu.Steps(self.length, st["w"], st["wmax"])
        out = []
        while len(out) < limit and st["alive"] > 0:
            s = st["s"]
            count = min(limit - len(out), GPU_BATCH, self.length - s)
            for moved, drawn, seconds in gpu.run(shard.indptr, shard.indices, st["steps"], self.weighted,
                                                 self.biased, self.a_ret, self.a_out, self.a_max, st["paths"],
                                                 st["wkeys"], s, count):
                st["s"] = s = s + 1
                st["alive"] = moved if s < self.length else 0
                out.append(({"walks": st["alive"], "frontier": moved, "edges": drawn, "waiting": 0}, seconds))
                if st["alive"] == 0:
                    break  # the later launches of the batch found no walk going
        return out

    def run_steps(self, shard, st, ctx, limit):
        """Every step by the numba kernel ('cpu-numba') or the CUDA one ('gpu-cuda'), one report a
        step; None for 'generic'."""
        if self.implementation not in ("cpu-numba", "gpu-cuda") or st["paths"] is None:
            return None
        if self.implementation == "gpu-cuda":
            out = self._cuda_steps(shard, st, limit)
            if ctx.tick is not None:
                for report, seconds in out:
                    ctx.tick(report, seconds)
            return out
        out = []
        while len(out) < limit and st["alive"] > 0:
            t0 = time.perf_counter()
            report = self._numba_step(shard, st)
            seconds = time.perf_counter() - t0
            out.append((report, seconds))
            if ctx.tick is not None:
                ctx.tick(report, seconds)
        return out

    def finish(self, shard, st):
        if st["paths"] is None:
            return {"paths": shard.xp.empty((0, self.length + 1), dtype=np.int64)}
        return {"paths": st["paths"]}


class _Updates:
    """The walks a shard changed in a superstep, and the candidates it sends for a node2vec test, as
    the arrays of its Contribution (every array present, empty or not: NCCL sends them by name)."""

    FIELDS = ("walk", "cur", "prev", "cand", "attempt", "step")
    CHECKS = ("check_walk", "check_x", "check_attempt", "check_known", "check_first")

    def __init__(self, xp):
        self.xp = xp
        self.parts = []
        self.checks = []
        self.counters = {"frontier": 0, "edges": 0, "waiting": 0, "ended": 0}

    def add(self, w, cur, prev, cand, attempt, step):
        if len(w):
            self.parts.append((w, cur, prev, cand, attempt, step))

    def check(self, w, x, a, known, first):
        """Rows for the owner of the walks' ``t``: candidate ``x`` of attempt ``a`` (``known``: a return
        to ``t`` that passed already), ``first``: the attempt the walk's draws started at this time."""
        if len(w):
            self.checks.append((w, x, a, known.astype(np.int64), first))

    def moved(self, w, x, v, s, length):
        """Walks ``w`` stepped from ``v`` to ``x`` (step ``s`` -> ``s + 1``)."""
        n = len(w)
        if not n:
            return
        xp = self.xp
        s1 = s + 1
        self.add(w, x, v, xp.full(n, -1, dtype=np.int64), xp.zeros(n, dtype=np.int64), s1)
        self.counters["frontier"] += n
        self.counters["ended"] += int((s1 >= length).sum())

    def stopped(self, w, t, a, s):
        """Walks ``w`` at a dead end: ``cur = -1``, the rest of the path stays -1."""
        n = len(w)
        self.add(w, self.xp.full(n, -1, dtype=np.int64), t, self.xp.full(n, -1, dtype=np.int64), a, s)
        self.counters["ended"] += n

    def arrays(self):
        xp = self.xp
        out = {}
        for names, parts in ((self.FIELDS, self.parts), (self.CHECKS, self.checks)):
            for i, k in enumerate(names):
                out[k] = (xp.concatenate([p[i].astype(np.int64, copy=False) for p in parts]) if parts
                          else xp.empty(0, dtype=np.int64))
        return out


def _require(xp, nbytes, what):
    """Refuse, with what it needs, a walk state that would not fit where the shard computes."""
    from ...backend.device_memory import require, require_host  # noqa: PLC0415

    if xp is np:
        require_host(nbytes, what)
    else:
        require(nbytes, what)


__all__ = ["RandomWalks", "implementation", "IMPLEMENTATIONS", "walk_bytes", "PAR_MIN_WALKS", "checks_ahead", "STATE_BYTES", "STEP_BYTES"]
