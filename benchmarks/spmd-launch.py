"""What starting an spmd run costs, against a bare Dask RPC to every worker (same call).

Usage: python3 benchmarks/spmd-launch.py [--backend cupy|numpy] [--runs 200] [--launch lane direct]

Times (a) one ping RPC to every worker at once, as the direct launch reaches them, and (b) a whole
spmd run of the Idle program with no superstep (its Result included), on a 2-shard graph, for each
``--launch`` (``dgraph.config.spmd_launch``; the modes alternate in rounds of 20 runs, so load
drifts hit them alike); prints the medians and the run's ``launch_s`` phase, then the launch split
of profiled runs.  Cluster: one worker a GPU (cupy) or 2 CPU workers.
"""
import argparse
import asyncio
import statistics
import time

import dgraph


def _install_ping(dask_worker):
    def ping(comm=None, x=None):
        return x
    dask_worker.handlers["dgraph_ping"] = ping


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--backend", default="cupy")
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--launch", nargs="+", default=["lane", "direct"], help="spmd_launch modes to compare")
    args = ap.parse_args()
    from dgraph.cluster import connect
    from dgraph.engine.idle import Idle
    from dgraph.engine.run import run_program

    client = connect("cuda") if args.backend == "cupy" else connect(workers=2)
    client.run(_install_ping)
    addrs = list(client.scheduler_info()["workers"])

    async def ping_all():
        return await asyncio.gather(*[client.rpc(a).dgraph_ping(x=1) for a in addrs])

    pings = []
    for _ in range(args.runs):
        t = time.perf_counter()
        client.sync(ping_all)
        pings.append(time.perf_counter() - t)
    PG = dgraph.generate("rmat", scale=12, seed=1, backend=args.backend).partition(len(addrs), client=client)
    med = lambda xs: statistics.median(xs[10:]) * 1e3  # noqa: E731
    print(f"{len(addrs)} workers ({args.backend}): ping every worker {med(pings):.3f} ms")
    runs = {m: [] for m in args.launch}
    launch = {m: [] for m in args.launch}
    split = {m: {} for m in args.launch}
    for _ in range(max(1, args.runs // 20)):
        for mode in args.launch:
            with dgraph.config.override(spmd_launch=mode):
                for _ in range(20):
                    t = time.perf_counter()
                    r = run_program(lambda ids: Idle(0), PG, executor="spmd")
                    runs[mode].append(time.perf_counter() - t)
                    launch[mode].append(r.phases["launch_s"])
            # where the launch goes (profiled runs: the host clock at the worker's handler, loop and reply)
            with dgraph.config.override(spmd_launch=mode, profile_supersteps=True):
                for _ in range(5):
                    r = run_program(lambda ids: Idle(0), PG, executor="spmd")
                    for k, v in r.phases.items():
                        if k.startswith("launch_"):
                            split[mode].setdefault(k, []).append(v)
    for mode in args.launch:
        print(f"launch={mode}: idle spmd run {med(runs[mode]):.3f} ms (launch_s {med(launch[mode]):.3f} ms), "
              f"median of {len(runs[mode]) - 10}")
        print("  profiled idle runs, launch split (ms): " +
              ", ".join(f"{k} {statistics.median(v) * 1e3:.3f}" for k, v in split[mode].items()))


if __name__ == "__main__":
    main()
