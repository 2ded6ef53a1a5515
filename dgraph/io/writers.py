"""Writers for per-vertex results: CSV, Parquet, NPZ and Graphalytics (``vertex value`` lines).

Every writer fills a temporary file in the destination folder and renames it
into place only when it is complete, so an error never leaves a partial file
and never touches an existing one; an existing path is replaced only with
``overwrite=True``.  Columns come from ``Result.to_numpy()``: ``vertex``
first, vertex-valued columns already in the user's ids.
"""

from __future__ import annotations

import json
import os
import secrets
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from ..errors import InputError, OutputExistsError

WRITE_FORMATS = ("csv", "parquet", "npz", "graphalytics")
EXTENSIONS = {".csv": "csv", ".parquet": "parquet", ".pq": "parquet", ".npz": "npz"}
INT_INFINITY = "9223372036854775807"  # Graphalytics' "unreachable" for integer values
FLOAT_TEXT = {"inf": "Infinity", "-inf": "-Infinity", "nan": "NaN"}


def write_result(result, path, format=None, *, columns=None, overwrite=False) -> Path:
    """Write ``result`` to ``path``; returns the path written.

    format: "csv", "parquet", "npz" (told by the extension .csv/.parquet/.pq/.npz)
    or "graphalytics" (asked for with ``format=``; any extension): one
    ``vertex value`` line per vertex, sorted by vertex, for one column
    (``columns=[name]``, default the result's first column); a missing value
    is written ``9223372036854775807`` in an integer column and ``Infinity``
    in a float one, as the LDBC reference outputs do.
    columns: the result columns to write (default all); ``vertex`` always comes first.
    A result that is not per vertex (``dgraph.jaccard``'s pairs) writes itself: its ``write``.
    """
    if getattr(type(result), "per_pair", False):  # the type's flag: a Result's own lookup could fetch its columns
        return result.write(path, format, columns=columns, overwrite=overwrite)
    dataset = _is_dataset(result, format, path)
    p, fmt = check_output_path(path, overwrite=overwrite, fmt=format, folder_ok=dataset)
    names = _columns(result, columns)
    if dataset:
        return _write_dataset(result, p, names, overwrite)
    if fmt == "graphalytics" and len(names) != 1:
        names = names[:1] if columns is None else names
        if len(names) != 1:
            raise InputError(f"{p}: Graphalytics output holds one column; pass columns=[name] with one of "
                             f"{result.columns}")
    data = result.to_numpy()
    table = {"vertex": data["vertex"], **{n: data[n] for n in names}}
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        with _atomic(p, overwrite) as tmp:
            WRITERS[fmt](tmp, table, result)
    except OSError as e:  # e.g. the disk filled up; the temporary file is gone, an existing file untouched
        raise InputError(f"{p}: cannot write it: {e.strerror or e}") from None
    return p


def check_output_path(path, *, overwrite=False, fmt=None, folder_ok=False):
    """``(Path, format)`` for an output, checked before any work is done (e.g. by the CLI
    before it runs an algorithm): the format is known, the path is not empty, not a folder
    (unless ``folder_ok``: a Parquet dataset of a partitioned result replaces one with
    ``overwrite``), not too long for the file system, its folder is a folder (or can be made)
    that this process can write in, and it does not exist unless ``overwrite``."""
    if not isinstance(path, (str, os.PathLike)) or not str(path).strip():
        raise InputError(f"output path {str(path)!r}: expected a file name")
    p = Path(path).expanduser()
    fmt = _format(p, fmt)
    check_writable(p, overwrite=overwrite, folder_ok=folder_ok)
    return p, fmt


#: bytes the atomic writer adds to a file name for its temporary file (".NAME.xxxxxxxx.tmp")
TMP_EXTRA = 15


def check_writable(path, *, overwrite=False, folder_ok=False):
    """Raise a DGraphError now, not after the work, when ``path`` could not be written: see
    :func:`check_output_path` (which adds the format).  Where the folder exists, a probe file is
    made in it and removed at once, so a read-only or special file system is caught too."""
    p = Path(path).expanduser()
    text = str(p)
    if len(text) > 100:
        p_shown = f"{text[:60]}...{text[-20:]}"
    else:
        p_shown = text
    if "\0" in text:
        raise InputError(f"{text!r}: a NUL is not allowed in a file name")
    folder = Path(os.path.abspath(p)).parent
    top = folder
    while not os.path.lexists(top) and top.parent != top:
        top = top.parent
    if not top.is_dir():
        raise InputError(f"{p}: {top} is a file, not a folder")
    limit = _name_max(top) - TMP_EXTRA
    for part in p.parts:
        if len(os.fsencode(part)) > limit:
            raise InputError(f"{p_shown}: the name {part[:40]!r}... is {len(os.fsencode(part))} bytes; at most {limit} "
                             f"here (the file system's limit, less room for the temporary file)")
    if len(os.fsencode(os.path.abspath(p))) + TMP_EXTRA >= 4096:
        raise InputError(f"{p_shown}: the path is too long for the file system")
    if p.is_dir() and not (folder_ok and overwrite):
        if folder_ok:
            raise OutputExistsError(f"{p}: already exists; pass overwrite=True to replace it")
        raise OutputExistsError(f"{p}: is a folder; give a file name to write the result to")
    if os.path.lexists(p) and not overwrite:
        raise OutputExistsError(f"{p}: already exists; pass overwrite=True to replace it")
    if top != folder:
        if not os.access(top, os.W_OK | os.X_OK):
            raise InputError(f"{p}: cannot write in {top} (permission denied)")
        return
    probe = folder / f".{p.name}.{secrets.token_hex(4)}.tmp"
    try:
        os.close(os.open(probe, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
        os.unlink(probe)
    except OSError as e:
        raise InputError(f"{p}: cannot write in {folder}: {e.strerror or e}") from None


def _name_max(folder):
    try:
        return int(os.pathconf(folder, "PC_NAME_MAX"))
    except (OSError, ValueError, AttributeError):
        return 255


def _format(p: Path, format):
    if format is None:
        fmt = EXTENSIONS.get(p.suffix.lower())
        if fmt is None:
            raise InputError(f"{p}: cannot tell the output format from the extension {p.suffix or '(none)'!r}; "
                             f"use .csv, .parquet or .npz, or pass format= one of {', '.join(WRITE_FORMATS)}")
        return fmt
    fmt = str(format).lower()
    if fmt not in WRITE_FORMATS:
        raise InputError(f"format={format!r}: expected one of {', '.join(WRITE_FORMATS)}")
    return fmt


def _columns(result, columns):
    if columns is None:
        return list(result.columns)
    if isinstance(columns, str):
        columns = [columns]
    names = [c for c in columns if c != "vertex"]
    unknown = [c for c in names if c not in result.columns]
    if unknown:
        raise InputError(f"columns={list(columns)!r}: {unknown[0]!r} is not a column of this "
                         f"{result.algorithm} result; columns: {result.columns}")
    return names


def _is_dataset(result, format, path):
    """A Parquet output of a partitioned result still on its workers is written by them: a folder
    of one file per partition (a Parquet dataset, read back whole by pandas/pyarrow/dask)."""
    if not getattr(result, "on_workers", False) or int(result.params.get("partitions", 1) or 1) < 2:
        return False
    try:
        return _format(Path(path).expanduser(), format) == "parquet"
    except InputError:
        return False


def _write_dataset(result, p: Path, names, overwrite):
    """The workers write ``part.<q>.parquet`` into a fresh folder beside ``p``; renamed into place."""
    import shutil  # noqa: PLC0415

    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(f".{p.name}.{secrets.token_hex(4)}.tmp")
    try:
        ddf = result.to_dask()[["vertex", *names]]
        with result._remote.client.as_current():  # the run's client writes, whether or not it is the default
            ddf.to_parquet(str(tmp), write_index=False, write_metadata_file=False,
                           custom_metadata={"dgraph.algorithm": str(result.algorithm),
                                            "dgraph.vertex_columns": json.dumps(list(result.vertex_columns))})
        old = None
        if p.exists():
            if not overwrite:
                raise OutputExistsError(f"{p}: already exists; pass overwrite=True to replace it")
            old = p.with_name(f".{p.name}.{secrets.token_hex(4)}.old")
            os.replace(p, old)
        os.replace(tmp, p)
        if old is not None:
            shutil.rmtree(old) if old.is_dir() else old.unlink()
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return p


@contextmanager
def _atomic(path: Path, overwrite: bool):
    """A fresh temporary path beside ``path``; renamed to ``path`` when the block succeeds."""
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    os.close(os.open(tmp, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666))  # mode from the umask
    try:
        yield tmp
        if overwrite:
            os.replace(tmp, path)
        else:
            try:
                os.link(tmp, path)  # fails if path appeared meanwhile: never replace it
            except FileExistsError:
                raise OutputExistsError(f"{path}: already exists; pass overwrite=True to replace it") from None
            except OSError:  # no hard links on this file system
                if path.exists():
                    raise OutputExistsError(f"{path}: already exists; pass overwrite=True to replace it") from None
                os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


# -- formats ----------------------------------------------------------------------------------
def _write_csv(tmp, table, result):
    import pandas as pd  # noqa: PLC0415

    pd.DataFrame(table).to_csv(tmp, index=False)


def _write_parquet(tmp, table, result):
    import pyarrow as pa  # noqa: PLC0415
    import pyarrow.parquet as pq  # noqa: PLC0415

    meta = {"dgraph.algorithm": str(result.algorithm),
            "dgraph.missing": json.dumps({k: _plain(v) for k, v in result.missing.items()}),
            "dgraph.vertex_columns": json.dumps(list(result.vertex_columns))}
    t = pa.table({k: pa.array(v) for k, v in table.items()})
    pq.write_table(t.replace_schema_metadata(meta), tmp)


def _plain(v):
    return v.item() if isinstance(v, np.generic) else (v if v is None or isinstance(v, (int, float, str)) else str(v))


def _write_npz(tmp, table, result):
    arrays = {k: (_as_text(v) if v.dtype == object else v) for k, v in table.items()}
    with open(tmp, "wb") as f:
        np.savez(f, **arrays)


def _as_text(values):
    """Object columns (string ids, None for missing) as a str array, missing as ''."""
    return np.array(["" if x is None else str(x) for x in values], dtype=str)


def _write_graphalytics(tmp, table, result):
    (name, values), = [(k, v) for k, v in table.items() if k != "vertex"]
    vertex = table["vertex"]
    order = np.argsort(vertex, kind="stable")
    text = _value_text(values[order], result.missing.get(name))
    lines = np.char.add(np.char.add(np.asarray(vertex[order]).astype(str), " "), text)
    with open(tmp, "w", encoding="utf-8", newline="\n") as f:
        if len(lines):
            f.write("\n".join(lines.tolist()))
            f.write("\n")


def _value_text(values, missing):
    """Graphalytics text of a column: integers as integers, floats with full precision."""
    values = np.asarray(values)
    kind = values.dtype.kind
    if kind == "b":
        values, kind = values.astype(np.int64), "i"
    if kind in "iu":
        out = values.astype(str).astype(object)
        if missing is not None:
            out[values == missing] = INT_INFINITY
    elif kind == "f":
        out = values.astype(str).astype(object)
        for k, v in FLOAT_TEXT.items():
            out[out == k] = v
        if missing is not None and np.isfinite(missing):
            out[values == missing] = "Infinity"
    else:
        gone = np.array([x is None or (missing is not None and x == missing) for x in values], dtype=bool)
        out = np.array([str(x) for x in values], dtype=object)
        out[gone] = INT_INFINITY
    return out.astype(str) if len(out) else np.empty(0, dtype=str)


WRITERS = {"csv": _write_csv, "parquet": _write_parquet, "npz": _write_npz, "graphalytics": _write_graphalytics}
