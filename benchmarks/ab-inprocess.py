"""Before/after in one process, calls interleaved, so the machine's drift (this GPU machine's times move
by 20% between processes) hits both alike: ``before`` is a copy of an older dgraph imported as the
package ``dgraph_before`` (its absolute ``dgraph.`` imports and lazy names rewritten to it).

    python3 benchmarks/ab-inprocess.py BEFORE_DIR ALGO GRAPH [rounds]
    e.g. ab-inprocess.py .whl/before sssp rmat:scale=20,weighted=True 10
"""
import os
import shutil
import statistics
import sys
import tempfile
import time

import cupy as cp

import dgraph
from dgraph.bench.bfs import pick_source

before_dir, algo, spec = sys.argv[1], sys.argv[2], sys.argv[3]
rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 10
tmp = tempfile.mkdtemp()
shutil.copytree(os.path.join(before_dir, "dgraph"), os.path.join(tmp, "dgraph_before"))
for root, _, files in os.walk(os.path.join(tmp, "dgraph_before")):  # its absolute imports: to itself
    for f in files:
        if f.endswith(".py"):
            path = os.path.join(root, f)
            text = open(path).read()
            open(path, "w").write(text.replace('("dgraph.', '("dgraph_before.').replace("from dgraph.", "from dgraph_before."))
sys.path.insert(0, tmp)
import dgraph_before  # noqa: E402

kind, _, params = spec.partition(":")
kw = {k: (v == "True" if v in ("True", "False") else int(v)) for k, v in (p.split("=") for p in params.split(",") if p)}


def make(pkg):
    return pkg.generate(kind, backend="cupy", **kw)


Ga, Gb = make(dgraph_before), make(dgraph)
src = pick_source(Gb, "corner" if kind == "grid" else "max-degree")
calls = {
    "sssp": lambda pkg, G: pkg.sssp(G, src),
    "pagerank": lambda pkg, G: pkg.pagerank(G, iterations=20),
    "bfs": lambda pkg, G: pkg.bfs(G, src),
}[algo]
t = {"before": [], "after": []}
col = {"sssp": "distance", "pagerank": "pagerank", "bfs": "depth"}[algo]
outs = {}
for r in range(rounds + 1):
    for name, pkg, G in (("before", dgraph_before, Ga), ("after", dgraph, Gb)):
        cp.cuda.Device().synchronize()
        t0 = time.perf_counter()
        res = calls(pkg, G)
        x = res.raw(col)
        cp.cuda.Device().synchronize()
        if r:
            t[name].append(time.perf_counter() - t0)
        outs[name] = cp.asarray(x)
same = bool((outs["before"] == outs["after"]).all()) if algo != "pagerank" else float(cp.abs(outs["before"] - outs["after"]).max())
ratios = [a / b for a, b in zip(t["after"], t["before"])]
print(f"{algo} {spec}: before median {statistics.median(t['before']) * 1e3:.3f} ms (min {min(t['before']) * 1e3:.3f}), "
      f"after median {statistics.median(t['after']) * 1e3:.3f} ms (min {min(t['after']) * 1e3:.3f}); "
      f"after/before per round: median {statistics.median(ratios):.3f}, range {min(ratios):.3f}-{max(ratios):.3f}; "
      f"{rounds} rounds; same answer: {same}")
