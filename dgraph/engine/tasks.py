"""The ``tasks`` executor: every superstep is a Dask task graph.

Per superstep s, one task per shard, ``bfs-superstep-s7-p3-<run>`` (superstep
7 on partition 3): it receives what every shard contributed in superstep
s - 1 (the merge and ``receive`` of superstep 6, which gives the report that
superstep 7 runs with) and runs superstep s's frontier kernels (the advance
of superstep 7), returning its contribution.  It depends on its own shard's
task of superstep s - 1 and on what the exchange schedule brings it.
Between the tasks of two supersteps sit the exchange tasks of the schedule,
only where a schedule needs them: a merge task per receiver for every round
but the last (``bfs-merge-s7-r0-p3``), and a select task on a sender that
forwards part of what it holds (``bfs-send-s7-r0-p3to1``).  At p = 2, and
with all-to-all or a butterfly of fanout >= p - 1, a superstep is one task
level: the contributions go from worker to worker as Dask dependencies, and
the scheduler sees one round trip a superstep, the floor of this executor.
A task whose output another worker consumes sends it there itself as it
returns (:mod:`dgraph.engine.push`: the consumer finds it in memory instead
of fetching it after the scheduler's round trip; ``PUSH = False`` turns that
off).  A finished shard's output (its result columns) is never sent, and
the steps submitted past the one that finishes are released as soon as the
"final" report is read, before they can fetch it.  The dashboard groups the keys by
name (``bfs-superstep``, ``bfs-merge``, ...: Dask's key_split, which drops
any 8-letter word that starts like a hex token, the run's id among them).

A shard's state never leaves its worker: superstep task 0 makes it and
keeps it in the worker's memory under the run's id; every later task of
that shard (pinned to the same worker) reads and updates it there.  The
task that finds the program converged (or the run at ``max_supersteps``)
sends the final contributions (parents to reconcile, ...) instead of a
superstep's, through the same exchange, and the next one merges them,
finishes the shard, removes its state and returns its result columns,
which stay on the worker until read (``bfs-result-p3-<run>`` then picks
them out there).  For a replicated result (only shard 0's is read) shard 0
keeps its own final contribution on its worker and the others send theirs:
only shard 0 merges and finishes (as ``spmd`` gathers onto shard 0), and no
final contribution goes to a shard that would not use it (at rmat22 they
are ~10 MB each).  The run needs no task of its own to start or end, and
the client no round trip to submit them.  Only contributions travel.  A
program whose final contribution is already final after a superstep
(``Program.final_ready``: BFS, after a superstep that claimed nothing) sends
it beside that superstep's; when every shard did so in the superstep after
which it converged, the task that finds it converged finishes the shard
too, one dependent task level fewer (BFS always, at its end).  That task
leaves the result columns in its worker's result stash, as a direct spmd
run does, rather than in its output: the tasks submitted past it fetch
that output before the client can let them go (on CuPy shards through host
memory).  ``bfs-result-p3-<run>`` claims them from the stash when the
result is read (a Dask-held value from then on); a result dropped unread
is dropped there.

The client never waits inside the loop for a superstep it could submit: it
keeps ``2 * lookahead`` supersteps submitted ahead of the last report it
has read (``lookahead // 2`` where the shards run ahead from superstep 0
on: the tasks then only collect outputs already made), ``lookahead`` supersteps
a graph (one ``update-graph`` message to the scheduler), and the reports
come to it without a request: shard 0's task publishes its report (on the
lane, below, or as a Dask event, ``Worker.log_event``, topic
``dgraph-superstep``, that the scheduler forwards to the subscribed client).
So ``on_step`` (and the progress bar) sees each superstep as it finishes.
A task submitted ahead that finds the shard finished does nothing, and the
ones not yet started are released when the run ends.  Each graph goes with
its tasks' order (a shard's tasks in step order), so the scheduler does not
run ``dask.order`` on it in a thread of its own.  A result's "done" report
comes from the task that made it (shard 0's), and, for a result that is not
replicated, each other shard's task sends a "made" event as it makes its
part: the client does not then wait for the scheduler to say the results
are in memory.  Both carry the shard's ``Program.tally`` of its part (SSSP's
count of reached vertices without a parent), so no check task follows.

A shard runs ahead of its tasks (``dgraph.config.tasks_run_ahead``, where
a superstep is one task level and contributions are pushed): as soon as its
worker holds every contribution of superstep s (its own, and its peers'
pushed ones), it runs superstep s + 1 there and then, pushes that output on
and publishes its report, without waiting for the scheduler to hear that
superstep s's tasks finished and to start task s + 1; when the task comes,
it returns the output already made.  The Dask graph, its keys and the
dashboard's tasks stay the same, and each superstep still runs once: the
task or the run ahead, whichever starts first.  A step after a "final" (the
one that finishes the shard and holds its result) always waits for its task.

The reports and the first superstep take the lane (``dgraph.config.tasks_lane``, where the cluster
has lanes: :mod:`dgraph.engine.lane`, the client's own connections to its workers that start spmd
runs).  The client asks each worker of the run to *watch* it, and the workers send the run's
reports on those connections as they make them, not as Dask events through the scheduler (two
event loops fewer on the way, and a scheduler busy with the tasks that trail the run ahead no
longer delays its end).  Where the shards run ahead, the watch also begins superstep 0 there and
then, as a step run ahead (:func:`_lane_start`): the chain of supersteps starts while the graph is
still on its way to the scheduler, and superstep task 0 returns the output made.  Either of the
two that comes first begins superstep 0 (:func:`_begin`), never both.  A cluster with no lanes
(an encrypted one), or a worker whose lane will not open, gets the events and the tasks as before.

Short superstep tasks run on the worker's event loop (an ``async`` task:
no hand-off to the worker's thread and back, about a millisecond on a
loaded 2-core box): those of shards of at most ``INLINE_ARCS`` arcs, and
those of a larger shard whose previous task's work took at most
``INLINE_S`` seconds (BFS's supersteps after the big levels, an empty
superstep).  The others run in the worker's thread, so the worker keeps
serving its peers while a long kernel runs.

A lost worker costs a retry, not the run.  Dask cannot redo a superstep on
its own (a shard's state lives on its worker), so every wait also watches
the scheduler's worker list (:mod:`dgraph.engine.faults`); when a worker of
the run is gone, the run is dropped, the lost shards are rebuilt on the
workers left (:meth:`~dgraph.partition.partitioned.PartitionedGraph.ensure_shards`)
and the run starts again from superstep 0, up to ``retries`` times (the
supersteps already reported to ``on_step`` are not reported twice).  Then
:class:`~dgraph.errors.WorkerLostError`, and the graph's next run rebuilds.
A run that fails otherwise (a task raised) on GPU shards has its workers'
GPUs checked (:mod:`dgraph.engine.health`): a worker whose CUDA context the
failure broke is restarted and counts as lost, so the run starts again on
rebuilt shards as above; when every GPU passes, the task's error is the
run's.

The client's :mod:`dgraph.config` (the options it changed) goes with superstep task 0 and stays
with the shard's state: every call of the program on the worker runs under it
(:meth:`~dgraph.config.Config.applied`).  Start-up a task spends (numba imported, kernels loaded or
compiled) travels with its output and is taken out of the superstep it happened in by the client
(shard 0's: every worker starts up alike, at once).
"""

from __future__ import annotations

import pickle
import queue
import threading
import time
import uuid
import weakref

from .. import startup
from ..config import config
from ..errors import WorkerLostError
from ..log import logger
from . import health
from .faults import CHECK_EVERY_S, gather_or_lost, lost_workers, run_quietly, worker_lost
from .lane import report as lane_report
from .program import SAME_FINAL, StepContext, WithFinal, sum_counts
from .worker_state import RECENT_KEPT, kept, note, recent  # noqa: F401 - RECENT_KEPT: the records' size

#: the Dask event topic that carries the supersteps' reports to the client
TOPIC = "dgraph-superstep"
#: shards of at most this many arcs run their supersteps on the worker's event loop
INLINE_ARCS = 1 << 16
#: and a larger shard's next task too, when its last task's work took at most this many seconds
INLINE_S = 0.002
#: contributions go to the workers that consume them as soon as they are made (dgraph/engine/push.py)
PUSH = True


# -- on the workers ---------------------------------------------------------------------------------

class _Held:
    """What a shard's tasks keep on its worker for one run."""

    __slots__ = ("program", "schedule", "shard", "state", "p", "settings", "final", "last_s", "finals", "sent",
                 "ahead", "started", "last_out")

    def __init__(self, program, schedule, shard, state, p, settings, ahead=None):
        self.program, self.schedule, self.shard, self.state, self.p = program, schedule, shard, state, p
        self.settings = settings
        self.final = None  # shard 0's own final contribution, kept here (a replicated result)
        self.last_s = None  # seconds the shard's last task's work took (see INLINE_S)
        self.finals = {}  # part -> the final contribution it sent beside its supersteps, while it stays ready
        self.sent = False  # whether this shard sent its final in its last superstep (then a marker will do)
        # running ahead (see the module docstring): the workers its outputs go to (None: it does not run
        # ahead), the newest step whose work began here, and its newest output (step, output)
        self.ahead, self.started, self.last_out = ahead, 0, None


def _step_key(name, step, part, token):
    """The key of superstep task ``step`` of shard ``part`` of run ``token`` (push.STEP_KEY reads it)."""
    return f"{name}-superstep-s{step}-p{part}-{token}"


def _inline(held):
    """Whether a shard's next step runs on the worker's event loop (see INLINE_ARCS and INLINE_S)."""
    return held.shard.num_arcs <= INLINE_ARCS or (held.last_s is not None and held.last_s <= INLINE_S)


def _box(worker=None):
    if worker is None:
        from distributed import get_worker  # noqa: PLC0415

        worker = get_worker()
    return kept(worker, "_dgraph_task_states")


#: what a superstep task did, in its output's "kind": ran a superstep ("step"); found the program
#: converged (or the run at max_supersteps) and sent the final contributions ("final"); merged
#: those and finished the shard ("done": "result" holds its columns); nothing, after "done"
#: ("skip"); and in an event only, raised ("error": any shard's task sends it) and, for a result that
#: is not replicated, made a shard's part of it ("made": every shard but 0, whose "done" says so)
KINDS = ("step", "final", "done", "skip", "error", "made")


async def _first(program, schedule, p, token, part, receive_only, settings, shard, ahead=None):
    """Superstep task 0 of shard ``part``: make the shard's state (kept on the worker under the run's
    token, with the client's config ``settings``), then as :func:`_step` (nothing to receive yet).
    ``ahead``: the workers this shard's outputs go to where it runs ahead (None: it does not)."""
    from distributed import get_worker  # noqa: PLC0415

    worker = get_worker()
    ran = _box(worker).pop((token, AHEAD, part, 0), None)
    if ran is not None:  # the lane started it (_lane_start): its reports and pushes have gone
        return await ran[0]
    if not _begin(worker, token, part):  # (a lane start that comes later leaves it to this task)
        return _gone_output()  # the lane began it, and its output was let go with the run
    return await _run(worker, shard.num_arcs <= INLINE_ARCS, token, part, 0, receive_only,
                      (program, schedule, shard, p, settings, ahead), ())


async def _step(token, part, step, receive_only, mine, *received):
    """Superstep task ``step`` (> 0) of shard ``part``.

    After a "step": receive superstep ``step - 1`` (every shard's contribution), then run superstep
    ``step``, unless the program has converged or ``receive_only`` (the run stops at
    max_supersteps): then send the final contributions instead.  After a "final": merge them and
    finish the shard.  Shard 0 publishes what it did (a Dask event: the client never asks)."""
    from distributed import get_worker  # noqa: PLC0415

    worker = get_worker()
    box = _box(worker)
    ran = box.pop((token, AHEAD, part, step), None)
    if ran is not None:  # this worker ran it ahead: its reports and pushes have gone
        return await ran[0]
    held = box.get((token, part)) if mine["kind"] in ("step", "final") else None
    if held is not None:
        held.started = max(held.started, step)  # not run ahead from now on
    elif mine["kind"] in ("step", "final") and token in recent(worker, "_dgraph_gone"):
        return _gone_output(mine["report"])  # a task still on its way when the run was let go
    return await _run(worker, held is None or _inline(held), token, part, step, receive_only, mine, received)


async def _run(worker, inline, token, part, step, receive_only, mine, received):
    """The task's work on the worker's event loop (``inline``), else in the worker's thread pool (so
    the worker keeps serving its peers while a long kernel runs)."""
    import asyncio  # noqa: PLC0415

    args = (worker, token, part, step, receive_only, mine, received)
    try:
        if inline:
            out = _step_body(*args)
        else:
            out = await asyncio.get_running_loop().run_in_executor(worker.executors["default"], _step_body, *args)
    except Exception:  # the client hears of it now, not at its next look at the futures
        _publish(worker, {"run": token, "step": step, "kind": "error", "report": b"", "part": part})
        raise
    if part == 0:  # what happened, to the client, without a request
        _publish(worker, {"run": token, "step": step, "kind": out["kind"], "report": pickle.dumps(out["report"]),
                          "tally": out.get("tally")})
    elif out["kind"] == "done" and out.get("waited"):  # this shard's part of the result is made (None too)
        _publish(worker, {"run": token, "step": step, "kind": "made", "report": b"", "part": part,
                          "tally": out.get("tally")})
    if out["kind"] in ("step", "final"):
        held = _box(worker).get((token, part))
        if held is not None and held.ahead is not None:
            held.last_out = (step, out)
            arrived(worker, token, step)
    return out


def _publish(worker, msg):
    """A report to the client: on the lane that watches its run (see _watch), else as a Dask event
    (the scheduler forwards it to the subscribed client)."""
    if not lane_report(worker, msg["run"], msg):
        worker.log_event(TOPIC, msg)


# -- running ahead ----------------------------------------------------------------------------------

#: the box's marker of a step run ahead: (token, AHEAD, part, step) -> (the future of its output, when
#: it began)
AHEAD = "ahead"
#: the most steps a shard has run ahead whose tasks have not come yet: past it, it waits for them
#: (their outputs wait in memory, and a chain of short supersteps could otherwise outrun the scheduler
#: by any number of them)
AHEAD_MAX = 8
#: a step run ahead whose shard has finished (or been dropped) here and whose task has not come after
#: this many seconds is let go (a backstop: a run's steps are let go when its Result is, _forget)
AHEAD_GRACE_S = 600.0


def arrived(worker, token, step):
    """Step ``step``'s output of some shard of run ``token`` is now on ``worker`` (made here, or pushed
    here by its worker): each shard held here whose every input of step ``step + 1`` is here runs
    that step now, ahead of its task."""
    box = getattr(worker, "_dgraph_task_states", None)
    if not box:
        return
    for key in [k for k in list(box) if len(k) == 2 and k[0] == token]:  # (a snapshot: tasks in the
        _try_ahead(worker, box, token, key[1], step)                      # worker's threads change it)


def _try_ahead(worker, box, token, part, step):
    held = box.get((token, part))
    # (after a "final" the next task finishes the shard: it stays a task, so its output, which holds
    # the result, never waits here for a task that may not come)
    if (held is None or held.ahead is None or held.started > step or held.last_out is None
            or held.last_out[0] != step or held.last_out[1]["kind"] != "step"):
        return
    if sum(1 for k in list(box) if len(k) == 4 and k[0] == token and k[2] == part) >= AHEAD_MAX:
        return
    received, pushed = [], []
    for o in range(held.p):
        if o != part:
            got, key = _output_here(worker, box, token, held.program.name, o, step)
            if got is None:
                return
            received.append(got)
            if key is not None:
                pushed.append(key)
    from .push import used  # noqa: PLC0415

    used(worker, pushed)  # the pushed copies read here may go once no task here waits for them
    held.started = step + 1
    _ahead(worker, _inline(held), held.ahead, held.program.name, token, part, step + 1, held.last_out[1], received)


def _output_here(worker, box, token, name, part, step):
    """Shard ``part``'s output of step ``step`` where this worker has it, and its key where it is a
    value in the worker's memory (pushed here, or a task's output) or about to be (pushed here and
    offered first, push.early); ``(None, None)`` where it is not here."""
    held = box.get((token, part))
    if held is not None and held.last_out is not None and held.last_out[0] == step:
        return held.last_out[1], None
    key = _step_key(name, step, part, token)
    ts = worker.state.tasks.get(key)
    if ts is None or ts.state != "memory":
        from .push import early  # noqa: PLC0415

        out = early(worker, key)  # pushed here, in memory in a moment
        return (out, key) if out is not None else (None, None)
    try:
        return worker.data[key], key
    except KeyError:
        return None, None


def sweep_ahead(worker, grace=None):
    """Let go of the steps run ahead on ``worker`` whose shard is no longer here and whose task has not
    come within ``grace`` seconds (``AHEAD_GRACE_S``); -> how many.  (The push plugin's periodic sweep
    calls it.)"""
    box = getattr(worker, "_dgraph_task_states", None)
    if not box:
        return 0
    grace = AHEAD_GRACE_S if grace is None else grace
    now = time.monotonic()
    old = [k for k, v in list(box.items()) if len(k) == 4 and (k[0], k[2]) not in box and now - v[1] > grace]
    for k in old:
        box.pop(k, None)
    return len(old)


def _ahead(worker, inline, targets, name, token, part, step, mine, received):
    """Begin step ``step`` of shard ``part`` now (:func:`_run_ahead`), its output's future in the box
    for its task to claim."""
    import asyncio  # noqa: PLC0415

    done = asyncio.get_running_loop().create_future()
    _box(worker)[token, AHEAD, part, step] = (done, time.monotonic())
    asyncio.ensure_future(_run_ahead(worker, inline, targets, name, token, part, step, mine, received, done))


async def _run_ahead(worker, inline, targets, name, token, part, step, mine, received, done):
    """Step ``step`` of shard ``part`` (program ``name``), run now: its output waits for its task
    (which returns it), and goes to the workers at ``targets`` that consume it as the task's would."""
    try:
        out = await _run(worker, inline, token, part, step, False, mine, received)
    except BaseException as exc:  # the task raises it
        done.set_exception(exc)
        done.exception()  # retrieved: a task that never comes (a dropped run) leaves no warning
        return
    try:
        from . import push  # noqa: PLC0415

        plugin = worker.plugins.get(push.NAME)
        if plugin is not None:
            plugin.counts["ran ahead"] += 1
            way = push.how(out)
            if way is not None and targets:
                plugin.send(_step_key(name, step, part, token), out, targets, way)
                out = dict(out, _pushed=True)  # the task's own push would send it again
    except Exception as exc:  # noqa: BLE001 - not sent: the task's own push tries again, and fails as
        logger.debug("dgraph: the push of step %s of %s failed: %s", step, token, exc)  # it would without this
    finally:
        done.set_result(out)  # whatever the push did: the task must not wait for ever


# a worker's records of recent runs (worker_state.recent): "_dgraph_begun", the (run, part)s whose
# superstep 0 began there (by its task or from the lane: the other must not begin it again), and
# "_dgraph_gone", the runs let go there (_forget)


def _begin(worker, token, part):
    """Whether superstep 0 of shard ``part`` of run ``token`` begins now on ``worker`` (False: its task
    or the lane began it already).  On the worker's event loop, so the two cannot both begin it."""
    return note(recent(worker, "_dgraph_begun"), (token, part))


def _lane_end(server, token):
    """On a lane's connection thread: the client's watch of run ``token`` ended (the run is over).  Its
    outputs pushed to this worker for tasks that will not come go (:func:`dgraph.engine.push.ended`)."""
    from .push import ended  # noqa: PLC0415

    server.worker.loop.add_callback(ended, server.worker, token)


def _lane_start(server, token, job, starts):
    """On a lane's connection thread (the client's watch of run ``token``, :func:`_watch`): superstep 0
    of the shards in ``starts`` ((part, shard key, the workers its outputs go to) each) begins now,
    as a step run ahead, without waiting for the scheduler to start its task; ``job``: the pickled
    (program, schedule, p, settings).  A shard whose task began first is left to it."""
    program, schedule, p, settings = pickle.loads(job)
    worker = server.worker
    for part, key, targets in starts:
        shard = server.shard(key)
        if shard is not None:
            mine = (program, schedule, shard, p, settings, targets)
            worker.loop.add_callback(_begin_ahead, worker, token, part, mine)


def _begin_ahead(worker, token, part, mine):
    """On the worker's event loop: superstep 0 of shard ``part`` begun as a step run ahead (its task
    returns its output), unless its task began it or the run was let go here already."""
    if token in recent(worker, "_dgraph_gone") or not _begin(worker, token, part):
        return
    program, shard, targets = mine[0], mine[2], mine[5]
    from .push import NAME  # noqa: PLC0415

    plugin = worker.plugins.get(NAME)
    if plugin is not None:
        plugin.counts["lane starts"] += 1
    _ahead(worker, shard.num_arcs <= INLINE_ARCS, targets, program.name, token, part, 0, mine, ())


def _step_body(worker, token, part, step, receive_only, mine, received):
    """The task's work under the client's config (see the module docstring)."""
    if step == 0:
        settings = mine[4]
    else:
        held = _box(worker).get((token, part)) if mine["kind"] in ("step", "final") else None
        settings = held.settings if held is not None else None
    t = time.perf_counter()
    with config.applied(settings):
        out = _step_under(worker, token, part, step, receive_only, mine, received)
    held = _box(worker).get((token, part))
    if held is not None:  # how long this shard's work takes: where its next task runs (INLINE_S)
        held.last_s = time.perf_counter() - t
    return out


def _step_under(worker, token, part, step, receive_only, mine, received):
    box = _box(worker)
    # start-up in the task before (carried in its output) and in this one, until the receive: the
    # superstep the receive reports (see the module docstring)
    spent = (0.0 if step == 0 else mine.get("startup_s", 0.0)) - startup.seconds()
    finals = None  # every shard's final contribution, where they came with the superstep received
    if step == 0:
        program, schedule, shard, p, settings, ahead = mine
        if shard.backend == "numpy" and shard.n:
            startup.import_timed("dgraph.jit")  # numba, once a worker process
        state = program.init(shard)
        held = box[token, part] = _Held(program, schedule, shard, state, p, settings, ahead)
        report = program.initial_report(shard, state)
    else:
        report = mine["report"]
        if mine["kind"] in ("done", "skip"):
            return {"kind": "skip", "report": report, "parts": None}
        held = box[token, part]
        program, shard, state, p = held.program, held.shard, held.state, held.p
        parts = _merge(mine, *received)
        contributions = [parts[q] for q in range(p)]
        if mine["kind"] == "final":
            del box[token, part]
            return _done(held, part, report, contributions)
        from ..exchange import bytes_moved  # noqa: PLC0415

        for q, c in enumerate(contributions):  # the finals that came beside, kept (a marker: as before)
            if isinstance(c, WithFinal):
                if not (isinstance(c.final, str) and c.final == SAME_FINAL):  # (a marker arrives pickled)
                    held.finals[q] = c.final
            else:
                held.finals.pop(q, None)
        if all(isinstance(c, WithFinal) for c in contributions) and len(held.finals) == p:
            finals = [held.finals[q] for q in range(p)]  # every shard's final came beside
        contributions = [c.step if isinstance(c, WithFinal) else c for c in contributions]
        report = program.receive(shard, state, contributions, StepContext(step - 1, report, p))
        # the superstep's own bytes, as every executor counts them (the finals are not a superstep's)
        report["bytes_exchanged"] = bytes_moved(held.schedule, [c.nbytes() for c in contributions])
        report["_finished_at"] = time.time()
        report["_startup_s"], spent = spent + startup.seconds(), -startup.seconds()
    if receive_only or program.converged(report, step):
        if finals is not None:  # the finals came with the last superstep: this task finishes the shard
            del box[token, part]
            report["_received"] = True  # the client records this superstep's report from the "done"
            out = _done(held, part, report, finals)
            # the steps submitted past this one fetch its output before the client can let them go (no
            # "final" report warned it): the columns wait in the worker's result stash, claimed when read
            if out["result"] is not None:
                from .spmd import _results  # noqa: PLC0415

                _results(worker)[token, part] = out.pop("result")
            return out
        final = program.final_contribution(shard, state)
        if program.replicated_result and part == 0:  # only shard 0's result is read: the finals go there
            held.final, final = final, None
        return {"kind": "final", "report": report, "parts": {part: final}}
    own = program.superstep(shard, state, StepContext(step, report, p))
    if not program.replicated_result and program.final_ready(shard, state, own):
        # sent once for a stretch of ready supersteps (it cannot change in them), then a marker
        own = WithFinal(own, SAME_FINAL if held.sent else program.final_contribution(shard, state))
        held.sent = True
    else:
        held.sent = False
    parts = {part: own}
    return {"kind": "step", "report": report, "parts": parts, "startup_s": spent + startup.seconds()}


def _wait_made(client, inbox, results, workers, what):
    """Until every shard but 0 has said its part of the result is made (a "made" event from its "done"
    task); the task's own error when one raised, WorkerLostError as soon as a worker is gone."""
    pending = set(range(1, len(results)))
    while pending:
        try:
            kind, part = inbox.made.get(timeout=CHECK_EVERY_S)
        except queue.Empty:
            kind = part = None
        if kind is None:  # a while without news: a worker lost, or a task failed without its event?
            _check_quiet(client, results, workers, what)
            pending -= {q for q in pending if results[q].status == "finished"}  # an event missed: made all the same
            continue
        if kind == "error" and part is not None and 0 <= part < len(results):
            if results[part].status == "finished":  # another task of that shard's (its result is made)
                pending.discard(part)
                continue
            _raise_failed(client, [results[part]], workers, what)
        pending.discard(part)


def _check_quiet(client, futures, workers, what):
    """After a wait with no news: WorkerLostError when a worker of the run is gone, the task's own
    error when one of ``futures`` failed; else nothing."""
    lost = lost_workers(client, workers)
    if lost:
        raise worker_lost(lost, workers, what)
    failed = [f for f in futures if f.status in ("error", "cancelled", "lost")]
    if failed:
        _raise_failed(client, failed[:1], workers, what)


def _raise_failed(client, futures, workers, what):
    """The error of a failed task among ``futures`` (gathering them raises it), else WorkerLostError
    (what is left when the gather raised nothing: their worker went)."""
    gather_or_lost(client, futures, workers, what)
    raise worker_lost(lost_workers(client, workers) or workers, workers, what)


async def _select(held, origins):
    """The part of what a sender holds that one transfer forwards (nothing after "done")."""
    parts = held["parts"]
    return {"kind": held["kind"], "parts": None if parts is None else {o: parts[o] for o in origins}}


def _done(held, part, report, contributions):
    """The shard's end: the final contributions received (``contributions``, every shard's), its
    part of the result made.  "waited": the client waits for this shard's "made" event (a result
    that is not replicated); "tally": Program.tally of the part, to the client with that event."""
    program, shard, state = held.program, held.shard, held.state
    result = None
    if part == 0 or not program.replicated_result:  # else nobody reads this shard's result
        if program.replicated_result:
            contributions[part] = held.final  # kept on this worker, not sent
        if contributions[part] is not None:
            program.final_receive(shard, state, contributions)
        result = program.finish(shard, state)
    return {"kind": "done", "report": report, "parts": None, "result": result,
            "waited": not program.replicated_result,
            "tally": program.tally(shard, state, result) if result is not None else {}}


def _merge(*outs):
    merged = {}
    for out in outs:
        merged.update(out["parts"] or {})
    return merged


async def _merge_task(*outs):
    """A round's merge on a receiver; nothing sent (after "done") stays None for the next round's
    selects (issue 21, item 13: a forwarding select of a finished run raised KeyError)."""
    if all(out["parts"] is None for out in outs):
        return {"kind": outs[0]["kind"], "parts": None}
    return {"kind": outs[0]["kind"], "parts": _merge(*outs)}


def _columns(out):
    """The shard's result columns, from its "done" task's output (on the worker that holds it)."""
    return out["result"]


def _forget(dask_worker, token, ahead_only=False):
    """Drop what run ``token`` keeps on this worker: everything (a failed run), or only its steps run
    ahead whose tasks have not come (``ahead_only``: its Result is gone, and with it those tasks).  A
    task of the run that still comes (one the worker had begun to get when the client let it go)
    then does nothing (:func:`_gone_output`)."""
    from .push import ended  # noqa: PLC0415

    box = getattr(dask_worker, "_dgraph_task_states", {})
    for key in [k for k in list(box) if k[0] == token and (len(k) == 4 or not ahead_only)]:
        box.pop(key, None)
    note(recent(dask_worker, "_dgraph_gone"), token)
    ended(dask_worker, token)  # and the outputs pushed here for its tasks


def _gone_output(report=None):
    """What a task of a run let go returns: nothing to use (as after "done")."""
    return {"kind": "skip", "report": report or {}, "parts": None}


# -- on the client ----------------------------------------------------------------------------------

class _Inbox:
    """The reports of one run, as the scheduler forwards them (the client's event-loop thread puts,
    the run's thread takes)."""

    def __init__(self):
        self.queue = queue.Queue()
        self.reports = {}
        self.made = queue.Queue()  # (kind, part): "made" and "error" events, for the end of the run
        self.tallies = {}  # part -> Program.tally of its result, from its "done" (0) or "made" event

    def event(self, msg):
        if msg["kind"] in ("done", "made") and msg.get("tally") is not None:  # before the wait hears of it
            self.tallies[msg.get("part", 0)] = msg["tally"]
        if msg["kind"] != "made":
            self.queue.put((msg["step"], msg["kind"], msg["report"]))
        if msg["kind"] in ("made", "error"):
            self.made.put((msg["kind"], msg.get("part")))


class _Dispatch:
    """One subscription to the report topic per client; routes each event to its run's inbox."""

    def __init__(self):
        self.inboxes = {}
        self.lock = threading.Lock()

    def __call__(self, event):
        _, msg = event
        with self.lock:
            inbox = self.inboxes.get(msg.get("run"))
        if inbox is not None:
            inbox.event(msg)


_DISPATCH = weakref.WeakKeyDictionary()
_DISPATCH_LOCK = threading.Lock()


def _open_inbox(client, token):
    with _DISPATCH_LOCK:
        dispatch = _DISPATCH.get(client)
        if dispatch is None:
            dispatch = _DISPATCH[client] = _Dispatch()
            # sent before any graph of the run on the same ordered stream: no event is missed
            client.subscribe_topic(TOPIC, dispatch)
    inbox = _Inbox()
    with dispatch.lock:
        dispatch.inboxes[token] = inbox
    return inbox


def _close_inbox(client, token):
    dispatch = _DISPATCH.get(client)
    if dispatch is not None:
        with dispatch.lock:
            dispatch.inboxes.pop(token, None)


class _Graph:
    """Tasks pinned to the run's workers, sent to the scheduler as one graph.  ``push``: the outputs
    consumed on another worker go there as soon as they are in memory (:mod:`dgraph.engine.push`)."""

    def __init__(self, workers, tag, push=True):
        self.workers, self.tag, self.push = workers, tag, push
        self.specs = [{} for _ in workers]
        self.consumers = {}  # key -> the addresses of the other workers that consume it

    def add(self, q, key, fn, *args):
        from dask._task_spec import TaskRef  # noqa: PLC0415

        self.specs[q][key] = (fn, args)
        return TaskRef(key)

    def consumed(self, ref, q):
        """Partition ``q``'s task consumes ``ref`` (a task of this graph)."""
        for src, specs in enumerate(self.specs):
            if ref.key in specs:
                if self.workers[src] != self.workers[q]:
                    self.consumers.setdefault(ref.key, set()).add(self.workers[q])
                return

    def _tasks(self, q):
        from dask._task_spec import Task  # noqa: PLC0415

        from .push import pushing  # noqa: PLC0415

        out = {}
        for key, (fn, args) in self.specs[q].items():
            targets = self.consumers.get(key) if self.push else None
            out[key] = Task(key, pushing, (key, tuple(sorted(targets))), fn, *args) if targets else Task(key, fn, *args)
        return out

    def submit(self, client, refs):
        """Send the graph; -> futures of ``refs`` (the keys a later graph or the client reads)."""
        from dask.highlevelgraph import HighLevelGraph, MaterializedLayer  # noqa: PLC0415

        layers = {f"{self.tag}-w{q}": MaterializedLayer(self._tasks(q), annotations={"workers": [self.workers[q]]})
                  for q, specs in enumerate(self.specs) if specs}
        graph = HighLevelGraph(layers, {name: set(layers) - {name} for name in layers})
        if not refs:
            return []
        keys = [r.key for r in refs]
        order = {key: i for specs in self.specs for i, key in enumerate(specs)}  # a shard's tasks in step order
        futures = _submit_ordered(client, graph, keys, order)
        return futures if futures is not None else client.get(graph, keys, sync=False)


def _submit_ordered(client, graph, keys, order):
    """``client.get(graph, keys, sync=False)`` with the tasks' order given (``order``: key -> rank), so
    the scheduler does not order the graph itself (``dask.order`` in a thread of its own: a hand-off
    and back, about a millisecond a graph on a loaded box).  ``Client.get`` takes no order, so this
    goes through the method it calls (distributed's ``_graph_to_futures``); None where that method
    does not take these arguments (another version of distributed): the caller then uses
    ``client.get``."""
    usable = _ORDERED.get(type(client))
    if usable is None:
        usable = _ORDERED[type(client)] = _takes_order(client)
    if not usable:
        return None
    from dask._expr import HLGExpr  # noqa: PLC0415
    from distributed.spans import SpanMetadata  # noqa: PLC0415

    futures = client._graph_to_futures(expr=HLGExpr(graph), keys=set(keys), internal_priority=order,
                                       span_metadata=SpanMetadata(collections=[{"type": "low-level-graph"}]))
    return [futures[k] for k in keys]


_ORDERED = {}  # client class -> whether _submit_ordered can use it


def _takes_order(client):
    import inspect  # noqa: PLC0415

    try:
        from dask._expr import HLGExpr  # noqa: F401, PLC0415
        from distributed.spans import SpanMetadata  # noqa: F401, PLC0415

        params = inspect.signature(client._graph_to_futures).parameters
    except (AttributeError, ImportError, TypeError, ValueError):
        return False
    return {"expr", "keys", "span_metadata", "internal_priority"} <= set(params)


def _ahead_targets(schedule, workers, max_supersteps):
    """Per shard, the workers its step outputs go to where it runs ahead, else None: with
    ``dgraph.config.tasks_run_ahead`` and pushed contributions, a run without ``max_supersteps``, and
    a schedule of one round in which every shard sends its own contribution to every other."""
    p = len(workers)
    one_round = p == 1 or (len(schedule.rounds) == 1 and {(t.src, t.dst) for t in schedule.rounds[0]
                                                         if tuple(t.origins) == (t.src,)}
                           >= {(o, q) for o in range(p) for q in range(p) if o != q})
    if not (PUSH and config.tasks_run_ahead and max_supersteps is None and one_round):
        return [None] * p
    return [tuple(sorted({workers[o] for o in range(p) if workers[o] != workers[q]})) for q in range(p)]


def _watch(client, workers, token, inbox, start):
    """The run's reports over the lanes (:class:`dgraph.engine.lane.Watch`), and, with ``start``
    ((program, schedule, p, settings, shard keys, each shard's push targets)), its superstep 0 begun
    from there (:func:`_lane_start`); None where the cluster has no lanes (the reports come as Dask
    events, and the tasks begin every superstep)."""
    if not config.tasks_lane:
        return None
    from .lane import LaneError, Watch  # noqa: PLC0415
    from .spmd import _install_lanes  # noqa: PLC0415

    distinct = sorted(set(workers))
    _install_lanes(client, distinct)
    lanes = client._dgraph_lanes
    if not lanes.ready(distinct):
        return None
    calls = [None] * len(distinct)
    if start is not None:
        import cloudpickle  # noqa: PLC0415 - as Dask's own pickling: a program may hold local functions

        program, schedule, p, settings, keys, targets = start
        job = cloudpickle.dumps((program, schedule, p, settings), protocol=5)
        calls = [(_lane_start, {"token": token, "job": job,
                                "starts": [(q, keys[q], targets[q]) for q in range(p) if workers[q] == w]})
                 for w in distinct]
    try:
        return Watch(lanes, distinct, token, inbox.event, calls, ending=(_lane_end, {"token": token}))
    except LaneError as exc:
        logger.debug("tasks run %s: %s; its reports come as Dask events", token, exc)
        lanes.forget(distinct)
        return None


def run_tasks(program, PG, schedule, *, on_step=None, max_supersteps=None, lookahead=4, retries=2):
    """Run ``program`` over ``PG``'s shards as Dask tasks; -> (``fetch``, stats records): ``fetch()``
    gives futures of the shards' result columns (shard 0's alone for a replicated result), which
    stay on the workers until read.

    ``lookahead``: supersteps a graph, two graphs ahead of the last report read.  A worker lost
    during the run costs a retry from superstep 0 on rebuilt shards, at most ``retries`` times;
    then WorkerLostError (see the module docstring)."""
    reported = [0]  # supersteps passed to on_step so far, over every attempt

    def on_record(rec):
        if rec["superstep"] >= reported[0]:
            reported[0] = rec["superstep"] + 1
            if on_step is not None:
                on_step(rec)

    for attempt in range(retries + 1):
        PG.ensure_shards(check=attempt > 0 or None)
        placement = list(PG.workers)
        try:
            return _run_once(program, PG, schedule, on_record, max_supersteps, max(1, int(lookahead)))
        except WorkerLostError:
            PG.suspect_loss()
            if attempt == retries:
                raise
        except Exception as exc:  # a task raised: did it leave a worker's GPU broken?
            restarted = health.recover(PG, placement)
            if not restarted:
                raise
            if attempt == retries:
                raise health.restarted_error(exc, restarted, placement) from exc
            # the broken workers are new processes now: their shards are rebuilt and the run starts again


def _run_once(program, PG, schedule, on_step, max_supersteps, lookahead):
    client = PG.client
    p = PG.num_parts
    token = uuid.uuid4().hex[:8]
    name = program.name
    shards, workers = list(PG.shards), list(PG.workers)
    what = f"the {name} run"
    settings = config.snapshot(changed=True)  # the program runs under the client's config on the workers

    def exchange(g, own, tag):
        """The schedule as tasks of ``g``; -> per partition, the refs its consumer merges (its own first)."""
        held = list(own)
        holds = [{q} for q in range(p)]
        parts = [[own[q]] for q in range(p)]
        for k, rnd in enumerate(schedule.rounds):
            incoming = {dst: [] for dst in range(p)}
            for t in rnd:
                whole = set(t.origins) == holds[t.src]
                ref = held[t.src] if whole else g.add(
                    t.src, f"{name}-send-{tag}-r{k}-p{t.src}to{t.dst}-{token}", _select, held[t.src], list(t.origins))
                g.consumed(ref, t.dst)
                incoming[t.dst].append(ref)
            for t in rnd:
                holds[t.dst] |= set(t.origins)
            last = k == len(schedule.rounds) - 1
            for q in range(p):
                if incoming[q]:
                    parts[q] = [held[q], *incoming[q]]
                    if not last:
                        held[q] = g.add(q, f"{name}-merge-{tag}-r{k}-p{q}-{token}", _merge_task, *parts[q])
                        parts[q] = [held[q]]
        return parts

    if PUSH:
        from .push import install  # noqa: PLC0415

        install(client)
    run_ahead = _ahead_targets(schedule, workers, max_supersteps)
    inbox = _open_inbox(client, token)
    ok = False
    watch = None
    try:
        # (a shard not built yet on its worker is left to its task)
        start = None if run_ahead[0] is None else (program, schedule, p, settings, [f.key for f in shards], run_ahead)
        watch = _watch(client, workers, token, inbox, start)
        outs = None  # the last step tasks' refs, per shard
        received = [[] for _ in range(p)]
        ahead = {}   # step -> its tasks' futures, until its report is read (the "done" ones: the results)
        links = []   # futures of what the last graph hands the next (exchange outputs)
        records = []
        last_finish = time.time()
        # step tasks: 0..max_supersteps-1 run supersteps, max_supersteps receives the last one (and sends
        # the finals), max_supersteps + 1 finishes; without max_supersteps, until the program converges
        limit = None if max_supersteps is None else max_supersteps + 2

        def send(first, count):
            nonlocal outs, received, links
            from dask._task_spec import TaskRef  # noqa: PLC0415

            g = _Graph(workers, f"{name}-s{first}-{token}", push=PUSH)
            steps = []
            for step in range(first, first + count):
                last = max_supersteps is not None and step >= max_supersteps
                if step == 0:
                    outs = [g.add(q, _step_key(name, 0, q, token), _first, program, schedule, p, token, q, last,
                                  settings, TaskRef(shards[q].key), run_ahead[q]) for q in range(p)]
                else:
                    outs = [g.add(q, _step_key(name, step, q, token), _step, token, q, step, last, outs[q],
                                  *received[q]) for q in range(p)]
                steps.extend(outs)
                received = exchange(g, outs, f"s{step}")  # per shard: its own output (or a merge of it), the rest
            keys = {r.key for r in steps}
            passed = list({r.key: r for rs in received for r in rs if r.key not in keys}.values())
            futures = g.submit(client, steps + passed)
            for i, step in enumerate(range(first, first + count)):
                ahead[step] = futures[i * p:(i + 1) * p]
            links = futures[len(steps):]  # the previous graph's go: this one holds what they held

        def record(superstep, rep):
            nonlocal last_finish
            finished, spent = rep.pop("_finished_at"), rep.pop("_startup_s", 0.0)
            startup.charge(spent)  # a phase of its own (engine/run.py), not run time
            rec = {"superstep": superstep, **rep, "time_s": finished - last_finish - spent}
            last_finish = finished
            records.append(rec)
            if on_step is not None:
                on_step(rec)

        def next_report(step):
            """(kind, report) of step task ``step``: from the inbox; WorkerLostError as soon as a worker
            of the run is gone, the task's own error when one failed."""
            while step not in inbox.reports:
                try:
                    s, kind, blob = inbox.queue.get(timeout=CHECK_EVERY_S)
                except queue.Empty:
                    kind = None
                if kind is None:  # a while without a report: a worker lost, or a task failed?
                    _check_quiet(client, [f for fs in ahead.values() for f in fs], workers, what)
                    continue
                if kind == "error":  # a step task raised: its error, from the newest futures (they depend on it)
                    _raise_failed(client, ahead[max(ahead)] if ahead else [], workers, what)
                inbox.reports[s] = (kind, pickle.loads(blob))
            return inbox.reports.pop(step)

        submitted = 0  # step tasks submitted
        # where the shards run ahead from superstep 0 on (begun from the lane) the tasks only collect
        # their outputs, and trail the reports: half a graph ahead of them is enough (a graph sent
        # after the last report is a scheduler's update-graph in the client's process, a LocalCluster's,
        # while it reads the end of the run)
        ahead_by = max(1, lookahead // 2) if watch is not None and start is not None else 2 * lookahead
        ending = False  # a "final" report read: limit is the step after the one that finishes
        kept = False  # the run finished in a step task: its results wait in the workers' stashes
        step = 0       # the step task whose report is read next
        while True:
            while submitted - step < ahead_by and (limit is None or submitted < limit):
                count = lookahead if limit is None else min(lookahead, limit - submitted)
                send(submitted, count)
                submitted += count
            if ending:  # the steps submitted past the one that finishes: released before they start
                for k in [k for k in ahead if k >= limit]:
                    del ahead[k]
                links = []
            kind, rep = next_report(step)
            if kind == "done":
                if rep.pop("_received", False):  # the shard finished in the task that received the last superstep
                    record(step - 1, rep)
                    kept = True  # the results wait in the workers' stashes (see _step_under)
                break
            if kind == "skip":  # cannot come before "done" (every shard's tasks follow the same reports)
                raise RuntimeError(f"tasks executor: step {step} of {what} skipped before the run was done")
            if kind == "final":  # the next step finishes the run: nothing after it is needed, and the
                # "done" outputs (with the result columns) are not fetched by the steps after them
                limit, ending = step + 2, True
            if step > 0:
                record(step - 1, rep)
            ahead.pop(step)  # its outputs are let go once the next step has read them
            step += 1
        qs = [0] if program.replicated_result else list(range(p))
        done = ahead.pop(step)
        results = [done[q] for q in qs]
        ahead.clear()  # the steps submitted ahead and not started are released
        links = []
        if not program.replicated_result:  # every shard's result; they stay on the workers until read
            _wait_made(client, inbox, results, workers, what)
        # the shards' tallies, summed: only when every part's came (a part counted made by its future's
        # status, its event missed, has none)
        tallies = [inbox.tallies.get(q) for q in qs]
        tallies = None if any(t is None for t in tallies) else sum_counts(tallies)
        # the "done" report came from shard 0's task as it returned its result, and the others' "made"
        # events from theirs: no wait for the scheduler to say so too (a worker lost since then is
        # noticed when the result is read)
        ok = True
    finally:
        if watch is not None:
            watch.close(ok)
        _close_inbox(client, token)
        if not ok:  # drop every shard's state of this run (in the background: a worker may be dead)
            run_quietly(client, _forget, token=token)
        elif watch is None and PUSH:  # (a watched run's unwatch says so, _lane_end)
            from .push import ended  # noqa: PLC0415

            run_quietly(client, ended, token=token)
    return _Results(client, results, [workers[q] for q in qs], name, token, tallies, kept), records


class _Results:
    """The "done" tasks' futures; ``()`` -> futures of their columns (one small task each, on the worker
    that holds it, when the result is read).  ``kept``: the columns wait in the workers' result
    stashes (the run finished in a step task), claimed as a direct spmd run's are: the claims are
    kept for later reads (a claim empties its stash entry), and a result never read is dropped."""

    def __init__(self, client, futures, workers, name, token, tallies=None, kept=False):
        self.client, self.done, self.workers, self.name, self.token = client, futures, workers, name, token
        self.tallies = tallies  # Program.tally over the parts, None where one did not come
        self.claims = None
        self._finalizer = None
        # steps run ahead wait on the workers for their tasks; gone with this object, those tasks may
        # never run (released): the steps are let go then
        weakref.finalize(self, run_quietly, client, _forget, token=token, ahead_only=True)
        if kept:
            from .spmd import _drop_results  # noqa: PLC0415

            self._finalizer = weakref.finalize(self, run_quietly, client, _drop_results, run=token)

    def __call__(self):
        if self._finalizer is None:
            return [self.client.submit(_columns, f, workers=[w], allow_other_workers=False, pure=False,
                                       key=f"{self.name}-result-p{q}-{self.token}")
                    for q, (f, w) in enumerate(zip(self.done, self.workers))]
        if self.claims is None:
            from .spmd import _claim_result  # noqa: PLC0415

            self.claims = [self.client.submit(_claim_result, self.token, q, workers=[w], allow_other_workers=False,
                                              pure=False, key=f"{self.name}-result-p{q}-{self.token}")
                           for q, w in enumerate(self.workers)]
            self._finalizer.detach()
        return self.claims
