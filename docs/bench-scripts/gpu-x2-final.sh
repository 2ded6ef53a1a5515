#!/usr/bin/env bash
# Last two-GPU call (nvidia-h200-x2), 2026-11-23, on the merged tree: the multi-GPU tests (spmd with the
# final gather on shard 0), BFS rmat24 on 1 and 2 GPUs, and the EMV programs on GPU 0 (ratios only).
# Usage: gpu-x2-final.sh OUTDIR
set -uo pipefail
out=${1:?usage: gpu-x2-final.sh OUTDIR}
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
quiet() { grep -v -i -E "warn|CUDA context|Please make sure|NAT = np|distributed\.|UserWarning|Perhaps you"; }
timeout 130 python3 -m pytest -q -m multigpu tests/test_multigpu.py -k "not ucx" -p no:cacheprovider --tb=short \
  -W ignore 2>&1 | tail -15 > "$out/pytest-multigpu.log"
tail -n 2 "$out/pytest-multigpu.log"
timeout 60 python3 -m dgraph.cli bench bfs --generate rmat:scale=24 --backend cupy --partitions 2 --executor spmd \
  --transport nccl --repeat 5 2>&1 | quiet | grep -E "time|supersteps|phases|anchor" | cut -c1-220
CUDA_VISIBLE_DEVICES=0 timeout 70 python3 docs/bench-scripts/emv-bench.py rmat --scale 20 --backend cupy --repeat 3 \
  2>&1 | quiet | tail -7
