# Issue 22's same-answers check on one GPU: `dgraph bench` of CDLP, LCC, triangle count and BC on
# rmat20, the tree before the layout change (OLD, a `git archive 28c1814` unpacked there) against this
# one, alternated in one call.  Usage: sh benchmarks/layout-ab.sh OLD OUTDIR [ROUNDS] [ALGORITHMS...]
# Each `dgraph bench` process takes 20-40 s on an H200 host (start-up, generation, compiles):
# 2 rounds of 4 algorithms do not fit a 10-minute device call.
old=$1; out=$2; rounds=${3:-1}
if [ $# -ge 3 ]; then shift 3; else set --; fi
algos=${*:-cdlp lcc triangle_count bc}
for round in $(seq $rounds); do
  for algo in $algos; do
    for tree in "$old" "$PWD"; do
      tag=$(basename "$tree")
      PYTHONPATH=/tmp/site:$tree timeout 120 python3 -m dgraph.cli bench $algo --generate rmat:scale=20 \
        --backend cupy --no-anchor --repeat 5 --quiet --json $out/ab-$algo-$tag-$round.json > $out/ab-$algo-$tag-$round.log 2>&1
      echo "$round $algo $tag rc=$? $(grep -o '"time_ms": [0-9.]*' $out/ab-$algo-$tag-$round.json | head -1)"
    done
  done
done
