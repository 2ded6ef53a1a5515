"""Contributions sent ahead to the workers that will need them (the ``tasks`` executor, issue 24).

A superstep task of the ``tasks`` executor depends on its peers' tasks of the superstep before:
Dask runs it once the scheduler has heard that every input is in memory, and its worker then
fetches each input held elsewhere (a ``get_data`` request to the peer, the data, an "OK": three
messages, each a wake-up of a process).  That fetch was the largest part of an empty superstep
(issue 24's breakdown).  This module takes it off the critical path and leaves the dataflow as
it is: a task whose output other workers consume (the executor builds the graph, so it knows
which) sends it to them itself, one message each, as it returns, while the scheduler is being
told that the task finished.  The receiving worker puts it in memory under the task's key (Dask's
own ``update_data`` event, as for a scatter), so when the consumer task arrives its input is
already there and nothing is fetched.

The scheduler is not told of these copies: its view stays the plain dataflow (the producer holds
the key), and Dask keeps the final say.

- A push that finds the key already known on the receiver (its fetch begun: the push came late)
  is dropped; the fetch goes on as without this module.
- A pushed copy is released on the receiver once a task there has used it and none still waits
  for it, a batch every ``SWEEP_S`` seconds (its ``release-worker-data`` note to the scheduler is a no-op there).
  So is one whose run is over (:func:`ended`: the client let the run's Result go, or ended its
  lane watch), though no task used it: the tasks past a run's last step are released before they
  start, and their inputs pushed here would wait for nobody.  Pushes of a run that is over are
  dropped as they come.  Any other copy no task used goes after ``UNUSED_S`` seconds.
- A worker lost mid-run loses what the dataflow would have lost without the copies, and the
  executor's retry (dgraph/engine/tasks.py) does the rest.

What is pushed is decided by the output's real size, the bytes of the arrays in its contributions
(:func:`payload_bytes`; Dask's ``sizeof`` does not see into a
:class:`~dgraph.engine.program.Contribution` and counts a few hundred bytes for any of them):
:func:`how` gives "pickle" (at most ``PICKLE_BYTES``: one protocol-5 pickle in the message),
"serialize" (Dask's serializers: the arrays as out-of-band frames) or None, not pushed, above
``PUSH_MAX_BYTES``.  A push saves one scheduler round trip and the consumer's request; an output
that takes longer than that to pickle, send and read (a BFS's final parents, megabytes) comes
late: the consumer has begun its own fetch, the push is thrown away, and the producer's event loop
spent the time twice (issue 24: on CuPy shards every such copy goes through host memory, and
BFS rmat22 spent 77 ms outside its supersteps pushed against 25 ms fetched).

:class:`Push` is a worker plugin (``name = "dgraph-push"``) that :func:`install` registers once a
client; the executor wraps a task whose output has remote consumers in :func:`pushing`.
"""

from __future__ import annotations

import collections
import logging
import pickle
import re
import time
import weakref

from distributed.diagnostics.plugin import WorkerPlugin

from .worker_state import note

#: the worker plugin's name, and the worker handler (comm op) that receives a pushed output
NAME = "dgraph-push"
OP = "dgraph_push"
#: seconds between two releases of the pushed copies that were used
SWEEP_S = 0.5
#: a pushed copy no task used is released after this many seconds
UNUSED_S = 60.0
#: outputs of at most this many bytes (:func:`payload_bytes`) travel as one pickle (protocol 5);
#: larger ones through Dask's serializers (the arrays as out-of-band frames)
PICKLE_BYTES = 1 << 16
#: outputs of more bytes are not pushed: the consumer fetches them (see the module docstring)
PUSH_MAX_BYTES = 1 << 20

#: a superstep task's key (dgraph/engine/tasks.py): its step and its run's token
STEP_KEY = re.compile(r"-superstep-s(?P<step>\d+)-p\d+-(?P<token>[0-9a-f]+)$")
#: the run's token at the end of any key the executor pushes (a superstep's, an exchange's)
RUN_OF_KEY = re.compile(r"-(?P<token>[0-9a-f]+)$")

logger = logging.getLogger(__name__)
_MISSING = object()
_INSTALLED = weakref.WeakKeyDictionary()
_DONE = ("memory", "error", "released", "forgotten")


def install(client):
    """Register :class:`Push` on ``client``'s workers (once a client; workers that join later get it
    from the scheduler)."""
    if client not in _INSTALLED:
        client.register_plugin(Push(), name=NAME)
        _INSTALLED[client] = True


def payload_bytes(out):
    """The bytes of the arrays a task's output carries (its contributions; Dask's ``sizeof`` for
    anything else)."""
    total = 0
    for c in (out.get("parts") or {}).values():
        if c is None:
            continue
        nbytes = getattr(c, "nbytes", None)
        if callable(nbytes):
            total += int(nbytes())
        else:
            from dask.sizeof import sizeof  # noqa: PLC0415

            total += int(sizeof(c))
    return total


def how(out):
    """How :func:`pushing` sends the output ``out`` of a task: "pickle", "serialize", or None (not
    sent: the consumers fetch it).  Only a step's or a round's contributions (``kind`` "step" or
    "final") are sent, and only up to ``PUSH_MAX_BYTES``: the finished shard's output ("done",
    which holds its result columns), the "skip" ones and large contributions never are."""
    if out.get("parts") is None or out.get("kind") not in ("step", "final"):
        return None
    n = payload_bytes(out)
    if n > PUSH_MAX_BYTES:
        return None
    return "pickle" if n <= PICKLE_BYTES else "serialize"


def early(worker, key):
    """A peer's output pushed to ``worker`` under ``key`` and offered before it is in the worker's
    memory (:meth:`Push.receive`); None where there is none."""
    plugin = worker.plugins.get(NAME)
    return None if plugin is None else plugin.early.get(key)


def used(worker, keys):
    """The pushed copies of ``keys`` on ``worker`` were read by a step run ahead
    (dgraph/engine/tasks.py): like those a task here used, they go at the next sweep once no task here
    waits for them (a task that comes later fetches its input as without this module)."""
    plugin = worker.plugins.get(NAME)
    if plugin is None:
        return
    for key in keys:
        if key in plugin.received:
            plugin.received[key] = None


def ended(dask_worker, token):
    """Run ``token`` is over for ``dask_worker`` (on its event loop; ``client.run`` can call it): its
    pushed copies here go at the next sweep once no task here waits for them, used or not, and its
    pushes that still come are dropped."""
    plugin = dask_worker.plugins.get(NAME)
    if plugin is not None:
        plugin.end(token)


def _run_of(key):
    """The token of the run whose task has the key ``key``; None for a key of another shape."""
    found = RUN_OF_KEY.search(key) if isinstance(key, str) else None
    return None if found is None else found["token"]


async def pushing(push, fn, *args):
    """Run the task ``fn(*args)`` (a coroutine function) and send its output to the workers of
    ``push`` = (its own key, worker addresses) as :func:`how` says."""
    out = await fn(*args)
    if out.get("parts") is None or out.get("kind") not in ("step", "final") or out.get("_pushed"):
        return out  # (a step run ahead was sent as it was made)
    from distributed import get_worker  # noqa: PLC0415

    plugin = get_worker().plugins.get(NAME)
    if plugin is not None:
        way = how(out)
        if way is None:
            plugin.counts["not pushed"] += 1
        else:
            key, targets = push
            plugin.send(key, out, targets, way)
    return out


class Push(WorkerPlugin):
    """On a worker: sends the outputs tasks ask it to, and receives its peers' (see the module)."""

    name = NAME

    def __init__(self):
        self.worker = None
        self.received = {}  # key -> when it came (None once a task here has used it)
        self.early = {}  # key -> a superstep's output offered to the shards here, not yet in memory
        self.over = collections.OrderedDict()  # the recent runs that are over (end; worker_state.note)
        self.sweeper = None
        self.counts = {"sent": 0, "received": 0, "late": 0, "released": 0, "pickle": 0, "serialize": 0,
                       "not pushed": 0, "ran ahead": 0, "lane starts": 0, "after the end": 0}
        # (the last two: supersteps run ahead of their tasks, of them the superstep 0s begun from the lane)

    def setup(self, worker):
        from tornado.ioloop import PeriodicCallback  # noqa: PLC0415

        self.worker = worker
        worker.handlers[OP] = self.receive
        self.sweeper = PeriodicCallback(self.sweep, SWEEP_S * 1000)
        self.sweeper.start()

    def teardown(self, worker):
        worker.handlers.pop(OP, None)
        if self.sweeper is not None:
            self.sweeper.stop()

    def send(self, key, value, targets, way="pickle"):
        """``value`` (the output of task ``key``, returning now) to the workers at ``targets``, as one
        pickle (``way`` "pickle") or through Dask's serializers ("serialize")."""
        import asyncio  # noqa: PLC0415

        if way == "pickle":
            payload = {"pickled": pickle.dumps(value, protocol=5)}
        else:  # serialized here, once: a Serialize would be serialized again by every target's write
            from distributed.protocol import Serialized, serialize  # noqa: PLC0415

            payload = {"value": Serialized(*serialize(value, serializers=self.worker.rpc.serializers,
                                                      on_error="raise"))}
        for address in targets:
            asyncio.ensure_future(self._send(address, {"op": OP, "key": key, "reply": False, **payload}))
        self.counts["sent"] += len(targets)
        self.counts[way] += len(targets)

    async def _send(self, address, msg):
        rpc = self.worker.rpc
        try:
            comm = await rpc.connect(address)
            try:
                await comm.write(msg, serializers=rpc.serializers)
            finally:
                rpc.reuse(address, comm)
        except Exception as exc:  # noqa: BLE001 - the consumer fetches it instead
            logger.debug("dgraph push of %s to %s failed: %s", msg["key"], address, exc)

    def receive(self, key=None, pickled=None, value=None):
        """A peer's output: in memory here under its key, unless this worker knows the key already.
        A superstep's output is offered to the shards here first (a step run ahead may begin on it
        at once, :func:`dgraph.engine.tasks.arrived`), and goes into the worker's memory right after
        that step has begun (Dask's update of its state took 0.2-0.6 ms of each superstep on a GPU
        host, in front of the step)."""
        worker = self.worker
        if key in worker.state.tasks:
            self.counts["late"] += 1
            return
        step = STEP_KEY.search(key) if isinstance(key, str) else None
        if (_run_of(key) if step is None else step["token"]) in self.over:  # no task of that run is to
            self.counts["after the end"] += 1                                # come: nothing will use it
            return
        if pickled is not None:
            value = pickle.loads(pickled)
        self.received[key] = time.monotonic()
        self.counts["received"] += 1
        if step is None:
            self._take(key, value)
            return
        from .tasks import arrived  # noqa: PLC0415

        self.early[key] = value
        arrived(worker, step["token"], int(step["step"]))  # a step run ahead is queued on the loop now,
        worker.loop.add_callback(self._take_early, key)    # before this

    def _take_early(self, key):
        """An output offered early (:meth:`receive`) into the worker's memory, unless its consumer has
        begun to fetch it meanwhile."""
        value = self.early.pop(key, _MISSING)
        if value is _MISSING:
            return
        if key in self.worker.state.tasks:
            self.counts["late"] += 1
            self.received.pop(key, None)
            return
        self._take(key, value)

    def _take(self, key, value):
        from distributed.worker_state_machine import UpdateDataEvent  # noqa: PLC0415

        self.worker.handle_stimulus(UpdateDataEvent(data={key: value}, stimulus_id=f"dgraph-push-{time.time()}"))

    def end(self, token):
        """Run ``token`` is over (:func:`ended`)."""
        note(self.over, token)
        for key in list(self.received):
            if _run_of(key) == token:
                self.received[key] = None  # as if used: it goes once no task here waits for it

    def transition(self, key, start, finish, **kwargs):
        """A task here done: the pushed copies it used are marked used (``received`` -> None)."""
        if finish == "memory" and start == "executing" and self.received:
            ts = self.worker.state.tasks.get(key)
            for dep in ts.dependencies if ts is not None else ():
                if dep.key in self.received:
                    self.received[dep.key] = None

    def sweep(self):
        """Release, in one event, the pushed copies every consumer here is done with (and the old
        unused ones); and the steps run ahead whose tasks never came (``tasks.sweep_ahead``)."""
        from .tasks import sweep_ahead  # noqa: PLC0415

        sweep_ahead(self.worker)
        if not self.received:
            return
        from distributed.worker_state_machine import FreeKeysEvent  # noqa: PLC0415

        tasks, now, free = self.worker.state.tasks, time.monotonic(), []
        for key, since in list(self.received.items()):
            if key in self.early:  # in memory in a moment
                continue
            ts = tasks.get(key)
            if ts is None or ts.state != "memory":
                del self.received[key]
            elif all(d.state in _DONE for d in ts.dependents) and (since is None or now - since > UNUSED_S):
                free.append(key)
                del self.received[key]
        if free:
            self.counts["released"] += len(free)
            self.worker.handle_stimulus(FreeKeysEvent(keys=free, stimulus_id=f"dgraph-push-release-{time.time()}"))
