"""dgraph.config: defaults, the environment read once at import, checked values, override blocks
(restored, nested, local to a thread), call-time reads, the settings recorded in every Result and
shipped to the workers of a distributed run."""

import os
import subprocess
import sys
import threading

import cloudpickle
import pytest

import dgraph
from dgraph.algorithms.bfs import BFS
from dgraph.config import OPTIONS, Config
from dgraph.engine.run import run_program
from dgraph.errors import InputError

cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers cannot import this test module

DEFAULTS = {"bfs_levels": True, "bfs_bitmap_exchange": True, "bfs_peer_levels": True, "bfs_peer_pull": True,
            "bfs_peer_frontier_limit": 1 << 26, "bfs_peer_blocks_per_sm": 4, "bfs_levels_frontier_limit": 1 << 16,
            "bfs_levels_degree_limit": 2048,
            "bfs_levels_blocks_per_sm": 1, "sssp_steps": True, "sssp_steps_edge_limit": 1 << 20,
            "sssp_steps_blocks_per_sm": 1, "sssp_skip_stale": True, "sssp_routed": True, "tasks_run_ahead": True,
            "tasks_lane": True, "spmd_launch": "lane",
            "profile_supersteps": False, "emv_fuse": True, "emv_cache_dir": None}

#: each option's environment variable, a value for it and what it becomes
ENV = [("bfs_levels", "DGRAPH_LEVELS", "0", False),
       ("bfs_bitmap_exchange", "DGRAPH_BFS_BITMAP_EXCHANGE", "off", False),
       ("bfs_peer_levels", "DGRAPH_BFS_PEER_LEVELS", "no", False),
       ("bfs_peer_pull", "DGRAPH_BFS_PEER_PULL", "off", False),
       ("bfs_peer_frontier_limit", "DGRAPH_BFS_PEER_MF_LIMIT", "99", 99),
       ("bfs_peer_blocks_per_sm", "DGRAPH_BFS_PEER_BLOCKS_PER_SM", "2", 2),
       ("bfs_levels_frontier_limit", "DGRAPH_LEVELS_MF_LIMIT", "123", 123),
       ("bfs_levels_degree_limit", "DGRAPH_LEVELS_DEG_LIMIT", "7", 7),
       ("bfs_levels_blocks_per_sm", "DGRAPH_LEVELS_BLOCKS_PER_SM", "2", 2),
       ("sssp_steps", "DGRAPH_SSSP_STEPS", "off", False),
       ("sssp_steps_edge_limit", "DGRAPH_SSSP_STEPS_EDGE_LIMIT", "40", 40),
       ("sssp_steps_blocks_per_sm", "DGRAPH_SSSP_BLOCKS_PER_SM", "3", 3),
       ("sssp_skip_stale", "DGRAPH_SSSP_SKIP_STALE", "false", False),
       ("sssp_routed", "DGRAPH_SSSP_ROUTED", "false", False),
       ("tasks_run_ahead", "DGRAPH_TASKS_RUN_AHEAD", "off", False),
       ("tasks_lane", "DGRAPH_TASKS_LANE", "0", False),
       ("spmd_launch", "DGRAPH_SPMD_LAUNCH", "task", "task"),
       ("profile_supersteps", "DGRAPH_PROFILE", "1", True),
       ("emv_fuse", "DGRAPH_EMV_FUSE", "0", False),
       ("emv_cache_dir", "DGRAPH_EMV_CACHE", "/somewhere/else", "/somewhere/else")]


def test_defaults_and_every_option_documented():
    fresh = Config(environ={})
    assert fresh.snapshot() == DEFAULTS
    assert fresh.snapshot(changed=True) == {}
    assert [o.name for o in OPTIONS] == list(DEFAULTS)
    assert all(o.doc and o.env.startswith("DGRAPH_") for o in OPTIONS)
    assert {o.name for o in OPTIONS} == {name for name, *_ in ENV}


@pytest.mark.parametrize("name,env,text,value", ENV, ids=[e[1] for e in ENV])
def test_environment_mapping(name, env, text, value):
    c = Config(environ={env: text})
    assert getattr(c, name) == value
    assert c.snapshot(changed=True) == {name: value}
    assert Config(environ={env: ""}).snapshot(changed=True) == {}  # empty: unset, as before


def test_environment_read_once_at_import_in_a_new_process():
    code = ("import dgraph, os; print(sorted(dgraph.config.snapshot(changed=True).items())); "
            "os.environ['DGRAPH_LEVELS'] = '1'; print(dgraph.config.bfs_levels)")
    env = {k: v for k, v in os.environ.items() if not k.startswith("DGRAPH_")}
    env.update(DGRAPH_LEVELS="0", DGRAPH_SPMD_LAUNCH="task", DGRAPH_SSSP_STEPS_EDGE_LIMIT="99",
               PYTHONPATH=os.pathsep.join([os.path.dirname(os.path.dirname(dgraph.__file__)),
                                           env.get("PYTHONPATH", "")]))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == str([("bfs_levels", False), ("spmd_launch", "task"), ("sssp_steps_edge_limit", 99)])
    assert lines[1] == "False"  # a variable set after import changes nothing: the config object does


def test_read_environ_reloads_and_bad_variables_are_named():
    c = Config(environ={})
    assert c.read_environ({"DGRAPH_PROFILE": "yes"}) == {"profile_supersteps": True}
    assert c.profile_supersteps is True
    c.read_environ({})  # unset again: back to the default
    assert c.profile_supersteps is False
    with pytest.raises(InputError, match=r"DGRAPH_LEVELS_MF_LIMIT='lots': expected an integer >= 0 "
                                         r"\(dgraph.config.bfs_levels_frontier_limit\)"):
        c.read_environ({"DGRAPH_LEVELS_MF_LIMIT": "lots"})
    with pytest.raises(InputError, match="DGRAPH_SPMD_LAUNCH='pigeon': expected one of lane, direct, task"):
        c.read_environ({"DGRAPH_SPMD_LAUNCH": "pigeon"})
    with pytest.warns(UserWarning, match="DGRAPH_LEVELS='maybe'.*ignored, bfs_levels keeps its default True"):
        d = Config(environ={"DGRAPH_LEVELS": "maybe", "DGRAPH_PROFILE": "1"})  # what import does: no crash
    assert d.snapshot(changed=True) == {"profile_supersteps": True}


@pytest.mark.parametrize("name,value,expected", [
    ("bfs_levels", "no", "True or False"),
    ("bfs_levels", 0, "True or False"),
    ("bfs_levels_frontier_limit", -1, "an integer >= 0"),
    ("bfs_levels_frontier_limit", 2.5, "an integer >= 0"),
    ("bfs_levels_frontier_limit", True, "an integer >= 0"),
    ("sssp_steps_blocks_per_sm", 0, "an integer >= 1"),
    ("spmd_launch", "carrier-pigeon", "one of 'lane', 'direct', 'task'"),
    ("emv_cache_dir", "", "a folder name"),
    ("emv_cache_dir", 3, "a folder name"),
])
def test_bad_values_raise_input_error_naming_the_key(name, value, expected):
    before = dgraph.config.snapshot()
    with pytest.raises(InputError, match=rf"dgraph.config.{name}={value!r}: expected {expected}"):
        setattr(dgraph.config, name, value)
    with pytest.raises(InputError, match=rf"dgraph.config.{name}="):
        with dgraph.config.override(**{name: value}):
            pass
    assert dgraph.config.snapshot() == before  # nothing changed


def test_unknown_option():
    with pytest.raises(InputError, match="dgraph.config has no option 'bfs_level'; options: bfs_levels, "):
        dgraph.config.bfs_level = False
    with pytest.raises(InputError, match="no option 'nope'"):
        with dgraph.config.override(emv_fuse=False, nope=1):
            pass
    assert dgraph.config.emv_fuse is True  # checked before anything changed
    with pytest.raises(AttributeError, match="no option 'nope'"):
        dgraph.config.nope  # noqa: B018


def test_override_restores_nests_and_stays_in_its_thread():
    assert dgraph.config.bfs_levels is True
    seen = {}

    def other():
        seen["other"] = dgraph.config.bfs_levels

    with dgraph.config.override(bfs_levels=False, sssp_steps_edge_limit=5):
        assert (dgraph.config.bfs_levels, dgraph.config.sssp_steps_edge_limit) == (False, 5)
        with dgraph.config.override(sssp_steps_edge_limit=6):
            assert (dgraph.config.bfs_levels, dgraph.config.sssp_steps_edge_limit) == (False, 6)
            assert dgraph.config.snapshot(changed=True) == {"bfs_levels": False, "sssp_steps_edge_limit": 6}
        assert dgraph.config.sssp_steps_edge_limit == 5
        t = threading.Thread(target=other)
        t.start()
        t.join()
    assert seen["other"] is True  # another thread keeps the process settings
    assert dgraph.config.snapshot() == DEFAULTS
    with pytest.raises(RuntimeError):
        with dgraph.config.override(emv_fuse=False):
            raise RuntimeError("boom")
    assert dgraph.config.emv_fuse is True


def test_assignment_is_process_wide_and_read_at_call_time(monkeypatch):
    from dgraph.emv import fuse

    monkeypatch.setattr(dgraph.config, "emv_fuse", False)  # after import dgraph: takes effect
    assert fuse.enabled() is False
    seen = []
    t = threading.Thread(target=lambda: seen.append(dgraph.config.emv_fuse))
    t.start()
    t.join()
    assert seen == [False]
    with dgraph.config.applied({"profile_supersteps": True}):  # a worker's view: exactly the client's
        assert dgraph.config.snapshot(changed=True) == {"profile_supersteps": True}
        assert fuse.enabled() is True
    assert fuse.enabled() is False


def test_result_params_record_the_settings():
    G = dgraph.generate("grid", rows=3, cols=3)
    assert dgraph.bfs(G, 0).params["config"] == {}
    with dgraph.config.override(bfs_levels=False, spmd_launch="task"):
        r = dgraph.bfs(G, 0)
    assert r.params["config"] == {"bfs_levels": False, "spmd_launch": "task"}
    assert "config" not in dgraph.bfs(G, 0)._repr_html_()  # all defaults: nothing shown
    assert "spmd_launch" in r._repr_html_()


def test_system_info_shows_the_settings():
    from dgraph.system import format_system_info, system_info

    with dgraph.config.override(sssp_steps=False):
        info = system_info()
    assert info["configuration"]["sssp_steps"] == "False (default True)"
    assert info["configuration"]["bfs_levels"] == "True"
    assert set(info["configuration"]) == set(DEFAULTS)
    assert "sssp_steps" in format_system_info(info)


class _SeesConfig(BFS):
    """A BFS whose superstep records say what dgraph.config.emv_fuse was on the worker."""

    def receive(self, shard, st, contributions, ctx):
        report = super().receive(shard, st, contributions, ctx)
        report["worker_emv_fuse"] = bool(dgraph.config.emv_fuse)
        return report


def _worker_settings(dask_worker):
    return dgraph.config.snapshot(changed=True)


@pytest.mark.parametrize("executor,launch", [("spmd", "lane"), ("spmd", "direct"), ("spmd", "task"), ("tasks", None)])
def test_settings_reach_the_workers(client, executor, launch):
    PG = dgraph.generate("grid", rows=4, cols=6).partition(2, client=client)
    make = lambda ids: _SeesConfig(0)  # noqa: E731
    plain = run_program(make, PG, executor=executor)
    assert set(plain.stats["worker_emv_fuse"]) == {True}
    settings = {"emv_fuse": False} | ({"spmd_launch": launch} if launch else {})
    with dgraph.config.override(**settings):
        r = run_program(make, PG, executor=executor)
    assert r.params["config"] == {k: v for k, v in settings.items() if v != DEFAULTS[k]}  # changed ones only
    assert set(r.stats["worker_emv_fuse"]) == {False}
    assert all(v == {} for v in client.run(_worker_settings).values())  # restored on the workers


@pytest.mark.parametrize("launch", ["lane", "direct", "task"])
def test_profile_supersteps_reaches_spmd_workers(client, launch):
    PG = dgraph.generate("grid", rows=4, cols=6).partition(2, client=client)
    r = dgraph.bfs(PG, 0, executor="spmd")
    assert "kernel_s" not in r.stats
    with dgraph.config.override(profile_supersteps=True, spmd_launch=launch):
        r = dgraph.bfs(PG, 0, executor="spmd")
    assert {"kernel_s", "exchange_s", "receive_s"} <= set(r.stats.columns)
    assert r.stats["kernel_s"].notna().all() and len(r.stats) > 1
    # each shard's own time in its kernels (how the work balances), not in the unprofiled run
    assert "kernel_s_0" not in dgraph.bfs(PG, 0, executor="spmd").phases
    busy = [r.phases[f"kernel_s_{q}"] for q in range(2)]
    assert all(b > 0 for b in busy) and "kernel_s" not in r.phases
    assert all(v >= 0 for k, v in r.phases.items() if k.startswith("launch_")), r.phases  # none counted twice


def test_readme_table_lists_every_option():
    from pathlib import Path

    readme = (Path(dgraph.__file__).parents[1] / "README.md").read_text()
    rows = {line.split("|")[1].strip(): line for line in readme.splitlines() if line.startswith("| `")}
    for o in OPTIONS:
        row = next((r for k, r in rows.items() if k.startswith(f"`{o.name}` (")), None)
        assert row is not None, o.name
        assert f"`{o.env}`" in row and f"({o.default!r})".replace("'", '"') in row.split("|")[1], row
