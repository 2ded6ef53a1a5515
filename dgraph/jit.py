"""The numba helpers every CPU kernel module uses: lazy compilation that counts as start-up time.

``jit`` compiles a kernel on its first call (importing dgraph compiles nothing, and a call loads
only the kernels it runs), through :func:`dgraph.startup.numba_kernel`, so the compilation or the
on-disk cache load is start-up time (``Result.phases["startup_s"]``), not the caller's.  ``pjit``
is the same with ``prange`` loops over the CPU's threads; ``inline`` marks a small function the
compiled loops inline.  ``row_block`` and ``num_threads`` split rows between those threads.
"""

from __future__ import annotations

import numba
import numpy as np

from .startup import numba_kernel


def jit(fn, parallel=False):
    """Compile with numba on first call (importing dgraph compiles nothing, and a call loads only the
    kernels it runs); ``parallel=True`` lets ``prange`` loops run over the CPU's threads.  The
    compilation or cache load is start-up time (:mod:`dgraph.startup`), not the caller's."""
    compiled = None

    def call(*args):
        nonlocal compiled
        if compiled is None:
            compiled = numba_kernel(fn, nogil=True, parallel=parallel)
        return compiled(*args)

    call.__name__ = fn.__name__
    call.__doc__ = fn.__doc__
    call.py_func = fn
    return call


def pjit(fn):
    """:func:`jit` with ``parallel=True``."""
    return jit(fn, parallel=True)


#: a small kernel the compiled loops call (numba compiles it into each caller; callable from Python too)
inline = numba.njit(inline="always", cache=True)


@inline
def row_block(indptr, b, B):
    """Rows ``[r0, r1)`` of block ``b`` of ``B``: contiguous blocks with about ``1/B`` of the edges each
    (``indptr[0]`` on), covering every row; how the threaded row kernels split their rows (a block is
    one thread's, so each row is still computed by one thread in its own order: the serial bits)."""
    n = indptr.shape[0] - 1
    if n <= 0:
        return 0, 0
    lo = indptr[0]
    arcs = indptr[n] - lo
    r0 = 0 if b == 0 else np.searchsorted(indptr, lo + arcs * b // B)
    r1 = n if b == B - 1 else np.searchsorted(indptr, lo + arcs * (b + 1) // B)
    return r0, r1


def num_threads():
    """The number of threads numba's ``prange`` loops run on."""
    return int(numba.get_num_threads())


def _prefetch_intrinsic():
    """``prefetch(array, i)`` for compiled loops: asks the CPU to bring ``array[i]``'s cache line
    closer (LLVM's ``llvm.prefetch``, read, high locality) and goes on without waiting; an index
    past the end is harmless (a prefetch never faults).  For a traversal whose next accesses are
    known a few vertices ahead (BFS's push: the frontier's rows and their targets' words), so
    their memory latencies overlap instead of coming one after the other."""
    import llvmlite  # noqa: PLC0415
    from llvmlite import ir  # noqa: PLC0415
    from numba import types  # noqa: PLC0415
    from numba.core import cgutils  # noqa: PLC0415
    from numba.extending import intrinsic  # noqa: PLC0415

    # the intrinsic's name carries its pointer type: i8* before LLVM's opaque pointers, ptr after
    typed = getattr(llvmlite, "ir_layer_typed_pointers_enabled", True)
    name = "llvm.prefetch.p0i8" if typed else "llvm.prefetch.p0"

    @intrinsic
    def prefetch(typingctx, arr, idx):
        if not isinstance(arr, types.Array) or not isinstance(idx, types.Integer):
            return None
        sig = types.void(arr, idx)

        def codegen(context, builder, signature, args):
            aryty = signature.args[0]
            ary = context.make_array(aryty)(context, builder, args[0])
            ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [args[1]], wraparound=False)
            i8p = ir.IntType(8).as_pointer()
            i32 = ir.IntType(32)
            fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32]),
                                                name)
            # read (0), keep in every cache level (3), a data cache (1)
            builder.call(fn, [builder.bitcast(ptr, i8p), ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)])
            return context.get_dummy_value()

        return sig, codegen

    return prefetch


#: ``prefetch(array, i)`` inside a compiled loop (see :func:`_prefetch_intrinsic`)
prefetch = _prefetch_intrinsic()


__all__ = ["jit", "pjit", "inline", "row_block", "num_threads", "prefetch"]
