"""Seeded edge weights, one per generated edge, identical on numpy and CuPy.

Weight ``e`` is a function of ``(seed, e)`` only (its own stream of
:mod:`.rng`), so asking for weights never changes the structure of a graph and
a chunk of edges can be weighted anywhere.

Choices (documented in :func:`dgraph.generators.generate`):

- ``weights="uniform"`` (default): float64 uniform in ``[w_min, w_max)``,
  default ``[0, 1)`` as in the Graph500 SSSP benchmark (kernel 3).
- ``weights="int"``: int64 uniform in ``[1, max_weight]`` (default 64), e.g.
  for delta-stepping or bucket-based SSSP.

Duplicate edges collapse to their minimum weight in ``from_edges``; an
undirected edge generated in both directions keeps the smaller of its two
weights in both directions.
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError
from . import rng
from .params import check_choice, check_float, check_int

WEIGHT_KINDS = ("uniform", "int")
WEIGHT_PARAMS = ("weights", "w_min", "w_max", "max_weight")


def parse_weights(weighted, params):
    """Pop and check the weight parameters; None when the graph is unweighted."""
    opts = {k: params.pop(k) for k in WEIGHT_PARAMS if k in params}
    if not weighted:
        if opts:
            name = next(iter(opts))
            raise_needs_weighted(name, opts[name])
        return None
    kind = check_choice("weights", opts.get("weights", "uniform"), WEIGHT_KINDS)
    if kind == "uniform":
        if "max_weight" in opts:
            raise InputError("max_weight: only used with weights='int' (weights='uniform' takes w_min, w_max)")
        lo = check_float("w_min", opts.get("w_min", 0.0))
        hi = check_float("w_max", opts.get("w_max", 1.0))
        if not hi > lo:
            raise InputError(f"w_max={hi!r}: expected a number > w_min={lo!r}")
        return {"kind": "uniform", "w_min": lo, "w_max": hi}
    for k in ("w_min", "w_max"):
        if k in opts:
            raise InputError(f"{k}: only used with weights='uniform' (weights='int' takes max_weight)")
    return {"kind": "int", "max_weight": check_int("max_weight", opts.get("max_weight", 64), 1, 2**62)}


def raise_needs_weighted(name, value):
    raise InputError(f"{name}={value!r}: only used with weighted=True")


def edge_weights(xp, seed, m, spec, chunk, start=0):
    """Weights of generated edges ``start..start+m-1`` (float64 or int64), made ``chunk`` edges at a time."""
    if spec["kind"] == "uniform":
        out = xp.empty(m, dtype=np.float64)
        lo, hi = spec["w_min"], spec["w_max"]
        span = hi - lo
        top = np.nextafter(hi, lo)
    else:
        out = xp.empty(m, dtype=np.int64)
        mw = spec["max_weight"]
    for s in range(0, m, chunk):
        t = min(m, s + chunk)
        x = rng.random_bits(xp, seed, rng.STREAM_WEIGHTS, start + s, start + t)
        if spec["kind"] == "uniform":
            w = rng.bits_to_unit(xp, x)
            if (lo, hi) != (0.0, 1.0):
                w *= span  # separate ops (no fused multiply-add), so numpy and CuPy round alike
                w += lo
                xp.minimum(w, top, out=w)
        else:
            w = rng.bits_below(xp, x, mw)
            w += 1
        out[s:t] = w
    return out
