"""GPU memory checks: work that cannot fit is refused before anything is allocated.

A graph built or copied onto a GPU that does not have the room would fail
somewhere deep inside CuPy (an ``OutOfMemoryError`` from a sort or a
concatenate, with the device left half full).  Here the caller states the
bytes it is about to need and gets a :class:`GraphTooLargeError` that says
how much that is, how much the GPU has, and what to do instead.

The per-edge figures of the estimates were measured on an H100 with a CuPy
pool hook (high-water mark of bytes in use; ``docs/bench-scripts/gpu-memory.py``,
docs/BENCHMARKS.md): building an undirected R-MAT graph or grid on the GPU
peaks at about 90 bytes per generated edge (both directions are stored, then
sorted and deduplicated), a directed one at about 48, weights add about 88.
"""

from __future__ import annotations

from ..errors import GraphTooLargeError

#: bytes per generated edge at the peak of building a graph on the GPU (measured; rounded up)
BUILD_BYTES_PER_EDGE = {False: 100, True: 56}   # keyed by directed
BUILD_WEIGHT_BYTES_PER_EDGE = 96
#: bytes per arc of a chunk at the peak of sorting it into the CSC (keys, positions, order, sort scratch)
CSC_SORT_BYTES_PER_ARC = 48


def _fmt(b):
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if b < 1024 or unit == "TiB":
            return f"{b:.1f} {unit}" if unit != "B" else f"{int(b)} B"
        b /= 1024


def available():
    """(bytes the current GPU can still give, its total): free device memory plus what CuPy's pool
    holds unused."""
    import cupy as cp  # noqa: PLC0415

    free, total = cp.cuda.runtime.memGetInfo()
    return free + cp.get_default_memory_pool().free_bytes(), total


def require(nbytes, what, *, have=None):
    """Raise GraphTooLargeError when ``nbytes`` more will not fit on the current GPU.

    ``have`` = (available, total) overrides the device query (tests)."""
    free, total = available() if have is None else have
    if nbytes <= free:
        return
    raise GraphTooLargeError(
        f"{what} needs about {_fmt(nbytes)} of GPU memory, and this GPU has {_fmt(free)} free of {_fmt(total)}. "
        f"Split it over more GPUs (G.partition(p, backend='cupy', client=dgraph.cluster.connect('cuda')), "
        f"or dgraph.generate_partitioned(...)), or run it on the CPU (backend='numpy')")


def csc_build_bytes(num_arcs, num_vertices, edge_ids, itemsize=4):
    """Peak bytes of building a directed graph's CSC on the GPU (dgraph.graph.csc): the index itself
    (sources, edge ids, row pointers), the range masks over every arc, and one chunk's sort."""
    from ..graph.csc import chunk_arcs_for  # noqa: PLC0415

    out = num_arcs * itemsize * (2 if edge_ids else 1) + 16 * (num_vertices + 1)
    return int(out + 3 * num_arcs + CSC_SORT_BYTES_PER_ARC * min(num_arcs, chunk_arcs_for(num_arcs, gpu=True)))


def build_bytes(num_edges, directed, weighted):
    """Peak bytes of building a graph of ``num_edges`` input edges on the GPU (an estimate)."""
    per = BUILD_BYTES_PER_EDGE[bool(directed)] + (BUILD_WEIGHT_BYTES_PER_EDGE if weighted else 0)
    return int(num_edges) * per


__all__ = ["available", "require", "build_bytes", "csc_build_bytes"]
