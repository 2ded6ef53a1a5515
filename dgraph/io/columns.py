"""Parsed columns -> checked edge arrays -> Graph: the steps every reader shares.

The id rule, the same for every text reader and every parse path: an id is an
integer when it is written as one (``[+-]digits``, no hex, no ``.0``; it must
fit int64), else a name.  All the ids of a graph (sources, targets and a
Graphalytics ``.v`` file) are of one kind: with ``ids="auto"`` (the default)
a mix of integers and names is an error that names the first line where the
kind changes; ``ids="str"`` reads every id as a name (``007`` and ``7`` are
then two vertices), ``ids="int"`` requires integers.  Weights must be finite
numbers: int64 when every weight of the column is an integer that fits
int64, else float64.  A column that breaks a rule sends the reader back over
the text (:func:`dgraph.io.table.first_bad_line`) to report the first bad
line.  Negative weights are accepted here; algorithms that cannot use them
say so.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from ..errors import DGraphError, FileFormatError, InputError
from ..graph import from_edges
from .table import INT_TOKEN, NUMBER_TOKEN, WHITESPACE, first_bad_line, line_of_row
from .text import quoted

INT64_MAX = np.iinfo(np.int64).max
ID_MODES = ("auto", "int", "str")
NAMES_HINT = "pass ids='str' to read every id as a name"


def is_int(token: str) -> bool:
    """Whether ``token`` is a decimal integer within int64."""
    token = token.strip(WHITESPACE)
    return bool(INT_TOKEN.match(token)) and -INT64_MAX - 1 <= int(token) <= INT64_MAX


def number_problem(token: str, what: str, integer: bool = False):
    """Why ``token`` is not a valid (finite, or int64 integer) number, or None when it is."""
    t = token.strip(WHITESPACE)
    if integer:
        if INT_TOKEN.match(t):
            return None if is_int(t) else f"{what} {quoted(token)} is past the int64 range"
        return f"{what} {quoted(token)} is not an integer"
    if NUMBER_TOKEN.match(t):
        return None if math.isfinite(float(t)) else f"{what} {quoted(token)} is not a finite number"
    if t.lower().lstrip("+-") in ("inf", "infinity", "nan"):
        return f"{what} {quoted(token)} is not a finite number"
    return f"{what} {quoted(token)} is not a number"


def check_ids_mode(ids, where):
    if ids not in ID_MODES:
        raise InputError(f"{where}: ids={ids!r}: expected 'auto' (integers or names, one kind), "
                         "'int' or 'str' (every id a name)")
    return ids


def expect(ncols, names, *, ints=(), numbers=(), integer_numbers=False, extra=None):
    """A line check for :func:`first_bad_line`: ``ncols`` fields (``names`` says what they are),
    integer fields at ``ints``, finite numbers at ``numbers``; ``extra(fields)`` for more."""
    label = " ".join(names[:ncols]) if names else ""

    def check(fields, row):
        if ncols is not None and len(fields) != ncols:
            return f"expected {ncols} fields ({label}), found {len(fields)}"
        if "" in fields:
            i = fields.index("")
            return f"{names[i] if i < len(names) else f'field {i + 1}'} is empty"
        for c in ints:
            if not is_int(fields[c]):
                return f"{names[c]} {quoted(fields[c])} is not an integer"
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


class IdColumn:
    """A parsed id column and where it came from: ``text``, separator, header, 0-based column."""

    def __init__(self, values, text, sep, col, header=False, what="vertex id"):
        self.values, self.text, self.sep, self.col, self.header, self.what = values, text, sep, col, header, what

    def line(self, row):
        return line_of_row(self.text, self.sep, row, header=self.header)

    def token(self, row) -> str:
        v = self.values[row]
        return str(v.item() if hasattr(v, "item") else v)


def _int_like(values):
    """Per value: written as a decimal integer (an int64 column: all of them)."""
    if values.dtype.kind == "i":
        return np.ones(len(values), dtype=bool)
    import pyarrow as pa  # noqa: PLC0415
    import pyarrow.compute as pc  # noqa: PLC0415

    col = pc.utf8_trim(pa.array(values, type=pa.string()), WHITESPACE)
    return pc.match_substring_regex(col, "^" + INT_TOKEN.pattern.removesuffix("\\Z") + "$").to_numpy(
        zero_copy_only=False)


def resolve_ids(columns, ids="auto"):
    """The id arrays of ``columns`` (IdColumn list, in file order): all int64 or all str objects,
    by the rule of the module docstring; FileFormatError at the line that breaks it."""
    if ids == "str":
        return [c.values if c.values.dtype == object else c.values.astype(str).astype(object) for c in columns]
    likes = [_int_like(c.values) for c in columns]
    all_int = all(like.all() for like in likes)
    if ids == "int" or all_int:
        out = []
        for c, like in zip(columns, likes):
            if not like.all():
                row = int(np.argmin(like))
                raise c.text.error(c.line(row), f"{c.what} {quoted(c.token(row))} is not an integer (ids='int')")
            out.append(c.values if c.values.dtype.kind == "i" else _to_int64(c))
        return out
    if not any(like.any() for like in likes):
        return [c.values for c in columns]
    # a mix: name the first id of the other kind than the file's first id
    first = next(i for i, c in enumerate(columns) if len(c.values))
    first_int = bool(likes[first][0])
    kind = ("an integer", "a name")
    best = None  # (column, row) of the first id of the other kind, in file order then row order
    for c, like in zip(columns, likes):
        other = ~like if first_int else like
        if not other.any():
            continue
        row = int(np.argmax(other))
        if best is None or (c.text is best[0].text and row < best[1]):
            best = (c, row)
    c, row = best
    f = columns[first]
    mine, theirs = (kind[1], kind[0]) if first_int else (kind[0], kind[1])
    raise c.text.error(c.line(row), f"{c.what} {quoted(c.token(row))} is {mine}, but {f.what} "
                                    f"{quoted(f.token(0))} (line {f.line(0)}) is {theirs}: ids must be all "
                                    f"integers or all names; {NAMES_HINT}")


def _to_int64(c):
    """A column of decimal integer strings as int64; FileFormatError at the first past int64."""
    from .table import _decimal_ints  # noqa: PLC0415

    ints = _decimal_ints(_as_arrow(c.values))
    if ints is not None:
        return ints
    for row, v in enumerate(c.values):
        if not is_int(v):
            raise c.text.error(c.line(row), f"{c.what} {quoted(v.strip(WHITESPACE))} is past the int64 range "
                                            f"({-INT64_MAX - 1}..{INT64_MAX}); {NAMES_HINT}")
    raise c.text.error(None, f"column {c.col + 1}: {c.what}s must fit int64")  # pragma: no cover


def _as_arrow(values):
    import pyarrow as pa  # noqa: PLC0415

    return pa.array(values, type=pa.string())


def checked_weights(arr, text, sep, col, check_all, header=False, integer=False):
    """Weights as int64/float64; non-numbers and NaN/inf are reported at their line.

    ``integer`` (a Matrix Market integer field): every weight an int64.  Otherwise a column of
    integers past int64 (parsed as uint64) is read as floats, like a column with any real in it."""
    if arr.dtype.kind == "i":
        return arr
    if arr.dtype.kind == "u" and not integer:
        return arr.astype(np.float64)
    if arr.dtype.kind == "f" and not integer and np.isfinite(arr).all():
        return arr

    def extra(fields):
        return number_problem(fields[col], "weight", integer)

    fail(text, sep, _and(check_all, extra), header, f"column {col + 1}: weights must be finite numbers")


def _and(check, extra):
    def both(fields, row):
        return check(fields, row) or extra(fields)
    return both


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
