"""Edge sources of a parallel build: pieces of an edge list that a worker makes or reads itself.

A source is a small picklable description (a slice of a generated edge list,
a file, a dataframe partition) that yields its edges in batches of bounded
size, on the worker's array module.  It can be read twice (the build counts
degrees in one pass and places edges in the next), which is what lets a
worker build its shard holding no more than the shard plus one batch.

Vertex ids must be integers ``0..n-1``: renumbering arbitrary ids needs the
whole id set in one place (read such graphs with :func:`dgraph.read`, then
``G.partition``).  Errors name the source (file, row or line) and what was
expected.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..errors import FileFormatError, InputError


class EdgeSource:
    """``batches(xp, size, cache)`` yields ``(src, dst, weights or None)`` arrays on ``xp``."""

    #: whether the batches carry weights
    weighted = False
    #: a size hint in edges (or bytes) for spreading sources over workers
    weight_hint = 1

    def batches(self, xp, size, cache):
        raise NotImplementedError

    def error(self, where, message):
        return InputError(f"{self}: {where}: {message}" if where else f"{self}: {message}")


class GeneratedEdges(EdgeSource):
    """Edges ``start..stop-1`` of a generated edge list ('rmat' or 'uniform'), made on the worker's
    device from ``(seed, edge)`` alone: the same edges as :func:`dgraph.generate` makes there."""

    def __init__(self, kind, params, seed, start, stop, weights=None):
        self.kind, self.params, self.seed = kind, dict(params), int(seed)
        self.start, self.stop = int(start), int(stop)
        self.wspec = weights
        self.weighted = weights is not None
        self.weight_hint = self.stop - self.start

    def __str__(self):
        return f"generated {self.kind} edges {self.start}..{self.stop - 1}"

    def batches(self, xp, size, cache):
        from ..generators import rmat_edges, uniform_edges, vertex_permutation  # noqa: PLC0415
        from ..generators.weights import edge_weights  # noqa: PLC0415

        p = self.params
        perm = None
        if self.kind == "rmat" and p["permute"]:
            key = ("rmat-perm", p["scale"], self.seed)
            if key not in cache:
                cache[key] = vertex_permutation(xp, p["scale"], self.seed)
            perm = cache[key]
        for s in range(self.start, self.stop, size):
            t = min(self.stop, s + size)
            if self.kind == "rmat":
                src, dst = rmat_edges(xp, p["scale"], edgefactor=p["edgefactor"], a=p["a"], b=p["b"], c=p["c"],
                                      seed=self.seed, permute=p["permute"], start=s, stop=t, perm=perm)
            else:
                src, dst = uniform_edges(xp, p["n"], p["m"], seed=self.seed, start=s, stop=t)
            w = None
            if self.wspec is not None:
                w = edge_weights(xp, self.seed, t - s, self.wspec, 1 << 24, start=s)
            yield src, dst, w


class ParquetEdges(EdgeSource):
    """A Parquet edge table read in row batches (columns ``src``, ``dst`` and optionally ``weight``)."""

    def __init__(self, path, src="src", dst="dst", weight=None):
        self.path = Path(path)
        self.src, self.dst, self.weight = src, dst, weight
        self.weighted = weight is not None
        self.weight_hint = max(1, self.path.stat().st_size)

    def __str__(self):
        return str(self.path)

    def batches(self, xp, size, cache):
        import pyarrow.parquet as pq  # noqa: PLC0415

        cols = [self.src, self.dst] + ([self.weight] if self.weight else [])
        try:
            reader = pq.ParquetFile(self.path)
            batches = reader.iter_batches(batch_size=max(1, int(size)), columns=cols)
            row = 0
            for b in batches:
                s = _arrow_ids(self, b.column(0), self.src, row)
                d = _arrow_ids(self, b.column(1), self.dst, row)
                w = _arrow_weights(self, b.column(2), self.weight, row) if self.weight else None
                row += b.num_rows
                yield xp.asarray(s), xp.asarray(d), None if w is None else xp.asarray(w)
        except (OSError, ValueError) as exc:  # pyarrow's ArrowInvalid is a ValueError; corrupt pages OSError
            raise FileFormatError(self.path, None, f"not a readable Parquet file ({exc})") from None


def _arrow_ids(source, col, name, row0):
    import pyarrow.types as pt  # noqa: PLC0415

    if col.null_count:
        row = row0 + int(np.argmax(col.is_null().to_numpy(zero_copy_only=False)))
        raise FileFormatError(source.path, None, f"column {name!r}, row {row} (0-based): the value is missing")
    if pt.is_dictionary(col.type):
        col = col.cast(col.type.value_type)
    if not pt.is_integer(col.type):
        raise FileFormatError(source.path, None, f"column {name!r} has type {col.type}; a parallel build needs "
                                                 f"integer vertex ids 0..n-1 (read other ids with dgraph.read, "
                                                 f"then G.partition)")
    return col.to_numpy()


def _arrow_weights(source, col, name, row0):
    import pyarrow.types as pt  # noqa: PLC0415

    if col.null_count:
        row = row0 + int(np.argmax(col.is_null().to_numpy(zero_copy_only=False)))
        raise FileFormatError(source.path, None, f"column {name!r}, row {row} (0-based): the weight is missing")
    if not (pt.is_integer(col.type) or pt.is_floating(col.type)):
        raise FileFormatError(source.path, None, f"column {name!r} has type {col.type}; weights must be numbers")
    return col.to_numpy()


class TextEdges(EdgeSource):
    """An edge-list text file (.el .wel .csv .tsv ..., compressed too), parsed by dgraph's reader.

    The file is parsed whole (with the reader's errors, naming file and line),
    then handed out in batches: the bound on memory is the file, so a large
    edge list is best split into many files (or Parquet, which is read in row
    batches)."""

    def __init__(self, path, weighted=None, options=None):
        self.path = Path(path)
        self.options = dict(options or {})
        self.want_weights = weighted
        self.weighted = bool(weighted)
        self.weight_hint = max(1, self.path.stat().st_size)

    def __str__(self):
        return str(self.path)

    def batches(self, xp, size, cache):
        from ..io.edgelist import edgelist_columns  # noqa: PLC0415

        _, s, d, w = edgelist_columns(self.path, weighted=self.want_weights, **self.options)
        for arr in (s, d):
            if arr.dtype.kind not in "iu":
                raise FileFormatError(self.path, None, "vertex ids are names, not integers; a parallel build "
                                                       "needs integer ids 0..n-1 (read it with dgraph.read, "
                                                       "then G.partition)")
        if self.weighted and w is None:
            raise FileFormatError(self.path, None, "the file has no weight column, unlike the first file")
        for a in range(0, len(s), size):
            b = a + size
            yield xp.asarray(s[a:b]), xp.asarray(d[a:b]), None if w is None else xp.asarray(w[a:b])


class FrameEdges(EdgeSource):
    """One partition of a (dask) DataFrame of edges: pandas, or cuDF (its columns stay on the GPU)."""

    def __init__(self, frame, src, dst, weight, label):
        self.frame, self.src, self.dst, self.weight = frame, src, dst, weight
        self.weighted = weight is not None
        self.label = label

    def __str__(self):
        return self.label

    def batches(self, xp, size, cache):
        cols = [self.src, self.dst] + ([self.weight] if self.weight else [])
        arrays = [_column(self.frame[c], xp) for c in cols]
        for i, c in enumerate(cols[:2]):
            if arrays[i].dtype.kind not in "iu":
                raise self.error(f"column {c!r}", f"has dtype {arrays[i].dtype}; a parallel build needs integer "
                                                  f"vertex ids 0..n-1")
        for a in range(0, len(arrays[0]), size):
            b = a + size
            yield arrays[0][a:b], arrays[1][a:b], arrays[2][a:b] if self.weight else None


def _column(series, xp):
    """A dataframe column as an array on ``xp`` (cuDF columns go GPU to GPU, pandas through the host)."""
    if type(series).__module__.startswith("cudf"):
        values = series.values  # a CuPy array
        return values if xp is not np else values.get()
    return xp.asarray(series.to_numpy())
