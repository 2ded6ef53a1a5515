"""Memory checks, GPU and host: work that cannot fit is refused before anything is allocated.

A graph built or copied onto a GPU that does not have the room would fail
somewhere deep inside CuPy (an ``OutOfMemoryError`` from a sort or a
concatenate, with the device left half full); on the host it would end in a
numpy ``MemoryError``, a crash inside a C parser, or the kernel's OOM killer.
Here the caller states the bytes it is about to need and gets a
:class:`GraphTooLargeError` that says how much that is, how much the device
(or this machine) has, and what to do instead.

The per-edge figures of the estimates were measured with a high-water mark of
bytes in use (``benchmarks/gpu-memory.py`` with a CuPy pool hook on an
H100; ``benchmarks/host-memory.py`` with tracemalloc on the host;
docs/BENCHMARKS.md).  On the GPU, building an undirected R-MAT graph or grid
peaks at about 90 bytes per generated edge (both directions are stored, then
sorted and deduplicated), a directed one at about 48, weights add about 88.
On the host, ``from_edges`` peaks at about 83 bytes per input edge undirected
and 41 directed (weights +32 / +16), renumbering adds about 32, and every
vertex costs 16 bytes (the row offsets and their search keys) plus 8 for a
renumbered id.
"""

from __future__ import annotations

import os
import sys

from ..errors import GraphTooLargeError

#: bytes per generated edge at the peak of building a graph on the GPU (measured; rounded up)
BUILD_BYTES_PER_EDGE = {False: 100, True: 56}   # keyed by directed
BUILD_WEIGHT_BYTES_PER_EDGE = 96
#: bytes per arc of a chunk at the peak of sorting it into the CSC (keys, positions, order, sort scratch)
CSC_SORT_BYTES_PER_ARC = 48
#: host: bytes per input edge at the peak of from_edges, net of its inputs (measured; rounded up)
HOST_BUILD_BYTES_PER_EDGE = {False: 96, True: 56}
HOST_BUILD_WEIGHT_BYTES_PER_EDGE = {False: 40, True: 24}
#: host and GPU: renumbering (unique ids, their search) per input edge, and bytes per vertex
RENUMBER_BYTES_PER_EDGE = 40
VERTEX_BYTES = 24


def _fmt(b):
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"):
        if b < 1024 or unit == "EiB":
            return f"{b:.1f} {unit}" if unit != "B" else f"{int(b)} B"
        b /= 1024


def available():
    """(bytes the current GPU can still give, its total): free device memory plus what CuPy's pool
    holds unused."""
    import cupy as cp  # noqa: PLC0415

    free, total = cp.cuda.runtime.memGetInfo()
    return free + cp.get_default_memory_pool().free_bytes(), total


def host_available():
    """(bytes this process can still allocate on the host, the machine's total).

    The least of: the memory the kernel says is available (``MemAvailable``),
    what a cgroup limit leaves, and what an address-space limit (``ulimit -v``,
    ``RLIMIT_AS``) leaves beside the process's current size."""
    total, free = _meminfo()
    limits = [free]
    limits.append(_cgroup_room())
    limits.append(_rlimit_room())
    room = min(x for x in limits if x is not None)
    return max(0, int(room)), int(total)


def _meminfo():
    try:
        with open("/proc/meminfo") as f:
            info = {line.split(":")[0]: int(line.split()[1]) * 1024 for line in f if line.split()[1:]}
        return info["MemTotal"], info.get("MemAvailable", info.get("MemFree", info["MemTotal"]))
    except (OSError, KeyError, ValueError, IndexError):
        pass
    try:  # other systems: psutil when installed, else the page counts
        import psutil  # noqa: PLC0415

        vm = psutil.virtual_memory()
        return vm.total, vm.available
    except Exception:  # noqa: BLE001
        pass
    try:
        page = os.sysconf("SC_PAGE_SIZE")
        return os.sysconf("SC_PHYS_PAGES") * page, os.sysconf("SC_AVPHYS_PAGES") * page
    except (ValueError, OSError, AttributeError):
        return 1 << 62, 1 << 62


def _read_int(path):
    try:
        with open(path) as f:
            text = f.read().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def _cgroup_room():
    """What the cgroup (v2, else v1) memory limit leaves, or None without one."""
    limit, used = _read_int("/sys/fs/cgroup/memory.max"), _read_int("/sys/fs/cgroup/memory.current")
    if limit is None:
        limit = _read_int("/sys/fs/cgroup/memory/memory.limit_in_bytes")
        used = _read_int("/sys/fs/cgroup/memory/memory.usage_in_bytes")
    if limit is None or used is None or limit >= 1 << 60:
        return None
    return limit - used


def _rlimit_room():
    """What RLIMIT_AS leaves beside the process's virtual size, or None without a limit."""
    if not sys.platform.startswith("linux"):
        return None
    import resource  # noqa: PLC0415

    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY:
        return None
    try:
        with open("/proc/self/status") as f:
            size = next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmSize:"))
    except (OSError, StopIteration, ValueError):
        return None
    return soft - size


HOST_ADVICE = ("Use a machine with more memory, or build the graph in parts on a Dask cluster "
               "(dgraph.from_dask_dataframe(...), dgraph.generate_partitioned(...))")
GPU_ADVICE = ("Split it over more GPUs (G.partition(p, backend='cupy', client=dgraph.cluster.connect('cuda')), "
              "or dgraph.generate_partitioned(...)), or run it on the CPU (backend='numpy')")


def require(nbytes, what, *, have=None, device="gpu", advice=None, per_gpu=None):
    """Raise GraphTooLargeError when ``nbytes`` more will not fit on the current GPU (``device="gpu"``)
    or in this process's host memory (``device="host"``).

    ``have`` = (available, total) overrides the query (tests); ``advice`` is said first among the
    remedies (e.g. ``renumber=True`` for sparse ids).  ``per_gpu(p)``: the bytes each of ``p`` GPUs
    would need for the same work partitioned, to say how many GPUs of this size would hold it."""
    host = device == "host"
    if have is None:
        have = host_available() if host else available()
    free, total = have
    if nbytes <= free:
        return
    where = (f"memory, and this machine has {_fmt(free)} available of {_fmt(total)}" if host else
             f"GPU memory, and this GPU has {_fmt(free)} free of {_fmt(total)}")
    remedies = HOST_ADVICE if host else GPU_ADVICE
    if per_gpu is not None and not host:
        remedies = f"{_gpus_hint(per_gpu, total)}, or run it on the CPU (backend='numpy')"
    if advice:  # the caller's remedy first; on the host the other one is more memory
        rest = "use a machine with more memory" if host and "dask" in advice.lower() else \
            f"{remedies[0].lower()}{remedies[1:]}"
        remedies = f"{advice[0].upper()}{advice[1:]}; or {rest}"
    raise GraphTooLargeError(f"{what} needs about {_fmt(nbytes)} of {where}. {remedies}")


def require_host(nbytes, what, *, have=None, advice=None):
    """:func:`require` for host memory."""
    require(nbytes, what, have=have, device="host", advice=advice)


def _gpus_hint(per_gpu, total):
    k = gpus_needed(per_gpu, total)
    if k is None:
        return "Partitioned, it does not fit on 1,024 GPUs of this size either"
    gpus = "one GPU" if k == 1 else f"{k} GPUs"
    return (f"Built partitioned, it needs {gpus} of this size (about {_fmt(per_gpu(k))} each): "
            f"dgraph.generate_partitioned(kind, {k}, backend='cupy', ...) on a cluster of {gpus} "
            f"(dgraph.cluster.connect('cuda'))")


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


def build_bytes(num_edges, directed, weighted, num_vertices=0, *, renumber=False, device="gpu"):
    """Peak bytes of building a graph of ``num_edges`` input edges and ``num_vertices`` vertices
    (an estimate): on the GPU per generated edge (the edges included), on the host net of the
    input arrays (``from_edges`` with them already made)."""
    directed = bool(directed)
    if device == "host":
        per = HOST_BUILD_BYTES_PER_EDGE[directed] + (HOST_BUILD_WEIGHT_BYTES_PER_EDGE[directed] if weighted else 0)
    else:
        per = BUILD_BYTES_PER_EDGE[directed] + (BUILD_WEIGHT_BYTES_PER_EDGE if weighted else 0)
    if renumber:
        per += RENUMBER_BYTES_PER_EDGE
    return int(num_edges) * per + VERTEX_BYTES * (int(num_vertices) + 1 if num_vertices else 0)


def count(k, noun, plural=None) -> str:
    """``1 edge``, ``2,000 edges``: a count and its noun for messages."""
    return f"{k:,} {noun if k == 1 else plural or noun + 's'}"


def fmt_bytes(b) -> str:
    """``b`` bytes in readable units (for messages)."""
    return _fmt(b)


__all__ = ["available", "host_available", "require", "require_host", "build_bytes", "csc_build_bytes",
           "fmt_bytes", "gpus_needed", "partitioned_build_bytes"]
