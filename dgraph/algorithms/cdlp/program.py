"""The CDLP Program: community detection by label propagation, LDBC Graphalytics semantics.

Every vertex starts with its own id as its label.  In each iteration, all
at once (synchronously), a vertex takes the label that is most frequent
among its neighbors, the smallest label when several are equally frequent;
a vertex without neighbors keeps its label.  For a directed graph the
neighbors are the in- and the out-neighbors, and a vertex that is both
counts twice.  The number of iterations is fixed (Graphalytics); the run
stops sooner only at a fixed point (an iteration that changed no label:
more iterations would change nothing).

Labels are vertex ids.  Internally they are the internal ids 0..n-1, which
are the user's ids in sorted order (see :mod:`dgraph.graph.ids`), so "the
smallest label" is the smallest user id, as Graphalytics compares them; the
result maps them back (column ``label``, in the user's ids).

Edges count as they are stored, as the LDBC reference implementation counts
them: a multi-edge kept with ``dedupe=False`` counts once per copy, and a
self loop ``v - v`` makes ``v`` its own neighbor *twice*, as its own out-
and in-neighbor.  For a directed graph that is the in-plus-out rule itself
(the loop is one out-edge and one in-edge of ``v``).  For an undirected graph
it is what the reference does too (it loads every undirected edge as two
arcs and counts each vertex's out- and in-arcs, so a neighbor counts twice
and a self loop four times): a neighbor counts once, a self loop twice.

Per superstep each shard computes the new labels of the vertices it owns
from the replicated label array, with no Python loop over vertices or
edges: gather the neighbor labels along the owned rows' out-edges (and
in-edges, from ``shard.csc()``, for a directed graph), sort one int64 key
``row * n + label`` per neighbor, count the runs of equal keys, and keep per
row the first run (smallest label) whose count is the row's maximum.  The
owned slices are then all-gathered (``shard.gather_owned``), so every
shard holds every label again.  The outcome depends only on the labels and
the edges, never on the partitioning, the backend or the executor.

Implementations (chosen once by :func:`implementation`).  That vectorized
step is 'generic' (``kernels="generic"``), kept as the reference.  On the numpy backend ``kernels="fused"`` (the default) runs
:func:`dgraph.algorithms.cdlp.cpu.cdlp_step_par` instead ('cpu-numba'): a
numba loop over the owned rows that finds the mode of each row's neighbor
labels (the same multiset) in a per-thread scratch buffer; no per-arc
arrays, and the same labels bit for bit.  One whole shard runs its
supersteps in :func:`dgraph.algorithms.cdlp.solver.run_steps`
('cpu-numba+steps': double-buffered labels, no gather a superstep).  On CuPy
``kernels="fused"`` runs the CUDA kernels of :mod:`dgraph.algorithms.cdlp.gpu`
('gpu-fused'; one whole shard 'gpu-fused+steps', the same loop): the same
multiset per row, bucketed by size, counted by shuffles or in hash tables.
"""

from __future__ import annotations

import numpy as np

from ...backend.primitives import group_starts, row_ids, scatter_max
from ...engine.program import Contribution, Program


#: numpy: a shard with at least this many arcs counts its rows on all the CPU's threads
PAR_MIN_ARCS = 1 << 16

#: numpy: rows with no changed neighbor are skipped once fewer than 1/SKIP_BELOW of the labels changed
SKIP_BELOW = 4


def _threads(shard):
    """The threads the numba kernels run a numpy shard's rows on."""
    from ...jit import num_threads  # noqa: PLC0415

    return num_threads() if shard.num_arcs >= PAR_MIN_ARCS else 1


def _run_max(xp, run_rows, counts, num_rows):
    """For every run, the largest count among the runs of its row (run_rows sorted)."""
    if xp is np:
        starts = np.flatnonzero(group_starts(run_rows))
        best = np.maximum.reduceat(counts, starts)
        return np.repeat(best, np.diff(np.append(starts, len(counts))))
    best = xp.zeros(num_rows, dtype=counts.dtype)
    scatter_max(best, run_rows, counts)
    return best[run_rows]


def mode_smallest(xp, rows, labels, num_rows, n):
    """Per row, the most frequent label (the smallest among the most frequent).

    ``rows`` (local rows 0..num_rows-1) and ``labels`` (0..n-1) pair up one
    neighbor each.  Returns ``(row, label)`` for every row that has at least
    one neighbor, rows ascending.
    """
    if len(rows) == 0:
        return xp.empty(0, dtype=np.int64), xp.empty(0, dtype=np.int64)
    n = max(int(n), 1)
    key = xp.sort(rows.astype(np.int64) * n + labels.astype(np.int64))
    starts = xp.flatnonzero(group_starts(key))
    ends = xp.empty_like(starts)
    ends[:-1] = starts[1:]
    ends[-1] = len(key)
    counts = ends - starts
    run_key = key[starts]
    run_row = run_key // n
    run_label = run_key - run_row * n
    top = counts == _run_max(xp, run_row, counts, num_rows)
    cand_row, cand_label = run_row[top], run_label[top]
    first = group_starts(cand_row)          # runs ascend by label within a row: the first is the smallest
    return cand_row[first], cand_label[first]


#: what :func:`implementation` may choose, and what each runs
IMPLEMENTATIONS = {
    "generic": "vectorized: one sorted int64 key per counted neighbor, runs counted (numpy or CuPy; the reference)",
    "cpu-numba": "numpy, partitioned: each shard's rows by the threaded numba kernel (cpu.py), a superstep at a time",
    "cpu-numba+steps": "numpy, one whole shard: the numba kernel's supersteps in one loop (solver.py)",
    "gpu-fused": "CuPy, partitioned: each shard's rows by the CUDA kernels (gpu.py), a superstep at a time",
    "gpu-fused+steps": "CuPy, one whole shard: the CUDA kernels' supersteps in one loop (solver.py)",
}


def implementation(backend, kernels, whole, local=True):
    """The name of the code that runs a CDLP (a key of :data:`IMPLEMENTATIONS`), decided once a run.

    ``backend``: 'numpy' or 'cupy'; ``kernels``: the user's 'fused' or 'generic'; ``whole``: one
    shard holding every vertex as its rows in order (:attr:`dgraph.partition.shard.Shard.whole`);
    ``local``: the ``local`` executor runs it (only it runs the loop of :mod:`.solver`).

    >>> implementation("numpy", "fused", True), implementation("cupy", "fused", True)
    ('cpu-numba+steps', 'gpu-fused+steps')
    >>> implementation("cupy", "fused", False), implementation("cupy", "generic", True)
    ('gpu-fused', 'generic')
    """
    if kernels == "generic":
        return "generic"
    prefix = "cpu-numba" if backend == "numpy" else "gpu-fused"
    return prefix + "+steps" if whole and local else prefix


class CDLP(Program):
    """The CDLP Program (see :mod:`dgraph.engine.program`); ``implementation``: a key of
    :data:`IMPLEMENTATIONS`, or None to decide it from ``kernels`` and the first shard (as if on the
    local executor)."""

    name = "cdlp"
    replicated_result = True

    def __init__(self, iterations, kernels="fused", implementation=None):
        self.iterations = int(iterations)
        self.kernels = kernels
        self.implementation = implementation

    def init(self, shard):
        xp = shard.xp
        vdt = shard.indices.dtype
        impl = self.implementation or implementation(shard.backend, self.kernels, shard.whole)
        if impl.startswith("gpu"):
            from . import gpu as gpu_cdlp  # noqa: PLC0415

            return {"impl": impl, "label": xp.arange(shard.n, dtype=vdt), "plan": gpu_cdlp.plan_for(shard),
                    "owned": shard.global_rows()}
        if impl != "generic":
            cindptr, cindices, _ = shard.csc(edge_ids=False) if shard.directed else (shard.indptr, shard.indices, None)
            # a bound on any row's count, from the degrees (no pass over the arcs): out-degree, twice
            # that where a loop counts twice (undirected), plus the in-degree (directed)
            size = int(shard.degree.max()) if len(shard.degree) else 0
            size = size + int(np.diff(cindptr).max(initial=0)) if shard.directed else 2 * size
            return {"impl": impl, "label": np.arange(shard.n, dtype=vdt), "cindptr": cindptr, "cindices": cindices,
                    "size": max(size, 1), "owned": shard.global_rows()}
        # who counts for whom, fixed for the whole run: (local row, neighbor's global id), one pair per count
        rows = [row_ids(shard.indptr)]
        nbrs = [shard.indices]
        if shard.directed:
            cindptr, csources, _ = shard.csc(edge_ids=False)
            rows.append(row_ids(cindptr))
            nbrs.append(csources)
        else:
            # an undirected self loop counts twice (LDBC reference: as out- and as in-neighbor)
            loop = shard.indices.astype(np.int64) == shard.global_rows().astype(np.int64)[rows[0]]
            if bool(loop.any()):
                rows.append(rows[0][loop])
                nbrs.append(shard.indices[loop])
        st = {
            "impl": impl,
            "label": xp.arange(shard.n, dtype=vdt),
            "rows": xp.concatenate([r.astype(np.int64, copy=False) for r in rows]),
            "nbrs": xp.concatenate([v.astype(vdt, copy=False) for v in nbrs]),
            "owned": shard.global_rows(),
        }
        return st

    def initial_report(self, shard, st):
        return {"changed": shard.n}

    def converged(self, report, step):
        return step >= self.iterations or (step > 0 and report.get("changed", 1) == 0)

    def superstep(self, shard, st, ctx):
        label = st["label"]
        if st["impl"].startswith("gpu"):  # rows without neighbors keep the label copied in
            new = label[st["owned"]]
            return Contribution({"label": new}, {"changed": st["plan"].step(label, new)})
        if st["impl"] != "generic":
            new = np.empty(shard.num_rows, dtype=label.dtype)
            prev = st.get("prev")  # the labels before these (receive overwrites them in place)
            changed = self._fused_step(shard, st, ctx.report, label, new, prev)
            if prev is None:
                st["prev"] = label.copy()
            else:
                np.copyto(prev, label)
            return Contribution({"label": new}, {"changed": int(changed)})
        old = label[st["owned"]]
        row, best = mode_smallest(shard.xp, st["rows"], label[st["nbrs"]], shard.num_rows, shard.n)
        new = old.copy()
        new[row] = best.astype(new.dtype, copy=False)
        changed = int(shard.xp.count_nonzero(new != old))
        return Contribution({"label": new}, {"changed": changed})

    def run_steps(self, shard, st, ctx, limit):
        """The whole-shard loop of :mod:`.solver` ('cpu-numba+steps'); None (a superstep at a time)
        for the other implementations."""
        from . import solver  # noqa: PLC0415

        return solver.run_steps(self, shard, st, ctx, limit)

    def _fused_step(self, shard, st, report, label, new, prev):
        """The numba step (:func:`dgraph.algorithms.cdlp.cpu.cdlp_step_par`) of ``label`` into ``new``
        (the owned rows); returns how many changed.  ``prev``: the labels before ``label`` (read only to
        skip the rows that count no changed label), None at the first superstep."""
        from . import cpu as cpu_cdlp  # noqa: PLC0415

        if "keys" not in st:  # the threads' scratch and the changed flags, once
            T = _threads(shard)
            size = st["size"]
            cap = 1
            while cap < 2 * size:
                cap *= 2
            # each thread's rows padded apart by 64 elements: threads never write one cache line
            st["scratch"] = np.empty((T, size + 64), dtype=label.dtype)
            st["keys"] = np.empty((T, cap + 64), dtype=np.int64)
            st["counts"] = np.empty((T, cap + 64), dtype=np.int64)
            st["stamps"] = np.zeros((T, cap + 64), dtype=np.int64)
            st["ticks"] = np.zeros(T, dtype=np.int64)
            st["by"] = np.zeros(T, dtype=np.int64)
            st["dirty"] = np.zeros(shard.n, dtype=bool)
        has_dirty = 0  # the first superstep, or most labels changed (a grid's oscillate): no flags
        if prev is not None and int(report.get("changed", shard.n)) * SKIP_BELOW < shard.n:
            if shard.whole:  # every vertex's arcs are here: flag the rows from the changed vertices
                cpu_cdlp.mark_rows(label, prev, shard.indptr, shard.indices, st["cindptr"], st["cindices"],
                                   shard.directed, st["dirty"])
                has_dirty = 2
            else:  # flag the changed vertices; a row skips when none it counts is flagged
                cpu_cdlp.mark_changed(label, prev, st["dirty"])
                has_dirty = 1
        return cpu_cdlp.cdlp_step_par(shard.indptr, shard.indices, st["cindptr"], st["cindices"], shard.directed,
                                      not shard.directed, shard.row_base, shard.rows, label, st["dirty"], has_dirty,
                                      st["scratch"], st["keys"], st["counts"], st["stamps"], st["ticks"], new,
                                      st["by"])

    def receive(self, shard, st, contributions, ctx):
        shard.gather_owned(st["label"], contributions, "label")
        return {"changed": int(sum(c.counters["changed"] for c in contributions))}

    def finish(self, shard, st):
        return {"label": st["label"]}


__all__ = ["CDLP", "mode_smallest", "implementation", "IMPLEMENTATIONS", "PAR_MIN_ARCS", "SKIP_BELOW"]
