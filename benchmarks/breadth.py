"""Issue 23's algorithms on rmat20 and the 1000 x 1000 grid, in one process: each backend's time
(``dgraph.bench.breadth.bench_breadth``: a warm-up, then the median of ``--repeat``), the CuPy
answer compared with the numpy one, and (``--anchors``) the peer libraries beside the numpy run.

    python3 benchmarks/breadth.py OUT.jsonl [--backends numpy cupy] [--scale 20] [--repeat 3]
        [--algorithms core_number scc louvain hits jaccard random_walks] [--anchors] [--no-grid]

One JSON line a figure; a summary line a figure on stdout.  scc and hits run on the directed
graph (R-MAT directed; the grid with both arcs of each edge), the others on the undirected one.
"""
import argparse
import json

import numpy as np

import dgraph
from dgraph.backend import to_numpy
from dgraph.bench.breadth import ALGORITHMS, bench_breadth

DIRECTED = ("scc", "hits", "random_walks")


def _graphs(scale, grid):
    out = [(f"rmat{scale}", True, dgraph.generate("rmat", scale=scale, directed=True)),
           (f"rmat{scale}", False, dgraph.generate("rmat", scale=scale, directed=False))]
    if grid:
        g = dgraph.generate("grid", rows=1000, cols=1000)
        src, dst, _ = (to_numpy(a) for a in g.coo())  # every edge as its two arcs
        both = dgraph.from_edges(src, dst, directed=True, num_vertices=g.num_vertices, name="grid1000-arcs")
        out += [("grid1000", False, g), ("grid1000", True, both)]
    return out


def _answer(G, algorithm):
    """The values a run's answer is compared by (numpy)."""
    from dgraph.bench.breadth import _call, _pairs, _walk_starts  # noqa: PLC0415

    extra = {"pairs": _pairs(G)} if algorithm == "jaccard" else {"starts": _walk_starts(G)}
    if algorithm in ("core_number", "jaccard", "louvain") and G.num_self_loops:
        G = G.drop_self_loops()
    r = _call(G, algorithm, extra)()
    if algorithm == "random_walks":
        return to_numpy(r.paths)
    if algorithm == "jaccard":
        return to_numpy(r.jaccard)
    if algorithm == "hits":
        return np.r_[to_numpy(r.raw("hubs")), to_numpy(r.raw("authorities"))]
    col = {"core_number": "core", "scc": "component", "louvain": "community"}[algorithm]
    return to_numpy(r.raw(col))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--backends", nargs="+", default=["numpy", "cupy"])
    ap.add_argument("--scale", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--algorithms", nargs="+", default=list(ALGORITHMS))
    ap.add_argument("--anchors", action="store_true")
    ap.add_argument("--no-grid", action="store_true")
    args = ap.parse_args()
    with open(args.out, "w") as fh:
        for name, directed, G in _graphs(args.scale, not args.no_grid):
            for algorithm in args.algorithms:
                if (algorithm in DIRECTED) != directed:
                    continue
                answers = {}
                for backend in args.backends:
                    try:
                        fig = bench_breadth(G, algorithm, backend=backend, repeat=args.repeat,
                                            anchors=args.anchors and backend == "numpy", graph_name=name)
                        answers[backend] = _answer(G.to(backend), algorithm)
                    except Exception as e:  # noqa: BLE001 - one failing figure must not lose the others
                        fig = {"algorithm": algorithm, "graph": name, "backend": backend,
                               "error": f"{type(e).__name__}: {e}"}
                    if "numpy" in answers and backend != "numpy" and backend in answers:
                        a, b = answers["numpy"], answers[backend]
                        exact = algorithm not in ("hits",)
                        fig["same_as_numpy"] = bool(np.array_equal(a, b) if exact else
                                                    np.allclose(a, b, rtol=1e-9, atol=1e-12))
                    fig.pop("stats", None)
                    fh.write(json.dumps(fig, default=str) + "\n")
                    fh.flush()
                    anchors = "; ".join(f"{a['name']} {a['ms']:.1f} ms" for a in fig.get("anchors", [])
                                        if a.get("ms") is not None)
                    print(f"{algorithm:13s} {name:9s} {backend:6s} "
                          + (f"{fig['time_ms']:10.2f} ms  {fig.get('implementation')}  "
                             f"same={fig.get('same_as_numpy', '-')}  {fig.get('summary', '')}  {anchors}"
                             if "error" not in fig else fig["error"]), flush=True)


if __name__ == "__main__":
    main()
