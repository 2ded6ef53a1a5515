"""CUDA source files shipped in the package: read, with ``#include "..."`` resolved in Python.

A kernel module keeps its CUDA in a ``.cu`` file beside it (package data, read with
:mod:`importlib.resources`, so it works from a wheel or a zip too).  ``#include "name"`` lines are
replaced by the text of ``name``, looked up in the including file's package and then in
``dgraph.cuda`` (home of ``common.cuh``), each file once (like ``#pragma once``).  Inclusion is
textual, not NVRTC's ``-I``, so the source CuPy compiles, and the key of its disk cache, is the
whole text.  ``#include <...>`` lines (CUDA's own headers) are left to NVRTC.
"""

from __future__ import annotations

import functools
import re
from importlib import resources

from ..errors import MissingFileError

_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]+"([^"]+)"[ \t]*\r?\n?', re.M)


def _read(package, filename):
    try:
        return resources.files(package).joinpath(filename).read_text(encoding="utf-8")
    except (FileNotFoundError, IsADirectoryError, ModuleNotFoundError):
        raise MissingFileError(f"CUDA source {filename!r} is not in package {package!r} (is the package "
                               f"installed with its data files?)") from None


def _has(package, filename):
    try:
        return resources.files(package).joinpath(filename).is_file()
    except ModuleNotFoundError:
        return False


def _resolve(package, text, seen):
    def include(m):
        name = m.group(1)
        where = package if _has(package, name) else __package__
        key = (where, name)
        if key in seen:
            return ""
        seen.add(key)
        return _resolve(where, _read(where, name), seen)

    return _INCLUDE.sub(include, text)


@functools.lru_cache(maxsize=None)
def source(package: str, filename: str) -> str:
    """The text of CUDA file ``filename`` of ``package`` (e.g. ``"dgraph.backend"``), its
    ``#include "..."`` lines replaced by the files they name.  Read once a process.

    Examples
    --------
    >>> from dgraph.cuda import source
    >>> "__device__ __forceinline__ u64 block_reserve" in source("dgraph.cuda", "common.cuh")
    True
    """
    return _resolve(package, _read(package, filename), {(package, filename)})


def common() -> str:
    """The text of ``common.cuh``: the device helpers every dgraph kernel module shares."""
    return source(__package__, "common.cuh")


__all__ = ["source", "common"]
