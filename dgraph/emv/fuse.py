"""Fuse a traced VERTEX step into one numba loop (CPU), where its expressions allow.

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

Kernels are cached by their generated source (identical programs share
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
    """``DGRAPH_EMV_FUSE=0`` turns the fused loops off (the vectorized path: for A/B timing)."""
    return os.environ.get("DGRAPH_EMV_FUSE", "1") != "0"


def kind_of(dtype):
    """'i', 'f' or 'b' for int64, float64, bool; None for any other dtype."""
    return _KIND.get(np.dtype(dtype))


class _Gen:
    """Scalar Python source for traced expressions; every node computed once (a local per node)."""

    def __init__(self, leaf_code):
        self.leaf_code = leaf_code  # key -> (source, kind), or raises Unfusable
        self.lines = []
        self.done = {}
        self.hoisted = []           # (expr, kind): the scalar subexpressions, arguments H0, H1, ...

    def emit(self, e):
        """(source of a local or constant, kind) of ``e``; appends the lines that compute it."""
        if not isinstance(e, Expr):
            return _constant(e)
        if id(e) in self.done:
            return self.done[id(e)]
        if all(k[0] == "graph" for k in leaves(e)):
            # no per-vertex value: the vectorized path computes it in Python scalars (1 / 0 raises);
            # so does the caller (hoisted), and the loop takes the result as an argument
            kind = _Gen(_scalar_leaf)._node(e)[1] if e.op not in ("leaf", "agg") else \
                ("f" if e.op == "agg" else "i")
            src = f"H{len(self.hoisted)}"
            self.hoisted.append((e, kind))
        elif e.op == "leaf":
            src, kind = self.leaf_code(e.args)
        else:
            src, kind = self._node(e)
        name = f"_e{len(self.done)}"
        self.lines.append(f"{name} = {src}")
        self.done[id(e)] = (name, kind)
        return name, kind

    def _node(self, e):
        op = e.op
        if op in _SYMBOL:  # ** is not: numpy raises on negative integer powers
            (a, ka), (b, kb) = self.emit(e.args[0]), self.emit(e.args[1])
            return f"({a} {_SYMBOL[op]} {b})", _binary_kind(op, ka, kb)
        if op == "neg":
            a, ka = self.emit(e.args[0])
            if ka == "b":
                raise Unfusable("neg of a bool")
            return f"(-{a})", ka
        if op == "invert":
            a, ka = self.emit(e.args[0])
            return (f"(not {a})", "b") if ka == "b" else (f"(~{a})", _need(ka, "i"))
        if op == "where":
            (c, kc), (a, ka), (b, kb) = (self.emit(x) for x in e.args)
            _need(kc, "b")
            if ka == kb == "b":
                return f"({a} if {c} else {b})", "b"
            k = _numeric(ka, kb)
            return f"({_CAST[k]}({a}) if {c} else {_CAST[k]}({b}))", k
        if op == "astype":
            a, ka = self.emit(e.args[0])
            k = kind_of(e.args[1])
            if k is None:
                raise Unfusable(f"astype({e.args[1]})")
            return (f"({a} != 0)", "b") if k == "b" else (f"{_CAST[k]}({a})", k)
        if op == "ufunc" and e.args[0] is np.absolute and len(e.args) == 2:
            a, ka = self.emit(e.args[1])
            if ka == "b":
                raise Unfusable("abs of a bool")
            return f"abs({a})", ka
        raise Unfusable(op if op != "ufunc" else getattr(e.args[0], "__name__", "ufunc"))


def _scalar_leaf(key):
    return "0", "i"  # graph.num_vertices / num_edges: Python ints


def _constant(v):
    if isinstance(v, (bool, np.bool_)):
        return repr(bool(v)), "b"
    if isinstance(v, (int, np.int64)) and -(1 << 63) <= int(v) < (1 << 63):
        return f"np.int64({int(v)})", "i"
    if isinstance(v, (float, np.float64)):
        v = float(v)
        if v != v:
            return "np.nan", "f"
        if v in (float("inf"), float("-inf")):
            return ("np.inf" if v > 0 else "(-np.inf)"), "f"
        return f"np.float64({v!r})", "f"
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


def vertex_kernel(t, field_kinds, message_kind, id_kind, degree_kind):
    """The :class:`FusedStep` of traced VERTEX step ``t``, or None where it cannot be fused.
    ``field_kinds``: field -> kind (None: a dtype the loop does not take)."""
    if not enabled() or message_kind is None:
        return None
    used = []

    def leaf_code(key):
        role = key[0]
        if role == "v":
            name = key[1]
            if name == "id":
                return "L[i]", _need(id_kind, "i")
            if name == "out_degree":
                return "deg[i]", _need(degree_kind, "i")
            k = field_kinds.get(name)
            if k is None:
                raise Unfusable(f"field {name}")
            if name not in used:
                used.append(name)
            return f"F{used.index(name)}[i]", k
        if role == "msg":
            return "msg", message_kind
        if role == "received":
            return "received", "b"
        raise Unfusable(str(key))

    gen = _Gen(leaf_code)
    try:
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
    except Unfusable:
        return None
    body = list(gen.lines)
    # every write after every read, as the vectorized path (which evaluates all, then assigns)
    body += [f"F{used.index(f)}[i] = {src}" for f, (src, _) in writes.items()]
    if act is not None:
        body += [f"if {act[0]} and not marks[i]:", "    marks[i] = True", "    newly += 1"]
    if halt is not None:
        body += [f"if i < own and not {halt[0]}:", "    cont = True"]
    args = [f"F{j}" for j in range(len(used))] + [f"H{j}" for j in range(len(gen.hoisted))]
    src = _VERTEX_TEMPLATE.format(args=", ".join(args), body="\n".join("        " + line for line in body))
    return FusedStep(_load(src).vertex_step, used, gen.hoisted)


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


# -- compiling generated source ------------------------------------------------------------------

_MODULES = {}


def _cache_dir():
    d = os.environ.get("DGRAPH_EMV_CACHE") or os.path.join(tempfile.gettempdir(), f"dgraph-emv-{os.getuid()}")
    os.makedirs(d, exist_ok=True)
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
