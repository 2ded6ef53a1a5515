"""Build one shard on its worker from edge sources, in bounded memory, beside the other workers.

Every worker (rank ``q`` of ``p``) runs :func:`build_rank` at the same time,
each over its own sources (its slice of a generator, its files, its dataframe
partitions), and the ranks talk only through a
:class:`~dgraph.exchange.collective.Collective` (NCCL between GPUs, Dask's
worker comm otherwise).  Nothing passes through the client, and on GPUs the
edges never leave the devices.  Two passes over the sources:

1. **count**: each rank adds up the degree of every vertex over its batches;
   one all-reduce gives every rank the same degrees, hence the same plan
   (range cuts with equal edge counts, or the hash owners) and the exact
   number of arcs it will receive for each of its rows (before duplicates
   are collapsed): its shard's buffer is allocated once, at its final size.
2. **fill**: each batch is made again (a generator's edge ``e`` depends only
   on ``(seed, e)``; files are read again), cut by owner and sent with one
   all-to-all; what a rank receives goes straight into its rows' slots.

Then each rank sorts its rows a bounded block of arcs at a time, collapses
duplicate edges (keeping the minimum weight), and the owned degrees are
all-reduced into the replicated degree array that traversals read.  A rank
holds its shard, the O(n) degree arrays, and one batch: what the build may
need on a GPU is checked before it is allocated
(:class:`~dgraph.errors.GraphTooLargeError`).

The cleaning rules are those of :func:`dgraph.from_edges`: both directions of
an undirected edge, self loops kept unless ``self_loops=False``, duplicates
collapsed to the minimum weight, rows sorted by target.
"""

from __future__ import annotations

import time

import numpy as np

from ..backend import to_numpy, vertex_dtype
from ..backend.primitives import group_starts
from ..errors import InputError
from ..exchange.collective import PeerFailed
from .plan import PartitionPlan
from .shard import Shard, plan_layout

#: edges per batch: what one rank makes, cuts and sends at a time
BATCH = {"numpy": 1 << 20, "cupy": 1 << 25}
#: arcs sorted at once when a rank orders and deduplicates its rows
SORT_BLOCK = {"numpy": 1 << 22, "cupy": 1 << 27}
#: weight kinds, in the order the ranks agree on them (the widest any rank saw)
_NO_WEIGHTS, _INT_WEIGHTS, _FLOAT_WEIGHTS = 0, 1, 2


class BuildSpec:
    """What every rank must agree on: sizes, cleaning rules, plan method."""

    def __init__(self, *, num_parts, directed, method="range", seed=0, self_loops=True, num_vertices=None,
                 weighted=False, batch=None, plan=None):
        self.num_parts = int(num_parts)
        self.directed = bool(directed)
        self.method = method
        self.seed = int(seed)
        self.self_loops = bool(self_loops)
        self.num_vertices = None if num_vertices is None else int(num_vertices)
        self.weighted = bool(weighted)
        self.batch = batch
        self.plan = plan  # a PartitionPlan fixed in advance (a rebuild), else made from the counts


def build_rank(coll, sources, spec, xp, cache=None, degree=None):
    """Rank ``coll.rank``'s Shard from its ``sources``; -> ``(shard, summary dict)``.

    ``degree``: the replicated degree array when it is known already (a shard rebuilt alone takes it
    from a surviving one: alone, it sees the duplicates of its own rows only)."""
    cache = {} if cache is None else cache
    backend = "cupy" if xp is not np else "numpy"
    batch = int(spec.batch or BATCH[backend])
    times = {}
    t0 = time.perf_counter()
    counts = _count(coll, sources, spec, xp, batch, cache)
    n = counts["n"]
    plan = spec.plan or _plan(xp, counts["out"], spec, n)
    if plan.num_parts != coll.size:
        raise InputError(f"the plan has {plan.num_parts} partitions, the build {coll.size} ranks")
    rows = _Rows(xp, plan, coll.rank)
    wdtype = {_NO_WEIGHTS: None, _INT_WEIGHTS: np.int64, _FLOAT_WEIGHTS: np.float64}[counts["weights"]]
    vdt = vertex_dtype(n)
    out = _Slots(xp, rows.select(counts["out"]), vdt, wdtype)
    ins = _Slots(xp, rows.select(counts["in"]), vdt, None) if spec.directed else None
    counts["out"] = counts["in"] = None
    _check_room(xp, [out, ins], batch, coll.rank, coll.size)
    for slots in (out, ins):
        if slots is not None:
            slots.allocate()
    times["count_s"] = time.perf_counter() - t0

    t1 = time.perf_counter()
    sent = _fill(coll, sources, spec, xp, batch, cache, plan, rows, out, ins, counts["rounds"], vdt, wdtype)
    times["fill_s"] = time.perf_counter() - t1

    t2 = time.perf_counter()
    block = SORT_BLOCK[backend]
    indptr, indices, weights = out.finish(n, block)
    csc = None
    if ins is not None:
        cindptr, cindices, _ = ins.finish(n, block)
        csc = (cindptr, cindices, None)
    if degree is None:
        degree = xp.zeros(n, dtype=np.int64)
        rows.scatter(degree, indptr[1:] - indptr[:-1])
        degree = coll.allreduce(degree, "sum")
    else:
        degree = xp.asarray(degree)
    times["finish_s"] = time.perf_counter() - t2
    shard = Shard(part=coll.rank, num_parts=coll.size, num_vertices=n, directed=spec.directed, indptr=indptr,
                  indices=indices, weights=weights, row_base=rows.lo, rows=rows.explicit, csc=csc, degree=degree,
                  layout=plan_layout(plan, xp))
    summary = {"part": coll.rank, "num_vertices": n, "arcs": shard.num_arcs, "slots": out.capacity,
               "bytes": shard.nbytes(), "sent_bytes": sent, "weights": counts["weights"],
               "bounds": None if not plan.contiguous else [int(b) for b in plan.bounds], **times}
    if xp is not np:
        summary["device_pool_bytes"] = int(xp.get_default_memory_pool().total_bytes())
    return shard, summary


# -- pass 1: degrees ------------------------------------------------------------------------------

def _count(coll, sources, spec, xp, batch, cache):
    n = spec.num_vertices
    out = xp.zeros(n or 0, dtype=np.int64)
    into = xp.zeros(n or 0, dtype=np.int64) if spec.directed else None
    weights = _NO_WEIGHTS
    rounds = 0
    error = None
    try:
        for source in sources:
            for s, d, w in source.batches(xp, batch, cache):
                rounds += 1
                s, d = _ids(xp, s, source, "source", n), _ids(xp, d, source, "target", n)
                if w is not None:
                    weights = max(weights, _weight_kind(xp, w, source))
                if not spec.self_loops:
                    keep = s != d
                    s, d = s[keep], d[keep]
                if not len(s):
                    continue
                top = max(int(s.max()), int(d.max())) + 1
                if top > len(out):
                    out = _grow(xp, out, top, source)
                    into = None if into is None else _grow(xp, into, top, source)
                if spec.directed:
                    out += xp.bincount(s, minlength=len(out))
                    into += xp.bincount(d, minlength=len(into))
                else:
                    out += xp.bincount(s, minlength=len(out))
                    out += xp.bincount(d[s != d], minlength=len(out))
    except Exception as exc:  # noqa: BLE001 - told to the peers first, then raised here
        error = exc
    try:
        size, weights, rounds = coll.scalars([len(out), weights, rounds], "max", failed=error is not None)
    except PeerFailed:
        if error is not None:
            raise error from None
        raise
    n = spec.num_vertices if spec.num_vertices is not None else size
    if spec.weighted and weights == _NO_WEIGHTS:
        weights = _FLOAT_WEIGHTS  # weighted, but no edge anywhere: float64 like an empty weighted graph
    if not spec.weighted:
        weights = _NO_WEIGHTS
    if coll.size > max(n, 1):
        raise InputError(f"the graph has {n} vertices, it cannot be split into {coll.size} partitions; "
                         f"use at most {max(n, 1)}")
    out = coll.allreduce(_pad(xp, out, n), "sum")
    into = coll.allreduce(_pad(xp, into, n), "sum") if spec.directed else None
    return {"n": n, "out": out, "in": into, "weights": weights, "rounds": rounds}


def _ids(xp, a, source, what, n):
    if a.dtype.kind not in "iu":
        raise InputError(f"{source}: {what} ids have dtype {a.dtype}; a parallel build needs integer ids 0..n-1")
    if len(a) == 0:
        return a
    lo, hi = int(a.min()), int(a.max())
    if lo < 0:
        raise InputError(f"{source}: {what} id {lo} < 0; a parallel build needs ids 0..n-1 (read such graphs "
                         f"with dgraph.read or dgraph.from_edges, then G.partition)")
    if n is not None and hi >= n:
        raise InputError(f"{source}: {what} id {hi} >= num_vertices={n}")
    if a.dtype.kind == "u" or a.dtype.itemsize > 8:
        a = a.astype(np.int64)
    return a


def _weight_kind(xp, w, source):
    if w.dtype.kind == "f":
        if len(w) and not bool(xp.isfinite(w).all()):
            raise InputError(f"{source}: a weight is not a finite number (NaN or inf)")
        return _FLOAT_WEIGHTS
    if w.dtype.kind in "iub":
        if w.dtype.kind == "u" and len(w) and int(w.max()) > np.iinfo(np.int64).max:
            raise InputError(f"{source}: weight {int(w.max())} is past the int64 range")
        return _INT_WEIGHTS
    raise InputError(f"{source}: weights have dtype {w.dtype}; expected numbers")


def _grow(xp, a, size, source):
    """``a`` zero-padded to at least ``size`` (doubling, so growth costs O(final size))."""
    new = max(size, 2 * len(a))
    _require(xp, new * 8 * 4, f"{source}: vertex ids up to {size - 1} (degree arrays of {size:,} vertices)")
    out = xp.zeros(new, dtype=a.dtype)
    out[:len(a)] = a
    return out


def _pad(xp, a, n):
    if len(a) == n:
        return a
    out = xp.zeros(n, dtype=a.dtype)
    out[:min(n, len(a))] = a[:n]
    return out


def _plan(xp, degree, spec, n):
    p = spec.num_parts
    if spec.method == "range":
        from .methods import range_bounds  # noqa: PLC0415

        indptr = xp.zeros(n + 1, dtype=np.int64)
        xp.cumsum(degree, out=indptr[1:])
        return PartitionPlan.from_bounds(range_bounds(indptr, p), method="range")
    if spec.method == "hash":
        return hash_plan(n, p, spec.seed)
    raise InputError(f"method={spec.method!r}: a parallel build supports 'range' and 'hash' (metis needs the "
                     f"whole graph: read it, then G.partition(p, method='metis'))")


def hash_plan(n, p, seed):
    """The hash plan every rank (and the client) makes alike."""
    from .methods import fill_empty_parts, hash_owner  # noqa: PLC0415

    return PartitionPlan.from_owner(fill_empty_parts(hash_owner(n, p, seed), p), p, method="hash", seed=seed)


# -- which rows this rank owns -----------------------------------------------------------------------

class _Rows:
    """This rank's rows: a range ``[lo, hi)`` or an explicit sorted id list; owner lookups for everyone."""

    def __init__(self, xp, plan, q):
        self.xp = xp
        self.plan = plan
        if plan.contiguous:
            self.lo, self.hi = int(plan.bounds[q]), int(plan.bounds[q + 1])
            self.explicit = None
            self.count = self.hi - self.lo
            self._cuts = xp.asarray(np.asarray(plan.bounds[1:-1]).astype(vertex_dtype(plan.num_vertices)))
            self._owner = None
        else:
            self.lo = 0
            self.explicit = xp.asarray(plan.vertices_of(q)).astype(vertex_dtype(plan.num_vertices))
            self.count = len(self.explicit)
            self._owner = xp.asarray(plan.owner.astype(np.int32))

    def select(self, per_vertex):
        """``per_vertex`` restricted to the owned rows, in local row order."""
        if self.explicit is None:
            return per_vertex[self.lo:self.hi]
        return per_vertex[self.explicit]

    def scatter(self, per_vertex, local_values):
        if self.explicit is None:
            per_vertex[self.lo:self.hi] = local_values
        else:
            per_vertex[self.explicit] = local_values

    def owner(self, v):
        if self._owner is None:
            return self.xp.searchsorted(self._cuts, v, side="right").astype(np.int32)
        return self._owner[v]

    def local(self, v):
        if self.explicit is None:
            return (v - self.lo).astype(np.int64)
        return self.xp.searchsorted(self.explicit, v).astype(np.int64)


# -- pass 2: every arc to its slot ------------------------------------------------------------------

class _Slots:
    """A CSR buffer sized by the counted degrees: rows get their arcs in any order, then ``finish``
    sorts each row and collapses duplicates in place."""

    def __init__(self, xp, counts, vdt, wdtype):
        self.xp = xp
        self.rows = len(counts)
        self.start = xp.zeros(self.rows + 1, dtype=np.int64)
        xp.cumsum(counts, out=self.start[1:])
        self.capacity = int(self.start[-1])
        self.vdt, self.wdtype = np.dtype(vdt), None if wdtype is None else np.dtype(wdtype)
        self.filled = self.cols = self.weights = None

    def nbytes(self):
        """What :meth:`allocate` takes."""
        per_slot = self.vdt.itemsize + (0 if self.wdtype is None else self.wdtype.itemsize)
        return self.capacity * per_slot + 8 * self.rows

    def allocate(self):
        xp = self.xp
        self.filled = xp.zeros(self.rows, dtype=np.int64)
        self.cols = xp.empty(self.capacity, dtype=self.vdt)
        self.weights = None if self.wdtype is None else xp.empty(self.capacity, dtype=self.wdtype)

    def place(self, local_rows, cols, weights):
        """Put arcs ``(local row, col[, weight])`` into their rows' next free slots."""
        xp = self.xp
        if not len(local_rows):
            return
        order = _argsort_stable(xp, local_rows)
        r = local_rows[order]
        first = group_starts(r)
        group = xp.cumsum(first) - 1
        group_first = xp.flatnonzero(first)
        rank = xp.arange(len(r), dtype=np.int64) - group_first[group]
        pos = self.start[r] + self.filled[r] + rank
        self.cols[pos] = cols[order]
        if self.weights is not None:
            self.weights[pos] = weights[order]
        self.filled += xp.bincount(r, minlength=self.rows)

    def finish(self, n, block):
        """``(indptr, indices, weights)``: rows sorted, duplicates collapsed (minimum weight)."""
        xp = self.xp
        if not bool((self.filled == self.start[1:] - self.start[:-1]).all()):
            raise InputError("the edge sources gave different edges when read a second time (a file changed "
                             "during the build?); build again")
        counts = xp.zeros(self.rows, dtype=np.int64)
        write = 0
        starts = to_numpy(self.start)
        r0 = 0
        while r0 < self.rows:
            # the rows [r0, r1) whose arcs fit in one block (at least one row)
            r1 = int(np.searchsorted(starts, starts[r0] + block, side="right")) - 1
            r1 = min(max(r1, r0 + 1), self.rows)
            a, b = int(starts[r0]), int(starts[r1])
            if b > a:
                row_of = xp.searchsorted(self.start[r0:r1 + 1] - a, xp.arange(b - a, dtype=np.int64),
                                         side="right") - 1
                key = row_of * max(n, 1) + self.cols[a:b].astype(np.int64)
                w = None
                if self.weights is None:
                    key = xp.sort(key)
                else:  # two stable sorts: by weight, then by key, so each key's first arc has its minimum weight
                    order = _argsort_stable(xp, self.weights[a:b])
                    order = order[_argsort_stable(xp, key[order])]
                    key, w = key[order], self.weights[a:b][order]
                keep = group_starts(key)
                key = key[keep]
                row = key // max(n, 1)
                k = len(key)
                self.cols[write:write + k] = (key - row * max(n, 1)).astype(self.cols.dtype)
                if w is not None:
                    self.weights[write:write + k] = w[keep]
                counts[r0:r1] = xp.bincount(row, minlength=r1 - r0)
                write += k
            r0 = r1
        indptr = xp.zeros(self.rows + 1, dtype=np.int64)
        xp.cumsum(counts, out=indptr[1:])
        cols, weights = self.cols[:write], None if self.weights is None else self.weights[:write]
        if write < 0.9 * self.capacity:  # many duplicates: give their slots back (a few: keep the view)
            cols = cols.copy()
            weights = None if weights is None else weights.copy()
        self.cols = self.weights = None
        return indptr, cols, weights


def _fill(coll, sources, spec, xp, batch, cache, plan, rows, out, ins, rounds, vdt, wdtype):
    """Every batch cut by owner and sent in one all-to-all (two when directed); -> bytes sent."""
    p, q = coll.size, coll.rank
    batches = (b for source in sources for b in _tagged(source, xp, batch, cache))
    sent = 0
    for _ in range(rounds):
        error = None
        try:
            item = next(batches, None)
            outgoing, incoming = _cut(xp, item, spec, rows, p, vdt, wdtype)
        except Exception as exc:  # noqa: BLE001 - told to the peers first, then raised here
            error = exc
            outgoing, incoming = _empty_pieces(xp, p, vdt, wdtype, spec.directed)
        try:
            got = coll.alltoallv(outgoing, failed=error is not None)
            got_in = coll.alltoallv(incoming) if spec.directed else None
        except PeerFailed:
            if error is not None:
                raise error from None
            raise
        sent += sum(sum(a.nbytes for a in pc) for j, pc in enumerate(outgoing) if j != q)
        out.place(*_joined(xp, got, rows, weighted=wdtype is not None))
        if got_in is not None:
            sent += sum(sum(a.nbytes for a in pc) for j, pc in enumerate(incoming) if j != q)
            ins.place(*_joined(xp, got_in, rows, weighted=False))
    return sent


def _tagged(source, xp, batch, cache):
    for s, d, w in source.batches(xp, batch, cache):
        yield source, s, d, w


def _empty_pieces(xp, p, vdt, wdtype, directed):
    e = xp.empty(0, dtype=vdt)
    one = (e, e) if wdtype is None else (e, e, xp.empty(0, dtype=wdtype))
    return [one] * p, ([(e, e)] * p if directed else None)


def _cut(xp, item, spec, rows, p, vdt, wdtype):
    """A batch's arcs by owner: ``(out pieces by the source's owner, in pieces by the target's owner)``."""
    if item is None:
        return _empty_pieces(xp, p, vdt, wdtype, spec.directed)
    _, s, d, w = item
    s, d = s.astype(vdt, copy=False), d.astype(vdt, copy=False)
    w = None if wdtype is None else w.astype(wdtype, copy=False)
    if not spec.self_loops:
        keep = s != d
        s, d, w = s[keep], d[keep], None if w is None else w[keep]
    if spec.directed:
        return _by_owner(xp, rows.owner(s), p, s, d, w), _by_owner(xp, rows.owner(d), p, d, s)
    off = s != d  # a self loop is its own mirror
    s2, d2 = xp.concatenate([s, d[off]]), xp.concatenate([d, s[off]])
    w2 = None if w is None else xp.concatenate([w, w[off]])
    return _by_owner(xp, rows.owner(s2), p, s2, d2, w2), None


def _by_owner(xp, owner, p, *arrays):
    arrays = [a for a in arrays if a is not None]
    if p == 1:
        return [tuple(arrays)]
    order = _argsort_stable(xp, owner)
    bounds = to_numpy(xp.searchsorted(owner[order], xp.arange(p + 1, dtype=np.int32), side="left"))
    moved = [a[order] for a in arrays]
    return [tuple(a[bounds[j]:bounds[j + 1]] for a in moved) for j in range(p)]


def _joined(xp, got, rows, weighted):
    """Pieces received from every rank -> (local rows, cols, weights or None)."""
    src = xp.concatenate([pc[0] for pc in got])
    dst = xp.concatenate([pc[1] for pc in got])
    w = xp.concatenate([pc[2] for pc in got]) if weighted else None
    return rows.local(src), dst, w


# -- helpers ---------------------------------------------------------------------------------------

def _argsort_stable(xp, a):
    if xp is np:
        return np.argsort(a, kind="stable")
    return xp.argsort(a)  # CuPy sorts by radix sort: stable


def _require(xp, nbytes, what):
    """GraphTooLargeError before an allocation that cannot fit (the GPU's free memory, or the host's)."""
    from ..backend.device_memory import require  # noqa: PLC0415

    require(int(nbytes), what, device="gpu" if xp is not np else "host")


def _check_room(xp, slots, batch, q, p):
    """Room for the shard's slots, one batch in flight and the sort of one block, before any is taken."""
    backend = "cupy" if xp is not np else "numpy"
    per_batch = batch * 2 * 8 * 6          # arcs of a batch (both directions), cut, sent, received, placed
    per_block = SORT_BLOCK[backend] * 8 * 4
    need = sum(s.nbytes() for s in slots if s is not None) + per_batch + per_block
    arcs = sum(s.capacity for s in slots if s is not None)
    _require(xp, need, f"building partition {q} of {p} ({arcs:,} arcs before duplicates are collapsed)")


def build_whole(sources, spec, xp, name=None):
    """The whole graph (one rank, no peers) as a :class:`~dgraph.Graph`: the same arrays as
    :func:`dgraph.from_edges` gives, in about a fifth of its peak memory on a GPU (the slots are
    sized by counted degrees, not made by sorting every arc at once)."""
    from ..exchange.collective import SoloCollective  # noqa: PLC0415
    from ..graph import Graph  # noqa: PLC0415
    from ..graph.ids import VertexIds  # noqa: PLC0415

    shard, _ = build_rank(SoloCollective(0, 1), sources, spec, xp)
    G = Graph(shard.indptr, shard.indices, shard.weights, directed=spec.directed, ids=VertexIds(shard.n), name=name)
    if spec.directed:
        G._csc = shard.csc(edge_ids=False)  # its in-edges, without edge ids (built on demand if asked for)
    return G
