"""The random choices of a walk and the vectorized pieces of a step (numpy or CuPy): the reference.

Every random number a walk uses is a pure function of ``(seed, walk, step, j)`` through the
counter-based hash of :mod:`dgraph.generators.rng` (stream ``STREAM_WALKS``)::

    walk key  K_w    = mix64(key(seed) + w * GOLDEN)
    step key  K_ws   = mix64(K_w + s * GOLDEN)
    draw      D_wsj  = mix64(K_ws + j * GOLDEN)                (all mod 2**64)

so a choice never depends on which shard makes it, on the backend, on the other walks or on the
walk's length.  ``w`` is the walk's number, ``first_walk + i`` for ``starts[i]`` (``first_walk`` 0
unless a call says otherwise), so a call over a piece of the starts makes the whole call's walks.

Attempt ``a`` (0, 1, ...) of step ``s`` uses three draws: ``j = 3a`` picks the arc (``D % degree``,
the arc's place in the row sorted by target), ``j = 3a + 1`` is the weight test
(``unit(D) * wmax < w``) and ``j = 3a + 2`` the node2vec test (``unit(D) * alpha_max < alpha``),
where ``unit(D) = (D >> 11) * 2**-53``.  The same float64 operations run in numba (:mod:`.cpu`) and
here, so the paths are the same bits everywhere.
"""

from __future__ import annotations

import numpy as np

from ...generators import rng

GOLDEN = rng.u64(rng.GOLDEN)


def seed_key(seed) -> int:
    """The 64-bit key of a seed's walks (a Python int)."""
    return rng.stream_key(int(seed), rng.STREAM_WALKS)


def walk_keys(xp, key, walks):
    """``K_w`` (uint64) of the walks numbered ``walks``."""
    k = walks.astype(np.uint64)
    k *= GOLDEN
    k += rng.u64(key)
    return rng.mix64(xp, k)


def step_keys(xp, wkeys, steps):
    """``K_ws`` (uint64) of walks at ``steps``, from their walk keys."""
    k = steps.astype(np.uint64)
    k *= GOLDEN
    k += wkeys
    return rng.mix64(xp, k)


def draws(xp, skeys, j):
    """``D_wsj`` (uint64) from step keys; ``j``: an int64 array (or int) of draw numbers."""
    if hasattr(j, "astype"):
        h = j.astype(np.uint64)
        h *= GOLDEN
        h += skeys
    else:  # a Python int: the product taken mod 2**64 here (numpy scalars warn on wrapping)
        h = skeys + rng.u64(int(j) * rng.GOLDEN)
    return rng.mix64(xp, h)


def unit(xp, bits):
    """Draws as float64 in [0, 1), exactly as the numba kernel computes them."""
    return rng.bits_to_unit(xp, bits)


def search_rounds(indptr) -> int:
    """Halvings a binary search needs in the longest row of ``indptr``."""
    if len(indptr) < 2:
        return 0
    longest = int((indptr[1:] - indptr[:-1]).max())
    return longest.bit_length() + 1


def in_rows(xp, indptr, indices, rows, targets, rounds):
    """Whether ``targets[i]`` is among the (sorted) targets of local row ``rows[i]``: a binary search
    per query, all queries at once."""
    lo = indptr[rows]
    hi = indptr[rows + 1]
    end = hi
    last = max(len(indices) - 1, 0)
    if len(indices) == 0:
        return xp.zeros(len(rows), dtype=bool)
    for _ in range(rounds):
        active = lo < hi
        mid = (lo + hi) >> 1
        less = indices[xp.minimum(mid, last)] < targets
        lo = xp.where(active & less, mid + 1, lo)
        hi = xp.where(active & ~less, mid, hi)
    return (lo < end) & (indices[xp.minimum(lo, last)] == targets)


def row_max(xp, indptr, values):
    """Per row, the largest of ``values`` (float64; 0 for a row without arcs)."""
    from ...backend.primitives import row_ids, scatter_max  # noqa: PLC0415

    n = len(indptr) - 1
    out = xp.zeros(n, dtype=np.float64)
    if len(values):
        scatter_max(out, row_ids(indptr), values)
    return out


__all__ = ["seed_key", "walk_keys", "step_keys", "draws", "unit", "search_rounds", "in_rows", "row_max"]
