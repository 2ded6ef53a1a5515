"""Start-up time, measured apart from algorithm time.

A new process pays once for what is not the algorithm: importing numba, numba's first dispatch
(it loads its type registries), then loading every kernel a call uses from numba's on-disk cache,
or compiling it the first time on a machine (seconds to minutes for the threaded kernels); on a GPU,
compiling CUDA modules (CuPy keeps those on disk too).  dgraph counts that time on a per-thread
clock (:func:`seconds`), and the executors take it out of the superstep it happened in: it is the
``startup_s`` phase of a :class:`~dgraph.Result`, not part of ``run_time`` or of any superstep.

Kernels are compiled lazily, one function at a time, so a call loads only the kernels it runs.
The first real compilation in a process is announced once on the ``dgraph`` logger, with the
folder the compiled code is cached in.
"""

from __future__ import annotations

import os

import threading
import time
from contextlib import contextmanager

from .log import logger

_local = threading.local()
_announced = set()
_lock = threading.Lock()


def seconds() -> float:
    """Start-up seconds this thread has spent so far: a running total, so callers take differences."""
    return getattr(_local, "total", 0.0)


@contextmanager
def timed():
    """Count the block's wall time as start-up (a block inside another counts once)."""
    depth = getattr(_local, "depth", 0)
    _local.depth = depth + 1
    t0 = time.perf_counter()
    try:
        yield
    finally:
        _local.depth = depth
        if depth == 0:
            _local.total = seconds() + (time.perf_counter() - t0)


def charge(spent):
    """Count ``spent`` seconds of start-up that this thread waited for elsewhere as its own (the
    ``tasks`` executor's client: the start-up its workers reported), so that :func:`seconds` and the
    run's ``startup_s`` phase include it."""
    _local.total = seconds() + max(0.0, spent)


class Stopwatch:
    """Wall time less start-up, for a program that times its own supersteps: ``lap()`` is the
    seconds since the last lap (or since it was made) without the start-up spent in between."""

    def __init__(self):
        self.t, self.c = time.perf_counter(), seconds()

    def lap(self):
        t, c = time.perf_counter(), seconds()
        out = (t - self.t) - (c - self.c)
        self.t, self.c = t, c
        return max(0.0, out)


def import_timed(name):
    """``importlib.import_module(name)``, its time (numba's import, for one) counted as start-up."""
    import importlib  # noqa: PLC0415
    import sys  # noqa: PLC0415

    mod = sys.modules.get(name)
    if mod is not None:
        return mod
    with timed():
        return importlib.import_module(name)


def numba_kernel(fn, **options):
    """``numba.njit(cache=True, **options)(fn)`` whose compilations and cache loads count as start-up.

    numba calls the dispatcher's ``_compile_for_args`` exactly when no compiled version matches the
    argument types (a cache load or a compilation, never a run), so timing that call times the
    start-up and nothing else."""
    import numba  # noqa: PLC0415

    return timed_dispatcher(numba.njit(cache=True, **options)(fn))


def timed_dispatcher(disp):
    """A numba dispatcher made elsewhere (generated code), its compilations and cache loads counted as
    start-up as in :func:`numba_kernel`; returns it."""
    if getattr(disp, "_dgraph_timed", False):
        return disp
    _listen_for_compiles()
    compile_for_args = disp._compile_for_args

    def timed_compile(*args, **kws):
        with timed():
            return compile_for_args(*args, **kws)

    disp._compile_for_args = timed_compile
    disp._dgraph_timed = True
    return disp


def announce(kind, where):
    """Say once per process and ``kind`` that kernels are being compiled, and where they are kept."""
    with _lock:
        if kind in _announced:
            return
        _announced.add(kind)
    logger.info("compiling %s on first use (once per machine: cached in %s; later runs load them, and "
                "the time is reported as start-up, not as run time)", kind, where)


_listening = False


def _listen_for_compiles():
    """Register (once) a numba event listener that announces the first real compilation (a cache
    miss) of a dgraph kernel: numba raises the event only when it compiles, not when it loads."""
    global _listening
    with _lock:
        if _listening:
            return
        _listening = True
    from numba.core import event  # noqa: PLC0415

    class _FirstCompile(event.Listener):
        def on_start(self, ev):
            disp = (ev.data or {}).get("dispatcher")
            py = getattr(disp, "py_func", None)
            if py is not None and getattr(py, "__module__", "").startswith("dgraph"):
                announce("dgraph's CPU kernels (numba)", _numba_cache_dir(disp))

        def on_end(self, ev):
            pass

    event.register("numba:compile", _FirstCompile())


def _numba_cache_dir(disp):
    cache = getattr(disp, "_cache", None)
    path = getattr(cache, "_cache_path", None)
    if path is None:
        return "numba's cache folder (NUMBA_CACHE_DIR)"
    if os.environ.get("NUMBA_CACHE_DIR"):
        return path
    # each algorithm package keeps its kernels' cache beside it: name the first one as an example
    return f"the __pycache__ folder beside each kernel module, e.g. {path}"
