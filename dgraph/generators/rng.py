"""Counter-based random numbers that are bit-identical on numpy and CuPy.

Why not ``numpy.random`` / ``cupy.random``: their streams differ, so the same
seed would give a different graph on the CPU and on the GPU, and a stateful
generator cannot be split over chunks or workers.  Here every random value is a
pure function of ``(seed, stream, counter)``:

    x = mix64(key(seed, stream) + counter * GOLDEN)        (mod 2**64)

``mix64`` is the splitmix64 / murmur3 ``fmix64``-style finalizer (xor-shifts and
multiplications by odd constants).  It uses only uint64 ``+ * ^ >>`` on arrays,
which wrap modulo 2**64 identically in numpy and CuPy, so the bits agree
exactly; any chunk or slice of counters can be produced anywhere (the host, one
GPU, one Dask worker) and gives the same values.

``mix64`` is a bijection of uint64 and ``counter -> key + counter * GOLDEN`` is
one too (GOLDEN is odd), so distinct counters give distinct outputs: the
random permutation (:func:`permutation`) argsorts keys that never tie, so its
result does not depend on sort stability.

Streams: each use of randomness (R-MAT quadrants, vertex permutation, weights,
uniform endpoints) has its own stream number, so changing one (e.g. asking for
weights) never changes another (the graph's structure).
"""

from __future__ import annotations

import numpy as np

MASK64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15  # 2**64 / golden ratio, odd
_M1 = 0xBF58476D1CE4E5B9
_M2 = 0x94D049BB133111EB

# stream numbers: one per use of randomness
STREAM_RMAT = 1
STREAM_PERMUTE = 2
STREAM_WEIGHTS = 3
STREAM_SRC = 4
STREAM_DST = 5
STREAM_WALKS = 6  # dgraph.random_walks: its steps' choices

_U = np.uint64
_M1_U, _M2_U = _U(_M1), _U(_M2)
_S30, _S27, _S31, _S11 = _U(30), _U(27), _U(31), _U(11)
S32 = _U(32)
MASK32 = _U(0xFFFFFFFF)


def u64(v: int):
    """A Python int as a numpy uint64 scalar, reduced modulo 2**64 (safe for CuPy ops too)."""
    return _U(int(v) & MASK64)


def mix64_int(x: int) -> int:
    """The finalizer on one Python int (exact, for host-side keys and for tests)."""
    x &= MASK64
    x ^= x >> 30
    x = (x * _M1) & MASK64
    x ^= x >> 27
    x = (x * _M2) & MASK64
    x ^= x >> 31
    return x


def stream_key(seed: int, stream: int) -> int:
    """The 64-bit key of one random stream of one seed (a Python int)."""
    return mix64_int(mix64_int(int(seed) & MASK64) ^ mix64_int((int(stream) * GOLDEN) & MASK64))


def mix64(xp, x, tmp=None):
    """Apply the finalizer to a uint64 array in place (``tmp``: optional same-size scratch)."""
    if tmp is None:
        tmp = xp.empty_like(x)
    xp.right_shift(x, _S30, out=tmp)
    x ^= tmp
    x *= _M1_U
    xp.right_shift(x, _S27, out=tmp)
    x ^= tmp
    x *= _M2_U
    xp.right_shift(x, _S31, out=tmp)
    x ^= tmp
    return x


def counters(xp, start: int, stop: int, *, key: int = 0, stride: int = 1):
    """``key + (start..stop-1) * stride * GOLDEN`` as uint64: the pre-mix states of a counter range."""
    x = xp.arange(int(start), int(stop), dtype=np.uint64)
    x *= u64(stride * GOLDEN)
    x += u64(key)
    return x


def random_bits(xp, seed: int, stream: int, start: int, stop: int):
    """uint64 random words for counters ``start..stop-1`` of one stream."""
    x = counters(xp, start, stop, key=stream_key(seed, stream))
    return mix64(xp, x)


def bits_to_unit(xp, x):
    """uint64 words -> float64 uniforms in [0, 1): ``(x >> 11) * 2**-53`` (exact, same everywhere)."""
    return (x >> _S11).astype(np.float64) * (2.0 ** -53)


def random_unit(xp, seed: int, stream: int, start: int, stop: int):
    """float64 uniforms in [0, 1) for counters ``start..stop-1``."""
    return bits_to_unit(xp, random_bits(xp, seed, stream, start, stop))


def bits_below(xp, x, bound: int):
    """uint64 words -> int64 in [0, bound) by ``x % bound`` (bias below bound / 2**64)."""
    return (x % u64(bound)).astype(np.int64)


def permutation(xp, seed: int, stream: int, n: int, dtype=np.int64):
    """A random permutation of ``0..n-1``: argsort of a bijective hash of the index (no ties)."""
    keys = random_bits(xp, seed, stream, 0, n)
    return xp.argsort(keys).astype(dtype, copy=False)
