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
