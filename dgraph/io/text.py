"""An input text file held as bytes, with the helpers every text reader shares.

Readers parse the whole file at C speed (pyarrow or pandas, see
:mod:`dgraph.io.table`) from the bytes held here.  The Python loop over lines
in :meth:`Text.lines` runs only on the error path, after a fast parse has
failed or produced a bad value, to find the first bad line and name it (file
and 1-based line number) in the error.  Compressed files (.gz, .bz2, .xz) are
decompressed on open; their format is taken from the extension before it.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
from pathlib import Path

from ..errors import FileFormatError, InputError, MissingFileError

COMPRESSIONS = {".gz": gzip.decompress, ".bz2": bz2.decompress, ".xz": lzma.decompress}
COMMENT_CHARS = ("#", "%")
BLOCK = 1 << 20


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
        p = existing_file(path)
        try:
            data = p.read_bytes()
        except OSError as exc:
            raise MissingFileError(f"{p}: cannot be read ({exc.strerror or exc})") from None
        codec = COMPRESSIONS.get(p.suffix.lower())
        if codec is not None:
            try:
                data = codec(data)
            except Exception as exc:  # noqa: BLE001 - any codec failure is a bad file
                raise FileFormatError(p, None, f"cannot be decompressed as {p.suffix} ({exc})") from None
        return cls(p, data)

    @property
    def body(self) -> memoryview:
        return memoryview(self.data)[self.offset:]

    def error(self, line, message) -> FileFormatError:
        return FileFormatError(self.path, line, message)

    def blocks(self):
        """``(first line number, lines, plain)`` for blocks of about 1 MiB of whole lines from
        ``offset`` on; a line that is not valid UTF-8 is ``None``; ``plain`` says the block
        has no ``#`` or ``%`` (no comments to look for).  Line scans run over whole files on
        the error path, so their cost per line matters."""
        data, pos, lineno = self.data, self.offset, self.first_line
        n = len(data)
        while pos < n:
            end = data.find(b"\n", min(pos + BLOCK, n))
            end = n if end < 0 else end + 1
            chunk = data[pos:end]
            try:
                lines = chunk.decode("utf-8").split("\n")
            except UnicodeDecodeError:
                lines = [_decode(raw) for raw in chunk.split(b"\n")]
            if chunk.endswith(b"\n"):
                lines.pop()
            if b"\r" in chunk:
                lines = [None if line is None else line.rstrip("\r") for line in lines]
            yield lineno, lines, b"#" not in chunk and b"%" not in chunk
            pos, lineno = end, lineno + len(lines)

    def lines(self):
        """``(line number, text)`` of every line from ``offset`` on; invalid UTF-8 gives ``None`` text."""
        for first, lines, _ in self.blocks():
            yield from enumerate(lines, start=first)

    def skip_comments(self) -> "Text":
        """Move ``offset`` past leading blank and comment (``#``, ``%``) lines."""
        data, pos, line = self.data, self.offset, self.first_line
        while pos < len(data):
            end = data.find(b"\n", pos)
            end = len(data) if end < 0 else end + 1
            stripped = data[pos:end].strip()
            if stripped and not is_comment_bytes(data[pos:end]):
                break
            pos, line = end, line + 1
        self.offset, self.first_line = pos, line
        return self

    def first_data_line(self) -> str | None:
        """The text of the line at ``offset`` (after :meth:`skip_comments`), or None at the end."""
        for _, text in self.lines():
            return text
        return None


def _decode(raw: bytes):
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return None


def is_comment_bytes(raw: bytes) -> bool:
    return raw.startswith(b"%") or raw.lstrip().startswith(b"#")


def strip_comment(text: str) -> str:
    """A line without its comment: ``%`` at the start, or ``#`` anywhere, comments out the rest."""
    if text.startswith("%"):
        return ""
    cut = text.find("#")
    return text if cut < 0 else text[:cut]
