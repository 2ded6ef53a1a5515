# The 2026-11-26 scale-out table (docs/BENCHMARKS.md): 1 GPU against 2 on rmat24/25/26, same calls.
# Run from the repository root on a 2-GPU host; OUT is the output folder.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site:$PWD || exit
export PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0
(timeout 100 python3 -m pytest -q -x -p no:cacheprovider -m multigpu tests/test_multigpu.py -k "tcp and ipc" 2>&1 | tail -5) > $OUT/tests.log 2>&1; grep -E "passed|failed" $OUT/tests.log
for s in 24 26; do timeout 200 python3 benchmarks/spmd-profile.py $OUT/profile$s.json --scale $s --algorithms bfs wcc pagerank sssp --repeat 3 > $OUT/profile$s.log 2>&1; grep "GPU" $OUT/profile$s.log; done
timeout 150 python3 benchmarks/spmd-profile.py $OUT/profile25-cdlp.json --scale 25 --algorithms cdlp --repeat 2 > $OUT/profile25.log 2>&1; grep "GPU" $OUT/profile25.log
timeout 60 python3 benchmarks/spmd-launch.py --backend cupy --runs 200 2>&1 | grep workers
