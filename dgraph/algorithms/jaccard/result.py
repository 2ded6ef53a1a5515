"""What :func:`dgraph.jaccard` returns: values per *pair* of vertices, not per vertex.

- :class:`PairResult`: the coefficients of the pairs the caller gave (in their
  order), from one run of :class:`.program.PairsProgram`;
- :class:`PairStream`: the pairs at distance two, counted when it is made
  (``total``, ``nbytes``: what the whole output needs, known before any of it
  is made) and listed chunk by chunk as it is iterated (:class:`PairChunk`,
  at most ``chunk_size`` pairs each unless one vertex alone has more), so the
  whole list never has to be in memory; ``write`` streams it to a CSV or
  Parquet file.

Both keep the run's records like :class:`dgraph.Result` (``stats``,
``run_time``, ``phases``, ``params``) and are written with ``dgraph.write``
(or their ``write``): columns ``u``, ``v`` (the user's vertex ids) and
``jaccard``.
"""

from __future__ import annotations

import time
from typing import NamedTuple

import numpy as np

from ...backend import to_numpy
from ...errors import InputError

COLUMNS = ("u", "v", "jaccard")
#: bytes of one pair in memory: u and v (int64) and the coefficient (float64)
PAIR_BYTES = 24
#: host bytes of one pair of a stream's chunk while it is made: the pairs as computed (internal ids) and
#: the chunk in the user's ids
CHUNK_PAIR_BYTES = 2 * PAIR_BYTES


class PairChunk(NamedTuple):
    """Pairs ``(u[i], v[i])`` (the user's vertex ids) and their coefficients ``jaccard[i]`` (numpy)."""

    u: np.ndarray
    v: np.ndarray
    jaccard: np.ndarray

    def __len__(self):  # the pairs, not the three fields
        return len(self.jaccard)


class _Records:
    """The Result-like record keeping both classes share."""

    algorithm = "jaccard"
    #: values per pair of vertices: ``dgraph.write`` hands such a result to its own ``write``
    per_pair = True

    @property
    def stats(self):
        """One row per superstep (or per chunk of the one-shard stream), as a pandas DataFrame."""
        import pandas as pd  # noqa: PLC0415

        return pd.DataFrame(self._records)

    @property
    def stats_records(self):
        return list(self._records)

    @property
    def supersteps(self) -> int:
        return len(self._records)

    @property
    def edges_touched(self) -> int:
        return int(sum(s.get("edges", 0) for s in self._records))

    @property
    def columns(self):
        return list(COLUMNS)

    def to_pandas(self):
        """``u``, ``v``, ``jaccard`` as a pandas DataFrame (the whole output in memory)."""
        import pandas as pd  # noqa: PLC0415

        return pd.DataFrame(self.to_numpy())

    def write(self, path, format=None, *, columns=None, overwrite=False):
        """Write the pairs to ``path`` (``.csv``, ``.parquet``, ``.npz`` or ``format=``); returns the Path.

        CSV and Parquet are written chunk by chunk; NPZ needs the whole output in memory.  The file is
        filled under a temporary name and renamed into place when complete (as ``dgraph.write``)."""
        return write_pairs(self, path, format, columns=columns, overwrite=overwrite)


class PairResult(_Records):
    """The Jaccard coefficients of given pairs: ``u``, ``v`` (the user's ids, numpy) and ``jaccard``
    (float64, on the backend the run used), in the order the pairs were given.

    ``r[i]`` / iteration: ``(u, v, p)`` tuples of Python values, as NetworkX yields them."""

    def __init__(self, ids, pairs, run):
        self._run = run
        self._records = run.stats_records
        self.params = dict(run.params, mode="pairs", pairs=len(pairs))
        self.run_time, self.phases, self.backend = run.run_time, run.phases, run.backend
        self.ids = ids
        self.u = ids.to_user(pairs[:, 0])
        self.v = ids.to_user(pairs[:, 1])

    @property
    def jaccard(self):
        return self._run.raw("jaccard")

    def raw(self, name):
        """A column: ``jaccard`` on the run's backend, ``u`` and ``v`` in the user's ids."""
        if name == "jaccard":
            return self.jaccard
        if name in ("u", "v"):
            return getattr(self, name)
        raise InputError(f"result of jaccard has no column {name!r}; columns: {list(COLUMNS)}")

    def __getitem__(self, key):
        if isinstance(key, str):
            return self.raw(key)
        return self.u[key].item(), self.v[key].item(), float(to_numpy(self.jaccard[key]))

    def __len__(self):
        return len(self.u)

    def __iter__(self):
        p = to_numpy(self.jaccard).tolist()
        return iter(zip(self.u.tolist(), self.v.tolist(), p))

    def chunks(self):
        """The pairs as one :class:`PairChunk`."""
        yield PairChunk(self.u, self.v, to_numpy(self.jaccard))

    @property
    def total(self) -> int:
        return len(self.u)

    @property
    def nbytes(self) -> int:
        return PAIR_BYTES * len(self.u)

    def to_numpy(self):
        return {"u": self.u, "v": self.v, "jaccard": to_numpy(self.jaccard)}

    def __repr__(self):
        from ...display import plural  # noqa: PLC0415

        t = f", {self.run_time * 1e3:.2f} ms" if self.run_time is not None else ""
        return f"<dgraph.jaccard PairResult: {plural(len(self), 'pair')}, {plural(self.supersteps, 'superstep')}{t}, " \
               f"{self.backend}>"


class PairStream(_Records):
    """The pairs at distance two (``u < v`` by internal vertex order, each pair once) and their
    coefficients, listed chunk by chunk.

    ``total`` (pairs) and ``nbytes`` (``24 * total``: u, v and the coefficient as int64/float64)
    are known as soon as it is made; ``counts[i]`` is the number of pairs whose ``u`` is internal
    vertex ``i`` (``vertex`` gives the user ids in that order) and ``degree[i]`` its number of
    neighbors.  Iterating (again) lists the pairs in chunks of about ``chunk_size``
    (:class:`PairChunk`, ``u`` ascending then ``v``); ``stats`` grows by the records of each chunk
    made.  ``to_pandas()`` / ``to_numpy()`` gather the whole output, after checking it fits.
    """

    def __init__(self, ids, counts, degree, windows, make_chunk, *, params, records, run_time, phases, backend,
                 chunk_size, on_step=None):
        self.ids = ids
        self.counts = counts
        self.degree = degree
        self.total = int(counts.sum()) if len(counts) else 0
        self.nbytes = PAIR_BYTES * self.total
        self.windows = windows
        self.chunk_size = chunk_size
        self._make = make_chunk
        self.params = dict(params, mode="all-pairs", total=self.total, chunks=len(windows))
        self._records = list(records)
        self.run_time, self.phases, self.backend = run_time, dict(phases), backend
        self._on_step = on_step

    @property
    def vertex(self):
        """The user's vertex ids in internal order (the order of ``counts`` and ``degree``)."""
        return self.ids.user_array()

    @property
    def num_chunks(self) -> int:
        return len(self.windows)

    def __len__(self):
        return self.total

    def __iter__(self):
        return self.chunks()

    @property
    def largest_chunk(self) -> int:
        """The pairs of the largest chunk (0 for an empty stream)."""
        if not self.windows:
            return 0
        cum = np.concatenate([[0], np.cumsum(self.counts, dtype=np.int64)])
        return max(int(cum[hi] - cum[lo]) for lo, hi in self.windows)

    def _check_chunk_memory(self):
        """GraphTooLargeError, before the first chunk is made, when the largest would not fit."""
        from ...backend.device_memory import require, require_host  # noqa: PLC0415

        biggest = self.largest_chunk
        what = (f"jaccard: a chunk of {biggest:,} pairs (chunk_size={self.chunk_size:,}"
                f"{'; one vertex alone has them' if biggest > self.chunk_size else ''})")
        advice = "pass a smaller chunk_size (pairs per chunk)" if biggest > 1 else None
        require_host(CHUNK_PAIR_BYTES * biggest, what, advice=advice)
        if self.backend == "cupy":
            require(PAIR_BYTES * biggest, what, advice=advice)

    def chunks(self):
        """The pairs, one :class:`PairChunk` per window of rows (computed as they are asked for; the
        largest must fit in memory, checked before the first is made)."""
        self._check_chunk_memory()
        return self._chunks()

    def _chunks(self):
        for k, (lo, hi) in enumerate(self.windows):
            t0 = time.perf_counter()
            u, v, p, records, seconds = self._make(lo, hi)
            chunk = PairChunk(self.ids.to_user(to_numpy(u)), self.ids.to_user(to_numpy(v)), to_numpy(p))
            if seconds is None:
                seconds = time.perf_counter() - t0
            self.run_time = (self.run_time or 0.0) + seconds
            first = len(self._records)
            if not records:
                records = [{"phase": "pairs", "pairs": len(chunk), "time_s": seconds}]
            for i, rec in enumerate(records):
                rec = dict(rec, superstep=first + i, chunk=k, rows=hi - lo)
                self._records.append(rec)
                if self._on_step is not None:
                    self._on_step(rec)
            yield chunk

    def to_numpy(self):
        """The whole output (``u``, ``v``, ``jaccard``) in memory: GraphTooLargeError first if it does not fit."""
        from ...backend.device_memory import require_host  # noqa: PLC0415

        require_host(self.nbytes, f"jaccard: the {self.total:,} pairs at distance two")
        if self.ids.is_integer:                  # filled in place: the output once, not twice
            out = {"u": np.empty(self.total, dtype=np.int64), "v": np.empty(self.total, dtype=np.int64),
                   "jaccard": np.empty(self.total, dtype=np.float64)}
            at = 0
            for chunk in self.chunks():
                for k in COLUMNS:
                    out[k][at:at + len(chunk)] = getattr(chunk, k)
                at += len(chunk)
            return out
        parts = list(self.chunks())
        if not parts:
            empty = self.ids.user_array()[:0]
            return {"u": empty.copy(), "v": empty.copy(), "jaccard": np.zeros(0, dtype=np.float64)}
        return {k: np.concatenate([getattr(c, k) for c in parts]) for k in COLUMNS}

    def __repr__(self):
        from ...display import plural  # noqa: PLC0415

        return (f"<dgraph.jaccard PairStream: {plural(self.total, 'pair')} at distance two in "
                f"{plural(self.num_chunks, 'chunk')} of <= {self.chunk_size:,}, {self.params.get('implementation')}, "
                f"{self.backend}>")


def windows(counts, chunk_size):
    """``[(lo, hi)]``: consecutive vertex ranges with at most ``chunk_size`` pairs each (one vertex with
    more is a window alone); ranges without pairs are left out."""
    out = []
    n = len(counts)
    if n == 0:
        return out
    cum = np.cumsum(counts, dtype=np.int64)
    lo = 0
    while lo < n:
        base = int(cum[lo - 1]) if lo else 0
        hi = max(lo + 1, int(np.searchsorted(cum, base + chunk_size, side="right")))
        hi = min(hi, n)
        if int(cum[hi - 1]) > base:
            out.append((lo, hi))
        lo = hi
    return out


# -- writing ------------------------------------------------------------------------------------

PAIR_FORMATS = ("csv", "parquet", "npz")


def write_pairs(result, path, format=None, *, columns=None, overwrite=False):
    """Write a PairResult or PairStream (see :meth:`_Records.write`)."""
    from ...io.writers import _atomic, check_output_path  # noqa: PLC0415

    p, fmt = check_output_path(path, overwrite=overwrite, fmt=format)
    if fmt not in PAIR_FORMATS:
        raise InputError(f"{p}: a {fmt} file holds one value per vertex; write the jaccard pairs as "
                         f"{', '.join(PAIR_FORMATS)}")
    names = list(COLUMNS)
    if columns is not None:
        asked = [columns] if isinstance(columns, str) else list(columns)
        unknown = [c for c in asked if c not in COLUMNS]
        if unknown:
            raise InputError(f"columns={asked!r}: {unknown[0]!r} is not a column of the jaccard pairs; "
                             f"columns: {list(COLUMNS)}")
        names = ["u", "v", *[c for c in asked if c not in ("u", "v")]]
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        with _atomic(p, overwrite) as tmp:
            WRITERS[fmt](tmp, result, names)
    except OSError as e:
        raise InputError(f"{p}: cannot write it: {e.strerror or e}") from None
    return p


def _write_csv(tmp, result, names):
    import pandas as pd  # noqa: PLC0415

    with open(tmp, "w", encoding="utf-8", newline="") as f:
        f.write(",".join(names) + "\n")
        for chunk in result.chunks():
            pd.DataFrame({k: getattr(chunk, k) for k in names}).to_csv(f, header=False, index=False)


def _arrow(values):
    import pyarrow as pa  # noqa: PLC0415

    return pa.array(values.astype(str) if values.dtype.kind == "U" else values)


def _write_parquet(tmp, result, names):
    import pyarrow as pa  # noqa: PLC0415
    import pyarrow.parquet as pq  # noqa: PLC0415

    vtype = pa.int64() if result.ids.is_integer else pa.string()
    types = {"u": vtype, "v": vtype, "jaccard": pa.float64()}
    schema = pa.schema([(k, types[k]) for k in names], metadata={"dgraph.algorithm": "jaccard"})
    with pq.ParquetWriter(tmp, schema) as w:
        for chunk in result.chunks():
            w.write_table(pa.table({k: _arrow(getattr(chunk, k)).cast(types[k]) for k in names}, schema=schema))


def _write_npz(tmp, result, names):
    data = result.to_numpy()
    arrays = {k: (data[k].astype(str) if data[k].dtype == object else data[k]) for k in names}
    with open(tmp, "wb") as f:
        np.savez(f, **arrays)


WRITERS = {"csv": _write_csv, "parquet": _write_parquet, "npz": _write_npz}


__all__ = ["PairResult", "PairStream", "PairChunk", "windows", "write_pairs", "COLUMNS", "PAIR_BYTES",
           "CHUNK_PAIR_BYTES"]
