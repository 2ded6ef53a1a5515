"""Peak memory of a run: host bytes via tracemalloc (numpy reports to it), device bytes via CuPy's pool."""

from __future__ import annotations

import tracemalloc
from contextlib import contextmanager


@contextmanager
def peak_memory(backend):
    """Yields a dict whose 'peak_bytes' is filled in when the block ends."""
    box = {"peak_bytes": 0}
    if backend == "cupy":
        import cupy as cp  # noqa: PLC0415

        pool = cp.get_default_memory_pool()
        cp.cuda.get_current_stream().synchronize()
        pool.free_all_blocks()
        before = pool.used_bytes()
        yield box
        cp.cuda.get_current_stream().synchronize()
        # freed blocks stay in the pool, so its total is the high-water mark of the block
        box["peak_bytes"] = pool.total_bytes() - before
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


def graph_bytes(G) -> int:
    """Bytes held by the graph's arrays (CSR, weights, and the CSC when built)."""
    arrays = [G.indptr, G.indices, G.weights]
    if G._csc is not None:
        arrays += [a for a in G._csc if a is not None]
    return int(sum(a.nbytes for a in arrays if a is not None))
