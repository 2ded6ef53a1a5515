"""CuPy's fill and where against dgraph.backend.gpu_fill, one GPU (the n-entry arrays a BFS run
starts from and ends with).  Usage: python3 benchmarks/gpu-fill.py [--scale 26] [--repeat 20]"""
import argparse

import numpy as np


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", type=int, default=26)
    ap.add_argument("--repeat", type=int, default=20)
    args = ap.parse_args()
    import cupy as cp

    from dgraph.backend.gpu_fill import fill, replace

    n = 1 << args.scale

    def timed(f):
        f()
        start, end = cp.cuda.Event(), cp.cuda.Event()
        times = []
        for _ in range(args.repeat):
            start.record()
            f()
            end.record()
            end.synchronize()
            times.append(cp.cuda.get_elapsed_time(start, end) * 1e3)
        return float(np.median(times))

    print(f"{cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}, n = 2^{args.scale}, median us of {args.repeat}")
    for dtype, v in ((np.int32, -1), (np.int32, np.iinfo(np.int32).max), (np.int64, -1), (np.float64, np.inf)):
        a = cp.empty(n, dtype=dtype)
        gb = a.nbytes / 1e9
        t_cupy = timed(lambda: a.fill(v))
        t_full = timed(lambda: cp.full(n, v, dtype=dtype))
        t_ours = timed(lambda: fill(a, v))
        assert bool((a == v).all()) if v == v else True
        t_memset = timed(lambda: a.fill(0))
        print(f"  fill {np.dtype(dtype).name} {v}: cupy fill {t_cupy:.1f} ({gb / t_cupy * 1e6:.0f} GB/s), cp.full "
              f"{t_full:.1f}, gpu_fill {t_ours:.1f} ({gb / t_ours * 1e6:.0f} GB/s), memset 0 {t_memset:.1f}")
    big = np.iinfo(np.int32).max
    p = cp.arange(n, dtype=cp.int32)
    p[::3] = big
    ref = cp.where(p == big, -1, p)
    t_where = timed(lambda: cp.where(p == big, -1, p))
    q = p.copy()
    t_replace = timed(lambda: (replace(q, big, -1), replace(q, -1, big))) / 2  # each pass rewrites a third
    replace(p, big, -1)
    assert bool((p == ref).all())
    print(f"  int32 unset -> -1: cupy where(==) {t_where:.1f} us, gpu_fill.replace in place {t_replace:.1f} us")


if __name__ == "__main__":
    main()
