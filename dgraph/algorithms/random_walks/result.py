"""The Result of :func:`dgraph.random_walks`: one row per walk, not one per vertex.

A :class:`WalkResult` is a :class:`dgraph.Result` (stats, ``run_time``, ``params``, ``phases``,
``plot()``) whose answer is a 2-d array: ``r.paths[i, k]`` is the vertex walk ``i`` stands on
after ``k`` steps (``r.paths[i, 0]`` its start), in the user's ids, with the "missing" value past a
dead end (-1 for integer ids, None for names).  As a table (``to_pandas()``, ``dgraph.write``) a
walk is a row: ``vertex`` (its start) then ``step1`` ... ``step<length>``.
"""

from __future__ import annotations

import numpy as np

from ...backend import to_numpy
from ...engine.result import Result, to_user_ids

#: bytes of ``to_lists()``: a list entry and its int object (36 on CPython, rounded up), and a list
LIST_BYTES_PER_VERTEX = 40
LIST_BYTES_PER_WALK = 64
#: host bytes a column of the walk table costs beside its values (its name, pandas' per-column index)
TABLE_BYTES_PER_COLUMN = 512


class WalkResult(Result):
    """What :func:`dgraph.random_walks` returns (see the module docstring).

    ``r.paths``: the walks in the user's ids (numpy, ``len(starts) x (length + 1)``);
    ``r.raw("paths")``: the same in internal ids, on the backend that computed them;
    ``r.to_lists()``: each walk as a list, cut at its dead end (what word2vec trainers take);
    ``r.length``: the walk length asked for.
    """

    def __init__(self, result, length):
        self.__dict__.update(result.__dict__)
        self.length = int(length)
        self._user_paths = None

    # -- the walks ----------------------------------------------------------------------------
    @property
    def on_workers(self) -> bool:
        return False  # written and shown from the client's copy (a walk table is not cut by partition)

    @property
    def paths(self):
        """The walks in the user's ids: int64 with -1 past a dead end (object with None for names)."""
        if self._user_paths is None:
            internal = to_numpy(self.raw("paths"))
            if self.ids.identity:
                self._user_paths = internal
            else:
                self._user_paths = to_user_ids(internal.ravel(), self.ids.labels).reshape(internal.shape)
        return self._user_paths

    @property
    def num_walks(self) -> int:
        return int(self.raw("paths").shape[0])

    @property
    def columns(self):
        """The table's columns after ``vertex`` (the start): ``step1`` ... ``step<length>``."""
        self._check_table()
        return [f"step{k}" for k in range(1, self.length + 1)]

    def _check_table(self):
        """The walk table (a column a step) must fit: refused before it is made, with its size."""
        from ...backend.device_memory import require_host  # noqa: PLC0415
        from ...display import plural  # noqa: PLC0415

        cells = self.num_walks * (self.length + 1)
        require_host(16 * cells + TABLE_BYTES_PER_COLUMN * (self.length + 1),
                     f"the table of {plural(self.num_walks, 'walk')} of length {self.length:,} (a column a step)",
                     advice="read r.paths (one array) or r.to_lists() instead of a table")

    def column(self, name):
        """``paths`` (all of them), or one step: ``step<k>`` (``vertex`` or ``step0``: the starts)."""
        if name == "paths":
            return self.paths
        k = 0 if name == "vertex" else _step_number(name)
        if k is None or k > self.length:
            from ...errors import InputError  # noqa: PLC0415

            raise InputError(f"result of random_walks has no column {name!r}; columns: vertex, paths, "
                             f"step1..step{self.length}")
        return self.paths[:, k]

    @property
    def vertex(self):
        """The walks' starts, in the user's ids (the ``vertex`` column of the table)."""
        return self.paths[:, 0]

    def value(self, vertex, name):
        """Not per vertex: a walk result is read by walk (``r.paths[i, k]``, ``r.to_lists()[i]``)."""
        from ...errors import InputError  # noqa: PLC0415

        raise InputError("random_walks answers per walk, not per vertex: read r.paths[i, k] (walk i after k steps) "
                         "or r.to_lists()[i]")

    def to_numpy(self):
        """``{"vertex": starts, "step1": ..., ...}``: one entry per walk in each."""
        self._check_table()
        paths = self.paths
        out = {"vertex": paths[:, 0]}
        for k in range(1, self.length + 1):
            out[f"step{k}"] = paths[:, k]
        return out

    def to_lists(self):
        """Each walk as a list of user ids, ending where it stopped (its dead end, or ``length``); refused
        with its size (GraphTooLargeError) before it is made when the lists would not fit in memory."""
        from ...backend.device_memory import require_host  # noqa: PLC0415
        from ...display import plural  # noqa: PLC0415

        internal = to_numpy(self.raw("paths"))
        ends = (internal >= 0).sum(axis=1)  # a walk's -1s are all at its end
        require_host(LIST_BYTES_PER_VERTEX * int(ends.sum()) + LIST_BYTES_PER_WALK * len(ends),
                     f"r.to_lists() of {plural(len(ends), 'walk')} of length {self.length:,} (Python lists)",
                     advice="read r.paths (one int64 array, 8 bytes a vertex) instead")
        paths = self.paths
        return [paths[i, :ends[i]].tolist() for i in range(len(paths))]

    def to_dask(self, npartitions=None):
        """The walk table as a dask DataFrame (cut from :meth:`to_pandas`)."""
        import dask.dataframe as dd  # noqa: PLC0415

        df = self.to_pandas()
        npartitions = max(1, min(int(npartitions or self.params.get("partitions", 1) or 1), max(len(df), 1)))
        return dd.from_pandas(df, npartitions=npartitions)

    def to_cudf(self):
        import pandas as pd  # noqa: PLC0415

        try:
            import cudf  # noqa: PLC0415
        except ImportError as exc:
            from ...errors import BackendError  # noqa: PLC0415

            raise BackendError(f"Result.to_cudf: cudf is not installed ({exc}); use Result.to_pandas()") from None
        return cudf.DataFrame.from_pandas(pd.DataFrame(self.to_numpy()))

    # -- display ---------------------------------------------------------------------------------
    def __repr__(self):
        from ...display import plural  # noqa: PLC0415

        t = f", {self.run_time * 1e3:.2f} ms" if self.run_time is not None else ""
        return (f"<dgraph.Result random_walks: {plural(self.num_walks, 'walk')} of length {self.length}, "
                f"{plural(self.supersteps, 'superstep')}{t}, {self.backend}>")

    def _title(self) -> str:
        from ...display import fmt_seconds, plural  # noqa: PLC0415

        t = f" in {fmt_seconds(self.run_time)}" if self.run_time is not None else ""
        return (f"random_walks({plural(self.num_walks, 'walk')}, length={self.length}): "
                f"{plural(self.supersteps, 'superstep')}{t}, {self.backend}")

    def _repr_html_(self, rows=5, shown=12):
        from ...display import fmt_int, fmt_seconds, html_block, html_fields, html_note, html_table  # noqa: PLC0415

        fields = [("algorithm", self.algorithm), ("backend", self.backend)]
        for key in ("executor", "partitions"):
            if key in self.params:
                fields.append((key, self.params[key]))
        other = {k: v for k, v in self.params.items()
                 if k not in ("executor", "partitions") and not (k == "config" and not v)}
        fields.append(("parameters", ", ".join(f"{k}={v!r}" if isinstance(v, str) else f"{k}={v}"
                                               for k, v in other.items())))
        internal = to_numpy(self.raw("paths"))
        W = len(internal)
        steps = (internal >= 0).sum(axis=1) - 1 if W else np.zeros(0, dtype=np.int64)
        fields.append(("walks", fmt_int(W)))
        fields.append(("length", fmt_int(self.length)))
        if W:
            fields.append(("stopped at a dead end", fmt_int(int((steps < self.length).sum()))))
            fields.append(("mean steps taken", f"{steps.mean():.4g}"))
        fields.append(("run time", fmt_seconds(self.run_time)))
        fields.append(("supersteps", fmt_int(self.supersteps)))
        k = min(rows, W)
        paths = self.paths[:k] if k else []
        body = []
        for i in range(k):
            vertices = [str(x) for x in paths[i, :min(steps[i] + 1, shown)]]
            text = " → ".join(vertices)
            if steps[i] + 1 > shown:
                text += f" → … ({steps[i]} steps)"
            elif steps[i] < self.length:
                text += " (dead end)"
            body.append([i, text])
        table = html_table(["walk", "path"], body, align=["r", "l"])
        note = html_note(f"first {k} of {W:,} walks" if W > k else f"{W} walks")
        return html_block("dgraph.Result", "random_walks", html_fields(fields), table, note)


def _step_number(name):
    if isinstance(name, str) and name.startswith("step") and name[4:].isdigit():
        return int(name[4:])
    return None


__all__ = ["WalkResult"]
