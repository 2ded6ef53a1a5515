"""The Louvain Program: levels of local moving and aggregation, as bulk-synchronous supersteps.

Supersteps, each a stage (``stats["stage"]``), the same sequence on every shard:

- ``transpose`` (a partitioned directed weighted graph only): every shard sends its out-arcs with
  their weights, so each owner knows its vertices' in-arcs' weights (a shard cut from a graph holds
  only its rows' out-arc weights).  Each shard holds every arc for this one superstep.
- ``strengths``: each shard computes its vertices' strengths and self-loop weights; all-gathered.
  Every vertex starts alone in its community.
- ``move`` (repeated): each shard computes, for the vertices it owns, the best neighbor community
  from the replicated community ids and community totals (:func:`.kernels.move_step`); of the
  vertices that want to move, those whose coin comes up move (a coin keyed by seed, level,
  superstep and vertex, up with probability ``2**-shift``: 1/2 on level 0, 1/4 on the heavier
  vertices of the coarse levels).  The new community ids of the owned vertices are all-gathered and
  every shard moves the totals of the vertices that moved.  The same superstep measures the
  modularity of the state it started from (exact integer sums): when the last moves, made at once,
  did not raise it, they are undone (every shard holds the last kept state) and the coins need one
  more bit from then on, one bit fewer again after each superstep kept; so the modularity of a
  level only rises, and no two vertices swap communities back and forth.  Only the active vertices are
  evaluated (all of them in a level's first superstep; after a kept superstep, its candidates and
  the vertices with a neighbor that moved; after an undone one, the candidates of the state it
  returns to): the others keep their cached ``K(v, own)``, so the modularity stays exact, and do
  not move (their best move can only have changed through the communities' totals).  The level's moving ends in the first kept state where no vertex wants to move, or
  after :data:`MAX_LEVEL_STEPS` supersteps (the long tail of single moves is left to the coarser
  levels and the refinement).
- ``aggregate``: each shard sums its rows' arcs by (community, community); the parts are
  all-gathered and every shard builds the community graph, the next level, keeping the rows of an
  even slice of its vertices (:func:`.level.coarse_level`).  The run's levels end when a level
  moved no vertex, gained at most ``threshold`` or ``max_level`` levels were kept, as NetworkX's
  ``louvain_partitions`` stops (it returns the last level it kept).
- ``refine`` (when the communities came from coarse levels, two kept or more): from the level below
  the last kept one down to level 0, each level's vertices start in the final communities and move
  between them as in a level (``move`` supersteps on that level's graph, undone when they lower the
  modularity): multilevel refinement (Rotta and Noack, ACM JEA 2011).  It never lowers the
  modularity, and mostly recovers what moving many vertices at once loses against the sequential
  algorithm.

Each decision reads only replicated state and exact integer sums, so every executor, partition
count and backend takes the same decisions and ends with the same communities.  The result is
replicated: ``community`` of every input vertex (the smallest member's id), and the last superstep's
``modularity``, the answer's.

Implementations (chosen once by :func:`implementation`): 'generic' (the vectorized step of
:func:`.kernels.move_step`, numpy or CuPy) and 'cpu-numba' (numpy: :func:`.cpu.move_rows` over the
CPU's threads).  Both give the same moves; aggregation is vectorized in both.
"""

from __future__ import annotations

import numpy as np

from ...backend import to_backend
from ...engine.program import Contribution, Program
from . import kernels as K
from .level import coarse_level, in_arcs_from, in_arcs_local, level_zero, out_arcs

#: numpy: a shard with at least this many arcs runs its rows on all the CPU's threads
PAR_MIN_ARCS = 1 << 16
#: a level's local moving stops after this many supersteps even if some vertex still wants to move
MAX_LEVEL_STEPS = 50
#: refining level i draws the coins of level REFINE_LEVEL + i (no level gets this far)
REFINE_LEVEL = 0x10000
#: after each undone superstep, half as many vertices move (their coins need one more bit), down to 2**-MAX_SHIFT
MAX_SHIFT = 16

#: what :func:`implementation` may choose, and what each runs
IMPLEMENTATIONS = {
    "generic": "vectorized: one sorted int64 key per arc and superstep, runs summed (numpy or CuPy; the reference)",
    "cpu-numba": "numpy: each shard's rows by the threaded numba kernel (cpu.py), a hash table per thread",
}


def implementation(backend, kernels):
    """The name of the code that moves the vertices (a key of :data:`IMPLEMENTATIONS`), decided once a
    run: 'generic' for ``kernels='generic'`` or CuPy, else 'cpu-numba'.

    >>> implementation("numpy", "fused"), implementation("cupy", "fused")
    ('cpu-numba', 'generic')
    """
    return "generic" if kernels == "generic" or backend != "numpy" else "cpu-numba"


def _report(stage, level, moved=0, undone=0, candidates=0, communities=0, modularity=0.0, levels=0, done=False):
    return {"stage": stage, "level": int(level), "moved": int(moved), "undone": int(undone),
            "candidates": int(candidates),
            "communities": int(communities), "modularity": float(modularity), "levels": int(levels),
            "done": bool(done)}


class Louvain(Program):
    """The Louvain Program (see the module docstring).  ``exponent``: the weights' scale
    (:func:`.kernels.scale_exponent`); ``weighted``: use the shards' weights (else every arc weighs
    1); ``max_level`` None or a positive int; ``keep_levels``: also a column ``level_<i>`` of each
    kept level's communities (before the refinement)."""

    name = "louvain"
    replicated_result = True

    def __init__(self, *, resolution=1.0, threshold=1e-7, max_level=None, seed=0, exponent=0, weighted=True,
                 implementation="generic", keep_levels=False):
        self.resolution = float(resolution)
        self.threshold = float(threshold)
        self.max_level = max_level
        self.seed = int(seed)
        self.exponent = int(exponent)
        self.weighted = bool(weighted)
        self.implementation = implementation
        self.keep_levels = bool(keep_levels)

    # -- set-up ------------------------------------------------------------------------------------
    def init(self, shard):
        xp = shard.xp
        weights = shard.weights if self.weighted else None
        wq = K.quantize(xp, weights, self.exponent, shard.num_arcs)
        st = {"wq": wq, "member": None, "kept": 0, "total": 0, "q": 0.0, "refine": False, "history": []}
        self._new_level(st, None)
        in_arcs = in_arcs_local(shard, wq) if shard.directed else None
        st["stage"] = "transpose" if shard.directed and in_arcs is None else "strengths"
        st["in_arcs"] = in_arcs
        return st

    def initial_report(self, shard, st):
        return _report("start", 0, communities=shard.n, done=shard.n == 0)

    def converged(self, report, step):
        return bool(report.get("done"))

    # -- supersteps ----------------------------------------------------------------------------------
    def superstep(self, shard, st, ctx):
        stage = st["stage"]
        if stage == "transpose":
            rows, arow, u = out_arcs(shard, st["wq"])
            return Contribution({"src": rows[arow], "dst": u.astype(np.int64), "w": st["wq"]})
        if stage == "strengths":
            lv, (sout, sin, loop) = level_zero(shard, st.pop("wq"), st.pop("in_arcs"))
            st["lv"] = lv
            st["chain"], st["ups"] = [lv], []
            arrays = {"sout": sout, "loop": loop}
            if shard.directed:
                arrays["sin"] = sin
            return Contribution(arrays)
        lv = st["lv"]
        if stage == "move":
            key = K.coin_key(self.seed, REFINE_LEVEL + lv.index if st["refine"] else lv.index, st["step"])
            if st.get("active") is None:   # a level's (or a refinement's) first superstep: every row
                st["active"] = lv.xp.ones(len(lv.rows), dtype=bool)
                st["kown"] = lv.xp.zeros(len(lv.rows), dtype=np.int64)
            new, cand, moved, inner = self._move(shard, st, lv, key, st["shift"])
            st["cand"] = cand
            return Contribution({"comm": new}, {"candidates": int(cand.sum()), "moved": moved, "inner": inner})
        keys, sums = K.aggregate_arcs(lv.xp, lv.rows, lv.arc_rows(), lv.nbr, lv.w, lv.comm)
        return Contribution({"keys": keys, "sums": sums})

    def _move(self, shard, st, lv, key, shift):
        res_d = self.resolution / float(st["total"] * (1 if lv.directed else 2))
        if self.implementation == "generic":
            return K.move_step(lv.xp, lv.rows, lv.arc_rows(keep=True), lv.nbr, lv.w, lv.comm, lv.sout, lv.sin, lv.loop,
                               lv.tot_out, lv.tot_in, res_d, key, shift, st["active"], st["kown"])
        from . import cpu  # noqa: PLC0415
        from ...jit import num_threads  # noqa: PLC0415

        scratch = st.get("scratch")
        if scratch is None or scratch[0] != lv.index:  # the threads' tables, once a level
            T = num_threads() if len(lv.nbr) >= PAR_MIN_ARCS else 1
            longest = max(lv.longest_row(), 1)
            cap = 1
            while cap < 2 * longest:
                cap *= 2
            # each thread's rows padded apart by 64 elements: threads never write one cache line
            scratch = (lv.index, np.empty((T, cap + 64), np.int64), np.empty((T, cap + 64), np.int64),
                       np.zeros((T, cap + 64), np.int64), np.empty((T, longest + 64), np.int64),
                       np.zeros(T, np.int64), np.zeros((T, 8), np.int64))
            st["scratch"] = scratch
        _, keys, sums, stamps, slots, ticks, counts = scratch
        out = np.empty(len(lv.rows), dtype=np.int64)
        cand = np.empty(len(lv.rows), dtype=bool)
        # threads only when the active rows hold about PAR_MIN_ARCS arcs (a thread's block is an even share
        # of all the rows' arcs)
        busy = len(counts) > 1 and int(st["active"].sum()) * len(lv.nbr) >= PAR_MIN_ARCS * max(len(lv.rows), 1)
        kernel = cpu.move_rows_par if busy else cpu.move_rows
        counts[...] = 0   # one thread writes only its row
        kernel(lv.ptr, lv.nbr, lv.w, lv.rows, lv.comm, lv.sout, lv.sin, lv.loop, lv.tot_out, lv.tot_in, res_d,
               np.uint64(key), shift, st["active"], st["kown"], cand, out, keys, sums, stamps, slots, ticks, counts)
        return out, cand, int(counts[:, 1].sum()), int(counts[:, 2].sum())

    def _next_active(self, st, lv, moved):
        """The rows to evaluate after a kept superstep: its candidates and the rows with a moved
        neighbor (``moved``: bool per vertex of the level)."""
        if self.implementation == "generic":
            return K.next_active(lv.xp, lv.arc_rows(keep=True), lv.nbr, st["cand"], moved)
        from . import cpu  # noqa: PLC0415

        out = np.empty(len(lv.rows), dtype=bool)
        if lv.rows_are_ids():   # one shard: push from the moved vertices (row r is vertex r)
            cpu.next_active_push(lv.ptr, lv.nbr, st["cand"], np.flatnonzero(moved), out)
            return out
        kernel = cpu.next_active_rows_par if len(lv.nbr) >= PAR_MIN_ARCS else cpu.next_active_rows
        kernel(lv.ptr, lv.nbr, st["cand"], moved, out)
        return out

    # -- exchanges ----------------------------------------------------------------------------------
    def receive(self, shard, st, contributions, ctx):
        stage = st["stage"]
        if stage == "transpose":
            st["in_arcs"] = in_arcs_from(shard, contributions)
            st["stage"] = "strengths"
            return _report("transpose", 0, communities=shard.n)
        if stage == "strengths":
            return self._strengths(shard, st, contributions)
        if stage == "move":
            return self._moved(shard, st, contributions)
        return self._aggregate(shard, st, contributions)

    def _strengths(self, shard, st, contributions):
        xp = shard.xp
        lv = st["lv"]
        n = shard.n
        sout = lv.gather(shard, xp.zeros(n, dtype=np.int64), contributions, "sout")
        loop = lv.gather(shard, xp.zeros(n, dtype=np.int64), contributions, "loop")
        sin = lv.gather(shard, xp.zeros(n, dtype=np.int64), contributions, "sin") if shard.directed else sout
        lv.set_strengths(sout, sin, loop)
        total = int(sout.sum())
        st["total"] = total
        st["q"] = K.modularity(int(loop.sum()), K.products(xp, lv.tot_out, lv.tot_in), total, self.resolution,
                               lv.directed)
        st["stage"] = "move"
        return _report("strengths", 0, communities=n, modularity=st["q"], done=total == 0)

    def _moved(self, shard, st, contributions):
        lv = st["lv"]
        xp = lv.xp
        cand = sum(int(c.counters["candidates"]) for c in contributions)
        moved = sum(int(c.counters["moved"]) for c in contributions)
        inner = sum(int(c.counters["inner"]) for c in contributions)
        # the modularity of the state this superstep started from (its moves not made yet)
        q = K.modularity(inner // 2, K.products(xp, lv.tot_out, lv.tot_in), st["total"], self.resolution,
                         lv.directed)
        st["step"] += 1
        stage = "refine" if st["refine"] else "move"
        last = st["step"] >= MAX_LEVEL_STEPS
        kept = st["kept_q"]
        if kept is not None and st["last_moved"] and q <= kept:
            # the last superstep's moves, made at once, did not raise the modularity: undo them, and let
            # fewer vertices move at a time
            undone = st["last_moved"]
            lv.comm[...] = st["kept_comm"]
            lv.tot_out[...] = st["kept_out"]
            if lv.directed:
                lv.tot_in[...] = st["kept_in"]
            st["kown"][...] = st["kept_kown"]
            st["active"] = st["kept_cand"]   # who wanted to move in the state returned to (only read)
            st["shift"] = min(st["shift"] + 1, MAX_SHIFT)
            st["last_moved"] = 0
            st["moved"] -= undone
            report = _report(stage, lv.index, moved=0, undone=undone, candidates=cand,
                             communities=self._count(lv), modularity=q, levels=st["kept"])
            return self._level_end(shard, st, report, kept) if last else report
        st["kept_q"] = q
        if "kept_comm" not in st:
            st["kept_comm"] = lv.comm.copy()
            st["kept_out"] = lv.tot_out.copy()
            st["kept_in"] = lv.tot_in.copy() if lv.directed else None
            st["kept_kown"] = st["kown"].copy()
        else:
            st["kept_comm"][...] = lv.comm
            st["kept_out"][...] = lv.tot_out
            if lv.directed:
                st["kept_in"][...] = lv.tot_in
            st["kept_kown"][...] = st["kown"]
        st["kept_cand"] = st["cand"]
        if cand == 0 or last:  # a local optimum (or the step cap): the level ends in this state
            report = _report(stage, lv.index, candidates=cand, communities=self._count(lv), modularity=q,
                             levels=st["kept"])
            return self._level_end(shard, st, report, q)
        if moved:
            old = st["kept_comm"]
            lv.gather(shard, lv.comm, contributions, "comm")
            lv.move_communities(old, lv.comm)
            st["active"] = self._next_active(st, lv, old != lv.comm)
        else:   # no coin came up: nothing changed, the same rows want to move
            st["active"] = st["cand"]   # read, never written: each step makes a new cand
        st["moved"] += moved
        st["last_moved"] = moved
        if moved:   # kept: let more move again, down to the level's start
            st["shift"] = max(st["shift"] - 1, st["base_shift"])
        return _report(stage, lv.index, moved=moved, candidates=cand, communities=self._count(lv), modularity=q,
                       levels=st["kept"])

    @staticmethod
    def _count(lv):
        present = lv.xp.zeros(lv.n, dtype=bool)
        present[lv.comm] = True
        return int(present.sum())

    def _level_end(self, shard, st, report, q):
        """The level's moving is over, in a kept state of modularity ``q``: aggregate next; or, refining,
        the level below, or done after level 0 (``report``: this superstep's)."""
        if not st["refine"]:
            st["stage"] = "aggregate"
            return report
        lv = st["lv"]
        st["q"] = max(st["q"], q)
        if lv.index > 0:
            self._refine(shard, st, lv.index - 1, lv.comm)
            return report
        st["member"] = lv.comm.copy()
        report.update(modularity=st["q"], done=True)
        return report

    def _aggregate(self, shard, st, contributions):
        xp = shard.xp
        lv = st["lv"]
        level_moved = st["moved"]
        if level_moved == 0:  # a local optimum already: nothing to keep
            return self._last(shard, st, lv.index, level_moved)
        keys = xp.concatenate([to_backend(c.arrays["keys"], xp) for c in contributions])
        sums = xp.concatenate([to_backend(c.arrays["sums"], xp) for c in contributions])
        keys, sums = K.run_sums(xp, keys, sums)
        nxt, dense = coarse_level(shard, lv, keys, sums)
        q = K.modularity(int(nxt.loop.sum()), K.products(xp, nxt.tot_out, nxt.tot_in), st["total"], self.resolution,
                         lv.directed)
        if q < st["q"]:  # cannot happen (every superstep kept raised it), but never keep a worse level
            return self._last(shard, st, lv.index, level_moved)
        gain = q - st["q"]
        st["q"] = q
        up = dense[lv.comm]
        st["member"] = up if st["member"] is None else up[st["member"]]
        if self.keep_levels:
            st["history"].append(st["member"])
        st["ups"].append(up)
        st["chain"].append(nxt)
        st["kept"] += 1
        if gain <= self.threshold or (self.max_level is not None and st["kept"] >= self.max_level):
            return self._last(shard, st, lv.index, level_moved)
        self._new_level(st, nxt)
        return _report("aggregate", lv.index, moved=level_moved, communities=nxt.n, modularity=q, levels=st["kept"])

    @staticmethod
    def _new_level(st, lv):
        # coarse levels: heavier vertices, whose simultaneous moves interfere more: a quarter start moving
        base = 1 if lv is None or lv.index == 0 else 2
        st.update(lv=lv, stage="move", moved=0, step=0, shift=base, base_shift=base, kept_q=None, last_moved=0)
        for key in ("scratch", "kept_comm", "kept_out", "kept_in", "kept_kown", "kept_cand", "active", "kown", "cand"):
            st.pop(key, None)

    def _last(self, shard, st, level, level_moved):
        """The levels are over.  When coarse levels made the communities (two levels kept or more),
        refine: from the level below the last kept one down to level 0, the level's vertices start in
        the final communities and move between them as in a level (multilevel refinement)."""
        member = st["member"]
        communities = int(member.max()) + 1 if member is not None and len(member) else shard.n
        refine = st["kept"] >= 2
        if refine:
            top = st["kept"] - 2   # the last kept level ended at a local optimum already
            self._refine(shard, st, top, st["ups"][top + 1])
        return _report("aggregate", level, moved=level_moved, communities=communities, modularity=st["q"],
                       levels=st["kept"], done=not refine)

    def _refine(self, shard, st, i, above):
        """Start refining level ``i``: its vertices in the communities ``above`` gives the vertices of
        level ``i + 1`` (any labels)."""
        xp = shard.xp
        lv = st["chain"][i]
        lv.comm = K.canonical(xp, above[st["ups"][i]])
        lv.tot_out = K.add_at(xp, xp.zeros(lv.n, dtype=np.int64), lv.comm, lv.sout)
        lv.tot_in = K.add_at(xp, xp.zeros(lv.n, dtype=np.int64), lv.comm, lv.sin) if lv.directed else lv.tot_out
        self._new_level(st, lv)
        st["refine"] = True

    def finish(self, shard, st):
        xp = shard.xp
        member = st["member"]
        if member is None:
            member = xp.arange(shard.n, dtype=np.int64)
        columns = {"community": K.canonical(xp, member)}
        for i, level in enumerate(st["history"]):   # keep_levels: each kept level's communities, unrefined
            columns[f"level_{i + 1}"] = K.canonical(xp, level)
        return columns


__all__ = ["Louvain", "implementation", "IMPLEMENTATIONS", "PAR_MIN_ARCS", "MAX_LEVEL_STEPS"]
