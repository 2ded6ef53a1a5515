"""maximal_matching as a CLI subcommand and a pipeline step (YAML and Python)."""

import textwrap

import pandas as pd
import pytest

import dgraph
from dgraph.cli import main
from dgraph.errors import PipelineError


def test_cli_subcommand(tmp_path, capsys):
    el = tmp_path / "bip.el"
    el.write_text("0 5\n0 6\n1 5\n2 6\n2 7\n3 7\n4 8\n")
    out = tmp_path / "mate.csv"
    assert main(["maximal_matching", str(el), "--left", "0", "1", "2", "3", "4", "--partitions", "2",
                 "-o", str(out)]) == 0
    assert "matched pairs" in capsys.readouterr().out
    df = pd.read_csv(out)
    assert list(df.columns) == ["vertex", "mate"]
    mate = dict(zip(df.vertex, df.mate))
    assert mate[4] == 8 and mate[8] == 4
    assert main(["maximal_matching", str(tmp_path / "missing.el")]) == 2


def test_pipeline_step_yaml_and_python(tmp_path):
    f = tmp_path / "mm.yaml"
    f.write_text(textwrap.dedent("""\
        graph:
          source: {generate: grid, rows: 4, cols: 5}
        partition: {parts: 2}
        steps:
          - {name: mm, run: maximal_matching, seed: 3, executor: local}
        outputs:
          - {from: mm, to: mm.csv}
    """))
    run = dgraph.load_pipeline(f)[0].run(results=tmp_path / "out")
    mate = run["mm"].to_pandas()
    assert (mate.mate >= 0).sum() >= 10  # a grid is bipartite; a maximal matching covers at least half
    assert (tmp_path / "out" / "mm.csv").exists()
    bad = tmp_path / "bad.yaml"
    bad.write_text("graph:\n  source: {generate: grid, rows: 2, cols: 2}\nsteps:\n"
                   "  - {name: mm, run: maximal_matching, seed: -2}\n")
    with pytest.raises(PipelineError, match="seed"):
        dgraph.load_pipeline(bad)
    p = dgraph.Pipeline(graph={"generate": "grid", "rows": 3, "cols": 3})
    r = p.maximal_matching("mm", left=[0, 2, 4, 6, 8]).run()
    assert set(r["mm"].to_pandas().columns) == {"vertex", "mate"}
