"""PartitionedGraph: a graph split into shards, one per worker, kept there.

With a Dask client the shards are Dask futures pinned to their workers
(partition ``q`` on worker ``q mod W``, so 8 partitions on 4 GPUs put two on
each); without one they are plain objects in this process, which the
``local`` executor runs as a simulated cluster.
"""

from __future__ import annotations

import uuid

from ..errors import InputError
from .plan import PartitionPlan
from .shard import shard_from_graph


class PartitionedGraph:
    def __init__(self, *, plan, ids, directed, weighted, shards, workers=None, client=None, backend="numpy",
                 name=None, num_arcs=None, rebuild=None):
        self.plan = plan
        self.ids = ids
        self.directed = directed
        self.weighted = weighted
        self.shards = shards          # Shard objects (no client) or futures of Shards
        self.workers = workers        # worker address of each shard, or None
        self.client = client
        self.backend = backend
        self.name = name
        self.num_arcs = num_arcs
        self._rebuild = rebuild      # rebuild(q, worker) -> future of shard q on worker, for shards lost with one
        self._check_next = False     # a run failed: look up every shard before the next one
        self.build_stats = None       # how a parallel build went (dgraph.partition.build), per partition

    @property
    def num_parts(self) -> int:
        return self.plan.num_parts

    @property
    def num_vertices(self) -> int:
        return self.plan.num_vertices

    @property
    def distributed(self) -> bool:
        return self.client is not None

    def ensure_shards(self, check=None):
        """Rebuild any shard lost with its worker, before a run starts.

        The fast path costs no scheduler round trip: every shard future is
        finished and no run on this graph has failed since the last check.
        Otherwise (``check=True``, or after :meth:`suspect_loss`) the scheduler
        says where each shard is; a shard held by no live worker is rebuilt
        on a live one (``rebuild``, kept by :func:`partition_graph`), the one
        holding fewest shards (a restarted worker holds none), and a
        shard that Dask moved or recomputed elsewhere is followed there.

        Raises
        ------
        WorkerLostError
            No worker is left, or a lost shard cannot be rebuilt here (then
            partition the graph again).
        """
        if self.client is None:
            return
        from ..cluster import worker_addresses  # noqa: PLC0415
        from ..engine.faults import wait_or_lost  # noqa: PLC0415
        from ..errors import WorkerLostError  # noqa: PLC0415

        check = self._check_next if check is None else check
        if not check and all(f.status == "finished" for f in self.shards):
            return  # a shard lost with its worker shows in its status once the client hears of it
        pending = [f for f in self.shards if f.status == "pending"]
        if pending:  # still being built (or moved to a GPU): wait, unless its worker is gone
            try:
                wait_or_lost(self.client, pending, self.workers, "the shards' build")
            except WorkerLostError:
                pass
        alive = set(worker_addresses(self.client))
        live = [f for f in self.shards if f.status == "finished"]  # who_has refuses cancelled futures
        held = self.client.who_has(live) if live else {}
        lost = []
        for q, f in enumerate(self.shards):
            where = sorted(w for w in held.get(f.key, ()) if w in alive)
            if f.status == "finished" and where:
                if self.workers[q] not in where:
                    self.workers[q] = where[0]
            else:
                lost.append(q)
        if lost:
            if not alive:
                raise WorkerLostError("the Dask cluster has no workers left; start some and partition again")
            if self._rebuild is None:
                raise WorkerLostError(f"partitions {lost} were lost with their worker and this graph cannot "
                                      f"rebuild them; partition it again")
            # the workers now (a nanny's restart can leave the list empty for a moment after `alive`
            # was read: wait for one, else the ones read then)
            order = worker_addresses(self.client, wait=30.0) or sorted(alive)
            load = {w: 0 for w in order}
            for q, w in enumerate(self.workers):
                if q not in lost and w in load:
                    load[w] += 1
            for q in lost:  # on the workers holding fewest shards (a restarted one holds none): one per GPU
                w = min(range(len(order)), key=lambda i: (load[order[i]], (i - q) % len(order)))
                self.workers[q] = order[w]
                load[order[w]] += 1
                self.shards[q] = self._rebuild(q, self.workers[q])
        self._check_next = False

    def suspect_loss(self):
        """A run on this graph failed: the next :meth:`ensure_shards` asks the scheduler where every
        shard is (the client may not have heard yet of a worker that died)."""
        self._check_next = True

    def local_shards(self):
        """The shards as objects in this process (gathered from the workers if distributed)."""
        if self.client is None:
            return list(self.shards)
        return self.client.gather(list(self.shards))

    #: seconds the notebook view waits for the per-shard sizes of a distributed graph
    _REPR_TIMEOUT_S = 5.0

    def _shard_sizes(self):
        """``([(rows, arcs, bytes)] per partition, None)`` or ``(None, reason)``.

        Local shards are read here; distributed shards each send three numbers
        back (tiny tasks run where the shard is, one gather): no shard leaves
        its worker.
        """
        if self.client is None:
            return [(s.num_rows, s.num_arcs, s.nbytes()) for s in self.shards], None
        try:
            from distributed import wait  # noqa: PLC0415

            futs = [self.client.submit(_shard_size_task, f, workers=[w] if w else None, pure=False)
                    for f, w in zip(self.shards, self.workers or [None] * len(self.shards))]
            with self.client.as_current():  # wait() uses the default client
                wait(futs, timeout=self._REPR_TIMEOUT_S)
            return self.client.gather(futs), None
        except Exception as exc:  # a lost worker or a slow cluster must not break the display
            return None, f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__

    def _repr_html_(self):
        from ..display import (fmt_bytes, fmt_int, fmt_num, fmt_share, html_block, html_fields,  # noqa: PLC0415
                               html_note, html_table)

        p = self.num_parts
        owned = [int(v) for v in self.plan.sizes()]
        sizes, why = self._shard_sizes()
        arcs = [a for _, a, _ in sizes] if sizes else None
        total = sum(arcs) if arcs else (self.num_arcs or 0)
        workers = self.workers or ["(this process)"] * p
        rows = []
        for q in range(p):
            a = arcs[q] if arcs else None
            rows.append([q, workers[q], owned[q], a if a is not None else "?", fmt_share(a, total),
                         fmt_bytes(sizes[q][2]) if sizes else "?"])
        table = html_table(["part", "worker", "vertices owned", "edges", "share of edges", "shard size"], rows,
                           align=["r", "l", "r", "r", "r", "r"])

        def ratio(values):
            mean = sum(values) / len(values) if values else 0
            return f"{max(values) / mean:.3f} (max {fmt_int(max(values))} / mean {fmt_num(mean, 4)})" \
                if mean > 0 else "1.000"

        where = (f"{len(set(self.workers))} workers, distributed" if self.workers else "this process (client=False)")
        fields = [("vertices", fmt_int(self.num_vertices)), ("partitions", f"{p} ({self.plan.method})"),
                  ("shards in", where), ("directed", self.directed), ("weighted", self.weighted),
                  ("backend", self.backend)]
        if self.num_arcs is not None:
            fields.append(("arcs stored", fmt_int(self.num_arcs)))
        if arcs:
            fields.append(("edge balance", ratio(arcs)))
        fields.append(("vertex balance", ratio(owned)))
        notes = []
        if not self.directed:
            notes.append("edges: out-arcs held by each shard (an undirected edge is stored in both directions)")
        if why:
            notes.append(f"shard edge counts unavailable: {why}")
        subtitle = repr(self.name) if self.name else ""
        return html_block("dgraph.PartitionedGraph", subtitle, html_fields(fields), table,
                          *(html_note(t) for t in notes))

    def __repr__(self):
        where = f"on {len(set(self.workers))} workers" if self.workers else "in this process"
        nm = f"{self.name!r}, " if self.name else ""
        return (f"<dgraph.PartitionedGraph {nm}{self.num_vertices:,} vertices, {self.num_parts} partitions "
                f"({self.plan.method}) {where}, {self.backend}>")


def _shard_size_task(shard):
    """``(owned rows, out-arcs, bytes)`` of a shard, computed where it lives."""
    return shard.num_rows, shard.num_arcs, shard.nbytes()


def _to_backend_task(shard, backend):
    return shard.to(backend)


def partition_graph(G, num_parts, method="range", *, client=None, backend=None, seed=0, plan=None):
    """Split ``G`` into ``num_parts`` shards (see :meth:`dgraph.Graph.partition`)."""
    from ..cluster import current_client  # noqa: PLC0415
    from . import partition_plan  # noqa: PLC0415

    if plan is None:
        plan = partition_plan(G, num_parts, method=method, seed=seed)
    else:
        if isinstance(plan, (str, bytes)) or hasattr(plan, "__fspath__"):
            plan = PartitionPlan.load(plan)
        plan.check(G)
        if num_parts not in (None, plan.num_parts):
            raise InputError(f"num_parts={num_parts} but the plan has {plan.num_parts} partitions")
    backend = backend or G.backend
    if client is None:
        client = current_client()
    elif client is False:
        client = None
    host = G.to("numpy") if client is not None else G.to(backend)
    shards = [shard_from_graph(host, plan, q) for q in range(plan.num_parts)]
    common = dict(plan=plan, ids=G.ids, directed=G.directed, weighted=G.weighted, backend=backend,
                  name=G.name, num_arcs=G.num_arcs)
    if not client:
        return PartitionedGraph(shards=shards, **common)
    from ..cluster.workers import RECONNECT_WAIT_S, worker_addresses  # noqa: PLC0415

    workers = worker_addresses(client, wait=RECONNECT_WAIT_S)
    if not workers:
        raise InputError("the Dask cluster has no workers; start some or connect to another scheduler")
    placed = [workers[q % len(workers)] for q in range(plan.num_parts)]
    futures = [_place(client, shard, placed[q], backend, q) for q, shard in enumerate(shards)]
    return PartitionedGraph(shards=futures, workers=placed, client=client,
                            rebuild=lambda q, w: _place(client, shard_from_graph(host, plan, q), w, backend, q),
                            **common)


def _place(client, shard, worker, backend, q):
    """Put a shard on a worker (on its GPU when backend='cupy'): a future pinned there."""
    [fut] = client.scatter([shard], workers=[worker], broadcast=False, hash=False)
    if backend != "numpy":
        fut = client.submit(_to_backend_task, fut, backend, workers=[worker], pure=False,
                            key=f"dgraph-shard-{backend}-p{q}-{uuid.uuid4().hex[:8]}")
    return fut


__all__ = ["PartitionedGraph", "partition_graph"]
