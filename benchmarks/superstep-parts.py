"""Where a partitioned GPU BFS superstep's time goes, piece by piece, on one GPU: the local executor
runs p shards in one process, and every piece of the BFS package's superstep and receive is wrapped to wait for
the GPU before and after and record its wall time (medians over repeated runs, per superstep, shard 0).

Usage: python3 benchmarks/superstep-parts.py SCALE [PARTS] [REPEAT]"""

import collections
import statistics
import sys
import time

import cupy as cp

import dgraph
from dgraph.algorithms.bfs import gpu as bfs_gpu
from dgraph.algorithms.bfs import kernels as bfs_kernels
from dgraph.algorithms.bfs import program as bfs_mod
from dgraph.algorithms.bfs import union as gpu_frontier

scale = int(sys.argv[1]) if len(sys.argv) > 1 else 22
parts = int(sys.argv[2]) if len(sys.argv) > 2 else 2
repeat = int(sys.argv[3]) if len(sys.argv) > 3 else 5
sync = cp.cuda.get_current_stream().synchronize
times = collections.defaultdict(list)
step = {"s": 0}


def timed(name, fn):
    def wrapper(*a, **k):
        sync()
        t = time.perf_counter()
        out = fn(*a, **k)
        sync()
        times[(step["s"], name)].append(time.perf_counter() - t)
        return out
    return wrapper


bfs_kernels.frontier_rows = timed("_frontier_rows", bfs_kernels.frontier_rows)
bfs_gpu.buffers = timed("_gpu_state", bfs_gpu.buffers)
bfs_mod._frontier_payload = timed("_frontier_payload", bfs_mod._frontier_payload)
bfs_gpu.push = timed("push (all)", bfs_gpu.push)
bfs_gpu.pull = timed("pull (all)", bfs_gpu.pull)
bfs_gpu.visit_push = timed("visit_push", bfs_gpu.visit_push)
bfs_gpu.visit_pull = timed("visit_pull", bfs_gpu.visit_pull)
gpu_frontier.FrontierUnion.union = timed("union", gpu_frontier.FrontierUnion.union)
gpu_frontier.FrontierUnion.bits = timed("bits", gpu_frontier.FrontierUnion.bits)
superstep, receive = bfs_mod.BFS.superstep, bfs_mod.BFS.receive


def superstep_t(self, shard, st, ctx):
    step["s"] = ctx.step
    return timed("superstep (all)", superstep)(self, shard, st, ctx)


bfs_mod.BFS.superstep = superstep_t
bfs_mod.BFS.receive = timed("receive (all)", receive)

G = dgraph.generate("rmat", scale=scale, backend="cupy")
src = int(cp.argmax(G.out_degree()))
PG = G.partition(parts, client=False, backend="cupy")
for _ in range(repeat + 1):
    r = dgraph.bfs(PG, src, executor="local")
print(f"rmat{scale} p={parts} (local executor, one GPU): {r.run_time * 1e3:.2f} ms last run, "
      f"{r.supersteps} supersteps; medians in ms over {repeat + 1} runs x {parts} shards")
for s in range(r.supersteps):
    row = {name: statistics.median(v) * 1e3 for (k, name), v in times.items() if k == s}
    print(f"  s{s}: " + ", ".join(f"{k} {v:.3f}" for k, v in sorted(row.items())))
