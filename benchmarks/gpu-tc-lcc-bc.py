"""One GPU: triangle count, LCC, BC (one source) and CDLP (per iteration) on R-MAT, against the numpy path.

Issue 23 part 7's figures (targets on an H100, rmat20: triangle count and LCC <= 50 ms, BC one
source <= 5 ms, CDLP <= 2 ms an iteration).  Each figure: one warm-up call (kernels compiled or
loaded from CuPy's cache), then the median of ``--repeat`` calls of the public function on the
CuPy graph, the device synchronized before each clock read; the result is checked against the
numpy path's (triangle counts exactly, LCC and BC to a relative 1e-9, CDLP labels exactly).
Prints one JSON line a figure, with ``params["implementation"]`` of both paths; ``--phases``
adds the triangle count's two phases (oriented rows, count) timed apart; ``--baseline`` also
times the vectorized CuPy path (``kernels="generic"``; the triangle count's takes seconds on
rmat20), the figures the issue started from.

    python3 benchmarks/gpu-tc-lcc-bc.py [--scale 20] [--repeat 7] [--phases] [--baseline]
"""

import argparse
import json
import statistics
import time

import numpy as np

import dgraph
from dgraph.backend import to_numpy
from dgraph.bench.bfs import pick_source

TARGET_MS = {"triangle_count": 50.0, "lcc": 50.0, "bc": 5.0, "cdlp": 2.0}


def _sync():
    import cupy as cp

    cp.cuda.Device().synchronize()


def timed(fn, repeat):
    """(median ms, min ms, every run's ms, the last result) of ``repeat`` calls after one warm-up."""
    out = fn()
    runs = []
    for _ in range(repeat):
        _sync()
        t = time.perf_counter()
        out = fn()
        _sync()
        runs.append((time.perf_counter() - t) * 1e3)
    return statistics.median(runs), min(runs), runs, out


def check(name, got, ref, column):
    a, b = to_numpy(got.raw(column)), to_numpy(ref.raw(column))
    if name in ("triangle_count", "cdlp"):
        return {"check": "exact", "ok": bool(np.array_equal(a, b))}
    err = float(np.max(np.abs(a - b) / np.maximum(np.abs(b), 1e-300))) if len(b) else 0.0
    ok = bool(np.allclose(a, b, rtol=1e-9, atol=0))
    return {"check": "rtol 1e-9", "ok": ok, "max_rel_err": err}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--iterations", type=int, default=10, help="CDLP iterations a run")
    ap.add_argument("--phases", action="store_true", help="time the triangle count's phases apart")
    ap.add_argument("--baseline", action="store_true", help="time kernels='generic' on CuPy too")
    args = ap.parse_args()

    import cupy as cp

    device = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)["name"]
    device = device.decode() if isinstance(device, bytes) else device
    H = dgraph.generate("rmat", scale=args.scale, seed=1)          # the numpy graph (the reference)
    G = H.to("cupy")
    source = pick_source(H, "max-degree")
    graph = f"rmat{args.scale}"
    head = {"graph": graph, "vertices": H.num_vertices, "arcs": H.num_arcs, "device": device}
    print(json.dumps({"figure": "graph", **head}), flush=True)

    jobs = [
        ("triangle_count", "triangles", lambda g, **k: dgraph.triangle_count(g, **k)),
        ("lcc", "lcc", lambda g, **k: dgraph.lcc(g, **k)),
        ("bc", "bc", lambda g, **k: dgraph.bc(g, sources=[source], **k)),
        ("cdlp", "label", lambda g, **k: dgraph.cdlp(g, iterations=args.iterations, **k)),
    ]
    for name, column, fn in jobs:
        t0 = time.perf_counter()
        ref = fn(H)
        numpy_ms = (time.perf_counter() - t0) * 1e3
        med, low, runs, r = timed(lambda: fn(G), args.repeat)
        row = {"figure": name, **head, "median_ms": round(med, 3), "min_ms": round(low, 3),
               "runs_ms": [round(x, 3) for x in runs], "target_ms": TARGET_MS[name],
               "implementation": r.params["implementation"], "numpy_implementation": ref.params["implementation"],
               "numpy_ms_once": round(numpy_ms, 1), **check(name, r, ref, column)}
        if name == "bc":
            row["source"] = source
        if name == "cdlp":
            steps = r.supersteps
            row.update(iterations=steps, median_ms_per_iteration=round(med / max(steps, 1), 3),
                       superstep_median_ms=round(float(np.median(r.stats["time_s"])) * 1e3, 3),
                       target_ms_per_iteration=TARGET_MS[name])
            row.pop("target_ms")
        if name == "triangle_count":
            row["triangles"] = r.params["total"]
        if args.baseline:
            bmed, blow, _, b = timed(lambda: fn(G, kernels="generic"), max(1, min(3, args.repeat))) \
                if name != "bc" else timed(lambda: fn(G.partition(1, client=False, method="hash")),
                                           max(1, min(3, args.repeat)))
            row.update(baseline_implementation=b.params["implementation"], baseline_median_ms=round(bmed, 3))
        print(json.dumps(row), flush=True)

    if args.phases:
        from dgraph.algorithms.triangles import gpu as tgpu

        def phase(fn):
            start, end = cp.cuda.Event(), cp.cuda.Event()
            ms = []
            fn()
            for _ in range(args.repeat):
                start.record()
                out = fn()
                end.record()
                end.synchronize()
                ms.append(cp.cuda.get_elapsed_time(start, end))
            return statistics.median(ms), out

        o_ms, o = phase(lambda: tgpu.oriented(G.indptr, G.indices))
        c_ms, _ = phase(lambda: tgpu.count(o))
        launches = [{"kernel": k, "group_warps": gw, "pivots": len(p), "units": u, "slice": s, "slots": sl}
                    for k, gw, p, _, u, s, sl in tgpu.plan(o)]
        dplus = o.pptr[1:] - o.pptr[:-1]
        print(json.dumps({"figure": "triangle_count_phases", **head, "oriented_ms": round(o_ms, 3),
                          "count_ms": round(c_ms, 3), "edges": o.edges, "max_out_degree": int(dplus.max()),
                          "lookups": int((dplus * dplus).sum()), "launches": launches}), flush=True)


if __name__ == "__main__":
    main()
