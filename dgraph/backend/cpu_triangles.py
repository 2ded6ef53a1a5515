"""CPU (numpy backend) kernel for the counting superstep of triangle counting and LCC, compiled with numba.

The sequential twin of :class:`dgraph.algorithms.triangles.TriangleProgram`'s
vectorized count (``kernels="generic"``, which expands every (v, u, w) check
and looks the key ``row(v) * n + w`` up with ``searchsorted``): here each
owned row ``v`` stamps its neighbors into a mark array (``stamp[x] = r``, so
nothing is reset between rows), then every ``w`` of the oriented ghost row
``N+(u)`` of every neighbor ``u`` is a hit exactly when ``stamp[w] == r``.
Same checks, same hits, so the same integer counts, bit for bit.
"""

from __future__ import annotations

import numba  # noqa: F401  (this module is imported only when a numpy-backend fused count runs)

from .cpu_kernels import _jit


@_jit
def count_rows(pindptr, pnbr, gindptr, gnbr, gmult, stamp, tri, two):
    """Count, per owned row ``r``, the edges among its neighbors.

    ``pindptr``/``pnbr``: the owned rows (local row ``r``'s sorted, deduplicated
    neighbors are ``pnbr[pindptr[r]:pindptr[r + 1]]``, global ids).
    ``gindptr``/``gnbr``: the ghost table, a CSR over global ids of the
    oriented rows ``N+(u)``; ``gmult`` (int8, same length as ``gnbr``, or
    empty when there are no multiplicities) is the number of arcs, 1 or 2,
    of each oriented edge.  ``stamp``: int64 scratch of size ``n`` filled
    with -1.  Adds the hits of row ``r`` to ``tri[r]`` and those whose edge
    has arcs both ways to ``two[r]`` (only when ``gmult`` is given).
    Returns the number of checks (``sum over (v, u) of |N+(u)|``).
    """
    has_mult = gmult.shape[0] > 0
    checks = 0
    for r in range(pindptr.shape[0] - 1):
        lo = pindptr[r]
        hi = pindptr[r + 1]
        for e in range(lo, hi):
            stamp[pnbr[e]] = r
        c = 0
        c2 = 0
        for e in range(lo, hi):
            u = pnbr[e]
            a = gindptr[u]
            b = gindptr[u + 1]
            checks += b - a
            if has_mult:
                for f in range(a, b):
                    if stamp[gnbr[f]] == r:
                        c += 1
                        if gmult[f] == 2:
                            c2 += 1
            else:
                for f in range(a, b):
                    if stamp[gnbr[f]] == r:
                        c += 1
        tri[r] += c
        two[r] += c2
    return checks
