set -uo pipefail
out=$1; export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
quiet() { grep -v -i -E "warn|CUDA context|Please make sure"; }
timeout 200 python3 -m pytest -q -x -m multigpu tests/test_multigpu.py -p no:cacheprovider -k tcp 2>&1 | tail -5 | tee "$out/pytest-multigpu.log"
timeout 100 python3 -m dgraph.cli bench superstep --backend cupy --partitions 2 --executor spmd --transport nccl --supersteps 200 --repeat 3 2>&1 | quiet | tee -a "$out/superstep.log"
timeout 200 python3 -m dgraph.cli bench bfs --generate rmat:scale=24 --backend cupy --partitions 2 --executor spmd --transport nccl --repeat 5 --json "$out/bfs-nccl.json" 2>&1 | quiet | tee -a "$out/bfs.log"
python3 -c "
import json; d=json.load(open('$out/bfs-nccl.json'))
for r in d['stats']: print({k: (round(v,5) if isinstance(v,float) else v) for k,v in r.items()})
"
