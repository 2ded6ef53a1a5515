"""Edge-list text files (.el .txt .edges .tsv .snap .wel .csv): ``source target [weight]`` per line.

The separator (spaces and tabs, one tab, or a comma) is detected per file from
its first data line; ``#`` and ``%`` comments and blank lines are skipped.
Ids are integers or names by the rule of :mod:`dgraph.io.columns` (``ids=``).  A first line
of names is a header when every field is a non-number and either the next
line has numbers where it has names, or the names are usual column names
(src, dst, weight, ...); ``header=True/False`` decides it outright.  Columns
are chosen with ``src=``, ``dst=``, ``weight=`` (a header name or a 0-based
position); by default the first two, and a third one as the weight.
"""

from __future__ import annotations

from .columns import (IdColumn, build_graph, check_ids_mode, checked_weights, expect, fail, number_problem,
                      resolve_ids, use_weights)
from .table import ParseFailed, SEPARATORS, data_lines, detect_sep, parse_table, require_parse
from .text import Text

HEADER_NAMES = {"src", "source", "from", "u", "dst", "dest", "destination", "target", "to", "v",
                "weight", "w", "cost", "value", "length", "distance", "node1", "node2", "head", "tail",
                "src_id", "dst_id", "source_id", "target_id", "from_id", "to_id"}
FIELD_NAMES = ["source", "target", "weight"]
SEP_NAMES = {"space": " ", "whitespace": " ", "tab": "\t", "comma": ",", r"\s+": " "}


def read_edgelist(path, *, directed=False, weighted=None, sep=None, header=None, src=None, dst=None,
                  weight=None, fmt="edgelist", ids="auto", **graph_options):
    """A Graph from an edge-list text file (see the module docstring for the rules)."""
    name, src_ids, dst_ids, weights = edgelist_columns(path, weighted=weighted, sep=sep, header=header, src=src,
                                                       dst=dst, weight=weight, fmt=fmt, ids=ids)
    return build_graph(name, src_ids, dst_ids, weights, directed=directed, options=graph_options)


def edgelist_columns(path, *, weighted=None, sep=None, header=None, src=None, dst=None, weight=None,
                     fmt="edgelist", ids="auto"):
    """The checked columns of an edge-list file: ``(path, source ids, target ids, weights or None)``."""
    check_ids_mode(ids, str(path))
    text = Text.open(path)
    if bytes(text.body[:14]).lower() == b"%%matrixmarket":
        raise text.error(1, "this is a Matrix Market file; read it with format='mtx' (or name it .mtx)")
    text.skip_comments()
    sep = SEP_NAMES.get(sep, sep)
    if sep is None:
        sep = "," if fmt == "csv" else detect_sep(text.first_data_line())
    elif sep not in SEPARATORS:
        raise text.error(None, f"sep={sep!r}: expected one of {', '.join(map(repr, SEPARATORS))}")
    if header is None:
        header = _looks_like_header(text, sep, named=any(isinstance(c, str) for c in (src, dst, weight)))
    first = next(data_lines(text, sep), (None, None))
    if first[0] is not None and not isinstance(first[1], list):  # not UTF-8, or an unclosed quote
        raise text.error(first[0], str(first[1]) if first[1] is not None else "the line is not valid UTF-8 text")
    n_first = len(first[1]) if first[1] is not None else None
    if n_first is not None and (n_first < 2 or (n_first > 3 and src is None and dst is None and weight is None)):
        raise text.error(first[0], f"expected 2 or 3 fields (source target [weight]), found {n_first}"
                         + ("; pass src=, dst=, weight= to choose columns" if n_first > 3 else ""))
    check_count = expect(n_first, _field_names(n_first))
    require_parse(text, n_first or 2)
    try:
        table = parse_table(text, sep, header=bool(header), id_columns=_id_positions(src, dst),
                            ids_as_text=ids == "str")
    except ParseFailed as exc:
        fail(text, sep, check_count, header, f"cannot be parsed as an edge list: {exc}")
    if table.ncols == 0:  # no data lines
        import numpy as np  # noqa: PLC0415

        empty = np.empty(0, object if ids == "str" else np.int64)
        weights = np.empty(0, np.float64) if weighted else None  # weighted, with no edges
        return text.path, empty, empty, weights

    s, d, w = _choose(text, table, header, src, dst, weight, first[0])
    ncols = table.ncols
    check_all = expect(ncols, _field_names(ncols))
    src_ids, dst_ids = resolve_ids([IdColumn(table.columns[s], text, sep, s, header),
                                    IdColumn(table.columns[d], text, sep, d, header)], ids)
    weights = None
    if use_weights(weighted, w is not None, text.path, f" (found {ncols} columns)"):
        weights = checked_weights(table.columns[w], text, sep, w, check_all, header)
    return text.path, src_ids, dst_ids, weights


def _field_names(n):
    if n is None:
        return list(FIELD_NAMES)
    return (FIELD_NAMES + [f"field {i + 1}" for i in range(3, n)])[:max(n, 3)]


def _id_positions(src, dst):
    return tuple(c if isinstance(c, int) and not isinstance(c, bool) else i for i, c in enumerate((src, dst)))


def _looks_like_header(text, sep, named) -> bool:
    lines = data_lines(text, sep)
    first = next(lines, (None, None))[1]
    if not isinstance(first, list) or not first or any(_is_number(f) for f in first):
        return False
    if named or all(f.strip().lower() in HEADER_NAMES for f in first):
        return True
    second = next(lines, (None, None))[1]
    return isinstance(second, list) and any(_is_number(f) for f in second[:2])


def _is_number(token: str) -> bool:
    """A finite decimal number: 'nan', 'inf' and their kin read as names here."""
    return number_problem(token, "") is None


def _choose(text, table, header, src, dst, weight, first_line):
    """Column positions ``(src, dst, weight or None)`` from the options and the header."""
    names = table.names
    ncols = table.ncols

    def position(spec, what):
        if isinstance(spec, bool) or not isinstance(spec, (int, str)):
            raise text.error(None, f"{what}={spec!r}: expected a column name or a 0-based column number")
        if isinstance(spec, int):
            if not 0 <= spec < ncols:
                raise text.error(first_line, f"{what}={spec}: the file has {ncols} columns (0..{ncols - 1})")
            return spec
        if not header or spec not in names:
            have = f"columns are {names}" if header else "the file has no header line"
            raise text.error(first_line, f"{what}={spec!r}: no such column; {have}")
        return names.index(spec)

    s = 0 if src is None else position(src, "src")
    d = 1 if dst is None else position(dst, "dst")
    if ncols < 2:
        raise text.error(first_line, f"expected 2 or 3 fields (source target [weight]), found {ncols}")
    if weight is not None:
        return s, d, position(weight, "weight")
    if header and "weight" in names:
        return s, d, names.index("weight")
    if ncols == 3 and {s, d} == {0, 1}:
        return s, d, 2
    if ncols > 3 and src is None and dst is None:
        raise text.error(first_line, f"expected 2 or 3 fields (source target [weight]), found {ncols}; "
                                     "pass src=, dst=, weight= to choose columns")
    return s, d, None
