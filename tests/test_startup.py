"""Start-up apart from run time, live progress, the package logger, show_versions: a new user's first hour."""

import logging
import os
import re
import sys
import time

import cloudpickle
import numba
import numpy as np
import pytest

import dgraph
from dgraph import cli, startup
from dgraph.algorithms.bfs import BFS
from dgraph.engine.local import _batch_times, run_local
from dgraph.engine.program import Contribution, Program
from dgraph.partition.shard import whole_graph_shard

cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers cannot import this test module


class FakeClock:
    """time.perf_counter that moves only when told: durations in these tests are exact."""

    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


class Loads(Program):
    """Each superstep spends 1 s of work and, in superstep 0, 5 s loading kernels (start-up)."""

    name = "loads"
    replicated_result = True

    def __init__(self, clock, steps=3, batch=False):
        self.clock, self.steps, self.batch = clock, steps, batch

    def init(self, shard):
        return {"left": self.steps}

    def initial_report(self, shard, st):
        return {"left": st["left"]}

    def converged(self, report, step):
        return report["left"] == 0

    def _work(self, step):
        if step == 0:
            with startup.timed():
                self.clock.now += 5.0
        self.clock.now += 1.0

    def superstep(self, shard, st, ctx):
        self._work(ctx.step)
        return Contribution({}, {})

    def receive(self, shard, st, contributions, ctx):
        st["left"] -= 1
        return {"left": st["left"]}

    def run_steps(self, shard, st, ctx, limit):
        if not self.batch:
            return None
        out = []
        watch = startup.Stopwatch()
        while st["left"] and len(out) < limit:
            self._work(ctx.step + len(out))
            st["left"] -= 1
            out.append(({"left": st["left"]}, watch.lap()))
            if ctx.tick is not None:
                ctx.tick(*out[-1])
        self.returned = True
        return out

    def finish(self, shard, st):
        return {"x": np.zeros(1)}


def _shard():
    return whole_graph_shard(dgraph.from_edges([0], [1]))


@pytest.mark.parametrize("batch", [False, True])
def test_start_up_is_taken_out_of_the_superstep_it_happened_in(monkeypatch, batch):
    clock = FakeClock()
    monkeypatch.setattr(time, "perf_counter", clock)
    before = startup.seconds()
    _, records = run_local(Loads(clock, batch=batch), [_shard()])
    assert [r["time_s"] for r in records] == [1.0, 1.0, 1.0]  # not 6.0 for superstep 0
    assert startup.seconds() - before == 5.0


def test_run_program_reports_start_up_as_a_phase_not_run_time(monkeypatch):
    from dgraph.engine.run import run_program

    clock = FakeClock()
    monkeypatch.setattr(time, "perf_counter", clock)
    r = run_program(lambda ids: Loads(clock), dgraph.from_edges([0], [1]))
    assert r.phases["startup_s"] == 5.0
    assert r.run_time == 3.0 and list(r.stats["time_s"]) == [1.0, 1.0, 1.0]


def test_batch_times_add_what_the_program_did_not_see_and_drop_start_up():
    assert _batch_times([1.0, 1.0], wall=2.5, spent=0.0) == [1.5, 1.0]  # launch and read-back: the first
    assert _batch_times([1.0, 1.0], wall=7.5, spent=5.0) == [1.5, 1.0]  # the program left start-up out
    assert _batch_times([6.0, 1.0], wall=7.0, spent=5.0) == [1.0, 1.0]  # it did not: off the first
    assert _batch_times([1.0, 1.0], wall=1.0, spent=0.0) == [1.0, 1.0]  # its own times are kept


def test_a_batch_reports_each_superstep_as_it_ends(monkeypatch):
    clock = FakeClock()
    monkeypatch.setattr(time, "perf_counter", clock)
    prog = Loads(clock, steps=4, batch=True)
    prog.returned = False
    seen = []
    _, records = run_local(prog, [_shard()], on_step=lambda rec: seen.append((rec["superstep"], prog.returned)))
    assert [s for s, _ in seen] == [0, 1, 2, 3]  # once each
    assert not any(returned for _, returned in seen)  # ... while the batch was still running
    assert [r["superstep"] for r in records] == [0, 1, 2, 3]


def test_numba_cache_load_or_compile_counts_as_start_up():
    def add_one(x):
        return x + 1

    disp = startup.timed_dispatcher(numba.njit(cache=False)(add_one))
    assert startup.timed_dispatcher(disp) is disp  # wrapped once
    before = startup.seconds()
    assert disp(1) == 2
    after_compile = startup.seconds()
    assert after_compile > before
    assert disp(2) == 3  # compiled: a call is not start-up
    assert startup.seconds() == after_compile
    assert disp(1.5) == 2.5  # a new signature is
    assert startup.seconds() > after_compile


def test_first_real_compilation_is_announced_once(monkeypatch, caplog):
    monkeypatch.setattr(startup, "_announced", set())

    def probe(x):
        return x * 2

    def other(x):
        return x * 3

    probe.__module__ = other.__module__ = "dgraph.probe"  # as if dgraph's own kernels
    with caplog.at_level(logging.INFO, logger="dgraph"):
        assert startup.timed_dispatcher(numba.njit(cache=False)(probe))(2) == 4
        assert startup.timed_dispatcher(numba.njit(cache=False)(other))(2) == 6
    said = [r.getMessage() for r in caplog.records if r.name == "dgraph"]
    assert len(said) == 1 and "compiling dgraph's CPU kernels" in said[0] and "cached in" in said[0]


def test_progress_true_draws_a_bar_of_the_supersteps(capsys):
    G = dgraph.generate("grid", rows=3, cols=4)
    r = dgraph.bfs(G, 0, progress=True)
    err = capsys.readouterr().err
    last = [line for line in err.replace("\r", "\n").splitlines() if line.strip()][-1]
    assert last.startswith("bfs: supersteps ") and int(last.split()[2]) == r.supersteps
    dgraph.bfs(G, 0)  # the default: nothing printed
    assert capsys.readouterr().err == ""


def test_cli_summary_says_run_time_in_ms_and_start_up_apart(tmp_path, capsys):
    f = tmp_path / "seven.el"
    f.write_text("".join(f"{i} {i + 1}\n" for i in range(6)))
    assert cli.main(["bfs", str(f), "--source", "0", "--quiet"]) == 0
    out = capsys.readouterr().out.strip()
    assert re.fullmatch(r"bfs from 0: reached 7 of 7 vertices, 7 supersteps, \d+\.\d\d ms \(numpy\)"
                        r"(; start-up \S+ \S+ apart \(kernels loaded or compiled\))?", out), out
    assert cli.main(["wcc", str(f), "--quiet"]) == 0
    assert capsys.readouterr().out.startswith("wcc 1 component, ")  # not "1 components"


def test_show_versions_and_info_system(capsys):
    dgraph.show_versions()
    out = capsys.readouterr().out
    for section in ("dgraph", "dependencies", "numba", "gpus", "communication", "cluster", "configuration"):
        assert re.search(rf"^{section}$", out, re.M), section
    assert re.search(rf"^  numpy +{re.escape(np.__version__)}$", out, re.M)
    assert re.search(r"^  threads +\d+$", out, re.M)
    assert cli.main(["info", "--system"]) == 0
    assert "would connect to" in capsys.readouterr().out or dgraph.cluster.current_client() is not None


def test_command_logging_routes_dgraph_lines_to_stderr(capsys):
    from dgraph.log import command_logging, logger

    with command_logging():
        logger.info("hello")
    with command_logging(quiet=True):
        logger.info("hidden")
        logger.warning("shown")
    err = capsys.readouterr().err
    assert "dgraph: hello" in err and "hidden" not in err and "dgraph: shown" in err


def test_manifest_follows_the_umask(tmp_path):
    from dgraph.pipeline.run import _write_json

    old = os.umask(0o022)
    try:
        _write_json(tmp_path / "m.json", {"a": 1})
    finally:
        os.umask(old)
    assert (tmp_path / "m.json").stat().st_mode & 0o777 == 0o644


def test_plot_title_wraps_and_totals_read_as_durations():
    import pandas as pd

    from dgraph.plots import superstep_figure

    title = "bfs(source=0, direction='auto'): 4,096 vertices, 12 supersteps in 3.4 ms, 4 partitions (spmd), numpy"
    fig = superstep_figure(pd.DataFrame({"time_s": [20.0, 29.0], "frontier": [1, 2]}), title, startup_s=0.5)
    assert "\n" in fig._suptitle.get_text()  # wrapped, not clipped at the figure's edge
    notes = [t.get_text() for t in fig.axes[1].texts]
    assert any("total 49 s over 2 supersteps" in n and "start-up 500 ms" in n for n in notes), notes


class _StartsUp(BFS):
    """A BFS whose partition 0 reports 1000 s of start-up in superstep 0 (charged to its thread's
    start-up clock, as a kernel compile would be, without taking the time)."""

    def superstep(self, shard, st, ctx):
        if ctx.step == 0 and shard.part == 0:
            startup.charge(CHARGED)
        return super().superstep(shard, st, ctx)


CHARGED = 1000.0


@pytest.mark.parametrize("executor", ["local", "tasks", "spmd"])
def test_every_executor_takes_start_up_out_of_superstep_0(client, executor):
    from dgraph.engine.run import run_program

    G = dgraph.generate("grid", rows=2, cols=8)
    PG = G.partition(2, client=client)
    t0 = time.perf_counter()
    r = run_program(lambda ids: _StartsUp(0), PG, executor=executor)
    wall = time.perf_counter() - t0
    first = r.stats["time_s"].iloc[0]
    # what the shard reported as start-up moved from superstep 0 to the startup_s phase, whole
    assert CHARGED <= r.phases["startup_s"] < CHARGED + wall
    assert -CHARGED < first < -CHARGED + wall
    assert (r.stats["time_s"].iloc[1:] >= 0).all()
    ref = dgraph.bfs(G, 0)
    assert r.supersteps == ref.supersteps
    np.testing.assert_array_equal(r.depth, ref.depth)
