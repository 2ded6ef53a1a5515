"""A send step compiled into the combining kernels of the device path (one whole CuPy shard).

The array path evaluates a send's message and conditions as CuPy expressions (a gather of the heads'
fields, one kernel an operation, a dense tail mask) and then combines.  On rmat scale 20 BFS-Q those
calls, 15-25 us of launch each, cost more than the combine itself.  Here the traced expressions
(:mod:`.fuse`'s CUDA dialect, compiled without fused multiply-adds: the array path's bits) become
the body of the combining kernels:

- ``push``: queue mode, few active heads.  One thread an out-edge of the queued heads; the edge's
  head is found by a sorted search of their scanned degrees.  Each message goes into its tail with
  an atomic min or max.  The kernel also clears the heads' active marks and starts the next queue.
- ``gather``: every tail reads its in-edges in buffer order and combines the messages of the heads
  that pass the conditions.  Where the message depends on the head alone, one thread takes a tail
  and stops at the best message any head sends (Beamer's bottom-up early exit; the bound comes from
  ``best``).  Otherwise a warp takes a tail.
- ``best``: that bound, a min or max over the active heads.

Only min and max combiners: they are exact in any order.  A sum keeps its deterministic row sum.
Leaves: the head's and the tail's fields, ids and out-degrees, the edge's weight, and the graph's
sizes.  The kernels write the device's dense buffers: ``out`` (combined message) and ``cnt``
(messages received).  They count the owned tails that received into ``ctl[3]``, a running count.
"""

from __future__ import annotations

import numpy as np

from .fuse import _C, ScalarChecks, Unfusable, _Gen, _need, kind_of, vertex_leaf
from .kernels import _CTYPES, COMB_SRC
from .trace import factors, roles

_PUSH_TYPES = ("i", "f")  # the messages atomic_comb takes (long long, double)

_HEAD = r"""
#define OP {op}
typedef {mtype} M;
typedef M T;
typedef {ctype} CIDX;
typedef {rtype} RIDX;
typedef {wtype} WT;
typedef {ltype} LT;
typedef {dtype} DT;
#define ARGS long long NV, long long NE{fields}
#define ARG_NAMES NV, NE{names}
"""

_SRC = r"""
__device__ __forceinline__ M shfl_down(M v, int off) {{
    if constexpr (sizeof(M) == 1) return (M)__shfl_down_sync(0xffffffffu, (int)v, off);
    else return __shfl_down_sync(0xffffffffu, v, off);
}}

// Queue mode: one thread an out-edge of the queued heads (CSR), one thread a queued head for its
// mark.  ctl[0..1] (the next queue) start again at zero here; ctl[3] += owned tails reached.
extern "C" __global__ void push_send(const long long* heads, const long long* scanned, long long nh,
                                     long long total, const long long* indptr, const RIDX* indices,
                                     const WT* W, const LT* L, const DT* deg, bool* marks, M* out, int* cnt,
                                     unsigned long long* ctl, long long own, ARGS) {{
    long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (e == 0) {{ ctl[0] = 0; ctl[1] = 0; }}
    if (e < nh) marks[heads[e]] = false;
    bool first = false;  // this thread's message is its tail's first
    if (e < total) {{
        long long lo = frontier_slot(scanned, (int)nh, e);  // the first head whose inclusive scan exceeds e
        long long h = heads[lo];
        long long j = indptr[h] + e - (lo ? scanned[lo - 1] : 0);
        long long t = indices[j];
{tail}
        if ({tail_ok}) {{
{edge}
            if ({edge_ok}) {{
                atomic_comb(out + t, (M)({value}));
                first = atomicExch(cnt + t, 1) == 0 && t < own;
            }}
        }}
    }}
    block_add(first ? 1 : 0, ctl + 3);
}}

// Tail t's messages over its in-edges (buffer order) first, first + step, ... combined into acc
// (counted in c), stopping at ``bound`` where ``early``: a thread (0, 1) or a warp's lane (lane, 32).
__device__ __forceinline__ void gather_tail(long long t, int first, int step, bool early, M bound, M& acc, int& c,
                                            const long long* cindptr, const CIDX* cindices, const WT* W,
                                            const LT* L, const DT* deg, const bool* hmask, int use_hmask, ARGS) {{
{tail}
    if ({tail_ok}) {{
        for (long long j = cindptr[t] + first; j < cindptr[t + 1]; j += step) {{
            long long h = cindices[j];
            if (use_hmask && !hmask[h]) continue;
{edge}
            if (!({edge_ok})) continue;
            comb(acc, (M)({value}));
            ++c;
            if (early && acc == bound) break;
        }}
    }}
}}

#define GATHER_ARGS const long long* cindptr, const CIDX* cindices, const WT* W, const LT* L, const DT* deg, \
    const bool* hmask, int use_hmask, const M* bound_at, int early, M ident, M* out, int* cnt, \
    unsigned long long* ctl, long long own, long long nt, ARGS

// One thread a tail, stopping at ``*bound_at`` where ``early``.
extern "C" __global__ void gather_send(GATHER_ARGS) {{
    long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t == 0) {{ ctl[0] = 0; ctl[1] = 0; }}
    bool got = false;
    if (t < nt) {{
        M acc = ident;
        int c = 0;
        gather_tail(t, 0, 1, early, early ? *bound_at : ident, acc, c, cindptr, cindices, W, L, deg, hmask,
                    use_hmask, ARG_NAMES);
        out[t] = acc;
        cnt[t] = c;
        got = c > 0 && t < own;
    }}
    block_add(got ? 1 : 0, ctl + 3);
}}

// A warp a tail: lanes stride over its in-edges, then a shuffle tree (min/max: exact in any order).
extern "C" __global__ void gather_send_warp(GATHER_ARGS) {{
    long long t = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    int lane = threadIdx.x & 31;
    if (t == 0 && lane == 0) {{ ctl[0] = 0; ctl[1] = 0; }}
    M acc = ident;
    int c = 0;
    if (t < nt)
        gather_tail(t, lane, 32, false, ident, acc, c, cindptr, cindices, W, L, deg, hmask, use_hmask, ARG_NAMES);
    for (int off = 16; off > 0; off >>= 1) {{  // t is warp-uniform: every lane gets here
        comb(acc, shfl_down(acc, off));
        c += __shfl_down_sync(0xffffffffu, c, off);
    }}
    bool got = lane == 0 && t < nt && c > 0 && t < own;
    if (lane == 0 && t < nt) {{
        out[t] = acc;
        cnt[t] = c;
    }}
    block_add(got ? 1 : 0, ctl + 3);
}}

// The best message any head in hmask that passes the head-only conditions sends, into *best (the
// identity beforehand): a grid-stride loop, a shuffle tree, one atomic a warp.
extern "C" __global__ void best_send(long long nh, const bool* hmask, int use_hmask, const LT* L,
                                     const DT* deg, M ident, M* best, ARGS) {{
    M acc = ident;
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long h = (long long)blockIdx.x * blockDim.x + threadIdx.x; h < nh; h += stride) {{
        if (use_hmask && !hmask[h]) continue;
{head}
        if (!({head_ok})) continue;
        comb(acc, (M)({head_value}));
    }}
    for (int off = 16; off > 0; off >>= 1) comb(acc, shfl_down(acc, off));
    if ((threadIdx.x & 31) == 0) atomic_comb(best, acc);
}}
"""


class _Block:
    """The C lines of a group of expressions over the leaves at C indices ``at`` (role -> index
    variable), with the fields they read appended to ``used``.  ``kinds``: (field kinds, id kind,
    degree kind, weight kind)."""

    def __init__(self, prefix, at, used, kinds):
        self.used, self.kinds, self.at = used, kinds, at
        self.gen = _Gen(self._leaf, _C, prefix)

    def _leaf(self, key):
        role = key[0]
        field_kinds, id_kind, degree_kind, weight_kind = self.kinds
        if role in ("head", "tail") and role in self.at:
            return vertex_leaf(key[1], self.at[role], field_kinds, id_kind, degree_kind, self.used)
        if role == "edge" and "edge" in self.at:
            if weight_kind is None:
                raise Unfusable("edge weight dtype")
            return "W[j]", weight_kind
        if role == "graph":
            return ("NV" if key[1] == "num_vertices" else "NE"), "i"
        raise Unfusable(str(key))

    def condition(self, factors):
        """The C source of the conjunction of ``factors`` (``true`` for none)."""
        out = []
        for f in factors:
            src, k = self.gen.emit(f)
            _need(k, "b")
            out.append(src)
        return " && ".join(out) or "true"

    def message(self, e, message_kind):
        """The C source of message ``e`` as the message type (the array path's astype)."""
        src, k = self.gen.emit(e)
        if k == message_kind:
            return src
        if message_kind == "b":
            return f"({src} != 0)"
        if k == "f":
            raise Unfusable("a float message into an integer one")  # C's conversion of NaN / inf differs
        return _C.cast(src, message_kind)

    def lines(self, indent):
        return "\n".join(" " * indent + line for line in self.gen.lines)


def compile_send(send, op, field_kinds, message_kind, id_kind, degree_kind, weight_kind):
    """The :class:`CudaSend` of a traced send (``send``: (message, condition) expressions), or None
    where it does not compile.  ``op``: 1 min, 2 max; the kinds as :func:`.fuse.kind_of` gives."""
    if op not in (1, 2) or message_kind is None:
        return None
    value, cond = send
    parts = [] if cond is None else factors(cond)
    tail_f = [f for f in parts if roles(f) <= {"tail", "graph"}]
    edge_f = [f for f in parts if not any(f is g for g in tail_f)]
    head_f = [f for f in edge_f if roles(f) <= {"head", "graph"}]
    kinds = (field_kinds, id_kind, degree_kind, weight_kind)
    used = []
    try:
        tail = _Block("_t", {"tail": "t"}, used, kinds)
        tail_ok = tail.condition(tail_f)
        edge = _Block("_e", {"head": "h", "tail": "t", "edge": "j"}, used, kinds)
        edge_ok = edge.condition(edge_f)
        msg = edge.message(value, message_kind)
        bound = None
        if roles(value) <= {"head", "graph"} and message_kind != "b":
            head = _Block("_h", {"head": "h"}, used, kinds)
            bound = (head, head.condition(head_f), head.message(value, message_kind))
    except Unfusable:
        return None
    blocks = [tail, edge] + ([bound[0]] if bound else [])
    reads_weight = any("edge" in roles(e) for e in [value, *parts])
    return CudaSend(op, message_kind, {f: field_kinds[f] for f in used}, used, tail, tail_ok, edge, edge_ok, msg,
                    bound, ScalarChecks([h for b in blocks for h in b.gen.hoisted]), reads_weight)


class CudaSend:
    """A compiled send: :meth:`push` (queue mode, from the queued heads) and :meth:`gather` (every
    tail), both into the device's dense buffers.  ``checks``: as :class:`.fuse.ScalarChecks`."""

    def __init__(self, op, message_kind, kinds, fields, tail, tail_ok, edge, edge_ok, msg, bound, checks,
                 reads_weight):
        self.op, self.message_kind, self.kinds, self.fields = op, message_kind, kinds, fields
        self.reads_weight = reads_weight  # else the kernels take a placeholder (any weight dtype)
        self.parts = (tail, tail_ok, edge, edge_ok, msg, bound)
        self.checks = checks
        self.early = bound is not None    # the gather may stop at the best message
        self.pushes = message_kind in _PUSH_TYPES
        self._fns = {}  # (dtypes, kernel name) -> function

    def source(self, cidx, ridx, wdtype, ldtype, ddtype):
        """The CUDA source for these index, weight, id and degree dtypes (numpy dtypes or names)."""
        from ..cuda import COMMON  # noqa: PLC0415

        tail, tail_ok, edge, edge_ok, msg, bound = self.parts
        ct = _C.CTYPE
        fields = "".join(f", const {ct[self.kinds[f]]}* F{j}" for j, f in enumerate(self.fields))
        names = "".join(f", F{j}" for j in range(len(self.fields)))
        head, head_ok, head_value = bound if bound else (None, "false", "ident")
        head_src = _HEAD.format(op=self.op, mtype=ct[self.message_kind], ctype=_CTYPES[str(np.dtype(cidx))],
                                rtype=_CTYPES[str(np.dtype(ridx))], wtype=_CTYPES[str(np.dtype(wdtype))],
                                ltype=_CTYPES[str(np.dtype(ldtype))], dtype=_CTYPES[str(np.dtype(ddtype))],
                                fields=fields, names=names)
        body = _SRC.format(tail=tail.lines(4), tail_ok=tail_ok, edge=edge.lines(12), edge_ok=edge_ok, value=msg,
                           head="" if head is None else head.lines(8), head_ok=head_ok, head_value=head_value)
        return COMMON + head_src + COMB_SRC + body

    def _kernel(self, name, lay):
        from ..cuda import compiled  # noqa: PLC0415

        w = lay.weights if self.reads_weight else None
        key = (str(lay.cindices.dtype), str(lay.csr[1].dtype), None if w is None else str(w.dtype),
               str(lay.L.dtype), str(lay.degree.dtype))
        fn = self._fns.get((key, name))
        if fn is None:
            src = self.source(key[0], key[1], "float64" if w is None else w.dtype, key[3], key[4])
            fn = self._fns[(key, name)] = compiled(src, "--fmad=false").get_function(name)
        return fn

    def _args(self, state, n, m):
        return (np.int64(n), np.int64(m), *(state.fields[f] for f in self.fields))

    def push(self, state, heads, scanned, total, n, m):
        """Combine the messages of the queued ``heads`` (scanned degrees ``scanned``, ``total`` edges)
        into the device's clean buffers; clears their marks and starts the next queue."""
        lay, dev = state.layout, state.device
        nh = len(heads)
        threads = max(int(total), nh, 1)
        w = lay.csr_weights if self.reads_weight else None
        self._kernel("push_send", lay)(
            ((threads + 255) // 256,), (256,),
            (heads, scanned, np.int64(nh), np.int64(total), lay.csr[0], lay.csr[1],
             dev.none_f8 if w is None else w, lay.L, lay.degree, state.active_marks, dev.out, dev.cnt, dev.ctl,
             np.int64(lay.owned), *self._args(state, n, m)))

    def gather(self, state, hmask, identity, n, m):
        """Every tail's combined messages (heads in ``hmask``; None: all) into the device's buffers."""
        lay, dev = state.layout, state.device
        nt = lay.size
        ident = dev.out.dtype.type(identity)
        use = hmask is not None
        hm = hmask if use else dev.none_bool
        early = self.early
        if early:
            dev.best.fill(ident)
            if nt:
                blocks = min((nt + 255) // 256, dev.resident_blocks)
                self._kernel("best_send", lay)((blocks,), (256,), (np.int64(nt), hm, np.int32(use), lay.L, lay.degree,
                                                                   ident, dev.best, *self._args(state, n, m)))
        warp = not early and dev.out.dtype.itemsize == 8
        threads = max(nt * 32 if warp else nt, 1)
        w = lay.weights if self.reads_weight else None
        self._kernel("gather_send_warp" if warp else "gather_send", lay)(
            ((threads + 255) // 256,), (256,),
            (lay.cindptr, lay.cindices, dev.none_f8 if w is None else w, lay.L, lay.degree, hm, np.int32(use),
             dev.best, np.int32(early), ident, dev.out, dev.cnt, dev.ctl, np.int64(lay.owned), np.int64(nt),
             *self._args(state, n, m)))


def send_kinds(fields, layout, message):
    """(field kinds, message kind, id kind, degree kind, weight kind) for :func:`compile_send`."""
    w = layout.weights
    return ({f: kind_of(a.dtype) for f, a in fields.items()}, kind_of(message), kind_of(layout.L.dtype),
            kind_of(layout.degree.dtype), None if w is None else kind_of(w.dtype))


__all__ = ["CudaSend", "compile_send", "send_kinds"]
