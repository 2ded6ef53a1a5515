"""Parquet edge tables: one row per edge, columns ``src``, ``dst`` and optionally ``weight``.

Other column names are chosen with ``src=``, ``dst=``, ``weight=``.  Only the
needed columns are read.  Parquet has no lines, so errors name the column and
the (0-based) row.

Values are taken exactly or refused: integer ids must fit int64 (uint64 past
it is an error), float ids must be integral and within int64 (converted
exactly), string ids are names; the id columns must be all integers or all
strings (``ids="str"`` reads integer ids as names, ``ids="int"`` requires
integers).  Weights are int64 (unsigned past int64 is an error: cast such a
column to float64) or float64, finite.  A file whose pages cannot be read
(truncated, corrupt) is a FileFormatError; the rows the file says it holds are
checked against host memory before they are read.
"""

from __future__ import annotations

import numpy as np

from ..errors import FileFormatError
from .columns import NAMES_HINT, build_graph, check_ids_mode, use_weights
from .text import existing_file

INT64_MAX = np.iinfo(np.int64).max
#: host bytes per row and id/weight column while reading (arrow column + numpy copy), and per
#: byte of the column chunks' uncompressed data
PARQUET_BYTES_PER_VALUE = 24
PARQUET_BYTES_PER_BYTE = 2


def read_parquet(path, *, directed=False, weighted=None, src="src", dst="dst", weight=None, ids="auto",
                 **graph_options):
    """A Graph from a Parquet edge table (see the module docstring)."""
    import pyarrow.parquet as pq  # noqa: PLC0415

    p = existing_file(path)
    check_ids_mode(ids, str(p))
    try:
        meta = pq.read_metadata(p)
        names = meta.schema.to_arrow_schema().names
    except Exception as exc:  # noqa: BLE001 - ArrowInvalid, OSError...
        raise FileFormatError(p, None, f"not a readable Parquet file ({exc})") from None
    for what, col in (("src", src), ("dst", dst)) + ((("weight", weight),) if weight is not None else ()):
        if col not in names:
            raise FileFormatError(p, None, f"no column {col!r} for {what}=; the columns are {names}")
    wcol = weight if weight is not None else ("weight" if "weight" in names else None)
    use_w = use_weights(weighted, wcol is not None, p, f" (columns are {names}; name it with weight=)")
    columns = [src, dst] + ([wcol] if use_w else [])
    _require_read(p, meta, columns)
    try:
        table = pq.read_table(p, columns=columns)
        scols = [_combined(table.column(c)) for c in (src, dst)]
        wcol_data = _combined(table.column(wcol)) if use_w else None
    except FileFormatError:
        raise
    except Exception as exc:  # noqa: BLE001 - OSError, ArrowInvalid... from a corrupt page
        raise FileFormatError(p, None, f"cannot read the Parquet data ({type(exc).__name__}: {exc})") from None
    s, d = _ids(p, scols, (src, dst), ids)
    w = _weights(p, wcol_data, wcol) if use_w else None
    return build_graph(p, s, d, w, directed=directed, options=graph_options)


def _combined(col):
    """One chunk (a ChunkedArray's chunks concatenated); decoding errors surface here."""
    col.validate(full=True)
    return col.combine_chunks() if col.num_chunks != 1 else col.chunk(0)


def _require_read(path, meta, columns):
    """GraphTooLargeError unless the rows the file declares fit in host memory."""
    from ..backend.device_memory import require_host  # noqa: PLC0415

    chunk_bytes = 0
    try:
        for g in range(meta.num_row_groups):
            rg = meta.row_group(g)
            for c in range(rg.num_columns):
                cc = rg.column(c)
                if cc.path_in_schema in columns:
                    chunk_bytes += max(0, cc.total_uncompressed_size)
    except Exception as exc:  # noqa: BLE001 - a damaged footer (bad UTF-8, bad offsets...)
        raise FileFormatError(path, None, f"not a readable Parquet file ({type(exc).__name__}: {exc})") from None
    need = PARQUET_BYTES_PER_VALUE * meta.num_rows * len(columns) + PARQUET_BYTES_PER_BYTE * chunk_bytes
    require_host(need, f"reading {path} ({meta.num_rows:,} rows)",
                 advice="read it in parts (dask.dataframe.read_parquet) and build the graph with "
                        "dgraph.from_dask_dataframe(...)")


def _no_nulls(path, col, name):
    if col.null_count:
        row = int(np.argmax(col.is_null().to_numpy(zero_copy_only=False)))
        raise FileFormatError(path, None, f"column {name!r}, row {row} (0-based): the value is missing (null)")


def _at(path, name, row, message):
    return FileFormatError(path, None, f"column {name!r}, row {row} (0-based): {message}")


def _ids(path, cols, names, mode):
    """The two id columns as int64 or str objects, one kind (see the module docstring)."""
    import pyarrow.types as pt  # noqa: PLC0415

    out = []
    for col, name in zip(cols, names):
        _no_nulls(path, col, name)
        if pt.is_dictionary(col.type):
            col = col.cast(col.type.value_type)
        out.append(col)
    kinds = []
    for col, name in zip(out, names):
        t = col.type
        if pt.is_integer(t) or pt.is_floating(t):
            kinds.append("int")
        elif pt.is_string(t) or pt.is_large_string(t) or getattr(pt, "is_string_view", lambda _: False)(t):
            kinds.append("str")
        else:
            raise FileFormatError(path, None, f"column {name!r} has type {t}; vertex ids must be integers or "
                                              "strings")
    if mode == "auto" and kinds[0] != kinds[1]:
        said = ", ".join(f"column {n!r} holds {'integers' if k == 'int' else 'strings'}" for n, k in zip(names, kinds))
        raise FileFormatError(path, None, f"{said}: ids must be all integers or all names; {NAMES_HINT}")
    result = []
    for col, name, kind in zip(out, names, kinds):
        if mode == "str":
            result.append(_as_names(col) if kind == "str" else _int_ids(path, col, name).astype(str).astype(object))
        elif kind == "int":
            result.append(_int_ids(path, col, name))
        elif mode == "int":
            result.append(_parse_int_ids(path, col, name))
        else:
            result.append(_as_names(col))
    return result


def _as_names(col):
    import pyarrow as pa  # noqa: PLC0415

    from ..backend.device_memory import require_host  # noqa: PLC0415
    from .table import NAME_BYTES  # noqa: PLC0415

    require_host(NAME_BYTES * len(col) + 2 * col.nbytes, f"keeping {len(col):,} vertex names",
                 advice="give the vertices integer ids")
    return col.cast(pa.string()).to_numpy(zero_copy_only=False).astype(object, copy=False)


def _int_ids(path, col, name):
    """An integer or float id column as int64, exactly, or FileFormatError at the first row that
    cannot be one."""
    import pyarrow.types as pt  # noqa: PLC0415

    arr = col.to_numpy(zero_copy_only=False)
    if pt.is_integer(col.type):
        if arr.dtype.kind == "u" and len(arr) and arr.max() > INT64_MAX:
            row = int(np.argmax(arr > INT64_MAX))
            raise _at(path, name, row, f"vertex id {int(arr[row])} is past the int64 range; {NAMES_HINT} "
                                       "(or store the ids as strings)")
        return arr.astype(np.int64, copy=False)
    arr = arr.astype(np.float64, copy=False)
    ok = np.isfinite(arr)
    ok &= arr == np.floor(np.where(ok, arr, 0))
    ok &= (arr >= -2.0 ** 63) & (arr < 2.0 ** 63)
    if not ok.all():
        row = int(np.argmin(ok))
        raise _at(path, name, row, f"vertex id {float(arr[row])!r} is not an integer within int64 (float ids must be "
                                   "integral and below 2**63; ids must be integers or strings)")
    return arr.astype(np.int64)


def _parse_int_ids(path, col, name):
    """A string id column read as integers (``ids='int'``)."""
    from .columns import _int_like, is_int  # noqa: PLC0415
    from .table import _decimal_ints  # noqa: PLC0415

    ints = _decimal_ints(col)
    if ints is not None:
        return ints
    values = col.to_numpy(zero_copy_only=False)
    like = _int_like(values.astype(object))
    row = int(np.argmin(like)) if not like.all() else next(i for i, v in enumerate(values) if not is_int(v))
    raise _at(path, name, row, f"vertex id {values[row]!r} is not an integer within int64 (ids='int')")


def _weights(path, col, name):
    import pyarrow.types as pt  # noqa: PLC0415

    _no_nulls(path, col, name)
    t = col.type
    if not (pt.is_integer(t) or pt.is_floating(t)):
        raise FileFormatError(path, None, f"column {name!r} has type {t}; weights must be numbers")
    arr = col.to_numpy(zero_copy_only=False)
    if arr.dtype.kind == "f":
        bad = ~np.isfinite(arr)
        if bad.any():
            row = int(np.argmax(bad))
            raise _at(path, name, row, f"weight {arr[row]} is not a finite number")
        return arr.astype(np.float64, copy=False)
    if arr.dtype.kind == "u" and len(arr) and arr.max() > INT64_MAX:
        row = int(np.argmax(arr > INT64_MAX))
        raise _at(path, name, row, f"weight {int(arr[row])} is past the int64 range (it would wrap); cast the "
                                   "column to float64 to use such weights")
    return arr.astype(np.int64, copy=False)
