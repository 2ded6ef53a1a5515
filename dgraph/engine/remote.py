"""Results of a distributed run that stay on the workers until asked for.

A run on a Dask cluster leaves each shard's result on its worker (shard 0's
alone for an algorithm whose every shard ends with the whole answer).
:class:`RemoteColumns` knows where they are: ``fetch()`` brings the columns
to the client (``Result.to_pandas``), ``frames()`` makes one DataFrame per
partition *on the worker that holds it* (``Result.to_dask``; cuDF when the
result is on GPUs and cuDF is installed), so a large result can be written
(one Parquet file per partition, by the workers) without passing through the
client.
"""

from __future__ import annotations

import numpy as np

from ..backend import to_numpy


class RemoteColumns:
    def __init__(self, client, futures, *, replicated, plan, workers, ids, vertex_columns=(), on_lost=None,
                 backend=None):
        """``futures()`` -> futures of each part's ``{column: array}`` (part 0 alone when ``replicated``);
        ``on_lost()`` is called when a worker holding one is gone (the graph then rebuilds its shards)."""
        self.client = client
        self.on_lost = on_lost
        self._make = futures
        self._futures = None
        self._names = None
        self.replicated = replicated
        self.plan = plan
        self.workers = workers
        self.ids = ids
        self.vertex_columns = tuple(vertex_columns)
        self.backend = backend  # 'cupy': fetch() tries CUDA IPC first (engine/ipc.py)
        self.tallies = None  # the program's counts about the parts (Program.tally), where the run sent them

    def futures(self):
        if self._futures is None:
            self._futures = list(self._make())
        return self._futures

    def names(self):
        """The result's column names, read where the result is (nothing else moves)."""
        if self._names is None:
            self._names = self.client.submit(list, self.futures()[0], pure=False).result()
        return list(self._names)

    def fetch(self):
        """The columns on the client, in internal vertex order (the futures are let go after)."""
        from ..errors import WorkerLostError  # noqa: PLC0415
        from . import ipc  # noqa: PLC0415
        from .faults import gather_or_lost, wait_or_lost  # noqa: PLC0415

        futures = self.futures()
        where = self.workers[:len(futures)]
        try:
            got = ipc.fetch(self.client, futures, where) if self.backend == "cupy" else None
            if got is None:
                wait_or_lost(self.client, futures, where, "the reading of a result")
                got = gather_or_lost(self.client, futures, where, "the reading of a result")
        except WorkerLostError:
            if self.on_lost is not None:
                self.on_lost()
            raise
        self._futures = None
        if self.replicated:
            return got[0]
        return assemble(self.plan, got)

    def frames(self, backend):
        """Futures of one DataFrame per partition: ``vertex`` (user ids) and the columns, each made on
        the worker that holds the values."""
        futs = self.futures()
        p = self.plan.num_parts
        labels = None if self.ids.identity else self.ids.labels
        if labels is not None:
            [labels] = self.client.scatter([labels], broadcast=True, hash=False)
        out = []
        for q in range(p):
            src = futs[0] if self.replicated else futs[q]
            where = self.workers[0] if self.replicated else self.workers[q]
            owned = (int(self.plan.bounds[q]), int(self.plan.bounds[q + 1])) if self.plan.contiguous \
                else self.plan.vertices_of(q)
            out.append(self.client.submit(_frame_part, src, owned, self.replicated, labels, self.vertex_columns,
                                          backend, workers=[where], pure=False))
        return out

    def dask_frame(self, backend):
        """The partitions of :meth:`frames` as one dask DataFrame (its columns' types read from the
        first partition, an empty frame brought to the client)."""
        import dask.dataframe as dd  # noqa: PLC0415

        parts = self.frames(backend)
        meta = self.client.submit(_empty, parts[0], pure=False).result()
        return dd.from_delayed(parts, meta=meta, verify_meta=False)


def assemble(plan, results):
    """Per-shard owned columns -> global columns in vertex order, on the backend the parts are on
    (CuPy parts: the client's GPU, as ``Result.raw`` promises)."""
    from ..backend import array_module  # noqa: PLC0415

    out = {}
    for name in results[0]:
        xp = array_module(*[res[name] for res in results])
        col = xp.empty(plan.num_vertices, dtype=results[0][name].dtype)
        for q, res in enumerate(results):
            # a vertex range is a slice: one copy (an index array was made on the host, sent to the
            # device and scattered: 95-189 ms of a 2-GPU rmat25 result's read on H200)
            at = slice(int(plan.bounds[q]), int(plan.bounds[q + 1])) if plan.contiguous \
                else xp.asarray(plan.vertices_of(q))
            col[at] = xp.asarray(res[name])
        out[name] = col
    return out


def _frame_part(columns, owned, replicated, labels, vertex_columns, backend):
    """Partition ``owned`` (a ``(lo, hi)`` range or an id array) of a result as a DataFrame."""
    from .result import to_user_ids  # noqa: PLC0415

    first = next(iter(columns.values()))
    xp = np if isinstance(first, np.ndarray) else __import__("cupy")
    if isinstance(owned, tuple):
        vertices = xp.arange(owned[0], owned[1], dtype=np.int64)
        pick = slice(owned[0], owned[1])
    else:
        vertices = xp.asarray(owned).astype(np.int64)
        pick = vertices
    data = {}
    for name, values in columns.items():
        values = values[pick] if replicated else values
        if name in vertex_columns and labels is not None:
            values = to_user_ids(values, labels)
        data[name] = values
    vertex = vertices if labels is None else xp.asarray(labels)[vertices] if labels.dtype.kind in "iu" \
        else labels[to_numpy(vertices)]
    data = {"vertex": vertex, **data}
    if xp is not np and backend == "cupy":
        try:
            import cudf  # noqa: PLC0415

            return cudf.DataFrame({k: v for k, v in data.items()})
        except ImportError:
            pass
    import pandas as pd  # noqa: PLC0415

    return pd.DataFrame({k: to_numpy(v) for k, v in data.items()})


def _empty(frame):
    return frame.iloc[:0]
