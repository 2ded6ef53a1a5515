"""Compiling and launching CUDA: the module and kernel caches, launch geometry.

CuPy compiles a module with NVRTC the first time its source is used in a process (or loads the
binary from its disk cache, keyed on the full source text and options); that time is start-up
(:func:`dgraph.startup.timed`), not algorithm time.  Nothing here imports CuPy until a function
is called, so ``import dgraph.cuda`` works on a machine without a GPU.
"""

from __future__ import annotations

#: threads a block in every dgraph launch (the kernels' shared-memory arrays assume at most 1024)
BLOCK = 256

_modules = {}
_functions = {}
_elementwise = {}
_sms = {}
_coop_grids = {}


def compiled(source, *options, cooperative=False):
    """The CuPy module of CUDA ``source``, built once per process (C++17 plus ``options``; CuPy keeps
    the binary on disk between processes).  ``cooperative``: its kernels may sync the whole grid."""
    key = (source, options, cooperative)
    mod = _modules.get(key)
    if mod is None:
        import cupy  # noqa: PLC0415

        mod = _modules[key] = cupy.RawModule(code=source, options=("-std=c++17", *options),
                                             enable_cooperative_groups=cooperative)
    return mod


def function(source, name, *options, cooperative=False):
    """Kernel ``name`` of :func:`compiled`'s module, looked up once a device: CuPy builds a kernel
    object per lookup, and the launches of a superstep or an iteration look up every time."""
    import cupy  # noqa: PLC0415

    key = (cupy.cuda.Device().id, source, options, cooperative, name)
    f = _functions.get(key)
    if f is None:
        from ..startup import timed  # noqa: PLC0415

        with timed():  # CuPy compiles the module (or loads it from its disk cache) here: start-up time
            f = _functions[key] = compiled(source, *options, cooperative=cooperative).get_function(name)
    return f


def elementwise(name, in_params, out_params, body):
    """A CuPy ElementwiseKernel, built once per process under ``name`` (a one-line kernel where a
    CuPy expression would take several launches, each with its own host time)."""
    k = _elementwise.get(name)
    if k is None:
        import cupy  # noqa: PLC0415

        k = _elementwise[name] = cupy.ElementwiseKernel(in_params, out_params, body, name=name)
    return k


def multiprocessors():
    """The current device's multiprocessor count (read once: a device's properties cost ~0.1 ms)."""
    import cupy as cp  # noqa: PLC0415

    dev = cp.cuda.Device().id
    if dev not in _sms:
        _sms[dev] = cp.cuda.runtime.getDeviceProperties(dev)["multiProcessorCount"]
    return _sms[dev]


def cooperative_grid(kern, per_sm):
    """Blocks of ``BLOCK`` threads for a cooperative launch of ``kern``: ``per_sm`` a multiprocessor,
    fewer where the kernel's registers or shared memory do not let that many be resident at once
    (a grid barrier needs every block resident)."""
    import cupy as cp  # noqa: PLC0415

    dev = cp.cuda.Device().id
    key = (dev, kern.name, per_sm)
    if key not in _coop_grids:
        fits = cp.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor(kern.kernel.ptr, BLOCK, 0)
        _coop_grids[key] = multiprocessors() * max(1, min(per_sm, fits))
    return _coop_grids[key]


def dtype_suffix(dtype):
    """'i32' or 'i64': the suffix of a kernel's instance for vertex ids of ``dtype`` (4 or 8 bytes)."""
    return "i32" if dtype.itemsize == 4 else "i64"


__all__ = ["BLOCK", "compiled", "function", "multiprocessors", "cooperative_grid", "dtype_suffix"]
