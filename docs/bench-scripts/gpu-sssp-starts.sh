#!/usr/bin/env bash
# One-GPU call: SSSP before (.whl/before: main's dgraph) and after (this tree: the blocks' first frontier
# slots from block_starts, the relaxation's three block tallies in one), alternated in separate
# processes; ncu's digest of the relaxation after; the SSSP GPU tests.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site:$PWD || exit
export PYTHONUNBUFFERED=1
quiet() { grep -v -i -E "warn|CUDA context|Please make sure|NAT = np"; }
b() { (cd /tmp && PYTHONPATH=$P timeout 150 python3 -m dgraph.cli bench sssp "$@" --backend cupy --no-anchor 2>&1 | quiet | grep -E "^  time|relax"); }
for i in 1 2 3; do
  for v in before after; do
    P=/tmp/site:$PWD; [ $v = before ] && P=/tmp/site:$PWD/.whl/before
    echo "-- $v rmat20"; b --generate rmat:scale=20,weighted=True --repeat 5
  done
done
for v in before after; do
  P=/tmp/site:$PWD; [ $v = before ] && P=/tmp/site:$PWD/.whl/before
  echo "-- $v grid"; b --generate grid:rows=1000,cols=1000,weighted=True --source corner --repeat 3
done
S="docs/bench-scripts/sssp-gpu-kernels.py 20"
timeout 150 ncu --profile-from-start off --metrics gpu__time_duration.sum --csv python3 $S profile > $OUT/time.csv 2>$OUT/time.err
python3 docs/bench-scripts/ncu-sum.py $OUT/time.csv | head -12
timeout 200 ncu --profile-from-start off --section SpeedOfLight --section WarpStateStats --section Occupancy --section LaunchStats \
  --page raw --csv -k regex:"relax_dist|tight_parents" python3 $S profile > $OUT/raw.csv 2>$OUT/raw.err
python3 docs/bench-scripts/ncu-digest.py $OUT/raw.csv 2
timeout ${TEST_S:-280} python3 -m pytest -q -m gpu tests/test_sssp.py tests/test_gpu_sssp_steps.py tests/test_gpu_algorithms.py tests/test_gpu_batched.py -k "sssp or SSSP" -p no:cacheprovider --tb=short -W ignore -x 2>&1 | tail -5
