"""Matrix Market (.mtx) files: a sparse matrix read as a graph, entry (i, j) = edge i -> j.

Supported: the coordinate format with field pattern, integer or real and
symmetry general (a directed graph by default) or symmetric (undirected by
default; with ``directed=True`` every off-diagonal entry gives both arcs).
Indices are 1-based in the file and 0-based in the graph, which has
``max(rows, cols)`` vertices.  Dense (array) files, complex values and
skew-symmetric/hermitian matrices are refused with a clear error: none of them
is a graph's edge list.
"""

from __future__ import annotations

import numpy as np

from .columns import build_graph, checked_weights, expect, fail, is_int, use_weights
from .table import ParseFailed, parse_table, require_parse
from .text import Text, quoted

HEADER_HELP = "a Matrix Market header looks like '%%MatrixMarket matrix coordinate real general'"
FIELDS = ("real", "double", "integer", "pattern")
SYMMETRIES = ("general", "symmetric")


def read_header(text: Text):
    """``(field, symmetry)`` from line 1, or FileFormatError at line 1."""
    line = text.first_data_line() if text.first_line == 1 else None
    tokens = (line or "").lower().split()
    if len(tokens) != 5 or tokens[0] != "%%matrixmarket":
        found = (line or "")[:80]
        raise text.error(1, f"not a Matrix Market header: {HEADER_HELP}, found {quoted(found)}")
    _, obj, layout, field, symmetry = tokens
    if obj != "matrix":
        raise text.error(1, f"object {obj!r} is not supported; expected 'matrix' ({HEADER_HELP})")
    if layout == "array":
        raise text.error(1, "dense 'array' Matrix Market files are not supported; expected 'coordinate' (a sparse edge list)")
    if layout != "coordinate":
        raise text.error(1, f"format {layout!r}: expected 'coordinate' ({HEADER_HELP})")
    if field == "complex":
        raise text.error(1, "complex values are not supported; expected field real, integer or pattern")
    if field not in FIELDS:
        raise text.error(1, f"field {field!r}: expected real, integer or pattern")
    if symmetry in ("skew-symmetric", "hermitian"):
        raise text.error(1, f"{symmetry} matrices are not supported; expected symmetry general or symmetric")
    if symmetry not in SYMMETRIES:
        raise text.error(1, f"symmetry {symmetry!r}: expected general or symmetric")
    return ("real" if field == "double" else field), symmetry


def _next_line(text: Text):
    """Move ``text`` past its current line."""
    end = text.data.find(b"\n", text.offset)
    text.offset = len(text.data) if end < 0 else end + 1
    text.first_line += 1


def read_mtx(path, *, directed=None, weighted=None, **graph_options):
    """A Graph from a Matrix Market coordinate file (see the module docstring)."""
    text = Text.open(path)
    field, symmetry = read_header(text)
    _next_line(text)
    text.skip_comments()
    size_line_no = text.first_line
    size = (text.first_data_line() or "").split()
    if len(size) != 3 or not all(is_int(t) and int(t) >= 0 for t in size):
        raise text.error(size_line_no if text.first_data_line() is not None else None,
                         f"expected the size line 'rows columns entries' (three non-negative integers), "
                         f"found {quoted(' '.join(size))}")
    nrows, ncols, nnz = map(int, size)
    _next_line(text)
    text.skip_comments()

    nfields = 2 if field == "pattern" else 3
    names = ["row index", "column index", "value"]

    def in_range(fields):
        r, c = int(fields[0]), int(fields[1])
        if not 1 <= r <= nrows:
            return f"row index {r} is out of range 1..{nrows}"
        if not 1 <= c <= ncols:
            return f"column index {c} is out of range 1..{ncols}"
        return None

    check = expect(nfields, names, ints=(0, 1), numbers=(2,) if nfields == 3 else (),
                   integer_numbers=field == "integer", extra=in_range)
    require_parse(text, nfields)
    try:
        table = parse_table(text, " ")
    except ParseFailed as exc:
        fail(text, " ", check, False, f"cannot be parsed as Matrix Market entries: {exc}")
    if table.nrows != nnz:
        raise text.error(size_line_no, f"the size line says {nnz} entries but the file has {table.nrows}")
    if nnz == 0:  # no entries; a real or integer matrix is still weighted
        rows = cols = np.empty(0, np.int64)
        vals = None if nfields == 2 else np.empty(0, np.int64 if field == "integer" else np.float64)
    else:
        if table.ncols != nfields:
            fail(text, " ", check, False, f"expected {nfields} fields per entry")
        rows, cols = table.columns[0], table.columns[1]
        if rows.dtype.kind != "i" or cols.dtype.kind != "i" or not _within(rows, nrows) or not _within(cols, ncols):
            fail(text, " ", check, False, "entries must be 1-based integer indices within the size line")
        rows, cols = rows - 1, cols - 1
        vals = None if nfields == 2 else checked_weights(table.columns[2], text, " ", 2, check,
                                                         integer=field == "integer")
    if vals is not None and field == "real":
        vals = vals.astype(np.float64, copy=False)
    why = " (the header says field pattern)"
    if not use_weights(weighted, vals is not None, text.path, why):
        vals = None
    if directed is None:
        directed = symmetry == "general"
    elif directed and symmetry == "symmetric":
        off = rows != cols
        rows, cols = np.concatenate([rows, cols[off]]), np.concatenate([cols, rows[off]])
        vals = None if vals is None else np.concatenate([vals, vals[off]])
    if graph_options.get("renumber") is not True:  # the size line is the vertex count (memory checked)
        graph_options.setdefault("num_vertices", max(nrows, ncols))
    return build_graph(text.path, rows, cols, vals, directed=directed, options=graph_options)


def _within(a, n) -> bool:
    return bool(len(a) == 0 or (a.min() >= 1 and a.max() <= n))
