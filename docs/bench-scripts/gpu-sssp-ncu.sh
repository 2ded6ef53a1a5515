#!/usr/bin/env bash
# One-GPU call: where one rmat20 SSSP's device time goes now (ncu per kernel), and why its relaxation
# kernel takes what it does (ncu sections: throughputs, occupancy, stall reasons of the longest launches).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site:$PWD || exit
export PYTHONUNBUFFERED=1
S="docs/bench-scripts/sssp-gpu-kernels.py 20"
timeout 150 python3 $S 2>&1 | grep -v -i warn | head -30
timeout 150 ncu --profile-from-start off --metrics gpu__time_duration.sum --csv python3 $S profile > $OUT/time.csv 2>$OUT/time.err
python3 docs/bench-scripts/ncu-sum.py $OUT/time.csv | head -25
timeout 250 ncu --profile-from-start off --section SpeedOfLight --section WarpStateStats --section Occupancy --section LaunchStats \
  --page raw --csv -k regex:"relax_dist|tight_parents|split_|relax_hops|sssp_steps" python3 $S profile > $OUT/raw.csv 2>$OUT/raw.err
python3 docs/bench-scripts/ncu-digest.py $OUT/raw.csv 3
