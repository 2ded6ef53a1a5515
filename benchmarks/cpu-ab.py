"""Calls timed in turn in one process (A B C A B C ...), wall and process CPU time, medians: for CPU changes
on the shared 2-core box, where only ratios measured side by side mean anything.

    python3 benchmarks/cpu-ab.py GRAPH ROUNDS [--block K] [--before DIR] ['setup:CODE' ...] NAME=EXPR ...

GRAPH is a ``--generate`` spec (``grid:rows=1000,cols=1000``, ``rmat:scale=20,weighted=True``), held as
``G``.  Each ``NAME=EXPR`` is timed (one warm-up call first); ``setup:CODE`` runs once before, e.g. to
build an anchor's graph.  ``--before DIR``: a checkout of an older commit (``git archive REV | tar -x -C
DIR``), imported as the package ``dgraph_before`` (its absolute imports rewritten to it), with ``Gb``
the same graph as its Graph.  ``--block K``: each round calls each NAME K + 1 times in a row and
counts the last K (as ``dgraph bench --repeat`` runs one call after another: its data and the
allocator's free lists are the previous call's), the names' order reversed every other round; without
it a round is one call each.  Process CPU time adds both threads of a threaded kernel (and OpenMP's
spinning); wall time counts a neighbour's load.  Example (BFS on the grid, before/after and scipy):

    python3 benchmarks/cpu-ab.py grid:rows=1000,cols=1000 11 --before /tmp/base \\
        'setup:import scipy.sparse.csgraph as cg; A = G.to_scipy()' \\
        'before=dgraph_before.bfs(Gb, 1001)' 'after=dgraph.bfs(G, 1001)' \\
        'scipy=cg.breadth_first_order(A, 1001, directed=True, return_predecessors=True)'
"""

import os
import shutil
import statistics
import sys
import tempfile
import time

import dgraph
from dgraph.bench.spec import parse_generate


def import_before(tree):
    """``tree``/dgraph as the package ``dgraph_before`` (a copy, its absolute imports and lazy names renamed)."""
    tmp = tempfile.mkdtemp()
    dst = os.path.join(tmp, "dgraph_before")
    shutil.copytree(os.path.join(tree, "dgraph"), dst, ignore=shutil.ignore_patterns("__pycache__"))
    for root, _, files in os.walk(dst):
        for f in files:
            if f.endswith(".py"):
                path = os.path.join(root, f)
                with open(path) as fh:
                    text = fh.read()
                for a, b in (('("dgraph.', '("dgraph_before.'), ("from dgraph.", "from dgraph_before."),
                             ("from dgraph import", "from dgraph_before import"),
                             ("import dgraph\n", "import dgraph_before as dgraph\n")):
                    text = text.replace(a, b)
                with open(path, "w") as fh:
                    fh.write(text)
    sys.path.insert(0, tmp)
    import dgraph_before  # noqa: PLC0415

    return dgraph_before


def main(argv):
    spec, rounds, rest = argv[0], int(argv[1]), argv[2:]
    kind, params = parse_generate(spec)
    env = {"dgraph": dgraph, "G": dgraph.generate(kind, **params)}
    block = 0
    if rest[:1] == ["--block"]:
        block, rest = int(rest[1]), rest[2:]
    if rest[:1] == ["--before"]:
        before = import_before(rest[1])
        G = env["G"]
        env["dgraph_before"] = before
        env["Gb"] = before.graph.Graph(G.indptr, G.indices, G.weights, directed=G.directed, name=G.name)
        rest = rest[2:]
    calls = {}
    for arg in rest:
        if arg.startswith("setup:"):
            exec(arg[len("setup:"):], env)  # noqa: S102 - the command line's own code
        else:
            name, expr = arg.split("=", 1)
            calls[name] = eval("lambda: " + expr, env)  # noqa: S307
    for f in calls.values():
        f()
    wall = {k: [] for k in calls}
    cpu = {k: [] for k in calls}
    for r in range(rounds):
        names = list(calls) if not block or r % 2 == 0 else list(calls)[::-1]
        for k in names:
            for j in range(block + 1 if block else 1):
                t, c = time.perf_counter(), time.process_time()
                calls[k]()
                if j or not block:
                    cpu[k].append(time.process_time() - c)
                    wall[k].append(time.perf_counter() - t)
    for k in calls:
        print(f"{k:>12}: wall {statistics.median(wall[k]) * 1e3:9.1f} ms (min {min(wall[k]) * 1e3:8.1f})  "
              f"cpu {statistics.median(cpu[k]) * 1e3:9.1f} ms")


if __name__ == "__main__":
    main(sys.argv[1:])
