"""Delimited text -> numpy columns, fast: pyarrow first, pandas' C parser second.

The rules every text format shares: fields separated by runs of spaces and
tabs (``sep=" "``), one tab, or a comma; blank lines skipped; a line starting
with ``%`` and everything from a ``#`` on are comments.  "Whitespace" is the
space and the tab only (other Unicode spaces are part of a name).  With a
comma, a field may be quoted (``"a,b"``; ``""`` is a quote inside), but a
quote must close on its own line.

Numbers are decimal: an integer is ``[+-]digits`` (no hex, no ``_``), a real
is what Python's ``float`` reads from ASCII digits, a point and an exponent.
A column comes back int64 when every value is an integer that fits int64,
float64 when every value is a number, else as the strings of the file
(stripped of spaces and tabs).  Id columns (``id_columns``) come back only
int64 or strings (never floats; ``ids_as_text`` keeps them all as text).

pyarrow's multithreaded reader is used when the bytes are simple enough for
it (one plain delimiter, no comments after the first data line); otherwise, or
when it fails (e.g. a type that changes after the first block), pandas' C
parser reads the file with the same rules.  Neither loops in Python per
line.  When both fail, :func:`parse_table` raises :class:`ParseFailed` and
the reader calls :func:`first_bad_line` to name the line that is wrong.
"""

from __future__ import annotations

import csv
import io
import re

import numpy as np

from .text import Text, is_valid, strip_comment

SEPARATORS = {" ": "whitespace", "\t": "tab", ",": "comma"}
WHITESPACE = " \t"
INT_PATTERN = r"[+-]?[0-9]+"
NUMBER_PATTERN = r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
INT_TOKEN = re.compile(INT_PATTERN + r"\Z")
NUMBER_TOKEN = re.compile(NUMBER_PATTERN + r"\Z")
INT64_MAX = np.iinfo(np.int64).max
_BLANKISH = re.compile(rb"(?m)^[ \t]+(?=\r?$)")
#: host bytes of a parse, per byte of text and per field (measured peak RSS, 2M lines of two integers:
#: 85 B a line by pyarrow, 163 by pandas, which copies the text; benchmarks/host-memory.py) and
#: per name kept as a Python string (110-130 B)
PARSE_BYTES_PER_BYTE = 3
PARSE_BYTES_PER_FIELD = 72
NAME_BYTES = 128


class ParseFailed(Exception):
    """The fast parsers could not read the text; the reason is the message."""


class FieldError(ValueError):
    """A line cannot be split into fields (an unclosed quote); the message says why."""


class Table:
    """Parsed columns: ``names`` (header names, or None) and numpy ``columns``.

    A column is int64, float64, or an object array of str; a weight column may also be uint64
    (integers past int64, which the reader turns into floats).
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
    if "\t" in line.strip(WHITESPACE):
        return "\t"
    return " "


def split_fields(line: str, sep: str) -> list[str]:
    """The fields of one (comment-free) line, as the fast parsers split it."""
    if sep == " ":
        return [f for f in line.replace("\t", " ").split(" ") if f]
    if sep == ",":
        return split_csv(line)
    return [f.strip(WHITESPACE) for f in line.split(sep)]


def split_csv(line: str, comments: bool = False) -> list[str]:
    """Comma-separated fields: a field starting with ``"`` runs to the next lone ``"`` (``""`` is a
    quote), what follows it up to the comma is kept; an unclosed quote is a FieldError.  With
    ``comments``, a ``#`` outside quotes ends the line (inside quotes it is text)."""
    if '"' not in line:
        if comments:
            line = strip_comment(line)
        return [f.strip(WHITESPACE) for f in line.split(",")]
    fields, i, n = [], 0, len(line)
    while True:
        while i < n and line[i] in WHITESPACE:
            i += 1
        out = []
        if i < n and line[i] == '"':
            i += 1
            while True:
                j = line.find('"', i)
                if j < 0:
                    raise FieldError("a quoted field is not closed on its line")
                out.append(line[i:j])
                if j + 1 < n and line[j + 1] == '"':
                    out.append('"')
                    i = j + 2
                    continue
                i = j + 1
                break
        end = line.find(",", i)
        end = n if end < 0 else end
        if comments:
            hash_at = line.find("#", i, end)
            if hash_at >= 0:
                n = end = hash_at
        fields.append(("".join(out) + line[i:end]).strip(WHITESPACE))
        if end >= n:
            return fields
        i = end + 1


def cut_comment(line: str, sep: str) -> str:
    """``line`` without its comment (``%`` first, or ``#`` anywhere; with commas, outside quotes)."""
    if sep == "," and '"' in line and not line.startswith("%"):
        return line  # split_csv(..., comments=True) cuts it
    return strip_comment(line)


# -- sizes -------------------------------------------------------------------------------------
def parse_bytes(nbytes: int, lines: int, fields_per_line: int) -> int:
    """Host bytes parsing ``nbytes`` of text in ``lines`` lines may take (an estimate, rounded up)."""
    return PARSE_BYTES_PER_BYTE * nbytes + PARSE_BYTES_PER_FIELD * lines * max(1, fields_per_line)


def require_parse(text: Text, fields_per_line: int):
    """GraphTooLargeError unless parsing ``text`` (from its offset) fits in host memory."""
    from ..backend.device_memory import require_host  # noqa: PLC0415

    nbytes = len(text.data) - text.offset
    lines = text.data.count(b"\n", text.offset) + 1
    require_host(parse_bytes(nbytes, lines, fields_per_line),
                 f"parsing {text.path} ({nbytes:,} bytes, about {lines:,} lines)",
                 advice="read it in parts (dask.dataframe.read_csv) and build the graph with "
                        "dgraph.from_dask_dataframe(...)")


def _require_names(text: Text, count: int, nbytes: int):
    from ..backend.device_memory import require_host  # noqa: PLC0415

    require_host(NAME_BYTES * count + 2 * nbytes, f"keeping the {count:,} vertex names of {text.path}",
                 advice="give the vertices integer ids")


# -- parsing -----------------------------------------------------------------------------------
def parse_table(text: Text, sep: str, *, header: bool = False, id_columns=(0, 1), ids_as_text=False) -> Table:
    """Parse ``text`` from its offset on; columns listed in ``id_columns`` come back int64 or str
    (all str with ``ids_as_text``), never floats, dates or booleans.  Raises ParseFailed."""
    if text.first_data_line() is None:
        return Table([] if header else None, [])
    if header:  # the names from the first line; the rest parsed as data, its width checked
        line = cut_comment(text.first_data_line() or "", sep)
        try:
            names = split_csv(line, comments=True) if sep == "," else split_fields(line, sep)
        except FieldError as exc:
            raise ParseFailed(f"the header line: {exc}") from None
        end = text.data.find(b"\n", text.offset)
        rest = Text(text.path, text.data, len(text.data) if end < 0 else end + 1, text.first_line + 1)
        table = parse_table(rest.skip_comments(bom=False), sep, id_columns=id_columns, ids_as_text=ids_as_text)
        if table.ncols and table.ncols != len(names):
            raise ParseFailed(f"the header names {len(names)} columns, the lines hold {table.ncols}")
        return Table(names, table.columns)
    if _pyarrow_can_read(text, sep):
        try:
            return _by_pyarrow(text, sep, id_columns, ids_as_text)
        except Exception:  # noqa: BLE001, S110 - any pyarrow failure: the general parser decides
            pass
    return _by_pandas(text, sep, id_columns, ids_as_text)


def _contains(text: Text, sub: bytes) -> bool:
    return text.data.find(sub, text.offset) >= 0


def _pyarrow_can_read(text: Text, sep: str) -> bool:
    """Whether the plain one-delimiter reader fits; only single-byte searches (memchr speed).

    Runs of spaces, or spaces at a line's ends, make empty fields: pyarrow then
    fails on the column count or yields empty strings, and pandas takes over."""
    if _contains(text, b"#") or (_contains(text, b"%") and _contains(text, b"\n%")):
        return False
    if sep == " ":
        return not _contains(text, b"\t")
    if sep == "\t":
        return not _contains(text, b" ")
    return not (_contains(text, b" ") or _contains(text, b"\t"))


def _maybe_hex(text: Text) -> bool:
    """pyarrow reads ``0x1F`` as the integer 31; without an x in the text no integer was hex."""
    return _contains(text, b"x") or _contains(text, b"X")


def _by_pyarrow(text, sep, id_columns, ids_as_text):
    import pyarrow as pa  # noqa: PLC0415
    import pyarrow.csv as pcsv  # noqa: PLC0415
    import pyarrow.types as pt  # noqa: PLC0415

    buf = pa.py_buffer(text.body)
    read = pcsv.ReadOptions(autogenerate_column_names=True, block_size=16 << 20)
    parse = pcsv.ParseOptions(delimiter=sep, quote_char='"' if sep == "," else False,
                              ignore_empty_lines=True, newlines_in_values=False)

    def convert(types=None):
        return pcsv.ConvertOptions(null_values=[], strings_can_be_null=False, true_values=[],
                                   false_values=[], column_types=types or {})

    types = {}
    if ids_as_text:
        first = pcsv.read_csv(pa.py_buffer(_first_lines(text)), read_options=read, parse_options=parse,
                              convert_options=convert())
        types = {first.column_names[i]: pa.string() for i in id_columns if i < first.num_columns}
    table = pcsv.read_csv(buf, read_options=read, parse_options=parse, convert_options=convert(types))
    hexy = _maybe_hex(text)
    plus = _contains(text, b"+")  # pyarrow reads +5 as a float: such columns get the integer rule here
    text_cols = {}
    for i, t in enumerate(table.schema.types):
        if pt.is_string(t):
            continue
        signed = pt.is_integer(t) and not pt.is_unsigned_integer(t)
        if i in id_columns:
            retext = not signed or hexy  # floats, uint64, dates...: the tokens decide
        else:
            retext = (pt.is_integer(t) and hexy) or (pt.is_floating(t) and plus) or \
                not (pt.is_integer(t) or pt.is_floating(t))
        if retext:
            text_cols[table.column_names[i]] = pa.string()
    if text_cols:
        table = pcsv.read_csv(buf, read_options=read, parse_options=parse,
                              convert_options=convert({**types, **text_cols}))
    columns = []
    for i, col in enumerate(table.columns):
        if pt.is_string(col.type) or pt.is_large_string(col.type):
            if len(col) and _any_empty_or_multiline(col):
                raise ParseFailed("empty fields (runs of separators), or a quote not closed on its line")
            columns.append(_text_column(text, col, i in id_columns, ids_as_text))
        elif pt.is_integer(col.type):
            columns.append(_int_array(col.to_numpy()))
        else:
            columns.append(col.to_numpy().astype(np.float64, copy=False))
    return Table(None, columns)


def _text_column(text, col, ident, ids_as_text):
    """A pyarrow string column -> int64 (all decimal integers within int64), float64 (all numbers;
    not for ids) or str objects (trimmed of spaces and tabs)."""
    col = _trimmed(col)
    if not (ident and ids_as_text):
        ints = _decimal_ints(col)
        if ints is not None:
            return ints
        if not ident:
            floats = _decimal_floats(col)
            if floats is not None:
                return floats
    _require_names(text, len(col), col.nbytes)
    return col.to_numpy(zero_copy_only=False).astype(object, copy=False)


def _first_lines(text, count=64):
    """The first few data lines (to learn the column names pyarrow gives)."""
    data = text.data
    pos = text.offset
    for _ in range(count):
        nxt = data.find(b"\n", pos)
        if nxt < 0:
            return data[text.offset:]
        pos = nxt + 1
    return data[text.offset:pos]


def _any_empty_or_multiline(col) -> bool:
    import pyarrow.compute as pc  # noqa: PLC0415

    if bool(pc.any(pc.equal(pc.utf8_length(col), 0)).as_py()):
        return True
    return bool(pc.any(pc.match_substring_regex(col, "[\\r\\n]")).as_py())


def _decimal_ints(col):
    """A string column as int64 when every value is a decimal integer within int64; else None."""
    import pyarrow as pa  # noqa: PLC0415
    import pyarrow.compute as pc  # noqa: PLC0415

    if len(col) == 0:
        return np.empty(0, np.int64)
    col = pc.utf8_trim(col, WHITESPACE)
    if not bool(pc.all(pc.match_substring_regex(col, "^" + INT_PATTERN + "$")).as_py()):
        return None
    try:
        return pc.cast(pc.replace_substring_regex(col, "^\\+", ""), pa.int64()).to_numpy()
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None  # past int64: the reader reports it at its line


def _decimal_floats(col):
    """A string column as float64 when every value is a decimal number (NUMBER_PATTERN; inf and
    nan words too, which the readers then refuse at their line); else None."""
    import pyarrow as pa  # noqa: PLC0415
    import pyarrow.compute as pc  # noqa: PLC0415

    ok = pc.match_substring_regex(col, "^(" + NUMBER_PATTERN + "|[+-]?(?i:inf|infinity|nan))$")
    if len(col) == 0 or not bool(pc.all(ok).as_py()):
        return None
    try:
        return pc.cast(col, pa.float64()).to_numpy()
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None


def _int_array(a):
    if a.dtype.kind == "u":
        if len(a) and a.max() > INT64_MAX:
            return a.astype(np.uint64)  # past int64: ids report it, weights become floats
        return a.astype(np.int64)
    return a.astype(np.int64, copy=False)


def _by_pandas(text, sep, id_columns, ids_as_text):
    import pandas as pd  # noqa: PLC0415

    data = text.data[text.offset:]
    if _BLANKISH.search(data):  # lines of only spaces and tabs are blank (pandas splits them with a tab)
        data = _BLANKISH.sub(b"", data)
    if data.startswith(b"%"):
        data = b"#" + data[1:]
    if b"\n%" in data:
        data = data.replace(b"\n%", b"\n#")
    kw = dict(sep=r"\s+" if sep == " " else sep, header=None, comment="#",
              na_filter=False, skip_blank_lines=True, engine="c", low_memory=False,
              quoting=csv.QUOTE_MINIMAL if sep == "," else csv.QUOTE_NONE)
    if sep != " ":
        kw["skipinitialspace"] = True
    try:
        df = pd.read_csv(io.BytesIO(data), **kw)
        # pandas reads "9\f" as 9 (C isspace around numbers): with \v or \f in the text every
        # column is read as text and given the rules here (whitespace is space and tab only)
        odd_space = b"\x0b" in data or b"\x0c" in data
        text_cols = {df.columns[i]: str for i in id_columns
                     if i < df.shape[1] and (ids_as_text or odd_space or df.dtypes.iloc[i].kind != "i")}
        text_cols.update({df.columns[i]: str for i in range(df.shape[1])
                          if (odd_space or df.dtypes.iloc[i].kind not in "iuf") and i not in id_columns})
        if text_cols:
            df = pd.read_csv(io.BytesIO(data), dtype=text_cols, **kw)
    except pd.errors.EmptyDataError:
        return Table(None, [])
    except Exception as exc:  # noqa: BLE001 - ParserError, UnicodeDecodeError, ...
        raise ParseFailed(str(exc).strip()) from None
    columns = []
    for i, name in enumerate(df.columns):
        s = df[name]
        if s.dtype.kind in "iu":
            columns.append(_int_array(s.to_numpy()))
        elif s.dtype.kind == "f":
            columns.append(s.to_numpy(dtype=np.float64))
        else:
            columns.append(_pandas_text(text, s, i in id_columns, ids_as_text))
    return Table(None, columns)


def _pandas_text(text, s, ident, ids_as_text):
    """A pandas column of strings -> what :func:`_text_column` makes of it."""
    import pyarrow as pa  # noqa: PLC0415

    try:
        col = pa.array(s, type=pa.string())
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        col = pa.array(s.astype(str).to_numpy(dtype=object), type=pa.string())
    if len(col) and _any_empty_or_multiline(_trimmed(col)):
        raise ParseFailed("a line has fewer fields than the first one, or a quote not closed on its line")
    return _text_column(text, col, ident, ids_as_text)


def _trimmed(col):
    import pyarrow.compute as pc  # noqa: PLC0415

    return pc.utf8_trim(col, WHITESPACE)


# -- the error path: find the line ---------------------------------------------------------------
def data_lines(text: Text, sep: str, header: bool = False):
    """``(line number, fields)`` of every data line (header line skipped); fields is None
    for a line whose data (not its comment) is not valid UTF-8, a FieldError for a line that
    cannot be split."""
    seen_header = not header
    for first, lines, plain, valid in text.blocks():
        for lineno, line in enumerate(lines, start=first):
            if not plain:
                line = cut_comment(line, sep)
            if not line.strip(WHITESPACE) or (sep == "," and line.lstrip(WHITESPACE).startswith("#")):
                continue
            if not valid and not is_valid(line):
                yield lineno, None
                continue
            try:
                fields = split_csv(line, comments=True) if sep == "," else split_fields(line, sep)
            except FieldError as exc:
                fields = exc
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
        if isinstance(fields, FieldError):
            raise text.error(lineno, str(fields))
        message = check(fields, row)
        if message:
            raise text.error(lineno, message)


def line_of_row(text: Text, sep: str, row: int, *, header: bool = False):
    """The line number of data row ``row`` (0-based), or None past the end."""
    for i, (lineno, _) in enumerate(data_lines(text, sep, header)):
        if i == row:
            return lineno
    return None
