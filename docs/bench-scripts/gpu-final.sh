#!/usr/bin/env bash
# Last GPU call of the 2026-11-21 session (nvidia-h200-x4): the multi-GPU tests after the spmd
# result pick-up change, BFS rmat24 on 2 and 4 GPUs with the run's phases, and the single-GPU
# SSSP / PageRank figures with the CuPy delta constant.  Usage: docs/bench-scripts/gpu-final.sh OUTDIR
set -uo pipefail
out=${1:?usage: gpu-final.sh OUTDIR}
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
quiet() { grep -v -i -E "warn|CUDA context|Please make sure|NAT = np"; }
ngpu=$(nvidia-smi -L | wc -l)
timeout 200 python3 -m pytest -q -m multigpu tests/test_multigpu.py -k "not ucx" -p no:cacheprovider --tb=short \
  -W ignore 2>&1 | tail -20 > "$out/pytest-multigpu.log"
CUDA_VISIBLE_DEVICES=0 timeout 100 python3 -m pytest -q -m gpu tests/test_sssp.py tests/test_gpu_algorithms.py \
  -k "auto_delta or fused_kernels or sssp" -p no:cacheprovider --tb=short -W ignore 2>&1 | tail -20 > "$out/pytest-gpu.log"
tail -n 1 "$out/pytest-multigpu.log" "$out/pytest-gpu.log"
b() { echo "\$ dgraph bench $*"; timeout 150 python3 -m dgraph.cli bench "$@" 2>&1 | quiet; }
{
  CUDA_VISIBLE_DEVICES=0,1 b bfs --generate rmat:scale=24 --backend cupy --partitions 2 --executor spmd --transport nccl --repeat 5
  [ "$ngpu" -ge 4 ] && b bfs --generate rmat:scale=24 --backend cupy --partitions 4 --executor spmd --transport nccl --repeat 5
  CUDA_VISIBLE_DEVICES=0 b sssp --generate rmat:scale=20,weighted=True --backend cupy --repeat 5
  CUDA_VISIBLE_DEVICES=0 b sssp --generate grid:rows=1000,cols=1000,weighted=True --backend cupy --source corner --repeat 3
  CUDA_VISIBLE_DEVICES=0 b pagerank --generate rmat:scale=20 --iterations 20 --backend cupy --repeat 5
} > "$out/bench.log" 2>&1
grep -E "^\\$|time|MTEPS|supersteps|phases|anchor.*(CuPy|Gunrock|local|scipy)" "$out/bench.log" | cut -c1-230
