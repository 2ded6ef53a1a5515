"""GPU (CuPy backend) kernels for weakly connected components: a concurrent union-find on the CSR.

The CUDA side of WCC's 'gpu-union-find' (``kernels="fused"`` on CuPy; see
:mod:`dgraph.algorithms.wcc.program` for the algorithm and why its labels
are the component minima), wrapping ``wcc.cu`` beside this module.  Three
kernels, none of which materializes an edge list (the vectorized hooking
held every arc of a shard twice, which a 4.2G-arc shard of rmat28 could not
afford):

- :func:`hook_csr`: every arc of a shard's CSR, one thread an arc (a block
  of consecutive arcs finds its rows with two searches of ``indptr``), unites
  the trees of its endpoints in a parent array: roots found with path
  halving, the larger root hooked under the smaller with a compare-and-swap
  (a failed swap means another thread hooked that root first: find the
  roots again and retry).  An undirected edge, stored both ways, is united
  once.  Every write lowers an entry and keeps it inside
  its vertex's component, so ``parent[x] <= x`` always holds and a root is
  the minimum of its tree, whatever order the threads run in.
- :func:`unite_pairs`: the same union for given pairs ``(x, y)``: another
  shard's forest, whose trees join vertices its edges connect.
- :func:`flatten`: every vertex's root, into a second array, and the number
  of roots (trees).
- :func:`changed_pairs`: a flattened forest's (vertex, root) pairs of the
  vertices that are not roots, in one pass: what a shard sends the others
  (the compare, nonzero and gathers it replaces were five launches and three
  temporaries of ``n`` entries).

Path-halving writes race with other threads' writes of the same entry; both
are ancestors of the vertex in one tree, so whichever lands keeps the
forest valid (the usual argument for lock-free union-find: Jayanti and
Tarjan; ECL-CC uses the same rule on GPUs).
"""

from __future__ import annotations

from ...cuda import BLOCK, dtype_suffix, function, source

#: the CUDA source (wcc.cu, a package resource, with common.cuh pasted in)
_SOURCE = source(__package__, "wcc.cu")

#: blocks of the grid-stride kernels, a multiprocessor (enough to fill it; rounds cover the rest)
BLOCKS_PER_SM = 8


def _kernel(name, dtype):
    return function(_SOURCE, f"{name}_{dtype_suffix(dtype)}")


def _grid(count):
    from ...cuda import multiprocessors  # noqa: PLC0415

    return (max(1, min(-(-int(count) // BLOCK), multiprocessors() * BLOCKS_PER_SM)),)


def hook_csr(indptr, indices, row_base, rows, directed, parent):
    """Unite the endpoints of every arc of a CSR (local row ``r`` is vertex ``rows[r]``, or
    ``row_base + r`` when ``rows`` is empty) in ``parent``, in place; -> the arcs united (self
    loops and, undirected, the second copy of each edge are skipped)."""
    import cupy as cp  # noqa: PLC0415

    nrows = len(indptr) - 1
    if nrows <= 0 or len(indices) == 0:
        return 0
    counters = cp.zeros(2, dtype=cp.uint64)
    _kernel("hook_csr", indices.dtype)(
        _grid(len(indices)), (BLOCK,),
        (indptr, indices, cp.int64(nrows), cp.int64(row_base), rows, cp.int32(len(rows) > 0),
         cp.int32(bool(directed)), parent, counters))
    return int(counters[0].get())


def unite_pairs(parent, vals, ids=None):
    """Unite ``ids[i]`` (``i`` when None) with ``vals[i]`` in ``parent``, in place."""
    import cupy as cp  # noqa: PLC0415

    k = len(vals)
    if k == 0:
        return
    vals = vals.astype(parent.dtype, copy=False)
    ids = ids.astype(parent.dtype, copy=False) if ids is not None else cp.uint64(0)  # a null pointer
    _kernel("unite_pairs", parent.dtype)(_grid(k), (BLOCK,), (parent, ids, vals, cp.int64(k)))


def flatten(parent, out):
    """``out[x]`` = the root of ``x`` in ``parent``; -> the number of roots.  ``out`` may be ``parent``
    (each write is an ancestor, so threads that read it still reach the root)."""
    import cupy as cp  # noqa: PLC0415

    n = len(parent)
    if n == 0:
        return 0
    counters = cp.zeros(1, dtype=cp.uint64)
    _kernel("flatten", parent.dtype)(_grid(n), (BLOCK,), (parent, out, cp.int64(n), counters))
    return int(counters[0].get())


def changed_pairs(out, count):
    """``(ids, vals)``: every ``x`` with ``out[x] != x`` and ``out[x]``, for a flattened forest ``out`` with
    ``count`` such vertices (``len(out)`` minus :func:`flatten`'s roots); in no particular order."""
    import cupy as cp  # noqa: PLC0415

    ids, vals = cp.empty(count, dtype=out.dtype), cp.empty(count, dtype=out.dtype)
    if count:
        cursor = cp.zeros(1, dtype=cp.uint64)
        _kernel("changed_pairs", out.dtype)(_grid(len(out)), (BLOCK,), (out, cp.int64(len(out)), ids, vals, cursor))
    return ids, vals


__all__ = ["hook_csr", "unite_pairs", "flatten", "changed_pairs"]
