"""Parquet edge tables: one row per edge, columns ``src``, ``dst`` and optionally ``weight``.

Other column names are chosen with ``src=``, ``dst=``, ``weight=``.  Only the
needed columns are read.  Parquet has no lines, so errors name the column and
the (0-based) row.
"""

from __future__ import annotations

import numpy as np

from ..errors import FileFormatError
from .columns import build_graph, use_weights
from .text import existing_file


def read_parquet(path, *, directed=False, weighted=None, src="src", dst="dst", weight=None, **graph_options):
    """A Graph from a Parquet edge table (see the module docstring)."""
    import pyarrow.parquet as pq  # noqa: PLC0415

    p = existing_file(path)
    try:
        names = pq.read_schema(p).names
    except Exception as exc:  # noqa: BLE001 - ArrowInvalid, OSError...
        raise FileFormatError(p, None, f"not a readable Parquet file ({exc})") from None
    for what, col in (("src", src), ("dst", dst)) + ((("weight", weight),) if weight is not None else ()):
        if col not in names:
            raise FileFormatError(p, None, f"no column {col!r} for {what}=; the columns are {names}")
    wcol = weight if weight is not None else ("weight" if "weight" in names else None)
    use_w = use_weights(weighted, wcol is not None, p, f" (columns are {names}; name it with weight=)")
    table = pq.read_table(p, columns=[src, dst] + ([wcol] if use_w else []))
    s = _ids(p, table.column(src), src)
    d = _ids(p, table.column(dst), dst)
    w = _weights(p, table.column(wcol), wcol) if use_w else None
    return build_graph(p, s, d, w, directed=directed, options=graph_options)


def _no_nulls(path, col, name):
    if col.null_count:
        row = int(np.argmax(col.is_null().to_numpy(zero_copy_only=False)))
        raise FileFormatError(path, None, f"column {name!r}, row {row} (0-based): the value is missing (null)")


def _ids(path, col, name):
    import pyarrow.types as pt  # noqa: PLC0415

    _no_nulls(path, col, name)
    if pt.is_dictionary(col.type):
        col = col.cast(col.type.value_type)
    t = col.type
    if pt.is_integer(t):
        arr = col.to_numpy()
        if arr.dtype.kind == "u" and len(arr) and arr.max() > np.iinfo(np.int64).max:
            row = int(np.argmax(arr > np.iinfo(np.int64).max))
            raise FileFormatError(path, None, f"column {name!r}, row {row} (0-based): vertex id {int(arr[row])} "
                                              "is past the int64 range")
        return arr.astype(np.int64, copy=False)
    if pt.is_string(t) or pt.is_large_string(t):
        return col.to_numpy(zero_copy_only=False).astype(object, copy=False)
    if pt.is_floating(t):
        arr = col.to_numpy()
        ok = np.isfinite(arr) & (arr == np.floor(arr))
        if not ok.all():
            row = int(np.argmin(ok))
            raise FileFormatError(path, None, f"column {name!r}, row {row} (0-based): vertex id {arr[row]!r} "
                                              "is not an integer (ids must be integers or strings)")
        return arr.astype(np.int64)
    raise FileFormatError(path, None, f"column {name!r} has type {t}; vertex ids must be integers or strings")


def _weights(path, col, name):
    import pyarrow.types as pt  # noqa: PLC0415

    _no_nulls(path, col, name)
    t = col.type
    if not (pt.is_integer(t) or pt.is_floating(t)):
        raise FileFormatError(path, None, f"column {name!r} has type {t}; weights must be numbers")
    arr = col.to_numpy()
    if arr.dtype.kind == "f":
        bad = ~np.isfinite(arr)
        if bad.any():
            row = int(np.argmax(bad))
            raise FileFormatError(path, None, f"column {name!r}, row {row} (0-based): weight {arr[row]} "
                                              "is not a finite number")
        return arr.astype(np.float64, copy=False)
    return arr.astype(np.int64, copy=False)
