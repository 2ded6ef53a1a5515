"""The triangle-counting Program (per vertex), which LCC shares.

Semantics (NetworkX's ``nx.triangles``): the graph is taken as a simple
undirected graph: a directed graph's arcs lose their direction, self loops
and duplicate edges are ignored.  ``t(v)`` is the number of triangles that
contain ``v``, that is the number of edges among the neighbors of ``v``;
the total number of triangles is ``sum(t) / 3``.

The Program runs three supersteps on any number of shards:

0. *degrees*: every shard builds, locally, the symmetrized, deduplicated,
   self-loop-free adjacency rows of the vertices it owns (out- and, for a
   directed graph, in-edges; one sorted int64 key ``row * n + neighbor``
   per arc, and per arc the number ``m`` of stored arcs between the two
   vertices, 1 or 2, which LCC needs on a directed graph), and all-gathers
   its rows' degrees (O(V) per shard, like the other replicated arrays).
1. *replicate*: every edge is oriented from the endpoint of lower rank to
   the higher, rank = (degree, id), and every shard all-gathers the
   oriented rows ``N+(u)`` of the vertices it owns.  A shard keeps, out of
   everything it receives, only the rows of the vertices adjacent to its own
   (its ghost/replica table, a CSR over global ids).
2. *count*: for every owned ``v``, every neighbor ``u`` of ``v`` and every
   ``w`` in ``N+(u)``, the edge ``{u, w}`` lies among the neighbors of ``v``
   exactly when ``w`` is a neighbor of ``v``: a membership test of the key
   ``row(v) * n + w`` in the sorted keys of the owned rows (``searchsorted``).
   Each edge among ``N(v)`` is found exactly once (from its lower-ranked
   endpoint), so the hits per row are ``t(v)``.  All of it is vectorized:
   the (v, u) pairs are expanded over the ghost rows with the load-balanced
   ``expand`` of the advance operator, in chunks of at most ``CHUNK`` checks;
   no Python loop runs per vertex or edge.  That vectorized count is
   ``kernels="generic"``, run on CuPy and kept as the reference; on the numpy
   backend ``kernels="fused"`` (the default) runs the numba kernel
   :func:`dgraph.algorithms.triangles.cpu.count_rows` instead: per owned ``v``
   it stamps ``N(v)`` into a mark array and tests every ``w`` of every
   ``N+(u)`` against it -- the same checks and the same hits, so the same
   integer counts (the directed-LCC 1-or-2 arc multiplicities included).

On CuPy ``kernels="fused"`` runs the counting superstep in the CUDA kernel
:func:`dgraph.algorithms.triangles.gpu.count_rows` ('gpu-fused'): a warp per
owned row and slice of its neighbours, binary searches of the row for every
``w`` of every ``N+(u)``: the same checks and hits.

One whole undirected shard on numpy (the local executor, one partition)
runs the three supersteps in one call instead (``run_steps``,
:func:`dgraph.algorithms.triangles.cpu.undirected_counts`): the simple rows and
the (degree, id) orientation are built in the CSR's own slots, and each
triangle is found once, from its lowest-ranked corner (stamp ``N+(u)``, walk
``N+(w)`` for every ``w`` in it), over the CPU's threads with a count array
per thread; the per-vertex counts are the same integers and the three
reports the same numbers (``checks`` is computed as ``sum d * d+``).  One
whole CuPy shard, directed or not, does the same in CUDA ('gpu-oriented',
:mod:`dgraph.algorithms.triangles.gpu`): oriented rows, and each triangle
found once, at its middle corner, by hashed look-ups.

Work: ``sum over u of d(u) * d+(u)`` checks over all shards, and the
(degree, id) orientation keeps ``d+(u) <= sqrt(2 E)``, so it is
``O(E^1.5)`` whatever the degree skew (every triangle is enumerated three
times, once per vertex, against once for the classic edge-iterator: the price
of counting per owned vertex with no second exchange).

Memory per shard (E = undirected edges of the simplified graph, V vertices,
A = the symmetric arcs of the shard's own rows, 2 E summed over the shards):

- its own rows, both directions: the sorted keys, the rows and the neighbor
  ids as int64, 24 bytes per arc of A (+ 1 byte of multiplicity on a
  directed LCC), held for the whole run; during counting 16 more bytes per
  arc of A (checks per (v, u) pair and their prefix sum);
- the replicated degree array and the ghost table's row pointers: 8 V bytes
  each;
- the replica table: the oriented rows of every neighbor of an owned vertex,
  as int64 ids (+ int8 multiplicities on a directed LCC): up to ``E`` ids
  (every oriented edge once) when the owned vertices touch everything -- with
  one partition that is exactly the case, and on power-law graphs a shard
  owning a hub is close to it (an RMAT scale-16 graph, 0.9 M edges, hash
  partitioned three ways: each shard keeps about 98 % of the oriented edges);
- *transiently*, during the exchange of superstep 1, the all-gather delivers
  every shard's oriented rows to every shard: E vertex ids (+ E int8
  multiplicities on a directed LCC) + V int64 row lengths on every shard at
  once, and while the table is built the row of each received arc is expanded
  (8 bytes per arc of one partition's contribution at a time) before the rows
  no owned vertex touches are dropped.  So the peak per shard is O(V + E) --
  the undirected graph once, half its symmetric CSR -- not O((V + E) / p):
  this Program scales the counting work out, not the memory;
- the counting chunk: about 7 * 8 * ``CHUNK`` bytes (56 MiB at 2**20 checks);
  the fused kernel needs none of it, only an 8 V byte mark array and the
  owned rows' pointers.

The counts are integers, so every executor, partition count and backend
returns the same numbers exactly.
"""

from __future__ import annotations

import numpy as np

from ...backend import to_backend
from ...backend.primitives import expand, group_starts, row_ids
from ...engine.program import Contribution, Program
from ...errors import GraphTooLargeError

#: at most this many membership checks are expanded at once in the counting superstep
CHUNK = 1 << 20

PHASES = ("degrees", "replicate", "count")


def _bincount(xp, idx, size):
    if len(idx) == 0 or size == 0:
        return xp.zeros(size, dtype=np.int64)
    return xp.bincount(idx, minlength=size).astype(np.int64, copy=False)


def _vertices(shard, q):
    """Global ids (int64) of partition q's owned vertices, in its local row order."""
    xp = shard.xp
    sel = shard.part_vertices(q)
    if isinstance(sel, slice):
        return xp.arange(sel.start, sel.stop, dtype=np.int64)
    return to_backend(sel, xp).astype(np.int64, copy=False)


class TriangleProgram(Program):
    """Per-vertex triangle counts; with ``lcc=True`` the local clustering coefficient (LDBC)."""

    replicated_result = False

    def __init__(self, lcc=False, implementation="generic"):
        self.lcc = bool(lcc)
        #: "gpu-oriented", "gpu-fused", "cpu-numba-oriented", "cpu-numba" or "generic": see
        #: dgraph.algorithms.triangles.implementation
        self.implementation = implementation
        self.name = "lcc" if self.lcc else "triangles"

    # -- superstep 0, local part: the owned rows, symmetrized ------------------------------
    def init(self, shard):
        if self.implementation in ("cpu-numba-oriented", "gpu-oriented") and shard.n > 0:
            return {"fast": True}  # built by run_steps, or by superstep 0 if it is cut short
        return self._build(shard)

    def run_steps(self, shard, st, ctx, limit):
        """All three supersteps at once on one whole shard: on numpy (undirected) the simple rows, the
        (degree, id) orientation and the count in numba kernels over the CPU's threads; on CuPy
        (``"gpu-oriented"``) in the CUDA kernels of :mod:`.gpu`.  The per-vertex counts are the same
        integers and the reports the same numbers as the three supersteps give."""
        import time  # noqa: PLC0415

        if not st.get("fast") or ctx.step != 0 or limit < 3:
            return None
        t0 = time.perf_counter()
        if self.implementation == "gpu-oriented":
            tri, deg, arcs, oriented, checks = self._gpu_counts(shard, st)
            total = int(tri.sum()) // 3
        else:
            from ...jit import num_threads  # noqa: PLC0415
            from . import cpu as cpu_triangles  # noqa: PLC0415

            # with LCC the values too, over the threads (finish's numpy steps, the same bits)
            tri, lcc, arcs, oriented, checks, total = cpu_triangles.undirected_counts(
                shard.indptr, shard.indices, num_threads(), lcc=self.lcc)
            st.clear()
            st.update({"tri": tri, "mult": None})
            if self.lcc:
                st["lcc"] = lcc
        seconds = time.perf_counter() - t0
        return [({"phase": PHASES[0], "edges": arcs // 2}, 0.0),
                ({"phase": PHASES[1], "oriented": oriented}, 0.0),
                ({"phase": PHASES[2], "total": total, "checks": checks, "replica_arcs": oriented}, seconds)]

    def _gpu_counts(self, shard, st):
        """The one-shard CuPy count (:func:`.gpu.counts`) into ``st``; -> (tri, degree, arcs, edges, checks).

        An undirected shard's CSR is already the symmetric rows; a directed one's simple symmetric
        rows (with, for LCC, the 1-or-2 arcs of each pair) are built as superstep 0 builds them."""
        from . import gpu as gpu_triangles  # noqa: PLC0415

        xp = shard.xp
        if shard.directed:
            b = self._build(shard)
            indptr = xp.zeros(shard.n + 1, dtype=np.int64)
            xp.cumsum(b["degree"], out=indptr[1:])
            indices, mult = b["nbr"].astype(shard.indices.dtype), b["mult"]
            del b
        else:
            indptr, indices, mult = shard.indptr, shard.indices, None
        tri, two, deg, arcs, edges, checks = gpu_triangles.counts(indptr, indices, mult)
        st.clear()
        st.update({"tri": tri, "two": two, "degree": deg, "mult": mult})
        return tri, deg, arcs, edges, checks

    def _build(self, shard):
        xp = shard.xp
        n, rows = shard.n, shard.num_rows
        if rows * max(n, 1) >= 2**63:
            raise GraphTooLargeError(f"{rows:,} owned rows x {n:,} vertices overflow the int64 keys of "
                                     f"the triangle count; use more partitions")
        gr = shard.global_rows().astype(np.int64)

        def keys(indptr, nbrs):
            r = row_ids(indptr).astype(np.int64, copy=False)
            x = nbrs.astype(np.int64)
            keep = x != gr[r]                                  # self loops out
            k = r[keep] * n + x[keep]
            if xp is not np:
                return xp.unique(k)                            # duplicates out; sorted
            # numpy >= 2.3 answers np.unique with a hash table: 1.7 s against 0.05 s for a sort on rmat-16
            k.sort()
            return k[group_starts(k)] if len(k) else k

        out = keys(shard.indptr, shard.indices)
        st = {"mult": None}
        if shard.directed:
            cindptr, csources, _ = shard.csc(edge_ids=False)
            both = xp.sort(xp.concatenate([out, keys(cindptr, csources)]))
            first = group_starts(both)
            okeys = both[first]
            if self.lcc:
                # arcs stored between v and x: 1 (one direction) or 2 (both): the length of the run
                starts = xp.flatnonzero(first)
                ends = xp.empty_like(starts)
                ends[:-1] = starts[1:]
                if len(ends):
                    ends[-1] = len(both)
                st["mult"] = (ends - starts).astype(np.int8)
        else:
            okeys = out
        nn = max(n, 1)
        st["keys"] = okeys
        st["row"] = okeys // nn
        st["nbr"] = okeys - st["row"] * nn
        st["degree"] = _bincount(xp, st["row"], rows)
        st["owned"] = gr
        st["tri"] = xp.zeros(rows, dtype=np.int64)
        st["two"] = xp.zeros(rows, dtype=np.int64)   # hits whose opposite edge has arcs both ways
        return st

    def initial_report(self, shard, st):
        return {"phase": "start"}

    def converged(self, report, step):
        return step >= 3

    def superstep(self, shard, st, ctx):
        if st.pop("fast", False):
            st.update(self._build(shard))
        if ctx.step == 0:
            return Contribution({"degree": st["degree"]}, {"arcs": len(st["keys"])})
        if ctx.step == 1:
            return self._oriented_rows(shard, st)
        return self._count(shard, st)

    def receive(self, shard, st, contributions, ctx):
        xp = shard.xp
        if ctx.step == 0:
            st["deg"] = shard.gather_owned(xp.zeros(shard.n, dtype=np.int64), contributions, "degree")
            arcs = sum(int(c.counters["arcs"]) for c in contributions)
            return {"phase": PHASES[0], "edges": arcs // 2}
        if ctx.step == 1:
            self._replica_table(shard, st, contributions)
            return {"phase": PHASES[1], "oriented": sum(int(c.counters["oriented"]) for c in contributions)}
        total = sum(int(c.counters["triangles"]) for c in contributions)
        return {"phase": PHASES[2], "total": total // 3,
                "checks": sum(int(c.counters["checks"]) for c in contributions),
                "replica_arcs": sum(int(c.counters["replica"]) for c in contributions)}

    # -- superstep 1: orient by (degree, id), all-gather, keep the rows of the neighbors ---------
    def _oriented_rows(self, shard, st):
        deg = st["deg"]
        v = st["owned"][st["row"]]
        x = st["nbr"]
        dv, dx = deg[v], deg[x]
        up = (dx > dv) | ((dx == dv) & (x > v))
        arrays = {"count": _bincount(shard.xp, st["row"][up], shard.num_rows),
                  "nbrs": x[up].astype(shard.indices.dtype, copy=False)}
        if st["mult"] is not None:
            arrays["mult"] = st["mult"][up]
        return Contribution(arrays, {"oriented": int(up.sum())})

    def _replica_table(self, shard, st, contributions):
        xp = shard.xp
        n = shard.n
        needed = xp.zeros(n, dtype=bool)
        needed[st["nbr"]] = True
        rows, nbrs, mults = [], [], []
        for q, c in enumerate(contributions):
            count = to_backend(c.arrays["count"], xp).astype(np.int64, copy=False)
            if len(count) == 0:
                continue
            indptr = xp.zeros(len(count) + 1, dtype=np.int64)
            xp.cumsum(count, out=indptr[1:])
            u = _vertices(shard, q)[row_ids(indptr)]
            keep = needed[u]
            rows.append(u[keep])
            nbrs.append(to_backend(c.arrays["nbrs"], xp)[keep].astype(np.int64, copy=False))
            if st["mult"] is not None:
                mults.append(to_backend(c.arrays["mult"], xp)[keep])
        cat = lambda parts, dt: xp.concatenate(parts) if parts else xp.empty(0, dtype=dt)  # noqa: E731
        row = cat(rows, np.int64)
        order = xp.argsort(row)                 # order within a row does not matter (membership tests)
        st["gnbr"] = cat(nbrs, np.int64)[order]
        st["gmult"] = cat(mults, np.int8)[order] if st["mult"] is not None else None
        gindptr = xp.zeros(n + 1, dtype=np.int64)
        xp.cumsum(_bincount(xp, row, n), out=gindptr[1:])
        st["gindptr"] = gindptr
        del st["deg"]

    # -- superstep 2: count the edges among the neighbors of every owned vertex ---------------
    def _count(self, shard, st):
        xp = shard.xp
        n, rows = max(shard.n, 1), shard.num_rows
        keys, prow, pnbr = st["keys"], st["row"], st["nbr"]
        gindptr, gnbr, gmult = st["gindptr"], st["gnbr"], st["gmult"]
        tri, two = st["tri"], st["two"]
        checks = 0
        if self.implementation in ("gpu-fused", "gpu-oriented"):  # the CUDA kernel (CuPy)
            if len(keys) and len(gnbr):
                from . import gpu as gpu_triangles  # noqa: PLC0415

                pindptr = xp.zeros(rows + 1, dtype=np.int64)
                xp.cumsum(st["degree"], out=pindptr[1:])
                checks = int((gindptr[pnbr + 1] - gindptr[pnbr]).sum())
                gpu_triangles.count_rows(pindptr, pnbr, gindptr, gnbr, gmult, tri, two)
        elif self.implementation != "generic":  # the numba kernel (numpy)
            if len(keys) and len(gnbr):
                from . import cpu as cpu_triangles  # noqa: PLC0415

                pindptr = np.zeros(rows + 1, dtype=np.int64)
                np.cumsum(st["degree"], out=pindptr[1:])
                stamp = np.full(n, -1, dtype=np.int64)
                mult = gmult if gmult is not None else np.empty(0, dtype=np.int8)
                checks = int(cpu_triangles.count_rows(pindptr, pnbr, gindptr, gnbr, mult, stamp, tri, two))
        elif len(keys) and len(gnbr):
            length = gindptr[pnbr + 1] - gindptr[pnbr]      # checks per (v, u) pair
            cum = xp.cumsum(length)
            checks = int(cum[-1])
            cuts = np.arange(CHUNK, checks, CHUNK, dtype=np.int64)
            inner = xp.searchsorted(cum, xp.asarray(cuts), side="left").tolist() if len(cuts) else []
            bounds = sorted(set([0, *[int(b) + 1 for b in inner], len(keys)]))
            for a, b in zip(bounds[:-1], bounds[1:]):
                seg, eid = expand(gindptr, pnbr[a:b])
                if len(eid) == 0:
                    continue
                r = prow[a:b][seg]
                q = r * n + gnbr[eid]
                pos = xp.minimum(xp.searchsorted(keys, q), len(keys) - 1)
                hit = keys[pos] == q
                tri += _bincount(xp, r[hit], rows)
                if gmult is not None:
                    two += _bincount(xp, r[hit & (gmult[eid] == 2)], rows)
        st.pop("gnbr"), st.pop("gmult"), st.pop("gindptr")
        return Contribution({}, {"triangles": int(tri.sum()), "checks": checks, "replica": len(gnbr)})

    def finish(self, shard, st):
        if not self.lcc:
            return {"triangles": st["tri"]}
        if "lcc" in st:
            return {"lcc": st["lcc"]}
        xp = shard.xp
        d = st["degree"]
        # arcs among the neighbors: an undirected graph stores every edge both ways
        num = st["tri"] * 2 if st["mult"] is None else st["tri"] + st["two"]
        den = d * (d - 1)
        lcc = xp.where(d > 1, num.astype(np.float64) / xp.maximum(den, 1).astype(np.float64), 0.0)
        return {"lcc": lcc}


__all__ = ["TriangleProgram", "CHUNK", "PHASES"]
