#!/usr/bin/env bash
# Two-GPU call (nvidia-h200-x2), 2026-11-23: the multi-GPU tests with the direct spmd launch, the
# one-level tasks executor and the fused GPU frontier union, the empty-superstep overheads, BFS rmat24 on 1 and 2 GPUs (profiled: where a
# superstep's time goes), and issue 8's 8-partition run simulated on 2 GPUs.  Usage: gpu-x2.sh OUTDIR
set -uo pipefail
out=${1:?usage: gpu-x2.sh OUTDIR}
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
quiet() { grep -v -i -E "warn|CUDA context|Please make sure|NAT = np|distributed\.|UserWarning|Perhaps you"; }
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader | tee "$out/gpu.txt"
nvidia-smi topo -m > "$out/topo.txt" 2>&1
timeout 150 python3 -m pytest -q -m multigpu tests/test_multigpu.py -k "not ucx" -p no:cacheprovider --tb=short \
  -W ignore 2>&1 | tail -15 > "$out/pytest-multigpu.log"
tail -n 2 "$out/pytest-multigpu.log"
b() { echo "\$ $*"; timeout 120 python3 -m dgraph.cli bench "$@" 2>&1 | quiet; }
{
  b superstep --partitions 2 --executor spmd --backend cupy --transport nccl
  b superstep --partitions 2 --executor spmd --backend cupy --transport dask
  b superstep --partitions 2 --executor tasks --backend cupy
  DGRAPH_PROFILE=1 b bfs --generate rmat:scale=24 --backend cupy --partitions 2 --executor spmd --transport nccl --repeat 5 --json "$out/bfs24-p2-profile.json"
  b bfs --generate rmat:scale=24 --backend cupy --partitions 2 --executor spmd --transport nccl --repeat 5
} > "$out/bench.log" 2>&1
grep -E "^\\$|per superstep|time  |MTEPS|supersteps|phases|exchanged|anchor" "$out/bench.log" | cut -c1-220
python3 - "$out/bfs24-p2-profile.json" <<'PY'
import json, sys
fig = json.load(open(sys.argv[1]))
for r in fig["stats"]:
    print(f"  s{r['superstep']} {r['direction']:4s} frontier {r['frontier']:>9,} time {r['time_s']*1e3:7.3f} ms = "
          f"kernel {r['kernel_s']*1e3:7.3f} + exchange {r['exchange_s']*1e3:7.3f} + receive {r['receive_s']*1e3:7.3f} "
          f"| {r['bytes_exchanged']/2**20:6.2f} MiB")
PY
timeout 150 python3 docs/bench-scripts/simulated-8.py 22 8 2>&1 | quiet | tail -8 | tee "$out/simulated-8.log"
