"""The user-facing API kinds of Medusa's Table 1, as decorators, and the proxies a function is traced with.

==========  ============================  ==============================================
decorator   the function                  applies to
==========  ============================  ==============================================
edge_list   ``f(v, edges)``               every vertex ``v`` with its out-edges (ELIST)
edge        ``f(e)``                      every edge ``e`` (EDGE)
message_list ``f(v, msgs)``               every vertex with the messages sent to it (MLIST)
message     ``f(m)``                      every message (MESSAGE)
vertex      ``f(v)`` or ``f(v, msg)``     every vertex, ``msg`` = its combined messages (VERTEX)
==========  ============================  ==============================================

The Combiner is the Program's ``combiner=`` ('sum', 'min', 'max' or a
numpy ufunc).  What each proxy offers:

- a vertex ``v``: its state fields (``v.rank``), ``v.id``, ``v.out_degree``,
  ``v.graph.num_vertices`` / ``num_edges`` / ``sum(expr)`` (the sum over all
  vertices at the start of the iteration, an aggregator); in VERTEX and
  MLIST functions also ``v.field = expr`` (a write), ``v.received`` (it got a
  message), ``v.set_active(cond)`` (queue mode: the next send runs from the
  active vertices only) and ``v.vote_halt(cond)``.
- ``edges`` (ELIST): ``edges.send(value, where=cond)``, ``edges.weight``,
  ``edges.tail.<field>``.  ``e`` (EDGE): ``e.head``, ``e.tail``, ``e.weight``,
  ``e.send(value, where=cond)``.
- ``m`` (MESSAGE): ``m.value`` (read and write), ``m.head``, ``m.tail``,
  ``m.weight``, ``m.drop(where=cond)``.
- ``msgs`` (MLIST): ``msgs.sum(x)``, ``msgs.min(x)``, ``msgs.max(x)``,
  ``msgs.count()``, where ``x`` (default ``msgs.value``) is an expression of
  ``msgs.value``, ``msgs.head.<field>``, ``msgs.weight``.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field

from ..errors import EMVError
from .trace import Expr, _Tracing, fail, leaf

KINDS = {"ELIST": ("v", "edges"), "EDGE": ("e",), "MLIST": ("v", "msgs"), "MESSAGE": ("m",), "VERTEX": ("v", "msg")}
SENDS = ("ELIST", "EDGE")
REDUCTIONS = ("sum", "min", "max", "count")


class Step:
    """A user function and its API kind; traced by :class:`dgraph.emv.Program`."""

    def __init__(self, kind, fn):
        if not callable(fn):
            raise EMVError(f"@emv.{kind.lower()} decorates a function, got {type(fn).__name__}")
        self.kind, self.fn = kind, fn
        self.name = getattr(fn, "__name__", "function")
        code = getattr(fn, "__code__", None)
        self.where = f"{code.co_filename}:{code.co_firstlineno}" if code else "<unknown>"
        try:
            params = [p for p in inspect.signature(fn).parameters.values()
                      if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        except (TypeError, ValueError):
            params = []
        allowed = (1, 2) if kind == "VERTEX" else (len(KINDS[kind]),)
        if len(params) not in allowed:
            names = ", ".join(KINDS[kind][:allowed[-1]])
            raise EMVError(f"{self.where}: {kind} function {self.name}() takes ({names}), "
                           f"got {len(params)} parameter(s)")
        self.arity = len(params)

    def __call__(self, *args, **kwargs):
        return self.fn(*args, **kwargs)

    def __repr__(self):
        return f"<emv {self.kind} step {self.name} ({self.where})>"


def edge_list(fn):
    """ELIST: ``f(v, edges)``, per vertex with its out-edge list; may ``edges.send(value)``."""
    return Step("ELIST", fn)


def edge(fn):
    """EDGE: ``f(e)``, per edge; may ``e.send(value)`` to ``e.tail``."""
    return Step("EDGE", fn)


def message_list(fn):
    """MLIST: ``f(v, msgs)``, per vertex with the list of messages sent to it."""
    return Step("MLIST", fn)


def message(fn):
    """MESSAGE: ``f(m)``, per message (before they are combined)."""
    return Step("MESSAGE", fn)


def vertex(fn):
    """VERTEX: ``f(v)`` or ``f(v, msg)``, per vertex, ``msg`` its combined messages."""
    return Step("VERTEX", fn)


@dataclass
class Traced:
    """What tracing a Step recorded."""

    kind: str
    name: str
    where: str
    writes: dict = field(default_factory=dict)     # field -> Expr (vertex steps)
    send: tuple | None = None                      # (value, cond) (ELIST / EDGE)
    active: object = None                          # set_active condition
    halt: object = None                            # vote_halt condition
    mvalue: object = None                          # MESSAGE: the new message value
    drop: object = None                            # MESSAGE: drop condition
    aggs: list = field(default_factory=list)       # aggregator expressions (v.graph.sum)
    reads_msg: bool = False


class _Graph:
    def __init__(self, tr, can_aggregate):
        object.__setattr__(self, "_tr", tr)
        object.__setattr__(self, "_agg", can_aggregate)

    @property
    def num_vertices(self):
        return leaf("graph", "num_vertices")

    @property
    def num_edges(self):
        """The number of arcs stored (an undirected edge counts in both directions)."""
        return leaf("graph", "num_edges")

    def sum(self, x):
        """The sum of ``x`` over all vertices at the start of the iteration (a global aggregator)."""
        if not self._agg:
            fail("v.graph.sum() is available in VERTEX and MLIST functions")
        self._tr.aggs.append(x)
        return Expr("agg", len(self._tr.aggs) - 1)

    def __setattr__(self, name, value):
        fail(f"v.graph.{name} is read-only")


class VertexProxy:
    """One vertex: state fields, id, out_degree, graph; writable in VERTEX / MLIST functions."""

    def __init__(self, role, fields, tr=None, writable=False):
        d = self.__dict__
        d["_role"], d["_fields"], d["_tr"], d["_writable"] = role, fields, tr, writable
        d["_written"] = {}

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        if name in self._written:
            return self._written[name]
        if name in self._fields or name in ("id", "out_degree"):
            return leaf(self._role, name)
        if name == "graph":
            return _Graph(self._tr, self._writable)
        if name == "received" and self._writable:
            return leaf("received")
        if name in ("set_active", "vote_halt") and self._writable:
            return getattr(self, "_" + name)
        fail(f"vertex has no field {name!r} (state fields: {', '.join(self._fields) or 'none'}; "
             "also id, out_degree, graph" + (", received, set_active, vote_halt" if self._writable else "") + ")")

    def __setattr__(self, name, value):
        if not self._writable:
            fail(f"cannot set {name!r} here: vertex state is written in VERTEX and MLIST functions")
        if name not in self._fields:
            fail(f"cannot set {name!r}: not a state field (declare it in vertex_state=; fields: "
                 f"{', '.join(self._fields) or 'none'})")
        if not isinstance(value, (Expr, int, float, bool)) and not hasattr(value, "dtype"):
            fail(f"v.{name} = {type(value).__name__}: a vertex field holds one number")
        self._written[name] = value
        self._tr.writes[name] = value

    def _set_active(self, cond=True):
        tr = self._tr
        tr.active = cond if tr.active is None else (tr.active | cond)

    def _vote_halt(self, cond=True):
        tr = self._tr
        tr.halt = cond if tr.halt is None else (tr.halt & cond)

    def __bool__(self):
        fail("a vertex used as a truth value: test one of its fields")

    def __iter__(self):
        fail("a loop over a vertex: read its fields (v.<field>)")


class _Sender:
    def _send(self, value, where=None):
        tr = self._tr
        if tr.send is not None:
            fail("send() called twice: the message buffer holds one message per edge; "
                 "pick the value with emv.where(cond, a, b)")
        if not isinstance(value, (Expr, int, float, bool)):
            fail(f"send({type(value).__name__}): a message is one number")
        tr.send = (value, where)


class EdgeListProxy(_Sender):
    """The out-edge list of a vertex (ELIST)."""

    def __init__(self, fields, tr):
        self._tr = tr
        self.tail = VertexProxy("tail", fields)
        self.weight = leaf("edge", "weight")

    def send(self, value, where=None):
        """Send ``value`` along every edge of the list (where ``where`` holds)."""
        self._send(value, where)

    def __iter__(self):
        fail("a loop over the edge list: edges.send(value) already sends along every edge; "
             "per-edge values use edges.weight and edges.tail.<field>")

    def __len__(self):
        fail("len(edges): use v.out_degree")

    def __bool__(self):
        fail("the edge list used as a truth value: test v.out_degree > 0")


class EdgeProxy(_Sender):
    """One edge head -> tail (EDGE)."""

    def __init__(self, fields, tr):
        self._tr = tr
        self.head = VertexProxy("head", fields)
        self.tail = VertexProxy("tail", fields)
        self.weight = leaf("edge", "weight")

    def send(self, value, where=None):
        """Send ``value`` along this edge to its tail (where ``where`` holds)."""
        self._send(value, where)

    def __bool__(self):
        fail("an edge used as a truth value")


class MessageProxy:
    """One message (MESSAGE): its value, the edge it travels, drop()."""

    def __init__(self, fields, tr):
        d = self.__dict__
        d["_tr"] = tr
        d["head"] = VertexProxy("head", fields)
        d["tail"] = VertexProxy("tail", fields)
        d["weight"] = leaf("edge", "weight")

    @property
    def value(self):
        return self._tr.mvalue if self._tr.mvalue is not None else leaf("mval")

    def __getattr__(self, name):
        fail(f"a message has no attribute {name!r} (value, head, tail, weight, drop)")

    def __setattr__(self, name, value):
        if name != "value":
            fail(f"cannot set m.{name}: only m.value is writable")
        self._tr.mvalue = value

    def drop(self, where=True):
        """Drop the message (where ``where`` holds): the vertex does not receive it."""
        tr = self._tr
        tr.drop = where if tr.drop is None else (tr.drop | where)

    def __bool__(self):
        fail("a message used as a truth value: test m.value")


class MessageListProxy:
    """The messages sent to one vertex (MLIST): segmented reductions over them."""

    def __init__(self, fields):
        self.value = leaf("mval")
        self.head = VertexProxy("head", fields)
        self.weight = leaf("edge", "weight")

    def _reduce(self, op, x):
        x = self.value if x is None else x
        return Expr("mreduce", op, x)

    def sum(self, x=None):
        return self._reduce("sum", x)

    def min(self, x=None):
        return self._reduce("min", x)

    def max(self, x=None):
        return self._reduce("max", x)

    def count(self):
        return self._reduce("count", 1)

    def __iter__(self):
        fail("a loop over the message list: use msgs.sum(), msgs.min(), msgs.max(), msgs.count() "
             "(segmented reductions), or a MESSAGE function for per-message work")

    def __len__(self):
        fail("len(msgs): use msgs.count()")

    def __bool__(self):
        fail("the message list used as a truth value: test msgs.count() > 0")


def trace(step, fields):
    """Call ``step`` once with proxies; the :class:`Traced` record of what it does."""
    if not isinstance(step, Step):
        raise EMVError(f"steps: {step!r} is not an EMV function; decorate it with @dgraph.emv.vertex, "
                       "edge_list, edge, message or message_list")
    tr = Traced(step.kind, step.name, step.where)
    k = step.kind
    if k == "ELIST":
        args = (VertexProxy("head", fields, tr), EdgeListProxy(fields, tr))
    elif k == "EDGE":
        args = (EdgeProxy(fields, tr),)
    elif k == "MESSAGE":
        args = (MessageProxy(fields, tr),)
    elif k == "MLIST":
        args = (VertexProxy("v", fields, tr, writable=True), MessageListProxy(fields))
    else:
        args = (VertexProxy("v", fields, tr, writable=True),)
        if step.arity == 2:
            args += (leaf("msg"),)
            tr.reads_msg = True
    _Tracing.current = (k, step.name)
    try:
        out = step.fn(*args)
    except EMVError:
        raise
    except Exception as exc:  # an operation the proxies do not support
        import traceback  # noqa: PLC0415

        where = step.where
        for frame in traceback.extract_tb(exc.__traceback__):
            if frame.filename == step.fn.__code__.co_filename:
                where = f"{frame.filename}:{frame.lineno}"
        raise EMVError(f"{where}: {k} function {step.name}() could not be traced: "
                       f"{type(exc).__name__}: {exc} (user functions see one vertex, edge or message as "
                       "proxies: arithmetic, comparisons, numpy ufuncs and emv.where are traced)") from exc
    finally:
        _Tracing.current = None
    if out is not None:
        raise EMVError(f"{step.where}: {k} function {step.name}() returned a value; write results with "
                       "v.<field> = ..., send with edges.send(...)")
    if k in SENDS and tr.send is None:
        raise EMVError(f"{step.where}: {k} function {step.name}() never calls send()")
    return tr
