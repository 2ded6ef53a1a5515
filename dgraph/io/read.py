"""``dgraph.read``: pick the reader of a file's format (by name or extension) and check its options.

Every reader returns a :class:`~dgraph.Graph` built by
:func:`dgraph.graph.from_edges`; the graph options ``num_vertices``,
``renumber``, ``self_loops``, ``dedupe`` and ``name`` are handed to it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..errors import InputError
from .edgelist import read_edgelist
from .graphalytics import read_graphalytics
from .mtx import read_mtx
from .parquet import read_parquet
from .text import format_suffix

READERS = {
    "edgelist": read_edgelist,
    "csv": read_edgelist,
    "mtx": read_mtx,
    "graphalytics": read_graphalytics,
    "parquet": read_parquet,
}
ALIASES = {"el": "edgelist", "edges": "edgelist", "tsv": "edgelist", "snap": "edgelist", "txt": "edgelist",
           "wel": "edgelist", "matrixmarket": "mtx", "mm": "mtx", "ldbc": "graphalytics", "pq": "parquet"}
EXTENSIONS = {".el": "edgelist", ".txt": "edgelist", ".edges": "edgelist", ".tsv": "edgelist",
              ".snap": "edgelist", ".wel": "edgelist", ".csv": "csv", ".mtx": "mtx", ".e": "graphalytics",
              ".v": "graphalytics", ".properties": "graphalytics", ".parquet": "parquet", ".pq": "parquet"}
GRAPH_OPTIONS = {"num_vertices", "renumber", "self_loops", "dedupe", "name"}
FORMAT_OPTIONS = {
    "edgelist": {"sep", "header", "src", "dst", "weight", "ids"},
    "csv": {"sep", "header", "src", "dst", "weight", "ids"},
    "mtx": set(),
    "graphalytics": {"ids"},
    "parquet": {"src", "dst", "weight", "ids"},
}
DEFAULT_DIRECTED = {"edgelist": False, "csv": False, "parquet": False, "mtx": None, "graphalytics": None}


def read(path, format=None, *, directed=None, weighted=None, **options):
    """Read a graph file into a :class:`~dgraph.Graph`.

    format: "edgelist" (.el .txt .edges .tsv .snap; .wel = weighted), "csv",
    "mtx" (Matrix Market), "graphalytics" (.e beside its .v and .properties)
    or "parquet" (.parquet .pq); told by the extension when not given.
    directed: default False for edge lists, CSV and Parquet; from the file for
    Matrix Market (general = directed) and Graphalytics (``.properties``).
    weighted: default: use the weight column when there is one; False ignores
    it; True requires it.
    options: ``num_vertices``, ``renumber``, ``self_loops``, ``dedupe``,
    ``name`` (graph building) and per format ``sep``, ``header``, ``src``,
    ``dst``, ``weight`` (column names or 0-based numbers), ``ids``.
    ids: ``"auto"`` (default): an id written as a decimal integer is an
    integer, anything else a name, and a file mixing the two is an error
    naming the first line where the kind changes; ``"str"``: every id is a
    name (``7`` and ``007`` are two vertices); ``"int"``: every id must be an
    integer.  The same rule holds for every format and parse path.

    Raises GraphTooLargeError before the text, its parse or the graph would
    take more host memory than there is, saying how much is needed.
    """
    fmt, ext = _format(path, format)
    for key, value in (("directed", directed), ("weighted", weighted)):
        if value is not None and not isinstance(value, (bool, np.bool_)):
            raise InputError(f"read({str(path)!r}): {key}={value!r}: expected True, False or None")
    allowed = FORMAT_OPTIONS[fmt] | GRAPH_OPTIONS
    unknown = sorted(set(options) - allowed)
    if unknown:
        raise InputError(f"read({str(path)!r}): unknown option {unknown[0]!r} for format {fmt!r}; "
                         f"options: {', '.join(sorted(allowed))}")
    if directed is None:
        directed = DEFAULT_DIRECTED[fmt]
    if weighted is None and ext == ".wel" and fmt == "edgelist":
        weighted = True
    if fmt in ("edgelist", "csv"):
        options["fmt"] = fmt
    return READERS[fmt](path, directed=directed, weighted=weighted, **options)


def _format(path, format):
    if not isinstance(path, (str, Path)) and not hasattr(path, "__fspath__"):
        raise InputError(f"read: expected a file path, got {type(path).__name__}")
    ext = format_suffix(path)
    if format is not None:
        fmt = ALIASES.get(str(format).lower(), str(format).lower())
        if fmt not in READERS:
            raise InputError(f"format={format!r}: expected one of {', '.join(READERS)}")
        return fmt, ext
    fmt = EXTENSIONS.get(ext)
    if fmt is None:
        raise InputError(f"{path}: cannot tell the format from the extension {ext or '(none)'!r}; pass format= "
                         f"one of {', '.join(READERS)} (extensions: {', '.join(EXTENSIONS)})")
    return fmt, ext
