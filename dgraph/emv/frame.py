"""Vertex state declarations, initial values and combiners: the small typed pieces of a Program."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import EMVError

#: the dtype of a field that holds a vertex id (mapped to the user's ids in the result; -1 = none)
VERTEX = "vertex"


@dataclass
class Field:
    name: str
    dtype: np.dtype
    default: object
    is_vertex: bool = False


def parse_state(vertex_state):
    """``{name: dtype | (dtype, default)}`` -> [Field]; dtype 'vertex' holds vertex ids (default -1)."""
    if not isinstance(vertex_state, dict) or not vertex_state:
        raise EMVError("vertex_state: expected a dict {field: dtype}, e.g. {'rank': 'f8'}")
    fields = []
    reserved = {"id", "out_degree", "graph", "received", "set_active", "vote_halt"}
    for name, spec in vertex_state.items():
        if not isinstance(name, str) or not name.isidentifier() or name.startswith("_") or name in reserved:
            raise EMVError(f"vertex_state: field name {name!r} must be an identifier, not one of "
                           f"{sorted(reserved)}, not starting with '_'")
        default = None
        if isinstance(spec, tuple):
            if len(spec) != 2:
                raise EMVError(f"vertex_state[{name!r}]: expected dtype or (dtype, default)")
            spec, default = spec
        is_vertex = spec == VERTEX
        try:
            dtype = np.dtype(np.int64 if is_vertex else spec)
        except TypeError:
            raise EMVError(f"vertex_state[{name!r}]: {spec!r} is not a numpy dtype (e.g. 'f8', 'i8', bool, "
                           f"'vertex')") from None
        if dtype.kind not in "biuf":
            raise EMVError(f"vertex_state[{name!r}]: dtype {dtype} is not a number or bool")
        if default is None:
            default = -1 if is_vertex else 0
        fields.append(Field(name, dtype, dtype.type(default), is_vertex))
    return fields


def parse_message(message):
    try:
        dtype = np.dtype(message)
    except TypeError:
        raise EMVError(f"message={message!r}: expected a numpy dtype such as 'f8' or 'i8'") from None
    if dtype.kind not in "biuf":
        raise EMVError(f"message={message!r}: a message is one number or bool")
    return dtype


@dataclass
class Combiner:
    """How the messages to one vertex combine: op code 0/1/2 (sum/min/max) or a numpy ufunc."""

    name: str
    op: int | None
    ufunc: object
    identity: object


def parse_combiner(combiner, dtype):
    if isinstance(combiner, str):
        if combiner not in ("sum", "min", "max"):
            raise EMVError(f"combiner={combiner!r}: expected 'sum', 'min', 'max' or a numpy ufunc "
                           "(e.g. np.multiply, or (ufunc, identity))")
        op = {"sum": 0, "min": 1, "max": 2}[combiner]
        ufunc = {"sum": np.add, "min": np.minimum, "max": np.maximum}[combiner]
        if combiner == "sum":
            ident = dtype.type(0)
        elif dtype.kind == "f":
            ident = dtype.type(np.inf if combiner == "min" else -np.inf)
        elif dtype.kind == "b":
            ident = dtype.type(combiner == "min")
        else:
            info = np.iinfo(dtype)
            ident = dtype.type(info.max if combiner == "min" else info.min)
        return Combiner(combiner, op, ufunc, ident)
    identity = None
    if isinstance(combiner, tuple) and len(combiner) == 2:
        combiner, identity = combiner
    if not isinstance(combiner, np.ufunc) or combiner.nin != 2 or combiner.nout != 1:
        raise EMVError(f"combiner={combiner!r}: a custom combiner is a binary numpy ufunc (np.multiply, "
                       "np.bitwise_or, ...), optionally (ufunc, identity)")
    identity = combiner.identity if identity is None else identity
    if identity is None:
        raise EMVError(f"combiner={combiner.__name__}: this ufunc has no identity; give (ufunc, identity)")
    return Combiner(combiner.__name__, None, combiner, dtype.type(identity))


def init_specs(fields, init, ids, n):
    """Per field, what every vertex starts with: ('scalar', v), ('dense', array) or ('sparse', idx, vals)."""
    init = dict(init or {})
    names = {f.name for f in fields}
    for key in init:
        if key not in names:
            raise EMVError(f"init: {key!r} is not a vertex_state field ({', '.join(sorted(names))})")
    specs = {}
    for f in fields:
        val = init.get(f.name, f.default)
        if isinstance(val, dict):
            keys = list(val)
            idx = np.asarray(ids.to_internal(keys, what=f"init[{f.name!r}] vertex"), dtype=np.int64) if keys \
                else np.empty(0, np.int64)
            vals = np.asarray([val[k] for k in keys])
            if f.is_vertex and len(vals):
                vals = np.asarray(ids.to_internal(vals.tolist(), what=f"init[{f.name!r}] value"))
            specs[f.name] = ("sparse", idx, vals.astype(f.dtype) if len(vals) else np.empty(0, f.dtype))
        elif np.ndim(val) == 0:
            try:
                specs[f.name] = ("scalar", f.dtype.type(val))
            except (TypeError, ValueError):
                raise EMVError(f"init[{f.name!r}]={val!r}: expected a number, an array of {n} or "
                               "{vertex: value}") from None
        else:
            arr = np.asarray(val)
            if hasattr(val, "get") and not isinstance(val, np.ndarray):
                arr = np.asarray(val.get())
            if arr.shape != (n,):
                raise EMVError(f"init[{f.name!r}]: expected {n} values (one per vertex), got shape {arr.shape}")
            specs[f.name] = ("dense", arr.astype(f.dtype))
    return specs


def build_field(xp, spec, field, L, n):
    """A field's local array over the local vertices ``L`` (global ids; None: every vertex, in order,
    which skips a gather over all of them)."""
    kind = spec[0]
    m = n if L is None else len(L)
    if kind == "scalar":
        return xp.full(m, spec[1], dtype=field.dtype)
    if kind == "dense":
        arr = xp.asarray(spec[1])
        return (arr if L is None else arr[L]).astype(field.dtype, copy=True)
    arr = xp.full(n, field.default, dtype=field.dtype)
    if len(spec[1]):
        arr[xp.asarray(spec[1])] = xp.asarray(spec[2])
    return arr if L is None else arr[L]
