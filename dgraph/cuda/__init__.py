"""The CUDA machinery every GPU kernel module shares.

- :mod:`dgraph.cuda.compile`: :func:`compiled` (a CuPy module built once a process),
  :func:`function` (a kernel looked up once a device, its compile timed as start-up),
  :func:`multiprocessors`, :func:`cooperative_grid`, :data:`BLOCK`, :func:`dtype_suffix`,
  :func:`elementwise` (a CuPy ElementwiseKernel built once).
- :mod:`dgraph.cuda.sources`: :func:`source` reads a ``.cu`` file shipped in a package, its
  ``#include "common.cuh"`` resolved; :func:`common` is ``common.cuh`` itself.
- ``common.cuh``: the shared device helpers (``warp_emit``, ``block_reserve``, ``block_sum``,
  ``block_add``, ``now_ns``, ``block_emit``, ``slot_between``, ``block_slot``, ``block_tally``,
  ...).  Every helper that several threads of a block call together says so above it.

A kernel module either keeps its CUDA in a ``.cu`` file beside it (``source(__package__,
"name.cu")``) or, until it is moved, in a string after :data:`COMMON`.  Nothing here imports
CuPy until a kernel is compiled or launched.
"""

from __future__ import annotations

from .compile import BLOCK, compiled, cooperative_grid, dtype_suffix, elementwise, function, multiprocessors
from .sources import common, source

#: ``common.cuh`` as the modules that build their source in Python put it in front of their own
#: CUDA (``COMMON + r"""..."""``); the leading newline keeps their assembled text, and so CuPy's
#: cache key, what it was when this text lived in ``backend/gpu_kernels.py``
COMMON = "\n" + common()

__all__ = ["BLOCK", "COMMON", "common", "compiled", "cooperative_grid", "dtype_suffix", "elementwise", "function",
           "multiprocessors", "source"]
