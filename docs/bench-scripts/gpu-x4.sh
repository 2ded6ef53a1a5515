#!/usr/bin/env bash
# One device call on nvidia-h200-x4 (or -x2): the GPU and multi-GPU tests, the single-GPU
# SSSP/PageRank figures, and BFS on rmat 24 over 1, 2 and 4 GPUs (spmd, NCCL).
# Usage: docs/bench-scripts/gpu-x4.sh OUTDIR
set -uo pipefail
out=${1:?usage: gpu-x4.sh OUTDIR}
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
quiet() { grep -v -i -E "warn|CUDA context|Please make sure|NAT = np"; }
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > "$out/gpu.txt"
ngpu=$(nvidia-smi -L | wc -l)
CUDA_VISIBLE_DEVICES=0 timeout 150 python3 -m pytest -q -m gpu tests/test_sssp.py tests/test_gpu_algorithms.py \
  -p no:cacheprovider --tb=short -W ignore 2>&1 | tail -25 > "$out/pytest-gpu.log"
tail -2 "$out/pytest-gpu.log"
timeout 300 python3 -m pytest -q -m multigpu tests/test_multigpu.py -k "not ucx" -p no:cacheprovider --tb=short \
  -W ignore --durations=6 2>&1 | tail -30 > "$out/pytest-multigpu.log"
tail -2 "$out/pytest-multigpu.log"
b() { echo "\$ dgraph bench $*"; timeout 150 python3 -m dgraph.cli bench "$@" 2>&1 | quiet; }
{
  CUDA_VISIBLE_DEVICES=0 b sssp --generate rmat:scale=20,weighted=True --backend cupy --repeat 5
  CUDA_VISIBLE_DEVICES=0 b sssp --generate grid:rows=1000,cols=1000,weighted=True --backend cupy --source corner --repeat 3
  CUDA_VISIBLE_DEVICES=0,1 b bfs --generate rmat:scale=24 --backend cupy --partitions 2 --executor spmd --transport nccl --repeat 5 --json "$out/bfs24-p2.json"
  [ "$ngpu" -ge 4 ] && b bfs --generate rmat:scale=24 --backend cupy --partitions 4 --executor spmd --transport nccl --repeat 5 --json "$out/bfs24-p4.json"
  [ "$ngpu" -ge 4 ] && b superstep --backend cupy --partitions 4 --executor spmd --transport nccl --supersteps 200 --repeat 3
} > "$out/bench.log" 2>&1
grep -E "^\\$|time|MTEPS|supersteps|anchor|exchanged|overhead" "$out/bench.log" | cut -c1-200
