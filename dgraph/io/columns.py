"""Parsed columns -> checked edge arrays -> Graph: the steps every reader shares.

Ids must be all integers or all names (strings); weights must be finite
numbers.  A column that breaks a rule sends the reader back over the text
(:func:`dgraph.io.table.first_bad_line`) to report the first bad line.
Negative weights are accepted here; algorithms that cannot use them say so.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from ..errors import DGraphError, FileFormatError, InputError
from ..graph import from_edges
from .table import first_bad_line

INT64_MAX = np.iinfo(np.int64).max


def is_int(token: str) -> bool:
    try:
        v = int(token)
    except ValueError:
        return False
    return -INT64_MAX - 1 <= v <= INT64_MAX


def number_problem(token: str, what: str, integer: bool = False):
    """Why ``token`` is not a valid (finite, or integer) number, or None when it is."""
    if integer:
        return None if is_int(token) else f"{what} {token!r} is not an integer"
    try:
        v = float(token)
    except ValueError:
        return f"{what} {token!r} is not a number"
    if not math.isfinite(v):
        return f"{what} {token!r} is not a finite number"
    return None


def expect(ncols, names, *, ints=(), numbers=(), integer_numbers=False, extra=None):
    """A line check for :func:`first_bad_line`: ``ncols`` fields (``names`` says what they are),
    integer fields at ``ints``, finite numbers at ``numbers``; ``extra(fields)`` for more."""
    label = " ".join(names[:ncols]) if names else ""

    def check(fields, row):
        if ncols is not None and len(fields) != ncols:
            return f"expected {ncols} fields ({label}), found {len(fields)}"
        for c in ints:
            if not is_int(fields[c]):
                return f"{names[c]} {fields[c]!r} is not an integer"
        for c in numbers:
            problem = number_problem(fields[c], names[c], integer_numbers)
            if problem:
                return problem
        return extra(fields) if extra else None

    return check


def fail(text, sep, check, header, fallback):
    """Scan for the first bad line (raises there); if none is found, raise with ``fallback``."""
    first_bad_line(text, sep, check, header=header)
    raise text.error(None, fallback)


def checked_ids(arr, text, sep, col, check_all, header=False, what="vertex id"):
    """Integer ids as int64 (integral floats such as ``1.0`` included), names as str objects."""
    if arr.dtype.kind in "iu" or arr.dtype == object:
        return arr
    if arr.dtype.kind == "f":
        ok = np.isfinite(arr) & (arr == np.floor(arr)) & (np.abs(arr) < 2.0 ** 63)
        if ok.all():
            return arr.astype(np.int64)

    def extra(fields):
        if not is_int(fields[col]):
            return f"{what} {fields[col]!r} is not an integer (ids must be all integers or all names)"
        return None

    fail(text, sep, _and(check_all, extra), header, f"column {col + 1}: {what}s must be integers or names")


def checked_weights(arr, text, sep, col, check_all, header=False, integer=False):
    """Weights as int64/float64; non-numbers and NaN/inf are reported at their line."""
    if arr.dtype.kind in "iu":
        return arr
    if arr.dtype.kind == "f" and not integer and np.isfinite(arr).all():
        return arr

    def extra(fields):
        return number_problem(fields[col], "weight", integer)

    fail(text, sep, _and(check_all, extra), header, f"column {col + 1}: weights must be finite numbers")


def _and(check, extra):
    def both(fields, row):
        return check(fields, row) or extra(fields)
    return both


def same_kind(*arrays):
    """Make id arrays comparable: if any holds names, all become names (str objects)."""
    if any(a is not None and a.dtype == object for a in arrays):
        return [None if a is None else (a if a.dtype == object else a.astype(str).astype(object))
                for a in arrays]
    return list(arrays)


def use_weights(weighted, has_column: bool, path, why: str = "") -> bool:
    """Whether to read weights: ``None`` -> when there is a weight column."""
    if weighted is None:
        return has_column
    if weighted and not has_column:
        raise FileFormatError(path, None, f"weighted=True but there is no weight column{why}")
    return bool(weighted)


def build_graph(path, src, dst, weights, *, directed, options, vertices=None):
    """``from_edges`` with the reader's options; its errors are given the file name."""
    opts = dict(options)
    opts.setdefault("name", graph_name(path))
    if src.dtype == object or dst.dtype == object:
        src, dst = same_kind(src, dst)
    try:
        return from_edges(src, dst, weights, directed=directed, vertices=vertices, **opts)
    except FileFormatError:
        raise
    except DGraphError as exc:  # the same kind of error (GraphTooLargeError stays one), with the file
        raise type(exc)(f"{path}: {exc}") from None


def graph_name(path) -> str:
    name = Path(path).name
    for _ in range(2):
        stem, dot, ext = name.rpartition(".")
        if dot and stem and ext.lower() in ("gz", "bz2", "xz", "el", "wel", "txt", "edges", "tsv", "snap",
                                            "csv", "mtx", "e", "v", "parquet", "pq"):
            name = stem
    return name
