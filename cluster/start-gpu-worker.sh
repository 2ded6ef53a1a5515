#!/usr/bin/env bash
# Start GPU Dask workers for dgraph on this host with dask-cuda: one worker
# process per GPU (CUDA_VISIBLE_DEVICES or --gpus picks which). Runs in the
# foreground. The protocol (tcp or ucx) follows the scheduler address.
set -euo pipefail

usage() {
  cat <<'USAGE'
usage: cluster/start-gpu-worker.sh SCHEDULER [options] [-- extra `dask cuda worker` options]

  SCHEDULER               scheduler address, e.g. tcp://host:8786 or ucx://host:8786,
                          or a scheduler file written by start-scheduler.sh --scheduler-file
  --gpus LIST             GPUs to use, e.g. 0,1,2,3       (default: $CUDA_VISIBLE_DEVICES, or all)
  --nthreads N            threads per worker process      (default 1)
  --memory-limit LIMIT    host memory per worker, e.g. 32GB (default auto)
  --rmm-pool-size SIZE    RMM pool per GPU, e.g. 40GB (needs rmm; recommended with UCX over NVLink/IB)
  --interface IFACE       network interface to use, e.g. ib0
  -h, --help              this message

NCCL_NVLS_ENABLE=0 is exported unless already set (see cluster/README.md).
USAGE
}

die() { echo "start-gpu-worker.sh: $*" >&2; echo >&2; usage >&2; exit 2; }
need() { [[ $# -ge 2 && -n "$2" ]] || die "$1 needs a value"; }

[[ $# -ge 1 ]] || die "the scheduler address is missing"
case "$1" in -h|--help) usage; exit 0 ;; esac
scheduler=$1; shift

gpus="" nthreads=1 memory_limit=auto rmm_pool="" interface=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --gpus) need "$@"; gpus=$2; shift 2 ;;
    --nthreads) need "$@"; nthreads=$2; shift 2 ;;
    --memory-limit) need "$@"; memory_limit=$2; shift 2 ;;
    --rmm-pool-size) need "$@"; rmm_pool=$2; shift 2 ;;
    --interface) need "$@"; interface=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    --) shift; break ;;
    *) die "unknown argument: $1" ;;
  esac
done

[[ "$nthreads" =~ ^[1-9][0-9]*$ ]] || die "--nthreads must be a positive number, got '$nthreads'"
python3 -c 'import dask_cuda' 2>/dev/null \
  || die "dask-cuda is not installed: pip install 'dgraph-frontier[cuda]'"
if [[ "$scheduler" == ucx://* || "$scheduler" == ucxx://* ]]; then
  python3 -c 'import distributed_ucxx' 2>/dev/null \
    || die "a ucx:// scheduler needs distributed-ucxx: pip install 'dgraph-frontier[ucx]'"
fi

if [[ "$scheduler" == *.json ]]; then
  target=(--scheduler-file "$scheduler")
elif [[ "$scheduler" == *://* || "$scheduler" == *:* ]]; then
  target=("$scheduler")
else
  die "SCHEDULER must look like tcp://host:8786, ucx://host:8786 or file.json, got '$scheduler'"
fi

# NVLink SHARP multicast is not available on every machine (not on the
# project's test GPUs); keep NCCL from trying it unless told otherwise.
export NCCL_NVLS_ENABLE="${NCCL_NVLS_ENABLE:-0}"
[[ -n "$gpus" ]] && export CUDA_VISIBLE_DEVICES="$gpus"

args=(cuda worker "${target[@]}" --nthreads "$nthreads" --memory-limit "$memory_limit")
[[ -n "$rmm_pool" ]] && args+=(--rmm-pool-size "$rmm_pool")
[[ -n "$interface" ]] && args+=(--interface "$interface")

if command -v dask >/dev/null 2>&1; then dask=(dask); else dask=(python3 -m dask); fi
echo "+ CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-<all>} NCCL_NVLS_ENABLE=$NCCL_NVLS_ENABLE" \
     "${dask[*]} ${args[*]} $*" >&2
exec "${dask[@]}" "${args[@]}" "$@"
