"""The example notebooks execute headless (nbclient, a python3 kernel) on the CPU default, small, and
show what they promise: HTML views of graphs, partitions and results, PNG plots, no errors."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat", reason="the test extra installs nbformat")
nbclient = pytest.importorskip("nbclient", reason="the test extra installs nbclient")

REPO = Path(__file__).resolve().parent.parent
NOTEBOOKS = {"quickstart.ipynb": 9, "multi_gpu.ipynb": 11}


def _execute(name, scale):
    nb = nbformat.read(REPO / "examples" / name, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code" and re.search(r"^SCALE = \d+", cell.source, re.M):
            cell.source = re.sub(r"^SCALE = \d+", f"SCALE = {scale}", cell.source, flags=re.M)
            break
    else:
        raise AssertionError(f"{name} has no SCALE = ... line to shrink")
    client = nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                                     resources={"metadata": {"path": str(REPO)}})
    client.execute()
    return nb


def _outputs(nb, mime):
    return [i for i, c in enumerate(nb.cells) if c.cell_type == "code"
            for o in c.get("outputs", []) if mime in o.get("data", {})]


@pytest.mark.parametrize("name", sorted(NOTEBOOKS))
def test_notebook_executes_and_renders(name):
    nb = _execute(name, NOTEBOOKS[name])
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if o["output_type"] == "error"]
    assert not errors
    html = [o["data"]["text/html"] for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
            if "text/html" in o.get("data", {})]
    assert any("vertices" in h for h in html), "a graph or result rendered as HTML"
    assert any("part" in h and "worker" in h for h in html), "the partitioned graph's table rendered"
    assert _outputs(nb, "image/png"), "the superstep plot rendered as a PNG"
