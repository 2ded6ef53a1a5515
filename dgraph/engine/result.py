"""Per-vertex results of an algorithm, in the user's vertex ids, with per-superstep stats."""

from __future__ import annotations

import numpy as np

from ..backend import is_device_array, to_numpy
from ..errors import InputError
from .records import Records


def to_user_ids(values, labels):
    """Internal vertex ids -> the user's ids (numpy): -1 where there is none (None for names)."""
    host = to_numpy(values)
    found = host >= 0
    if labels.dtype.kind in "iu":
        out = np.full(len(host), -1, dtype=np.int64)
    else:
        out = np.full(len(host), None, dtype=object)
    out[found] = labels[host[found]]
    return out


class Result:
    """What an algorithm returns.

    ``result.<column>`` (e.g. ``r.depth``) is an array aligned with
    ``result.vertex`` (the user's ids, internal order).  For a graph whose ids
    are 0..n-1, ``r.depth[v]`` is the value of vertex ``v``.  Columns holding
    vertices (e.g. ``parent``) are given in the user's ids too; a missing
    value is ``missing[column]`` (-1 for depth/parent; None for string ids).
    ``r.stats`` is a pandas DataFrame with one row per superstep: ``superstep``,
    ``time_s`` (its wall time), the algorithm's report (e.g. BFS: ``direction``,
    ``frontier``, ``edges``, ``frontier_edges``; SSSP: ``frontier``, ``far``,
    ``bound``, ``improved``, ``edges``; PageRank: ``delta``; WCC: ``hooks``,
    ``edges``, ``components``; CDLP: ``changed``; core_number: ``k``, ``frontier``,
    ``left``, ``edges``) and, partitioned,
    ``bytes_exchanged`` (and ``transport`` for spmd).
    ``r.run_time`` is the algorithm's time in seconds, start-up left out.
    ``r.params`` holds the call's parameters and, under ``"config"``, the
    :mod:`dgraph.config` options that differed from their defaults during the
    run (``{}`` when none did).
    ``r.phases`` says where other time went, in seconds: ``startup_s`` (every
    run: importing numba and loading or compiling the kernels the call ran, a
    new process's one-time cost; on spmd runs the slowest worker's), and for
    spmd runs how ``run_time`` splits: ``submit_s`` (before the tasks are
    submitted), ``init_s`` (the program's set-up on the workers), ``loop_s``
    (the supersteps), ``final_s`` (the final exchange and the results; on GPUs
    until the devices have made them: a run is done when its results are) and
    ``launch_s`` (the rest: Dask starting the tasks and reporting their end);
    SSSP on Dask may add ``check_s`` (its parents checked by a task on every worker after the
    run, where the shards' own counts did not all reach the client);
    the worker phases are the slowest worker's.  A direct spmd run under
    ``dgraph.config.profile_supersteps`` also splits the launch (the host's
    clock, so only with the client on the workers' host): ``launch_request_s``
    (the call reaching the last worker), ``launch_dispatch_s`` (unpacking the
    job and handing it to the loop's thread), ``launch_return_s`` (from the
    loop's end to the reply) and ``launch_reply_s`` (the last reply reaching
    the client), and ``kernel_s_Q`` for every shard Q: its own time in its
    supersteps' kernels (``kernel_s`` of the records is shard 0's alone), so
    the shards' load balance shows.
    """

    def __init__(self, algorithm, ids, columns, *, vertex_columns=(), missing=None,
                 stats=None, params=None, backend="numpy", run_time=None, phases=None, remote=None):
        self.algorithm = algorithm
        self.ids = ids
        # a callable is a deferred fetch (e.g. from Dask workers), resolved on first use
        self._fetch = columns if callable(columns) else None
        self._cols = None if callable(columns) else dict(columns)
        self.vertex_columns = tuple(vertex_columns)
        self.missing = dict(missing or {})
        # the rows, as dicts; a Records from the executor keeps a batch's columns until they are read
        self._stats = stats if isinstance(stats, Records) else Records(stats or [])
        self.params = dict(params or {})
        self.backend = backend
        self.run_time = run_time
        self.phases = dict(phases or {})
        self._remote = remote  # RemoteColumns: where a distributed run left its results (until fetched)

    # -- columns -------------------------------------------------------------------
    @property
    def _columns(self):
        if self._cols is None:
            self._cols = dict(self._fetch())
            self._fetch = None
            self._remote = None
        return self._cols

    @property
    def on_workers(self) -> bool:
        """Whether the result is still on the Dask workers that computed it (not read yet)."""
        return self._remote is not None and self._cols is None

    def amend(self, fn):
        """Have ``fn(columns) -> columns`` applied to the columns once they are resolved (now, or at
        the deferred fetch): for an algorithm that checks its answer and may finish it with a second
        run (whose records ``fn`` takes in with :meth:`absorb`)."""
        if self._fetch is None:
            self._cols = dict(fn(self._cols))
        else:
            fetch = self._fetch
            self._fetch = lambda: fn(dict(fetch()))
        self._remote = None  # the columns on the workers are not the answer until fn has seen them

    def absorb(self, other, phase):
        """Take a second run's supersteps into this result's stats (numbered on from these, marked
        ``phase``) and its time into ``run_time``; returns its columns."""
        first = len(self._stats)
        self._stats.extend(dict(rec, superstep=first + i, phase=phase) for i, rec in enumerate(other.stats_records))
        if self.run_time is not None and other.run_time is not None:
            self.run_time += other.run_time
        return other._columns

    @property
    def columns(self):
        if self.on_workers:  # without bringing the columns to the client
            return self._remote.names()
        return list(self._columns)

    @property
    def vertex(self):
        """The user's vertex ids, in the order of every column (numpy)."""
        return self.ids.user_array()

    def raw(self, name):
        """A column in internal vertex numbering, on the backend it was computed on."""
        try:
            return self._columns[name]
        except KeyError:
            raise InputError(f"result of {self.algorithm} has no column {name!r}; columns: {self.columns}") from None

    def column(self, name):
        """A column with vertex-valued entries mapped to the user's ids."""
        values = self.raw(name)
        if name not in self.vertex_columns or self.ids.identity:
            return values
        return to_user_ids(values, self.ids.labels)

    def __getattr__(self, name):
        if name.startswith("_") or name in ("algorithm", "ids", "vertex_columns", "missing", "params"):
            raise AttributeError(name)
        if name in self._columns:
            return self.column(name)
        raise AttributeError(f"{type(self).__name__} of {self.algorithm} has no attribute {name!r}")

    def __getitem__(self, name):
        return self.column(name)

    def value(self, vertex, name):
        """The value of one column for one user vertex id."""
        i = self.ids.to_internal(vertex)
        v = self.column(name)[i]
        return v.item() if hasattr(v, "item") else v

    def to_numpy(self):
        """``{column: numpy array}`` with a leading 'vertex' column."""
        out = {"vertex": self.vertex}
        for name in self._columns:
            out[name] = to_numpy(self.column(name))
        return out

    def to_pandas(self):
        """The result as a pandas DataFrame: ``vertex`` (user ids) and every column.

        Columns computed on a GPU come to the host as new arrays, which the frame takes without
        copying them again (on an H200, the copy into pandas' blocks was half of a 2^25-vertex SSSP
        result's ``to_pandas()``); a numpy result's columns are copied, so the frame never shares
        memory with the result or the graph's ids."""
        import pandas as pd  # noqa: PLC0415

        # every array of to_numpy() made for this call: the vertex range, and host copies of device columns
        fresh = self.ids.labels is None and all(is_device_array(self.raw(c)) for c in self._columns)
        return pd.DataFrame(self.to_numpy(), copy=not fresh)

    # -- stats -----------------------------------------------------------------------
    @property
    def stats(self):
        """Per-superstep statistics as a pandas DataFrame."""
        import pandas as pd  # noqa: PLC0415

        return pd.DataFrame(list(self._stats))

    @property
    def stats_records(self):
        return list(self._stats)

    @property
    def supersteps(self) -> int:
        return len(self._stats)

    @property
    def edges_touched(self) -> int:
        return int(sum(s.get("edges", 0) for s in self._stats))

    def __repr__(self):
        t = f", {self.run_time * 1e3:.2f} ms" if self.run_time is not None else ""
        from ..display import plural  # noqa: PLC0415

        return (f"<dgraph.Result {self.algorithm}: {plural(len(self.vertex), 'vertex', 'vertices')}, "
                f"columns {self.columns}, {plural(self.supersteps, 'superstep')}{t}, {self.backend}>")

    # -- notebook display, plots and other data frames ------------------------------------
    def _title(self) -> str:
        """One line naming the run: algorithm, its main parameters, size, supersteps and time."""
        from ..display import fmt_seconds, plural  # noqa: PLC0415

        shown = {k: v for k, v in self.params.items()
                 if k in ("source", "sources", "direction", "damping", "iterations", "variant") and v is not None}
        args = ", ".join(f"{k}={v!r}" if isinstance(v, str) else f"{k}={v}" for k, v in shown.items())
        head = f"{self.algorithm}({args})" if args else self.algorithm
        where = ""
        if "partitions" in self.params:
            where = f", {plural(self.params['partitions'], 'partition')}"
            if self.params.get("executor"):
                where += f" ({self.params['executor']})"
        t = f" in {fmt_seconds(self.run_time)}" if self.run_time is not None else ""
        return (f"{head}: {plural(self.ids.n, 'vertex', 'vertices')}, {plural(self.supersteps, 'superstep')}{t}"
                f"{where}, {self.backend}")

    def plot(self, title=None):
        """A matplotlib Figure of the supersteps: frontier size (and edges touched) and time per superstep.

        See :func:`dgraph.plots.superstep_figure`; ``fig.savefig(path)`` writes it.
        """
        from ..plots import superstep_figure  # noqa: PLC0415

        return superstep_figure(self.stats, title or self._title(), self.phases.get("startup_s"))

    def _head(self, k):
        """The first ``k`` rows: ``(vertex ids, {column: numpy values in user ids})``, copying only them."""
        k = min(int(k), self.ids.n)
        ids = self.vertex[:k]
        out = {}
        for name in self.columns:
            host = to_numpy(self.raw(name)[:k])
            if name in self.vertex_columns and not self.ids.identity:
                host = to_user_ids(host, self.ids.labels)
            out[name] = host
        return ids, out

    def _repr_html_(self, rows=5):
        from ..display import (fmt_int, fmt_seconds, html_block, html_fields, html_note,  # noqa: PLC0415
                               html_table)

        fields = [("algorithm", self.algorithm), ("backend", self.backend)]
        if "executor" in self.params:
            fields.append(("executor", self.params["executor"]))
        if "partitions" in self.params:
            fields.append(("partitions", self.params["partitions"]))
        other = {k: v for k, v in self.params.items()
                 if k not in ("executor", "partitions") and not (k == "config" and not v)}
        if other:
            fields.append(("parameters", ", ".join(f"{k}={v!r}" if isinstance(v, str) else f"{k}={v}"
                                                   for k, v in other.items())))
        fields.append(("vertices", fmt_int(self.ids.n)))
        fields.append(("run time", fmt_seconds(self.run_time)))
        if self.phases:
            fields.append(("phases", ", ".join(f"{k.removesuffix('_s')} {fmt_seconds(v)}"
                                               for k, v in self.phases.items())))
        fields.append(("supersteps", fmt_int(self.supersteps)))
        if any("edges" in s for s in self._stats):
            fields.append(("edges touched", fmt_int(self.edges_touched)))

        ids, head = self._head(rows)
        names = list(head)
        table = html_table(["vertex", *names], [[ids[i], *(head[c][i] for c in names)] for i in range(len(ids))])
        more = self.ids.n - len(ids)
        shown = html_note(f"first {len(ids)} of {self.ids.n:,} rows" if more > 0 else f"{len(ids)} rows")

        steps = ""
        if self._stats:
            times = [s.get("time_s") for s in self._stats]
            total = sum(t for t in times if t is not None)
            key = next((c for c in ("phase", "direction") if any(c in s for s in self._stats)), None)
            summary = [["all", self.supersteps, fmt_seconds(total)]]
            if key is not None:
                groups = {}
                for s in self._stats:
                    g = groups.setdefault(str(s.get(key, "–")), [0, 0.0])
                    g[0] += 1
                    g[1] += s.get("time_s") or 0.0
                if len(groups) > 1 or key == "phase":
                    summary += [[f"{key} {name}", n, fmt_seconds(t)] for name, n, t in
                                ((name, g[0], g[1]) for name, g in groups.items())]
            steps = html_table(["supersteps", "count", "total time"], summary, align=["l", "r", "r"])
        return html_block("dgraph.Result", self.algorithm, html_fields(fields), table, shown, steps)

    def to_dask(self, npartitions=None):
        """The result as a dask DataFrame: columns ``vertex`` and one per output.

        A result of a run on a Dask cluster that has not been read yet is made where it is: one
        partition per graph partition, each built on the worker holding its values (cuDF
        partitions when the run was on GPUs and cuDF is installed), never passing through the
        client.  Otherwise (or with ``npartitions``) it is cut from :meth:`to_pandas`;
        ``npartitions`` defaults to the run's partition count, or 1.

        Examples
        --------
        >>> r = dgraph.bfs(PG, source=0)                                  # doctest: +SKIP
        >>> r.to_dask().to_parquet("bfs/")   # one file per partition, written by the workers  # doctest: +SKIP
        """
        import dask.dataframe as dd  # noqa: PLC0415

        if self._remote is not None and self._cols is None and npartitions is None:
            return self._remote.dask_frame(self.backend)
        df = self.to_pandas()
        if npartitions is None:
            npartitions = int(self.params.get("partitions", 1) or 1)
        npartitions = max(1, min(int(npartitions), max(len(df), 1)))
        return dd.from_pandas(df, npartitions=npartitions)

    def to_cudf(self):
        """The columns as a cudf DataFrame (GPU columns stay on the GPU); needs RAPIDS cuDF."""
        from ..errors import BackendError  # noqa: PLC0415

        try:
            import cudf  # noqa: PLC0415
        except ImportError as exc:
            raise BackendError(
                f"Result.to_cudf: cudf is not installed ({exc}); install RAPIDS cuDF for your CUDA version, "
                "e.g. `pip install cudf-cu13 --extra-index-url=https://pypi.nvidia.com` (cudf-cu12 for CUDA 12), "
                "or use Result.to_pandas()") from None
        except Exception as exc:  # installed but unusable (no GPU, driver mismatch)
            raise BackendError(f"Result.to_cudf: cudf is installed but could not be imported: {exc}") from None
        import pandas as pd  # noqa: PLC0415

        data = {"vertex": self.vertex}
        for name in self.columns:
            data[name] = self.column(name)
        data = {k: pd.Series(v) if isinstance(v, np.ndarray) and v.dtype.kind in "OUS" else v
                for k, v in data.items()}
        return cudf.DataFrame(data)
