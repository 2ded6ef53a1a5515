"""The betweenness-centrality Program (Brandes), unweighted, exact over the given sources.

For every source ``s`` Brandes' algorithm runs two passes (Gunrock section 5.3):

- forward: a BFS by levels that also counts shortest paths,
  ``sigma[v] = sum of sigma[u] over in-edges u -> v with depth[u] = depth[v] - 1``;
- backward, from the deepest level up: the dependency of ``s`` on ``u``,
  ``delta[u] = sum over out-edges u -> v with depth[v] = depth[u] + 1 of
  sigma[u] / sigma[v] * (1 + delta[v])``;

and ``bc[v] += delta[v]`` for every ``v != s``.

Sources are processed in *batches*: a batch of ``B`` sources runs its
forward and backward passes together, every array indexed by the key
``b * n + v`` (source slot ``b``, vertex ``v``), so one superstep advances
all the batch's BFS trees by one level (McLaughlin and Bader's source
parallelism, here as more work per superstep instead of more supersteps).
A batch takes ``2 * D`` supersteps (``D``: its deepest level); ``B`` is as
many sources as fit ``batch_size`` (default: ``2**21 // n`` keys, about 59 MB
of per-key state on every shard).

Across partitions every shard keeps the batch's depth, sigma and delta
arrays for all keys (replicated, as BFS keeps its depth array), and works on
the keys whose vertex it owns:

- forward superstep at level L: for its owned level-L vertices the shard
  computes sigma by a gather over their *in-edges* (only in-neighbors at
  level L-1 count), and advances over their out-edges to the unvisited
  vertices (level L+1).  Contribution: the owned (key, sigma) pairs and the
  discovered keys; every shard all-gathers the sigmas and takes the union of
  the discoveries.  The next level's sigma is pulled in the next superstep,
  so discovery and counting share one exchange per level.
- backward superstep at level L: for its owned level-L vertices the shard
  sums ``(1 + delta[v]) / sigma[v]`` over the out-edges to level L+1 and
  multiplies by ``sigma[u]``; the deltas are all-gathered.

Every per-vertex sum (sigma over in-edges, delta over out-edges) is computed
by the vertex's owner in the graph's own edge order with a sequential
compiled kernel (:func:`~dgraph.backend.primitives.gather_row_sum`), and
``bc`` is accumulated source by source in the order of the sorted source
ids, the same on every shard: every executor, partition count and batch size
returns the same bits (for shards cut from one Graph with ``G.partition``).
sigma is a float64 path count, as in NetworkX: exact below 2**53 paths.

One whole shard on numpy (the local executor, one partition:
implementation ``"cpu-numba"``, see :func:`dgraph.algorithms.bc.implementation`) runs every
batch in one call instead (``run_steps``): Brandes source by source in numba
(:mod:`dgraph.algorithms.bc.cpu`), with the same sums in the same order, so the
same bits, and the same superstep records.  One whole shard on CuPy
(``"gpu-brandes"``) does the same with a batch of sources at once in CUDA
(:mod:`dgraph.algorithms.bc.gpu`): the same records, and values equal to
rounding (each dependency sum adds its row in a fixed order of its own).

The scaling is NetworkX's (``networkx.algorithms.centrality.betweenness._rescale``
without sampling): with ``N = n`` when ``endpoints`` else ``n - 1``, and
nothing scaled when ``N < 2``: normalized divides by ``N * (N - 1)``;
unnormalized halves undirected graphs (each unordered pair was counted from
both ends) and leaves directed ones alone.
"""

from __future__ import annotations

import numpy as np

from ...backend import to_backend
from ...backend.primitives import expand, gather_row_sum
from ...engine.program import Contribution, Program

#: default per-batch budget of (source, vertex) keys: B = max(1, this // n) sources per batch
BATCH_KEYS = 2 ** 21


class BCState:
    __slots__ = ("bc", "local_of", "batch", "srcs", "depth", "sigma", "delta", "coef", "levels", "frontier",
                 "phase", "level", "fast")


class BC(Program):
    """The betweenness-centrality Program (see :mod:`dgraph.engine.program`)."""

    name = "bc"
    replicated_result = False

    def __init__(self, sources, batch, *, normalized=True, endpoints=False, implementation="generic"):
        self.sources = np.asarray(sources, dtype=np.int64)  # sorted, unique internal ids
        self.batch = max(1, int(batch))
        self.normalized, self.endpoints = bool(normalized), bool(endpoints)
        #: "cpu-numba" / "gpu-brandes" (every batch in one run_steps call) or "generic" (the supersteps):
        #: see implementation()
        self.implementation = implementation

    @property
    def num_batches(self):
        return -(-len(self.sources) // self.batch)

    # -- setup -----------------------------------------------------------------------
    def init(self, shard):
        xp = shard.xp
        st = BCState()
        st.bc = xp.zeros(shard.n, dtype=np.float64)
        st.local_of = None
        if not shard.contiguous:
            st.local_of = xp.full(shard.n, -1, dtype=np.int64)
            st.local_of[shard.rows] = xp.arange(len(shard.rows), dtype=np.int64)
        st.fast = self.implementation in ("cpu-numba", "gpu-brandes") and shard.n > 0 and len(self.sources) > 0
        if st.fast:  # run_steps runs it all; the batch arrays are made only if it is not called
            st.batch, st.phase, st.level, st.srcs = 0, "forward", 0, self.sources[:self.batch]
            st.frontier, st.levels = st.srcs, [st.srcs]
            st.depth = st.sigma = st.delta = st.coef = None
            return st
        self._start_batch(shard, st, 0)
        return st

    def run_steps(self, shard, st, ctx, limit):
        """Every batch at once on one whole shard: Brandes source by source in numba on numpy
        (:mod:`dgraph.algorithms.bc.cpu`, the same bits), a batch at a time in CUDA on CuPy
        (:mod:`dgraph.algorithms.bc.gpu`); the superstep records the Program gives."""
        from ... import startup  # noqa: PLC0415

        if not st.fast or ctx.step != 0:
            return None
        run_batch = self._gpu_batches(shard) if self.implementation == "gpu-brandes" else self._cpu_batches(shard)
        out = []
        for k in range(self.num_batches):
            sw = startup.Stopwatch()
            cnt, oute, ine = run_batch(self.sources[k * self.batch:(k + 1) * self.batch], st.bc)
            D = len(cnt) - 1
            reps = [{"phase": "forward", "batch": k, "level": L, "frontier": int(cnt[L]),
                     "edges": int(oute[L] + ine[L]), "done": False} for L in range(D + 1)]
            reps += [{"phase": "backward", "batch": k, "level": L, "frontier": int(cnt[L]), "edges": int(oute[L]),
                      "done": False} for L in range(D - 1, 0, -1)]
            seconds = sw.lap() / len(reps)
            out += [(r, seconds) for r in reps]
            if ctx.tick is not None and limit >= 1 << 30:  # (a max_supersteps cut may undo the batch)
                for r in reps:
                    ctx.tick(r, seconds)
        out[-1][0]["done"] = True
        if len(out) > limit:  # a max_supersteps cut: run it superstep by superstep instead
            st.bc[:] = 0.0
            st.fast = False
            self._start_batch(shard, st, 0)
            return None
        st.fast = False
        st.phase, st.frontier, st.levels = "done", None, []
        return out

    def _cpu_batches(self, shard):
        """batch(sources, bc) -> per-level (vertices, out-arcs, in-arcs): Brandes source by source (numba)."""
        from . import cpu as cpu_bc  # noqa: PLC0415

        n = shard.n
        directed = bool(shard.directed)
        if directed:
            cindptr, cindices, _ = shard.csc(edge_ids=False)
        else:
            cindptr, cindices = shard.indptr[:1], shard.indices[:0]
        sc = cpu_bc.Scratch(n, shard.indices.dtype)

        def batch(sources, bc):
            per = [cpu_bc.run_source(shard.indptr, shard.indices, cindptr, cindices, directed, int(s),
                                     self.endpoints, bc, sc) for s in sources]
            D = max(p[0] for p in per)
            cnt = np.zeros(D + 1, dtype=np.int64)
            oute = np.zeros(D + 1, dtype=np.int64)
            ine = np.zeros(D + 1, dtype=np.int64)
            for d, c, o, i in per:
                cnt[:d + 1] += c
                oute[:d + 1] += o
                ine[:d + 1] += i
            return cnt, oute, ine

        return batch

    def _gpu_batches(self, shard):
        """batch(sources, bc) -> per-level (vertices, out-arcs, in-arcs): a batch at once (CUDA)."""
        from . import gpu as gpu_bc  # noqa: PLC0415

        runner = gpu_bc.Runner(shard.indptr, shard.indices, shard.n, min(self.batch, len(self.sources)),
                               shard.directed)
        return lambda sources, bc: runner.run(sources, bc, self.endpoints)

    def _start_batch(self, shard, st, k):
        xp = shard.xp
        n = shard.n
        st.batch = k
        srcs = self.sources[k * self.batch:(k + 1) * self.batch]
        st.srcs = srcs
        if len(srcs) == 0 or n == 0:
            st.phase, st.level, st.frontier, st.levels = "done", 0, None, []
            st.depth = st.sigma = st.delta = st.coef = None
            return
        size = len(srcs) * n
        keys = xp.asarray(np.arange(len(srcs), dtype=np.int64) * n + srcs)
        st.depth = xp.full(size, -1, dtype=np.int32)
        st.sigma = xp.zeros(size, dtype=np.float64)
        st.delta = xp.zeros(size, dtype=np.float64)
        st.coef = xp.zeros(size, dtype=np.float64)  # (1 + delta) / sigma, set level by level going up
        st.depth[keys] = 0
        st.sigma[keys] = 1.0
        st.levels = [keys]
        st.frontier = keys
        st.phase, st.level = "forward", 0

    def initial_report(self, shard, st):
        return {"phase": st.phase, "batch": st.batch, "level": st.level,
                "frontier": 0 if st.phase == "done" else len(self._work(st)), "done": st.phase == "done"}

    def converged(self, report, step):
        return bool(report.get("done", False))

    @staticmethod
    def _work(st):
        """The keys the next superstep works on."""
        return st.frontier if st.phase == "forward" else st.levels[st.level]

    # -- helpers ---------------------------------------------------------------------
    @staticmethod
    def _owned(shard, st, keys):
        """(keys, local rows) of the keys whose vertex this shard owns."""
        n = shard.n
        v = keys % n
        if shard.contiguous:
            lo, hi = shard.row_base, shard.row_base + shard.num_rows
            if lo == 0 and hi == n:
                return keys, v
            m = (v >= lo) & (v < hi)
            return keys[m], v[m] - lo
        loc = st.local_of[v]
        m = loc >= 0
        return keys[m], loc[m]

    @staticmethod
    def _neighbor_keys(shard, indptr, indices, keys, rows):
        """(seg, neighbor keys) of every edge in the given rows: the same source slot, the neighbor's vertex."""
        seg, eid = expand(indptr, rows)
        n = shard.n
        return seg, (keys - keys % n)[seg] + indices[eid].astype(np.int64)

    @staticmethod
    def _row_sums(shard, indptr, rows, vals):
        """Per row, the sum of ``vals`` (one per edge, rows in order) in edge order: no atomics, so a
        vertex's sum is the same bits on whichever shard owns it."""
        xp = shard.xp
        sub = xp.zeros(len(rows) + 1, dtype=np.int64)
        if len(rows):
            xp.cumsum(indptr[rows + 1] - indptr[rows], out=sub[1:])
        return gather_row_sum(sub, xp.arange(len(vals), dtype=np.int64), vals)

    # -- one superstep ---------------------------------------------------------------
    def superstep(self, shard, st, ctx):
        if st.fast:
            st.fast = False
            self._start_batch(shard, st, st.batch)
        xp = shard.xp
        L = st.level
        depth = st.depth
        keys, rows = self._owned(shard, st, self._work(st))
        if st.phase == "forward":
            seg, nkey = self._neighbor_keys(shard, shard.indptr, shard.indices, keys, rows)
            edges = len(nkey)
            if L > 0:  # sigma of the owned level-L vertices: pull over in-edges from level L-1
                if shard.directed:
                    cindptr, cindices, _ = shard.csc(edge_ids=False)
                    _, pkey = self._neighbor_keys(shard, cindptr, cindices, keys, rows)
                    edges += len(pkey)
                else:  # the in-edges are the out-edges
                    cindptr, pkey = shard.indptr, nkey
                vals = xp.where(depth[pkey] == L - 1, st.sigma[pkey], 0.0)
                sk, sv = keys, self._row_sums(shard, cindptr, rows, vals)
            else:  # the sources: sigma = 1 already
                sk, sv = xp.empty(0, dtype=np.int64), xp.empty(0, dtype=np.float64)
            new = _distinct(xp, nkey[depth[nkey] < 0], len(depth))
            return Contribution({"k": sk, "v": sv, "new": new}, {"edges": edges})
        # backward: (1 + delta) / sigma over the out-edges to level L+1.  Every out-neighbor of a
        # level-L vertex is at depth <= L+1, and coef is still 0 at depths <= L (set level by level
        # going up), so coef needs no depth mask: the other edges add exact zeros.
        seg, nkey = self._neighbor_keys(shard, shard.indptr, shard.indices, keys, rows)
        sums = self._row_sums(shard, shard.indptr, rows, st.coef[nkey])
        return Contribution({"k": keys, "v": st.sigma[keys] * sums, "new": xp.empty(0, dtype=np.int64)},
                            {"edges": len(nkey)})

    def receive(self, shard, st, contributions, ctx):
        xp = shard.xp
        edges = sum(int(c.counters["edges"]) for c in contributions)
        phase, level = st.phase, st.level
        if len(contributions) == 1:
            a = contributions[0].arrays
            k, v, new = a["k"], a["v"], a["new"]
        else:
            k = xp.concatenate([to_backend(c.arrays["k"], xp) for c in contributions])
            v = xp.concatenate([to_backend(c.arrays["v"], xp) for c in contributions])
            new = _distinct(xp, xp.concatenate([to_backend(c.arrays["new"], xp) for c in contributions]),
                            0 if st.depth is None else len(st.depth))
        worked, batch = len(self._work(st)), st.batch
        if phase == "forward":
            st.sigma[k] = v
            if len(new):
                st.depth[new] = level + 1
                st.levels.append(new)
                st.frontier = new
                st.level = level + 1
            else:  # the deepest level D = level: its vertices depend on nothing below
                deepest = st.levels[level]
                st.coef[deepest] = 1.0 / st.sigma[deepest]
                st.phase, st.level = "backward", level - 1
        else:
            st.delta[k] = v
            st.coef[k] = (1.0 + v) / st.sigma[k]
            st.level = level - 1
        if st.phase == "backward" and st.level < 1:
            self._accumulate(shard, st)
            self._start_batch(shard, st, st.batch + 1)
        return {"phase": phase, "batch": batch, "level": level, "frontier": worked, "edges": edges,
                "done": st.phase == "done"}

    def _accumulate(self, shard, st):
        """bc += each source's dependencies, source by source (the same order whatever the batch)."""
        n = shard.n
        b = len(st.srcs)
        delta = st.delta.reshape(b, n)
        if self.endpoints:
            reached = (st.depth >= 0).reshape(b, n)
            counts = reached.sum(axis=1)
        for i in range(b):
            if self.endpoints:
                term = delta[i] + reached[i]
                term[int(st.srcs[i])] = counts[i] - 1
                st.bc += term
            else:
                st.bc += delta[i]

    def finish(self, shard, st):
        scale = self.scale(shard.n, shard.directed)
        bc = st.bc if scale == 1.0 else st.bc * scale
        if shard.contiguous and shard.row_base == 0 and shard.num_rows == shard.n:
            return {"bc": bc}
        return {"bc": bc[shard.global_rows()]}

    def scale(self, n, directed):
        """NetworkX's rescaling without sampling (``betweenness._rescale`` with ``k=None``)."""
        N = n if self.endpoints else n - 1
        if N < 2:
            return 1.0
        if self.normalized:
            return 1 / (N * (N - 1))
        return 1.0 if directed else 0.5



def _distinct(xp, keys, size):
    """The sorted distinct keys (< size): a sort when they are few, a bitmap when they are many."""
    if len(keys) * 8 <= size:
        return xp.unique(keys)
    mark = xp.zeros(size, dtype=bool)
    mark[keys] = True
    return xp.flatnonzero(mark).astype(np.int64, copy=False)


__all__ = ["BC", "BATCH_KEYS"]
