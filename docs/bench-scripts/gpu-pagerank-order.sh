python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site:$PWD || exit
nvidia-smi --query-gpu=name --format=csv,noheader
S=docs/bench-scripts/pagerank-order.py
timeout 200 python3 $S --repeat 8 2>&1 | grep -v -i warn
for v in given out; do
  timeout 120 ncu --profile-from-start off --metrics gpu__time_duration.sum --csv python3 $S --ncu $v > $OUT/ncu-$v.csv 2>$OUT/ncu-$v.err
  echo "== ncu $v"; python3 docs/bench-scripts/ncu-sum.py $OUT/ncu-$v.csv
done
