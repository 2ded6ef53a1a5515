"""The BFS Program: push, pull and direction-optimizing (Beamer), with depth and parent.

Each superstep visits the next level from the frontier (:mod:`.kernels` says what a visit step
takes and returns), top-down or bottom-up as Beamer's rule says.  :func:`implementation` decides,
once a run, which visit steps run (numba, CUDA, or the vectorized reference built from
:mod:`dgraph.ops`) and whether the GPU's whole-graph fast loop (:mod:`.solver`) or bitmap union
(:mod:`.union`) joins in; the Program dispatches on that choice.

Across partitions it is ButterFly BFS: every shard keeps the global depth
array, advances from the frontier vertices it owns, and the shards
all-gather what they discovered (butterfly or all-to-all) as vertex ids or
as a bitmap, whichever is smaller, so every shard ends each superstep with
the same global frontier and can pull from it when the direction switches.
Parents stay where they were found: after the last superstep each shard
sends the parents it found for other shards' vertices (its push levels'; a
pull claims only owned vertices) as pairs along the exchange schedule
(between GPUs over NCCL in fixed-size buffers, as many entries as the push
levels claimed), or, where those would carry more bytes or the shards are not
vertex ranges, the parent arrays are reduced over NCCL (each shard's vertex
range onto it; every shard's whole array where shards are not ranges); the
smallest candidate wins, and each shard's result is its own vertices, which
stay where they are.

The parent of a vertex is its smallest-id neighbor in the previous level,
whichever direction, partition or backend found it, so every run on every
executor returns the same parent array.
"""

from __future__ import annotations

import numpy as np

from ...backend import full, to_backend
from ...backend.primitives import scatter_min
from ...config import config
from ...engine.program import Contribution, Program
from ...errors import ExecutorError, InputError
from ...ops import Frontier
from ..choice import KERNELS, check_kernels
from .kernels import visit

DIRECTIONS = ("auto", "push", "pull")

#: every implementation :func:`implementation` may choose, and what runs in it
IMPLEMENTATIONS = {
    "generic": "the vectorized visit steps of kernels.py (dgraph.ops; numpy or CuPy): the reference",
    "cpu-numba": "the numba visit kernels of cpu.py, a superstep at a time",
    "cpu-numba+levels": "one whole numpy shard, local executor: every level in one numba call (solver.py, "
                        "cpu.run_levels), reported level by level",
    "gpu-fused": "the CUDA visit kernels of gpu.py, a host round trip a level",
    "gpu-fused+levels": "gpu-fused, and push levels run many to a cooperative launch while the frontier "
                        "is small (solver.py)",
    "gpu-fused+union": "gpu-fused on each shard, the shards' frontiers united by bitmap kernels (union.py)",
}


def implementation(backend, num_parts, kernels="fused", direction="auto", levels=None, whole=True):
    """Which BFS implementation a run takes: one of :data:`IMPLEMENTATIONS`.

    The one place that decides; called once a run (by :func:`dgraph.bfs`, or by :meth:`BFS.init`
    for a Program made without one) and recorded in ``Result.params["implementation"]``.

    Parameters
    ----------
    backend : {'numpy', 'cupy'}
        Where the shards' arrays live.
    num_parts : int
        Partitions of the graph (1: one whole-graph shard).
    kernels : {'fused', 'generic'}
        The user's choice: compiled kernels, or the vectorized reference.
    direction : {'auto', 'push', 'pull'}
        The user's direction: the multi-level launch only pushes.
    levels : bool, optional
        Whether the whole-graph level loops may run (CPU: the whole traversal in one numba call;
        GPU: push levels in one cooperative launch); None reads ``dgraph.config.bfs_levels``.
    whole : bool
        With ``num_parts == 1``: the one shard holds every vertex in order and the local executor
        runs it (:func:`dgraph.algorithms.choice.run_shape`), where it calls ``run_steps``.  The
        CPU's level loop needs it; a Dask executor runs a superstep at a time.

    Returns
    -------
    str
        'generic', 'cpu-numba', 'cpu-numba+levels', 'gpu-fused', 'gpu-fused+levels' or
        'gpu-fused+union'.

    Notes
    -----
    Within ``gpu-fused+levels`` each superstep still goes to the level-by-level kernels when its
    frontier is too big for one launch, holds a hub, or Beamer's rule pulls
    (:func:`~dgraph.algorithms.bfs.solver.run_levels`): that follows the frontier, level by level.

    Examples
    --------
    >>> from dgraph.algorithms.bfs import implementation
    >>> implementation("numpy", 1), implementation("numpy", 1, whole=False), implementation("numpy", 4)
    ('cpu-numba+levels', 'cpu-numba', 'cpu-numba')
    >>> implementation("numpy", 4, kernels="generic")
    'generic'
    >>> implementation("cupy", 1), implementation("cupy", 1, direction="pull"), implementation("cupy", 2)
    ('gpu-fused+levels', 'gpu-fused', 'gpu-fused+union')
    """
    check_kernels(kernels)
    if backend not in ("numpy", "cupy"):
        raise InputError(f"backend={backend!r}: expected 'numpy' or 'cupy'")
    if kernels == "generic":
        return "generic"
    levels = config.bfs_levels if levels is None else levels
    if backend == "numpy":
        return "cpu-numba+levels" if (num_parts == 1 and whole and levels) else "cpu-numba"
    if num_parts > 1:
        return "gpu-fused+union"
    if direction != "pull" and levels:
        return "gpu-fused+levels"
    return "gpu-fused"


class BFSState:
    """One shard's BFS: depth labels and parents (global ids), the frontier, Beamer's running counts
    (``m_u``: unvisited edges, ``prev_nf``), and the implementation's buffers."""

    __slots__ = ("labels", "parents", "frontier", "direction", "level", "m_u", "prev_nf", "out", "counters",
                 "unset", "levels", "union", "next_rows", "implementation", "word", "peers", "source_degree",
                 "pushed", "fixed", "peer_stop", "pairs_over")


class BFS(Program):
    """The BFS Program (see :mod:`dgraph.engine.program`).

    ``implementation``: one of :data:`IMPLEMENTATIONS`, as :func:`implementation` chose it for the
    run (:func:`dgraph.bfs` passes it); None lets :meth:`init` choose from the shard.
    """

    name = "bfs"
    replicated_result = False  # each shard's result is its own vertices (see final_contribution)
    partitioned_steps = True  # gpu-fused+union over NCCL: push levels on every GPU at once (peers.py)

    def __init__(self, source, direction="auto", alpha=15.0, beta=18.0, kernels="fused", implementation=None):
        if implementation is not None and implementation not in IMPLEMENTATIONS:
            raise InputError(f"implementation={implementation!r}: expected one of {', '.join(IMPLEMENTATIONS)}")
        self.source = int(source)
        self.direction = direction
        self.alpha, self.beta = alpha, beta
        self.kernels = kernels
        self.implementation = implementation

    # -- setup -------------------------------------------------------------------
    def init(self, shard):
        xp = shard.xp
        n = shard.n
        st = BFSState()
        st.implementation = self._implementation(shard)
        vdt = shard.indices.dtype
        # the fused GPU kernels keep the smallest parent by atomicMin: unvisited holds the dtype's maximum
        st.unset = np.iinfo(vdt).max if st.implementation.startswith("gpu") else -1
        st.word = None
        # the host's reads and copies first: a read queued after the fills would wait for them
        st.source_degree = shard.out_degree_of(self.source)  # read once (on CuPy a device read)
        st.frontier = Frontier(n, ids=xp.asarray([self.source], dtype=vdt))
        # (owned local rows, their degree sum) of the frontier, when known without a pass: from the
        # union, and for the source from the host (no array calls to find whether this shard owns it)
        st.next_rows = None
        if st.implementation == "gpu-fused+union":
            st.next_rows = _source_rows(shard, self.source, st.source_degree)
        if st.implementation == "cpu-numba+levels" and _packs(n):
            # the level loop's packed (depth, parent) words; the two arrays are made from them at the end
            # (or by the first superstep that runs without the loop): one pass, not a fill and a pass
            from .cpu import packed  # noqa: PLC0415

            st.labels = st.parents = None
            st.word = np.zeros(n, dtype=np.int64)  # 0: unvisited (cpu.pack), so no fill pass
            st.word[self.source] = packed(0, self.source)
        else:  # each array with its source entry in one fill (on CuPy a launch each)
            st.labels = full(xp, n, -1, np.int32, at=self.source, at_value=0)
            st.parents = full(xp, n, st.unset, vdt, at=self.source, at_value=self.source)
        st.level = 0
        # the unvisited edges: on a whole shard the sum of the out-degrees is its arc count (no pass)
        arcs = shard.num_arcs if shard.whole else shard.degree_sum()
        st.m_u = arcs - st.source_degree
        st.prev_nf = 0
        st.direction = "pull" if self.direction == "pull" else "push"
        st.out = None
        st.counters = None
        st.levels = None
        st.union = None      # the bitmap union buffers of gpu-fused+union (union.py)
        st.peers = None      # peer levels (peers.py): None until the run's first batch, then whether they run
        # what bounds the parents found for other shards' vertices (the source, then every push level's
        # frontier), and whether the exchange moves fixed contributions (NCCL): final_contribution
        st.pushed = 1
        st.fixed = False
        st.peer_stop = None  # why the last batch of peer levels ended (peers.usable)
        st.pairs_over = None  # final_receive's check of the pairs' bound, read in finish
        return st

    def _implementation(self, shard):
        """The run's implementation: the one given, checked against the shard, or chosen."""
        backend = "numpy" if shard.xp is np else "cupy"
        impl, parts = self.implementation, shard.num_parts
        if impl is None:
            return implementation(backend, parts, self.kernels, self.direction, whole=shard.whole)
        runs = impl == "generic" or (impl.startswith("cpu") == (backend == "numpy") and
                                     not (impl == "cpu-numba+levels" and not shard.whole) and
                                     not (impl == "gpu-fused+levels" and parts > 1) and
                                     not (impl == "gpu-fused+union" and parts == 1))
        if not runs:
            raise InputError(f"implementation={impl!r} does not run on a {backend} shard of {parts} partition(s)")
        return impl

    def initial_report(self, shard, st):
        return {"frontier": 1, "frontier_edges": st.source_degree}

    def converged(self, report, step):
        return report.get("frontier", 0) == 0

    def choose_direction(self, st, n, nf, m_f):
        """Beamer's switch: pull when the frontier's edges exceed the unvisited edges / alpha
        (and the frontier grows), back to push when it shrinks below n / beta."""
        if self.direction != "auto":
            return self.direction
        if st.direction == "push":
            return "pull" if (m_f > st.m_u / self.alpha and nf > st.prev_nf) else "push"
        return "push" if (nf < n / self.beta and nf < st.prev_nf) else "pull"

    # -- one superstep -------------------------------------------------------------
    def superstep(self, shard, st, ctx):
        _unpacked(shard, st)
        st.fixed = ctx.fixed_exchange
        st.peer_stop = None
        nf, m_f = ctx.report["frontier"], ctx.report["frontier_edges"]
        st.direction = self.choose_direction(st, shard.n, nf, m_f)
        st.level += 1
        step = visit(st.implementation, st.direction)
        whole = shard.num_parts == 1
        if not whole:
            m_f = st.next_rows[1] if st.next_rows is not None else None
        if self._fixed(st, ctx):  # the counts stay on the GPU until the union reads them with its own
            _, touched, _ = step(shard, st, m_f, read=False)
            words, tally = st.union.send_bits(st.out[0], st.counters, touched)
            return Contribution({"bits": words, "tally": tally}, fixed=True)
        claimed, touched, degsum = step(shard, st, m_f)
        return Contribution(_frontier_payload(shard, st, claimed, whole),
                            {"count": len(claimed), "edges": touched, "degsum": degsum, "input_frontier": nf})

    def run_steps(self, shard, st, ctx, limit):
        """The rest of the traversal in numba calls (``cpu-numba+levels``: :func:`.solver.cpu_run_levels`),
        or push levels many to one GPU launch (``gpu-fused+levels``: :func:`.solver.run_levels`);
        None when the implementation has no such loop or the next superstep is not such a level."""
        if st.implementation == "cpu-numba+levels":
            from . import solver  # noqa: PLC0415

            return solver.cpu_run_levels(self, shard, st, ctx, limit)
        if st.implementation == "gpu-fused+union":
            from . import peers  # noqa: PLC0415

            st.fixed = ctx.fixed_exchange
            return peers.run_levels(self, shard, st, ctx, limit) if peers.usable(self, shard, st, ctx) else None
        if st.implementation != "gpu-fused+levels":
            return None
        from . import solver  # noqa: PLC0415

        return solver.run_levels(self, shard, st, ctx, limit)

    @staticmethod
    def _fixed(st, ctx):
        """Whether this superstep exchanges fixed-size bitmaps (``gpu-fused+union`` over NCCL, with
        ``dgraph.config.bfs_bitmap_exchange`` on): the visit's counts are never read on their own."""
        return st.implementation == "gpu-fused+union" and ctx.fixed_exchange and config.bfs_bitmap_exchange

    def receive(self, shard, st, contributions, ctx):
        if contributions[0].fixed:
            return self._receive_fixed(shard, st, contributions, ctx)
        if len(contributions) == 1:
            c = contributions[0]
            new, count, degsum = c.arrays["v"], c.counters["count"], c.counters["degsum"]
            st.frontier = Frontier(shard.n, ids=new)
        elif st.implementation == "gpu-fused+union":  # one fused kernel (union.py)
            xp = shard.xp
            parts = [(to_backend(c.arrays["ids"], xp), to_backend(c.arrays["bits"], xp)) for c in contributions]
            new, degsum, rows, owned_deg = st.union.union(parts, st.labels, st.level, shard.degree)
            count = len(new)
            _united(shard, st, new, rows, owned_deg)
        else:
            new = _union(shard, contributions)
            fresh = new[st.labels[new] < 0]
            st.labels[fresh] = st.level
            count = len(new)
            degsum = int(shard.degree[new].sum())
            st.frontier = Frontier(shard.n, ids=new)
        st.prev_nf = contributions[0].counters["input_frontier"]
        st.m_u -= degsum
        return level_report(st, count, sum(c.counters["edges"] for c in contributions), degsum)

    def _receive_fixed(self, shard, st, contributions, ctx):
        """:meth:`receive` of the fixed-size bitmaps (``gpu-fused+union`` over NCCL): one read a
        superstep, two when Beamer's rule pushes after a push.  After a pull the tallies alone give
        the frontier's size and degree sum (a pull claims only owned vertices), so they are read
        first, and the union only writes the byte mask
        and the others' levels (:meth:`FrontierUnion.mark`): when Beamer's rule pulls again that is
        all the pull reads, and when it pushes, the rows this shard pushes from are the ones it just
        claimed.  After a push the union marks and counts in one launch, and emits the frontier's ids
        and owned rows only when Beamer's rule pushes again (at once, one read, when the user's
        direction is 'push')."""
        bits = [c.arrays["bits"] for c in contributions]
        tallies = [c.arrays["tally"] for c in contributions]
        st.prev_nf = ctx.report["frontier"]  # what the fixed contributions do not carry
        if st.direction == "pull":
            table = st.union.totals(tallies)
            count, degsum, edges = (int(x) for x in table.sum(axis=0)[:3])
            st.m_u -= degsum
            report = level_report(st, count, edges, degsum)
            if count == 0:  # converged: nothing was claimed, nothing to label
                st.next_rows = None
                return report
            pulls = self.choose_direction(st, shard.n, count, degsum) == "pull"  # what the next superstep sees
            if (pulls or shard.contiguous) and st.union.marks(st.labels):
                mask = st.union.mark(bits, st.labels, st.level).view(shard.xp.bool_)
                st.frontier = Frontier.from_mask(mask)
                st.next_rows = None if pulls else _claimed_rows(shard, st, table[shard.part])
                return report
            new, _, rows, owned_deg, _ = st.union.union_fixed(bits, [], st.labels, st.level, shard.degree, dense=True)
            _united(shard, st, new, rows, owned_deg)
            return report
        if self.direction == "push" or not st.union.marks(st.labels):  # push after push: emit at once
            new, degsum, rows, owned_deg, edges = st.union.union_fixed(bits, tallies, st.labels, st.level,
                                                                       shard.degree, dense=False)
            _united(shard, st, new, rows, owned_deg)
            st.m_u -= degsum
            return level_report(st, len(new), edges, degsum)
        # after a push: mark and count first; the frontier's ids and owned rows only for a push after it
        mask, count, degsum, edges = st.union.mark_counted(bits, tallies, st.labels, st.level, shard.degree)
        st.m_u -= degsum
        report = level_report(st, count, edges, degsum)
        if count and self.choose_direction(st, shard.n, count, degsum) == "push":
            new, _, rows, owned_deg, _ = st.union.union_fixed(None, [], st.labels, st.level, shard.degree, dense=False)
            _united(shard, st, new, rows, owned_deg)
        else:  # the next superstep pulls, or there is none
            st.frontier = Frontier.from_mask(mask.view(shard.xp.bool_))
            st.next_rows = None
        return report

    def final_contribution(self, shard, st):
        """The parents this shard found for the other shards' vertices, as (vertex, parent) pairs
        for their owners to reconcile by minimum.  Only push levels find them (a pull claims owned
        vertices alone), so they are few: the dense parent arrays never travel.  Between GPUs over
        NCCL they travel in fixed-size buffers, as many entries as the push levels claimed (the same
        bound on every shard), with their count on the device: no host wait."""
        if shard.num_parts == 1:
            return None
        cap = _fixed_pairs(shard, st)
        if cap is not None:
            v, u, count = st.union.found_elsewhere_fixed(st.parents, st.unset, cap)
            return Contribution({"v": v, "u": u, "count": count}, fixed=True)
        if st.union is not None and shard.contiguous:  # one kernel (union.py)
            v, u = st.union.found_elsewhere(st.parents, st.unset)
        else:
            found = st.parents != st.unset
            found[shard.part_vertices(shard.part)] = False
            v = shard.xp.flatnonzero(found).astype(st.parents.dtype, copy=False)
            u = st.parents[v]
        return Contribution({"v": v, "u": u}, {})

    def final_ready(self, shard, st, contribution):
        """After a superstep that claimed nothing the pairs of :meth:`final_contribution` would be
        final if the search ended there (parents are found only with claims), and at the superstep
        after which it ends every shard claimed nothing."""
        return not contribution.fixed and shard.num_parts > 1 and contribution.counters.get("count", 1) == 0

    def final_min(self, shard, st):
        """The parents as one array to reduce by minimum, for a transport that reduces on the GPUs
        (NCCL: each shard's own range onto it, or every shard's whole array where the shards are not
        ranges; no host wait, where the pairs would cost two): unvisited
        entries hold the dtype's maximum on the fused GPU path, so the minimum is the smallest
        candidate.  None where they hold -1 (numpy, generic kernels), and where the fixed-size pairs of
        :meth:`final_contribution` carry fewer bytes."""
        big = np.iinfo(st.parents.dtype).max
        usable = shard.num_parts > 1 and st.unset == big and _fixed_pairs(shard, st) is None
        return st.parents if usable else None

    def final_receive(self, shard, st, contributions):
        xp = shard.xp
        others = [c for i, c in enumerate(contributions) if i != shard.part]
        if not others:
            return
        if others[0].fixed:  # found_elsewhere_fixed's buffers, their counts still on the device
            st.pairs_over = xp.zeros(1, dtype=np.uint64)
            for c in others:
                st.union.min_pairs(st.parents, c.arrays["v"], c.arrays["u"], c.arrays["count"], st.pairs_over)
            return
        v = xp.concatenate([to_backend(c.arrays["v"], xp) for c in others])
        u = xp.concatenate([to_backend(c.arrays["u"], xp) for c in others]).astype(st.parents.dtype)
        big = np.iinfo(st.parents.dtype).max
        if st.unset != big:
            st.parents[v[st.parents[v] == st.unset]] = big
        scatter_min(st.parents, v, u)

    def finish(self, shard, st):
        """Every vertex's depth and parent on one whole shard; a partition's own vertices otherwise
        (every shard holds every depth, but its own vertices' parents alone are reconciled)."""
        _unpacked(shard, st)
        depth, parents = st.labels, st.parents
        if not shard.whole:  # a vertex range is a slice (views: no copy), else an index (a gather)
            own = shard.part_vertices(shard.part)
            depth, parents = depth[own], parents[own]
        if st.unset != -1:  # the GPU kernels' unset, made -1 in place: the state ends here (a rerun: no-op)
            from ...backend.gpu_fill import replace  # noqa: PLC0415

            replace(parents, st.unset, -1)
        if st.pairs_over is not None:  # read after the last launch: the one wait, for every kernel of the run
            over = int(st.pairs_over.get()[0])
            if over:
                raise ExecutorError(f"BFS partition {shard.part}: a shard found {over} parents for other shards' "
                                    f"vertices, more than the {st.pushed} its push levels claimed; parents were "
                                    f"lost (a dgraph bug: please report it; dgraph.config.bfs_peer_levels=False "
                                    f"takes another path)")
        return {"depth": depth, "parent": parents}


def level_report(st, count, edges, degsum):
    """A superstep's report (the same on every shard): its direction, the new frontier's size and
    degree sum, and the edges the shards scanned.  A push's frontier counts toward ``st.pushed``."""
    if st.direction == "push":
        st.pushed += count
    return {"direction": st.direction, "frontier": count, "edges": edges, "frontier_edges": degsum}


def _fixed_pairs(shard, st):
    """The entries of :meth:`BFS.final_contribution`'s fixed-size pairs, or None where they do not
    apply: the fused GPU union on vertex-range shards over NCCL, and pairs (two ids an entry) fewer
    bytes than the reduction of the other shards' ranges would move.  Every shard decides alike: the
    bound, ``st.pushed``, comes from the reports."""
    fits = st.fixed and st.union is not None and shard.contiguous and shard.num_parts > 1
    return st.pushed if (fits and st.unset == np.iinfo(st.parents.dtype).max and 4 * st.pushed < shard.n) else None


def _source_rows(shard, source, degree):
    """The frontier {source} as :func:`_united` leaves a frontier: (this shard's local rows of it,
    their degree sum), the row found on the host where the shard's rows are a vertex range."""
    if shard.contiguous:
        local = source - shard.row_base if shard.row_base <= source < shard.row_base + shard.num_rows else -1
    else:
        local = int(shard.local_of()[source])
    rows = shard.xp.asarray([local] if local >= 0 else [], dtype=shard.indices.dtype)
    return rows, (degree if local >= 0 else 0)


def _claimed_rows(shard, st, tally):
    """(local rows, degree sum) of the vertices this shard's pull just claimed (the start of the
    visit's queue; ``tally``: its row of :meth:`FrontierUnion.totals`): the part of the next
    frontier this shard owns, in the order they were claimed."""
    count, degsum = int(tally[0]), int(tally[1])
    vdt = shard.indices.dtype
    rows = shard.xp.subtract(st.out[0][:count], vdt.type(shard.row_base), dtype=vdt)
    return rows, degsum


def _united(shard, st, new, rows, owned_deg):
    """The frontier as a bitmap union left it (``gpu-fused+union``): sorted ids with the byte mask,
    and the owned rows with their degree sum for the next push (None where rows are not a range)."""
    st.next_rows = None if rows is None else (rows, owned_deg)
    st.frontier = Frontier.with_mask(shard.n, new, st.union.fmask.view(shard.xp.bool_))


def _packs(n):
    """Whether the CPU level loop keeps a graph of ``n`` vertices as packed words (:func:`.cpu.pack`)."""
    from .cpu import PACKED_MAX_N  # noqa: PLC0415

    return n < PACKED_MAX_N


def _unpacked(shard, st):
    """The depth and parent arrays from the level loop's packed words, once (``cpu-numba+levels``)."""
    if st.word is None:
        return
    from . import cpu  # noqa: PLC0415

    st.labels = np.empty(shard.n, dtype=np.int32)
    st.parents = np.empty(shard.n, dtype=shard.indices.dtype)
    cpu.unpack(st.word, st.labels, st.parents)
    st.word = None


# -- what travels between shards --------------------------------------------------------

def _frontier_payload(shard, st, claimed, whole):
    """The vertices a shard claimed: as ids, or as a packed bitmap when that is smaller."""
    if whole:
        return {"v": claimed}
    xp = shard.xp
    if claimed.itemsize * len(claimed) <= shard.n // 8:
        return {"ids": claimed, "bits": xp.empty(0, dtype=np.uint8)}
    if st.implementation == "gpu-fused+union":
        return {"ids": xp.empty(0, dtype=claimed.dtype), "bits": st.union.bits(claimed)}
    mask = xp.zeros(shard.n, dtype=bool)
    mask[claimed] = True
    return {"ids": xp.empty(0, dtype=claimed.dtype), "bits": xp.packbits(mask)}


def _union(shard, contributions):
    """The sorted union of every shard's claimed vertices."""
    xp = shard.xp
    if all(len(c.arrays["bits"]) == 0 for c in contributions):
        return xp.unique(xp.concatenate([to_backend(c.arrays["ids"], xp) for c in contributions]))
    mask = xp.zeros(shard.n, dtype=bool)
    for c in contributions:
        bits = to_backend(c.arrays["bits"], xp)
        if len(bits):
            mask |= xp.unpackbits(bits)[: shard.n].astype(bool)
        ids = to_backend(c.arrays["ids"], xp)
        if len(ids):
            mask[ids] = True
    return xp.flatnonzero(mask).astype(shard.indices.dtype)


__all__ = ["BFS", "BFSState", "DIRECTIONS", "IMPLEMENTATIONS", "KERNELS", "implementation"]
