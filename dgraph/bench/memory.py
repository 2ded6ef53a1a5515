"""Peak memory of a run: host bytes via tracemalloc (numpy reports to it), device bytes via a CuPy
memory hook on the pool (allocations minus frees, high-water mark)."""

from __future__ import annotations

import tracemalloc
from contextlib import contextmanager


@contextmanager
def peak_memory(backend):
    """Yields a dict whose 'peak_bytes' is filled in when the block ends."""
    box = {"peak_bytes": 0}
    if backend == "cupy":
        import cupy as cp  # noqa: PLC0415

        hook = device_peak_hook()
        cp.cuda.get_current_stream().synchronize()
        with hook:
            yield box
        cp.cuda.get_current_stream().synchronize()
        box["peak_bytes"] = hook.peak
        return
    started = not tracemalloc.is_tracing()
    if started:
        tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    try:
        yield box
    finally:
        box["peak_bytes"] = tracemalloc.get_traced_memory()[1] - base
        if started:
            tracemalloc.stop()


def device_peak_hook():
    """A CuPy memory hook (use as ``with hook:``) whose ``peak`` is the high-water mark of bytes taken
    from the pool while it was on, net of what was given back.

    The pool's own totals include blocks it cannot return (a chunk partly in use), so a difference of
    pool totals can count hundreds of MiB an earlier step left behind; the hook counts only this block's
    allocations."""
    from cupy.cuda import memory_hook  # noqa: PLC0415

    class PeakHook(memory_hook.MemoryHook):
        name = "DGraphPeakHook"

        def __init__(self):
            self.now = self.peak = 0

        def malloc_postprocess(self, *args, **kw):
            self.now += kw["mem_size"] if "mem_size" in kw else args[2]
            self.peak = max(self.peak, self.now)

        def free_postprocess(self, *args, **kw):
            self.now -= kw["mem_size"] if "mem_size" in kw else args[1]

    return PeakHook()


def graph_bytes(G) -> int:
    """Bytes held by the graph's arrays (CSR, weights, and the CSC when built)."""
    arrays = [G.indptr, G.indices, G.weights]
    if G._csc is not None:
        arrays += [a for a in G._csc if a is not None]
    return int(sum(a.nbytes for a in arrays if a is not None))
