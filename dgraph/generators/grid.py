"""2D grid graphs: a regular, high-diameter, no-randomness test and benchmark graph.

What: ``rows x cols`` vertices, vertex ``(r, c)`` has id ``r * cols + c`` and
is joined to its 4 neighbours (right and down, and by symmetry left and up).
There are ``2*rows*cols - rows - cols`` edges; corners have degree 2, other
border vertices 3, inner vertices 4.  A grid has diameter ``rows + cols - 2``,
so it stresses the superstep count the way road networks do, while R-MAT
stresses load balance.

Generated edge order (this is what edge weights are keyed on): all horizontal
edges ``(r, c) -> (r, c+1)`` row by row, then all vertical edges
``(r, c) -> (r+1, c)``.  ``directed=True`` keeps exactly these arcs (right and
down), giving a DAG; the default undirected graph stores both directions.
The structure uses no randomness (the seed only sets the weights).
"""

from __future__ import annotations

from ..backend import vertex_dtype
from ..errors import InputError
from .params import check_int, exclusive

PARAMS = ("rows", "cols", "shape", "n")
MAX_VERTICES = 2**40


def parse(params):
    which = exclusive("grid", params, "shape", "n", "rows")
    if which == "shape":
        shape = params["shape"]
        if params.get("cols") is not None:
            raise InputError("generate('grid'): give only one of shape, (rows, cols), n (got shape and cols)")
        try:
            r, c = shape
        except (TypeError, ValueError):
            raise InputError(f"shape={shape!r}: expected (rows, cols), two positive integers") from None
        rows, cols = check_int("shape[0] (rows)", r, 1), check_int("shape[1] (cols)", c, 1)
    elif which == "n":
        if params.get("cols") is not None:
            raise InputError("generate('grid'): give only one of shape, (rows, cols), n (got n and cols)")
        rows = cols = check_int("n", params["n"], 1)
    else:
        if params.get("rows") is None or params.get("cols") is None:
            missing = "rows" if params.get("rows") is None else "cols"
            raise InputError(f"generate('grid'): missing parameter {missing!r} "
                             "(give rows and cols, shape=(rows, cols), or n for an n x n grid)")
        rows, cols = check_int("rows", params["rows"], 1), check_int("cols", params["cols"], 1)
    if rows * cols > MAX_VERTICES:
        raise InputError(f"rows * cols = {rows * cols}: at most 2**40 vertices")
    return {"rows": rows, "cols": cols}


def grid_edges(xp, rows, cols):
    """``(src, dst)``: the horizontal then the vertical edges, each once, pointing right/down."""
    vdt = vertex_dtype(rows * cols)
    h = xp.arange(rows * cols, dtype=vdt).reshape(rows, cols)[:, :-1].ravel()  # (r, c), c < cols-1
    v = xp.arange((rows - 1) * cols, dtype=vdt)                                  # (r, c), r < rows-1
    src = xp.concatenate([h, v])
    dst = xp.concatenate([h + 1, v + cols])
    return src, dst


def size(p):
    """(vertices, edges)."""
    r, c = p["rows"], p["cols"]
    return r * c, r * (c - 1) + c * (r - 1)


def scratch_bytes(p, item, chunk=None):
    """Host bytes besides the edge arrays: the index ranges they are cut from and ``+1``/``+cols`` copies."""
    return 4 * p["rows"] * p["cols"] * item


def edges(xp, seed, p, chunk=None):
    """``(src, dst, n, name)`` for :func:`dgraph.generators.generate`."""
    src, dst = grid_edges(xp, p["rows"], p["cols"])
    return src, dst, p["rows"] * p["cols"], f"grid-{p['rows']}x{p['cols']}"
