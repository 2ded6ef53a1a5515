"""LDBC Graphalytics graphs: ``<name>.v`` (one vertex id a line), ``<name>.e`` (``src dst [weight]``)
and, when present, ``<name>.properties`` (directedness, edge properties).

The vertex set comes from the ``.v`` file, so isolated vertices are kept and
every result maps back to the ids of the file.  An edge whose vertex is not
in the ``.v`` file is an error that names the ``.e`` line.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..errors import InputError, MissingFileError
from .columns import build_graph, checked_ids, checked_weights, expect, fail, same_kind, use_weights
from .properties import directed_property, read_properties, weighted_property
from .table import ParseFailed, data_lines, detect_sep, line_of_row, parse_table
from .text import Text, existing_file


def graph_files(path):
    """``(base, .e path, .v path, .properties path)`` for a path to the .e, .v, .properties or the base name."""
    p = Path(path).expanduser()
    base = p.with_suffix("") if p.suffix in (".e", ".v", ".properties") else p
    e, v = base.with_name(base.name + ".e"), base.with_name(base.name + ".v")
    return base, e, v, base.with_name(base.name + ".properties")


def read_graphalytics(path, *, directed=None, weighted=None, **graph_options):
    """A Graph from a Graphalytics ``.v``/``.e`` pair (see the module docstring)."""
    base, e_path, v_path, p_path = graph_files(path)
    existing_file(e_path)
    if not v_path.exists():
        raise MissingFileError(f"{v_path}: no such file; a Graphalytics graph needs the vertex file "
                               f"{v_path.name} beside {e_path.name}")
    if "num_vertices" in graph_options:
        raise InputError(f"{e_path}: num_vertices= cannot be used with a Graphalytics graph; "
                         f"the vertices are those of {v_path.name}")
    name = base.name
    props = read_properties(p_path) if p_path.exists() else {}
    if directed is None:
        directed = directed_property(p_path, props, name)
        if directed is None:
            why = f"{p_path.name} does not say" if props else f"there is no {p_path.name} beside it to say"
            raise InputError(f"{e_path}: pass directed=True or directed=False: {why} whether the graph is directed")
    if weighted is None:
        weighted = weighted_property(props, name)

    vertices, v_text = _read_vertices(v_path)
    src, dst, weights, e_text, sep = _read_edges(e_path, weighted)
    vertices, src, dst = same_kind(vertices, src, dst)
    _check_members(e_text, sep, v_path, vertices, src, dst)
    graph_options.setdefault("name", name)
    return build_graph(e_path, src, dst, weights, directed=directed, options=graph_options, vertices=vertices)


def _read_vertices(v_path):
    text = Text.open(v_path).skip_comments()
    sep = " "  # one id a line: any whitespace around it
    check = expect(1, ["vertex id"])
    try:
        table = parse_table(text, sep, id_columns=(0,))
    except ParseFailed as exc:
        fail(text, sep, check, False, f"cannot be parsed as a vertex list: {exc}")
    if table.ncols == 0:
        return np.empty(0, np.int64), text
    if table.ncols != 1:
        fail(text, sep, check, False, "expected one vertex id per line")
    ids = checked_ids(table.columns[0], text, sep, 0, check)
    if len(np.unique(ids)) != len(ids):
        seen = {}
        for lineno, fields in data_lines(text, sep):
            if fields[0] in seen:
                raise text.error(lineno, f"vertex id {fields[0]!r} is listed twice (first on line {seen[fields[0]]})")
            seen[fields[0]] = lineno
    return ids, text


def _read_edges(e_path, weighted):
    text = Text.open(e_path).skip_comments()
    sep = detect_sep(text.first_data_line())
    first = next(data_lines(text, sep), (None, None))[1]
    n_first = len(first) if first else None
    names = ["source", "target", "weight"]
    try:
        table = parse_table(text, sep)
    except ParseFailed as exc:
        fail(text, sep, expect(n_first, names), False, f"cannot be parsed as an edge list: {exc}")
    if table.ncols == 0:
        use_weights(weighted, False, e_path, " (the file has no edges)")
        empty = np.empty(0, np.int64)
        return empty, empty, None, text, sep
    if table.ncols not in (2, 3):
        raise text.error(text.first_line, f"expected 2 or 3 fields (source target [weight]), found {table.ncols}")
    check = expect(table.ncols, names)
    src = checked_ids(table.columns[0], text, sep, 0, check)
    dst = checked_ids(table.columns[1], text, sep, 1, check)
    weights = None
    if use_weights(weighted, table.ncols == 3, e_path, f" (found {table.ncols} columns)"):
        weights = checked_weights(table.columns[2], text, sep, 2, check)
    return src, dst, weights, text, sep


def _check_members(e_text, sep, v_path, vertices, src, dst):
    """Every edge endpoint must be in the .v file; else name the first .e line that breaks it."""
    labels = np.sort(vertices) if len(vertices) else vertices
    bad_rows = []
    for ids in (src, dst):
        if len(ids) == 0:
            continue
        if len(labels) == 0:
            bad_rows.append(0)
            continue
        pos = np.minimum(np.searchsorted(labels, ids), len(labels) - 1)
        miss = labels[pos] != ids
        if miss.any():
            bad_rows.append(int(np.argmax(miss)))
    if bad_rows:
        row = min(bad_rows)
        vertex = src[row] if not (len(labels) and np.isin(src[row:row + 1], labels).all()) else dst[row]
        if isinstance(vertex, np.generic):
            vertex = vertex.item()
        raise e_text.error(line_of_row(e_text, sep, row),
                           f"vertex {vertex!r} is not in the vertex file {v_path.name}")
