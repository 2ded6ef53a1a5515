"""Frontier: the set of active vertices, as sparse ids or a dense bitmap.

Gunrock's operators consume and produce frontiers.  A sparse frontier (a
sorted array of vertex ids) is cheap when few vertices are active; a dense
one (a boolean mask over all vertices) is what pull traversal reads and what
is cheapest to exchange when many are.  Either form converts to the other
on demand and the conversion is cached.
"""

from __future__ import annotations

import numpy as np

from ..backend import array_module, backend_name
from ..errors import InputError


class Frontier:
    __slots__ = ("n", "_ids", "_mask", "_size")

    def __init__(self, n, ids=None, mask=None):
        if (ids is None) == (mask is None):
            raise InputError("Frontier needs exactly one of ids= or mask=")
        self.n = int(n)
        self._ids = ids
        self._mask = mask
        self._size = None

    @classmethod
    def from_ids(cls, ids, n, xp=None, dtype=np.int64):
        """A sparse frontier; ids are sorted and made unique."""
        xp = xp or array_module(ids)
        ids = xp.unique(xp.asarray(ids, dtype=dtype))
        if len(ids) and (int(ids[0]) < 0 or int(ids[-1]) >= n):
            raise InputError(f"frontier ids must lie in 0..{n - 1}")
        return cls(n, ids=ids)

    @classmethod
    def with_mask(cls, n, ids, mask):
        """A frontier known both ways (sorted ids and their mask), so neither is rebuilt."""
        f = cls(n, ids=ids)
        f._mask = mask
        return f

    @classmethod
    def from_mask(cls, mask):
        return cls(len(mask), mask=mask)

    @classmethod
    def empty(cls, n, xp=np, dtype=np.int64):
        return cls(n, ids=xp.empty(0, dtype=dtype))

    @classmethod
    def all(cls, n, xp=np):
        return cls(n, mask=xp.ones(n, dtype=bool))

    @property
    def xp(self):
        return array_module(self._ids if self._ids is not None else self._mask)

    @property
    def is_dense(self) -> bool:
        return self._ids is None

    @property
    def ids(self):
        """Sorted vertex ids (converted from the bitmap on first use)."""
        if self._ids is None:
            self._ids = self.xp.flatnonzero(self._mask)
        return self._ids

    @property
    def mask(self):
        """Boolean mask over all n vertices (converted from the ids on first use)."""
        if self._mask is None:
            xp = self.xp
            m = xp.zeros(self.n, dtype=bool)
            m[self._ids] = True
            self._mask = m
        return self._mask

    def to_dense(self) -> "Frontier":
        return Frontier(self.n, mask=self.mask)

    def to_sparse(self) -> "Frontier":
        return Frontier(self.n, ids=self.ids)

    def bits(self):
        """The bitmap packed 8 vertices a byte (what goes over the wire)."""
        return self.xp.packbits(self.mask)

    @classmethod
    def from_bits(cls, bits, n):
        xp = array_module(bits)
        return cls(n, mask=xp.unpackbits(bits)[:n].astype(bool))

    @property
    def size(self) -> int:
        if self._size is None:
            self._size = len(self._ids) if self._ids is not None else int(self.xp.count_nonzero(self._mask))
        return self._size

    def __len__(self):
        return self.size

    def __repr__(self):
        form = "dense" if self.is_dense else "sparse"
        return f"<Frontier {form} {self.size:,}/{self.n:,} vertices, {backend_name(self.xp)}>"
