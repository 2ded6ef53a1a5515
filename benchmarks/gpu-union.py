"""The partitioned BFS's union of a pull superstep on one GPU: emit (ids, ranks, degrees, owned rows)
against mark (byte mask and levels only, when the next superstep pulls too), CUDA events.

Usage: python3 benchmarks/gpu-union.py [--scale 26] [--frontier 28000000] [--parts 2] [--repeat 20]

The bitmaps are what ``send_bits`` makes after a pull on ``--parts`` vertex ranges (each range
claims its own vertices); half of the vertices outside the frontier are visited already.
"""
import argparse

import numpy as np


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", type=int, default=26)
    ap.add_argument("--frontier", type=int, default=28_000_000)
    ap.add_argument("--parts", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=20)
    args = ap.parse_args()
    import cupy as cp

    from dgraph.algorithms.bfs.union import FrontierUnion

    n = 1 << args.scale
    rng = np.random.default_rng(0)
    front = np.sort(rng.choice(n, size=args.frontier, replace=False)).astype(np.int32)
    labels0 = np.where(rng.random(n) < 0.5, 1, -1).astype(np.int32)
    labels0[front] = -1
    cuts = np.linspace(0, n, args.parts + 1).astype(np.int64)
    degree = cp.asarray(rng.integers(0, 64, n).astype(np.int64))
    u = FrontierUnion(n, np.int32, int(cuts[0]), int(cuts[1] - cuts[0]))  # shard 0's view
    bitmaps, tallies = [], []
    for q in range(args.parts):
        mine = front[(front >= cuts[q]) & (front < cuts[q + 1])]
        counters = cp.asarray(np.array([len(mine), 0, 0, 0], dtype=np.uint64))
        words, tally = u.send_bits(cp.asarray(mine), counters)
        bitmaps.append(words)
        tallies.append(tally.copy())
    labels = cp.asarray(labels0)
    template = labels.copy()

    def timed(f):
        start, end = cp.cuda.Event(), cp.cuda.Event()
        times = []
        for _ in range(args.repeat + 1):
            labels[...] = template
            start.record()
            f()
            end.record()
            end.synchronize()
            times.append(cp.cuda.get_elapsed_time(start, end) * 1e3)
        return float(np.median(times[1:]))

    t_emit = timed(lambda: u.union_fixed(bitmaps, tallies, labels, 3, degree, dense=True))
    after_emit = cp.asnumpy(labels)
    mask_emit = cp.asnumpy(u.fmask).copy()
    t_mark = timed(lambda: u.mark(bitmaps, labels, 3))
    assert np.array_equal(cp.asnumpy(labels), after_emit) and np.array_equal(cp.asnumpy(u.fmask), mask_emit)
    t_totals = timed(lambda: u.totals(tallies))
    name = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    print(f"{name}: n = 2^{args.scale}, frontier {args.frontier:,}, {args.parts} ranges, median us of {args.repeat}: "
          f"emit (union_fixed, dense, with its read) {t_emit:.1f}, mark {t_mark:.1f} (+ totals' read {t_totals:.1f}); "
          f"same mask and labels")


if __name__ == "__main__":
    main()
