"""Fuse a traced VERTEX step into one numba loop (CPU) or one CUDA kernel (CuPy), where its
expressions allow.

The vectorized path (:func:`.trace.evaluate`) runs a VERTEX step as a chain of
numpy calls over the receivers: select them (``counts > 0``), gather their
messages and fields, one array per expression node, scatter the writes and
the active marks back.  Each call is a pass over up to every vertex; on rmat
scale 20 BFS-Q that array work cost more than the step's share of the
built-in BFS.  Here the step's expressions become the body of one compiled
loop (per receiver: read its fields, compute, write), generated as Python
source from the traced :class:`~.trace.Expr` tree and compiled by numba.

Only what gives the same bits as numpy is compiled: fields, messages and
leaves of 64-bit integers, 64-bit floats or bools, Python scalar constants,
and the operations whose numba scalar semantics equal numpy's array ones
(checked in ``tests/test_emv_fuse.py``): ``+ - * / // %``, comparisons,
``& | ^ ~`` on bools or integers, negation, ``where``, ``astype`` to those
types, ``abs``.  Anything else (``np.minimum``: numba's sign of a zero
differs; ``**``; other dtypes; ``msgs.sum()``) keeps the vectorized path:
:func:`vertex_kernel` returns None.

On CuPy the same traced tree becomes CUDA C (:func:`cuda_vertex_kernel`, one thread a vertex),
compiled with ``--fmad=false`` so each operation rounds as CuPy's one-operation kernels do;
``//`` and ``%`` are left to the vectorized path there.  The kernel also appends the vertices it
marks active to a queue and counts them and their edges, which the next send reads instead of
scanning the marks (:mod:`.device`).

CPU kernels are cached by their generated source (identical programs share
one) and written to a cache folder so numba's on-disk cache can keep them
between processes.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
import tempfile

import numpy as np

from ..config import config
from .trace import Expr, evaluate, leaves

#: the fused loop runs when a step's vertex range has at least this many vertices (below it the
#: compile, once per program, is not worth it); tests set it to 0
FUSE_MIN = 1 << 14

_SYMBOL = {"add": "+", "sub": "-", "mul": "*", "truediv": "/", "floordiv": "//", "mod": "%",
           "lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!=", "and": "&", "or": "|", "xor": "^"}
_ARITH = ("add", "sub", "mul", "floordiv", "mod")
_KIND = {np.dtype(np.int64): "i", np.dtype(np.float64): "f", np.dtype(np.bool_): "b"}
_CAST = {"i": "np.int64", "f": "np.float64"}


class Unfusable(Exception):
    """The expression has something whose numba semantics may differ from numpy's."""


def enabled():
    """``dgraph.config.emv_fuse`` (default True); off, the vectorized path runs (for A/B timing)."""
    return config.emv_fuse


def kind_of(dtype):
    """'i', 'f' or 'b' for int64, float64, bool; None for any other dtype."""
    return _KIND.get(np.dtype(dtype))


class _Python:
    """Scalar Python (numba) source: the CPU loop's dialect."""

    forbidden = ()
    inline_scalars = False  # graph sizes and aggregates: hoisted, computed by the caller in Python

    @staticmethod
    def local(name, kind, src):
        return f"{name} = {src}"

    @staticmethod
    def cast(src, k):
        return f"{_CAST[k]}({src})"

    @staticmethod
    def truediv(a, b):
        return f"({a} / {b})"

    @staticmethod
    def not_(a):
        return f"(not {a})"

    @staticmethod
    def where(c, a, b):
        return f"({a} if {c} else {b})"

    @staticmethod
    def abs(a, k):
        return f"abs({a})"

    @staticmethod
    def const(v):
        if isinstance(v, bool):
            return repr(v)
        if isinstance(v, int):
            return f"np.int64({v})"
        if v != v:
            return "np.nan"
        if v in (float("inf"), float("-inf")):
            return "np.inf" if v > 0 else "(-np.inf)"
        return f"np.float64({v!r})"


class _C:
    """CUDA C source: the GPU kernel's dialect.  ``//`` and ``%`` are not compiled (numpy's floor
    semantics and its zero divisor need more than C's operators)."""

    forbidden = ("floordiv", "mod")
    inline_scalars = True  # graph sizes and aggregates are kernel arguments (aggregates may live on the device)
    CTYPE = {"i": "long long", "f": "double", "b": "bool"}

    @classmethod
    def local(cls, name, kind, src):
        return f"{cls.CTYPE[kind]} {name} = {src};"

    @classmethod
    def cast(cls, src, k):
        return f"(({cls.CTYPE[k]})({src}))"

    @staticmethod
    def truediv(a, b):
        return f"((double)({a}) / (double)({b}))"

    @staticmethod
    def not_(a):
        return f"(!{a})"

    @staticmethod
    def where(c, a, b):
        return f"({c} ? {a} : {b})"

    @staticmethod
    def abs(a, k):
        return f"fabs({a})" if k == "f" else f"({a} < 0 ? -{a} : {a})"

    @staticmethod
    def const(v):
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, int):
            return f"({v + 1}LL - 1)" if v == -(1 << 63) else f"{v}LL"
        if v != v:
            return "__longlong_as_double(0x7ff8000000000000LL)"
        if v in (float("inf"), float("-inf")):
            return "__longlong_as_double(0x7ff0000000000000LL)" if v > 0 else \
                "__longlong_as_double(0xfff0000000000000LL)"
        return f"{v!r}"


class _Gen:
    """Scalar source for traced expressions; every node computed once (a local per node)."""

    def __init__(self, leaf_code, dialect=_Python, prefix="_e"):
        self.leaf_code = leaf_code  # key -> (source, kind), or raises Unfusable
        self.d = dialect
        self.prefix = prefix        # of the locals' names (several generators may share one kernel)
        self.lines = []
        self.done = {}
        self.hoisted = []           # (expr, kind): the scalar subexpressions, arguments H0, H1, ...

    def emit(self, e):
        """(source of a local or constant, kind) of ``e``; appends the lines that compute it."""
        if not isinstance(e, Expr):
            return _constant(e, self.d)
        if id(e) in self.done:
            return self.done[id(e)]
        scalar = all(k[0] == "graph" for k in leaves(e))
        if scalar and self.d.inline_scalars:
            # computed in the kernel; the caller still evaluates it on the host where the vectorized
            # path would (Python scalars: 1 / 0 raises there, and then the vectorized path runs)
            if e.op not in ("leaf", "agg"):
                self.hoisted.append((e, None))
            src, kind = self.leaf_code(("agg", *e.args)) if e.op == "agg" else \
                self.leaf_code(e.args) if e.op == "leaf" else self._node(e)
        elif scalar:
            # no per-vertex value: the vectorized path computes it in Python scalars (1 / 0 raises);
            # so does the caller (hoisted), and the loop takes the result as an argument
            kind = _Gen(_scalar_leaf, self.d)._node(e)[1] if e.op not in ("leaf", "agg") else \
                ("f" if e.op == "agg" else "i")
            src = f"H{len(self.hoisted)}"
            self.hoisted.append((e, kind))
        elif e.op == "leaf":
            src, kind = self.leaf_code(e.args)
        else:
            src, kind = self._node(e)
        name = f"{self.prefix}{len(self.done)}"
        self.lines.append(self.d.local(name, kind, src))
        self.done[id(e)] = (name, kind)
        return name, kind

    def _node(self, e):
        op, d = e.op, self.d
        if op in d.forbidden:
            raise Unfusable(op)
        if op in _SYMBOL:  # ** is not: numpy raises on negative integer powers
            (a, ka), (b, kb) = self.emit(e.args[0]), self.emit(e.args[1])
            k = _binary_kind(op, ka, kb)
            return (d.truediv(a, b) if op == "truediv" else f"({a} {_SYMBOL[op]} {b})"), k
        if op == "neg":
            a, ka = self.emit(e.args[0])
            if ka == "b":
                raise Unfusable("neg of a bool")
            return f"(-{a})", ka
        if op == "invert":
            a, ka = self.emit(e.args[0])
            return (d.not_(a), "b") if ka == "b" else (f"(~{a})", _need(ka, "i"))
        if op == "where":
            (c, kc), (a, ka), (b, kb) = (self.emit(x) for x in e.args)
            _need(kc, "b")
            if ka == kb == "b":
                return d.where(c, a, b), "b"
            k = _numeric(ka, kb)
            return d.where(c, d.cast(a, k), d.cast(b, k)), k
        if op == "astype":
            a, ka = self.emit(e.args[0])
            k = kind_of(e.args[1])
            if k is None:
                raise Unfusable(f"astype({e.args[1]})")
            return (f"({a} != 0)", "b") if k == "b" else (d.cast(a, k), k)
        if op == "ufunc" and e.args[0] is np.absolute and len(e.args) == 2:
            a, ka = self.emit(e.args[1])
            if ka == "b":
                raise Unfusable("abs of a bool")
            return d.abs(a, ka), ka
        raise Unfusable(op if op != "ufunc" else getattr(e.args[0], "__name__", "ufunc"))


def _scalar_leaf(key):
    return "0", "i"  # graph.num_vertices / num_edges: Python ints


def _constant(v, dialect=_Python):
    if isinstance(v, (bool, np.bool_)):
        return dialect.const(bool(v)), "b"
    if isinstance(v, (int, np.int64)) and -(1 << 63) <= int(v) < (1 << 63):
        return dialect.const(int(v)), "i"
    if isinstance(v, (float, np.float64)):
        return dialect.const(float(v)), "f"
    raise Unfusable(f"constant {type(v).__name__}")


def _need(k, want):
    if k != want:
        raise Unfusable(f"{k} where {want} is needed")
    return k


def _numeric(ka, kb):
    if "b" in (ka, kb):
        raise Unfusable("arithmetic on a bool")
    return "f" if "f" in (ka, kb) else "i"


def _binary_kind(op, ka, kb):
    if op in _ARITH:
        return _numeric(ka, kb)
    if op == "truediv":
        _numeric(ka, kb)
        return "f"
    if op in ("eq", "ne") and ka == kb == "b":
        return "b"
    if op in ("lt", "le", "gt", "ge", "eq", "ne"):
        _numeric(ka, kb)
        return "b"
    if op in ("and", "or", "xor") and ka == kb and ka in "bi":
        return ka
    raise Unfusable(f"{op} on {ka}, {kb}")


def vertex_leaf(name, i, field_kinds, id_kind, degree_kind, used):
    """(source, kind) of a vertex's leaf ``name`` (a field, ``id`` or ``out_degree``) for the vertex at
    index ``i`` (the same in both dialects); a field read is appended to ``used``, whose order is the
    kernel's arguments F0, F1, ..."""
    if name == "id":
        return f"L[{i}]", _need(id_kind, "i")
    if name == "out_degree":
        return f"deg[{i}]", _need(degree_kind, "i")
    k = field_kinds.get(name)
    if k is None:
        raise Unfusable(f"field {name}")
    if name not in used:
        used.append(name)
    return f"F{used.index(name)}[{i}]", k


# -- the VERTEX step loop ----------------------------------------------------------------------

_VERTEX_TEMPLATE = '''\
import numpy as np
import numba


@numba.njit(cache=True, nogil=True, error_model="numpy")
def vertex_step(mode, nv, idx, mout, mcnt, ident, own, marks, L, deg, {args}):
    """mode 0: vertices 0..nv-1 (messages where i < len(mout)); 1: vertex idx[k] with message mout[k];
    2: the vertices i < nv with mcnt[i] > 0.  Returns (an owned vertex voted to continue, marks set)."""
    cont = False
    newly = 0
    items = len(idx) if mode == 1 else nv
    for k in range(items):
        if mode == 1:
            i = idx[k]
            msg = mout[k]
            received = True
        else:
            i = k
            c = mcnt[i] if i < len(mcnt) else 0
            if mode == 2 and c == 0:
                continue
            received = c > 0
            msg = mout[i] if i < len(mout) else ident
{body}
    return cont, newly
'''


def _vertex_plan(t, field_kinds, message_kind, id_kind, degree_kind, dialect):
    """(fields used in order, the generator with the body's lines, writes field -> local, the
    active local or None, the halt local or None, the aggregates read in order) of traced VERTEX
    step ``t``; raises Unfusable."""
    used, aggs = [], []

    def leaf_code(key):
        role = key[0]
        if role == "v":
            return vertex_leaf(key[1], "i", field_kinds, id_kind, degree_kind, used)
        if role == "msg":
            return "msg", message_kind
        if role == "received":
            return "received", "b"
        if role == "graph":  # inline scalars only
            return ("NV" if key[1] == "num_vertices" else "NE"), "i"
        if role == "agg":
            if key[1] not in aggs:
                aggs.append(key[1])
            return f"A{aggs.index(key[1])}", "f"
        raise Unfusable(str(key))

    gen = _Gen(leaf_code, dialect)
    writes = {f: gen.emit(e) for f, e in t.writes.items()}
    act = None if t.active is None else gen.emit(t.active)
    halt = None if t.halt is None else gen.emit(t.halt)
    for f, (_, k) in writes.items():
        fk = field_kinds.get(f)
        if fk is None or not (k == fk or (fk == "f" and k == "i")):
            raise Unfusable(f"write {k} to {f}")
        if f not in used:
            used.append(f)
    for cond in (act, halt):
        if cond is not None:
            _need(cond[1], "b")
    return used, gen, {f: src for f, (src, _) in writes.items()}, act and act[0], halt and halt[0], aggs


def vertex_kernel(t, field_kinds, message_kind, id_kind, degree_kind):
    """The :class:`FusedStep` of traced VERTEX step ``t``, or None where it cannot be fused.
    ``field_kinds``: field -> kind (None: a dtype the loop does not take)."""
    if message_kind is None:
        return None
    try:
        used, gen, writes, act, halt, _ = _vertex_plan(t, field_kinds, message_kind, id_kind, degree_kind, _Python)
    except Unfusable:
        return None
    body = list(gen.lines)
    # every write after every read, as the vectorized path (which evaluates all, then assigns)
    body += [f"F{used.index(f)}[i] = {src}" for f, src in writes.items()]
    if act is not None:
        body += [f"if {act} and not marks[i]:", "    marks[i] = True", "    newly += 1"]
    if halt is not None:
        body += [f"if i < own and not {halt}:", "    cont = True"]
    args = [f"F{j}" for j in range(len(used))] + [f"H{j}" for j in range(len(gen.hoisted))]
    src = _VERTEX_TEMPLATE.format(args=", ".join(args), body="\n".join("        " + line for line in body))
    from ..startup import timed_dispatcher  # noqa: PLC0415

    return FusedStep(timed_dispatcher(_load(src).vertex_step), used, gen.hoisted)


_CUDA_TEMPLATE = r"""
typedef {mtype} M;
typedef {ltype} LT;
typedef {dtype} DT;
// mode 0: vertices 0..nv-1 (messages where i < nmout); 1: vertex idx[k] with message mout[k];
// 2: the vertices i < nv with mcnt[i] > 0, which, with ``reset``, puts back the identity and a zero
// count where it read them (the send's dense buffers stay clean for the next push).  ctl: [0]
// vertices newly marked active (appended to queue, their degrees to qdeg), [1] their out-edges,
// [2] owned vertices that voted to continue (a running count: never reset).  Every thread of a
// block reaches the end (no early return): the queue append and the counts are one atomic a block.
extern "C" __global__ void vertex_step(int mode, long long nv, const long long* idx, long long nidx,
                                       M* mout, long long nmout, int* mcnt, long long nmcnt,
                                       M ident, int reset, long long own, bool* marks, const LT* L,
                                       const DT* deg, unsigned long long* ctl, long long* queue,
                                       long long* qdeg{args}) {{
    long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    bool live = k < (mode == 1 ? nidx : nv);
    long long i = 0;
    M msg = ident;
    bool received = false;
    bool newly = false;
    bool go = false;
    if (live) {{
        if (mode == 1) {{
            i = idx[k];
            msg = mout[k];
            received = true;
        }} else {{
            i = k;
            int c = i < nmcnt ? mcnt[i] : 0;
            live = !(mode == 2 && c == 0);
            received = c > 0;
            msg = i < nmout ? mout[i] : ident;
        }}
    }}
    if (live) {{
{body}
        if (reset) {{ mout[i] = ident; mcnt[i] = 0; }}
    }}
{tail}
}}
"""


def cuda_vertex_kernel(t, field_kinds, message_kind, id_kind, degree_kind):
    """The :class:`CudaStep` of traced VERTEX step ``t`` (CuPy, one thread a vertex: the same
    operations as the vectorized path, compiled without fused multiply-adds, so the same bits), or
    None where it cannot be fused."""
    if message_kind is None:
        return None
    try:
        plan = _vertex_plan(t, field_kinds, message_kind, id_kind, degree_kind, _C)
    except Unfusable:
        return None
    return CudaStep(plan, {f: field_kinds[f] for f in plan[0]}, message_kind)


class ScalarChecks:
    """The scalar subexpressions a CUDA kernel computes inline (graph sizes, aggregates), evaluated
    on the host first: where one raises in Python (the vectorized path's arithmetic, e.g. an integer
    ``1 / 0``), the caller takes the vectorized path, which then raises as it always did."""

    def __init__(self, hoisted):
        self.checks = [(e, _reads_agg(e)) for e, _ in hoisted]
        self._graph_ok = {}

    def __bool__(self):
        return bool(self.checks)

    def ok(self, env, aggs_on_host=True):
        """False where one raises; those reading a device aggregate compute as CuPy, as the kernel."""
        for e, has_agg in self.checks:
            if has_agg and not aggs_on_host:
                continue
            key = None if has_agg else (id(e), env(("graph", "num_vertices")), env(("graph", "num_edges")))
            if key is not None and key in self._graph_ok:
                ok = self._graph_ok[key]
            else:
                try:
                    evaluate(e, env, np)
                    ok = True
                except (ArithmeticError, ValueError, TypeError):
                    ok = False
                if key is not None:
                    self._graph_ok[key] = ok
            if not ok:
                return False
        return True


class CudaStep:
    """A VERTEX step as CUDA source; :meth:`kernel` builds it for its aggregates' places (a host
    value, or a one-value device array: an aggregate kept on the device).  ``checks``: its scalar
    subexpressions (:class:`ScalarChecks`)."""

    def __init__(self, plan, kinds, message_kind):
        self.fields, self.gen, self.writes, self.act, self.halt, self.aggs = plan
        self.checks = ScalarChecks(self.gen.hoisted)
        self.kinds, self.message_kind = kinds, message_kind
        self._kernels = {}

    def kernel(self, on_device, L_dtype, deg_dtype):
        from ..cuda import compiled  # noqa: PLC0415

        key = (on_device, str(L_dtype), str(deg_dtype))
        if key not in self._kernels:
            self._kernels[key] = compiled(self.source(*key), "--fmad=false").get_function("vertex_step")
        return self._kernels[key]

    def source(self, on_device, L_dtype, deg_dtype):
        """The CUDA source for aggregates at ``on_device`` (per aggregate: a device value or not)."""
        from ..cuda import COMMON  # noqa: PLC0415
        from .kernels import _CTYPES  # noqa: PLC0415

        ct = _C.CTYPE
        args = [f"{ct[self.kinds[f]]}* F{j}" for j, f in enumerate(self.fields)] + ["long long NV", "long long NE"]
        loads = []
        for j, dev in enumerate(on_device):
            if dev:
                args.append(f"const double* A{j}p")
                loads.append(f"double A{j} = A{j}p[0];")
            else:
                args.append(f"double A{j}")
        body = loads + list(self.gen.lines)
        body += [f"F{self.fields.index(f)}[i] = {src};" for f, src in self.writes.items()]
        if self.act is not None:
            body += [f"if ({self.act} && !marks[i]) {{", "    marks[i] = true;", "    newly = true;", "}"]
            tail = ["    unsigned long long slot = block_reserve(newly, ctl);",
                    "    if (newly) { queue[slot] = i; qdeg[slot] = (long long)deg[i]; }",
                    "    block_add(newly ? (long long)deg[i] : 0, ctl + 1);"]
        else:
            tail = ["    (void)newly;"]
        if self.halt is not None:
            body += [f"go = i < own && !{self.halt};"]
            tail += ["    block_add(go ? 1 : 0, ctl + 2);"]
        else:
            tail += ["    (void)go;"]
        return COMMON + _CUDA_TEMPLATE.format(mtype=ct[self.message_kind], ltype=_CTYPES[str(L_dtype)],
                                              dtype=_CTYPES[str(deg_dtype)], args="".join(", " + a for a in args),
                                              body="\n".join("        " + line for line in body),
                                              tail="\n".join(tail))


class FusedStep:
    """A compiled VERTEX loop: ``loop``, the fields it takes (in order) and its hoisted scalars."""

    def __init__(self, loop, fields, hoisted):
        self.loop, self.fields, self.hoisted = loop, fields, hoisted

    def scalars(self, env):
        """The hoisted scalars' values (``env``: the leaves), cast to the kinds the loop was compiled
        for; None where one cannot be computed here (the vectorized path then runs, and raises or
        not, as before)."""
        out = []
        for e, kind in self.hoisted:
            try:
                v = evaluate(e, env, np)
                out.append(np.int64(v) if kind == "i" else np.float64(v) if kind == "f" else np.bool_(v))
            except (ArithmeticError, ValueError, TypeError):
                return None
        return out


def _reads_agg(e):
    stack, seen = [e], set()
    while stack:
        x = stack.pop()
        if isinstance(x, Expr) and id(x) not in seen:
            seen.add(id(x))
            if x.op == "agg":
                return True
            stack.extend(x.args)
    return False


# -- compiling generated source ------------------------------------------------------------------

_MODULES = {}


def _cache_dir():
    """``dgraph.config.emv_cache_dir``, or ``$TMPDIR/dgraph-emv-$UID``; made when missing."""
    d = config.emv_cache_dir or os.path.join(tempfile.gettempdir(), f"dgraph-emv-{os.getuid()}")
    try:
        os.makedirs(d, exist_ok=True)
    except OSError as exc:
        from ..errors import InputError  # noqa: PLC0415

        raise InputError(f"dgraph.config.emv_cache_dir={d!r}: expected a folder dgraph can create and write "
                         f"({exc.strerror or exc})") from None
    return d


def _load(src):
    """The module of generated source ``src``, from a file named by its hash (so numba's disk cache,
    keyed by file, keeps the compiled loop between processes)."""
    key = hashlib.sha1(src.encode()).hexdigest()[:16]
    if key not in _MODULES:
        path = os.path.join(_cache_dir(), f"emv_fused_{key}.py")
        if not os.path.exists(path):
            tmp = f"{path}.{os.getpid()}.tmp"
            with open(tmp, "w") as f:
                f.write(src)
            os.replace(tmp, path)  # atomic: a concurrent process sees all of it or none
        name = f"dgraph_emv_fused_{key}"
        spec = importlib.util.spec_from_file_location(name, path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod  # numba's disk cache finds a kernel's module by name
        spec.loader.exec_module(mod)
        _MODULES[key] = mod
    return _MODULES[key]
