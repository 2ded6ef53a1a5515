"""PartitionPlan: which partition owns which vertex.

A plan is made by :func:`dgraph.partition.partition_plan` (or from an owner
array with :meth:`PartitionPlan.from_owner`) and says, for every vertex of a
graph (internal ids ``0..n-1``), the partition that owns it.  It holds no
edges: :class:`~dgraph.partition.partitioned.PartitionedGraph` uses it to cut
the graph into shards, and the executors use it to route frontier vertices to
their owners.

Two layouts:

- *contiguous* (``method == "range"``): partition ``q`` owns the vertex range
  ``[bounds[q], bounds[q+1])``.  Only ``bounds`` (p+1 int64) is stored; the
  owner array is built on first use.  Lookups are a ``searchsorted``.
- *scattered* (hash, metis, custom): an ``owner`` array (int32, one entry per
  vertex).  Lookups index it; the local position of a vertex inside its
  partition is a second array, built on first use.

"Local position" of a vertex is its index in the sorted list of the vertices
its owner holds (:meth:`vertices_of`), so shard arrays can be indexed by it.

Every partition of a plan owns at least one vertex (the one exception: a
graph with no vertices has one, empty, partition).
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

import numpy as np

from ..backend import array_module, backend_name, is_device_array, to_numpy, vertex_dtype
from ..errors import DGraphError, FileFormatError, InputError, MissingFileError, OutputExistsError

FORMAT = "dgraph.PartitionPlan"
FORMAT_VERSION = 1
_KEYS = ("format", "format_version", "method", "num_parts", "num_vertices", "seed", "owner", "bounds")


def check_num_parts(num_parts, name="num_parts") -> int:
    """``num_parts`` as a Python int, or an InputError if it is not a positive integer."""
    if isinstance(num_parts, (bool, np.bool_)) or not isinstance(num_parts, (int, np.integer)):
        raise InputError(f"{name}={num_parts!r}: expected a positive integer (the number of partitions)")
    if num_parts < 1:
        raise InputError(f"{name}={num_parts}: expected a positive integer (the number of partitions)")
    return int(num_parts)


class PartitionPlan:
    """The owner partition of every vertex of a graph.

    Attributes
    ----------
    num_parts : number of partitions ``p``.
    num_vertices : number of vertices ``n`` of the graph the plan was made for.
    method : how it was made: ``"range"``, ``"hash"``, ``"metis"`` or ``"custom"``.
    owner : int32 numpy array of length n, the owner partition of every vertex (read-only).
    bounds : for contiguous plans, int64 numpy array of length p+1: partition q
        owns ``[bounds[q], bounds[q+1])``; None otherwise.
    seed : the seed the partitioner used (None when it has none).
    """

    def __init__(self, num_parts, num_vertices, method="custom", *, owner=None, bounds=None, seed=None):
        self.num_parts = check_num_parts(num_parts)
        if isinstance(num_vertices, (bool, np.bool_)) or not isinstance(num_vertices, (int, np.integer)) \
                or num_vertices < 0:
            raise InputError(f"num_vertices={num_vertices!r}: expected a non-negative integer")
        self.num_vertices = int(num_vertices)
        self.method = str(method)
        self.seed = None if seed is None else int(seed)
        if (owner is None) == (bounds is None):
            raise InputError("PartitionPlan: give exactly one of owner= (scattered) or bounds= (contiguous)")
        self._owner = None
        self.bounds = None
        if bounds is not None:
            self.bounds = _readonly(self._check_bounds(bounds))
        else:
            self._owner = _readonly(self._check_owner(owner))
        self._order = None     # vertex ids sorted by (owner, id)
        self._offsets = None   # p+1: part q is _order[_offsets[q]:_offsets[q+1]]
        self._local = None     # local position of every vertex in its part
        self._dev = {}         # (name, backend) -> device copy

    # -- constructors --------------------------------------------------------------------------
    @classmethod
    def from_bounds(cls, bounds, method="range", *, seed=None) -> "PartitionPlan":
        """A contiguous plan: partition q owns the vertices ``[bounds[q], bounds[q+1])``."""
        b = to_numpy(bounds)
        if b.ndim != 1 or len(b) < 2:
            raise InputError(f"bounds: expected a 1-D array of at least 2 offsets, got shape {b.shape}")
        return cls(len(b) - 1, int(b[-1]), method, bounds=b, seed=seed)

    @classmethod
    def from_owner(cls, owner, num_parts=None, method="custom", *, seed=None) -> "PartitionPlan":
        """A plan from an owner array (one partition number per vertex).

        ``num_parts`` defaults to ``max(owner) + 1``.  Every partition must own
        at least one vertex.
        """
        o = to_numpy(owner)
        if o.ndim != 1:
            raise InputError(f"owner: expected a 1-D array (one partition per vertex), got shape {o.shape}")
        if num_parts is None:
            num_parts = int(o.max()) + 1 if len(o) else 1
        return cls(num_parts, len(o), method, owner=o, seed=seed)

    # -- validation ------------------------------------------------------------------------------
    def _check_owner(self, owner) -> np.ndarray:
        o = to_numpy(owner)
        n, p = self.num_vertices, self.num_parts
        if o.size == 0 and o.dtype.kind == "f":  # an empty list
            o = o.astype(np.int32)
        if o.ndim != 1 or len(o) != n:
            raise InputError(f"owner: expected {n:,} entries (one per vertex), got shape {o.shape}")
        if o.dtype.kind not in "iu":
            raise InputError(f"owner: expected integer partition numbers, got dtype {o.dtype}")
        if n:
            lo, hi = int(o.min()), int(o.max())
            if lo < 0 or hi >= p:
                bad = lo if lo < 0 else hi
                v = int(np.argmax(o == bad))
                raise InputError(f"owner: vertex {v} is assigned to partition {bad}, but the plan has "
                                 f"{p} partitions (0..{p - 1})")
        o = o.astype(np.int32, copy=True)
        sizes = np.bincount(o, minlength=p)
        self._check_nonempty(sizes)
        return o

    def _check_bounds(self, bounds) -> np.ndarray:
        b = to_numpy(bounds)
        n, p = self.num_vertices, self.num_parts
        if b.ndim != 1 or len(b) != p + 1:
            raise InputError(f"bounds: expected {p + 1} offsets (num_parts + 1), got shape {b.shape}")
        if b.dtype.kind not in "iu":
            raise InputError(f"bounds: expected integer vertex offsets, got dtype {b.dtype}")
        b = b.astype(np.int64, copy=True)
        if b[0] != 0 or b[-1] != n:
            raise InputError(f"bounds: must start at 0 and end at the vertex count {n:,}; "
                             f"got {int(b[0])} .. {int(b[-1])}")
        if np.any(np.diff(b) < 0):
            raise InputError("bounds: offsets must be non-decreasing")
        self._check_nonempty(np.diff(b))
        return b

    def _check_nonempty(self, sizes):
        if self.num_vertices == 0:
            return
        empty = np.flatnonzero(sizes == 0)
        if len(empty):
            raise InputError(f"partition {int(empty[0])} owns no vertex ({len(empty)} of {self.num_parts} "
                             "partitions are empty); every partition must own at least one vertex")

    def check(self, G) -> "PartitionPlan":
        """Raise a DGraphError unless this plan fits graph ``G`` (vertex count, partition numbers).

        Returns the plan, so ``plan.check(G).owner`` reads well.
        """
        n = G.num_vertices
        if n != self.num_vertices:
            raise InputError(f"partition plan ({self.method}, {self.num_parts} parts) was made for a graph "
                             f"with {self.num_vertices:,} vertices, but this graph has {n:,} vertices; "
                             "make a new plan with dgraph.partition.partition_plan(G, num_parts)")
        if self.bounds is not None:
            self._check_bounds(self.bounds)
        else:
            self._check_owner(self._owner)
        return self

    # -- basic properties --------------------------------------------------------------------------
    @property
    def contiguous(self) -> bool:
        """True when every partition owns one consecutive vertex range (``bounds`` is set)."""
        return self.bounds is not None

    @property
    def owner(self) -> np.ndarray:
        if self._owner is None:
            self._owner = _readonly(np.repeat(np.arange(self.num_parts, dtype=np.int32), np.diff(self.bounds)))
        return self._owner

    @property
    def vertex_dtype(self):
        return vertex_dtype(self.num_vertices)

    def sizes(self) -> np.ndarray:
        """Vertices per partition (int64, length p)."""
        if self.bounds is not None:
            return np.diff(self.bounds)
        return np.diff(self._index()[1])

    # -- lookups ---------------------------------------------------------------------------------
    def _index(self):
        """(order, offsets, local) for scattered plans; built once."""
        if self._order is None:
            o = self.owner
            order = np.argsort(o, kind="stable").astype(self.vertex_dtype, copy=False)
            offsets = np.zeros(self.num_parts + 1, dtype=np.int64)
            np.cumsum(np.bincount(o, minlength=self.num_parts), out=offsets[1:])
            local = np.empty(self.num_vertices, dtype=self.vertex_dtype)
            local[order] = np.arange(self.num_vertices, dtype=self.vertex_dtype) - \
                offsets[:-1][o[order]].astype(self.vertex_dtype)
            self._order, self._offsets, self._local = _readonly(order), _readonly(offsets), _readonly(local)
        return self._order, self._offsets, self._local

    def _on(self, name, xp):
        """A lookup array (bounds, owner, local, order, offsets) on the backend of ``xp``."""
        arr = {"bounds": lambda: self.bounds, "owner": lambda: self.owner,
               "local": lambda: self._index()[2], "order": lambda: self._index()[0],
               "offsets": lambda: self._index()[1]}[name]()
        if xp is np:
            return arr
        key = (name, backend_name(xp))
        if key not in self._dev:
            self._dev[key] = xp.asarray(arr)
        return self._dev[key]

    def _vertices(self, vertices, check, what="vertices"):
        """(xp, array, scalar?) with the ids checked to lie in 0..n-1."""
        scalar = isinstance(vertices, (int, np.integer)) and not isinstance(vertices, (bool, np.bool_))
        xp = array_module(vertices) if is_device_array(vertices) else np
        v = xp.asarray(vertices)
        if v.dtype.kind not in "iu":
            if v.size == 0:
                v = v.astype(np.int64)
            else:
                raise InputError(f"{what}: expected integer vertex ids, got dtype {v.dtype}")
        if check and v.size:
            lo, hi = int(v.min()), int(v.max())
            if lo < 0 or hi >= self.num_vertices:
                bad = lo if lo < 0 else hi
                raise InputError(f"{what}: vertex {bad} is out of range; the plan covers vertices "
                                 f"0..{self.num_vertices - 1} (internal ids)")
        return xp, v, scalar

    def owner_of(self, vertices, *, check=True):
        """The owner partition (int32) of each vertex; numpy in -> numpy out, cupy in -> cupy out.

        A plain int gives an int.  ``check=False`` skips the range check of the
        ids (it costs a device synchronisation on CuPy).
        """
        xp, v, scalar = self._vertices(vertices, check)
        if self.bounds is not None:
            out = (xp.searchsorted(self._on("bounds", xp), v, side="right") - 1).astype(np.int32)
        else:
            out = self._on("owner", xp)[v]
        return int(out) if scalar else out

    def to_local(self, vertices, *, check=True):
        """``(owner, local)`` of each vertex: its partition and its position in ``vertices_of(owner)``.

        Vectorized; the arrays are on the backend of ``vertices``.  A plain int
        gives a pair of ints.
        """
        xp, v, scalar = self._vertices(vertices, check)
        if self.bounds is not None:
            bounds = self._on("bounds", xp)
            o = xp.searchsorted(bounds, v, side="right") - 1
            local = (v - bounds[o]).astype(self.vertex_dtype)
            o = o.astype(np.int32)
        else:
            o = self._on("owner", xp)[v]
            local = self._on("local", xp)[v]
        return (int(o), int(local)) if scalar else (o, local)

    def to_global(self, parts, local):
        """The inverse of :meth:`to_local`: global ids from (partition, local position) pairs."""
        xp = array_module(parts, local) if (is_device_array(parts) or is_device_array(local)) else np
        q, loc = xp.asarray(parts).astype(np.int64), xp.asarray(local).astype(np.int64)
        scalar = q.ndim == 0 and loc.ndim == 0
        offsets = self._on("bounds", xp) if self.bounds is not None else self._on("offsets", xp)
        if q.size and (int(q.min()) < 0 or int(q.max()) >= self.num_parts):
            raise InputError(f"parts: partition numbers must lie in 0..{self.num_parts - 1}")
        start, size = offsets[q], offsets[q + 1] - offsets[q]
        if loc.size and bool(((loc < 0) | (loc >= size)).any()):
            raise InputError("local: a local position is past the end of its partition")
        g = start + loc
        out = g.astype(self.vertex_dtype) if self.bounds is not None else self._on("order", xp)[g]
        return int(out) if scalar else out

    def vertices_of(self, q) -> np.ndarray:
        """The global ids owned by partition ``q``, sorted (numpy)."""
        q = self._part(q)
        if self.bounds is not None:
            return np.arange(self.bounds[q], self.bounds[q + 1], dtype=self.vertex_dtype)
        order, offsets, _ = self._index()
        return order[offsets[q]:offsets[q + 1]]

    def _part(self, q) -> int:
        if isinstance(q, (bool, np.bool_)) or not isinstance(q, (int, np.integer)) or not 0 <= q < self.num_parts:
            raise InputError(f"partition {q!r}: expected an integer in 0..{self.num_parts - 1}")
        return int(q)

    # -- statistics for a graph -----------------------------------------------------------------
    def edge_counts(self, G) -> np.ndarray:
        """Out-arcs (CSR entries) of the vertices each partition owns (int64, length p)."""
        self.check(G)
        indptr = to_numpy(G.indptr)
        if self.bounds is not None:
            return indptr[self.bounds[1:]] - indptr[self.bounds[:-1]]
        order, offsets, _ = self._index()
        deg = np.diff(indptr)[order]
        csum = np.zeros(self.num_vertices + 1, dtype=np.int64)
        np.cumsum(deg, out=csum[1:])
        return csum[offsets[1:]] - csum[offsets[:-1]]

    def cut_arcs(self, G) -> int:
        """Arcs (CSR entries) whose two endpoints have different owners.

        An undirected edge that is cut counts twice (both directions are stored).
        """
        self.check(G)
        src, dst, _ = G.coo()
        o = self.owner
        return int(np.count_nonzero(o[to_numpy(src)] != o[to_numpy(dst)]))

    def balance(self, G) -> dict:
        """Load balance on graph ``G``: max/mean of the vertices and of the out-arcs per partition.

        ``vertices`` and ``edges`` are the imbalance ratios (1.0 is perfect);
        the ``max_*`` and ``mean_*`` entries give the counts behind them.
        """
        sizes, edges = self.sizes(), self.edge_counts(G)
        p = self.num_parts

        def ratio(mx, mean):
            return float(mx / mean) if mean > 0 else 1.0

        mv, me = self.num_vertices / p, int(edges.sum()) / p
        return {
            "num_parts": p,
            "vertices": ratio(int(sizes.max()), mv),
            "edges": ratio(int(edges.max()), me),
            "max_vertices": int(sizes.max()),
            "min_vertices": int(sizes.min()),
            "mean_vertices": mv,
            "max_edges": int(edges.max()),
            "min_edges": int(edges.min()),
            "mean_edges": me,
        }

    # -- files -------------------------------------------------------------------------------------
    def save(self, path, *, overwrite=False) -> Path:
        """Write the plan to an ``.npz`` file (written whole or not at all); returns the path.

        An existing file is kept unless ``overwrite=True``.  Contiguous plans
        store only their bounds.
        """
        path = Path(path)
        if path.is_dir():
            raise OutputExistsError(f"{path}: is a folder; give a file name to save the partition plan to")
        if path.exists() and not overwrite:
            raise OutputExistsError(f"{path}: already exists; pass overwrite=True to replace it")
        arrays = dict(
            format=np.array(FORMAT), format_version=np.array(FORMAT_VERSION, dtype=np.int64),
            method=np.array(self.method), num_parts=np.array(self.num_parts, dtype=np.int64),
            num_vertices=np.array(self.num_vertices, dtype=np.int64),
            seed=np.array(-1 if self.seed is None else self.seed, dtype=np.int64),
            has_seed=np.array(self.seed is not None),
            owner=np.zeros(0, np.int32) if self.bounds is not None else self._owner,
            bounds=self.bounds if self.bounds is not None else np.zeros(0, np.int64),
        )
        tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
        try:
            with open(tmp, "xb") as f:
                np.savez(f, **arrays)
            if overwrite:
                os.replace(tmp, path)
            else:
                try:
                    os.link(tmp, path)  # fails if the file appeared meanwhile: never replace it
                except FileExistsError:
                    raise OutputExistsError(f"{path}: already exists; pass overwrite=True to replace it") from None
                except OSError:  # no hard links on this file system
                    if path.exists():
                        raise OutputExistsError(f"{path}: already exists; pass overwrite=True to replace it") \
                            from None
                    os.replace(tmp, path)
        finally:
            if tmp.exists():
                tmp.unlink()
        return path

    @classmethod
    def load(cls, path) -> "PartitionPlan":
        """Read a plan written by :meth:`save`.  Call ``plan.check(G)`` before using it with a graph."""
        path = Path(path)
        if not path.is_file():
            raise MissingFileError(f"{path}: no such partition plan file")
        try:
            with np.load(path, allow_pickle=False) as z:
                data = {k: z[k] for k in z.files}
        except Exception as exc:  # not a zip / npz
            raise FileFormatError(path, None, f"not a partition plan .npz file ({exc})") from None
        missing = [k for k in _KEYS if k not in data]
        if missing or str(data.get("format", "")) != FORMAT:
            what = f"missing key {missing[0]!r}" if missing else f"format is {str(data['format'])!r}"
            raise FileFormatError(path, None, f"not a dgraph partition plan ({what}); "
                                              "write plans with PartitionPlan.save")
        version = int(data["format_version"])
        if version > FORMAT_VERSION:
            raise FileFormatError(path, None, f"partition plan format version {version} was written by a newer "
                                              f"dgraph; this one reads version {FORMAT_VERSION}; upgrade dgraph")
        has_seed = bool(data["has_seed"]) if "has_seed" in data else int(data["seed"]) >= 0
        kw = dict(seed=int(data["seed"]) if has_seed else None)
        if len(data["bounds"]):
            kw["bounds"] = data["bounds"]
        else:
            kw["owner"] = data["owner"]
        try:
            return cls(int(data["num_parts"]), int(data["num_vertices"]), str(data["method"]), **kw)
        except DGraphError as exc:
            raise FileFormatError(path, None, f"inconsistent partition plan: {exc}") from None

    # -- display -------------------------------------------------------------------------------------
    def __repr__(self):
        s = self.sizes()
        span = f"{int(s.min()):,}..{int(s.max()):,}" if len(s) else "0"
        layout = "contiguous" if self.contiguous else "scattered"
        seed = f", seed={self.seed}" if self.seed is not None else ""
        return (f"<dgraph.PartitionPlan {self.method!r}: {self.num_vertices:,} vertices in "
                f"{self.num_parts} part{'s' if self.num_parts != 1 else ''} of {span} vertices, {layout}{seed}>")

    def __eq__(self, other):
        if not isinstance(other, PartitionPlan):
            return NotImplemented
        return (self.num_parts == other.num_parts and self.num_vertices == other.num_vertices
                and np.array_equal(self.owner, other.owner))

    __hash__ = None


def _readonly(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a
