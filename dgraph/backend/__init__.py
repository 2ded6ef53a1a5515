"""Array backends: numpy on the CPU, CuPy on the GPU, behind one ``xp`` convention.

Code takes ``xp`` from the data it is given (:func:`array_module`) and never
mixes the two inside a kernel.  CuPy is imported only when asked for.
Kernels several algorithms share live in :mod:`dgraph.backend.cpu_kernels` (numba) and
:mod:`dgraph.backend.gpu_kernels` (CuPy RawKernels); an algorithm's own kernels live in its
package (BFS: :mod:`dgraph.algorithms.bfs`).
"""

from __future__ import annotations

import numpy as np

from ..errors import BackendError, InputError

BACKENDS = ("numpy", "cupy")
_cupy = None


def cupy_module():
    """Import and return cupy, or raise a BackendError saying why it is not usable."""
    global _cupy
    if _cupy is not None:
        return _cupy
    try:
        import cupy  # noqa: PLC0415
    except Exception as exc:  # ImportError, or a broken CUDA install
        raise BackendError(
            f"backend='cupy' needs CuPy and a CUDA GPU, but CuPy cannot be imported ({exc}); "
            "install 'dgraph-frontier[cuda]' on a machine with an NVIDIA GPU, or use backend='numpy'"
        ) from None
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:
        raise BackendError(f"backend='cupy': no usable CUDA device ({exc}); use backend='numpy'") from None
    if count < 1:
        raise BackendError("backend='cupy': CuPy found no CUDA device; use backend='numpy'")
    _cupy = cupy
    return cupy


def gpu_available() -> bool:
    """True when CuPy imports and sees at least one CUDA device."""
    try:
        cupy_module()
    except BackendError:
        return False
    return True


def get_xp(backend: str):
    """The array module for a backend name ('numpy' or 'cupy')."""
    if backend in (None, "numpy", "cpu"):
        return np
    if backend in ("cupy", "gpu", "cuda"):
        return cupy_module()
    raise InputError(f"backend={backend!r}: expected one of {', '.join(BACKENDS)}")


def backend_name(xp) -> str:
    return "numpy" if xp is np else "cupy"


def array_module(*arrays):
    """numpy or cupy, whichever holds the given arrays (None entries ignored)."""
    for a in arrays:
        if a is None or isinstance(a, np.ndarray):
            continue
        mod = type(a).__module__
        if mod.startswith("cupy"):
            return cupy_module()
    return np


def is_device_array(a) -> bool:
    return a is not None and type(a).__module__.startswith("cupy")


def full(xp, n, value, dtype, at=None, at_value=None):
    """``xp.full(n, value, dtype)``, then ``a[at] = at_value`` where ``at`` is given (a search's
    source); on CuPy one launch of :func:`dgraph.backend.gpu_fill.fill`, which writes at the
    memory's bandwidth where CuPy's fill does not (a fill of n entries starts most runs)."""
    if xp is np:
        if at is not None and not 0 <= at < n:
            raise IndexError(f"full: entry {at} of an array of {n}")
        a = np.full(n, value, dtype=dtype)
        if at is not None:
            a[at] = at_value
        return a
    from .gpu_fill import fill  # noqa: PLC0415

    return fill(xp.empty(n, dtype=dtype), value, at, at_value)


def to_numpy(a):
    """A numpy view or copy of any array (cupy arrays are copied to the host)."""
    if a is None:
        return None
    if is_device_array(a):
        return a.get()
    return np.asarray(a)


def to_backend(a, xp):
    """Move an array to the backend of ``xp`` (no copy when already there)."""
    if a is None:
        return None
    if xp is np:
        return to_numpy(a)
    return xp.asarray(a)


def vertex_dtype(num_vertices: int):
    """int32 while the vertex count fits in 31 bits, else int64 (DESIGN conventions)."""
    return np.int32 if num_vertices < 2**31 - 1 else np.int64
