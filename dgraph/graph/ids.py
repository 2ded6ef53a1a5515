"""Vertex ids: the map between the user's ids (int64s or strings) and 0..n-1.

Every result is reported in the user's ids; internally vertices are always
consecutive integers so that CSR arrays can be indexed directly.

The rule (the README's "Vertex ids"): ids are all integers (anything that
fits int64: numpy ints, integral floats, Python ints) or all strings; a mix
is an error.  Non-negative integer ids are used as they are (vertex ``i`` is
id ``i``, ids no edge names are isolated vertices) unless they are sparse:
when the largest is at least ``SPARSE_MIN_VERTICES`` and at least
``SPARSE_FACTOR`` times the number of edges, they are renumbered like
negative ids and strings, to 0..n-1 in sorted order, and mapped back in every
result.  ``renumber=True/False`` and ``num_vertices=`` decide it outright.
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError, VertexNotFoundError

#: identity ids below this many vertices are never called sparse
SPARSE_MIN_VERTICES = 1 << 20
#: ... nor while the largest id is below this many times the edge count
SPARSE_FACTOR = 8
INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1


def show(value):
    """A vertex id as the user wrote it (no numpy scalar reprs in messages)."""
    return repr(value.item() if hasattr(value, "item") else value)


class VertexIds:
    """Sorted unique user ids; internal vertex ``i`` is ``labels[i]``.

    ``labels is None`` means the identity map (user id == internal id).
    Integer labels are int64; string labels are a numpy unicode array, or an
    object array of str where fixed-width unicode would waste memory (one
    long name among many short ones).
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

    @property
    def kind(self) -> str:
        """'integers' or 'names': what the user's ids are."""
        return "integers" if self.is_integer else "names"

    def describe(self) -> str:
        """What the ids are, in words (``dgraph info``, the notebook view)."""
        if self.labels is None:
            return f"integers 0..{self.n - 1}, as given" if self.n else "integers (no vertices)"
        if self.is_integer:
            return "integers, renumbered to 0..n-1 (negative or sparse ids)"
        return "names (strings), renumbered to 0..n-1"

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
                if arr.dtype.kind == "f" and np.all(np.isfinite(arr) & (arr == np.floor(arr))):
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
                    f"{what} {show(arr[0])} is not in the graph (ids are {self.kind})"
                ) from None
            pos = np.minimum(pos, self.n - 1) if self.n else pos
            hit = (self.labels[pos] == arr) if self.n else np.zeros(len(arr), bool)
            if not np.all(hit):
                raise VertexNotFoundError(f"{what} {show(arr[~hit][0])} is not in the graph")
            out = pos.astype(np.int64)
        return int(out[0]) if scalar else out


# -- one kind of id per graph ----------------------------------------------------------------
def _host(a):
    return a.get() if type(a).__module__.startswith("cupy") else np.asarray(a)


def id_array(xp, a, what):
    """``a`` as int64 ids (exactly: integral floats and uint64 within int64 only) or as strings.

    Raises InputError naming the first id that is neither, or that cannot be an int64 exactly."""
    kind = a.dtype.kind
    if kind == "i":
        return a.astype(np.int64, copy=False)
    if kind == "u":
        if len(a) and int(a.max()) > INT64_MAX:
            i = int(xp.argmax(a > np.uint64(INT64_MAX)))
            raise InputError(f"{what}[{i}] = {int(a[i])}: vertex ids must fit int64 "
                             f"({INT64_MIN}..{INT64_MAX}); pass them as strings to use them as names")
        return a.astype(np.int64)
    if kind == "f":
        ok = xp.isfinite(a)
        ok &= a == xp.floor(xp.where(ok, a, 0))
        ok &= (a >= -2.0 ** 63) & (a < 2.0 ** 63)
        if not bool(ok.all()):
            i = int(xp.argmin(ok))
            raise InputError(f"{what}[{i}] = {float(a[i])!r}: vertex ids must be integers within int64 "
                             "or strings")
        return a.astype(np.int64)
    if kind in "US":
        return a
    if kind == "O":
        return _object_ids(a, what)
    raise InputError(f"{what}: vertex ids must be integers or strings, got dtype {a.dtype}")


def _object_ids(a, what):
    """An object array of ids: all ints -> int64, all str -> str objects, else InputError."""
    import pandas as pd  # noqa: PLC0415

    found = pd.api.types.infer_dtype(a, skipna=False)
    if found in ("string", "empty"):
        return a
    if found == "integer":
        if any(type(v) is bool for v in a[: min(len(a), 1)]):
            raise InputError(f"{what}: vertex ids must be integers or strings, got booleans")
        try:
            return a.astype(np.int64)
        except OverflowError:
            i = next(i for i, v in enumerate(a) if not INT64_MIN <= int(v) <= INT64_MAX)
            raise InputError(f"{what}[{i}] = {a[i]!r}: vertex ids must fit int64 "
                             f"({INT64_MIN}..{INT64_MAX}); pass them as strings to use them as names") from None
    if found in ("floating", "mixed-integer-float"):
        return id_array(np, a.astype(np.float64), what)
    kinds = {type(v).__name__ for v in a}
    first = {}
    for i, v in enumerate(a):
        first.setdefault(type(v).__name__, i)
    detail = ", ".join(f"{k} (first at [{first[k]}]: {a[first[k]]!r})" for k in sorted(kinds))
    raise InputError(f"{what}: vertex ids must be all integers or all strings, got {detail}")


def same_kind(pairs):
    """Check that the id arrays ``[(name, array or None), ...]`` are all integers or all strings."""
    kinds = {name: ("str" if a.dtype.kind in "USO" else "int") for name, a in pairs
             if a is not None and len(a)}
    if len(set(kinds.values())) > 1:
        said = ", ".join(f"{name} {'strings' if k == 'str' else 'integers'}" for name, k in kinds.items())
        raise InputError(f"vertex ids must be all integers or all strings, got {said}")


# -- deciding and building the map -------------------------------------------------------------
class IdPlan:
    """What :func:`plan_ids` decided: ``n`` vertices (an upper bound when renumbering), whether the ids
    are renumbered, and the largest id (identity plans) for messages."""

    __slots__ = ("n", "renumber", "max_id")

    def __init__(self, n, renumber, max_id=None):
        self.n, self.renumber, self.max_id = int(n), bool(renumber), max_id


def plan_ids(xp, src, dst, vertices=None, num_vertices=None, renumber=None) -> IdPlan:
    """Decide, from min and max only (no allocation), whether ids are used as they are or renumbered.

    ``src``/``dst`` are what :func:`id_array` gives (int64 or strings)."""
    m = len(src)
    if vertices is not None:
        return IdPlan(len(vertices), True)
    integer = src.dtype.kind == "i" and dst.dtype.kind == "i"
    if not integer:
        if renumber is False:
            raise InputError("renumber=False needs non-negative integer vertex ids")
        if num_vertices is not None:
            raise InputError("num_vertices cannot be combined with renumbered ids; pass vertices= instead")
        return IdPlan(2 * m, True)
    lo = min(int(src.min()), int(dst.min())) if m else 0
    hi = max(int(src.max()), int(dst.max())) if m else -1
    if lo < 0:
        if renumber is False:
            raise InputError(f"renumber=False but the edges hold a negative vertex id ({lo})")
        if num_vertices is not None:
            raise InputError("num_vertices cannot be combined with renumbered ids (the edges hold the "
                             f"negative id {lo}); pass vertices= instead")
        return IdPlan(2 * m, True)
    if renumber is True:
        if num_vertices is not None:
            raise InputError("num_vertices cannot be combined with renumber=True; pass vertices= instead")
        return IdPlan(2 * m, True)
    if num_vertices is not None:
        if hi + 1 > num_vertices:
            raise InputError(f"num_vertices={num_vertices} but the edges refer to vertex {hi}")
        return IdPlan(num_vertices, False, hi)
    if renumber is None and hi + 1 > max(SPARSE_MIN_VERTICES, SPARSE_FACTOR * m):
        return IdPlan(2 * m, True)
    return IdPlan(hi + 1, False, hi)


def build_ids(xp, src, dst, vertices=None, num_vertices=None, renumber=None, plan=None):
    """Decide the vertex ids of an edge list and translate its endpoints.

    Returns ``(VertexIds, src_internal, dst_internal)``.  ``src``/``dst`` are int64 or string arrays
    (:func:`id_array`); ``vertices`` (e.g. a Graphalytics ``.v`` file) fixes the vertex set,
    isolated vertices included; ``plan`` is :func:`plan_ids`'s answer when the caller has it."""
    if plan is None:
        plan = plan_ids(xp, src, dst, vertices, num_vertices, renumber)
    if vertices is not None:
        labels = _unique_labels(vertices, "vertices")
        n = len(labels)
        if labels.dtype.kind == "i" and n and labels[0] == 0 and labels[-1] == n - 1 and renumber is not True:
            same_kind([("vertices", labels), ("src", src), ("dst", dst)])
            _check_range(xp, src, dst, n, "vertices")
            return VertexIds(n), src, dst
        return VertexIds(n, labels), _lookup(xp, labels, src, "source"), _lookup(xp, labels, dst, "target")
    if not plan.renumber:
        return VertexIds(plan.n), src, dst
    labels, s, d = _renumber(_host(src), _host(dst))
    return VertexIds(len(labels), labels), xp.asarray(s), xp.asarray(d)


def _renumber(src, dst):
    """``(sorted unique labels, src codes, dst codes)`` of host id arrays (int64 or strings)."""
    m = len(src)
    if src.dtype.kind == "i":
        labels, codes = np.unique(np.concatenate([src, dst]), return_inverse=True)
        return labels, codes[:m], codes[m:]
    import pandas as pd  # noqa: PLC0415

    both = np.concatenate([np.asarray(src, dtype=object), np.asarray(dst, dtype=object)])
    codes, uniques = pd.factorize(both)  # hashing: no fixed-width copy of every name
    order = np.argsort(uniques, kind="stable")
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order), dtype=np.int64)
    codes = rank[codes]
    return _compact_strings(uniques[order]), codes[:m], codes[m:]


def _compact_strings(names):
    """Sorted names as a unicode array when that is compact, else as the object array they are
    (fixed-width unicode takes 4 bytes a character of the longest name for every name, and drops
    trailing NUL characters)."""
    if len(names) == 0:
        return np.empty(0, dtype="<U1")
    lengths = np.fromiter(map(len, names), dtype=np.int64, count=len(names))
    fixed = 4 * int(lengths.max()) * len(names)
    if fixed <= 2 * (int(lengths.sum()) + 64 * len(names)) and not any(s.endswith("\x00") for s in names):
        return names.astype(str)
    return names


def _unique_labels(values, what):
    arr = id_array(np, _host(np.asarray(values) if isinstance(values, (list, tuple)) else values), what)
    if arr.dtype.kind == "i":
        labels = np.unique(arr)
    else:
        import pandas as pd  # noqa: PLC0415

        obj = np.asarray(arr, dtype=object)
        uniques = pd.unique(obj)
        labels = _compact_strings(np.sort(uniques, kind="stable"))
        arr = obj
    if len(labels) != len(arr):
        import pandas as pd  # noqa: PLC0415

        dup = pd.Series(arr)[pd.Series(arr).duplicated()].iloc[0]
        raise InputError(f"{what}: vertex id {show(dup)} is listed more than once")
    return labels


def _lookup(xp, labels, ids, what):
    host = _host(ids)
    if len(labels) == 0:
        if len(host):
            raise VertexNotFoundError(f"edge 0: {what} vertex {show(host[0])} is not in the vertex list")
        return xp.asarray(np.empty(0, np.int64))
    if (labels.dtype.kind == "i") != (host.dtype.kind == "i") and len(host):
        kinds = ("integers", "strings") if labels.dtype.kind == "i" else ("strings", "integers")
        raise InputError(f"the vertex list holds {kinds[0]} but the {what} ids are {kinds[1]}; "
                         "vertex ids must be all integers or all strings")
    if labels.dtype.kind == "i":
        pos = np.minimum(np.searchsorted(labels, host), len(labels) - 1)
        hit = labels[pos] == host
    else:
        import pandas as pd  # noqa: PLC0415

        pos = pd.Index(np.asarray(labels, dtype=object)).get_indexer(np.asarray(host, dtype=object))
        hit = pos >= 0
    if not np.all(hit):
        i = int(np.argmin(hit))
        raise VertexNotFoundError(f"edge {i}: {what} vertex {show(host[i])} is not in the vertex list")
    return xp.asarray(pos.astype(np.int64, copy=False))


def _check_range(xp, src, dst, n, what):
    if len(src) == 0:
        return
    for arr, name in ((src, "source"), (dst, "target")):
        bad = (arr < 0) | (arr >= n)
        if bool(bad.any()):
            i = int(xp.argmax(bad))
            raise VertexNotFoundError(f"edge {i}: {name} vertex {int(arr[i])} is not in {what} (0..{n - 1})")
