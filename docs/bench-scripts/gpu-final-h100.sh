#!/usr/bin/env bash
# One-GPU call (nvidia-h100-x1), 2026-11-23, after merging EMV (issue 7) and the CPU work (issue 4):
# every `gpu` test, then the EMV programs against the built-ins on CuPy.  Usage: gpu-final-h100.sh OUTDIR
set -uo pipefail
out=${1:?usage: gpu-final-h100.sh OUTDIR}
mkdir -p "$out"
export PYTHONUNBUFFERED=1
quiet() { grep -v -i -E "warn|CUDA context|Please make sure|NAT = np"; }
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$out/gpu.txt"
timeout "${TEST_S:-380}" python3 -m pytest -q -m gpu tests -p no:cacheprovider --tb=short -W ignore \
  --durations=5 2>&1 | tail -40 > "$out/pytest-gpu.log"
grep -E "passed|failed|FAILED|ERROR" "$out/pytest-gpu.log" | tail -12
timeout "${BENCH_S:-150}" python3 docs/bench-scripts/emv-bench.py rmat --scale 20 --backend cupy --repeat 3 2>&1 \
  | quiet | tee "$out/emv-bench.log" | tail -15
