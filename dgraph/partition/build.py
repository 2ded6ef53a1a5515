"""Build a PartitionedGraph on the workers: each makes its own shard, the edge list never at the client.

Three front doors, one build (:mod:`dgraph.partition.stream`):

- :func:`generate_partitioned`: each worker generates its slice of the edge
  list on its own device (a GPU with ``backend="cupy"``), the same edges as
  :func:`dgraph.generate` makes;
- :func:`read_partitioned`: each worker reads its share of a set of Parquet
  or edge-list files;
- :func:`from_dask_dataframe`: each worker takes the partitions of a dask
  (or dask-cuDF) DataFrame that it already holds.

The build runs as one Dask task per partition (``dgraph-build-p<q>-<job>``
in the dashboard), all at once, talking through NCCL when every partition has
a GPU of its own and through Dask's worker comm otherwise.  Each task leaves
its shard on its worker; a second small task per partition
(``dgraph-shard-p<q>-<job>``) holds it as the Dask future the executors use.
If a worker is lost later, that task rebuilds its shard alone on another
worker from the same sources (generated and file builds), so runs go on.

Vertex ids must be integers 0..n-1 here: renumbering arbitrary ids needs the
whole id set (read such graphs with :func:`dgraph.read` and ``G.partition``).
"""

from __future__ import annotations

import glob as globmod
import time
import uuid
from pathlib import Path

import numpy as np

from ..errors import InputError, MissingFileError, WorkerLostError
from .plan import PartitionPlan, check_num_parts
from .sources import FrameEdges, GeneratedEdges, ParquetEdges, TextEdges
from .stream import BuildSpec, build_rank, hash_plan


# -- on the workers -----------------------------------------------------------------------------

def _collective(worker, q, p, placement, job, uid):
    from ..exchange.collective import MailboxCollective, NcclCollective, SoloCollective  # noqa: PLC0415

    if p == 1:
        return SoloCollective(0, 1)
    if uid is not None:
        from ..engine.nccl_transport import communicator  # noqa: PLC0415

        return NcclCollective(communicator(uid, p, q, job=job), q, p)
    return MailboxCollective(worker, job, q, placement)


def _build_task(q, spec, sources, placement, job, uid, backend, frames=()):
    """Rank q of the build: its shard is left in the worker's stash for ``_claim_shard``."""
    from distributed import get_worker, secede  # noqa: PLC0415

    from ..backend import get_xp  # noqa: PLC0415
    from ..engine.spmd import _results  # noqa: PLC0415

    secede()  # several partitions may share a worker and must build at once
    worker = get_worker()
    sources = list(sources) + [FrameEdges(f, *cols, label) for f, cols, label in frames]
    t0 = time.perf_counter()
    shard, summary = build_rank(_collective(worker, q, spec.num_parts, placement, job, uid), sources, spec,
                                get_xp(backend))
    if uid is not None:
        from ..engine.nccl_transport import release  # noqa: PLC0415

        release(job)
    _results(worker)[(job, q)] = shard
    summary["build_s"] = time.perf_counter() - t0
    summary["worker"] = worker.address
    return summary


def _degree_of(shard):
    return shard.degree


def _claim_shard(job, q, backend, rebuild, degree=None):
    """The shard the build left here; or, when this task runs again after its worker was lost, the
    shard rebuilt alone from every source (``rebuild``: (sources, spec with the plan); ``degree``: the
    replicated degrees, from a surviving shard)."""
    from distributed import get_worker  # noqa: PLC0415

    from ..backend import get_xp  # noqa: PLC0415
    from ..engine.spmd import _results  # noqa: PLC0415
    from ..exchange.collective import SoloCollective  # noqa: PLC0415

    shard = _results(get_worker()).pop((job, q), None) if job is not None else None
    if shard is not None:
        return shard
    if rebuild is None:
        raise WorkerLostError(f"partition {q} was lost with its worker and this graph cannot rebuild it "
                              f"(its dataframe partitions are gone); build it again")
    if degree is None:
        raise WorkerLostError(f"partition {q} cannot be rebuilt: no partition of the graph survived to give "
                              f"the degrees; build the graph again")
    sources, spec = rebuild
    shard, _ = build_rank(SoloCollective(q, spec.num_parts), sources, spec, get_xp(backend), degree=degree)
    return shard


# -- on the client ---------------------------------------------------------------------------------

#: seconds the other ranks of a failed build get to stop (at their next collective call) before the
#: client gives up on them
STOP_WAIT_S = 30.0


def build_partitioned(client, rank_sources, spec, *, backend="numpy", name=None, frames=None, all_sources=None,
                      transport="auto"):
    """A PartitionedGraph from per-partition sources; built by one task per partition.

    ``rank_sources[q]``: partition q's EdgeSources; ``frames[q]``: (future of a
    DataFrame, (src, dst, weight), label) triples it reads too; ``all_sources``:
    every source, for rebuilding a lost shard alone (None: no rebuild).
    """
    from distributed import wait  # noqa: PLC0415

    from ..cluster.workers import RECONNECT_WAIT_S, worker_addresses  # noqa: PLC0415
    from ..engine.spmd import _NCCL_IDS, _drop_everywhere, _install_handlers, _nccl_uid  # noqa: PLC0415
    from ..graph.ids import VertexIds  # noqa: PLC0415
    from .partitioned import PartitionedGraph  # noqa: PLC0415

    p = spec.num_parts
    workers = worker_addresses(client, wait=RECONNECT_WAIT_S)
    if not workers:
        raise InputError("the Dask cluster has no workers; start some or connect to another scheduler")
    placed = [workers[q % len(workers)] for q in range(p)]
    one_per_worker = len(set(placed)) == p
    if transport not in ("auto", "nccl", "dask"):
        raise InputError(f"transport={transport!r}: expected 'auto', 'nccl' or 'dask'")
    if transport == "nccl" and (backend != "cupy" or not one_per_worker):
        raise InputError("transport='nccl' needs backend='cupy' and one partition per worker (one GPU each)")
    use_nccl = p > 1 and backend == "cupy" and one_per_worker and transport != "dask"
    uid = _nccl_uid(client, placed) if use_nccl else None
    if p > 1 and not use_nccl:
        _install_handlers(client, placed)
    job = uuid.uuid4().hex[:12]
    frames = frames or [[] for _ in range(p)]
    t0 = time.perf_counter()
    builds = [client.submit(_build_task, q, spec, rank_sources[q], placed, job, uid, backend, frames[q],
                            key=f"dgraph-build-p{q}-{job}", workers=[placed[q]], allow_other_workers=False,
                            pure=False, retries=0)
              for q in range(p)]
    error = None
    try:
        pending = list(builds)
        while pending and not any(f.status in ("error", "cancelled", "lost") for f in builds):
            with client.as_current():  # the client need not be Dask's default one
                wait(pending, return_when="FIRST_COMPLETED")
            pending = [f for f in pending if not f.done()]
        if any(f.status != "finished" for f in builds):
            # the others stop at their next collective call; one blocked in NCCL is freed by the abort
            _drop_everywhere(client, job)
            try:
                with client.as_current():
                    wait(builds, timeout=STOP_WAIT_S)
            except TimeoutError:
                pass
            error = _first_error([f for f in builds if f.status != "finished"])
    finally:
        if any(f.status != "finished" for f in builds):
            _drop_everywhere(client, job)
            client.cancel(builds)
            if uid is not None:
                _NCCL_IDS.pop(tuple(placed), None)
    if error is not None:
        raise error
    summaries = client.gather(builds)
    n = summaries[0]["num_vertices"]
    bounds = summaries[0]["bounds"]
    plan = PartitionPlan.from_bounds(np.asarray(bounds, dtype=np.int64)) if bounds is not None \
        else hash_plan(n, p, spec.seed)
    rebuild = None
    if all_sources is not None:
        solo = BuildSpec(num_parts=p, directed=spec.directed, method=spec.method, seed=spec.seed,
                         self_loops=spec.self_loops, num_vertices=n, weighted=spec.weighted, batch=spec.batch,
                         plan=plan)
        rebuild = (list(all_sources), solo)
    shards = [client.submit(_claim_shard, job, q, backend, rebuild, key=f"dgraph-shard-p{q}-{job}",
                            workers=[placed[q]], pure=False) for q in range(p)]
    with client.as_current():
        wait(shards)
    del builds
    build_s = time.perf_counter() - t0

    def rebuild_one(q, worker):
        """Shard q built again on ``worker``, alone; the degrees come from a partition that survived."""
        alive = set(worker_addresses(client))
        donors = [r for r in range(p) if r != q and PG.shards[r].status == "finished" and PG.workers[r] in alive]
        if not donors:
            raise WorkerLostError("every partition of the graph was lost with its worker; build it again")
        degree = client.submit(_degree_of, PG.shards[donors[0]], workers=[PG.workers[donors[0]]], pure=False)
        return client.submit(_claim_shard, None, q, backend, rebuild, degree, workers=[worker], pure=False,
                             key=f"dgraph-shard-p{q}-{uuid.uuid4().hex[:12]}")

    PG = PartitionedGraph(plan=plan, ids=VertexIds(n), directed=spec.directed, weighted=spec.weighted,
                          shards=shards, workers=placed, client=client, backend=backend, name=name,
                          num_arcs=sum(s["arcs"] for s in summaries),
                          rebuild=rebuild_one if rebuild is not None else None)
    PG.build_stats = {"seconds": build_s, "transport": "nccl" if use_nccl else ("dask" if p > 1 else "none"),
                      "partitions": summaries}
    return PG


def _first_error(failed):
    """The error of the partition that failed first-hand (the others stopped because it did)."""
    from ..exchange.collective import PeerFailed  # noqa: PLC0415

    errors = [f.exception() for f in failed if f.status == "error"]
    own = [e for e in errors if not isinstance(e, PeerFailed)]
    if own:
        return own[0]
    if errors:
        return errors[0]
    return WorkerLostError("a worker was lost during the build; build again")


def _client(client, what):
    from ..cluster import current_client  # noqa: PLC0415

    client = client or current_client()
    if client is None:
        raise InputError(f"{what} needs a Dask client: dgraph.cluster.connect() first")
    return client


def _split(count, p):
    cuts = [count * q // p for q in range(p + 1)]
    return list(zip(cuts[:-1], cuts[1:]))


def generate_partitioned(kind, num_parts, *, client=None, method="range", backend="numpy", seed=0,
                         directed=False, weighted=False, self_loops=True, name=None, chunks=None,
                         transport="auto", **params):
    """A generated graph built on the workers: each makes its own slice of the edge list, on its device.

    The same graph as ``dgraph.generate(kind, seed=seed, **params)`` ('rmat' and
    'uniform', weighted or not), split into ``num_parts`` shards, and never
    whole in one place: with ``backend="cupy"`` each worker generates, cuts and
    sorts its edges on its GPU, and the GPUs swap edges through NCCL.  Each
    worker holds its shard, the degree arrays and one batch of edges at a time.

    Parameters
    ----------
    kind : 'rmat' (aliases 'kron', 'graph500') or 'uniform'; its parameters as keywords
        (``scale=``, ``edgefactor=``, ...) and ``weighted=True`` / ``weights=`` as in
        :func:`dgraph.generate`.
    num_parts : partitions, one per worker (``q`` on worker ``q mod W``).
    client : the Dask client (default: the one :func:`dgraph.cluster.connect` made).
    method : 'range' (equal edge counts, cut from the counted degrees) or 'hash'.
    backend : 'numpy' or 'cupy' (the workers' GPUs).
    chunks : cut each worker's slice into this many batches (default: batches of 2**20
        edges on the CPU, 2**25 on a GPU); the graph does not depend on it.
    transport : 'auto' (NCCL for CuPy with one partition per worker), 'nccl' or 'dask'.

    Returns
    -------
    PartitionedGraph
        ``PG.build_stats`` holds each worker's build time, arcs, bytes sent and memory.

    Examples
    --------
    >>> client = dgraph.cluster.connect()                                   # doctest: +SKIP
    >>> PG = dgraph.generate_partitioned("rmat", 2, scale=12, seed=1)       # doctest: +SKIP
    >>> dgraph.bfs(PG, source=0).supersteps                                 # doctest: +SKIP
    """
    from ..generators import WEIGHT_PARAMS, _module, _seed, default_name  # noqa: PLC0415
    from ..generators.params import check_known  # noqa: PLC0415
    from ..generators.weights import parse_weights  # noqa: PLC0415

    client = _client(client, "generate_partitioned")
    mod = _module(kind)
    kname = mod.__name__.rsplit(".", 1)[1]
    if kname not in ("rmat", "uniform"):
        raise InputError(f"kind={kind!r}: parallel generation supports 'rmat' and 'uniform'; "
                         f"use dgraph.generate(...).partition(p) for {kname!r}")
    check_known(kname, params, (*mod.PARAMS, *WEIGHT_PARAMS))
    for flag, value in (("directed", directed), ("weighted", weighted), ("self_loops", self_loops)):
        if not isinstance(value, (bool, np.bool_)):
            raise InputError(f"{flag}={value!r}: expected True or False")
    seed = _seed(seed)
    params = dict(params)
    wspec = parse_weights(bool(weighted), params)
    prm = mod.parse(params)
    n, m = mod.size(prm)
    p = check_num_parts(num_parts)
    if p > max(n, 1):
        raise InputError(f"the graph has {n} vertices, it cannot be split into {p} partitions; use at most {n}")
    default = default_name(kname, prm, seed)
    batch = None
    if chunks is not None:
        batch = max(1, -(-m // (p * int(chunks))))
    spec = BuildSpec(num_parts=p, directed=directed, method=method, seed=seed, self_loops=self_loops,
                     num_vertices=n, weighted=wspec is not None, batch=batch)
    ranks = [[GeneratedEdges(kname, prm, seed, a, b, wspec)] for a, b in _split(m, p)]
    return build_partitioned(client, ranks, spec, backend=backend, name=name or default,
                             all_sources=[GeneratedEdges(kname, prm, seed, 0, m, wspec)], transport=transport)


TEXT_SUFFIXES = (".el", ".wel", ".txt", ".edges", ".tsv", ".snap", ".csv")
PARQUET_SUFFIXES = (".parquet", ".pq")


def _expand(path_or_glob):
    """Files named by a path, a folder (its files), a glob pattern or a list of those; sorted."""
    items = path_or_glob if isinstance(path_or_glob, (list, tuple)) else [path_or_glob]
    files = []
    for item in items:
        if not isinstance(item, (str, Path)):
            raise InputError(f"path: expected a file name, folder or glob pattern, got {type(item).__name__}")
        p = Path(item).expanduser()
        if p.is_dir():
            found = sorted(f for f in p.iterdir() if f.is_file() and not f.name.startswith((".", "_")))
            if not found:
                raise MissingFileError(f"{p}: the folder holds no data files")
            files += found
        elif p.is_file():
            files.append(p)
        else:
            found = sorted(Path(f) for f in globmod.glob(str(p)) if Path(f).is_file())
            if not found:
                raise MissingFileError(f"{p}: no such file, folder, or files matching the pattern")
            files += found
    return files


def _format_of(path, format):
    from ..io.text import format_suffix  # noqa: PLC0415

    if format is not None:
        if format not in ("parquet", "edgelist", "csv"):
            raise InputError(f"format={format!r}: a parallel read takes 'parquet', 'edgelist' or 'csv'")
        return format
    suffix = format_suffix(path)
    if suffix in PARQUET_SUFFIXES:
        return "parquet"
    if suffix in TEXT_SUFFIXES:
        return "csv" if suffix == ".csv" else "edgelist"
    raise InputError(f"{path}: cannot tell the format from the extension {suffix!r}; pass format='parquet', "
                     f"'edgelist' or 'csv' (Matrix Market and Graphalytics files: dgraph.read, then G.partition)")


def _deal(sources, p):
    """Sources to partitions, largest first to the least loaded (deterministic)."""
    ranks, load = [[] for _ in range(p)], [0] * p
    for s in sorted(sources, key=lambda s: -s.weight_hint):
        q = min(range(p), key=lambda i: (load[i], i))
        ranks[q].append(s)
        load[q] += s.weight_hint
    return ranks


def read_partitioned(path, num_parts, *, format=None, directed=False, weighted=None, src=None, dst=None,
                     weight=None, num_vertices=None, client=None, method="range", backend="numpy",
                     self_loops=True, name=None, transport="auto", **text_options):
    """A graph read in parallel by the workers from Parquet or edge-list files, built where it is read.

    Parameters
    ----------
    path : a file, a folder (every file in it but hidden and ``_``-prefixed ones), a glob
        pattern (``"edges/part-*.parquet"``) or a list of those.  The files are dealt to
        the workers by size; each worker reads its own (they must be readable there).
    format : 'parquet', 'edgelist' or 'csv' (default: from each file's extension).
    src, dst, weight : the columns (Parquet: names, default 'src', 'dst' and 'weight' if
        present; text: as in :func:`dgraph.read`).
    weighted : None reads weights when the first file has them.
    num_vertices : default: the largest id + 1.
    Other options as in :func:`generate_partitioned`; ``text_options`` go to the text reader
    (``sep=``, ``header=``).

    Vertex ids must be integers 0..n-1.  Parquet files are read in row batches;
    a text file is parsed whole, so split a large edge list into many files.

    Examples
    --------
    >>> PG = dgraph.read_partitioned("edges/*.parquet", 4, client=client)       # doctest: +SKIP
    """
    client = _client(client, "read_partitioned")
    files = _expand(path)
    p = check_num_parts(num_parts)
    fmts = {f: _format_of(f, format) for f in files}
    first = files[0]
    sources = []
    if set(fmts.values()) == {"parquet"}:
        import pyarrow.parquet as pq  # noqa: PLC0415

        try:
            names = pq.read_schema(first).names
        except Exception as exc:  # noqa: BLE001 - ArrowInvalid, OSError...
            raise InputError(f"{first}: not a readable Parquet file ({exc})") from None
        s, d = src or "src", dst or "dst"
        for what, col in (("src", s), ("dst", d)) + ((("weight", weight),) if weight else ()):
            if col not in names:
                raise InputError(f"{first}: no column {col!r} for {what}=; the columns are {names}")
        wcol = weight or ("weight" if "weight" in names else None)
        if weighted and wcol is None:
            raise InputError(f"{first}: weighted=True but there is no weight column (columns are {names})")
        use_w = bool(wcol) if weighted is None else bool(weighted)
        sources = [ParquetEdges(f, s, d, wcol if use_w else None) for f in files]
    elif "parquet" in fmts.values():
        raise InputError("the files mix Parquet and text; read them in two calls")
    else:
        opts = dict(text_options, src=src, dst=dst, weight=weight)
        opts["fmt"] = "csv" if fmts[first] == "csv" else "edgelist"
        use_w = weighted if weighted is not None else _text_has_weights(first, opts)
        sources = [TextEdges(f, weighted=use_w, options=opts) for f in files]
    spec = BuildSpec(num_parts=p, directed=directed, method=method, seed=0, self_loops=self_loops,
                     num_vertices=num_vertices, weighted=bool(use_w))
    stem = Path(path if not isinstance(path, (list, tuple)) else files[0]).name
    return build_partitioned(client, _deal(sources, p), spec, backend=backend, name=name or stem,
                             all_sources=sources, transport=transport)


def _text_has_weights(path, opts):
    """Whether the first file has a weight column, by the reader's own rule (read on the client: the
    first file only, to agree on it before the workers start)."""
    from ..io.edgelist import edgelist_columns  # noqa: PLC0415

    return edgelist_columns(path, weighted=None, **opts)[3] is not None


def from_dask_dataframe(ddf, num_parts, *, src="src", dst="dst", weight=None, num_vertices=None, directed=False,
                        client=None, method="range", backend="numpy", self_loops=True, name=None, transport="auto"):
    """A PartitionedGraph from a dask DataFrame of edges (integer ids 0..n-1), built on the workers.

    The frame is persisted and each worker builds from the partitions it
    holds (pandas, or cuDF for a dask-cuDF frame, whose columns stay on the
    GPU); they never pass through the client.  ``num_vertices`` defaults to
    the largest id + 1.  A shard lost with its worker cannot be rebuilt
    (the frame's partitions are released after the build): build again.

    Examples
    --------
    >>> import dask.dataframe as dd, pandas as pd                                 # doctest: +SKIP
    >>> ddf = dd.from_pandas(pd.DataFrame({"src": [0, 1], "dst": [1, 2]}), npartitions=2)  # doctest: +SKIP
    >>> PG = dgraph.from_dask_dataframe(ddf, 2, client=client)                    # doctest: +SKIP
    """
    client = _client(client, "from_dask_dataframe")
    for col in (src, dst) + (() if weight is None else (weight,)):
        if col not in ddf.columns:
            raise InputError(f"column {col!r} is not in the dataframe (columns: {list(ddf.columns)})")
    p = check_num_parts(num_parts)
    ddf = ddf[[src, dst] + ([weight] if weight is not None else [])]
    from distributed import futures_of, wait  # noqa: PLC0415

    parts = futures_of(client.persist(ddf))

    from ..cluster import worker_addresses  # noqa: PLC0415

    with client.as_current():
        wait(parts)
    workers = worker_addresses(client)
    placed = [workers[q % len(workers)] for q in range(p)]
    who = client.who_has(parts)
    frames, load = [[] for _ in range(p)], [0] * p
    for i, f in enumerate(parts):
        holders = set(who.get(f.key, ()))
        mine = [q for q in range(p) if placed[q] in holders] or list(range(p))
        q = min(mine, key=lambda r: (load[r], r))
        frames[q].append((f, (src, dst, weight), f"dataframe partition {i}"))
        load[q] += 1
    spec = BuildSpec(num_parts=p, directed=directed, method=method, seed=0, self_loops=self_loops,
                     num_vertices=num_vertices, weighted=weight is not None)
    return build_partitioned(client, [[] for _ in range(p)], spec, backend=backend, name=name, frames=frames,
                             transport=transport)
