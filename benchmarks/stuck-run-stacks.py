"""Run one algorithm on a graph built on P GPUs; if it has not finished after WAIT seconds, print
every worker thread's Python stack and each GPU's memory (what the run is doing, or waiting on).

Usage: python3 benchmarks/stuck-run-stacks.py ALGORITHM SCALE P WAIT"""
import sys
import threading
import time
import traceback

import dgraph


def stacks():
    frames = sys._current_frames()
    out = []
    for t in threading.enumerate():
        if t.name.startswith("dgraph") and t.ident in frames:
            out.append(f"--- {t.name}\n" + "".join(traceback.format_stack(frames[t.ident])[-12:]))
    try:
        import cupy as cp

        free, total = cp.cuda.runtime.memGetInfo()
        out.append(f"GPU free {free / 2**30:.1f} GiB of {total / 2**30:.1f}; pool "
                   f"{cp.get_default_memory_pool().total_bytes() / 2**30:.1f} GiB")
    except Exception as exc:  # noqa: BLE001
        out.append(repr(exc))
    return "\n".join(out)


def main():
    algo, scale, p, wait = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
    from dgraph.cluster import connect

    client = connect("cuda")
    t = time.perf_counter()
    PG = dgraph.generate_partitioned("rmat", p, scale=scale, backend="cupy", client=client)
    print(f"built in {time.perf_counter() - t:.1f} s", flush=True)
    done = {}

    def run():
        try:
            r = getattr(dgraph, algo)(PG)
            done["r"] = (r.run_time, r.supersteps, r.stats_records[-3:])
        except Exception as exc:  # noqa: BLE001
            done["r"] = repr(exc)

    th = threading.Thread(target=run, daemon=True)
    t = time.perf_counter()
    th.start()
    th.join(wait)
    if th.is_alive():
        print(f"{algo} not done after {wait:.0f} s; worker stacks:", flush=True)
        for addr, text in client.run(stacks).items():
            print(f"=== {addr}\n{text}", flush=True)
    else:
        print(f"{algo}: {done['r']} ({time.perf_counter() - t:.1f} s)", flush=True)


if __name__ == "__main__":
    main()
