#!/usr/bin/env bash
# GPU checks and figures of docs/BENCHMARKS.md in one device call (nvidia-h200-x2, no UCX wheels).
# Usage: docs/bench-scripts/gpu-all.sh OUTDIR
set -uo pipefail
out=${1:?usage: gpu-all.sh OUTDIR}
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
quiet() { grep -v -i -E "warn|CUDA context|Please make sure|NAT = np"; }
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > "$out/gpu.txt"
timeout 320 python3 -m pytest -q -m "gpu or multigpu" tests -p no:cacheprovider -k "not ucx" 2>&1 | tail -8 | tee "$out/pytest-gpu.log"
b() { timeout 150 python3 -m dgraph.cli bench "$@" 2>&1 | quiet; }
{
  b bfs --generate rmat:scale=20 --backend cupy --repeat 10
  b bfs --generate grid:rows=1000,cols=1000 --backend cupy --source corner --repeat 3
  b superstep --backend cupy --partitions 2 --executor spmd --transport nccl --supersteps 200 --repeat 3
  b superstep --backend cupy --partitions 2 --executor spmd --transport dask --supersteps 200 --repeat 3
  b superstep --backend cupy --partitions 2 --executor tasks --supersteps 100 --repeat 3
  b superstep --backend cupy --partitions 4 --executor spmd --supersteps 100 --repeat 3
  b superstep --backend cupy --partitions 4 --executor tasks --supersteps 50 --repeat 3
  b bfs --generate rmat:scale=24 --backend cupy --partitions 2 --executor spmd --transport nccl --repeat 5 --json "$out/bfs24-nccl.json"
} | tee "$out/bench.log"
python3 -c "
import json; d=json.load(open('$out/bfs24-nccl.json'))
for r in d['stats']: print({k: (round(v,5) if isinstance(v,float) else v) for k,v in r.items()})
" | tee -a "$out/bench.log"
