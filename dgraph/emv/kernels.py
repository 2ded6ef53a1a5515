"""The combining kernels of the message buffer, for numpy (numba) and CuPy (CUDA), one op code each.

Op codes: 0 sum, 1 min, 2 max.  Every kernel reduces a segment's messages
in buffer order (the order of the segment's in-edges, sources ascending), so
a vertex's combined value does not depend on how the graph is partitioned.

- :func:`segment_reduce`: per segment of a materialized buffer (values, valid flags).
- :func:`gather_reduce`: the buffer is never written: a message that depends
  only on its head is computed once per vertex (``x``) and each segment
  reduces ``x[head]`` over its edges (heads masked by ``hmask``: the send's
  condition, the active set).
- :func:`push_reduce`: queue mode, few active heads: walk the active heads'
  edges (head-major index into the buffer, or the graph's CSR on one
  partition) and combine ``x[head]`` into the tails, listing the tails reached.

Custom ufunc combiners use numpy's ``reduceat`` / ``at`` (CuPy: on the host).

On the CPU the two segmented combines run over numba's threads (``T`` = their count): each row (a
tail's segment) is combined by one thread, in buffer order, so the results are the serial loop's bits
whatever ``T`` (rmat20 EMV PageRank's gather, 2 cores: ~124 -> ~48 ms an iteration).  The push and
the scans stay serial: a push scatters into tails any head may reach.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from ..jit import inline as _inline
from ..jit import jit as _jit
from ..jit import num_threads, row_block
from ..jit import pjit as _pjit

OPS = {"sum": 0, "min": 1, "max": 2}


# -- numba (CPU) ------------------------------------------------------------------------------

@_inline
def _comb(acc, x, op):
    """acc combined with x under op (0 sum, 1 min, 2 max): the CUDA source's comb()."""
    if op == 0:
        return acc + x
    if op == 1:
        return x if x < acc else acc
    return x if x > acc else acc


@_jit
def _head_major_cpu(cindices, hptr, rid):
    cursor = hptr[:-1].copy()
    for j in range(len(cindices)):
        h = cindices[j]
        rid[cursor[h]] = j
        cursor[h] += 1


#: the threaded combines cut their rows into this many blocks per thread (about equal edges each,
#: :func:`~dgraph.jit.row_block`), thread w taking blocks w, w + T, ...: rows the tail
#: mask skips cost nothing, and where they lie together (a BFS's reached region) one block a thread
#: left one thread idle (rmat20 with the first half of the tails masked: 48 -> 17 ms in one run, 83 vs
#: 81 ms in a second one under load)
BLOCKS_PER_THREAD = 8


@_pjit
def _seg_reduce_cpu(indptr, vals, valid, use_valid, op, identity, out, counts, T):
    B = T * BLOCKS_PER_THREAD
    for w in prange(T):
        for b in range(w, B, T):
            r0, r1 = row_block(indptr, b, B)
            for t in range(r0, r1):
                acc = identity
                c = 0
                for j in range(indptr[t], indptr[t + 1]):
                    if use_valid and not valid[j]:
                        continue
                    acc = _comb(acc, vals[j], op)
                    c += 1
                out[t] = acc
                counts[t] = c


@_pjit
def _gather_reduce_cpu(indptr, indices, x, hmask, use_mask, tmask, use_tmask, op, identity, out, counts, early,
                       bound, T):
    B = T * BLOCKS_PER_THREAD
    for w in prange(T):
        for b in range(w, B, T):
            r0, r1 = row_block(indptr, b, B)
            for t in range(r0, r1):
                acc = identity
                c = 0
                if use_tmask and not tmask[t]:
                    out[t] = acc
                    counts[t] = 0
                    continue
                for j in range(indptr[t], indptr[t + 1]):
                    h = indices[j]
                    if use_mask and not hmask[h]:
                        continue
                    acc = _comb(acc, x[h], op)
                    c += 1
                    if early and acc == bound:
                        break  # no message can beat the best any head sends (the count stays > 0)
                out[t] = acc
                counts[t] = c


@_jit
def _active_heads_cpu(mask, hptr, max_heads, max_work, heads):
    k = 0
    for h in range(len(mask)):
        if mask[h]:
            if k >= max_heads:
                return -1
            heads[k] = h
            k += 1
    # the edge count in a second loop: its loads are independent (one loop doing both ran 2.3 ms
    # instead of 1.0 over 40K heads of a million, cache cold)
    work = 0
    for i in range(k):
        work += hptr[heads[i] + 1] - hptr[heads[i]]
    return k if work < max_work else -1


@_jit
def _best_sent_cpu(x, hmask, use_mask, op, identity):
    acc = identity
    for h in range(len(x)):
        if use_mask and not hmask[h]:
            continue
        acc = _comb(acc, x[h], op)
    return acc


@_jit
def _push_reduce_cpu(heads, hptr, slot, use_slot, tail, ebound, x, op, ident, out, seen, touched):
    k = 0
    for i in range(len(heads)):
        h = heads[i]
        v = x[i]
        for j in range(hptr[h], hptr[h + 1]):
            if use_slot:
                r = slot[j]
                if r >= ebound:
                    break  # head-major lists are in buffer order: the rest lie outside the valid region
                t = tail[r]
            else:
                t = tail[j]
            if not seen[t]:
                seen[t] = True
                touched[k] = t
                k += 1
                out[t] = _comb(ident, v, op)  # from the identity, as every combine: a NaN min / max message is dropped
            else:
                out[t] = _comb(out[t], v, op)
    return k


# -- CUDA (CuPy) ------------------------------------------------------------------------------

_CTYPES = {"float64": "double", "float32": "float", "int64": "long long", "int32": "int", "int16": "short",
           "int8": "signed char", "uint8": "unsigned char", "bool": "bool", "uint32": "unsigned int",
           "uint64": "unsigned long long"}

#: comb (OP: 0 sum, 1 min, 2 max) over T, and its atomic twin for min/max over int64 and float64
#: (the compiled sends' push, :mod:`.device_send`): shared by these kernels and those sends
COMB_SRC = r"""
__device__ __forceinline__ void comb(T& acc, T v) {
    if (OP == 0) acc += v; else if (OP == 1) { if (v < acc) acc = v; } else { if (v > acc) acc = v; }
}
template <typename U> __device__ __forceinline__ void atomic_comb(U*, U) {}  // other T: never launched
__device__ __forceinline__ void atomic_comb(long long* a, long long v) {
    if (OP == 1) atomicMin(a, v); else atomicMax(a, v);
}
__device__ __forceinline__ void atomic_comb(double* a, double v) {
    unsigned long long* p = (unsigned long long*)a;
    unsigned long long old = *p;
    while (OP == 1 ? v < __longlong_as_double(old) : v > __longlong_as_double(old)) {
        unsigned long long prev = atomicCAS(p, old, (unsigned long long)__double_as_longlong(v));
        if (prev == old) break;
        old = prev;
    }
}
"""

_GPU_SRC = COMB_SRC + r"""
extern "C" __global__ void seg_reduce(const long long* indptr, const T* vals, const bool* valid, int use_valid,
                                      T identity, T* out, int* counts, long long n) {
    long long t = blockDim.x * (long long)blockIdx.x + threadIdx.x;
    if (t >= n) return;
    T acc = identity; int c = 0;
    for (long long j = indptr[t]; j < indptr[t + 1]; ++j) {
        if (use_valid && !valid[j]) continue;
        comb(acc, vals[j]); ++c;
    }
    out[t] = acc; counts[t] = c;
}
// One warp per segment (lanes stride over its edges, then a fixed shuffle tree: the same bits on
// every run): a hub's thousands of edges are read by 32 lanes, not by one thread while the rest of
// the GPU waits.  For 4- and 8-byte T (what __shfl_down_sync moves).
extern "C" __global__ void gather_reduce_warp(const long long* indptr, const IDX* indices, const T* x,
                                              const bool* hmask, int use_mask, const bool* tmask, int use_tmask,
                                              T identity, T* out, int* counts, long long n, int early,
                                              const T* bound_at) {
    long long t = (blockDim.x * (long long)blockIdx.x + threadIdx.x) >> 5;
    int lane = threadIdx.x & 31;
    if (t >= n) return;  // warp-uniform
    T acc = identity; int c = 0;
    T bound = early ? *bound_at : identity;
    if (!(use_tmask && !tmask[t])) {
        for (long long j = indptr[t] + lane; j < indptr[t + 1]; j += 32) {
            IDX h = indices[j];
            if (use_mask && !hmask[h]) continue;
            comb(acc, x[h]); ++c;
            if (early && acc == bound) break;
        }
    }
    for (int off = 16; off > 0; off >>= 1) {
        T other = __shfl_down_sync(0xffffffffu, acc, off);
        comb(acc, other);
        c += __shfl_down_sync(0xffffffffu, c, off);
    }
    if (lane == 0) { out[t] = acc; counts[t] = c; }
}
extern "C" __global__ void gather_reduce(const long long* indptr, const IDX* indices, const T* x,
                                         const bool* hmask, int use_mask, const bool* tmask, int use_tmask,
                                         T identity, T* out, int* counts, long long n, int early,
                                         const T* bound_at) {
    long long t = blockDim.x * (long long)blockIdx.x + threadIdx.x;
    if (t >= n) return;
    T acc = identity; int c = 0;
    T bound = early ? *bound_at : identity;
    if (use_tmask && !tmask[t]) { out[t] = acc; counts[t] = 0; return; }
    for (long long j = indptr[t]; j < indptr[t + 1]; ++j) {
        IDX h = indices[j];
        if (use_mask && !hmask[h]) continue;
        comb(acc, x[h]); ++c;
        if (early && acc == bound) break;
    }
    out[t] = acc; counts[t] = c;
}
"""

_GPU_CACHE = {}


def _gpu_kernel(name, dtype, op, idx_dtype="int64"):
    from ..cuda import compiled  # noqa: PLC0415

    key = (name, str(dtype), op, str(idx_dtype))
    if key not in _GPU_CACHE:
        src = (f"#define OP {op}\ntypedef {_CTYPES[str(np.dtype(dtype))]} T;\n"
               f"typedef {_CTYPES[str(np.dtype(idx_dtype))]} IDX;\n" + _GPU_SRC)
        _GPU_CACHE[key] = compiled(src).get_function(name)
    return _GPU_CACHE[key]


def _launch(kernel, n, args):
    if n:
        threads = 256
        kernel(((n + threads - 1) // threads,), (threads,), args)


# -- entry points ------------------------------------------------------------------------------

def _custom_reduce(xp, ufunc, identity, indptr, vals, valid):
    """A custom ufunc combiner: numpy reduceat over the non-empty segments (on the host for CuPy)."""
    from ..backend import to_backend, to_numpy  # noqa: PLC0415

    indptr, vals = to_numpy(indptr), to_numpy(vals)
    n = len(indptr) - 1
    ok = np.ones(len(vals), bool) if valid is None else to_numpy(valid)
    v = np.where(ok, vals, vals.dtype.type(identity))
    out = np.full(n, identity, dtype=vals.dtype)
    counts = np.zeros(n, dtype=np.int32)
    nz = np.flatnonzero(np.diff(indptr) > 0)
    if len(nz):  # consecutive non-empty starts bound exactly one segment each
        out[nz] = ufunc.reduceat(v, indptr[nz])
        counts[nz] = np.add.reduceat(ok.astype(np.int32), indptr[nz])
    return to_backend(out, xp), to_backend(counts, xp)


def segment_reduce(xp, combiner, indptr, vals, valid=None):
    """Per segment of ``vals`` (buffer order): (combined, message count)."""
    op, identity = combiner.op, combiner.identity
    n = len(indptr) - 1
    if op is None:
        return _custom_reduce(xp, combiner.ufunc, identity, indptr, vals, valid)
    out = xp.empty(n, dtype=vals.dtype)
    counts = xp.empty(n, dtype=np.int32)
    ident = vals.dtype.type(identity)
    use = valid is not None
    if xp is np:
        _seg_reduce_cpu(indptr, vals, valid if use else np.zeros(1, bool), use, op, ident, out, counts, num_threads())
    else:
        vals = xp.ascontiguousarray(vals)
        k = _gpu_kernel("seg_reduce", vals.dtype, op)
        _launch(k, n, (indptr, vals, valid if use else xp.zeros(1, bool), np.int32(use), ident, out, counts,
                       np.int64(n)))
    return out, counts


def active_heads(xp, mask, hptr, max_heads, max_work, scratch=None):
    """The heads in ``mask`` (ascending) when at most ``max_heads`` with fewer than ``max_work``
    edges in all (``hptr``: a head's edges), else None: the test that picks a push from few heads
    (the scan stops at the first head over the limit).  ``scratch``: an int64 array of
    ``len(mask)`` to collect them in (CPU)."""
    if xp is np:
        heads = np.empty(len(mask), np.int64) if scratch is None else scratch
        k = _active_heads_cpu(mask, hptr, max_heads, max_work, heads)
        return None if k < 0 else heads[:k].copy()
    if int(xp.count_nonzero(mask)) > max_heads:
        return None
    heads = xp.flatnonzero(mask)
    return heads if int((hptr[heads + 1] - hptr[heads]).sum()) < max_work else None


def best_sent(xp, combiner, x, hmask=None):
    """min / max combiner: the best of ``x`` over the heads in ``hmask`` (all: None), the identity if
    none; the early-exit bound of :func:`gather_reduce`.  One pass (numpy's ``min(where=)`` took
    3 ms over a million heads, this 0.5 ms).  CuPy: a one-value device array (nothing is read back;
    the gather kernel reads it)."""
    op = combiner.op
    if xp is np:
        use = hmask is not None
        return x.dtype.type(_best_sent_cpu(x, hmask if use else np.zeros(1, bool), use, op,
                                           x.dtype.type(combiner.identity))).item()
    if not len(x):
        return xp.full(1, combiner.identity, dtype=x.dtype)
    if hmask is not None:
        x = xp.where(hmask, x, x.dtype.type(combiner.identity))
    return (x.min() if op == 1 else x.max()).reshape(1).astype(x.dtype, copy=False)


def gather_reduce(xp, combiner, indptr, indices, x, hmask=None, tmask=None, bound=None, buffers=None):
    """Per segment, the combination of ``x[head]`` over its edges (heads where ``hmask``, tails where
    ``tmask``).  ``bound`` (min/max): the best value any head sends; a segment that reaches it stops
    scanning (Beamer's bottom-up early exit, for any min or max combiner).  ``buffers``: (combined,
    counts) arrays of one value per segment to write into (the CPU path reuses them send to send)."""
    op, identity = combiner.op, combiner.identity
    n = len(indptr) - 1
    use, tuse = hmask is not None, tmask is not None
    if op is None:
        valid = hmask[indices] if use else xp.ones(len(indices), dtype=bool)
        if tuse:
            from ..backend.primitives import row_ids  # noqa: PLC0415

            valid = valid & tmask[row_ids(indptr)]
        return _custom_reduce(xp, combiner.ufunc, identity, indptr, x[indices], valid)
    if buffers is not None and buffers[0].dtype == x.dtype:
        out, counts = buffers
    else:
        out, counts = xp.empty(n, dtype=x.dtype), xp.empty(n, dtype=np.int32)
    ident = x.dtype.type(identity)
    none = np.zeros(1, bool) if xp is np else xp.zeros(1, bool)
    if xp is np:
        _gather_reduce_cpu(indptr, indices, x, hmask if use else none, use, tmask if tuse else none, tuse, op,
                           ident, out, counts, bound is not None, x.dtype.type(ident if bound is None else bound),
                           num_threads())
    else:
        x, indices = xp.ascontiguousarray(x), xp.ascontiguousarray(indices)
        # a warp per segment unless the scan may stop early (BFS-Q's bound: a thread stops at its
        # first hit; H100 rmat20 EMV PageRank 165.9 -> 32.0 ms with the warp, BFS-Q 8.9 -> 14.6 ms)
        warp = x.dtype.itemsize in (4, 8) and bound is None
        k = _gpu_kernel("gather_reduce_warp" if warp else "gather_reduce", x.dtype, op, indices.dtype)
        at = x[:1] if bound is None else bound if hasattr(bound, "data") else xp.full(1, bound, dtype=x.dtype)
        _launch(k, n * 32 if warp else n, (indptr, indices, x, hmask if use else none, np.int32(use),
                                           tmask if tuse else none, np.int32(tuse), ident, out, counts, np.int64(n),
                                           np.int32(bound is not None), at.astype(x.dtype, copy=False)))
    return out, counts


def head_major(xp, cindices, num_heads):
    """(hptr, rid): every head's buffer slots, in buffer order (a counting sort: no comparison sort)."""
    counts = xp.bincount(cindices, minlength=num_heads) if len(cindices) else xp.zeros(num_heads, np.int64)
    hptr = xp.zeros(num_heads + 1, dtype=np.int64)
    xp.cumsum(counts, out=hptr[1:])
    if xp is np:
        rid = np.empty(len(cindices), dtype=np.int64)
        _head_major_cpu(cindices, hptr, rid)
        return hptr, rid
    # CuPy: a stable sort by head (buffer order within a head)
    rid = xp.argsort(cindices.astype(np.int64) * max(len(cindices), 1) + xp.arange(len(cindices)))
    return hptr, rid.astype(np.int64)


def push_reduce(xp, combiner, heads, index, x, ebound, scratch):
    """Queue mode: combine ``x[i]`` (the message of ``heads[i]``) along the buffered edges (slots <
    ebound) of the active heads into their tails; ``index``: (hptr, slot, tail) of
    :meth:`~.shard.Layout.push_index`.  Returns (tails reached, each once, in no set order; their
    combined values).  Each tail combines its messages in the order of ``heads``, so a sum does not
    depend on how the tails are listed."""
    hptr, slot, tail = index
    if xp is np and combiner.op is not None:
        out, seen, touched = scratch
        use = slot is not None
        k = _push_reduce_cpu(heads, hptr, slot if use else hptr, use, tail, ebound, x, combiner.op,
                             x.dtype.type(combiner.identity), out, seen,
                             touched)
        tails = touched[:k].copy()  # no sort: nothing downstream depends on the order (64K: 2.4 ms)
        seen[tails] = False
        return tails, out[tails]
    from ..backend.primitives import expand  # noqa: PLC0415

    seg, pos = expand(hptr, heads)
    if slot is None:
        return scatter_combine(xp, combiner, tail[pos], x[seg])
    r = slot[pos]
    keep = r < ebound
    return scatter_combine(xp, combiner, tail[r[keep]], x[seg[keep]])


def scatter_combine(xp, combiner, t, vals):
    """The messages ``vals`` to tails ``t`` (any order) combined per tail: (sorted tails, values)."""
    from ..backend.primitives import scatter_max, scatter_min  # noqa: PLC0415

    tails = xp.unique(t)
    at = xp.searchsorted(tails, t)
    out = xp.full(len(tails), combiner.identity, dtype=vals.dtype)
    if combiner.op in (1, 2) and vals.dtype.kind == "f":
        # every other combine compares from the identity, so a NaN min / max message is dropped
        # (the tail still received it); the order-preserving keys of scatter_min/max would rank it
        vals = xp.where(xp.isnan(vals), vals.dtype.type(combiner.identity), vals)
    if combiner.op == 0:
        xp.add.at(out, at, vals)
    elif combiner.op == 1:
        scatter_min(out, at, vals)
    elif combiner.op == 2:
        scatter_max(out, at, vals)
    else:
        from ..backend import to_backend, to_numpy  # noqa: PLC0415

        o = to_numpy(out)
        combiner.ufunc.at(o, to_numpy(at), to_numpy(vals))
        out = to_backend(o, xp)
    return tails, out
