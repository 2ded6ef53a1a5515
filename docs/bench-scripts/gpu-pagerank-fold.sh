#!/usr/bin/env bash
# One-GPU call: PageRank rmat20 before (.whl/before: main's dgraph) and after (this tree), alternated in
# separate processes (pagerank-overhead.py: wall, run_time, the iterations' device time); the bench line
# of each; ncu's per-kernel times of three fused iterations (after); the GPU tests of the row sums.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site:$PWD || exit
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name --format=csv,noheader
S=docs/bench-scripts/pagerank-overhead.py
quiet() { grep -v -i -E "warn|CUDA context|Please make sure|NAT = np"; }
for i in 1 2 3; do
  PYTHONPATH=/tmp/site:$PWD/.whl/before timeout 100 python3 $S 2>&1 | quiet | sed 's/^/before /'
  timeout 100 python3 $S 2>&1 | quiet | sed 's/^/after  /'
done
timeout 120 ncu --profile-from-start off --metrics gpu__time_duration.sum --csv python3 docs/bench-scripts/pagerank-order.py --ncu given > $OUT/ncu-after.csv 2>$OUT/ncu-after.err
echo "== ncu after, 3 iterations"; python3 docs/bench-scripts/ncu-sum.py $OUT/ncu-after.csv
for v in before after; do
  P=/tmp/site:$PWD; [ $v = before ] && P=/tmp/site:$PWD/.whl/before
  echo "-- bench $v"; (cd /tmp && PYTHONPATH=$P timeout 150 python3 -c "import dgraph,sys; print(dgraph.__file__)" && PYTHONPATH=$P timeout 150 python3 -m dgraph.cli bench pagerank --generate rmat:scale=20 --iterations 20 --backend cupy --repeat 10 2>&1 | quiet | grep -E "time|anchor|CuPy|Gunrock")
done
timeout ${TEST_S:-300} python3 -m pytest -q -m gpu ${TESTS:-tests/test_gpu_batched.py tests/test_pagerank.py tests/test_gpu_algorithms.py tests/test_emv_gpu.py tests/test_emv_device.py tests/test_bc.py tests/test_cli.py} -p no:cacheprovider --tb=short -W ignore -x 2>&1 | tail -6
