"""Killing Dask workers at chosen moments, for the fault tests (issue 21 item 14, issue 25 item 8).

``dying(program, part, at, marker)`` wraps a Program: the worker process running partition
``part`` exits (``os._exit``) when it reaches ``at`` -- ``"init"``, ``("superstep", k)`` or
``"final"`` -- the first time only (the marker file records that it died, so a retry on the
restarted worker runs through).  The kill is an event of the run itself, not a timer.

``run_killing(run, ...)`` runs an algorithm function with that wrapper installed (it patches
``dgraph.engine.run.run_program``, which every algorithm imports when it is called).

``kill(client, address)`` SIGKILLs a worker process from outside; ``gone(pid)`` waits for it
to be gone.  This module travels to the workers by value (cloudpickle), since they cannot
import the tests folder.
"""

import os
import signal
import sys
import time

import cloudpickle

from dgraph.engine.program import Program


class Dying(Program):
    """``inner`` unchanged, except that partition ``part``'s worker exits at ``at`` (once)."""

    def __init__(self, inner, part, at, marker):
        self.inner, self.part, self.at, self.marker = inner, part, at, marker
        self.name = inner.name
        self.replicated_result = inner.replicated_result
        self.steps_timed = inner.steps_timed

    def __getattr__(self, name):  # anything an executor reads from the program
        if name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)

    def _maybe_die(self, shard, at):
        if shard.part == self.part and at == self.at and not os.path.exists(self.marker):
            with open(self.marker, "w") as f:
                f.write(f"{os.getpid()} {at}\n")
            os._exit(1)

    def init(self, shard):
        self._maybe_die(shard, "init")
        return self.inner.init(shard)

    def initial_report(self, shard, state):
        return self.inner.initial_report(shard, state)

    def superstep(self, shard, state, ctx):
        self._maybe_die(shard, ("superstep", ctx.step))
        return self.inner.superstep(shard, state, ctx)

    def receive(self, shard, state, contributions, ctx):
        return self.inner.receive(shard, state, contributions, ctx)

    def converged(self, report, step):
        return self.inner.converged(report, step)

    def finish(self, shard, state):
        return self.inner.finish(shard, state)

    def run_steps(self, shard, state, ctx, limit):
        return None  # one superstep at a time, so that a step can be the moment

    def final_contribution(self, shard, state):
        self._maybe_die(shard, "final")
        return self.inner.final_contribution(shard, state)

    def final_receive(self, shard, state, contributions):
        return self.inner.final_receive(shard, state, contributions)

    def final_ready(self, shard, state, contribution):  # (Program has them: __getattr__ would not forward)
        return self.inner.final_ready(shard, state, contribution)

    def tally(self, shard, state, result):
        return self.inner.tally(shard, state, result)


class Failing(Dying):
    """``inner`` unchanged, except that partition ``part`` raises RuntimeError at ``at`` (every time:
    the worker stays up).  ``marker`` is not used."""

    def _maybe_die(self, shard, at):
        if shard.part == self.part and at == self.at:
            raise RuntimeError(f"partition {self.part} fails at {at}")


class FailingOnce(Dying):
    """``inner`` unchanged, except that partition ``part`` raises RuntimeError at ``at`` the first
    time only (``marker`` records that it did), as a fault that a retry on a restarted worker gets past."""

    def _maybe_die(self, shard, at):
        if shard.part == self.part and at == self.at and not os.path.exists(self.marker):
            with open(self.marker, "w") as f:
                f.write(f"{os.getpid()} {at}\n")
            raise RuntimeError(f"partition {self.part} fails at {at}")


class Poisoning(Dying):
    """``inner`` unchanged, except that partition ``part``, at ``at``, writes through a null pointer
    in a CUDA kernel and waits for it: its worker's CUDA context is broken for good (a sticky
    cudaErrorIllegalAddress), as by a kernel that died mid-collective.  GPU only."""

    def _maybe_die(self, shard, at):
        if shard.part == self.part and at == self.at:
            import cupy

            bad = cupy.RawKernel(r'extern "C" __global__ void poison(int *p) { p[threadIdx.x] = 1; }', "poison")
            bad((1,), (32,), (cupy.uint64(0),))
            cupy.cuda.runtime.deviceSynchronize()  # raises CUDARuntimeError: an illegal memory access


class CUDARuntimeError(RuntimeError):
    """Stands for CuPy's error of that name in the CPU tests (no CuPy there)."""


class SickProbe:
    """A device check (``dgraph.engine.health.PROBES``) that fails on the worker at ``address`` as a
    GPU with a sticky error does, and writes the address of every worker it runs on to ``log``."""

    def __init__(self, address, log, inner=None):
        self.address, self.log, self.inner = address, str(log), inner

    def __call__(self, dask_worker):
        with open(self.log, "a") as f:
            f.write(dask_worker.address + "\n")
        if self.inner is not None:
            self.inner(dask_worker)
        if dask_worker.address == self.address:
            raise CUDARuntimeError("cudaErrorIllegalAddress: an illegal memory access was encountered")


def checked(log):
    """The worker addresses a SickProbe has run on, in order."""
    return open(log).read().split() if os.path.exists(log) else []


cloudpickle.register_pickle_by_value(sys.modules[__name__])


def run_killing(monkeypatch, call, part, at, marker, wrapper=None):
    """``call()`` (an algorithm on a PartitionedGraph) with partition ``part``'s worker dying at ``at``
    (or doing what ``wrapper``, a Dying subclass, does there)."""
    import dgraph.engine.run as run_module

    real = run_module.run_program
    wrapper = wrapper or Dying

    def patched(make_program, G, **kw):
        return real(lambda ids: wrapper(make_program(ids), part, at, str(marker)), G, **kw)

    with monkeypatch.context() as m:
        m.setattr(run_module, "run_program", patched)
        return call()


def pid_of(client, address):
    return client.run(os.getpid, workers=[address])[address]


def kill(client, address):
    """SIGKILL the worker process at ``address`` (its nanny starts a new one); -> its pid."""
    pid = pid_of(client, address)
    os.kill(pid, signal.SIGKILL)
    return pid


def gone(pid, deadline_s=60):
    """Wait until process ``pid`` has exited (a wait on the event; the deadline only stops a hang)."""
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.01)
    return False
