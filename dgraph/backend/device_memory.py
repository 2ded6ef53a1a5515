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


def require(nbytes, what, *, have=None, per_gpu=None):
    """Raise GraphTooLargeError when ``nbytes`` more will not fit on the current GPU.

    ``have`` = (available, total) overrides the device query (tests).  ``per_gpu(p)``: the bytes
    each of ``p`` GPUs would need for the same work partitioned, to say how many GPUs of this size
    would hold it."""
    free, total = available() if have is None else have
    if nbytes <= free:
        return
    split = "Split it over more GPUs"
    if per_gpu is not None:
        k = gpus_needed(per_gpu, total)
        if k is None:
            split = "Partitioned, it does not fit on 1,024 GPUs of this size either"
        else:
            gpus = "one GPU" if k == 1 else f"{k} GPUs"
            split = (f"Built partitioned, it needs {gpus} of this size (about {_fmt(per_gpu(k))} each): "
                     f"dgraph.generate_partitioned(kind, {k}, backend='cupy', ...) on a cluster of {gpus} "
                     f"(dgraph.cluster.connect('cuda'))")
        raise GraphTooLargeError(f"{what} needs about {_fmt(nbytes)} of GPU memory, and this GPU has "
                                 f"{_fmt(free)} free of {_fmt(total)}. {split}, or run it on the CPU "
                                 f"(backend='numpy')")
    raise GraphTooLargeError(
        f"{what} needs about {_fmt(nbytes)} of GPU memory, and this GPU has {_fmt(free)} free of {_fmt(total)}. "
        f"{split} (G.partition(p, backend='cupy', client=dgraph.cluster.connect('cuda')), "
        f"or dgraph.generate_partitioned(...)), or run it on the CPU (backend='numpy')")


#: the share of a GPU's memory a partitioned build plans to use (the rest: CUDA context, the run's arrays)
PLAN_SHARE = 0.8


def gpus_needed(per_gpu, total, limit=1024):
    """The fewest GPUs of ``total`` bytes each on which ``per_gpu(p)`` fits (None past ``limit``)."""
    return next((p for p in range(1, limit + 1) if per_gpu(p) <= PLAN_SHARE * total), None)


def partitioned_build_bytes(num_vertices, num_edges, directed, weighted, p):
    """Peak bytes on each of ``p`` GPUs of a streaming partitioned build (dgraph.partition.stream):
    the shard's slots (out-arcs, in-arcs when directed, weights), the trimmed copy they may be
    given back through, the O(n) degree arrays, one batch in flight and one sort block."""
    from ..partition.stream import BATCH, SORT_BLOCK  # noqa: PLC0415

    vbytes = 4 if num_vertices < 2**31 else 8
    arcs = num_edges * (1 if directed else 2) / p
    slots = arcs * (vbytes + (8 if weighted else 0)) + (arcs * vbytes if directed else 0)
    degrees = 3 * 8 * num_vertices
    return int(2 * slots + degrees + BATCH["cupy"] * 2 * 8 * 6 + SORT_BLOCK["cupy"] * 8 * 4)


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


__all__ = ["available", "require", "build_bytes", "csc_build_bytes", "gpus_needed", "partitioned_build_bytes"]
