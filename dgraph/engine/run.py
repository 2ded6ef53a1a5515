"""Run a Program on a Graph or a PartitionedGraph with the chosen executor; build its Result."""

from __future__ import annotations

import time

from ..backend import get_xp
from ..errors import InputError
from .result import Result

EXECUTORS = ("local", "tasks", "spmd")


def resolve_graph(G, backend):
    """The graph on the requested backend (None keeps the graph's own)."""
    from ..graph import Graph  # noqa: PLC0415
    from ..partition.partitioned import PartitionedGraph  # noqa: PLC0415

    if isinstance(G, PartitionedGraph):
        if backend not in (None, G.backend):
            raise InputError(f"backend={backend!r} but the partitioned graph's shards are on {G.backend}; "
                             f"partition with backend={backend!r}")
        return G
    if not isinstance(G, Graph):
        raise InputError(f"expected a dgraph.Graph or PartitionedGraph, got {type(G).__name__}")
    if backend is None:
        return G
    get_xp(backend)  # raises BackendError with the reason when unusable
    return G.to(backend)


def run_program(make_program, G, *, backend=None, executor=None, exchange="butterfly", fanout=None,
                transport="auto", on_step=None, vertex_columns=(), missing=None, params=None, max_supersteps=None):
    """``make_program(ids)`` builds the Program once the vertex ids are known (to map sources)."""
    from ..partition.partitioned import PartitionedGraph  # noqa: PLC0415
    from ..partition.shard import whole_graph_shard  # noqa: PLC0415

    G = resolve_graph(G, backend)
    partitioned = isinstance(G, PartitionedGraph)
    if executor is None:
        executor = "spmd" if partitioned and G.distributed else "local"
    if executor not in EXECUTORS:
        raise InputError(f"executor={executor!r}: expected one of {', '.join(EXECUTORS)}")
    program = make_program(G.ids)
    phases = None
    t0 = time.perf_counter()
    if not partitioned:
        if executor != "local":
            raise InputError(f"executor={executor!r} runs on a partitioned graph: "
                             f"G.partition(p, client=...) first, or use executor='local'")
        shards = [whole_graph_shard(G)]
        sync = G.xp.cuda.get_current_stream().synchronize if G.backend == "cupy" else None
        from .local import run_local  # noqa: PLC0415

        results, records = run_local(program, shards, on_step=on_step, sync=sync, max_supersteps=max_supersteps)
        if sync is not None:
            sync()
        columns = results[0]
    else:
        from ..exchange import parse_exchange  # noqa: PLC0415

        schedule = parse_exchange(exchange, fanout, p=G.num_parts)
        if executor == "local":
            from .local import run_local  # noqa: PLC0415

            results, records = run_local(program, G.local_shards(), on_step=on_step,
                                         max_supersteps=max_supersteps)
        elif not G.distributed:
            raise InputError(f"executor={executor!r} needs a Dask cluster: partition with "
                             f"client=dgraph.cluster.connect() (or executor='local')")
        elif executor == "tasks":
            from .tasks import run_tasks  # noqa: PLC0415

            results, records = run_tasks(program, G, schedule, on_step=on_step, max_supersteps=max_supersteps)
        else:
            from .spmd import run_spmd  # noqa: PLC0415

            fetch, records, phases = run_spmd(program, G, schedule, on_step=on_step,
                                              max_supersteps=max_supersteps, transport=transport)
            results = None
        if G.distributed and executor != "local":
            if results is not None:  # tasks: Dask futures
                fetch = (lambda results=results, placement=list(G.workers): _gather_results(G, results, placement))

            def columns(fetch=fetch, replicated=program.replicated_result):
                got = fetch()
                return got[0] if replicated else _assemble(G, got)
        else:
            columns = results[0] if program.replicated_result else _assemble(G, results)
        params = dict(params or {}, executor=executor, exchange=schedule.kind, fanout=schedule.fanout,
                      partitions=G.num_parts)
        if records and "transport" in records[0]:
            params["transport"] = records[0]["transport"]
    elapsed = time.perf_counter() - t0
    return Result(program.name, G.ids, columns, vertex_columns=vertex_columns, missing=missing, stats=records,
                  params=params, backend=G.backend, run_time=elapsed, phases=phases)


def _gather_results(PG, futures, placement):
    """A tasks run's results, read from the workers; WorkerLostError if one died since the run."""
    from ..errors import WorkerLostError  # noqa: PLC0415
    from .faults import gather_or_lost, wait_or_lost  # noqa: PLC0415

    what = "the reading of a result"
    try:
        wait_or_lost(PG.client, futures, placement, what)
        return gather_or_lost(PG.client, futures, placement, what)
    except WorkerLostError:
        PG.suspect_loss()
        raise


def _assemble(G, results):
    """Per-shard owned columns -> global columns in vertex order."""
    import numpy as np  # noqa: PLC0415

    from ..backend import to_numpy  # noqa: PLC0415

    out = {}
    for name in results[0]:
        first = to_numpy(results[0][name])
        col = np.empty(G.num_vertices, dtype=first.dtype)
        for q, res in enumerate(results):
            col[G.plan.vertices_of(q)] = to_numpy(res[name])
        out[name] = col
    return out
