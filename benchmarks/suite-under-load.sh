#!/bin/bash
# The default suite three times in a row while two other copies of it run on the same machine
# (issue 25, item 8: no test may depend on timing).  Usage: bash benchmarks/suite-under-load.sh OUT_DIR
# Prints, a round at a time, each copy's pytest summary; exit status 1 when any copy failed.
set -u
out=${1:?an output folder}
mkdir -p "$out"
cd "$(dirname "$0")/.."
status=0
for round in 1 2 3; do
  start=$(date +%s)
  for c in a b c; do
    (CI=true python3 -m pytest -q -p no:cacheprovider --basetemp="$out/bt-$round-$c" > "$out/r$round-$c.log" 2>&1;
     echo "rc=$?" >> "$out/r$round-$c.log") &
  done
  wait
  echo "round $round: $(( $(date +%s) - start )) s"
  for c in a b c; do
    echo "  $c: $(tail -2 "$out/r$round-$c.log" | tr '\n' ' ')"
    grep -q "^rc=0$" "$out/r$round-$c.log" || status=1
  done
done
exit $status
