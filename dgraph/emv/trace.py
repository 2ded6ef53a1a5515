"""Trace a user function once into array expressions.

A user function is written over *one* vertex, edge or message, in plain
Python.  It is called exactly once, at ``Program`` construction, with proxy
objects instead of values: every arithmetic operation, comparison or numpy
ufunc on a proxy builds an :class:`Expr` node instead of computing, an
assignment ``v.rank = ...`` records a write, ``edges.send(...)`` records a
send.  At run time the recorded expressions are evaluated over whole arrays
(numpy or CuPy, from the shard's data): no Python runs per vertex.

What cannot be recorded raises :class:`~dgraph.errors.EMVError` naming the
user's file and line and why: a Python ``if``/``while``/``and``/``or``/
``not`` on a traced value (its truth is not known until run time: use
``emv.where(cond, a, b)`` or ``send(..., where=cond)``), a loop or ``len``
over vertex, edge or message data (the runtime applies the function to
every element: write the body for one), ``float()``/``int()``/``math.*`` on
a traced value (use numpy ufuncs, they are traced), an unknown field, a
write to a read-only attribute.
"""

from __future__ import annotations

import operator
import os
import sys

import numpy as np

from ..errors import EMVError

_HERE = os.path.dirname(os.path.abspath(__file__))


def _user_location():
    """(file, line) of the innermost frame outside dgraph.emv: the user's line being traced."""
    f = sys._getframe(1)
    while f is not None and os.path.dirname(os.path.abspath(f.f_code.co_filename)) == _HERE:
        f = f.f_back
    if f is None:
        return "<unknown>", 0
    return f.f_code.co_filename, f.f_lineno


class _Tracing:
    """The function being traced (for error messages)."""

    current = None


def fail(why):
    """An EMVError at the user's current line."""
    path, line = _user_location()
    step = _Tracing.current
    what = f" in {step[0]} function {step[1]}()" if step else ""
    raise EMVError(f"{path}:{line}{what}: {why}")


_BINARY = {
    "add": operator.add, "sub": operator.sub, "mul": operator.mul, "truediv": operator.truediv,
    "floordiv": operator.floordiv, "mod": operator.mod, "pow": operator.pow,
    "lt": operator.lt, "le": operator.le, "gt": operator.gt, "ge": operator.ge, "eq": operator.eq, "ne": operator.ne,
    "and": operator.and_, "or": operator.or_, "xor": operator.xor,
}


class Expr:
    """A node of a traced array expression: ``op`` and its ``args`` (Exprs or Python scalars)."""

    __slots__ = ("op", "args")
    __hash__ = object.__hash__
    __array_priority__ = 1000

    def __init__(self, op, *args):
        self.op, self.args = op, args

    # -- arithmetic builds nodes -------------------------------------------------------
    def _bin(name, swap=False):  # noqa: N805
        def f(self, other):
            if isinstance(other, (list, tuple, dict, str)) or (isinstance(other, np.ndarray) and other.ndim):
                fail(f"{type(other).__name__} in an expression: only scalars and traced values combine "
                     "(per-vertex data belongs in vertex_state)")
            return Expr(name, other, self) if swap else Expr(name, self, other)
        return f

    __add__, __radd__ = _bin("add"), _bin("add", True)
    __sub__, __rsub__ = _bin("sub"), _bin("sub", True)
    __mul__, __rmul__ = _bin("mul"), _bin("mul", True)
    __truediv__, __rtruediv__ = _bin("truediv"), _bin("truediv", True)
    __floordiv__, __rfloordiv__ = _bin("floordiv"), _bin("floordiv", True)
    __mod__, __rmod__ = _bin("mod"), _bin("mod", True)
    __pow__, __rpow__ = _bin("pow"), _bin("pow", True)
    __lt__, __le__, __gt__, __ge__ = _bin("lt"), _bin("le"), _bin("gt"), _bin("ge")
    __eq__, __ne__ = _bin("eq"), _bin("ne")
    __and__, __rand__ = _bin("and"), _bin("and", True)
    __or__, __ror__ = _bin("or"), _bin("or", True)
    __xor__, __rxor__ = _bin("xor"), _bin("xor", True)
    del _bin

    def __neg__(self):
        return Expr("neg", self)

    def __pos__(self):
        return self

    def __abs__(self):
        return Expr("ufunc", np.absolute, self)

    def __invert__(self):
        return Expr("invert", self)

    def astype(self, dtype):
        return Expr("astype", self, np.dtype(dtype))

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if method != "__call__" or kwargs or ufunc.nout != 1:
            fail(f"numpy {ufunc.__name__}.{method}: only plain ufunc calls are traced")
        return Expr("ufunc", ufunc, *inputs)

    def __array_function__(self, func, types, args, kwargs):
        if func is np.where and len(args) == 3 and not kwargs:
            return where(*args)
        fail(f"numpy.{func.__name__} on a traced value: only ufuncs (np.minimum, np.sqrt, ...) and "
             "np.where are traced")

    # -- what cannot be traced ------------------------------------------------------------
    def __bool__(self):
        fail("a Python if/while/and/or/not on a traced value cannot be vectorized (its truth differs per "
             "vertex): use emv.where(cond, a, b), send(value, where=cond), set_active(cond), & | ~")

    def __iter__(self):
        fail("a loop over a traced value: the function runs for every vertex/edge/message at once; "
             "write the body for one element")

    def __len__(self):
        fail("len() of a traced value: it is one number per vertex/edge/message, not a sequence")

    def __float__(self):
        fail("float()/math.* on a traced value: use numpy ufuncs (np.sqrt, np.exp, ...), they are traced")

    __int__ = __index__ = __complex__ = __float__

    def __getitem__(self, key):
        fail("indexing a traced value: vertex data is reached through v.<field>, edges.tail.<field>, "
             "e.head.<field>")

    def __repr__(self):
        return f"Expr({self.op}, {len(self.args)} args)"


def where(cond, a, b):
    """``a`` where ``cond`` else ``b``, per element (traced; numpy.where on plain arrays)."""
    if not any(isinstance(x, Expr) for x in (cond, a, b)):
        return np.where(cond, a, b)
    return Expr("where", cond, a, b)


def minimum(a, b):
    return np.minimum(a, b)


def maximum(a, b):
    return np.maximum(a, b)


def leaf(*key):
    return Expr("leaf", *key)


# -- analysis -------------------------------------------------------------------------

def leaves(expr, out=None):
    """The set of leaf keys an expression reads."""
    out = set() if out is None else out
    seen = set()
    stack = [expr]
    while stack:
        e = stack.pop()
        if not isinstance(e, Expr) or id(e) in seen:
            continue
        seen.add(id(e))
        if e.op == "leaf":
            out.add(e.args)
        elif e.op == "mreduce":
            out.add(("mreduce",))
            stack.append(e.args[1])
        else:
            stack.extend(e.args)
    return out


def roles(expr):
    """The roles whose leaves ``expr`` reads ('head', 'tail', 'edge', 'graph', 'v', 'msg', ...)."""
    return {k[0] for k in leaves(expr)}


def factors(cond):
    """A condition split at its ``&``: the conjunction's factors."""
    if isinstance(cond, Expr) and cond.op == "and":
        return factors(cond.args[0]) + factors(cond.args[1])
    return [cond]


def evaluate(expr, env, xp, memo=None):
    """The array value of ``expr``; ``env(key)`` gives a leaf's array (or scalar)."""
    memo = {} if memo is None else memo
    if not isinstance(expr, Expr):
        return expr
    key = id(expr)
    if key in memo:
        return memo[key]
    op, args = expr.op, expr.args
    if op == "leaf":
        val = env(args)
    elif op in ("mreduce", "agg"):
        val = env((op, *args))
    else:
        vals = [evaluate(a, env, xp, memo) for a in args]
        if op in _BINARY:
            val = _BINARY[op](*vals)
        elif op == "ufunc":
            val = args[0](*vals[1:])
        elif op == "where":
            c = vals[0]
            if xp is not np and not isinstance(c, xp.ndarray):  # a scalar condition (v.received with no
                c = xp.asarray(c)                               # message yet): CuPy takes arrays only
            val = xp.where(c, *vals[1:])
        elif op == "neg":
            val = -vals[0]
        elif op == "invert":
            v = vals[0]
            val = (not v) if isinstance(v, (bool, np.bool_)) else ~v
        elif op == "astype":
            val = xp.asarray(vals[0]).astype(vals[1])
        else:  # pragma: no cover
            raise AssertionError(op)
    memo[key] = val
    return val
