"""An input text file held as bytes, with the helpers every text reader shares.

Readers parse the whole file at C speed (pyarrow or pandas, see
:mod:`dgraph.io.table`) from the bytes held here.  The Python loop over lines
in :meth:`Text.lines` runs only on the error path, after a fast parse has
failed or produced a bad value, to find the first bad line and name it (file
and 1-based line number) in the error.  Compressed files (.gz, .bz2, .xz) are
decompressed on open, a block at a time and never past what this machine's
memory can parse; their format is taken from the extension before it.

What a text file may hold: UTF-8 (a byte-order mark at the start, or where the
data starts after leading comments, is skipped),
lines ending in ``\n``, ``\r\n`` or a lone ``\r`` (old Mac files), and no
NUL bytes (a NUL is the mark of a binary or UTF-16 file and is reported with
its line).
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import re
from pathlib import Path

from ..errors import FileFormatError, InputError, MissingFileError

COMPRESSIONS = {".gz": gzip.GzipFile, ".bz2": bz2.BZ2File, ".xz": lzma.LZMAFile}
COMMENT_CHARS = ("#", "%")
BLOCK = 1 << 20
BOM = b"\xef\xbb\xbf"
#: bytes of memory a text file needs per byte of text before its lines are counted: the text and
#: the parsers' buffers (the line count then sharpens it, :func:`dgraph.io.table.parse_bytes`)
TEXT_BYTES_PER_BYTE = 3
_LONE_CR = re.compile(rb"\r(?!\n)")


def existing_file(path) -> Path:
    """``path`` as a Path; MissingFileError when it does not exist or is not a file."""
    if not isinstance(path, (str, Path)) and not hasattr(path, "__fspath__"):
        raise InputError(f"path: expected a file name, got {type(path).__name__}")
    p = Path(path).expanduser()
    if not p.exists():
        raise MissingFileError(f"{p}: no such file")
    if not p.is_file():
        raise MissingFileError(f"{p}: not a file")
    return p


def format_suffix(path) -> str:
    """The extension that names the format: ``graph.el.gz`` -> ``.el``."""
    p = Path(path)
    suffixes = [s.lower() for s in p.suffixes]
    if suffixes and suffixes[-1] in COMPRESSIONS:
        suffixes.pop()
    return suffixes[-1] if suffixes else ""


class Text:
    """The bytes of a text file, and where parsing starts in them.

    ``offset`` is the byte where the part being parsed starts and
    ``first_line`` its 1-based line number, so that errors found in a part
    (e.g. the entries of a Matrix Market file) name lines of the whole file.
    """

    def __init__(self, path, data: bytes, offset: int = 0, first_line: int = 1):
        self.path = Path(path)
        self.data = data
        self.offset = offset
        self.first_line = first_line

    @classmethod
    def open(cls, path) -> "Text":
        """The text of ``path``: size checked against host memory before it is read, decompressed
        within that bound, a BOM skipped, NUL bytes refused and lone CR line ends made ``\\n``."""
        p = existing_file(path)
        codec = COMPRESSIONS.get(p.suffix.lower())
        try:
            size = p.stat().st_size
            if codec is None:
                _require_text(p, size)
                data = p.read_bytes()
            else:
                data = _decompress(p, codec)
        except OSError as exc:
            raise MissingFileError(f"{p}: cannot be read ({exc.strerror or exc})") from None
        text = cls(p, data, offset=len(BOM) if data.startswith(BOM) else 0)
        text._check_bytes()
        return text

    def _check_bytes(self):
        if b"\r" in self.data and _LONE_CR.search(self.data):
            self.data = self.data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        nul = self.data.find(b"\0")
        if nul >= 0:
            raise self.error(self.line_at(nul), f"a NUL byte (\\0) at byte {nul}: this is not a text file "
                                                "(a binary file, or text in UTF-16/32?)")

    def line_at(self, pos: int) -> int:
        """The 1-based line number of byte ``pos``."""
        return self.data.count(b"\n", 0, pos) + 1

    @property
    def body(self) -> memoryview:
        return memoryview(self.data)[self.offset:]

    def error(self, line, message) -> FileFormatError:
        return FileFormatError(self.path, line, message)

    def blocks(self):
        """``(first line number, lines, plain, valid)`` for blocks of about 1 MiB of whole lines
        from ``offset`` on; ``plain`` says the block has no ``#`` or ``%`` (no comments to look
        for); ``valid`` that it is UTF-8 (else bytes that are not are decoded as lone surrogates,
        see :func:`is_valid`: a comment may hold them, data may not).  Line scans run over whole
        files on the error path, so their cost per line matters."""
        data, pos, lineno = self.data, self.offset, self.first_line
        n = len(data)
        while pos < n:
            end = data.find(b"\n", min(pos + BLOCK, n))
            end = n if end < 0 else end + 1
            chunk = data[pos:end]
            try:
                lines, valid = chunk.decode("utf-8").split("\n"), True
            except UnicodeDecodeError:
                lines, valid = chunk.decode("utf-8", "surrogateescape").split("\n"), False
            if chunk.endswith(b"\n"):
                lines.pop()
            if b"\r" in chunk:
                lines = [line.rstrip("\r") for line in lines]
            yield lineno, lines, b"#" not in chunk and b"%" not in chunk, valid
            pos, lineno = end, lineno + len(lines)

    def lines(self):
        """``(line number, text)`` of every line from ``offset`` on (bytes that are not UTF-8 as
        lone surrogates)."""
        for first, lines, _, _ in self.blocks():
            yield from enumerate(lines, start=first)

    def skip_comments(self, bom=True) -> "Text":
        """Move ``offset`` past leading blank and comment (``#``, ``%``) lines (and a BOM where the
        data starts, unless ``bom=False``)."""
        data, pos, line = self.data, self.offset, self.first_line
        while pos < len(data):
            end = data.find(b"\n", pos)
            end = len(data) if end < 0 else end + 1
            stripped = data[pos:end].strip(b" \t\r\n")
            if stripped and not is_comment_bytes(data[pos:end]):
                break
            pos, line = end, line + 1
        self.offset, self.first_line = pos, line
        if bom and data.startswith(BOM, pos):  # a BOM where the data starts (files joined after a header)
            self.offset += len(BOM)
            self.skip_comments(bom=False)  # the rest of its line may be blank or a comment
        return self

    def first_data_line(self) -> str | None:
        """The text of the line at ``offset`` (after :meth:`skip_comments`), or None at the end."""
        for _, text in self.lines():
            return text
        return None


def _require_text(path, nbytes, *, inflated=False, have=None):
    from ..backend.device_memory import require_host  # noqa: PLC0415

    what = (f"reading {path} (more than {nbytes:,} bytes of text once decompressed)" if inflated else
            f"reading {path} ({nbytes:,} bytes of text)")
    require_host(TEXT_BYTES_PER_BYTE * nbytes, what, have=have,
                 advice="read it in parts (dask.dataframe.read_csv) and build the graph with "
                        "dgraph.from_dask_dataframe(...)")


def _decompress(path, codec) -> bytes:
    """The decompressed bytes of ``path``, read a block at a time: past a third of the memory this
    process can take (the text and its parse), GraphTooLargeError before the next block."""
    import zlib  # noqa: PLC0415

    from ..backend.device_memory import host_available  # noqa: PLC0415

    have = host_available()
    limit = have[0] // TEXT_BYTES_PER_BYTE
    parts, total = [], 0
    try:
        with codec(path, "rb") as f:
            while True:
                chunk = f.read(max(1, min(16 * BLOCK, limit + 1 - total)))
                if not chunk:
                    break
                parts.append(chunk)
                total += len(chunk)
                if total > limit:
                    parts.clear()
                    _require_text(path, total, inflated=True, have=have)  # raises: 3 * total > have
    except (OSError, EOFError, zlib.error, lzma.LZMAError) as exc:
        if isinstance(exc, OSError) and exc.errno is not None:
            raise
        raise FileFormatError(path, None, f"cannot be decompressed as {path.suffix} ({exc})") from None
    return b"".join(parts)


def is_valid(line: str) -> bool:
    """Whether a line of :meth:`Text.blocks` was valid UTF-8 (no lone surrogates)."""
    try:
        line.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def quoted(token, limit: int = 60) -> str:
    """``repr(token)`` for a message, cut to about ``limit`` characters (a field can be megabytes)."""
    if not isinstance(token, str):
        return repr(token)
    if len(token) <= limit:
        return repr(token)
    return repr(token[:limit]) + f"... ({len(token):,} characters)"


def is_comment_bytes(raw: bytes) -> bool:
    return raw.startswith(b"%") or raw.lstrip(b" \t").startswith(b"#")


def strip_comment(text: str) -> str:
    """A line without its comment: ``%`` at the start, or ``#`` anywhere, comments out the rest."""
    if text.startswith("%"):
        return ""
    cut = text.find("#")
    return text if cut < 0 else text[:cut]
