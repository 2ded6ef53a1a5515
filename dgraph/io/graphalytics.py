"""LDBC Graphalytics graphs: ``<name>.v`` (one vertex id a line), ``<name>.e`` (``src dst [weight]``)
and, when present, ``<name>.properties`` (directedness, edge properties).  ``<name>.e.gz`` (or .bz2,
.xz) is read with ``<name>.v.gz`` beside it, else ``<name>.v``.

The vertex set comes from the ``.v`` file, so isolated vertices are kept and
every result maps back to the ids of the file.  An edge whose vertex is not
in the ``.v`` file is an error that names the ``.e`` line.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..errors import InputError, MissingFileError
from .columns import (IdColumn, build_graph, check_ids_mode, checked_weights, expect, fail, resolve_ids,
                      use_weights)
from .properties import directed_property, read_properties, weighted_property
from .table import ParseFailed, data_lines, detect_sep, line_of_row, parse_table, require_parse
from .text import COMPRESSIONS, Text, existing_file, quoted


def graph_files(path):
    """``(base, .e path, .v path, .properties path)`` for a path to the .e, .v, .properties or the base
    name; a compressed ``g.e.gz`` pairs with ``g.v.gz`` (else ``g.v``)."""
    p = Path(path).expanduser()
    zipped = p.suffix.lower() if p.suffix.lower() in COMPRESSIONS else ""
    if zipped:
        p = p.with_suffix("")
    base = p.with_suffix("") if p.suffix in (".e", ".v", ".properties") else p
    e, v = base.with_name(base.name + ".e" + zipped), base.with_name(base.name + ".v" + zipped)
    if zipped and not v.exists() and base.with_name(base.name + ".v").exists():
        v = base.with_name(base.name + ".v")
    return base, e, v, base.with_name(base.name + ".properties")


def read_graphalytics(path, *, directed=None, weighted=None, ids="auto", **graph_options):
    """A Graph from a Graphalytics ``.v``/``.e`` pair (see the module docstring)."""
    check_ids_mode(ids, str(path))
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

    v_col = _read_vertices(v_path, ids)
    e_cols, weights = _read_edges(e_path, weighted, ids)
    vertices, src, dst = resolve_ids([v_col] + e_cols, ids)
    _check_unique(v_col, vertices)
    _check_members(e_cols[0].text, e_cols[0].sep, v_path, vertices, src, dst)
    graph_options.setdefault("name", name)
    return build_graph(e_path, src, dst, weights, directed=directed, options=graph_options, vertices=vertices)


def _read_vertices(v_path, ids):
    """The .v file's id column (an IdColumn, its kind not yet resolved)."""
    text = Text.open(v_path).skip_comments()
    sep = " "  # one id a line: any whitespace around it
    check = expect(1, ["vertex id"])
    require_parse(text, 1)
    try:
        table = parse_table(text, sep, id_columns=(0,), ids_as_text=ids == "str")
    except ParseFailed as exc:
        fail(text, sep, check, False, f"cannot be parsed as a vertex list: {exc}")
    if table.ncols == 0:
        return IdColumn(np.empty(0, object if ids == "str" else np.int64), text, sep, 0)
    if table.ncols != 1:
        fail(text, sep, check, False, "expected one vertex id per line")
    return IdColumn(table.columns[0], text, sep, 0)


def _check_unique(v_col, vertices):
    """Each vertex once in the .v file; else name both lines of the first one listed twice."""
    import pandas as pd  # noqa: PLC0415

    dup = pd.Series(vertices).duplicated().to_numpy()
    if not dup.any():
        return
    second = int(np.argmax(dup))
    value = vertices[second]
    first = int(np.argmax(pd.Series(vertices).to_numpy() == value))
    shown = value.item() if hasattr(value, "item") else value
    raise v_col.text.error(v_col.line(second), f"vertex id {quoted(shown)} is listed twice "
                                               f"(first on line {v_col.line(first)})")


def _read_edges(e_path, weighted, ids):
    """``([source IdColumn, target IdColumn], weights or None)`` of the .e file."""
    text = Text.open(e_path).skip_comments()
    sep = detect_sep(text.first_data_line())
    line, first = next(data_lines(text, sep), (None, None))
    n_first = len(first) if isinstance(first, list) else None
    names = ["source", "target", "weight"]
    if n_first is not None and n_first not in (2, 3):
        raise text.error(line, f"expected 2 or 3 fields (source target [weight]), found {n_first}")
    require_parse(text, n_first or 2)
    try:
        table = parse_table(text, sep, ids_as_text=ids == "str")
    except ParseFailed as exc:
        fail(text, sep, expect(n_first, names), False, f"cannot be parsed as an edge list: {exc}")
    if table.ncols == 0:
        empty = np.empty(0, object if ids == "str" else np.int64)
        weights = np.empty(0, np.float64) if weighted else None  # weighted, with no edges
        return [IdColumn(empty, text, sep, 0), IdColumn(empty, text, sep, 1)], weights
    if table.ncols not in (2, 3):
        fail(text, sep, expect(table.ncols, names), False,
             f"expected 2 or 3 fields (source target [weight]), found {table.ncols}")
    check = expect(table.ncols, names)
    weights = None
    if use_weights(weighted, table.ncols == 3, e_path, f" (found {table.ncols} columns)"):
        weights = checked_weights(table.columns[2], text, sep, 2, check)
    return [IdColumn(table.columns[0], text, sep, 0), IdColumn(table.columns[1], text, sep, 1)], weights


def _check_members(e_text, sep, v_path, vertices, src, dst):
    """Every edge endpoint must be in the .v file; else name the first .e line that breaks it."""
    import pandas as pd  # noqa: PLC0415

    if len(src) == 0:
        return
    index = pd.Index(vertices)
    miss = [index.get_indexer(ids) < 0 for ids in (src, dst)]
    bad = miss[0] | miss[1]
    if not bad.any():
        return
    row = int(np.argmax(bad))
    vertex = src[row] if miss[0][row] else dst[row]
    if isinstance(vertex, np.generic):
        vertex = vertex.item()
    raise e_text.error(line_of_row(e_text, sep, row), f"vertex {quoted(vertex)} is not in the vertex file {v_path.name}")
