"""The example scripts run as they are (at a small size), so they never rot."""

import importlib.util
from pathlib import Path

EXAMPLES = Path(__file__).parent.parent / "examples"


def test_quickstart_runs(capsys):
    spec = importlib.util.spec_from_file_location("quickstart", EXAMPLES / "quickstart.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.main(scale=8)
    out = capsys.readouterr().out
    assert "spmd: same depths and parents" in out and "tasks: same depths and parents" in out
    assert "wrote" in out


def test_emv_pagerank_example_runs(capsys, monkeypatch):
    import runpy
    import sys

    monkeypatch.setattr(sys, "argv", ["emv_pagerank.py", "2"])
    runpy.run_path(str(EXAMPLES / "emv_pagerank.py"), run_name="__main__")
    out = capsys.readouterr().out
    assert "max |EMV - dgraph.pagerank|" in out
    assert float(out.strip().split("= ")[-1].split()[0]) < 1e-12
