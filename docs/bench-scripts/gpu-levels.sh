#!/usr/bin/env bash
# One-GPU call (nvidia-h100-x1), 2026-11-23: the persistent multi-level BFS kernel
# (now dgraph/algorithms/bfs/solver.py) checked against the level-by-level path and numpy, grid and rmat
# BFS before/after (DGRAPH_LEVELS=0 is "before"), the suite's one-GPU figures on the H100, device
# memory of generate/BFS, then every `gpu` test.  Usage: docs/bench-scripts/gpu-levels.sh OUTDIR
set -uo pipefail
out=${1:?usage: gpu-levels.sh OUTDIR}
mkdir -p "$out"
export PYTHONUNBUFFERED=1
quiet() { grep -v -i -E "warn|CUDA context|Please make sure|NAT = np"; }
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$out/gpu.txt"
timeout 240 python3 -m pytest -q -m gpu tests/test_gpu_levels.py tests/test_engine_local.py tests/test_bfs.py \
  -p no:cacheprovider --tb=short -W ignore -x 2>&1 | tail -25 > "$out/pytest-levels.log"
tail -n 3 "$out/pytest-levels.log"
b() { echo "\$ $*"; timeout 120 python3 -m dgraph.cli bench "$@" 2>&1 | quiet; }
{
  DGRAPH_LEVELS=0 b bfs --generate grid:rows=1000,cols=1000 --backend cupy --source corner --repeat 3
  b bfs --generate grid:rows=1000,cols=1000 --backend cupy --source corner --repeat 5
  DGRAPH_LEVELS=0 b bfs --generate rmat:scale=20 --backend cupy --repeat 10 --no-anchor
  b bfs --generate rmat:scale=20 --backend cupy --repeat 10
  b pagerank --generate rmat:scale=20 --iterations 20 --backend cupy --repeat 5
  b sssp --generate rmat:scale=20,weighted=True --backend cupy --repeat 5
  b sssp --generate grid:rows=1000,cols=1000,weighted=True --backend cupy --source corner --repeat 3
} > "$out/bench.log" 2>&1
grep -E "^\\$|time|MTEPS|supersteps|per arc|memory|anchor.*(CuPy|Gunrock|scipy)" "$out/bench.log" | cut -c1-200
timeout 90 python3 docs/bench-scripts/gpu-memory.py > "$out/memory.log" 2>&1; cat "$out/memory.log" | quiet | tail -20
timeout 200 python3 -m pytest -q -m gpu tests -p no:cacheprovider --tb=short -W ignore 2>&1 | tail -15 > "$out/pytest-gpu.log"
tail -n 5 "$out/pytest-gpu.log"
