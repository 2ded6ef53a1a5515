"""One GPU: the streaming build against the one-sort build (dgraph.generate), same graph, same call.

Usage: python3 benchmarks/stream-build-gpu1.py OUT.json SCALE [SCALE...]
For each scale: both builds timed (after a warm-up at scale 16), arrays compared, peak pool bytes.
A scale whose one-sort build does not fit is built by generate() through the streaming build."""
import json
import sys
import time

import cupy as cp

import dgraph
from dgraph.generators import _streamed, rmat
from dgraph.backend.device_memory import available, build_bytes


def timed(fn):
    pool = cp.get_default_memory_pool()
    pool.free_all_blocks()
    cp.cuda.Device().synchronize()
    t = time.perf_counter()
    out = fn()
    cp.cuda.Device().synchronize()
    return out, time.perf_counter() - t, pool.total_bytes()


def main():
    out_path, scales = sys.argv[1], [int(s) for s in sys.argv[2:]]
    figures = []
    dgraph.generate("rmat", scale=16, backend="cupy")
    _streamed("rmat", rmat.parse({"scale": 16}), 0, None, 1 << 16, 16 << 16, False, True, "w", cp)
    for scale in scales:
        prm = rmat.parse({"scale": scale})
        n, m = rmat.size(prm)
        fig = {"scale": scale, "arcs_generated": 2 * m}
        S, t, peak = timed(lambda: _streamed("rmat", prm, 0, None, n, m, False, True, "s", cp))
        fig.update(stream_s=round(t, 3), stream_pool_bytes=peak, arcs=S.num_arcs)
        if build_bytes(m, False, False) < available()[0] - S.indices.nbytes - S.indptr.nbytes:
            G, t, peak = timed(lambda: dgraph.generate("rmat", scale=scale, backend="cupy"))
            fig.update(sort_s=round(t, 3), sort_pool_bytes=peak,
                       equal=bool(cp.array_equal(G.indptr, S.indptr) and cp.array_equal(G.indices, S.indices)))
            del G
        else:
            fig["sort_s"] = "does not fit"
        del S
        G, t, _ = timed(lambda: dgraph.generate("rmat", scale=scale, backend="cupy"))
        fig["generate_s"] = round(t, 3)
        src = int(cp.argmax(G.out_degree()))
        dgraph.bfs(G, src)
        fig["bfs_ms"] = round(min(dgraph.bfs(G, src).run_time for _ in range(3)) * 1e3, 3)
        del G
        print(json.dumps(fig), flush=True)
        figures.append(fig)
    with open(out_path, "w") as f:
        json.dump(figures, f, indent=1)


if __name__ == "__main__":
    main()
