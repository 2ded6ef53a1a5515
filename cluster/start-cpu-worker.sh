#!/usr/bin/env bash
# Start CPU Dask workers for dgraph on this host: by default one single-threaded
# worker process per CPU core (dgraph puts one graph partition on each worker).
# Runs in the foreground.
set -euo pipefail

usage() {
  cat <<'USAGE'
usage: cluster/start-cpu-worker.sh SCHEDULER [options] [-- extra `dask worker` options]

  SCHEDULER               scheduler address, e.g. tcp://host:8786 (or ucx://host:8786),
                          or a scheduler file written by start-scheduler.sh --scheduler-file
  --nworkers N            worker processes on this host   (default: number of CPU cores)
  --nthreads N            threads per worker process      (default 1)
  --memory-limit LIMIT    memory per worker process, e.g. 16GB (default auto: share RAM)
  --interface IFACE       network interface to use, e.g. ib0 or eth0
  --local-directory DIR   scratch space for spilled data  (default: dask's choice)
  -h, --help              this message

See cluster/README.md.
USAGE
}

die() { echo "start-cpu-worker.sh: $*" >&2; echo >&2; usage >&2; exit 2; }
need() { [[ $# -ge 2 && -n "$2" ]] || die "$1 needs a value"; }

[[ $# -ge 1 ]] || die "the scheduler address is missing"
case "$1" in -h|--help) usage; exit 0 ;; esac
scheduler=$1; shift

nworkers="" nthreads=1 memory_limit=auto interface="" local_dir=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --nworkers) need "$@"; nworkers=$2; shift 2 ;;
    --nthreads) need "$@"; nthreads=$2; shift 2 ;;
    --memory-limit) need "$@"; memory_limit=$2; shift 2 ;;
    --interface) need "$@"; interface=$2; shift 2 ;;
    --local-directory) need "$@"; local_dir=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    --) shift; break ;;
    *) die "unknown argument: $1" ;;
  esac
done

if [[ -z "$nworkers" ]]; then
  nworkers=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
fi
[[ "$nworkers" =~ ^[1-9][0-9]*$ ]] || die "--nworkers must be a positive number, got '$nworkers'"
[[ "$nthreads" =~ ^[1-9][0-9]*$ ]] || die "--nthreads must be a positive number, got '$nthreads'"

if [[ "$scheduler" == *.json ]]; then
  target=(--scheduler-file "$scheduler")
elif [[ "$scheduler" == *://* || "$scheduler" == *:* ]]; then
  target=("$scheduler")
else
  die "SCHEDULER must look like tcp://host:8786, ucx://host:8786 or file.json, got '$scheduler'"
fi

args=(worker "${target[@]}" --nworkers "$nworkers" --nthreads "$nthreads"
      --memory-limit "$memory_limit")
[[ -n "$interface" ]] && args+=(--interface "$interface")
[[ -n "$local_dir" ]] && args+=(--local-directory "$local_dir")

if command -v dask >/dev/null 2>&1; then dask=(dask); else dask=(python3 -m dask); fi
echo "+ ${dask[*]} ${args[*]} $*" >&2
exec "${dask[@]}" "${args[@]}" "$@"
