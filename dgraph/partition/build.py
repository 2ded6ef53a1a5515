"""Build a PartitionedGraph in parallel on the workers, without the whole graph on the client.

The edge list arrives as chunks, each made where it is computed (a slice of
a generator, a partition of a dask dataframe).  Three passes of Dask tasks:

1. count: per chunk, the degree of every vertex; summed into one array
   (O(n), never O(m)), from which the range plan cuts equal edge counts;
2. split: per chunk, the edges of each partition (by the owner of the
   source; also by the owner of the target for a directed graph's in-edges);
3. build: per partition, on the worker that keeps it, the pieces from
   every chunk become the shard's CSR (and CSC), cleaned with the same rules
   as :func:`dgraph.from_edges` (both directions for undirected, duplicates
   collapsed to the minimum weight, rows sorted).

Vertex ids must be integers 0..n-1 here (renumbering arbitrary ids needs the
whole id set; read such graphs with :func:`dgraph.read` and ``G.partition``).
"""

from __future__ import annotations

import numpy as np

from ..backend import array_module, vertex_dtype
from ..errors import InputError
from .plan import PartitionPlan
from .shard import Shard, plan_layout


def _count(chunk, n, directed):
    """Degree contribution of one chunk (out-degree; both ends when undirected)."""
    src, dst, _ = chunk
    src, dst = _host(src), _host(dst)
    deg = np.bincount(src, minlength=n).astype(np.int64)
    if not directed:
        off = src != dst
        deg += np.bincount(dst[off], minlength=n)
    return deg


def _sum(*arrays):
    out = arrays[0].copy()
    for a in arrays[1:]:
        out += a
    return out


def _range_bounds(degree, p):
    """Cut points with (nearly) equal edge counts per range; every range non-empty."""
    from .methods import range_bounds  # noqa: PLC0415

    return range_bounds(np.concatenate([[0], np.cumsum(degree)]), p)


def _host(a):
    return a.get() if type(a).__module__.startswith("cupy") else np.asarray(a)


def _owner(plan, v):
    xp = array_module(v)
    if plan.contiguous:
        return xp.searchsorted(xp.asarray(plan.bounds), v, side="right") - 1
    return plan.owner_of(v, check=False)


def _split(chunk, plan, directed):
    """The chunk's edges per partition: out-pieces (by source) then, if directed, in-pieces (by target)."""
    src, dst, w = chunk
    xp = array_module(src)
    if not directed:
        off = src != dst
        src, dst = xp.concatenate([src, dst[off]]), xp.concatenate([dst, src[off]])
        if w is not None:
            w = xp.concatenate([w, w[off]])
    p = plan.num_parts
    pieces = []
    for key in ((src, dst) if directed else (src,)):
        owner = _owner(plan, key)
        for q in range(p):
            sel = owner == q
            pieces.append((src[sel], dst[sel], None if w is None else w[sel]))
    return pieces


def _piece(pieces, i):
    return pieces[i]


def _csr(xp, rows_of, cols, w, nrows):
    """Sorted, deduplicated (min weight) CSR over local rows."""
    key = rows_of.astype(np.int64) * (1 << 32) + cols.astype(np.int64)
    if w is None:
        key = xp.sort(key)
    else:
        order = xp.argsort(key)
        key, w = key[order], w[order]
    if len(key) > 1:
        first = xp.ones(len(key), dtype=bool)
        first[1:] = key[1:] != key[:-1]
        if w is not None and not bool(first.all()):
            if xp is np:
                w = np.minimum.reduceat(w, np.flatnonzero(first))
            else:  # minimum per run of equal keys: sort by weight inside runs
                raise InputError("weighted parallel builds on CuPy are not supported yet")
        key = key[first]
    r = key >> 32
    c = key & ((1 << 32) - 1)
    indptr = xp.zeros(nrows + 1, dtype=np.int64)
    if len(r):
        indptr[1:] = xp.cumsum(xp.bincount(r, minlength=nrows))
    return indptr, c, w


def _build(q, plan, n, directed, self_loops, *pieces):
    """Shard q from its pieces of every chunk (out-pieces, then in-pieces when directed)."""
    k = len(pieces) // (2 if directed else 1)
    outs, ins = pieces[:k], pieces[k:]
    xp = array_module(outs[0][0]) if outs else np
    vdt = vertex_dtype(n)

    def cat(parts, i):
        arrs = [pc[i] for pc in parts if pc[i] is not None]
        return xp.concatenate(arrs) if arrs else None

    lo = int(plan.bounds[q]) if plan.contiguous else 0
    nrows = int(plan.bounds[q + 1]) - lo if plan.contiguous else int(plan.sizes()[q])
    rows = None if plan.contiguous else xp.asarray(plan.vertices_of(q)).astype(vdt)

    def local(v):
        if plan.contiguous:
            return v.astype(np.int64) - lo
        return xp.searchsorted(rows, v)

    src, dst, w = cat(outs, 0), cat(outs, 1), cat(outs, 2)
    if not self_loops:
        keep = src != dst
        src, dst, w = src[keep], dst[keep], None if w is None else w[keep]
    indptr, indices, weights = _csr(xp, local(src), dst, w, nrows)
    csc = None
    if directed:
        s2, d2, w2 = cat(ins, 0), cat(ins, 1), cat(ins, 2)
        if not self_loops:
            keep = s2 != d2
            s2, d2 = s2[keep], d2[keep]
        cindptr, cindices, _ = _csr(xp, local(d2), s2, None, nrows)
        csc = (cindptr, cindices.astype(vdt), None)
    return Shard(part=q, num_parts=plan.num_parts, num_vertices=n, directed=directed, indptr=indptr,
                 indices=indices.astype(vdt), weights=weights, row_base=lo, rows=rows, csc=csc,
                 layout=plan_layout(plan, xp))


def _owned_degree(shard):
    return _host(shard.indptr[1:] - shard.indptr[:-1])


def _assemble_degree(plan, n, *parts):
    deg = np.zeros(n, dtype=np.int64)
    for q, d in enumerate(parts):
        if plan.contiguous:
            deg[int(plan.bounds[q]):int(plan.bounds[q + 1])] = d
        else:
            deg[plan.vertices_of(q)] = d
    return deg


def _with_degree(shard, degree, backend):
    xp = shard.xp
    shard.degree = xp.asarray(degree)
    return shard.to(backend)


def build_partitioned(client, chunks, n, num_parts, *, directed=False, method="range", seed=0,
                      backend="numpy", self_loops=True, name=None, weighted=False):
    """A PartitionedGraph from chunk futures (each ``(src, dst, weights or None)``) on ``client``."""
    from ..cluster import worker_addresses  # noqa: PLC0415
    from ..graph.ids import VertexIds  # noqa: PLC0415
    from .plan import check_num_parts  # noqa: PLC0415
    from .partitioned import PartitionedGraph  # noqa: PLC0415

    p = check_num_parts(num_parts)
    if p > max(n, 1):
        raise InputError(f"graph has {n} vertices, cannot be split into {p} partitions; use at most {n}")
    workers = worker_addresses(client)
    if not workers:
        raise InputError("the Dask cluster has no workers")
    placed = [workers[q % len(workers)] for q in range(p)]
    counts = [client.submit(_count, c, n, directed, pure=False) for c in chunks]
    while len(counts) > 1:  # tree sum: O(n) per task
        counts = [client.submit(_sum, *counts[i:i + 4], pure=False) for i in range(0, len(counts), 4)]
    if method == "range":
        bounds = client.submit(_range_bounds, counts[0], p, pure=False).result()
        plan = PartitionPlan.from_bounds(bounds, method="range")
    elif method == "hash":
        from .methods import fill_empty_parts, hash_owner  # noqa: PLC0415

        plan = PartitionPlan.from_owner(fill_empty_parts(hash_owner(n, p, seed), p), p, method="hash", seed=seed)
    else:
        raise InputError(f"method={method!r}: a parallel build supports 'range' and 'hash' "
                         f"(metis needs the whole graph: read it, then G.partition(p, method='metis'))")
    splits = [client.submit(_split, c, plan, directed, pure=False) for c in chunks]
    k = p * (2 if directed else 1)
    pieces = [[client.submit(_piece, s, i, pure=False) for s in splits] for i in range(k)]
    shards = []
    for q in range(p):
        mine = pieces[q] + (pieces[p + q] if directed else [])
        shards.append(client.submit(_build, q, plan, n, directed, self_loops, *mine, workers=[placed[q]],
                                    pure=False))
    degree = client.submit(_assemble_degree, plan, n,
                           *[client.submit(_owned_degree, s, workers=[placed[q]], pure=False)
                             for q, s in enumerate(shards)], pure=False)
    shards = [client.submit(_with_degree, s, degree, backend, workers=[placed[q]], pure=False)
              for q, s in enumerate(shards)]
    arcs = sum(client.gather([client.submit(lambda s: s.num_arcs, s, pure=False) for s in shards]))
    del splits, pieces, counts
    return PartitionedGraph(plan=plan, ids=VertexIds(n), directed=directed, weighted=weighted, shards=shards,
                            workers=placed, client=client, backend=backend, name=name, num_arcs=arcs)


def _generate_chunk(kind, params, seed, start, stop):
    from ..generators import rmat_edges, uniform_edges  # noqa: PLC0415

    if kind == "rmat":
        src, dst = rmat_edges(np, params["scale"], edgefactor=params["edgefactor"], a=params["a"], b=params["b"],
                              c=params["c"], seed=seed, permute=params["permute"], start=start, stop=stop)
    else:
        src, dst = uniform_edges(np, params["n"], params["m"], seed=seed, start=start, stop=stop)
    return src, dst, None


def generate_partitioned(kind, num_parts, *, client=None, method="range", backend="numpy", seed=0,
                         directed=False, chunks=None, **params):
    """A generated graph built in parallel on the workers: each makes its own slices of the edge list.

    Same graph as ``dgraph.generate(kind, seed=seed, **params)`` (kinds 'rmat'
    and 'uniform', unweighted), never assembled on the client.
    """
    from ..cluster import current_client  # noqa: PLC0415
    from ..generators import _module  # noqa: PLC0415
    from ..generators.params import check_known  # noqa: PLC0415

    client = client or current_client()
    if client is None:
        raise InputError("generate_partitioned needs a Dask client: dgraph.cluster.connect() first")
    mod = _module(kind)
    kname = mod.__name__.rsplit(".", 1)[1]
    if kname not in ("rmat", "uniform"):
        raise InputError(f"kind={kind!r}: parallel generation supports 'rmat' and 'uniform'; "
                         f"use dgraph.generate(...).partition(p) for {kname!r}")
    check_known(kname, params, mod.PARAMS)
    p = mod.parse(dict(params))
    if kname == "rmat":
        n, m = 1 << p["scale"], p["edgefactor"] << p["scale"]
        name = f"rmat-scale{p['scale']}-ef{p['edgefactor']}-seed{seed}"
    else:
        n, m = p["n"], p["m"]
        name = f"uniform-n{n}-m{m}-seed{seed}"
    nchunks = chunks or max(1, min(4 * num_parts, m // (1 << 20) + 1))
    cuts = np.linspace(0, m, nchunks + 1).astype(np.int64)
    futs = [client.submit(_generate_chunk, kname, p, seed, int(a), int(b), pure=False)
            for a, b in zip(cuts[:-1], cuts[1:])]
    return build_partitioned(client, futs, n, num_parts, directed=directed, method=method, seed=seed,
                             backend=backend, name=name)


def _frame_to_chunk(df, src, dst, weight):
    w = None if weight is None else df[weight].to_numpy()
    return df[src].to_numpy(), df[dst].to_numpy(), w


def from_dask_dataframe(ddf, num_parts, *, src="src", dst="dst", weight=None, num_vertices=None, directed=False,
                        client=None, method="range", backend="numpy", self_loops=True, name=None):
    """A PartitionedGraph from a dask DataFrame of edges (integer ids 0..n-1), built on the workers.

    Each dataframe partition is one chunk; it never passes through the client.
    ``num_vertices`` defaults to the largest id + 1 (one small reduction).
    """
    import dask  # noqa: PLC0415

    from ..cluster import current_client  # noqa: PLC0415

    client = client or current_client()
    if client is None:
        raise InputError("from_dask_dataframe needs a Dask client: dgraph.cluster.connect() first")
    for col in (src, dst) + (() if weight is None else (weight,)):
        if col not in ddf.columns:
            raise InputError(f"column {col!r} is not in the dataframe (columns: {list(ddf.columns)})")
    if num_vertices is None:
        lo, hi = client.compute([ddf[[src, dst]].min().min(), ddf[[src, dst]].max().max()], sync=True)
        if lo < 0:
            raise InputError(f"vertex id {lo} < 0: a parallel build needs ids 0..n-1 "
                             f"(read such graphs with dgraph.read / from_edges, then G.partition)")
        num_vertices = int(hi) + 1
    parts = [dask.delayed(_frame_to_chunk)(d, src, dst, weight) for d in ddf.to_delayed()]
    chunks = client.compute(parts)
    return build_partitioned(client, chunks, int(num_vertices), num_parts, directed=directed, method=method,
                             backend=backend, self_loops=self_loops, name=name, weighted=weight is not None)
