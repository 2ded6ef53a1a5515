"""Delimited text -> numpy columns, fast: pyarrow first, pandas' C parser second.

The rules every text format shares: fields separated by single spaces/tabs
(any run of whitespace), one tab, or a comma; blank lines skipped; a line
starting with ``%`` and everything from a ``#`` on are comments.

pyarrow's multithreaded reader is used when the bytes are simple enough for
it (one plain delimiter, no comments after the first data line); otherwise, or
when it fails (e.g. a type that changes after the first block), pandas' C
parser reads the file with the general rules.  Neither loops in Python per
line.  When both fail, :func:`parse_table` raises :class:`ParseFailed` and
the reader calls :func:`first_bad_line` to name the line that is wrong.
"""

from __future__ import annotations

import csv
import io

import numpy as np

from .text import Text, strip_comment

SEPARATORS = {" ": "whitespace", "\t": "tab", ",": "comma"}


class ParseFailed(Exception):
    """The fast parsers could not read the text; the reason is the message."""


class Table:
    """Parsed columns: ``names`` (header names, or None) and numpy ``columns``.

    A column is int64, float64, or an object array of str.
    """

    def __init__(self, names, columns):
        self.names = names
        self.columns = columns

    @property
    def ncols(self) -> int:
        return len(self.columns)

    @property
    def nrows(self) -> int:
        return len(self.columns[0]) if self.columns else 0


def detect_sep(line: str | None) -> str:
    """The separator of a file from its first data line: comma, tab, else whitespace."""
    if line is None:
        return " "
    line = strip_comment(line)
    if "," in line:
        return ","
    if "\t" in line.strip():
        return "\t"
    return " "


def split_fields(line: str, sep: str) -> list[str]:
    if sep == " ":
        return line.split()
    if sep == ",":
        return [f.strip() for f in next(csv.reader([line]))]
    return [f.strip() for f in line.split(sep)]


def parse_table(text: Text, sep: str, *, header: bool = False, id_columns=(0, 1)) -> Table:
    """Parse ``text`` from its offset on; columns listed in ``id_columns`` are kept as
    integers or strings (never dates, booleans...).  Raises ParseFailed."""
    if text.first_data_line() is None:
        return Table([] if header else None, [])
    if _pyarrow_can_read(text, sep):
        try:
            return _by_pyarrow(text, sep, header, id_columns)
        except Exception:  # noqa: BLE001 - fall back to the general parser
            pass
    return _by_pandas(text, sep, header, id_columns)


def _contains(text: Text, sub: bytes) -> bool:
    return text.data.find(sub, text.offset) >= 0


def _pyarrow_can_read(text: Text, sep: str) -> bool:
    """Whether the plain one-delimiter reader fits; only single-byte searches (memchr speed).

    Runs of spaces, or spaces at a line's ends, make empty fields: pyarrow then
    fails on the column count or yields empty strings, and pandas takes over."""
    if _contains(text, b"#") or (_contains(text, b"%") and _contains(text, b"\n%")):
        return False
    if sep == "\t":
        return not _contains(text, b" ")
    if sep == ",":
        return not (_contains(text, b" ") or _contains(text, b"\t"))
    return True


def _by_pyarrow(text, sep, header, id_columns):
    import pyarrow as pa  # noqa: PLC0415
    import pyarrow.csv as pcsv  # noqa: PLC0415

    buf = pa.py_buffer(text.body)
    read = pcsv.ReadOptions(autogenerate_column_names=not header, block_size=16 << 20)
    parse = pcsv.ParseOptions(delimiter=sep, quote_char='"' if sep == "," else False,
                              ignore_empty_lines=True)

    def convert(types=None):
        return pcsv.ConvertOptions(null_values=[], strings_can_be_null=False, true_values=[],
                                   false_values=[], column_types=types or {})

    table = pcsv.read_csv(buf, read_options=read, parse_options=parse, convert_options=convert())
    odd = {table.column_names[i]: pa.string() for i in id_columns
           if i < table.num_columns and not _simple_arrow(table.schema.types[i])}
    if odd:
        table = pcsv.read_csv(buf, read_options=read, parse_options=parse, convert_options=convert(odd))
    if any(_has_empty_string(c) for c in table.columns):
        raise ParseFailed("empty fields (runs of separators)")
    columns = [_arrow_to_numpy(c) for c in table.columns]
    return Table(list(table.column_names) if header else None, columns)


def _has_empty_string(col) -> bool:
    import pyarrow.compute as pc  # noqa: PLC0415
    import pyarrow.types as pt  # noqa: PLC0415

    if not (pt.is_string(col.type) or pt.is_large_string(col.type)) or len(col) == 0:
        return False
    return bool(pc.any(pc.equal(pc.utf8_length(col), 0)).as_py())


def _simple_arrow(t) -> bool:
    import pyarrow.types as pt  # noqa: PLC0415

    return pt.is_integer(t) or pt.is_floating(t) or pt.is_string(t) or pt.is_large_string(t)


def _arrow_to_numpy(col):
    import pyarrow.types as pt  # noqa: PLC0415

    t = col.type
    if pt.is_integer(t):
        return _int_array(col.to_numpy())
    if pt.is_floating(t):
        return col.to_numpy().astype(np.float64, copy=False)
    if pt.is_string(t) or pt.is_large_string(t):
        return col.to_numpy(zero_copy_only=False).astype(object, copy=False)
    return np.asarray(col.to_pylist(), dtype=object).astype(str).astype(object)


def _int_array(a):
    if a.dtype.kind == "u":
        if len(a) and a.max() > np.iinfo(np.int64).max:
            return a.astype(np.float64)
        return a.astype(np.int64)
    return a.astype(np.int64, copy=False)


def _by_pandas(text, sep, header, id_columns):
    import pandas as pd  # noqa: PLC0415

    data = text.data[text.offset:]
    if b"\n%" in data:
        data = data.replace(b"\n%", b"\n#")
    kw = dict(sep=r"\s+" if sep == " " else sep, header=0 if header else None, comment="#",
              na_filter=False, skip_blank_lines=True, engine="c", low_memory=False,
              quoting=csv.QUOTE_MINIMAL if sep == "," else csv.QUOTE_NONE)
    if sep != " ":
        kw["skipinitialspace"] = True
    try:
        df = pd.read_csv(io.BytesIO(data), **kw)
        odd = {df.columns[i]: str for i in id_columns
               if i < df.shape[1] and df.dtypes.iloc[i].kind not in "iufO"}
        if odd:
            df = pd.read_csv(io.BytesIO(data), dtype=odd, **kw)
    except pd.errors.EmptyDataError:
        return Table([] if header else None, [])
    except Exception as exc:  # noqa: BLE001 - ParserError, UnicodeDecodeError, ...
        raise ParseFailed(str(exc).strip()) from None
    columns = []
    for name in df.columns:
        s = df[name]
        if s.dtype.kind in "iu":
            columns.append(_int_array(s.to_numpy()))
        elif s.dtype.kind == "f":
            columns.append(s.to_numpy(dtype=np.float64))
        elif s.dtype.kind == "b":
            columns.append(s.astype(str).to_numpy(dtype=object))
        else:
            arr = s.to_numpy(dtype=object)
            if len(arr) and (arr == "").any():  # a short line: pandas pads it with ""
                raise ParseFailed("a line has fewer fields than the first one")
            columns.append(arr)
    return Table([str(c) for c in df.columns] if header else None, columns)


# -- the error path: find the line ---------------------------------------------------------------
def data_lines(text: Text, sep: str, header: bool = False):
    """``(line number, fields)`` of every data line (header line skipped); fields is None
    for a line that is not valid UTF-8."""
    seen_header = not header
    for first, lines, plain in text.blocks():
        for lineno, line in enumerate(lines, start=first):
            if line is None:
                yield lineno, None
                continue
            if plain and sep == " ":
                fields = line.split()
                if not fields:
                    continue
            else:
                line = strip_comment(line).strip()
                if not line:
                    continue
                fields = split_fields(line, sep)
            if not seen_header:
                seen_header = True
                continue
            yield lineno, fields


def first_bad_line(text: Text, sep: str, check, *, header: bool = False):
    """Raise FileFormatError at the first data line where ``check(fields, row)`` returns a message.

    Returns normally when every line passes (the caller then reports what it knows)."""
    for row, (lineno, fields) in enumerate(data_lines(text, sep, header)):
        if fields is None:
            raise text.error(lineno, "the line is not valid UTF-8 text")
        message = check(fields, row)
        if message:
            raise text.error(lineno, message)


def line_of_row(text: Text, sep: str, row: int, *, header: bool = False):
    """The line number of data row ``row`` (0-based), or None past the end."""
    for i, (lineno, _) in enumerate(data_lines(text, sep, header)):
        if i == row:
            return lineno
    return None
