"""Fill and replace on the GPU at the memory's bandwidth: the n-entry arrays a run starts from.

CuPy's elementwise fill writes one element a thread: on an H200 it fills a 67M-entry int32
array in 0.33 ms (0.8 TB/s), where these kernels, a fixed grid striding over 16-byte vectors,
take 0.08 ms (3.5 TB/s; docs/BENCHMARKS.md).  BFS fills two such arrays and rewrites one every
run.  The CUDA is ``gpu_fill.cu`` beside this file.
"""

from __future__ import annotations

import numpy as np

from ..cuda import BLOCK, function, multiprocessors, source

#: this module's CUDA (gpu_fill.cu, with dgraph/cuda/common.cuh in front)
_SOURCE = source(__package__, "gpu_fill.cu")


#: blocks a multiprocessor of the fill and replace kernels' fixed grid (they stride over the array)
FILL_BLOCKS_PER_SM = 8


def _launches(a):
    """Whether ``a`` is what the kernels take: contiguous 4- or 8-byte elements from a 16-byte start."""
    return a.dtype.itemsize in (4, 8) and a.flags.c_contiguous and a.data.ptr % 16 == 0


def _word(a, value):
    """``value`` as ``a``'s dtype, its bits as the kernels' word of that width."""
    import cupy as cp  # noqa: PLC0415

    word, scalar = (np.uint32, cp.uint32) if a.dtype.itemsize == 4 else (np.uint64, cp.uint64)
    return scalar(np.array(value, dtype=a.dtype).view(word)[()])


def _launch(name, a, *args):
    """fill_/replace_ of ``a``'s width over its bytes, with the kernel's arguments after ``a`` and its size."""
    import cupy as cp  # noqa: PLC0415

    grid = min(multiprocessors() * FILL_BLOCKS_PER_SM, (a.size + BLOCK - 1) // BLOCK)
    function(_SOURCE, f"{name}_u{8 * a.dtype.itemsize}")((grid,), (BLOCK,), (a, cp.int64(a.size), *args))


def fill(a, value, at=None, at_value=None):
    """``a[...] = value`` (then ``a[at] = at_value`` where ``at`` is given, 0 <= at < a.size) for a
    CuPy array, at the memory's bandwidth for contiguous 4- or 8-byte elements (16 bytes a store,
    the entry at ``at`` in the same pass; CuPy's own fill writes one element a thread), by CuPy
    otherwise.  ``value`` is cast to ``a``'s dtype as numpy casts it."""
    if at is not None and not 0 <= at < a.size:
        raise IndexError(f"fill: entry {at} of an array of {a.size}")
    if a.size and _launches(a):
        import cupy as cp  # noqa: PLC0415

        _launch("fill", a, _word(a, value), cp.int64(-1 if at is None else at),
                _word(a, value if at is None else at_value))
    else:
        a.fill(value)
        if at is not None:
            a[at] = at_value
    return a


def replace(a, old, new):
    """``a[a == old] = new`` in place, one pass (where ``cupy.where`` takes a compare and a select).
    The kernel compares bit patterns, which is ``==`` for integers only: floats (NaN, -0.0) go by CuPy.
    A contiguous view that starts off a 16-byte boundary (a shard's slice of a vertex array) has its
    first few entries done by CuPy and the rest by the kernel."""
    import cupy as cp  # noqa: PLC0415

    skip = _head(a) if a.dtype.kind in "iu" else None
    if skip is None:
        a[a == old] = new
        return a
    head, body = a[:skip], a[skip:]
    if head.size:
        head[...] = cp.where(head == old, cp.asarray(new, dtype=a.dtype), head)
    if body.size:
        _launch("replace", body, _word(a, old), _word(a, new))
    return a


def _head(a):
    """How many entries of ``a`` come before its first 16-byte boundary, where the kernels take the
    rest (contiguous 4- or 8-byte elements, each aligned to its size); None where they take none."""
    size = a.dtype.itemsize
    if size not in (4, 8) or not a.flags.c_contiguous or a.data.ptr % size:
        return None
    return min(a.size, (-a.data.ptr % 16) // size)


__all__ = ["fill", "replace"]
