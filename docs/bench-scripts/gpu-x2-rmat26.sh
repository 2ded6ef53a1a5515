#!/usr/bin/env bash
# Two-GPU call (nvidia-h200-x2), 2026-11-23: BFS on rmat scale 26 (67M vertices, ~2.1G stored arcs) on
# 2 GPUs (spmd, NCCL) against one GPU (the bench's anchor: the same graph, one partition, on GPU 0).
# Usage: gpu-x2-rmat26.sh OUTDIR
set -uo pipefail
out=${1:?usage: gpu-x2-rmat26.sh OUTDIR}
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
quiet() { grep -v -i -E "warn|CUDA context|Please make sure|NAT = np|distributed\.|UserWarning|Perhaps you"; }
SECONDS=0
timeout "${LIMIT:-340}" python3 -m dgraph.cli bench bfs --generate rmat:scale=26 --backend cupy --partitions 2 \
  --executor spmd --transport nccl --repeat 3 --json "$out/bfs26-p2.json" 2>&1 | quiet | tee "$out/bench.log" | cut -c1-220
echo "wall ${SECONDS}s"
