"""Run a Program on a Graph or a PartitionedGraph with the chosen executor; build its Result."""

from __future__ import annotations

import sys
import time
from typing import NamedTuple

import numpy as np

from .. import startup
from ..backend import get_xp
from ..config import config
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


def check_callbacks(on_step, progress):
    """InputError for an ``on_step`` that is not a function (or None) and a ``progress`` that is not True,
    False or None: said before the run starts, not as a TypeError from inside an executor."""
    if on_step is not None and not callable(on_step):
        raise InputError(f"on_step={on_step!r}: expected a function called with each superstep's record "
                         f"(a dict), or None")
    if progress is not None and not isinstance(progress, (bool, np.bool_)):
        raise InputError(f"progress={progress!r}: expected True (a bar), False (none) or None (a bar on a "
                         f"terminal only)")


class RunTarget(NamedTuple):
    """What a run will run on (see :func:`run_target`)."""

    graph: object       #: :func:`resolve_graph`'s graph (pass it on to :func:`run_program`)
    backend: str        #: 'numpy' or 'cupy'
    num_parts: int      #: partitions (1 for a Graph)
    whole: bool         #: one shard holding every vertex as its rows in order (``Shard.whole``)
    local: bool         #: the ``local`` executor runs it (it calls ``Program.run_steps`` on one shard)


def run_target(G, backend, executor=None):
    """What a run of ``G`` on ``backend`` by ``executor`` will run on: a :class:`RunTarget`.

    For the functions that pick an algorithm's implementation before the run (and record it in
    ``Result.params``): the one-shard loops (``Program.run_steps``) run only where ``local`` and
    ``num_parts == 1``.  ``executor`` None is resolved as :func:`run_program` does.
    """
    from ..partition.partitioned import PartitionedGraph  # noqa: PLC0415

    G = resolve_graph(G, backend)
    partitioned = isinstance(G, PartitionedGraph)
    if partitioned:
        parts = G.num_parts
        whole = parts == 1 and G.plan.contiguous
    else:
        parts, whole = 1, True
    if executor is None:
        executor = "spmd" if partitioned and G.distributed else "local"
    # by name: a client without a GPU may drive CuPy shards on its workers
    name = "numpy" if G.backend in ("numpy", "cpu") else "cupy"
    return RunTarget(G, name, parts, whole, executor == "local")


def run_program(make_program, G, *, backend=None, executor=None, exchange="butterfly", fanout=None,
                transport="auto", on_step=None, vertex_columns=(), missing=None, params=None, max_supersteps=None,
                progress=False):
    """``make_program(ids)`` builds the Program once the vertex ids are known (to map sources).

    ``progress``: a tqdm bar of the supersteps on stderr (True), none (False), or one on a terminal
    only (None).  Start-up (importing numba, loading or compiling kernels: :mod:`dgraph.startup`)
    is timed apart: ``Result.phases["startup_s"]``, not part of ``run_time``.  The
    :mod:`dgraph.config` options in effect that differ from their defaults are recorded in
    ``Result.params["config"]`` (``{}``: every option at its default).
    """
    check_callbacks(on_step, progress)
    bar = None
    if progress is not False:
        from ..progress import SuperstepBar, chain  # noqa: PLC0415

        bar = SuperstepBar(progress=progress)  # drawn once the program is known (its name)
        on_step = chain(on_step, bar)
    try:
        r = _run(make_program, G, backend, executor, exchange, fanout, transport, on_step, vertex_columns,
                 missing, params, max_supersteps, bar)
    finally:
        if bar is not None:
            bar.close()
    if "dgraph.progress" in sys.modules:  # a long job's bar (dgraph bench) counts this run
        sys.modules["dgraph.progress"].tick(f"dgraph {r.algorithm}")
    return r


def _run(make_program, G, backend, executor, exchange, fanout, transport, on_step, vertex_columns, missing,
         params, max_supersteps, bar):
    from ..partition.partitioned import PartitionedGraph  # noqa: PLC0415
    from ..partition.shard import whole_graph_shard  # noqa: PLC0415

    settings = config.snapshot(changed=True)  # what the run goes by (the executors ship it to the workers)
    G = resolve_graph(G, backend)
    partitioned = isinstance(G, PartitionedGraph)
    if executor is None:
        executor = "spmd" if partitioned and G.distributed else "local"
    if executor not in EXECUTORS:
        raise InputError(f"executor={executor!r}: expected one of {', '.join(EXECUTORS)}")
    program = make_program(G.ids)
    if bar is not None:
        bar.describe(program.name)
    phases = remote = None
    c0 = startup.seconds()
    if executor == "local" and G.backend == "numpy" and G.num_vertices:
        startup.import_timed("dgraph.jit")  # numba: every CPU kernel module compiles with it
    c1 = startup.seconds()
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

            fetch, records = run_tasks(program, G, schedule, on_step=on_step, max_supersteps=max_supersteps)
            results = None
        else:
            from .spmd import run_spmd  # noqa: PLC0415

            fetch, records, phases = run_spmd(program, G, schedule, on_step=on_step,
                                              max_supersteps=max_supersteps, transport=transport)
            results = None
        if G.distributed and executor != "local":
            from .remote import RemoteColumns  # noqa: PLC0415

            futures = (lambda results=results: results) if results is not None else fetch
            remote = RemoteColumns(G.client, futures, replicated=program.replicated_result, plan=G.plan,
                                   workers=list(G.workers), ids=G.ids, vertex_columns=vertex_columns,
                                   on_lost=G.suspect_loss, backend=G.backend)
            remote.tallies = getattr(fetch, "tallies", None) if results is None else None  # Program.tally, summed
            columns = remote.fetch
        else:
            columns = results[0] if program.replicated_result else _assemble(G, results)
        params = dict(params or {}, executor=executor, exchange=schedule.kind, fanout=schedule.fanout,
                      partitions=G.num_parts)
        if records and "transport" in records[0]:
            params["transport"] = records[0]["transport"]
    # start-up inside the run: this thread's (local; tasks: shard 0's worker's, charged to this thread), or
    # the slowest worker's (spmd: they start in parallel)
    inside = startup.seconds() - c1
    if phases and "startup_s" in phases:
        inside += phases.pop("startup_s")
    elapsed = max(0.0, time.perf_counter() - t0 - inside)
    phases = {"startup_s": (c1 - c0) + inside, **(phases or {})}
    params = dict(params or {}, config=settings)
    return Result(program.name, G.ids, columns, vertex_columns=vertex_columns, missing=missing, stats=records,
                  params=params, backend=G.backend, run_time=elapsed, phases=phases, remote=remote)


def _assemble(G, results):
    """Per-shard owned columns -> global columns in vertex order."""
    from .remote import assemble  # noqa: PLC0415

    return assemble(G.plan, results)
