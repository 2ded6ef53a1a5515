"""``dgraph.config``: the settings that change how dgraph runs (never what it answers).

One object holds every option, typed, checked and documented, in the spirit of ``networkx.config``::

    import dgraph
    dgraph.config.bfs_levels = False              # for the rest of the process
    with dgraph.config.override(profile_supersteps=True):
        r = dgraph.bfs(PG, source=0)              # this block only (this thread)
    dgraph.config.snapshot()                      # -> a plain dict of every option

Every option is read when it is used, so setting one after ``import dgraph`` takes effect at the
next call.  A bad name or value raises :class:`~dgraph.errors.InputError` naming the key and what
it expects.

Where the settings come from, last wins:

1. the defaults (:data:`OPTIONS`);
2. the ``DGRAPH_*`` environment variables, read **once**, when dgraph is imported (the names of
   earlier versions, kept for compatibility: :data:`OPTIONS` maps each option to one; a value that
   does not parse is ignored with a warning); :meth:`Config.read_environ` reads them again;
3. assignments (``dgraph.config.x = v``): for the whole process;
4. :meth:`Config.override` blocks: for the code inside the block, in the thread (and asyncio
   task) that entered it; nested blocks stack.  Because they are context-local, two runs that
   share a Dask worker's threads with different settings do not see each other's.

A distributed run takes the client's settings to its workers: the executors ship
``snapshot(changed=True)`` with the run and apply it there (:meth:`Config.applied`) around the
program's calls, so a worker uses the settings of the call that started the run, not its own
environment.  Every :class:`~dgraph.Result` records the options that differ from their defaults
in ``r.params["config"]`` (``{}`` when every option has its default).

Why not ``dask.config``?  Its settings are process-wide (``dask.config.set`` is not local to a
thread, so two runs on one worker's thread pool would share them), untyped and unchecked, reach
the workers only when they start (not with each run), and map ``DASK_*`` variable names; dgraph
also keeps ``import dgraph`` free of Dask.
"""

from __future__ import annotations

import contextvars
import os
import threading
import warnings
from contextlib import contextmanager
from dataclasses import dataclass

from .errors import InputError

_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


@dataclass(frozen=True)
class Option:
    """One setting: its name, default, kind, the environment variable read at import, and what it does.

    ``kind``: ``bool``, ``int`` (at least ``minimum``), ``"path"`` (a folder name or None), or a
    tuple of the strings allowed."""

    name: str
    default: object
    kind: object
    env: str
    doc: str
    minimum: int = 0

    def expected(self) -> str:
        if self.kind is bool:
            return "True or False"
        if self.kind is int:
            return f"an integer >= {self.minimum}"
        if self.kind == "path":
            return "a folder name (str or os.PathLike) or None"
        return "one of " + ", ".join(repr(c) for c in self.kind)

    def check(self, value):
        """``value`` as stored; InputError naming the option when it is not one this option takes."""
        ok = False
        if self.kind is bool:
            ok = isinstance(value, bool) or (type(value).__name__ == "bool_")  # numpy bools too
            value = bool(value) if ok else value
        elif self.kind is int:
            ok = isinstance(value, int) and not isinstance(value, bool) and value >= self.minimum
            value = int(value) if ok else value
        elif self.kind == "path":
            ok = value is None or (isinstance(value, (str, os.PathLike)) and os.fspath(value) != "")
            value = None if value is None else (os.fspath(value) if ok else value)
        else:
            ok = isinstance(value, str) and value in self.kind
        if not ok:
            raise InputError(f"dgraph.config.{self.name}={value!r}: expected {self.expected()}")
        return value

    def parse(self, text: str):
        """The value of environment variable text; InputError naming the variable when it does not parse."""
        s = text.strip()
        if self.kind is bool:
            if s.lower() in _TRUE:
                return True
            if s.lower() in _FALSE:
                return False
            want = "1 or 0 (or true/false, yes/no, on/off)"
        elif self.kind is int:
            try:
                v = int(s)
            except ValueError:
                v = None
            if v is not None and v >= self.minimum:
                return v
            want = f"an integer >= {self.minimum}"
        elif self.kind == "path":
            return s
        else:
            if s in self.kind:
                return s
            want = "one of " + ", ".join(self.kind)
        raise InputError(f"{self.env}={text!r}: expected {want} (dgraph.config.{self.name})")


#: every option, in the order ``dgraph info --system`` lists them
OPTIONS = (
    Option("bfs_levels", True, bool, "DGRAPH_LEVELS",
           "BFS on one whole shard may run many levels in one call: the whole traversal in numba calls "
           "(CPU), push levels in one cooperative launch (GPU) (off: one superstep per level)"),
    Option("bfs_bitmap_exchange", True, bool, "DGRAPH_BFS_BITMAP_EXCHANGE",
           "partitioned BFS on GPUs over NCCL sends each superstep's claimed vertices as a fixed-size "
           "bitmap with its counters on the device: no size round, one host read a superstep (two when a "
           "push follows a push) (off: ids "
           "or a bitmap, whichever is smaller, after the sizes are exchanged)"),
    Option("bfs_peer_levels", True, bool, "DGRAPH_BFS_PEER_LEVELS",
           "partitioned BFS on GPUs over NCCL runs small-frontier push levels on every GPU in one "
           "cooperative launch each, the GPUs meeting in each other's memory (CUDA IPC), not a "
           "superstep a level (off: a superstep a level)"),
    Option("bfs_peer_pull", True, bool, "DGRAPH_BFS_PEER_PULL",
           "the peer levels of bfs_peer_levels pull too (Beamer's rule decides on the GPUs), so a "
           "search runs its levels after the source's in one launch a GPU (off: only push levels)"),
    Option("bfs_peer_frontier_limit", 1 << 26, int, "DGRAPH_BFS_PEER_MF_LIMIT",
           "frontier edges above which a push inside the peer levels goes back to the host-driven "
           "load-balanced kernel (a batch starts with a push only below bfs_levels_frontier_limit)"),
    Option("bfs_peer_blocks_per_sm", 4, int, "DGRAPH_BFS_PEER_BLOCKS_PER_SM",
           "blocks a multiprocessor in the peer-levels launch (the occupancy query caps it; pulls "
           "need the threads)", minimum=1),
    Option("bfs_levels_frontier_limit", 1 << 16, int, "DGRAPH_LEVELS_MF_LIMIT",
           "frontier edges above which a BFS level goes back to the host-driven load-balanced kernel"),
    Option("bfs_levels_degree_limit", 2048, int, "DGRAPH_LEVELS_DEG_LIMIT",
           "a BFS frontier vertex of more edges than this sends the level back to the host-driven kernel"),
    Option("bfs_levels_blocks_per_sm", 1, int, "DGRAPH_LEVELS_BLOCKS_PER_SM",
           "blocks a multiprocessor in the multi-level BFS launch (the occupancy query caps it)", minimum=1),
    Option("sssp_steps", True, bool, "DGRAPH_SSSP_STEPS",
           "GPU SSSP on one whole shard may run many supersteps in one cooperative launch (off: one "
           "host round trip per superstep)"),
    Option("sssp_steps_edge_limit", 1 << 20, int, "DGRAPH_SSSP_STEPS_EDGE_LIMIT",
           "frontier edges above which an SSSP superstep goes back to the host-driven kernels"),
    Option("sssp_steps_blocks_per_sm", 1, int, "DGRAPH_SSSP_BLOCKS_PER_SM",
           "blocks a multiprocessor in the multi-superstep SSSP launch (the occupancy query caps it)",
           minimum=1),
    Option("sssp_skip_stale", True, bool, "DGRAPH_SSSP_SKIP_STALE",
           "GPU SSSP skips frontier vertices improved in the same superstep (same "
           "answers; the per-superstep records then depend on the GPU's order)"),
    Option("sssp_routed", True, bool, "DGRAPH_SSSP_ROUTED",
           "GPU SSSP on range partitions over NCCL keeps each vertex's state on the shard that owns "
           "it, sending each improvement there alone (off: every shard merges every improvement)"),
    Option("tasks_run_ahead", True, bool, "DGRAPH_TASKS_RUN_AHEAD",
           "a 'tasks' run's shard runs its next superstep as soon as every contribution it needs is on "
           "its worker (pushed there), and its task returns that output (off: each superstep waits for "
           "the scheduler to start its task)"),
    Option("tasks_lane", True, bool, "DGRAPH_TASKS_LANE",
           "a 'tasks' run's reports come to the client on the lane (its own connection to each worker, as "
           "spmd_launch 'lane'), and, where its shards run ahead, its superstep 0 begins from there without "
           "waiting for the scheduler (off, or a cluster with no lanes: the reports are Dask events through "
           "the scheduler, and the tasks begin every superstep)"),
    Option("spmd_launch", "lane", ("lane", "direct", "task"), "DGRAPH_SPMD_LAUNCH",
           "how spmd runs start: 'lane' (the client's own connection to a resident thread on each "
           "worker; 'direct' where a cluster has none), 'direct' (Dask's client-to-worker RPC) or "
           "'task' (one Dask task per shard)"),
    Option("profile_supersteps", False, bool, "DGRAPH_PROFILE",
           "spmd superstep records split their time into kernel_s, exchange_s and receive_s (each "
           "phase waits for the GPU, so the total grows a little)"),
    Option("emv_fuse", True, bool, "DGRAPH_EMV_FUSE",
           "EMV programs may run their VERTEX steps as one fused compiled loop (off: the vectorized path)"),
    Option("emv_cache_dir", None, "path", "DGRAPH_EMV_CACHE",
           "folder of the fused EMV loops' generated sources (None: $TMPDIR/dgraph-emv-$UID)"),
)

_BY_NAME = {o.name: o for o in OPTIONS}
#: the override blocks of this thread / asyncio task: {name: value} laid over the process settings
_layer: contextvars.ContextVar = contextvars.ContextVar("dgraph_config_layer", default=None)


def _option(name) -> Option:
    try:
        return _BY_NAME[name]
    except (KeyError, TypeError):
        raise InputError(f"dgraph.config has no option {name!r}; options: {', '.join(_BY_NAME)}") from None


class Config:
    """The settings object behind ``dgraph.config`` (one per process); see the module docstring.

    Read an option as an attribute (``dgraph.config.bfs_levels``); assign one to change it for the
    process.  ``OPTIONS`` lists each with its default, environment variable and meaning.
    """

    #: every option (name, default, kind, environment variable, meaning)
    options = OPTIONS

    def __init__(self, environ=None):
        object.__setattr__(self, "_values", {o.name: o.default for o in OPTIONS})
        object.__setattr__(self, "_lock", threading.Lock())
        self.read_environ(environ, strict=False)

    # -- reading and setting ----------------------------------------------------------------
    def __getattr__(self, name):
        if name.startswith("_") or name not in _BY_NAME:
            raise AttributeError(f"dgraph.config has no option {name!r}; options: {', '.join(_BY_NAME)}")
        layer = _layer.get()
        if layer is not None and name in layer:
            return layer[name]
        return self._values[name]

    def __setattr__(self, name, value):
        value = _option(name).check(value)
        with self._lock:
            self._values[name] = value

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(_BY_NAME))

    def __repr__(self):
        changed = self.snapshot(changed=True)
        body = ", ".join(f"{k}={v!r}" for k, v in changed.items()) or "all defaults"
        return f"<dgraph.config: {body}>"

    def reset(self):
        """Every option back to its default, for the process (override blocks in effect still win)."""
        with self._lock:
            self._values.update({o.name: o.default for o in OPTIONS})

    def read_environ(self, environ=None, *, strict=True):
        """Set every option from its ``DGRAPH_*`` variable in ``environ`` (default ``os.environ``);
        an option whose variable is unset or empty gets its default.  -> {option: value} of the set
        ones.  ``strict``: a value that does not parse raises InputError (otherwise: a warning, and
        the option keeps its default: what ``import dgraph`` does)."""
        environ = os.environ if environ is None else environ
        values, found = {o.name: o.default for o in OPTIONS}, {}
        for o in OPTIONS:
            text = environ.get(o.env)
            if not text:
                continue
            try:
                values[o.name] = found[o.name] = o.parse(text)
            except InputError as exc:
                if strict:
                    raise
                warnings.warn(f"{exc}; ignored, {o.name} keeps its default {o.default!r}", stacklevel=3)
        with self._lock:
            self._values.update(values)
        return found

    # -- blocks, snapshots, workers -----------------------------------------------------------
    @contextmanager
    def override(self, **options):
        """Set ``options`` for the block, in this thread (and asyncio task) only; restored on exit.

        Every name and value is checked before anything changes (InputError).  Blocks nest.

        Examples
        --------
        >>> import dgraph
        >>> with dgraph.config.override(bfs_levels=False):
        ...     dgraph.config.bfs_levels
        False
        >>> dgraph.config.bfs_levels
        True
        """
        checked = {name: _option(name).check(value) for name, value in options.items()}
        token = _layer.set({**(_layer.get() or {}), **checked})
        try:
            yield self
        finally:
            _layer.reset(token)

    def snapshot(self, changed=False) -> dict:
        """The options in effect here as a plain dict; ``changed``: only those that differ from
        their defaults (what a Result records and a distributed run ships)."""
        out = {o.name: getattr(self, o.name) for o in OPTIONS}
        if changed:
            out = {k: v for k, v in out.items() if v != _BY_NAME[k].default}
        return out

    @contextmanager
    def applied(self, snapshot):
        """Exactly ``snapshot``'s settings for the block (the defaults for the options it leaves
        out, whatever this process has set): how a worker runs a client's program.  Like
        :meth:`override`, local to this thread and task."""
        snapshot = dict(snapshot or {})
        full = {o.name: o.default for o in OPTIONS}
        full.update({name: _option(name).check(value) for name, value in snapshot.items()})
        token = _layer.set(full)
        try:
            yield self
        finally:
            _layer.reset(token)

    def describe(self) -> list:
        """One row a option: (name, value in effect, default, environment variable, meaning)."""
        return [(o.name, getattr(self, o.name), o.default, o.env, o.doc) for o in OPTIONS]


#: the process's settings: ``dgraph.config``
config = Config()

__all__ = ["config", "Config", "Option", "OPTIONS"]
