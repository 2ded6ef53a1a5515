"""Vertex ids: the map between the user's ids (any int64s or strings) and 0..n-1.

Every result is reported in the user's ids; internally vertices are always
consecutive integers so that CSR arrays can be indexed directly.
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError, VertexNotFoundError


def show(value):
    """A vertex id as the user wrote it (no numpy scalar reprs in messages)."""
    return repr(value.item() if hasattr(value, "item") else value)


class VertexIds:
    """Sorted unique user ids; internal vertex ``i`` is ``labels[i]``.

    ``labels is None`` means the identity map (user id == internal id).
    """

    __slots__ = ("labels", "n")

    def __init__(self, n: int, labels=None):
        self.n = int(n)
        self.labels = None if labels is None else np.asarray(labels)

    @property
    def identity(self) -> bool:
        return self.labels is None

    @property
    def is_integer(self) -> bool:
        return self.labels is None or self.labels.dtype.kind in "iu"

    def to_user(self, internal):
        """User ids of internal vertex indices (numpy in, numpy out)."""
        internal = np.asarray(internal)
        if self.labels is None:
            return internal
        return self.labels[internal]

    def user_array(self):
        """All user ids in internal order."""
        if self.labels is None:
            return np.arange(self.n, dtype=np.int64)
        return self.labels

    def to_internal(self, ids, what="vertex"):
        """Internal indices of user ids; unknown ids raise VertexNotFoundError."""
        scalar = np.ndim(ids) == 0
        arr = np.atleast_1d(np.asarray(ids))
        if self.labels is None:
            if arr.dtype.kind not in "iu":
                if arr.dtype.kind == "f" and np.all(arr == np.floor(arr)):
                    arr = arr.astype(np.int64)
                else:
                    bad = arr[0]
                    raise VertexNotFoundError(
                        f"{what} {show(bad)}: this graph's vertex ids are integers 0..{self.n - 1}"
                    )
            out = arr.astype(np.int64)
            bad = (out < 0) | (out >= self.n)
            if bad.any():
                raise VertexNotFoundError(
                    f"{what} {show(arr[bad][0])} is not in the graph (vertex ids are 0..{self.n - 1})"
                )
        else:
            try:
                pos = np.searchsorted(self.labels, arr)
            except TypeError:
                raise VertexNotFoundError(
                    f"{what} {show(arr[0])} is not in the graph (ids are {self.labels.dtype.kind == 'i' and 'integers' or 'strings'})"
                ) from None
            pos = np.minimum(pos, self.n - 1) if self.n else pos
            hit = (self.labels[pos] == arr) if self.n else np.zeros(len(arr), bool)
            if not np.all(hit):
                raise VertexNotFoundError(f"{what} {show(arr[~hit][0])} is not in the graph")
            out = pos.astype(np.int64)
        return int(out[0]) if scalar else out


def build_ids(xp, src, dst, vertices=None, num_vertices=None, renumber=None):
    """Decide the vertex ids of an edge list and translate its endpoints.

    Returns ``(VertexIds, src_internal, dst_internal)``.  Ids are kept as given
    (identity) when they are non-negative integers and neither ``vertices``
    nor ``renumber=True`` asks otherwise; ``vertices`` (e.g. a Graphalytics
    ``.v`` file) fixes the vertex set, including isolated vertices.
    """
    if vertices is not None:
        labels = _unique_labels(vertices, "vertices")
        n = len(labels)
        if labels.dtype.kind in "iu" and n and labels[0] == 0 and labels[-1] == n - 1 and renumber is not True:
            ids = VertexIds(n)
            _check_range(xp, src, dst, n, "vertices")
            return ids, src, dst
        ids = VertexIds(n, labels)
        return ids, _lookup(xp, labels, src, "source"), _lookup(xp, labels, dst, "target")

    integer = src.dtype.kind in "iu" and dst.dtype.kind in "iu"
    if integer and renumber is not True:
        lo = min(int(src.min()), int(dst.min())) if len(src) else 0
        if lo >= 0:
            hi = max(int(src.max()), int(dst.max())) + 1 if len(src) else 0
            if num_vertices is not None:
                if hi > num_vertices:
                    raise InputError(
                        f"num_vertices={num_vertices} but the edges refer to vertex {hi - 1}"
                    )
                hi = int(num_vertices)
            return VertexIds(hi), src, dst
        if renumber is False:
            raise InputError(f"renumber=False but the edges hold a negative vertex id ({lo})")
    if renumber is False:
        raise InputError("renumber=False needs non-negative integer vertex ids")
    if num_vertices is not None:
        raise InputError("num_vertices cannot be combined with renumbered ids; pass vertices= instead")
    both = np.concatenate([_host(src), _host(dst)])
    labels = _unique_labels(both, "edges", allow_dupes=True)
    return VertexIds(len(labels), labels), _lookup(xp, labels, src, "source"), _lookup(xp, labels, dst, "target")


def _host(a):
    return a.get() if type(a).__module__.startswith("cupy") else np.asarray(a)


def _unique_labels(values, what, allow_dupes=False):
    arr = np.asarray(_host(np.asarray(values) if isinstance(values, (list, tuple)) else values))
    if arr.dtype.kind == "O":
        kinds = {type(v) for v in arr[: min(len(arr), 1000)]}
        if all(issubclass(k, str) for k in kinds):
            arr = arr.astype(str)
        elif all(issubclass(k, (int, np.integer)) for k in kinds):
            arr = arr.astype(np.int64)
        else:
            raise InputError(f"{what}: vertex ids must all be integers or all be strings, got {sorted(k.__name__ for k in kinds)}")
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)) or not np.all(arr == np.floor(arr)):
            raise InputError(f"{what}: vertex ids must be integers or strings, got non-integral floats")
        arr = arr.astype(np.int64)
    if arr.dtype.kind == "u":
        arr = arr.astype(np.int64)
    labels = np.unique(arr)
    if not allow_dupes and len(labels) != len(arr):
        _, counts = np.unique(arr, return_counts=True)
        dup = labels[np.argmax(counts > 1)]
        raise InputError(f"{what}: vertex id {show(dup)} is listed more than once")
    return labels


def _lookup(xp, labels, ids, what):
    host = _host(ids)
    if labels.dtype.kind in "iu" and host.dtype.kind == "f":
        host = host.astype(np.int64)
    if len(labels) == 0:
        if len(host):
            raise VertexNotFoundError(f"edge 0: {what} vertex {show(host[0])} is not in the vertex list")
        return xp.asarray(np.empty(0, np.int64))
    try:
        pos = np.searchsorted(labels, host)
    except TypeError:
        raise InputError(f"{what} vertex ids and the vertex list have different types") from None
    pos = np.minimum(pos, len(labels) - 1)
    hit = labels[pos] == host
    if not np.all(hit):
        i = int(np.argmin(hit))
        raise VertexNotFoundError(f"edge {i}: {what} vertex {show(host[i])} is not in the vertex list")
    return xp.asarray(pos)


def _check_range(xp, src, dst, n, what):
    if len(src) == 0:
        return
    for arr, name in ((src, "source"), (dst, "target")):
        bad = (arr < 0) | (arr >= n)
        if bool(bad.any()):
            i = int(xp.argmax(bad))
            raise VertexNotFoundError(f"edge {i}: {name} vertex {int(arr[i])} is not in {what} (0..{n - 1})")
