"""Superstep records (the rows of ``Result.stats``), kept as columns where a program gave them so.

A one-shard ``Program.run_steps`` call may run thousands of supersteps (BFS's CPU level loop: 2,000
on a 1000x1000 grid, in about 9 ms).  Made into a dict each as they ran, their records cost the run
more than a millisecond; returned as a :class:`StepBatch` (one array a report key), the ``local``
executor keeps them as columns in :class:`Records`, and each row's dict is made only when someone
reads the rows (``Result.stats``, ``Result.stats_records``), all of them at once.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence

import numpy as np


class StepBatch(Sequence):
    """The supersteps one ``Program.run_steps`` call ran, as columns.

    ``columns``: ``{report key: one-dimensional integer or float array}``, one entry a superstep, in
    the order a report's keys go; ``labels``: ``{key: names}`` for a column of codes whose report
    value is ``names[code]`` (BFS's direction); ``seconds``: each superstep's time.  It is also the
    list of ``(report, seconds)`` pairs that ``run_steps`` otherwise returns (``batch[i]``), made a
    pair at a time: the slow path, for an executor that wants them one by one.
    """

    def __init__(self, columns, seconds, labels=None):
        self.columns = dict(columns)
        self.seconds = np.asarray(seconds, dtype=np.float64)
        self.labels = dict(labels or {})

    def __len__(self):
        return len(self.seconds)

    def report(self, i):
        """Superstep ``i``'s report, as the program's superstep would have made it."""
        out = {}
        for key, col in self.columns.items():
            value = col[i].item()
            out[key] = self.labels[key][value] if key in self.labels else value
        return out

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        return self.report(i), float(self.seconds[i])

    def reports(self):
        """Every superstep's report dict, in order (Python numbers and strings, as :meth:`report`)."""
        keys = list(self.columns)
        values = []
        for key in keys:
            col = self.columns[key].tolist()
            if key in self.labels:
                names = self.labels[key]
                col = [names[c] for c in col]
            values.append(col)
        return [dict(zip(keys, row)) for row in zip(*values)]


class _Block:
    """Supersteps ``first``, ``first + 1``, ... of a :class:`StepBatch`, their times ``time_s``; the
    row dicts made on first read and kept (so a row read twice is the same dict)."""

    __slots__ = ("first", "batch", "time_s", "_rows")

    def __init__(self, first, batch, time_s):
        self.first, self.batch = int(first), batch
        self.time_s = np.asarray(time_s, dtype=np.float64)
        self._rows = None

    def __len__(self):
        return len(self.time_s)

    def rows(self):
        if self._rows is None:
            times = self.time_s.tolist()
            self._rows = [{"superstep": self.first + i, **report, "time_s": t}
                          for i, (report, t) in enumerate(zip(self.batch.reports(), times))]
        return self._rows


class Records(Sequence):
    """The supersteps' records of a run, in order: a sequence of dicts (what ``Result`` keeps).

    Rows come one at a time (:meth:`append`, :meth:`extend`) or a :class:`StepBatch` at a time
    (:meth:`add_batch`), whose dicts are made only when a row is read.
    """

    def __init__(self, rows=()):
        self._parts = []   # lists of dicts and _Blocks, in superstep order
        self._starts = []  # the index of each part's first row
        self._n = 0
        self.extend(rows)

    def __len__(self):
        return self._n

    def _add(self, part, size):
        self._parts.append(part)
        self._starts.append(self._n)
        self._n += size

    def append(self, row):
        """One record (a dict)."""
        if self._parts and isinstance(self._parts[-1], list):
            self._parts[-1].append(row)
            self._n += 1
        else:
            self._add([row], 1)

    def extend(self, rows):
        """Records from an iterable of dicts."""
        for row in rows:
            self.append(row)

    def add_batch(self, first, batch, time_s):
        """The supersteps of ``batch`` (a :class:`StepBatch`), numbered from ``first``, taking
        ``time_s`` as their times."""
        if len(batch):
            self._add(_Block(first, batch, time_s), len(batch))

    def _rows(self, part):
        return part if isinstance(part, list) else part.rows()

    def __getitem__(self, i):
        if isinstance(i, slice):
            return list(self)[i]
        if i < 0:
            i += self._n
        if not 0 <= i < self._n:
            raise IndexError("record index out of range")
        k = bisect_right(self._starts, i) - 1
        return self._rows(self._parts[k])[i - self._starts[k]]

    def __iter__(self):
        for part in self._parts:
            yield from self._rows(part)

    def __eq__(self, other):
        if isinstance(other, (Records, list, tuple)):
            return len(self) == len(other) and list(self) == list(other)
        return NotImplemented

    __hash__ = None

    def __repr__(self):
        return f"Records({list(self)!r})"


__all__ = ["Records", "StepBatch"]
