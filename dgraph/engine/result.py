"""Per-vertex results of an algorithm, in the user's vertex ids, with per-superstep stats."""

from __future__ import annotations

import numpy as np

from ..backend import to_numpy
from ..errors import InputError


class Result:
    """What an algorithm returns.

    ``result.<column>`` (e.g. ``r.depth``) is an array aligned with
    ``result.vertex`` (the user's ids, internal order).  For a graph whose ids
    are 0..n-1, ``r.depth[v]`` is the value of vertex ``v``.  Columns holding
    vertices (e.g. ``parent``) are given in the user's ids too; a missing
    value is ``missing[column]`` (-1 for depth/parent; None for string ids).
    ``r.stats`` is a pandas DataFrame with one row per superstep.
    ``r.phases`` (spmd runs) splits ``run_time`` in seconds: ``submit_s``
    (before the tasks are submitted), ``init_s`` (the program's set-up on the
    workers), ``loop_s`` (the supersteps), ``final_s`` (the final exchange and
    the results) and ``launch_s`` (the rest: Dask starting the tasks and
    reporting their end); the worker phases are the slowest worker's.
    """

    def __init__(self, algorithm, ids, columns, *, vertex_columns=(), missing=None,
                 stats=None, params=None, backend="numpy", run_time=None, phases=None):
        self.algorithm = algorithm
        self.ids = ids
        # a callable is a deferred fetch (e.g. from Dask workers), resolved on first use
        self._fetch = columns if callable(columns) else None
        self._cols = None if callable(columns) else dict(columns)
        self.vertex_columns = tuple(vertex_columns)
        self.missing = dict(missing or {})
        self._stats = list(stats or [])
        self.params = dict(params or {})
        self.backend = backend
        self.run_time = run_time
        self.phases = dict(phases or {})

    # -- columns -------------------------------------------------------------------
    @property
    def _columns(self):
        if self._cols is None:
            self._cols = dict(self._fetch())
            self._fetch = None
        return self._cols

    @property
    def columns(self):
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
        host = to_numpy(values)
        found = host >= 0
        labels = self.ids.labels
        if labels.dtype.kind in "iu":
            out = np.full(len(host), -1, dtype=np.int64)
        else:
            out = np.full(len(host), None, dtype=object)
        out[found] = labels[host[found]]
        return out

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
        import pandas as pd  # noqa: PLC0415

        return pd.DataFrame(self.to_numpy())

    # -- stats -----------------------------------------------------------------------
    @property
    def stats(self):
        """Per-superstep statistics as a pandas DataFrame."""
        import pandas as pd  # noqa: PLC0415

        return pd.DataFrame(self._stats)

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
        return (f"<dgraph.Result {self.algorithm}: {len(self.vertex):,} vertices, "
                f"columns {self.columns}, {self.supersteps} supersteps{t}, {self.backend}>")
