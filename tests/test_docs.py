"""The docs run: README's Python blocks and its `dgraph ...` command lines, the docstrings' examples,
the names the README gives Dask tasks, and the files docs/DESIGN.md points at.

A README block that needs a cluster or a GPU is skipped only when an HTML comment right above it
says so (``<!-- doc-test: skip (why) -->``); every other block runs, on the CPU default, in a
scratch folder holding the small files the examples read (web.mtx, web.e, web.v).
"""

import doctest
import importlib
import pkgutil
import re
import shlex
from pathlib import Path

import pytest

import dgraph
from dgraph import cli

REPO = Path(__file__).resolve().parent.parent
README = (REPO / "README.md").read_text()
SKIP = re.compile(r"<!--\s*doc-test:\s*skip\s*\((?P<why>[^)]+)\)\s*-->\s*$")


def _blocks(text, lang):
    """(line number, code, skip reason or None) of every fenced ``lang`` block."""
    out = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        if lines[i].strip() == f"```{lang}":
            start = i + 1
            j = start
            while lines[j].strip() != "```":
                j += 1
            above = next((lines[k] for k in range(i - 1, -1, -1) if lines[k].strip()), "")
            m = SKIP.search(above)
            out.append((start + 1, "\n".join(lines[start:j]), m.group("why") if m else None))
            i = j
        i += 1
    return out


PYTHON = _blocks(README, "python")


def _scratch(folder):
    """The files README's examples read: a Matrix Market file and a Graphalytics pair."""
    (folder / "web.mtx").write_text("%%MatrixMarket matrix coordinate pattern general\n4 4 4\n1 2\n2 3\n3 4\n4 1\n")
    (folder / "web.v").write_text("1\n2\n3\n4\n")
    (folder / "web.e").write_text("1 2\n2 3\n3 4\n4 1\n")


@pytest.mark.parametrize("line,code,why", PYTHON, ids=[f"README.md:{b[0]}" for b in PYTHON])
def test_readme_python_block_runs(line, code, why, tmp_path, monkeypatch):
    if why:
        pytest.skip(f"README.md:{line}: {why}")
    _scratch(tmp_path)
    monkeypatch.chdir(tmp_path)
    _check_runs(code, f"README.md:{line}")


def _check_runs(code, where):
    """Run a README block; whatever it raises fails the test, named by its README line."""
    exec(compile(code, where, "exec"), {"__name__": "readme"})  # noqa: S102


def test_readme_skips_only_what_needs_a_cluster_or_a_gpu():
    skipped = [why for _, _, why in PYTHON if why]
    assert len(PYTHON) >= 4 and len(skipped) <= 1, skipped
    assert all(re.search(r"cluster|GPU", why) for why in skipped), skipped


def _commands():
    """Every ``dgraph ...`` command line of README's bash blocks (comments cut)."""
    out = []
    for line, code, _ in _blocks(README, "bash"):
        for k, text in enumerate(code.splitlines()):
            text = text.split(" #", 1)[0].strip()
            for part in text.split("&&"):
                part = part.strip()
                if part.startswith("dgraph "):
                    out.append((line + k, part))
    return out


@pytest.mark.parametrize("line,command", _commands(), ids=[f"README.md:{c[0]}" for c in _commands()])
def test_readme_command_lines_parse(line, command):
    argv = shlex.split(command)[1:]
    try:
        args = cli.build_parser().parse_args(argv)
    except SystemExit as exc:  # argparse's way of refusing a flag
        pytest.fail(f"README.md:{line}: `{command}` does not parse (exit {exc.code})")
    assert args.command == argv[0] and callable(args.func)


def test_readme_install_lines_use_the_distribution_name():
    assert 'name = "dgraph-frontier"' in (REPO / "pyproject.toml").read_text()
    for doc in (README, (REPO / "cluster" / "README.md").read_text()):
        bad = [line for line in doc.splitlines()
               if re.search(r"pip install\s+['\"]?dgraph(\[|\s|$|['\"])", line) and "Never" not in line]
        assert not bad, bad


def _modules_with_examples():
    names = []
    for info in pkgutil.walk_packages(dgraph.__path__, "dgraph."):
        path = Path(importlib.util.find_spec(info.name).origin)
        if path.suffix == ".py" and ">>>" in path.read_text():
            names.append(info.name)
    return names


@pytest.mark.parametrize("name", _modules_with_examples())
def test_docstring_examples_run(name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # an example may write (results/demo)
    module = importlib.import_module(name)
    tests = [t for t in doctest.DocTestFinder().find(module) if t.examples]
    assert tests, f"{name}: '>>>' in the source but no example found"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for t in tests:
        runner.run(t)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{name}: {result.failed} of {result.attempted} examples failed (output above)"


def test_readme_names_the_task_groups_the_tasks_executor_makes():
    """What README says the dashboard shows for `tasks` is what Dask groups the keys as."""
    import distributed
    from dask.utils import key_split

    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as lc, \
            distributed.Client(lc) as client:
        PG = dgraph.generate("grid", rows=4, cols=6).partition(4, client=client)  # (p=3, fanout 2: KeyError, a tasks bug)
        with distributed.get_task_stream(client) as ts:
            dgraph.bfs(PG, 0, executor="tasks", exchange="butterfly", fanout=2)
        groups = {key_split(t["key"]) for t in ts.data}
    said = set(re.findall(r"`(bfs-[a-z-]+)`", README))
    made = {g for g in groups if g.startswith("bfs")}
    assert {"bfs-superstep", "bfs-merge"} <= made, made
    assert made <= said, f"README does not name {sorted(made - said)}"
    assert "bfs" not in groups  # no key groups as a bare "bfs"


def test_design_points_at_files_that_exist():
    text = (REPO / "docs" / "DESIGN.md").read_text()
    layout = text.split("## Layout", 1)[1].split("```", 2)[1]
    missing = []
    for line in layout.splitlines():
        m = re.match(r"^( {0,2})([\w./-]+)", line)  # entries sit at indent 0 (repository) or 2 (dgraph/)
        if not m or m.group(2) == "dgraph/":
            continue
        name = m.group(2)
        indent = len(m.group(1))
        path = (REPO / "dgraph" / name) if indent else (REPO / name)
        if not path.exists():
            missing.append(name)
    assert not missing, f"docs/DESIGN.md names {missing}, which are not in the repository"
    for ref in re.findall(r"`([\w-]+/)`", text):  # folders it sends the reader to
        assert (REPO / ref).exists() or (REPO / "dgraph" / ref).exists(), f"docs/DESIGN.md points at {ref}"
