#!/usr/bin/env bash
# One-GPU call (nvidia-h100-x1), 2026-11-24: the EMV device path (dgraph/emv/device.py) checked and
# timed.  The EMV gpu tests and the frontier-union test, then emv-bench on rmat 20 with the device
# path (default) and without it (DGRAPH_EMV_FUSE=0: the vectorized CuPy path, the state before),
# then where the device path's time goes.  Usage: gpu-emv-device.sh OUTDIR
set -uo pipefail
out=${1:?usage: gpu-emv-device.sh OUTDIR}
mkdir -p "$out"
export PYTHONUNBUFFERED=1
quiet() { grep -v -i -E "warn|CUDA context|Please make sure|NAT = np"; }
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$out/gpu.txt"
python3 -c "import numba, numpy, cupy; print('numba', numba.__version__, 'numpy', numpy.__version__, 'cupy', cupy.__version__)" | tee -a "$out/gpu.txt"
timeout "${TEST_S:-200}" python3 -m pytest -q -m gpu tests/test_emv_device.py tests/test_emv_gpu.py tests/test_emv_fuse.py \
  tests/test_gpu_frontier.py -p no:cacheprovider --tb=short -W ignore --durations=5 2>&1 | tail -40 > "$out/pytest-emv.log"
grep -E "passed|failed|FAILED|ERROR" "$out/pytest-emv.log" | tail -12
for mode in device vectorized; do
  fuse=1; [ "$mode" = vectorized ] && fuse=0
  echo "== $mode (DGRAPH_EMV_FUSE=$fuse)"
  DGRAPH_EMV_FUSE=$fuse timeout "${BENCH_S:-100}" python3 docs/bench-scripts/emv-bench.py rmat --scale 20 --backend cupy \
    --repeat 5 2>&1 | quiet | tee "$out/emv-bench-$mode.log" | tail -9
done
timeout "${PROF_S:-80}" python3 docs/bench-scripts/emv-gpu-profile.py 20 25 2>&1 | quiet > "$out/emv-profile.log"
head -5 "$out/emv-profile.log"
